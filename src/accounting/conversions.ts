/**
 * Conversions from Rényi divergence bounds to (ε, δ)-DP at one order. Accountants optimise these
 * over orders (a grid for RDP curves, a continuous search for zCDP). Any order gives a valid
 * bound, so the optimiser can only lose tightness, never soundness.
 *
 * @module
 */
import { nextUp } from '../core/numeric.js'

/**
 * The Bretagnolle–Huber bound √(1 − e^{−r}) ≥ TV for a KL (or any D_α, α ≥ 1) bound r, rounded up
 * past the error of expm1 and sqrt: (0, δ)-DP for every δ at or above it. One function for both
 * readings, so ε(δ) at the δ that δ(ε) reports finds it (issue 26's boundary, RDP form).
 */
export const klDeltaBound = (r: number): number => Math.min(1, nextUp(nextUp(Math.sqrt(-Math.expm1(-r)))))

/**
 * ε at δ from an (α, r)-RDP bound, α > 1 — Canonne, Kamath & Steinke 2020, Prop. 12
 * (equivalently Balle et al. 2020, Thm 21; Asoodeh et al. 2021):
 *   ε = r + log(1 − 1/α) − (log δ + log α)/(α − 1),
 * clamped at 0. Also (0, δ)-DP whenever δ ≥ TV ≥ … : by Bretagnolle–Huber TV ≤ √(1 − e^{−KL}) and
 * KL ≤ D_α for α ≥ 1, so δ² ≥ 1 − e^{−r} gives ε = 0 (the rule dp_accounting also uses).
 */
export const rdpEpsilonAtOrder = (alpha: number, r: number, delta: number): number => {
  if (!(alpha > 1) || Number.isNaN(r) || r < 0) return Number.NaN
  if (r === Infinity) return Infinity
  if (delta >= klDeltaBound(r)) return 0
  const eps = r + Math.log1p(-1 / alpha) - (Math.log(delta) + Math.log(alpha)) / (alpha - 1)
  return Math.max(0, eps)
}

/**
 * δ at ε from an (α, r)-RDP bound, α > 1 — the same proposition solved for δ:
 *   δ = exp((α − 1)(r − ε + log(1 − 1/α)) − log α),
 * and never more than the KL bound √(1 − e^{−r}) (Bretagnolle–Huber, for any ε ≥ 0), nor 1.
 */
export const rdpDeltaAtOrder = (alpha: number, r: number, epsilon: number): number => {
  if (!(alpha > 1) || Number.isNaN(r) || r < 0 || !(epsilon >= 0)) return Number.NaN
  if (r === Infinity) return 1
  const kl = klDeltaBound(r)
  const logDelta = (alpha - 1) * (r - epsilon + Math.log1p(-1 / alpha)) - Math.log(alpha)
  return Math.min(1, kl, Math.exp(logDelta))
}
