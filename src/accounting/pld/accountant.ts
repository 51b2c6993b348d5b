/**
 * The PLD accountant: a fold over the event algebra whose state is a multiset of dominating pairs
 * with repetition counts (plus the exactly composed Gaussians); the first query discretises every
 * pair twice — pessimistically and optimistically (./discretize.ts) — in each direction of the
 * add/remove relation that needs it, composes everything by FFT (./compose.ts), and caches the
 * result inside the state. Queries never change what a state means.
 *
 * Every answer is a bracket: `epsilon` (or `delta`) is the pessimistic estimate — the guarantee —
 * and `lower` the optimistic one; the true ε(δ) of the composed dominating pairs lies between, and
 * the gap is the accounting error, stated in `method` with the interval used.
 *
 * What is composed how:
 * - unsampled Gaussians compose exactly into one Gaussian with μ² = Σ count/m² (Dong, Roth & Su
 *   2022, "Gaussian differential privacy", Cor. 3.3: μ_i-GDP composes to √(Σμ_i²)-GDP, and the
 *   Gaussian mechanism with noise multiplier m is exactly (1/m)-GDP). Alone, that Gaussian is
 *   answered from its closed-form profile (Balle & Wang 2018, Thm 8: its PLD is N(μ²/2, μ²)) unless
 *   `analyticGaussian: false`; with other factors it is one more pair to discretise;
 * - Laplace, randomized response (k-ary and bitwise) and stated ε / (ε, δ) guarantees by their
 *   dominating pairs (./pairs.ts); the exponential mechanism as the ε-DP guarantee it is;
 * - the discrete Laplace and the discrete Gaussian by the exact pair of the scalar integer shift
 *   (./lattice.ts; the discrete Gaussian's truncated tails at loss +∞);
 * - Poisson subsampling of a Gaussian, a Laplace, a discrete Laplace or Gaussian, a randomized
 *   response, an (ε, δ) guarantee or a NonPrivate release, by the subsampled dominating pairs of Zhu, Dong & Wang 2022 (their Poisson-subsampling theorem),
 *   remove and add directions composed separately, the worse δ taken at query time. A subsampled
 *   composition of Gaussians is one Gaussian (as above); nested Poisson sampling multiplies rates;
 *   a rate within 1e-6 of 1 counts as no sampling (sound: the unsampled pair dominates);
 * - refused with the event's path: ρ-zCDP guarantees (no sound dominating pair is known), a
 *   discrete Gaussian on a vector query with Δ ≥ 2 (the scalar pair does not dominate its
 *   differences), sampling without replacement, and subsampled compositions of other events.
 *
 * The grid interval is the requested one, shrunk to a/⌈a/h⌉ when every lattice-structured leaf
 * shares one atom spacing a ≥ h (the atoms then sit on grid points; sampled leaves align to their
 * unsampled spacing, which keeps ε(sampled) ≤ ε(unsampled) on the grid as well as in truth).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter, unsupportedEvent } from '../../core/error.js'
import { nextUp } from '../../core/numeric.js'
import { checkCompose, checkDeltaQuery, checkEpsilonQuery } from '../guards.js'
import { absurd, childPath, isNoiseEvent, type PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Accountant, DeltaAnswer, EpsilonAnswer, Notes } from '../accountant.js'
import { type NormalizedLeaf, resolveLeaf } from '../normalize.js'
import {
  ANALYTIC_GAUSSIAN_REL_TOL,
  analyticGaussianDelta,
  analyticGaussianEpsilon,
} from '../analytic-gaussian.js'
import { checkSamplingRelation } from '../relation.js'
import { composeChannels, type Factor } from './compose.js'
import {
  discreteGrid,
  discretizeAdditive,
  discretizeDiscrete,
  discretizeLattice,
  discretizeSubsampledGaussian,
  type LeafPld,
  type LeafPlds,
} from './discretize.js'
import {
  checkGridSize,
  DEFAULT_INTERVAL,
  DEFAULT_TAIL_MASS,
  MAX_COUNT,
  MAX_GRID_POINTS,
  type PldOptions,
  validatePldOptions,
} from './limits.js'
import {
  type AdditivePair,
  additiveLossRange,
  type BasePair,
  basePairOfLeaf,
  type Direction,
  type LatticePair,
  NON_PRIVATE_PAIR,
  subsampledPair,
} from './pairs.js'
import { latticeLossRange, latticeOutcomeCount, MAX_LATTICE_OUTCOMES } from './lattice.js'
import { type ComposedPld, deltaAt, epsilonAt } from './queries.js'

const NAME = 'pld'

export interface PldAccountantOptions {
  readonly relation: NeighbouringRelation
  /** Discretisation interval of the privacy-loss grid (default 1e-4). */
  readonly interval?: number
  /** Total mass the discretisation and the composition window may truncate (default 1e-15). */
  readonly tailMass?: number
  /**
   * Answer compositions made only of (unsampled) Gaussians with their exact closed-form profile
   * instead of discretising them (default true; false forces the numerical path, for testing).
   */
  readonly analyticGaussian?: boolean
}

/** One dominating pair with its repetition count. */
export interface PldFactorSpec {
  /** Identifies equal pairs, so repetitions merge into one count. */
  readonly key: string
  readonly base: BasePair
  /** Poisson sampling rate; 1 = not sampled (the pair is then the same in both directions). */
  readonly q: number
  readonly count: number
  /** Spacing of the pair's loss atoms when they lie on one lattice (used to align the grid). */
  readonly lattice: number | undefined
  /** Where the event first appeared, for errors found at query time. */
  readonly path: string
}

/**
 * The composed PLDs of a state: per direction, the pessimistic and the optimistic estimate; or,
 * for Gaussians only, the composed Gaussian's μ (its PLD is exactly N(μ²/2, μ²)).
 */
export interface PldComposition {
  readonly kind: 'empty' | 'nonPrivate' | 'gaussian' | 'pld'
  /** μ = √(Σ count/m²) of the composed Gaussian, rounded down and up. */
  readonly gaussianMu?: { readonly lo: number; readonly hi: number }
  /** Interval of the grid actually used (≤ the requested one when aligned to an atom spacing). */
  readonly interval: number
  readonly aligned: boolean
  readonly directions: ReadonlyArray<{ readonly direction: Direction; readonly upper: ComposedPld; readonly lower: ComposedPld }>
}

export interface PldState {
  readonly factors: ReadonlyArray<PldFactorSpec>
  /** Σ count/m² of the unsampled Gaussians, composed exactly into one Gaussian. */
  readonly gaussianMuSquared: number
  readonly gaussianPath: string | undefined
  /** A NonPrivate release was composed: ε = ∞. */
  readonly nonPrivate: boolean
  readonly notes: Notes
  /** Composition cache, keyed by interval and tail mass; filled by the first query. */
  readonly cache: Map<string, E.Either<DpError, PldComposition>>
}

export const emptyPldState = (): PldState => ({
  factors: [],
  gaussianMuSquared: 0,
  gaussianPath: undefined,
  nonPrivate: false,
  notes: [],
  cache: new Map(),
})

/** One point of the privacy profile: δ(ε) with its optimistic estimate. */
export interface ProfilePoint {
  readonly epsilon: number
  readonly delta: number
  readonly lower: number
}

// -------------------------------------------------------------------------------------------
// the fold
// -------------------------------------------------------------------------------------------

interface Builder {
  factors: Map<string, PldFactorSpec>
  gaussianMuSquared: number
  gaussianPath: string | undefined
  nonPrivate: boolean
  notes: string[]
}

const leafKey = (leaf: NormalizedLeaf): string => JSON.stringify(leaf)

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
    case 'RandomizedResponse':
    case 'PureDP':
    case 'Exponential':
    case 'ApproxDP':
      return Number.isFinite(leaf.epsilon) && leaf.epsilon > 0 ? leaf.epsilon : undefined
    case 'BitwiseRandomizedResponse': {
      const eb = Math.log1p(-leaf.flipProbability) - Math.log(leaf.flipProbability)
      return Number.isFinite(eb) && eb > 0 ? eb : undefined
    }
    case 'Gaussian':
    case 'ZCDP':
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
      return E.right(m === Infinity ? 0 : 1 / (m * m))
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
      return E.left(unsupportedEvent(path, NAME, e._tag, INNER_SCOPE))
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
    b.gaussianMuSquared += count * base.mu * base.mu
    b.gaussianPath = b.gaussianPath ?? path
    return E.right(undefined)
  }
  return addFactor(b, { key: leafKey(leaf), base, q: 1, lattice: latticeOf(leaf) }, count, path)
}

/**
 * Sampling rates this close to 1 are treated as no sampling: the unsampled pair dominates the
 * sampled one (the hockey-stick divergence is jointly convex, so mixing with Q can only lower it),
 * so this is sound, and it gives away at most a 1e-6 relative amplification that the grid could
 * not resolve anyway.
 */
const NO_SAMPLING_ABOVE = 1 - 1e-6

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
    case 'SampleWithoutReplacement':
      return E.left(
        unsupportedEvent(
          path,
          NAME,
          e._tag,
          'the PLD accountant implements Poisson subsampling only; use the rdp or optimal accountant for sampling without replacement',
        ),
      )
    default:
      return absurd(e as never)
  }
}

// -------------------------------------------------------------------------------------------
// query-time composition
// -------------------------------------------------------------------------------------------

/**
 * The grid interval: when every lattice-structured leaf (Laplace, discrete Laplace or Gaussian,
 * randomized response, stated ε or (ε, δ); sampled or not) shares one atom spacing a ≥ h, the interval is shrunk to a/⌈a/h⌉ so the
 * unsampled atoms sit on grid points and the optimistic estimate is exact for them too.
 */
const gridInterval = (factors: ReadonlyArray<PldFactorSpec>, h: number): { readonly interval: number; readonly aligned: boolean } => {
  let unit: number | undefined
  for (const f of factors) {
    if (f.lattice === undefined) continue
    if (unit === undefined) unit = f.lattice
    else if (Math.abs(f.lattice - unit) > 1e-12 * unit) return { interval: h, aligned: false }
  }
  if (unit === undefined || unit < h) return { interval: h, aligned: false }
  const steps = Math.ceil(unit / h - 1e-9)
  const interval = unit / steps
  return { interval, aligned: Math.abs(interval - h) > 1e-12 * h }
}

const directionsOf = (factors: ReadonlyArray<PldFactorSpec>): ReadonlyArray<Direction> =>
  factors.some((f) => f.q !== 1) ? ['remove', 'add'] : ['remove']

/** The grid [i0, i0 + K] covering a loss range, refusing (before allocating) one over the limit. */
const lossGrid = (
  range: { readonly lo: number; readonly hi: number },
  h: number,
  path: string,
): E.Either<DpError, { readonly i0: number; readonly K: number }> => {
  const span = range.hi - range.lo
  const sized = checkGridSize(span / h + 4, h, span, path, 'the privacy-loss grid of this event')
  if (E.isLeft(sized)) return sized
  const i0 = Math.floor(range.lo / h) - 1
  const i1 = Math.ceil(range.hi / h) + 1
  if (i1 - i0 + 1 > MAX_GRID_POINTS)
    return checkGridSize(i1 - i0 + 1, h, span, path, 'the privacy-loss grid of this event') as E.Either<DpError, never>
  return E.right({ i0, K: i1 - i0 })
}

/** The grid of an additive pair. */
const additiveGrid = (pair: AdditivePair, h: number, tail: number, path: string): E.Either<DpError, { readonly i0: number; readonly K: number }> =>
  lossGrid(additiveLossRange(pair, tail), h, path)

/** Both discretisations of a lattice pair, refusing one with too many outcomes or grid points. */
const latticePlds = (pair: LatticePair, h: number, tail: number, path: string): E.Either<DpError, LeafPlds> => {
  const n = latticeOutcomeCount(pair, tail)
  if (!(n <= MAX_LATTICE_OUTCOMES))
    return E.left(
      invalidParameter(
        path,
        n,
        `this ${pair.noise === 'laplace' ? 'discrete Laplace' : 'discrete Gaussian'} has ${n.toLocaleString('en-US')} integer outputs ` +
          `to sum over, over the limit of ${MAX_LATTICE_OUTCOMES.toLocaleString('en-US')} (2^25); use the rdp or zcdp accountant`,
      ),
    )
  const g = lossGrid(latticeLossRange(pair, tail), h, path)
  if (E.isLeft(g)) return g
  return E.right(discretizeLattice(pair, h, tail, g.right.i0, g.right.K))
}

/**
 * Both discretisations of one factor in each direction (in the order given), refusing (before
 * allocating) a grid over the limit.
 */
const leafPlds = (
  f: PldFactorSpec,
  directions: ReadonlyArray<Direction>,
  h: number,
  tail: number,
): E.Either<DpError, ReadonlyArray<LeafPlds>> => {
  const pairs = directions.map((d) => subsampledPair(f.base, f.q, d))
  const [pr, pa] = pairs
  if (
    directions.length === 2 &&
    pr !== undefined &&
    pa !== undefined &&
    pr._tag === 'Additive' &&
    pa._tag === 'Additive' &&
    pr.noise === 'gaussian' &&
    pr.direction === 'remove' &&
    pa.direction === 'add'
  ) {
    const gr = additiveGrid(pr, h, tail, f.path)
    if (E.isLeft(gr)) return gr
    const ga = additiveGrid(pa, h, tail, f.path)
    if (E.isLeft(ga)) return ga
    const both = discretizeSubsampledGaussian(pr.mu, pr.q, h, gr.right, ga.right)
    return E.right([both.remove, both.add])
  }
  const out: LeafPlds[] = []
  for (const pair of pairs) {
    if (pair._tag === 'Discrete') {
      const { K } = discreteGrid(pair, h)
      const sized = checkGridSize(K + 1, h, K * h, f.path, 'the privacy-loss grid of this event')
      if (E.isLeft(sized)) return sized
      out.push(discretizeDiscrete(pair, h))
    } else if (pair._tag === 'Lattice') {
      const l = latticePlds(pair, h, tail, f.path)
      if (E.isLeft(l)) return l
      out.push(l.right)
    } else {
      const g = additiveGrid(pair, h, tail, f.path)
      if (E.isLeft(g)) return g
      out.push(discretizeAdditive(pair, h, g.right.i0, g.right.K))
    }
  }
  return E.right(out)
}

const gaussianFactor = (s: PldState): PldFactorSpec | undefined => {
  if (!(s.gaussianMuSquared > 0)) return undefined
  // μ rounded up: a (slightly) stronger Gaussian dominates a weaker one.
  const mu = nextUp(Math.sqrt(s.gaussianMuSquared) * (1 + 4 * Number.EPSILON))
  return {
    key: 'Gaussian',
    base: { _tag: 'Gaussian', mu },
    q: 1,
    count: 1,
    lattice: undefined,
    path: s.gaussianPath ?? '$',
  }
}

const buildComposition = (s: PldState, options: PldOptions, analytic: boolean): E.Either<DpError, PldComposition> => {
  if (s.nonPrivate) return E.right({ kind: 'nonPrivate', interval: options.interval, aligned: false, directions: [] })
  if (analytic && s.factors.length === 0 && s.gaussianMuSquared > 0) {
    const mu = Math.sqrt(s.gaussianMuSquared)
    return E.right({
      kind: 'gaussian',
      gaussianMu: { lo: mu * (1 - 4 * Number.EPSILON), hi: nextUp(mu * (1 + 4 * Number.EPSILON)) },
      interval: options.interval,
      aligned: false,
      directions: [],
    })
  }
  const g = gaussianFactor(s)
  const factors = g === undefined ? s.factors : [...s.factors, g]
  if (factors.length === 0) return E.right({ kind: 'empty', interval: options.interval, aligned: false, directions: [] })
  const { interval: h, aligned } = gridInterval(factors, options.interval)
  const directions = directionsOf(factors)
  let total = 0
  for (const f of factors) total += f.count
  // Half the tail budget for the leaves, spread over every composed step; half for the window.
  const leafTail = options.tailMass / (2 * total)
  const composed: Factor[] = []
  for (const f of factors) {
    const l = leafPlds(f, directions, h, leafTail)
    if (E.isLeft(l)) return l
    const plds: LeafPld[] = []
    for (const d of l.right) plds.push(d.upper, d.lower)
    composed.push({ plds, count: f.count })
  }
  const channels = composeChannels(composed, 2 * directions.length, h, options.tailMass / 2, 'options.interval')
  if (E.isLeft(channels)) return channels
  return E.right({
    kind: 'pld',
    interval: h,
    aligned,
    directions: directions.map((direction, i) => ({
      direction,
      upper: channels.right[2 * i] as ComposedPld,
      lower: channels.right[2 * i + 1] as ComposedPld,
    })),
  })
}

/** The (cached) composition of a state under the given options. */
export const pldComposition = (s: PldState, options: PldOptions, analyticGaussian = true): E.Either<DpError, PldComposition> => {
  const key = `${options.interval}|${options.tailMass}|${analyticGaussian}`
  const hit = s.cache.get(key)
  if (hit !== undefined) return hit
  const built = buildComposition(s, options, analyticGaussian)
  s.cache.set(key, built)
  return built
}

// -------------------------------------------------------------------------------------------
// answers
// -------------------------------------------------------------------------------------------

const show = (x: number): string => (Number.isFinite(x) ? x.toPrecision(6) : String(x))

const methodOf = (c: PldComposition, what: 'ε' | 'δ', lower: number, upper: number): string => {
  const grid = c.aligned ? `interval ${show(c.interval)} (aligned to the atom spacing)` : `interval ${show(c.interval)}`
  const dirs = c.directions.length === 2 ? ', worse of remove/add' : ''
  const gap = upper - lower
  return (
    `PLD at ${grid}: connect-the-dots upper / post-processing lower discretisation (Doroshenko et al. 2022), ` +
    `FFT composition (Koskela et al. 2020)${dirs}; ${what} ∈ [${show(lower)}, ${show(upper)}], accounting error ${Number.isFinite(gap) ? gap.toExponential(2) : 'unbounded'}`
  )
}

const epsilonOf = (c: PldComposition, delta: number): { readonly upper: number; readonly lower: number } => {
  let upper = 0
  let lower = 0
  for (const d of c.directions) {
    upper = Math.max(upper, epsilonAt(d.upper, delta, 'upper'))
    lower = Math.max(lower, epsilonAt(d.lower, delta, 'lower'))
  }
  return { upper, lower: Math.min(lower, upper) }
}

const deltaOf = (c: PldComposition, eps: number): { readonly upper: number; readonly lower: number } => {
  let upper = 0
  let lower = 0
  for (const d of c.directions) {
    upper = Math.max(upper, deltaAt(d.upper, eps, 'upper'))
    lower = Math.max(lower, deltaAt(d.lower, eps, 'lower'))
  }
  return { upper, lower: Math.min(lower, upper) }
}

const gaussianMethod = (mu: number, what: 'ε' | 'δ'): string =>
  `PLD of the composed Gaussians: one Gaussian with μ = ${show(mu)} (GDP composition, Dong, Roth & Su 2022, Cor. 3.3), ` +
  `whose PLD N(μ²/2, μ²) has the exact profile of Balle & Wang 2018 (Thm 8): ${what} exact, no discretisation error`

/** ε(δ) of the composed Gaussian: the analytic value's bisection bracket (relative width 1e-12). */
const gaussianEpsilon = (mu: { readonly lo: number; readonly hi: number }, delta: number): { readonly upper: number; readonly lower: number } => {
  const upper = analyticGaussianEpsilon(1 / mu.hi, delta)
  const lowerMu = analyticGaussianEpsilon(1 / mu.lo, delta)
  return { upper, lower: Math.max(0, lowerMu * (1 - 2 * ANALYTIC_GAUSSIAN_REL_TOL)) }
}

/** δ(ε) of the composed Gaussian, widened by a relative 1e-10 for the evaluation's rounding. */
const gaussianDelta = (mu: { readonly lo: number; readonly hi: number }, eps: number): { readonly upper: number; readonly lower: number } => ({
  upper: Math.min(1, analyticGaussianDelta(1 / mu.hi, eps) * (1 + 1e-10)),
  lower: analyticGaussianDelta(1 / mu.lo, eps) * (1 - 1e-10),
})

/** ε(δ) with its optimistic estimate. */
export const pldEpsilon = (
  s: PldState,
  delta: number,
  options: PldOptions,
  analyticGaussian = true,
): E.Either<DpError, EpsilonAnswer> => {
  const d = checkDeltaQuery(delta)
  if (E.isLeft(d)) return d
  const c = pldComposition(s, options, analyticGaussian)
  if (E.isLeft(c)) return c
  switch (c.right.kind) {
    case 'gaussian': {
      const mu = c.right.gaussianMu as { lo: number; hi: number }
      const e = gaussianEpsilon(mu, delta)
      return E.right({ epsilon: e.upper, delta, lower: e.lower, method: gaussianMethod(mu.hi, 'ε') })
    }
    case 'nonPrivate':
      return E.right({ epsilon: Infinity, delta, lower: Infinity, method: 'a NonPrivate release was composed: no finite ε' })
    case 'empty':
      return E.right({ epsilon: 0, delta, lower: 0, method: 'nothing private was released: ε = 0' })
    case 'pld': {
      const e = epsilonOf(c.right, delta)
      return E.right({ epsilon: e.upper, delta, lower: e.lower, method: methodOf(c.right, 'ε', e.lower, e.upper) })
    }
  }
}

/** δ(ε) with its optimistic estimate. */
export const pldDelta = (
  s: PldState,
  epsilon: number,
  options: PldOptions,
  analyticGaussian = true,
): E.Either<DpError, DeltaAnswer> => {
  const e = checkEpsilonQuery(epsilon)
  if (E.isLeft(e)) return e
  const c = pldComposition(s, options, analyticGaussian)
  if (E.isLeft(c)) return c
  switch (c.right.kind) {
    case 'gaussian': {
      const mu = c.right.gaussianMu as { lo: number; hi: number }
      const d = gaussianDelta(mu, epsilon)
      return E.right({ epsilon, delta: d.upper, lower: d.lower, method: gaussianMethod(mu.hi, 'δ') })
    }
    case 'nonPrivate': {
      const d = epsilon === Infinity ? 0 : 1
      return E.right({ epsilon, delta: d, lower: d, method: 'a NonPrivate release was composed: no δ < 1 at finite ε' })
    }
    case 'empty':
      return E.right({ epsilon, delta: 0, lower: 0, method: 'nothing private was released: δ = 0' })
    case 'pld': {
      const d = deltaOf(c.right, epsilon)
      return E.right({ epsilon, delta: d.upper, lower: d.lower, method: methodOf(c.right, 'δ', d.lower, d.upper) })
    }
  }
}

const resolveOptions = (o: { readonly interval?: number; readonly tailMass?: number }): E.Either<DpError, PldOptions> =>
  validatePldOptions(o.interval ?? DEFAULT_INTERVAL, o.tailMass ?? DEFAULT_TAIL_MASS)

/**
 * The privacy profile δ(ε) at each ε of a grid (for plotting), upper estimate with the optimistic
 * one beside it.
 */
export const privacyProfile = (
  s: PldState,
  epsilons: ReadonlyArray<number>,
  options: { readonly interval?: number; readonly tailMass?: number; readonly analyticGaussian?: boolean } = {},
): E.Either<DpError, ReadonlyArray<ProfilePoint>> => {
  const o = resolveOptions(options)
  if (E.isLeft(o)) return o
  for (const [i, eps] of epsilons.entries()) {
    const ok = checkEpsilonQuery(eps)
    if (E.isLeft(ok)) return E.left(invalidParameter(`epsilons[${i}]`, eps, 'ε must be ≥ 0'))
  }
  const out: ProfilePoint[] = []
  for (const eps of epsilons) {
    const d = pldDelta(s, eps, o.right, options.analyticGaussian ?? true)
    if (E.isLeft(d)) return d
    out.push({ epsilon: eps, delta: d.right.delta, lower: d.right.lower ?? d.right.delta })
  }
  return E.right(out)
}

/** The PLD accountant with its profile query. */
export interface PldAccountant extends Accountant<PldState> {
  readonly interval: number
  readonly tailMass: number
  /** δ(ε) over a grid of ε (upper estimate, with the lower one). */
  readonly profile: (epsilons: ReadonlyArray<number>) => (s: PldState) => E.Either<DpError, ReadonlyArray<ProfilePoint>>
}

/**
 * The PLD accountant. Invalid options (interval ≤ 0, tail mass outside (0, 1e-3)) are reported by
 * the first `compose`/query, naming the option.
 */
export const makePldAccountant = (options: PldAccountantOptions): PldAccountant => {
  const resolved = resolveOptions(options)
  const analytic = options.analyticGaussian ?? true
  const interval = options.interval ?? DEFAULT_INTERVAL
  const tailMass = options.tailMass ?? DEFAULT_TAIL_MASS
  const relation = options.relation
  return {
    name: NAME,
    description:
      'privacy loss distributions (Meiser & Mohammadi 2018; Koskela, Jälkö & Honkela 2020): connect-the-dots discretisation ' +
      '(Doroshenko et al. 2022) with an optimistic counterpart, composed by FFT — ε with a lower estimate and the accounting error',
    relation,
    empty: emptyPldState(),
    interval,
    tailMass,
    compose:
      (event, count = 1, path = '$') =>
      (s) => {
        if (E.isLeft(resolved)) return resolved
        const valid = checkCompose(event, count, path)
        if (E.isLeft(valid)) return valid
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
          cache: new Map(),
        })
      },
    epsilon: (delta) => (s) => (E.isLeft(resolved) ? resolved : pldEpsilon(s, delta, resolved.right, analytic)),
    delta: (epsilon) => (s) => (E.isLeft(resolved) ? resolved : pldDelta(s, epsilon, resolved.right, analytic)),
    profile: (epsilons) => (s) =>
      E.isLeft(resolved) ? resolved : privacyProfile(s, epsilons, { ...resolved.right, analyticGaussian: analytic }),
    notes: (s) => s.notes,
  }
}
