/**
 * Continuous Rényi orders: the (ε, δ) conversion minimised over real α, not only over a grid.
 *
 * Every order α > 1 gives a valid (ε, δ) bound (Canonne, Kamath & Steinke 2020, Prop. 12), and
 * dpaudit's curves are valid at fractional orders (closed forms, the exact sampled Gaussian by
 * quadrature, the general subsampling bounds by the convex chord of the cumulant), so the best
 * order may be sought continuously. The grid brackets it: with g(α) the conversion at α and α_i the
 * best grid order, the search runs on [α_{i−1}, α_{i+1}] (clamped to the grid's ends) by Brent's
 * method (parabolic steps with golden-section fallback, ../../core/numeric.ts `brentMin`) in
 * u = log(α − 1), which treats the dense orders near 1 and the geometric ones above alike. The
 * conversion is not guaranteed unimodal on the bracket (the Bretagnolle–Huber cap of
 * ../conversions.ts makes a kink), so the answer is the best of the grid optimum and every point the
 * search evaluated: a missed optimum costs tightness, never soundness, because each candidate is
 * itself a valid bound.
 *
 * Curves that come from integer-order bounds by chords have kinks at the integers, so the two
 * integers around the minimiser are tried too.
 *
 * Accuracy and cost: the conversion is smooth at its minimum except at kinks, where Brent's
 * parabolic steps converge superlinearly: 8–12 evaluations reach √ε_mach·|u| + 1e-9 in u, where the
 * golden section it replaced spent 32 to reach ~2e-6. At a kink (an integer order of a chord curve:
 * the general subsampling bounds, the sampled Laplace) both fall back to golden steps (27–30
 * evaluations), so a search not converged after FIRST_PHASE evaluations tries the nearest integer
 * and stops there when it is the best and no better KINK_PROBE either side (~16 in all). Measured on 300 seeded random workloads (Poisson
 * Gaussian, Laplace, RR, repeat-and-select, mixtures): ε lower in 152 (by ≤ 3.8e-11 relative), the
 * same bits in 133, higher in 15 by ≤ 4.2e-14 relative (rounding at the flat minimum). Each
 * evaluation is a fold of the whole event at one order, the dominant cost of a query, so the
 * evaluations are capped at CONTINUOUS_ITERATIONS (the golden section's count): never more work.
 *
 * The accountant passes the grid's values at the best order and its neighbours: Brent then starts
 * from the parabola through them, and an integer grid order is first checked for a kink (both
 * sides KINK_PROBE away no better: done in 2 evaluations). On bench/rdp.bench.mjs's workloads
 * (node /tmp evals script, refineOrder with and without the grid values): 165 → 131 evaluations
 * in all; sampled Laplace b = 1 and RR 14 → 2, plain Gaussians 8 → 5, DP-SGD MNIST 8 → 6,
 * sampled Gaussian × 100 11 → 13 and WOR 15 → 17 (a steep side spoils the first parabola; an
 * integer grid order that is no kink costs its probe). Answers within 3e-15 relative of before
 * (each one an evaluated order's bound, as before).
 *
 * @module
 */
import { brentMin } from '../../core/numeric.js'

/** Evaluations before the search checks for a kink at an integer order (Brent converges within them on smooth minima). */
const FIRST_PHASE = 12
/** Half-width in u = log(α − 1) of the kink check: golden section's final resolution, below it. */
const KINK_PROBE = 1e-7

/** At most this many evaluations of the composed curve at new orders by the search (then two integers). */
export const CONTINUOUS_ITERATIONS = 30

/** The minimiser found: the best value, its order, and the grid's best for comparison. */
export interface OrderSearchResult {
  readonly value: number
  readonly order: number
  readonly gridValue: number
  readonly gridOrder: number
  /** Orders at which the curve was evaluated off the grid. */
  readonly evaluations: number
}

/**
 * Minimises `bound(α, rdpAt(α))` over real α near the grid optimum. `orders` ascending, `curve` the
 * composed curve on them, `gridOrder` the grid's best order and `gridValue` its bound. `rdpAt` may
 * return undefined (the curve could not be evaluated there): that order is skipped.
 *
 * `gridBound(i)`, when given, is the bound already known at `orders[i]` (the grid's curve converted):
 * the search then starts from the parabola through the best grid order and its two neighbours
 * instead of probing the bracket afresh (`brentMin`'s `known`), 2–3 fewer evaluations of the
 * composed curve, each a fold of the whole event at a new order.
 */
export const refineOrder = (
  orders: ReadonlyArray<number>,
  gridOrder: number,
  gridValue: number,
  bound: (alpha: number, rdp: number) => number,
  rdpAt: (alpha: number) => number | undefined,
  gridBound?: (i: number) => number,
): OrderSearchResult => {
  const grid: OrderSearchResult = { value: gridValue, order: gridOrder, gridValue, gridOrder, evaluations: 0 }
  const i = orders.indexOf(gridOrder)
  if (i < 0 || orders.length < 2 || !Number.isFinite(gridValue)) return grid
  const lo = orders[Math.max(0, i - 1)] as number
  const hi = orders[Math.min(orders.length - 1, i + 1)] as number
  let best = { value: gridValue, order: gridOrder }
  let evaluations = 0
  const at = (alpha: number): number => {
    evaluations++
    const r = rdpAt(alpha)
    if (r === undefined) return Infinity
    const v = bound(alpha, r)
    if (Number.isNaN(v)) return Infinity
    if (v < best.value) best = { value: v, order: alpha }
    return v
  }
  const f = (u: number): number => at(1 + Math.exp(u))
  const known =
    gridBound === undefined
      ? []
      : [i - 1, i, i + 1]
          .filter((j) => j >= 0 && j < orders.length)
          .map((j) => ({ x: Math.log((orders[j] as number) - 1), value: j === i ? gridValue : gridBound(j) }))
  const done = (): OrderSearchResult => ({ ...best, gridValue, gridOrder, evaluations })
  // A kink at an integer grid order that is the minimum (a chord curve's: the sampled Laplace, the
  // general subsampling bounds) costs Brent FIRST_PHASE golden steps before the check below: with
  // the neighbours' values known, check it first, on the side of the lower neighbour (where a smooth
  // minimum would lie, so a smooth one costs one evaluation more). Both sides no better: the minimum
  // of the unimodal conversion is within KINK_PROBE of the grid order, as below.
  if (gridBound !== undefined && Number.isInteger(gridOrder) && gridOrder > 1 && i > 0 && i < orders.length - 1) {
    const u0 = Math.log(gridOrder - 1)
    const towards = gridBound(i - 1) < gridBound(i + 1) ? -KINK_PROBE : KINK_PROBE
    if (f(u0 + towards) >= gridValue && f(u0 - towards) >= gridValue) return done()
  }
  const first = brentMin(f, Math.log(lo - 1), Math.log(hi - 1), 1e-9, FIRST_PHASE, known)
  if (!first.converged) {
    // Not converged in FIRST_PHASE: most often a kink at an integer order of a chord curve, where
    // Brent falls back to golden steps. Try the integer nearest the best point; if it is the best
    // and both its neighbours KINK_PROBE away in u are no better, the minimum of the (unimodal)
    // conversion lies within KINK_PROBE of it and the search stops; otherwise it goes on in the
    // bracket left, within the same total of evaluations.
    const k = Math.round(best.order)
    if (k > lo && k < hi && k > 1 && k !== best.order) at(k)
    const { order: c, value: fc } = best
    const kink = Number.isInteger(c) && c > 1 && f(Math.log(c - 1) - KINK_PROBE) >= fc && f(Math.log(c - 1) + KINK_PROBE) >= fc
    const left = CONTINUOUS_ITERATIONS - evaluations
    if (!kink && left > 0) brentMin(f, first.lo, first.hi, 1e-9, left)
  }
  // Bounds known at integer orders (the general subsampling theorems) are extended by chords, so
  // the conversion has kinks at integers and its minimum often sits on one: try the two around.
  const near = best.order
  for (const k of [Math.floor(near), Math.ceil(near)])
    if (k > lo && k < hi && k !== near && k !== gridOrder && k > 1) at(k)
  return done()
}
