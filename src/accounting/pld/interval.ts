/**
 * Choosing the grid interval of a query, so that the accountant answers every event, its error
 * follows the scale of the answer, and its work stays within a budget.
 *
 * Every move is sound because every composed PLD, at any interval, brackets the same truth (the
 * pessimistic estimate is never below it, the optimistic never above; ./discretize.ts):
 * - **Coarsen, never refuse.** A composition whose grid would exceed MAX_GRID_POINTS (./limits.ts)
 *   is retried at the interval the refusal names as fitting (at least twice the last one): a wide
 *   loss range (q = 0.5 over thousands of steps) gets a coarser grid and a wider, still sound,
 *   bracket instead of an error.
 * - **Budget the work** (only when the caller did not fix the interval). The composition windows
 *   of all passes of one answer hold at most `workBudget` grid points together (default 2^20,
 *   ./limits.ts). Each pass is sized before it runs: the window of a pass grows as 1/h, so the
 *   next window is estimated from the last one, and the pass is composed with its share of the
 *   budget as a hard window limit (a window over it is refused after the cheap leaf
 *   discretisation and Chernoff bound, before any transform). When the window at the starting
 *   interval would pass a quarter of the budget, the first pass is a probe coarsened to a
 *   sixteenth of it: a loss range that wide means a large ε, whose target error is large in
 *   absolute terms, so a coarse grid often meets it at once (and leaves the budget to refine).
 * - **Refine to the answer's scale**: while the bracket is wider than `targetError` × its upper
 *   end, the interval is shrunk in proportion (the optimistic estimate's error is first order in
 *   the interval where an atom falls between grid points, the pessimistic one's second order;
 *   shrinking in proportion covers both), as far as three refinements and the budget allow, and
 *   only while a pass can be expected to narrow it: the width comes from the grid (not from the
 *   truncated mass or the floating-point bound, which no interval narrows: a δ near them, or a
 *   δ(ε) of their size), the affordable pass at least halves the interval (quarters it, when the
 *   budget cuts it short of the interval the target asks for: each pass costs about as much as
 *   all the passes before it), and the last pass narrowed the bracket by at least a tenth. When the budget stops refinement with the bracket
 *   still wider than the target, the answer says so and names the interval that would meet it.
 *   The answer is the intersection of the brackets: the smallest upper end and the largest lower
 *   end seen, each sound on its own.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, numericFailure } from '../../core/error.js'
import { pldComposition, windowOf } from './build.js'
import { floorPow2, gridOverflow, gridOverflowLimit, gridOverflowSpan, MAX_GRID_POINTS, type PldOptions } from './limits.js'
import type { PldComposition, PldState } from './state.js'

/** How a query chooses its interval. */
export interface IntervalPolicy {
  /** The interval of the first pass: the user's, or the default. */
  readonly interval: number
  readonly tailMass: number
  /** True when the user did not fix the tail mass: an ε(δ) query takes it from δ (./limits.ts `queryTailMass`). */
  readonly tailAuto?: boolean
  /** True when the user did not fix the interval: the accountant may refine it. */
  readonly auto: boolean
  /** Relative accounting error aimed at when refining: (upper − lower) ≤ targetError · upper. */
  readonly targetError: number
  /**
   * Composition-window points all passes of one answer may use together when `auto` (each pass
   * also at most MAX_GRID_POINTS). Ignored when the interval is fixed.
   */
  readonly workBudget: number
}

/** A bracket read off one composition. */
export interface Bracket {
  readonly upper: number
  readonly lower: number
  /**
   * False when the bracket's width comes from the interval-independent error terms (truncated
   * mass, floating point) rather than the grid: a finer interval would not narrow it.
   */
  readonly refinable?: boolean
}

/** The answer of a query with the compositions that gave it. */
export interface ChosenAnswer extends Bracket {
  /** The composition whose upper estimate is the answer. */
  readonly composition: PldComposition
  /** Intervals tried, in order, and how the last one was reached. */
  readonly trail: ReadonlyArray<number>
  /**
   * The grid of the first pass was coarser than requested: 'limit' when the requested one would
   * not fit in memory (MAX_GRID_POINTS), 'budget' when its window would pass the work budget.
   */
  readonly coarsened: false | 'limit' | 'budget'
  /**
   * The bracket is wider than the target and the work budget stopped refinement: 'budget' when the
   * pass that would meet the target passes it (or the affordable one would narrow too little),
   * 'settled' when, besides, the last refinement left the upper end (the guarantee) where it was,
   * so the affordable pass would only raise the optimistic end.
   */
  readonly limited: false | 'budget' | 'settled'
  /** Composition-window points the passes used. */
  readonly work: number
}

/** Largest number of coarsening steps (each at least doubles the interval). */
const MAX_COARSENINGS = 80
/** Refinements after the first pass. */
const MAX_REFINEMENTS = 3
/**
 * The first pass may use this share of the budget, leaving the rest for refinement; an event whose
 * window at the starting interval is larger is first probed at PROBE_SHARE of it.
 */
const FIRST_SHARE = 1 / 4
const PROBE_SHARE = 1 / 16

/** A composition and how its interval was reached from the requested one. */
interface Fitted {
  readonly composition: PldComposition
  readonly coarsened: false | 'limit' | 'budget'
}

/**
 * The composition at `options.interval`, or at the first coarser interval whose grids fit (every
 * array within MAX_GRID_POINTS, the window within `options.maxWindow`); a refused grid is retried
 * at the interval where its span takes about `aim` points. Refusals of another kind are returned
 * as they are.
 */
const fitting = (s: PldState, options: PldOptions, analytic: boolean, aim: number): E.Either<DpError, Fitted> => {
  let h = options.interval
  let coarsened: Fitted['coarsened'] = false
  let last: E.Either<DpError, PldComposition> | undefined
  for (let i = 0; i < MAX_COARSENINGS && h < Number.MAX_VALUE; i++) {
    last = pldComposition(s, { ...options, interval: h }, analytic)
    if (E.isRight(last)) return E.right({ composition: last.right, coarsened })
    const fits = gridOverflow(last.left)
    if (fits === undefined || fits === Infinity) return last
    if (coarsened === false) coarsened = (gridOverflowLimit(last.left) ?? MAX_GRID_POINTS) < MAX_GRID_POINTS ? 'budget' : 'limit'
    const span = gridOverflowSpan(last.left)
    // The span takes about span/h points: aim at `aim` of them (with the hard limit, the refusal's
    // own hint, which keeps the span within 2^21 points).
    h = Math.max(2 * h, span === undefined || aim >= MAX_GRID_POINTS / 2 ? fits * 1.05 : (span / aim) * 1.05)
  }
  // Not reached in practice: every coarsening at least doubles the interval.
  return last === undefined || E.isRight(last) ? E.left(numericFailure('options.interval', 'no interval fits the grid limit')) : last
}

/**
 * The composition at `interval`, or at the first coarser interval whose grids fit in memory
 * (MAX_GRID_POINTS) and, with `maxWindow` set, whose window fits in it; refusals of another kind
 * are returned as they are.
 */
export const fittingComposition = (
  s: PldState,
  options: PldOptions,
  analytic: boolean,
): E.Either<DpError, PldComposition> => {
  const f = fitting(s, options, analytic, options.maxWindow === undefined ? MAX_GRID_POINTS / 2 : windowCap(options.maxWindow))
  return E.isLeft(f) ? f : E.right(f.right.composition)
}


/** The largest window (a power of two, within MAX_GRID_POINTS) a budget of `points` allows. */
export const windowCap = (points: number): number => (points >= 4 ? Math.min(MAX_GRID_POINTS, floorPow2(points)) : 0)

/** The largest window of the first pass under a work budget. */
export const firstPassWindow = (workBudget: number): number => windowCap(windowCap(workBudget) * FIRST_SHARE)

/**
 * Answers a query (`read` turns a composition into a bracket) under the policy: the first pass at
 * the policy's interval (coarsened if it must be, or to a probe when its window would pass the
 * work budget), then refinements toward the target error within the budget. Compositions that are
 * not numerical ('gaussian', 'empty', 'nonPrivate') are answered by the first pass alone.
 */
export const chooseAndAnswer = (
  s: PldState,
  policy: IntervalPolicy,
  analytic: boolean,
  read: (c: PldComposition) => Bracket,
): E.Either<DpError, ChosenAnswer> => {
  const base = { interval: policy.interval, tailMass: policy.tailMass }
  const cap = windowCap(policy.workBudget)
  const first = policy.auto
    ? fitting(s, { ...base, maxWindow: firstPassWindow(policy.workBudget) }, analytic, windowCap(cap * PROBE_SHARE))
    : fitting(s, base, analytic, MAX_GRID_POINTS / 2)
  if (E.isLeft(first)) return first
  const { composition: c0, coarsened } = first.right
  const r0 = read(c0)
  const trail = [c0.interval]
  let work = windowOf(c0)
  let best = { upper: r0.upper, lower: Math.min(r0.lower, r0.upper), composition: c0 }
  const wide = (b: Bracket): boolean => Number.isFinite(b.upper) && b.upper - b.lower > policy.targetError * b.upper
  const done = (limited: ChosenAnswer['limited']): E.Either<DpError, ChosenAnswer> =>
    E.right({ ...best, trail, coarsened, limited: wide(best) ? limited : false, work })
  if (r0.refinable === false || c0.kind !== 'pld' || !policy.auto || !wide(best)) return done(false)
  let current = c0
  // The last refinement moved the upper end by less than a tenth of the target.
  let settled = false
  for (let k = 0; k < MAX_REFINEMENTS && wide(best); k++) {
    const gap = best.upper - best.lower
    const h = current.interval
    const wanted = h * Math.min(0.5, Math.max(1 / 32, (0.8 * policy.targetError * best.upper) / gap))
    // The window grows as 1/h: the next pass gets what is left of the budget, and no more.
    const room = windowCap(Math.min(cap, policy.workBudget - work))
    const n = windowOf(current)
    const next = n > 0 && (n * h) / wanted > room ? (h * n) / room : wanted
    // A pass costs about as much as all before it. One the budget cuts short of the interval it
    // wanted cannot meet the target: it must at least quarter the interval (the width shrinks
    // about in proportion). None is run once the upper end has settled: it would only raise the
    // optimistic end, not change the guarantee.
    const short = next > wanted
    if (!(room > 0 && next <= (short ? 0.25 : 0.5) * h)) return done('budget')
    if (settled) return done('settled')
    const c = pldComposition(s, { ...base, interval: next, maxWindow: room }, analytic)
    if (E.isLeft(c)) return gridOverflow(c.left) !== undefined ? done('budget') : c
    work += windowOf(c.right)
    trail.push(c.right.interval)
    const r = read(c.right)
    const upper = Math.min(best.upper, r.upper)
    const lower = Math.min(upper, Math.max(best.lower, r.lower))
    const improved = upper - lower < 0.9 * gap
    settled = best.upper - upper <= 0.1 * policy.targetError * upper
    best = { upper, lower, composition: r.upper <= best.upper ? c.right : best.composition }
    current = c.right
    if (!improved || r.refinable === false) break
  }
  return done(false)
}

/**
 * The interval that would meet the target error, extrapolated from the last pass as the
 * refinement does (for the hint of an imprecise answer).
 */
export const intervalForTarget = (b: Bracket, interval: number, targetError: number): number | undefined => {
  const gap = b.upper - b.lower
  if (!Number.isFinite(b.upper) || !(gap > targetError * b.upper)) return undefined
  return interval * Math.max(1e-6, (0.8 * targetError * b.upper) / gap)
}
