/**
 * Poisson subsampling under one direction of add/remove (remove-only, add-only): the RDP bounds
 * that need the inner mechanism only in that direction. With μ₀ = M(S), μ₁ = M(S ∪ {x}) for a
 * sample S of the other units and μ = (1 − q)μ₀ + qμ₁:
 *
 * - remove (P = μ, Q = μ₀): for integer α, E_Q[(P/Q)^α] = Σ_l C(α,l)(1 − q)^{α−l} q^l e^{(l−1)ε(l)}
 *   exactly, by the binomial theorem on (1 − q + q·μ₁/μ₀)^α, where ε(l) = D_l(μ₁‖μ₀) is the inner
 *   curve in the remove direction; E_Q[(P/Q)^α] is jointly convex, so the mixture over S is at most
 *   the worst S. This is Zhu & Wang 2019's tight formula (their Thm 5 gives it for the worse of the
 *   two directions under conditions; for the remove direction alone it holds for every mechanism —
 *   the factor 3 of their general Thm 6 pays for the add direction). The Gaussian case is Mironov,
 *   Talwar & Zhang 2019's A_α (§3.3). Fractional orders by the cumulant chord (./integer-orders.ts).
 * - add (P = μ₀, Q = μ): μ₀/μ ≤ 1/(1 − q), so D_α ≤ D_∞ ≤ −log(1 − q) for every mechanism; and by
 *   joint convexity with P = (1 − q)μ₀ + qμ₀, E_Q[(P/Q)^α] ≤ 1 − q + q·e^{(α−1)ε(α)} with
 *   ε(α) = D_α(μ₀‖μ₁), the inner curve in the add direction — at every real α. For pure ε in the add
 *   direction, μ₀ ≤ e^ε μ₁ gives μ ≥ (1 − q + qe^{−ε})μ₀: ε′ = −log(1 − q + qe^{−ε}).
 *   (MTZ 2019 Thm 5 shows the add direction of the sampled Gaussian is never above the remove one;
 *   the sampled Gaussian's own add-direction integral is in ./subsampled-gaussian-add.ts.)
 *
 * @module
 */
import { roundUpLoss } from '../../core/numeric.js'
import { amplifiedEpsilon } from '../dp/amplification.js'
import { fromIntegerOrders } from './integer-orders.js'
import { logBinomialRow, logExpm1, logSumExpPruned, softplus } from './log-space.js'

/** The remove-direction bound at an integer α ≥ 2 from the inner remove-direction curve. 0 < q < 1. */
export const removeDirectionBound = (q: number, eps: (l: number) => number, alpha: number): number => {
  const row = logBinomialRow(alpha)
  const lq = Math.log(q)
  const l1q = Math.log1p(-q)
  // E_Q[(P/Q)^α] − 1 = Σ_{l≥2} C(α,l)(1 − q)^{α−l} q^l (e^{(l−1)ε(l)} − 1): the l = 0, 1 terms and the 1 cancel.
  const terms = new Float64Array(alpha - 1)
  for (let l = 2; l <= alpha; l++) {
    const x = (l - 1) * eps(l)
    if (x === Infinity) return Infinity
    terms[l - 2] = x > 0 ? (row[l] as number) + (alpha - l) * l1q + l * lq + logExpm1(x) : -Infinity
  }
  return roundUpLoss(softplus(logSumExpPruned(terms)) / (alpha - 1))
}

/** The remove-direction curve on `orders`, capped by the unsampled curve (0 < q < 1). */
export const poissonRemoveCurve = (orders: ReadonlyArray<number>, q: number, base: (alpha: number) => number): Float64Array => {
  const bound = fromIntegerOrders(orders, (n) => removeDirectionBound(q, base, n))
  const out = new Float64Array(orders.length)
  for (let i = 0; i < orders.length; i++) out[i] = Math.min(bound[i] as number, base(orders[i] as number))
  return out
}

/** −log(1 − q): the pure ε of the add direction of any Poisson-subsampled mechanism. */
export const addDirectionCeiling = (q: number): number => (q >= 1 ? Infinity : roundUpLoss(-Math.log1p(-q)))

/** Pure ε of the add direction after sampling at rate q: −log(1 − q + qe^{−ε}) (module comment). */
export const addDirectionPure = (q: number, epsilon: number): number => {
  if (q === 0 || epsilon === 0) return 0
  return roundUpLoss(Math.min(epsilon, -Math.log1p(q * Math.expm1(-epsilon))))
}

/** The add-direction bound at a real order α > 1 from the inner add-direction ε(α) (0 < q < 1). */
export const addDirectionBound = (q: number, epsAlpha: number, alpha: number): number => {
  const convex = epsAlpha === Infinity ? Infinity : roundUpLoss(amplifiedEpsilon(q, (alpha - 1) * epsAlpha) / (alpha - 1))
  return Math.min(epsAlpha, convex, addDirectionCeiling(q))
}

/** The add-direction curve on `orders` (0 < q < 1). */
export const poissonAddCurve = (orders: ReadonlyArray<number>, q: number, base: (alpha: number) => number): Float64Array =>
  Float64Array.from(orders, (a) => addDirectionBound(q, base(a), a))
