/**
 * Query-time composition of a PLD state: every pair is discretised twice — pessimistically and
 * optimistically (./discretize.ts) — in each direction of the add/remove relation that needs it,
 * then everything is composed by FFT (./compose.ts); the result is cached inside the state.
 * Compositions of unsampled Gaussians alone are answered from their closed-form profile instead
 * (Balle & Wang 2018, Thm 8: the composed Gaussian's PLD is N(μ²/2, μ²)) unless
 * `analyticGaussian` is false; with other factors the composed Gaussian is one more pair.
 *
 * The grid interval is the requested one, shrunk to a/⌈a/h⌉ when every lattice-structured leaf
 * shares one atom spacing a ≥ h (the atoms then sit on grid points; sampled leaves align to their
 * unsampled spacing, which keeps ε(sampled) ≤ ε(unsampled) on the grid as well as in truth).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { nextUp } from '../../core/numeric.js'
import { composeChannels, type Factor } from './compose.js'
import {
  discreteGrid,
  discretizeAdditive,
  discretizeMixture,
  discretizeDiscrete,
  discretizeLattice,
  discretizeSubsampledGaussian,
  discretizeSubstitutionGaussian,
  type LeafPld,
  type LeafPlds,
} from './discretize.js'
import { latticeLossRange, latticeOutcomeCount, MAX_LATTICE_OUTCOMES } from './lattice.js'
import { checkGridSize, gridOverflow, MAX_GRID_POINTS, MAX_LEAF_LOSS, type PldOptions } from './limits.js'
import {
  type AdditivePair,
  additiveLossRange,
  mixtureLossRange,
  type Direction,
  type LatticePair,
  NON_PRIVATE_PAIR,
  subsampledPair,
  substitutionLossRange,
} from './pairs.js'
import type { ComposedPld } from './queries.js'
import type { PldComposition, PldFactorSpec, PldState } from './state.js'
import { valueKey } from '../value-key.js'

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

/** Sampled add/remove pairs and mixtures of Gaussians differ by direction; the other unsampled pairs and the substitution pairs are symmetric. */
const directionsOf = (factors: ReadonlyArray<PldFactorSpec>): ReadonlyArray<Direction> =>
  factors.some((f) => (f.q !== 1 && f.substitution !== true) || f.base._tag === 'Mixture') ? ['remove', 'add'] : ['remove']

/** The grid [i0, i0 + K] covering a loss range, refusing (before allocating) one over the limit. */
const lossGrid = (
  wanted: { readonly lo: number; readonly hi: number },
  h: number,
  path: string,
): E.Either<DpError, { readonly i0: number; readonly K: number }> => {
  // Losses beyond ±MAX_LEAF_LOSS leave the grid (to +∞ or its lowest point; see limits.ts).
  const lo = Number.isNaN(wanted.lo) ? -MAX_LEAF_LOSS : Math.min(MAX_LEAF_LOSS, Math.max(-MAX_LEAF_LOSS, wanted.lo))
  const hi = Number.isNaN(wanted.hi) ? MAX_LEAF_LOSS : Math.max(lo, Math.min(MAX_LEAF_LOSS, wanted.hi))
  const span = hi - lo
  const sized = checkGridSize(span / h + 4, h, span, path, 'the privacy-loss grid of this event')
  if (E.isLeft(sized)) return sized
  const i0 = Math.floor(lo / h) - 1
  const i1 = Math.ceil(hi / h) + 1
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
  if (f.substitution === true && f.base._tag === 'Gaussian' && f.q !== 1) {
    const mu = f.base.mu
    const g = lossGrid(substitutionLossRange(mu, f.q, tail), h, f.path)
    if (E.isLeft(g)) return g
    // Symmetric (P(x) = Q(−x)): the same PLD in both directions.
    const both = discretizeSubstitutionGaussian(mu, f.q, h, g.right.i0, g.right.K)
    return E.right(directions.map(() => both))
  }
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
    } else if (pair._tag === 'Mixture') {
      const g = lossGrid(mixtureLossRange(pair, tail), h, f.path)
      if (E.isLeft(g)) return g
      out.push(discretizeMixture(pair, h, g.right.i0, g.right.K))
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
  // μ rounded up: a (slightly) stronger Gaussian dominates a weaker one. μ = ∞ (a Gaussian
  // without noise) releases its input: the non-private pair.
  const mu = nextUp(Math.sqrt(s.gaussianMuSquared) * (1 + 4 * Number.EPSILON))
  return {
    key: 'Gaussian',
    base: mu === Infinity ? NON_PRIVATE_PAIR : { _tag: 'Gaussian', mu },
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
  const directions = s.direction !== undefined ? [s.direction] : directionsOf(factors)
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
  const channels = composeChannels(composed, 2 * directions.length, h, options.tailMass / 2, 'options.interval', options.maxWindow)
  if (E.isLeft(channels)) return channels
  return E.right({
    kind: 'pld',
    interval: h,
    aligned,
    substitution: factors.some((f) => f.substitution === true),
    ...(s.direction === undefined ? {} : { oneWay: s.direction }),
    directions: directions.map((direction, i) => ({
      direction,
      upper: channels.right[2 * i] as ComposedPld,
      lower: channels.right[2 * i + 1] as ComposedPld,
    })),
  })
}

/** Composition window length of a numerical composition (0 when it has none). */
export const windowOf = (c: PldComposition): number => {
  let n = 0
  for (const d of c.directions) n = Math.max(n, d.upper.view.length, d.lower.view.length)
  return n
}

/**
 * Compositions kept across states (and so across queries) by the state's value: a query folds its
 * event into a fresh state, whose own cache starts empty, and a repeated query — or one on an
 * equal event, or calibration coming back to a value — composed again (the leaves' discretisation
 * and the FFT powers: all of a query's time). A composition is a pure function of the state's pairs
 * and counts, its exactly composed Gaussian and direction, and the options; the key holds all of
 * them (numbers exactly, ±∞ marked). A kept composition is used only where its window is within the
 * asking query's window limit: there the build would succeed and give the same result, so answers
 * never depend on what was asked before (refusals and coarsening stay as they were). Kept: the
 * most recent ones while their windows add up to at most 2^20 points (≤ 64 MiB of suffix sums).
 */
const KEPT_POINTS = 2 ** 20
const KEPT = new Map<string, { readonly composition: PldComposition; readonly window: number }>()
let keptPoints = 0

const stateKey = (s: PldState, options: PldOptions, analytic: boolean): string =>
  valueKey(
    [
      s.factors.map((f) => [f.base, f.q, f.count, f.lattice ?? null, f.substitution === true]),
      s.gaussianMuSquared,
      s.nonPrivate,
      s.direction ?? null,
      options.interval,
      options.tailMass,
      analytic,
    ],
  )

const keep = (key: string, composition: PldComposition): void => {
  const window = windowOf(composition)
  if (window > KEPT_POINTS || KEPT.has(key)) return
  while (keptPoints + window > KEPT_POINTS) {
    const oldest = KEPT.keys().next()
    if (oldest.done === true) break
    keptPoints -= (KEPT.get(oldest.value) as { readonly window: number }).window
    KEPT.delete(oldest.value)
  }
  KEPT.set(key, { composition, window })
  keptPoints += window
}

/** Empties the kept compositions (for tests: answers must not depend on them). */
export const forgetKeptCompositions = (): void => {
  KEPT.clear()
  keptPoints = 0
}

/**
 * The (cached) composition of a state under the given options. A composition does not depend on
 * `maxWindow` (it only refuses a window over it), so a cached composition answers under any
 * window limit, and a refusal is recomputed only when asked again under a larger limit.
 */
export const pldComposition = (s: PldState, options: PldOptions, analyticGaussian = true): E.Either<DpError, PldComposition> => {
  const key = `${options.interval}|${options.tailMass}|${analyticGaussian}`
  const limit = Math.min(options.maxWindow ?? MAX_GRID_POINTS, MAX_GRID_POINTS)
  const hit = s.cache.get(key)
  if (hit !== undefined && (E.isRight(hit.result) || gridOverflow(hit.result.left) === undefined || hit.limit >= limit)) return hit.result
  const valueKey = stateKey(s, options, analyticGaussian)
  const kept = KEPT.get(valueKey)
  const built = kept !== undefined && kept.window <= limit ? E.right(kept.composition) : buildComposition(s, options, analyticGaussian)
  if (kept === undefined && E.isRight(built)) keep(valueKey, built.right)
  s.cache.set(key, { result: built, limit })
  return built
}
