/**
 * The fold of the PLD accountant: an event tree becomes a multiset of dominating pairs with
 * repetition counts (./state.ts), plus the exactly composed Gaussians. What is composed how:
 * - unsampled Gaussians compose exactly into one Gaussian with μ² = Σ count/m² (Dong, Roth & Su
 *   2022, "Gaussian differential privacy", Cor. 3.3: μ_i-GDP composes to √(Σμ_i²)-GDP, and the
 *   Gaussian mechanism with noise multiplier m is exactly (1/m)-GDP);
 * - Laplace, randomized response (k-ary and bitwise) and stated ε / (ε, δ) guarantees by their
 *   dominating pairs (./pairs.ts); the exponential mechanism as the ε-DP guarantee it is;
 * - the discrete Laplace and the discrete Gaussian by the exact pair of the scalar integer shift
 *   (./lattice.ts; the discrete Gaussian's truncated tails at loss +∞);
 * - Poisson subsampling of a Gaussian, a Laplace, a discrete Laplace or Gaussian, a randomized
 *   response, an (ε, δ) guarantee or a NonPrivate release, by the subsampled dominating pairs of
 *   Zhu, Dong & Wang 2022 (their Poisson-subsampling theorem), remove and add directions composed
 *   separately, the worse δ taken at query time — under remove-only or add-only, that direction alone
 *   (dp_accounting's REMOVE and ADD adjacencies; replace-special takes both, as add/remove); A subsampled composition of Gaussians is one
 *   Gaussian (as above); nested Poisson sampling multiplies rates; a rate within 1e-6 of 1 counts
 *   as no sampling (sound: the unsampled pair dominates);
 * - Poisson subsampling under replace-one directly, not through group privacy: a Gaussian by the
 *   substitution pair, a pure-ε leaf by its amplified ε, NonPrivate by its revealed mass
 *   (`foldSubstitution`; the route is written into the notes);
 * - refused with the event's path: ρ-zCDP guarantees (no sound dominating pair is known), a
 *   discrete Gaussian on a vector query with Δ ≥ 2 (the scalar pair does not dominate its
 *   differences), sampling without replacement, and subsampled compositions of other events.
 *
 * @module
 */
import { WITH_REPLACEMENT_SCOPE } from '../with-replacement.js'
import * as E from 'fp-ts/lib/Either.js'
import { roundUpSubnormal } from '../../core/numeric.js'
import { type DpError, invalidParameter, unsupportedEvent } from '../../core/error.js'
import { absurd, childPath, isNoiseEvent, noOp, type PrivacyEvent } from '../../mechanisms/event.js'
import { addRemove, directionOf, type NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { inverseSquareUp, type NormalizedLeaf, pureEpsilonOf, resolveLeaf, rrToUniformPair } from '../normalize.js'
import { checkSamplingRelation } from '../relation.js'
import { TRUNCATION_SCOPE } from '../truncation.js'
import { MAX_COUNT, MAX_LEAF_LOSS } from './limits.js'
import { basePairOfLeaf, type BasePair, type Direction, NON_PRIVATE_PAIR, randomizedResponsePair, substitutionPureEpsilon } from './pairs.js'
import type { PldFactorSpec, PldState } from './state.js'
import { valueKey } from '../value-key.js'

/** The accountant's name, as errors report it. */
export const PLD_NAME = 'pld'
const NAME = PLD_NAME

interface Builder {
  factors: Map<string, PldFactorSpec>
  gaussianMuSquared: number
  gaussianPath: string | undefined
  nonPrivate: boolean
  notes: string[]
}

// ±∞ marked apart from each other and from NaN: equal keys merge two leaves into one factor's count
const leafKey = (leaf: NormalizedLeaf): string => valueKey(leaf)

/** The lattice spacing of an unsampled leaf's loss atoms, if it has atoms on one lattice. */
const latticeOf = (leaf: NormalizedLeaf): number | undefined => {
  switch (leaf._tag) {
    case 'Laplace':
      return 1 / leaf.noiseMultiplier
    case 'DiscreteLaplace':
      // Losses (|x| − |x − Δ|)/t: integer multiples of 1/t.
      return Number.isFinite(leaf.scale) ? 1 / leaf.scale : undefined
    case 'DiscreteGaussian':
      // Losses Δ(2x − Δ)/(2σ²): integer multiples of Δ/(2σ²).
      return Number.isFinite(leaf.sigma) ? leaf.sensitivity / (2 * leaf.sigma * leaf.sigma) : undefined
    case 'RandomizedResponseToUniform': {
      // The losses of the symmetric pair taken for it (./pairs.ts).
      const e = rrToUniformPair(leaf.epsilon, leaf.k).epsilon
      return Number.isFinite(e) && e > 0 && e <= MAX_LEAF_LOSS ? e : undefined
    }
    case 'RandomizedResponse':
    case 'PureDP':
    case 'Exponential':
    case 'ApproxDP':
      return Number.isFinite(leaf.epsilon) && leaf.epsilon > 0 && leaf.epsilon <= MAX_LEAF_LOSS ? leaf.epsilon : undefined
    case 'BitwiseRandomizedResponse': {
      const eb = Math.log1p(-leaf.flipProbability) - Math.log(leaf.flipProbability)
      return Number.isFinite(eb) && eb > 0 ? eb : undefined
    }
    case 'Gaussian':
    case 'MixtureOfGaussians':
    case 'ZCDP':
    case 'StatedRdp':
    case 'StatedProfile':
      return undefined
    default:
      return absurd(leaf)
  }
}

const addFactor = (b: Builder, spec: Omit<PldFactorSpec, 'count' | 'path'>, count: number, path: string): E.Either<DpError, void> => {
  if (count === 0) return E.right(undefined)
  const prev = b.factors.get(spec.key)
  const total = (prev?.count ?? 0) + count
  if (total > MAX_COUNT)
    return E.left(invalidParameter(`${path}`, total, `the PLD accountant composes at most 2^40 repetitions of one event`))
  b.factors.set(spec.key, { ...spec, count: total, path: prev?.path ?? path })
  return E.right(undefined)
}

const unsupportedZcdp = (path: string): DpError =>
  unsupportedEvent(
    path,
    NAME,
    'ZCDP',
    'a ρ-zCDP guarantee has no dominating pair the PLD accountant could use soundly (a Gaussian with σ = 1/√(2ρ) has the ' +
      'same Rényi curve but does not dominate every ρ-zCDP mechanism); use the zcdp or rdp accountant',
  )

/** Why a leaf without a base pair (`basePairOfLeaf` undefined) is refused. */
const unsupportedLeaf = (leaf: NormalizedLeaf, path: string): DpError =>
  leaf._tag === 'DiscreteGaussian'
    ? unsupportedEvent(
        path,
        NAME,
        'DiscreteGaussian',
        `a discrete Gaussian on a vector query with Δ = ${leaf.sensitivity} ≥ 2: the PLD of the scalar shift by Δ does not ` +
          'dominate vector differences of L2 norm Δ (for σ = 1, Δ = 2 the difference (1, 1, 1, 1) has a larger δ(ε)); ' +
          'state "scalar": true if the query is one integer, or use the zcdp or rdp accountant',
      )
    : leaf._tag === 'StatedRdp'
      ? unsupportedEvent(path, NAME, 'StatedRdp', 'an RDP curve stated at finitely many orders determines no dominating pair; use the rdp accountant')
      : unsupportedZcdp(path)

/** What a Poisson-sampled sub-tree reduces to. */
type Inner =
  | { readonly _tag: 'Nothing' }
  | { readonly _tag: 'NonPrivate' }
  | { readonly _tag: 'Leaf'; readonly leaf: NormalizedLeaf; readonly q: number }

/** Σ count/m² of a tree made only of Gaussians (through Compose/SelfCompose/Labeled/NoOp), or undefined. */
const gaussianTree = (
  e: PrivacyEvent,
  relation: NeighbouringRelation,
  path: string,
  notes: string[],
): E.Either<DpError, number> | undefined => {
  switch (e._tag) {
    case 'Gaussian': {
      const r = resolveLeaf(e, relation, path)
      if (E.isLeft(r)) return r
      if (r.right.note !== undefined) notes.push(r.right.note)
      const m = (r.right.leaf as { noiseMultiplier: number }).noiseMultiplier
      return E.right(inverseSquareUp(m))
    }
    case 'NoOp':
      return E.right(0)
    case 'Labeled':
      return gaussianTree(e.event, relation, childPath(path, e), notes)
    case 'SelfCompose': {
      const r = gaussianTree(e.event, relation, childPath(path, e), notes)
      return r === undefined || E.isLeft(r) ? r : E.right(e.count * r.right)
    }
    case 'Compose': {
      let s = 0
      for (let i = 0; i < e.events.length; i++) {
        const r = gaussianTree(e.events[i] as PrivacyEvent, relation, childPath(path, e, i), notes)
        if (r === undefined || E.isLeft(r)) return r
        s += r.right
      }
      return E.right(s)
    }
    default:
      return undefined
  }
}

const INNER_SCOPE =
  'Poisson subsampling is supported around one Gaussian, Laplace, discrete Laplace or Gaussian, randomized-response, pure or (ε, δ) event (or a ' +
  'composition of Gaussians, which is one Gaussian); a subsampled composition of other events has no dominating pair here'

/** Reduces the event under a PoissonSample to one leaf, or refuses with the path. */
const reduceInner = (
  e: PrivacyEvent,
  relation: NeighbouringRelation,
  path: string,
  notes: string[],
): E.Either<DpError, Inner> => {
  if (isNoiseEvent(e)) {
    const r = resolveLeaf(e, relation, path)
    if (E.isLeft(r)) return r
    if (r.right.note !== undefined) notes.push(r.right.note)
    return E.right({ _tag: 'Leaf', leaf: r.right.leaf, q: 1 })
  }
  switch (e._tag) {
    case 'NoOp':
      return E.right({ _tag: 'Nothing' })
    case 'NonPrivate':
      return E.right({ _tag: 'NonPrivate' })
    case 'Labeled':
      return reduceInner(e.event, relation, childPath(path, e), notes)
    case 'PoissonSample': {
      // Poisson thinning twice is Poisson thinning at the product rate.
      if (e.q === 0) return E.right({ _tag: 'Nothing' }) // no unit included: data-independent
      const r = reduceInner(e.event, relation, childPath(path, e), notes)
      if (E.isLeft(r) || r.right._tag !== 'Leaf') return r
      return E.right({ ...r.right, q: r.right.q * e.q })
    }
    case 'Compose':
    case 'SelfCompose': {
      const single =
        e._tag === 'Compose'
          ? e.events.length === 1
            ? { ev: e.events[0] as PrivacyEvent, p: childPath(path, e, 0) }
            : undefined
          : e.count === 1
            ? { ev: e.event, p: childPath(path, e) }
            : undefined
      if (single !== undefined) return reduceInner(single.ev, relation, single.p, notes)
      if ((e._tag === 'Compose' && e.events.length === 0) || (e._tag === 'SelfCompose' && e.count === 0))
        return E.right({ _tag: 'Nothing' })
      const g = gaussianTree(e, relation, path, notes)
      if (g === undefined) return E.left(unsupportedEvent(path, NAME, e._tag, INNER_SCOPE))
      if (E.isLeft(g)) return g
      return g.right === 0
        ? E.right({ _tag: 'Nothing' })
        : E.right({ _tag: 'Leaf', leaf: { _tag: 'Gaussian', noiseMultiplier: 1 / Math.sqrt(g.right) }, q: 1 })
    }
    case 'SampleWithoutReplacement':
    case 'RepeatAndSelect':
    case 'TruncatedPoissonSample':
      return E.left(unsupportedEvent(path, NAME, e._tag, e._tag === 'TruncatedPoissonSample' ? TRUNCATION_SCOPE : INNER_SCOPE))
    case 'WithReplacementSample':
      return E.left(unsupportedEvent(path, NAME, e._tag, WITH_REPLACEMENT_SCOPE))
    default:
      return absurd(e as never)
  }
}

/** Adds an unsampled leaf: Gaussians into the exact Gaussian, the others as factors. */
const addLeaf = (b: Builder, leaf: NormalizedLeaf, count: number, path: string): E.Either<DpError, void> => {
  const base = basePairOfLeaf(leaf)
  if (base === undefined) return E.left(unsupportedLeaf(leaf, path))
  if (base === null || count === 0) return E.right(undefined)
  if (base._tag === 'Gaussian') {
    b.gaussianMuSquared += roundUpSubnormal(count * base.mu * base.mu)
    b.gaussianPath = b.gaussianPath ?? path
    return E.right(undefined)
  }
  noteHugeLoss(b, leaf, path)
  return addFactor(b, { key: leafKey(leaf), base, q: 1, lattice: latticeOf(leaf) }, count, path)
}

/** Says so when a leaf's loss passes MAX_LEAF_LOSS, which the upper estimate counts at +∞. */
const noteHugeLoss = (b: Builder, leaf: NormalizedLeaf, path: string): void => {
  const eps = pureEpsilonOf(leaf)
  if (eps !== undefined && eps > MAX_LEAF_LOSS && eps < Infinity)
    b.notes.push(
      `${path}: a loss of up to ε = ${eps} (above 10^4) is counted at +∞ by the upper estimate and at the top of the grid by the ` +
        'lower one: a guarantee this large protects nothing',
    )
}

/**
 * Sampling rates this close to 1 are treated as no sampling: the unsampled pair dominates the
 * sampled one (the hockey-stick divergence is jointly convex, so mixing with Q can only lower it),
 * so this is sound, and it gives away at most a 1e-6 relative amplification that the grid could
 * not resolve anyway.
 */
const NO_SAMPLING_ABOVE = 1 - 1e-6

/**
 * Poisson subsampling under replace-one, directly (./pairs.ts, "replace-one under Poisson
 * subsampling"): the sampled leaves are read under add/remove of the same unit (the coupling needs
 * the distance from M(T) to M(T ∪ {x}), which is their add/remove sensitivity), then
 * - a Gaussian (or a composition of Gaussians) becomes the substitution pair
 *   ((1 − q)N(0, 1) + qN(μ, 1), (1 − q)N(0, 1) + qN(−μ, 1));
 * - a leaf with a pure ε (Laplace, discrete Laplace, randomized response, exponential, pure DP)
 *   becomes binary randomized response at ε′ = log((1 − q + qe^ε)/(1 − q + qe^{−ε}));
 * - NonPrivate becomes mass q at loss +∞ (x′'s output revealed) and 1 − q at loss 0;
 * - anything else (an (ε, δ) guarantee, a discrete Gaussian) is refused, naming the fallback: account
 *   the add/remove spec and convert by group privacy (what the trainers' privacy statement does).
 * Leaves stated under replace-one have no add/remove sensitivity and are refused the same way.
 */
const foldSubstitution = (
  e: Extract<PrivacyEvent, { _tag: 'PoissonSample' }>,
  count: number,
  path: string,
  b: Builder,
  relation: NeighbouringRelation,
): E.Either<DpError, void> => {
  const inner = childPath(path, e)
  if (e.q >= NO_SAMPLING_ABOVE) return foldEvent(e.event, count, inner, b, relation)
  const notes: string[] = []
  const x = reduceInner(e.event, addRemove(relation.unit), inner, notes)
  const refuse = (why: string): E.Either<DpError, void> =>
    E.left(
      unsupportedEvent(
        path,
        NAME,
        e._tag,
        `replace-one under Poisson subsampling is accounted directly for Gaussian, pure-ε and NonPrivate events stated under ` +
          `add/remove of the same unit; ${why}. Fallback: account the spec under add/remove and convert by group privacy ` +
          `(the trainers' privacy statement does: (2ε, (1 + e^ε)δ′) or RDP group privacy)`,
      ),
    )
  if (E.isLeft(x)) return x.left._tag === 'IncompatibleNeighbouring' ? refuse(x.left.message) : x
  b.notes.push(...notes)
  if (x.right._tag === 'Nothing' || count === 0) return E.right(undefined)
  const q = x.right._tag === 'Leaf' ? e.q * x.right.q : e.q
  if (x.right._tag === 'NonPrivate') {
    const pair: BasePair = { _tag: 'Discrete', atoms: [{ p: q, loss: Infinity }, { p: 1 - q, loss: 0 }], qOnly: q }
    b.notes.push(`${path}: NonPrivate under Poisson sampling at rate ${q}, replace-one: the record's output is revealed with probability q`)
    return addFactor(b, { key: `NonPrivate|q=${q}|substitution`, base: pair, q: 1, lattice: undefined, substitution: true }, count, path)
  }
  if (q >= NO_SAMPLING_ABOVE) return foldEvent(e.event, count, inner, b, relation)
  const leaf = x.right.leaf
  const base = basePairOfLeaf(leaf)
  if (base === undefined) return E.left(unsupportedLeaf(leaf, inner))
  if (base === null) return E.right(undefined)
  if (base._tag === 'Gaussian') {
    b.notes.push(
      `${path}: replace-one under Poisson sampling (rate ${q}) accounted directly by the substitution pair ` +
        '((1 − q)N(0, 1) + qN(μ, 1), (1 − q)N(0, 1) + qN(−μ, 1)), not through group privacy',
    )
    return addFactor(b, { key: `${leafKey(leaf)}|q=${q}|substitution`, base, q, lattice: undefined, substitution: true }, count, path)
  }
  const eps = pureEpsilonOf(leaf)
  if (eps === undefined) return refuse(`${leaf._tag} has no pure ε`)
  const amplified = substitutionPureEpsilon(eps, q)
  b.notes.push(
    `${path}: replace-one under Poisson sampling (rate ${q}) of a ${eps}-DP ${leaf._tag}: ${amplified}-DP by the mixture ratio ` +
      '(1 − q + qe^ε)/(1 − q + qe^{−ε}), not through group privacy',
  )
  return addFactor(
    b,
    {
      key: `PureDP|${amplified}|substitution`,
      base: randomizedResponsePair(amplified, 2),
      q: 1,
      lattice: Number.isFinite(amplified) && amplified > 0 && amplified <= MAX_LEAF_LOSS ? amplified : undefined,
      substitution: true,
    },
    count,
    path,
  )
}

const foldEvent = (
  e: PrivacyEvent,
  count: number,
  path: string,
  b: Builder,
  relation: NeighbouringRelation,
): E.Either<DpError, void> => {
  if (isNoiseEvent(e)) {
    const r = resolveLeaf(e, relation, path)
    if (E.isLeft(r)) return r
    if (r.right.note !== undefined) b.notes.push(r.right.note)
    return addLeaf(b, r.right.leaf, count, path)
  }
  switch (e._tag) {
    case 'NoOp':
      return E.right(undefined)
    case 'NonPrivate':
      if (count > 0) b.nonPrivate = true
      return E.right(undefined)
    case 'Labeled':
      return foldEvent(e.event, count, childPath(path, e), b, relation)
    case 'Compose': {
      for (let i = 0; i < e.events.length; i++) {
        const r = foldEvent(e.events[i] as PrivacyEvent, count, childPath(path, e, i), b, relation)
        if (E.isLeft(r)) return r
      }
      return E.right(undefined)
    }
    case 'SelfCompose': {
      const n = count * e.count
      if (n > MAX_COUNT)
        return E.left(invalidParameter(`${path}.count`, n, 'the PLD accountant composes at most 2^40 repetitions of one event'))
      return foldEvent(e.event, n, childPath(path, e), b, relation)
    }
    case 'PoissonSample': {
      // q = 0 includes no unit: the inner event runs on the empty sample, independent of the data (a NoOp under any relation; issue 26).
      if (e.q === 0) return foldEvent(noOp, count, path, b, relation)
      if (relation.kind === 'replace-one') return foldSubstitution(e, count, path, b, relation)
      const ok = checkSamplingRelation(e, relation, path)
      if (E.isLeft(ok)) return ok
      if (e.q >= NO_SAMPLING_ABOVE) return foldEvent(e.event, count, childPath(path, e), b, relation)
      const inner = reduceInner(e.event, relation, childPath(path, e), b.notes)
      if (E.isLeft(inner)) return inner
      const x = inner.right
      if (x._tag === 'Nothing' || count === 0) return E.right(undefined)
      if (x._tag === 'NonPrivate')
        return addFactor(b, { key: `NonPrivate|q=${e.q}`, base: NON_PRIVATE_PAIR, q: e.q, lattice: undefined }, count, path)
      const q = e.q * x.q
      if (q >= NO_SAMPLING_ABOVE) return addLeaf(b, x.leaf, count, childPath(path, e))
      const base = basePairOfLeaf(x.leaf)
      if (base === undefined) return E.left(unsupportedLeaf(x.leaf, childPath(path, e)))
      if (base === null) return E.right(undefined)
      // The lattice of the unsampled leaf: aligning the grid to it keeps the sampled estimate
      // below the unsampled one (both are chords of ordered profiles on the same grid).
      return addFactor(b, { key: `${leafKey(x.leaf)}|q=${q}`, base, q, lattice: latticeOf(x.leaf) }, count, path)
    }
    case 'TruncatedPoissonSample':
      return E.left(unsupportedEvent(path, NAME, e._tag, TRUNCATION_SCOPE))
    case 'WithReplacementSample':
      return E.left(unsupportedEvent(path, NAME, e._tag, WITH_REPLACEMENT_SCOPE))
    case 'SampleWithoutReplacement':
      return E.left(
        unsupportedEvent(
          path,
          NAME,
          e._tag,
          'the PLD accountant implements Poisson subsampling only; use the rdp or optimal accountant for sampling without replacement',
        ),
      )
    case 'RepeatAndSelect':
      return E.left(
        unsupportedEvent(
          path,
          NAME,
          e._tag,
          'repeat-and-select has no dominating pair here (its known bounds are RDP, Papernot & Steinke 2022); use the rdp accountant',
        ),
      )
    default:
      return absurd(e as never)
  }
}

/** The direction a one-directional relation keeps (remove-only: the remove pairs; add-only: the add ones). */
const oneWay = (relation: NeighbouringRelation): { readonly direction?: Direction } => {
  const d = directionOf(relation.kind)
  return d === undefined ? {} : { direction: d }
}

/**
 * Adds `count` repetitions of `event` (at `path`) to a state, as a new state with an empty cache;
 * a refused event is reported with its path.
 */
export const foldIntoState = (
  s: PldState,
  event: PrivacyEvent,
  count: number,
  path: string,
  relation: NeighbouringRelation,
): E.Either<DpError, PldState> => {
  const b: Builder = {
    factors: new Map(s.factors.map((f) => [f.key, f])),
    gaussianMuSquared: s.gaussianMuSquared,
    gaussianPath: s.gaussianPath,
    nonPrivate: s.nonPrivate,
    notes: [...s.notes],
  }
  const r = foldEvent(event, count, path, b, relation)
  if (E.isLeft(r)) return r
  return E.right({
    factors: [...b.factors.values()],
    gaussianMuSquared: b.gaussianMuSquared,
    gaussianPath: b.gaussianPath,
    nonPrivate: b.nonPrivate,
    notes: b.notes.filter((n, i) => b.notes.indexOf(n) === i),
    ...oneWay(relation),
    cache: new Map(),
  })
}
