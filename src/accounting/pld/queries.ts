/**
 * δ(ε) and ε(δ) of a composed PLD, as an upper (pessimistic) or lower (optimistic) estimate.
 *
 * For a PLD with finite masses c_j at losses ℓ_j and mass ω_∞ at +∞,
 *   δ(ε) = Σ_j c_j (1 − e^{ε−ℓ_j})₊ + ω_∞
 * (Sommer, Meiser & Mohammadi 2019, §4.4; Koskela, Jälkö & Honkela 2020). Beyond the
 * masses in the window, a composed PLD carries three error terms, each added to the upper estimate
 * and subtracted from the lower one:
 * - `truncatedMass`: a bound on the composed mass outside the window, which a cyclic convolution
 *   folds back into it (it can raise any in-window mass and at most contributes its own size to δ);
 * - `fpError`: a bound on the floating-point error of δ from the FFT and the spectral powers;
 * - the rounding error of the suffix sums at the query point (from the view).
 * ε(δ) inverts exactly on the segment between two grid points (δ is affine in e^ε there), and the
 * reported upper ε is rounded up and checked: δ_upper(ε) ≤ δ is verified at the returned point.
 *
 * @module
 */
import { nextUp } from '../../core/numeric.js'
import type { SuffixView } from './view.js'

/** One composed PLD (one direction of the neighbouring relation, one estimate). */
export interface ComposedPld {
  readonly interval: number
  /** Grid index of window point 0. */
  readonly start: number
  /** Loss offset added to every grid point (nonzero when a lattice was compressed, ./compose.ts). */
  readonly shift: number
  readonly view: SuffixView
  readonly infinityMass: number
  readonly truncatedMass: number
  readonly fpError: number
}

export type Side = 'upper' | 'lower'

/** Loss of window point i. */
const lossAt = (c: ComposedPld, i: number): number => (c.start + i) * c.interval + c.shift

/** Index of the first window point with loss > ε, in [0, N]. */
const firstAbove = (c: ComposedPld, eps: number): number => {
  const n = c.view.length
  if (eps === Infinity) return n
  if (eps === -Infinity) return 0
  let i = Math.floor((eps - c.shift) / c.interval) - c.start + 1
  if (i < 0) i = 0
  if (i > n) i = n
  while (i > 0 && lossAt(c, i - 1) > eps) i--
  while (i < n && lossAt(c, i) <= eps) i++
  return i
}

const scratch = new Float64Array(3)

/** Σ_j c_j (1 − e^{ε−ℓ_j})₊ over the window and its rounding error bound. */
const finiteDelta = (c: ComposedPld, eps: number): { readonly value: number; readonly err: number } => {
  const i = firstAbove(c, eps)
  if (i >= c.view.length) return { value: 0, err: 0 }
  c.view.suffix(i, scratch)
  const f = Math.exp(eps - lossAt(c, i))
  return { value: scratch[0]! - f * scratch[1]!, err: scratch[2]! }
}

/** The global additive terms of an estimate (see the module note). */
const extra = (c: ComposedPld): number => c.truncatedMass + c.fpError

/** δ(ε) as an upper or lower estimate, in [0, 1]. */
export const deltaAt = (c: ComposedPld, eps: number, side: Side): number => {
  // At ε = ∞ only the mass at +∞ counts (truncated and rounding terms concern finite losses).
  if (eps === Infinity) return Math.min(1, c.infinityMass)
  // No window point above ε: the window's masses, and so their floating-point error, add nothing;
  // only ω_∞ and mass truncated above the window can (issue 26: a δ exactly ω_∞ is met).
  if (firstAbove(c, eps) >= c.view.length)
    return side === 'upper' ? Math.min(1, c.infinityMass + c.truncatedMass) : Math.max(0, Math.min(1, c.infinityMass - c.truncatedMass))
  const f = finiteDelta(c, eps)
  if (side === 'upper') return Math.min(1, Math.max(0, f.value) + f.err + c.infinityMass + extra(c))
  return Math.max(0, Math.min(1, f.value - f.err + c.infinityMass - extra(c)))
}

/**
 * The smallest ε ≥ 0 with δ(ε) ≤ delta for the chosen estimate (∞ if none): for the upper
 * estimate a guarantee (rounded up and verified), for the lower one an optimistic value (rounded
 * down).
 */
export const epsilonAt = (c: ComposedPld, delta: number, side: Side): number => {
  const ok = (eps: number): boolean => deltaAt(c, eps, side) <= delta
  if (ok(0)) return 0
  const n = c.view.length
  // Past every finite loss only ω_∞ and the error terms remain: if that is too much, ε = ∞.
  if (!ok(nextUp(Math.max(0, lossAt(c, n - 1))))) return Infinity
  // Binary search over window points with loss > 0 for the first one where δ ≤ delta; the
  // answer lies in the segment just below it (or above the window, where δ is constant).
  let lo = firstAbove(c, 0)
  let hi = n
  if (lo >= n) return upperEnd(c, delta, side, n)
  if (ok(lossAt(c, lo))) hi = lo
  else {
    // Invariant: ok(loss(lo)) false, ok(loss(hi)) true (hi = n stands for "above the window").
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2)
      if (ok(lossAt(c, mid))) hi = mid
      else lo = mid
    }
  }
  return hi >= n ? upperEnd(c, delta, side, n) : solveSegment(c, delta, side, hi)
}

/** Every window point fails: ε lies above the window, where δ is constant — the top of the window. */
const upperEnd = (c: ComposedPld, delta: number, side: Side, n: number): number => {
  const top = Math.max(0, lossAt(c, n - 1))
  if (side === 'lower') return top
  // δ is constant above the last point; the last point itself may still fail by its own mass.
  const x = nextUp(top)
  return deltaAt(c, x, side) <= delta ? x : Infinity
}

/**
 * ε in the segment (ℓ_{i−1}, ℓ_i] where δ(ε) = A(i) − e^{ε−ℓ_i} B(i) ± err + const crosses delta;
 * δ(ℓ_i) ≤ delta is known.
 */
const solveSegment = (c: ComposedPld, delta: number, side: Side, i: number): number => {
  const li = lossAt(c, i)
  const left = Math.max(0, lossAt(c, i - 1))
  c.view.suffix(i, scratch)
  const A = scratch[0]!
  const B = scratch[1]!
  const err = scratch[2]!
  const k = c.infinityMass + (side === 'upper' ? extra(c) + err : -extra(c) - err)
  // A − e^{ε−ℓ_i} B + k = delta  ⇔  ε = ℓ_i + log((A + k − delta)/B)
  const num = A + k - delta
  let eps = num > 0 && B > 0 ? li + Math.log(num / B) : left
  if (!(eps >= left)) eps = left
  if (eps > li) eps = li
  if (side === 'upper') {
    // Round up past the floating-point error of the inversion, then verify.
    const up = Math.min(li, nextUp(eps + 8 * Number.EPSILON * Math.max(1, Math.abs(eps))))
    return deltaAt(c, up, 'upper') <= delta ? up : li
  }
  return Math.max(left, eps - 8 * Number.EPSILON * Math.max(1, Math.abs(eps)))
}
