/**
 * fast-check arbitraries for the event algebra, for dpaudit's own property tests and for users
 * who want "this accountant law holds" in their suites. Values are valid events (they pass
 * `validateEvent`), including infinite parameters where the domain allows them.
 *
 * @module
 */
import fc from 'fast-check'
import type { PrivacyEvent } from '../mechanisms/event.js'
import * as ev from '../mechanisms/event.js'
import type { NeighbouringRelation, PrivacyUnit, RelationKind } from '../mechanisms/neighbouring.js'

export const arbRelation = (
  kinds: ReadonlyArray<RelationKind> = ['add-remove', 'replace-one'],
  units: ReadonlyArray<PrivacyUnit> = ['record', 'word', 'document', 'user'],
): fc.Arbitrary<NeighbouringRelation> =>
  fc.record({ kind: fc.constantFrom(...kinds), unit: fc.constantFrom(...units) })

const pos = (min: number, max: number): fc.Arbitrary<number> =>
  fc.double({ min, max, noNaN: true, noDefaultInfinity: true })

export interface EventArbOptions {
  /** Relation every leaf states (default: add/remove one record). */
  readonly relation?: NeighbouringRelation
  /** Allow ε = ∞ and σ = ∞ style extremes (for codec tests). */
  readonly extremes?: boolean
  readonly maxDepth?: number
}

/** A noise leaf with moderate, valid parameters. */
export const arbNoiseLeaf = (options: EventArbOptions = {}): fc.Arbitrary<PrivacyEvent> => {
  const rel = options.relation ?? { kind: 'add-remove', unit: 'record' }
  const eps = options.extremes === true ? fc.oneof(pos(0, 10), fc.constant(Infinity)) : pos(0.01, 5)
  return fc.oneof(
    fc.tuple(pos(0.2, 50), pos(0.1, 4)).map(([s, d]) => ev.gaussian(s, d, rel)),
    fc.tuple(pos(0.2, 50), pos(0.1, 4)).map(([b, d]) => ev.laplace(b, d, rel)),
    fc.tuple(pos(0.01, 5), fc.integer({ min: 2, max: 20 })).map(([e, k]) => ev.randomizedResponse(e, k, rel)),
    fc.tuple(pos(0.01, 0.49), fc.integer({ min: 1, max: 8 })).map(([f, b]) => ev.bitwiseRandomizedResponse(f, b, rel)),
    fc.tuple(pos(0.01, 5), pos(0.1, 3)).map(([e, u]) => ev.exponential(e, u, rel)),
    eps.map((e) => ev.pureDP(e, rel)),
    fc.tuple(eps, pos(0, 1e-3)).map(([e, d]) => ev.approxDP(e, d, rel)),
    pos(0, 3).map((r) => ev.zcdp(r, rel)),
  )
}

/**
 * The leaves issue 26 added: (ξ, ρ)-zCDP, permute-and-flip, tree aggregation, a stated RDP curve
 * (values of a Gaussian's, possibly loosened) and a stated privacy profile (points of a Laplace's).
 * Kept apart from `arbNoiseLeaf`, whose draws other suites' seeds depend on.
 */
export const arbStatedLeaf = (options: EventArbOptions = {}): fc.Arbitrary<PrivacyEvent> => {
  const rel = options.relation ?? { kind: 'add-remove', unit: 'record' }
  return fc.oneof(
    fc.tuple(pos(0, 3), pos(0, 2)).map(([r, x]) => ev.zcdp(r, rel, { xi: x })),
    fc.tuple(pos(0.01, 5), pos(0.1, 3)).map(([e, u]) => ev.permuteAndFlip(e, u, rel)),
    fc
      .tuple(pos(0.5, 20), pos(0.1, 2), fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 3 }))
      .map(([sg, d, steps, k]) => ev.treeAggregation(sg, d, steps, rel, { participations: k })),
    fc
      .tuple(pos(0.3, 10), fc.uniqueArray(pos(1.01, 200), { minLength: 1, maxLength: 6 }), pos(1, 2))
      .map(([sg, orders, loose]) => ev.statedRdp(orders, orders.map((a) => (loose * a) / (2 * sg * sg)), rel)),
    fc
      .tuple(pos(0.1, 10), fc.array(pos(0, 8), { minLength: 1, maxLength: 5 }))
      .map(([b, es]) =>
        // Laplace(b) with Δ = 1 is (ε, (1 − e^{(ε − 1/b)/2})₊)-DP (its exact profile): sound points.
        ev.statedProfile(es, es.map((e) => Math.max(0, -Math.expm1((e - 1 / b) / 2))), rel),
      ),
  )
}

/**
 * An event tree of bounded depth mixing leaves and every structural event, issue 26's included
 * (stated leaves, repeat-and-select, truncated Poisson and with-replacement sampling); an accountant
 * that cannot take one refuses it with its reason.
 */
export const arbEvent = (options: EventArbOptions = {}): fc.Arbitrary<PrivacyEvent> => {
  const maxDepth = options.maxDepth ?? 4
  const { tree } = fc.letrec<{ tree: PrivacyEvent }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', maxDepth, depthIdentifier: 'event-tree' },
      arbNoiseLeaf(options),
      arbStatedLeaf(options),
      fc.constantFrom<PrivacyEvent>(ev.noOp, ev.nonPrivate),
      fc.array(tie('tree'), { minLength: 0, maxLength: 3 }).map(ev.compose),
      fc.tuple(tie('tree'), fc.integer({ min: 0, max: 50 })).map(([e, n]) => ev.selfCompose(e, n)),
      fc.tuple(pos(1e-4, 1), tie('tree')).map(([q, e]) => ev.poissonSample(q, e)),
      fc
        .tuple(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1000 }), tie('tree'))
        .map(([n, k, e]) => ev.sampleWithoutReplacement(1 + (k % n), n, e)),
      fc.tuple(fc.string({ maxLength: 12 }), tie('tree')).map(([l, e]) => ev.labeled(l, e)),
      fc.tuple(tie('tree'), pos(1, 100), fc.constantFrom(0, 0.5, 1, 2, Infinity)).map(([e, m, sh]) => ev.repeatAndSelect(e, m, sh)),
      fc
        .tuple(pos(1e-4, 1), fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), tie('tree'))
        .map(([q, n, b, e]) => ev.truncatedPoissonSample(q, 1 + (b % n), n, e)),
      fc
        .tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 10_000 }), tie('tree'))
        .map(([m, n, e]) => ev.withReplacementSample(m, n, e)),
    ),
  }))
  return tree
}

/** A Gaussian leaf with σ/Δ in a range: the soundness oracle's favourite input. */
export const arbGaussian = (relation: NeighbouringRelation = { kind: 'add-remove', unit: 'record' }, min = 0.3, max = 20): fc.Arbitrary<ev.Gaussian> =>
  pos(min, max).map((s) => ev.gaussian(s, 1, relation))
