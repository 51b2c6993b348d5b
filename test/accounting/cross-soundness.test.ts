/**
 * Cross-accountant soundness: the PLD accountant's optimistic estimate is a lower bound on the
 * true ε(δ), so no sound accountant may ever report less than it. Random event trees over every
 * event the PLD accountant supports; a failure here names an accountant that understates ε.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { type DpError, formatError } from '../../src/core/error.js'
import { arbEvent, arbStatedLeaf } from '../../src/testing/arbitraries.js'

const REL = addRemove('record')
const dbl = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true })

// Leaves whose PLD is supported, with parameters that keep the PLD grid small.
const leaf: fc.Arbitrary<ev.PrivacyEvent> = fc.oneof(
  dbl(0.5, 5).map((s) => ev.gaussian(s, 1, REL)),
  dbl(0.5, 5).map((b) => ev.laplace(b, 1, REL)),
  fc.tuple(dbl(0.05, 2), fc.integer({ min: 2, max: 6 })).map(([e, k]) => ev.randomizedResponse(e, k, REL)),
  dbl(0.05, 2).map((e) => ev.pureDP(e, REL)),
  fc.tuple(dbl(0.05, 2), dbl(0, 1e-6)).map(([e, d]) => ev.approxDP(e, d, REL)),
)
const step: fc.Arbitrary<ev.PrivacyEvent> = fc.oneof(
  leaf,
  fc.tuple(dbl(0.01, 0.9), leaf).map(([q, l]) => ev.poissonSample(q, l)),
)
const tree: fc.Arbitrary<ev.PrivacyEvent> = fc
  .array(fc.tuple(step, fc.integer({ min: 1, max: 30 })), { minLength: 1, maxLength: 3 })
  .map((parts) => ev.compose(parts.map(([e, k]) => ev.selfCompose(e, k))))

describe('no accountant reports less than the PLD lower estimate', () => {
  it('holds on random compositions of supported events', { timeout: 60_000 }, () => {
    let checked = 0
    fc.assert(
      fc.property(tree, fc.constantFrom(1e-3, 1e-6), (e, delta) => {
        const pld = ACCOUNTANTS.pld({ relation: REL }).run(e)
        const p = E.isRight(pld) ? pld.right.epsilon(delta) : pld
        if (E.isLeft(p) || p.right.lower === undefined || !Number.isFinite(p.right.lower)) return true
        const lower = p.right.lower
        checked++
        for (const name of ACCOUNTANT_NAMES) {
          const run = ACCOUNTANTS[name]({ relation: REL }).run(e)
          const a = E.isRight(run) ? run.right.epsilon(delta) : run
          if (E.isLeft(a)) continue
          if (a.right.epsilon < lower * (1 - 1e-9) - 1e-9) return false
        }
        return true
      }),
      { seed: 424242, numRuns: 16 },
    )
    expect(checked).toBeGreaterThan(8)
  })
})

/**
 * Where the PLD accountant's lower end is a true lower bound on the event's ε(δ): every pair it
 * composes is exactly the privacy loss of some mechanism the event admits, so the composed pairs'
 * ε(δ) is reached and no sound accountant may answer below it. Exact pairs: the Gaussian, Laplace
 * and k-ary randomized-response mechanisms; the worst mechanism of a stated guarantee (ε-DP and
 * (ξ, 0)-zCDP: binary RR, Kairouz, Oh & Viswanath 2015; (ε, δ)-DP; a stated profile: its f-DP envelope's pair,
 * src/accounting/pld/profile-pair.ts); tree aggregation with one participation (leaf 1 lies in one
 * dyadic node on each of the ⌈log₂(T + 1)⌉ levels, so Δ√levels is reached); Poisson subsampling of
 * one of these under add/remove (the subsampled pair is the mixture itself). Everything else is
 * accounted by an upper bound (permute-and-flip and the exponential mechanism as their pure ε,
 * repeat-and-select, truncated / with- / without-replacement sampling, tree aggregation with
 * k > 1 participations, zCDP with ρ > 0), whose PLD lower end, where there is one, bounds the
 * model, not the mechanism, so it is not compared. `estimate` is labelled NOT a guarantee and no
 * other accountant gives a lower end, so the PLD lower end is the only one compared.
 */
const tightLeaf = (e: ev.PrivacyEvent): boolean => {
  switch (e._tag) {
    case 'Gaussian':
    case 'Laplace':
    case 'RandomizedResponse':
    case 'PureDP':
    case 'ApproxDP':
    case 'StatedProfile':
      return true
    case 'ZCDP':
      return e.rho === 0
    case 'TreeAggregation':
      return (e.participations ?? 1) === 1
    case 'Labeled':
      return tightLeaf(e.event)
    default:
      return false
  }
}
const lowerIsTrue = (e: ev.PrivacyEvent): boolean => {
  switch (e._tag) {
    case 'NoOp':
    case 'NonPrivate':
      return true
    case 'Compose':
      return e.events.every(lowerIsTrue)
    case 'SelfCompose':
    case 'Labeled':
      return lowerIsTrue(e.event)
    case 'PoissonSample':
      return tightLeaf(e.event)
    default:
      return tightLeaf(e)
  }
}

/** Every accountant's ε(δ) and δ(ε) on the event, or its refusal (which must name the field and say why). */
const answers = (e: ev.PrivacyEvent, delta: number, epsilon: number) =>
  ACCOUNTANT_NAMES.map((name) => {
    const run = ACCOUNTANTS[name]({ relation: REL }).run(e)
    const of = <A extends { readonly lower?: number }>(a: E.Either<DpError, A>, value: (a: A) => number): A | undefined => {
      if (E.isLeft(a)) {
        expect(formatError(a.left), name).toMatch(/^\$\S*: .{20,}/)
        return undefined
      }
      expect(Number.isNaN(value(a.right)), name).toBe(false)
      expect(value(a.right), name).toBeGreaterThanOrEqual(0)
      return a.right
    }
    if (E.isLeft(run)) {
      expect(formatError(run.left), name).toMatch(/^\$\S*: .{20,}/)
      return { name, eps: undefined, del: undefined }
    }
    return { name, eps: of(run.right.epsilon(delta), (a) => a.epsilon), del: of(run.right.delta(epsilon), (a) => a.delta) }
  })

/**
 * Whether the PLD lower ends were compared (a true lower bound, answered finite), and the accountant
 * answering below one if any did: its ε(δ) below PLD's lower ε, or its δ(ε) below PLD's lower δ.
 */
const belowPldLower = (e: ev.PrivacyEvent, delta: number, epsilon: number): { readonly compared: boolean; readonly below?: string } => {
  const all = answers(e, delta, epsilon)
  if (!lowerIsTrue(e)) return { compared: false }
  const pld = all.find((x) => x.name === 'pld')
  const lowE = pld?.eps?.lower
  const lowD = pld?.del?.lower
  const compareE = lowE !== undefined && Number.isFinite(lowE)
  const compareD = lowD !== undefined && lowD > 0
  for (const x of all) {
    if (compareE && x.eps !== undefined && x.eps.epsilon < lowE * (1 - 1e-9) - 1e-9)
      return { compared: true, below: `${x.name}: ε(${delta}) = ${x.eps.epsilon} < PLD lower ${lowE}` }
    if (compareD && x.del !== undefined && x.del.delta < lowD * (1 - 1e-9) - 1e-15)
      return { compared: true, below: `${x.name}: δ(${epsilon}) = ${x.del.delta} < PLD lower ${lowD}` }
  }
  return { compared: compareE || compareD }
}

describe("issue 26's events: no accountant below a true lower bound, refusals with a reason", () => {
  const delta = fc.constantFrom(1e-3, 1e-6)
  const epsilon = fc.constantFrom(0.5, 2)
  // The stated leaves beside the PLD-exact ones, composed and Poisson-sampled as above.
  const step26 = fc.oneof(leaf, arbStatedLeaf({ relation: REL }), fc.tuple(dbl(0.01, 0.9), fc.oneof(leaf, arbStatedLeaf({ relation: REL }))).map(([q, l]) => ev.poissonSample(q, l)))
  const tree26 = fc
    .array(fc.tuple(step26, fc.integer({ min: 1, max: 20 })), { minLength: 1, maxLength: 3 })
    .map((parts) => ev.compose(parts.map(([e, k]) => ev.selfCompose(e, k))))

  it('on compositions of the stated leaves (arbStatedLeaf) with PLD-exact ones', { timeout: 60_000 }, () => {
    let compared = 0
    fc.assert(
      fc.property(tree26, delta, epsilon, (e, d, x) => {
        const r = belowPldLower(e, d, x)
        if (r.compared) compared++
        expect(r.below).toBeUndefined()
      }),
      { seed: 26_2611, numRuns: 16 },
    )
    expect(compared).toBeGreaterThan(4)
  })

  it('on arbEvent trees (repeat-and-select, truncated and with-replacement sampling included)', { timeout: 60_000 }, () => {
    let compared = 0
    fc.assert(
      fc.property(arbEvent({ relation: REL, maxDepth: 3 }), delta, epsilon, (e, d, x) => {
        const r = belowPldLower(e, d, x)
        if (r.compared) compared++
        expect(r.below).toBeUndefined()
      }),
      { seed: 26_2612, numRuns: 60 },
    )
    expect(compared).toBeGreaterThan(0)
  })
})
