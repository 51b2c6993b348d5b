/**
 * Options of the PLD accountant and the memory limit on its grids, checked before anything is
 * allocated: a discretisation interval h puts one probability mass on every multiple of h over
 * the loss range, so a small h or a wide loss range (a strong mechanism, a long composition)
 * means a long array, and the FFT doubles it again.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'

/** Default discretisation interval of the privacy-loss grid (as in dp_accounting). */
export const DEFAULT_INTERVAL = 1e-4

/**
 * Default total probability mass the accountant may truncate: half for the leaves' tails (split
 * over all composed steps), half for the composition window. Truncated mass is added to δ in the
 * upper estimate and dropped in the lower one, so this only trades size for tightness.
 */
export const DEFAULT_TAIL_MASS = 1e-15

/**
 * Tail mass of a query whose caller left `tailMass` unset, where its δ is at least
 * AUTO_TAIL_MIN_DELTA: at most 1e-5·δ. The truncated mass is added to δ in the guarantee
 * (./queries.ts), so this is as sound as any tail mass; it moves ε by what a relative 1e-5 change
 * of δ moves it (about 1e-7 relative at the bench's workloads), far below the accounting error.
 * What it buys: the composition window spans log(1/tail)/t on each side (Chernoff, ./compose.ts),
 * a quarter less than at 1e-15 — the Poisson-sampled (discrete) Gaussians of bench/pld.bench.mjs
 * fit 2^16 points instead of 2^17, half the transform work. One value for every such δ, so ε(δ)
 * and δ(ε) queries near one another (a bisection, a calibration) share one composition.
 */
export const AUTO_TAIL_MASS = 1e-11
export const AUTO_TAIL_MIN_DELTA = 1e-6

/**
 * The tail mass of an ε(δ) query with the tail unset: AUTO_TAIL_MASS from δ = AUTO_TAIL_MIN_DELTA
 * up, DEFAULT_TAIL_MASS below (a δ(ε) query takes AUTO_TAIL_MASS first and recomposes at
 * DEFAULT_TAIL_MASS when its answer falls below AUTO_TAIL_MIN_DELTA; ./accountant.ts).
 */
export const queryTailMass = (delta: number): number => (delta >= AUTO_TAIL_MIN_DELTA ? AUTO_TAIL_MASS : DEFAULT_TAIL_MASS)

/**
 * Largest number of grid points in one array: a leaf PLD, or the FFT length of a composition.
 * 2^22 points are 32 MiB per real array; a composition keeps up to four half-spectra plus two
 * complex work buffers of this length (about 300 MiB in the worst case), well under 1 GiB.
 */
export const MAX_GRID_POINTS = 2 ** 22

/** Largest repetition count of one factor (SelfCompose counts multiply). */
export const MAX_COUNT = 2 ** 40

/**
 * Largest finite privacy loss one leaf's grid covers. A leaf's loss above it is moved to +∞ in the
 * pessimistic PLD (moving loss up only raises δ(ε)) and rounded down to it in the optimistic one
 * (moving loss down only lowers δ(ε)); below −MAX_LEAF_LOSS it goes to the grid's lowest point
 * (up, pessimistic) or is dropped (optimistic). A leaf whose loss reaches 10⁴ gives a guarantee that
 * protects nothing, and e^{−10⁴} is 0 in double precision, so the cap changes no δ the grid could
 * resolve; it keeps every grid index an exact integer (a loss of 1e300 at interval 1e-4 has no
 * representable neighbouring grid point) and every grid finite.
 */
export const MAX_LEAF_LOSS = 1e4

/**
 * Default relative accounting error the accountant aims at when it chooses the interval itself
 * (no `interval` option): it refines the grid until (upper − lower) ≤ 1e-3 · upper, as far as the
 * grid-size limit and three refinements allow.
 */
export const DEFAULT_TARGET_ERROR = 1e-3

/**
 * Default work budget of an answer whose interval the accountant chooses (no `interval` option):
 * the composition windows of all its passes together hold at most 2^20 grid points. A window of
 * 2^20 points costs about a second of one core with four channels (measured with
 * bench/pld.bench.mjs: 2^19 points, four channels, 0.2–0.5 s), so an answer stays in the
 * tens-of-milliseconds to one-second range; a pass that would pass the budget is not run, and the
 * answer says which interval it would have needed.
 */
export const DEFAULT_WORK_BUDGET = 2 ** 20

/** Smallest work budget accepted: one short window. */
export const MIN_WORK_BUDGET = 2 ** 10

export interface PldOptions {
  readonly interval: number
  readonly tailMass: number
  /**
   * Largest composition window (points, after rounding up to a power of two) this composition
   * may use, below MAX_GRID_POINTS: the budget of a pass the accountant chose (./interval.ts).
   * A window over it is refused before any transform, like one over the hard limit.
   */
  readonly maxWindow?: number
}

/** Checks the interval and tail mass; the path names the option. */
export const validatePldOptions = (interval: number, tailMass: number): E.Either<DpError, PldOptions> => {
  if (!(interval > 0) || !Number.isFinite(interval))
    return E.left(
      invalidParameter(
        'options.interval',
        interval,
        'the PLD discretisation interval must be a finite number > 0 (the default is 1e-4)',
      ),
    )
  if (!(tailMass > 0 && tailMass < 1e-3))
    return E.left(
      invalidParameter('options.tailMass', tailMass, 'the PLD tail-truncation mass must be in (0, 1e-3) (the default is 1e-15)'),
    )
  return E.right({ interval, tailMass })
}

/**
 * The grid-size refusals of `checkGridSize`, with the interval that would fit and the loss span
 * the refused grid had to cover: the accountant coarsens its grid by them instead of refusing
 * (./interval.ts).
 */
const overflows = new WeakMap<DpError, { readonly fits: number; readonly span: number; readonly limit: number }>()

/** The interval that would fit, when `e` is a grid-size refusal (∞ when no interval would). */
export const gridOverflow = (e: DpError): number | undefined => overflows.get(e)?.fits

/** The limit a grid-size refusal was measured against (MAX_GRID_POINTS, or a pass's work budget). */
export const gridOverflowLimit = (e: DpError): number | undefined => overflows.get(e)?.limit

/**
 * The loss span (in loss units) the refused grid had to cover, when `e` is a grid-size refusal
 * with a finite span: span / points is about the interval at which it takes `points` points.
 */
export const gridOverflowSpan = (e: DpError): number | undefined => {
  const span = overflows.get(e)?.span
  return span !== undefined && Number.isFinite(span) && span > 0 ? span : undefined
}

/**
 * Refuses a grid of `points` points before it is allocated, naming the limit and the smallest
 * interval that would fit (`span` is the loss range the grid must cover). `limit` is
 * MAX_GRID_POINTS unless a pass runs under a smaller work budget (./interval.ts).
 */
export const checkGridSize = (
  points: number,
  interval: number,
  span: number,
  path: string,
  what: string,
  limit: number = MAX_GRID_POINTS,
): E.Either<DpError, number> => {
  if (Number.isFinite(points) && points <= limit) return E.right(points)
  const need = Number.isFinite(span) && span > 0 ? roundUp3(span / (MAX_GRID_POINTS / 2)) : Number.NaN
  // The hint names the interval that fits the limit this refusal states (a pass's budget can be
  // below MAX_GRID_POINTS): half of it, as a window is rounded up to a power of two (< twice its width).
  const half = limit / 2
  const fitsHere = Number.isFinite(span) && span > 0 ? roundUp3(span / half) : Number.NaN
  const showPoints = (n: number): string => (Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : Math.floor(n).toLocaleString('en-US'))
  const hint = Number.isFinite(fitsHere)
    ? `; an interval of about ${fitsHere} or more would fit (it keeps the span within ${showPoints(half)} points, which stays within ${showPoints(limit)} after rounding up to a power of two)`
    : ''
  const error = invalidParameter(
      path,
      interval,
      `${what} would need ${Number.isFinite(points) ? Math.ceil(points).toLocaleString('en-US') : 'unboundedly many'} grid points at ` +
        `interval ${interval}, over the limit of ${limit.toLocaleString('en-US')}${Number.isInteger(Math.log2(limit)) ? ` (2^${Math.log2(limit)})` : ''} points per array${hint}`,
  )
  overflows.set(error, { fits: Number.isFinite(need) ? need : Infinity, span, limit })
  return E.left(error)
}

/** x rounded up to three significant digits. */
const roundUp3 = (x: number): number => {
  const e = 10 ** (Math.floor(Math.log10(x)) - 2)
  return Number((Math.ceil(x / e) * e).toPrecision(3))
}

/** Largest power of two ≤ n (n ≥ 1). */
export const floorPow2 = (n: number): number => 2 ** Math.floor(Math.log2(n))

/** Smallest power of two ≥ n (n ≥ 1), at least 4. */
export const nextPow2 = (n: number): number => {
  let p = 4
  while (p < n) p *= 2
  return p
}
