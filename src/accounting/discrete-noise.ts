/**
 * The discrete Gaussian on the integers (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for
 * Differential Privacy", NeurIPS; CKS below): P(Z = x) = e^{−x²/(2σ²)}/Z(σ), x ∈ ℤ — its normaliser,
 * its tails, and the exact (ε, δ) curve of the scalar mechanism M(D) = q(D) + Z for an integer query
 * of sensitivity Δ (an integer).
 *
 * CKS Thm 7: with P = law of Z + Δ and Q = law of Z, the privacy loss at x is
 * log P(x)/Q(x) = (x² − (x − Δ)²)/(2σ²) = Δ(2x − Δ)/(2σ²), increasing in x, so
 *   δ(ε) = Σ_{x : loss(x) > ε} P(x) − e^ε Q(x) = P[Z > εσ²/Δ − Δ/2] − e^ε P[Z > εσ²/Δ + Δ/2],
 * tight for the pair and, the pair being symmetric (x ↦ Δ − x swaps P and Q), for both directions of
 * the neighbouring relation. A shift by |k| ≤ Δ does no worse: the pmf is log-concave, so the
 * likelihood ratio is monotone in x, the optimal event is an upper set {x ≥ c}, and
 * P[Z ≥ c − k] − e^ε P[Z ≥ c] grows with k. A vector difference of the same L2 norm can do worse
 * (see `DiscreteGaussian` in mechanisms/event.ts), which is why callers use this curve for scalar
 * shifts only.
 *
 * We sum the terms P(x)(1 − e^{ε − loss(x)}) over x directly, each without cancellation, and bound
 * the truncated rest by a geometric series (for y ≥ 0, P(Z = y + 1)/P(Z = y) = e^{−(2y+1)/(2σ²)}
 * falls with y) or by the Gaussian integral, whichever is smaller.
 *
 * @module
 */
import erfc from '@stdlib/math-base-special-erfc'
import { bisectPredicate, roundUpLoss } from '../core/numeric.js'
import { zcdpDelta, zcdpToEpsilon } from './zcdp/conversion.js'

const U = Number.EPSILON / 2

/**
 * Terms summed by one evaluation at most (about 9σ are needed; σ ≲ 3·10⁴); the rest is bounded,
 * never dropped, and ε(δ) falls back to the zCDP conversion when that bound is too loose.
 */
const MAX_TERMS = 2 ** 18

/**
 * log Z(σ) with Z(σ) = Σ_{x∈ℤ} e^{−x²/(2σ²)}. For σ ≥ ½ by Poisson summation,
 * Z = σ√(2π)(1 + 2Σ_{k≥1} e^{−2π²σ²k²}) (the k = 2 term is below 3e-9 relative); below ½ by the
 * direct sum (its terms fall below 1e-21 by |x| = 5).
 */
export const discreteGaussianLogNormalizer = (sigma: number): number => {
  if (sigma >= 0.5) {
    const c = 2 * Math.PI * Math.PI * sigma * sigma
    let s = 0
    for (let k = 1; k < 10; k++) {
      const term = Math.exp(-c * k * k)
      s += term
      if (term < 1e-20) break
    }
    return Math.log(sigma) + 0.5 * Math.log(2 * Math.PI) + Math.log1p(2 * s)
  }
  const c = 1 / (2 * sigma * sigma)
  let s = 0
  for (let x = 1; x < 20; x++) {
    const term = Math.exp(-c * x * x)
    s += term
    if (term < 1e-20) break
  }
  return Math.log1p(2 * s)
}

/** The discrete Gaussian's pmf at integer x, given log Z(σ) (relative error ≲ (4 + x²/σ²)·u). */
export const discreteGaussianPmf = (sigma: number, logZ: number, x: number): number =>
  Math.exp(-(x * x) / (2 * sigma * sigma) - logZ)

/**
 * Bounds on Σ_{y > m} P(Z = y) for an integer m ≥ 0. The ratio of consecutive terms beyond m is at
 * most r = e^{−(2m+1)/(2σ²)}, so the rest is at most P(Z = m)·r/(1 − r) (tight for small σ); and the
 * terms decrease, so their sum is at most ∫_m^∞ e^{−u²/(2σ²)} du / Z = σ√(2π)Φc(m/σ)/Z (tight for
 * large σ, and dearer: an erfc, so it is tried only every 4096 terms and at the end).
 */
const geometricRest = (sigma: number, pm: number, m: number): number => {
  const x = (2 * m + 1) / (2 * sigma * sigma)
  return (pm * Math.exp(-x)) / -Math.expm1(-x)
}
const integralRest = (sigma: number, logZ: number, m: number): number =>
  // erfc is accurate to a few ulps; the factor 1 + 1e-12 covers it and the other factors.
  Math.exp(Math.log(sigma) + 0.5 * Math.log(2 * Math.PI) - logZ) * 0.5 * erfc(m / (sigma * Math.SQRT2)) * (1 + 1e-12)
const restAfter = (sigma: number, logZ: number, pm: number, m: number, i: number): number => {
  const g = geometricRest(sigma, pm, m)
  return (i & 4095) === 4095 || i >= MAX_TERMS - 1 ? Math.min(g, integralRest(sigma, logZ, m)) : g
}

/**
 * Relative error bound of one pmf term that matters (exponent ≤ 745 in size: 2u per unit of the
 * exponent, plus the exp itself).
 */
const PMF_REL_ERR = 2048 * U

/**
 * P(Z > m) for an integer m ≥ 0, rounded up: the sum of the terms until the geometric bound on the
 * rest is below 1e-9 of it, plus that bound, plus the rounding of the terms and of the running sum
 * (u per partial sum).
 */
export const discreteGaussianTail = (sigma: number, logZ: number, m: number): number => {
  let sum = 0
  let partials = 0
  let rest = 0
  for (let x = m + 1, i = 0; ; x++, i++) {
    const p = discreteGaussianPmf(sigma, logZ, x)
    sum += p
    partials += sum
    rest = restAfter(sigma, logZ, p, x, i)
    if (rest <= 1e-9 * sum || p === 0 || i >= MAX_TERMS) break
  }
  return sum + rest + PMF_REL_ERR * sum + U * partials
}

/**
 * Whether δ(ε) can be summed: σ² is a finite double and the loss threshold εσ²/Δ + Δ/2 is below
 * 2^52, where a double still steps through the integers one by one.
 */
const summable = (sigma: number, sensitivity: number, epsilon: number): boolean => {
  const s2 = sigma * sigma
  return s2 > 0 && s2 < Infinity && (epsilon * s2) / sensitivity + sensitivity / 2 < 2 ** 52
}

/**
 * δ(ε) of the scalar discrete Gaussian mechanism with shift Δ (CKS Thm 7; see the module note),
 * rounded up. 0 for σ = ∞ or ε = ∞.
 */
export const discreteGaussianDelta = (sigma: number, sensitivity: number, epsilon: number): number => {
  if (sigma === Infinity || epsilon === Infinity) return 0
  const d = sensitivity
  const s2 = sigma * sigma
  // σ² underflows to 0: all but an underflowing mass sits at 0 and the shift moves it, δ = 1 (sound).
  if (s2 === 0) return 1
  // The summed form cannot run: the zCDP bound (CKS Thm 4, ρ = Δ²/(2σ²)) is the answer.
  if (!summable(sigma, d, epsilon)) return Math.min(1, zcdpDelta(discreteGaussianRho(sigma, d), epsilon))
  const threshold = (epsilon * s2) / d + d / 2
  const logZ = discreteGaussianLogNormalizer(sigma)
  const loss = (x: number): number => (d * (2 * x - d)) / (2 * s2)
  // The first x with loss(x) > ε: the threshold εσ²/Δ + Δ/2, corrected for its rounding.
  let x = Math.floor(threshold) + 1
  while (loss(x - 1) > epsilon) x--
  while (loss(x) <= epsilon) x++
  let sum = 0
  let sumP = 0
  let partials = 0
  let rest = 1
  for (let i = 0; i < MAX_TERMS; x++, i++) {
    const y = x - d
    const p = discreteGaussianPmf(sigma, logZ, y)
    sum += p * -Math.expm1(epsilon - loss(x))
    sumP += p
    partials += sum
    if (y >= 0) {
      // Every later term is at most the pmf there.
      rest = restAfter(sigma, logZ, p, y, i)
      if (rest <= 1e-17 * sum || p === 0) break
    }
  }
  // Rounding: each pmf term; the exponent ε − loss(x) (absolute error ≤ 4u·max(ε, loss), which
  // moves a term by at most that times its pmf); the running sum.
  const err = PMF_REL_ERR * sum + 8 * U * (epsilon + 1) * sumP + U * partials
  return Math.min(1, sum + rest + err)
}

/**
 * ρ = Δ²/(2σ²) of the discrete Gaussian (CKS Thm 4), as (Δ/σ)²/2 so it overflows only when it is
 * truly beyond the doubles, and never below the least positive double (an underflow to 0 would
 * claim ρ = 0, which no σ < ∞ has).
 */
const discreteGaussianRho = (sigma: number, sensitivity: number): number => {
  const m = sensitivity / sigma
  return Math.max(Number.MIN_VALUE, (m * m) / 2)
}

/** Relative width of the final bracket of `discreteGaussianEpsilon` (the upper end is reported). */
export const DISCRETE_GAUSSIAN_REL_TOL = 1e-12

/**
 * The smallest ε ≥ 0 with δ(ε) ≤ delta for the scalar discrete Gaussian mechanism: the upper end
 * of a bisection bracket on the decreasing δ(ε), so never an underestimate. The bracket's upper
 * end is the ε of the zCDP conversion for ρ = Δ²/(2σ²) (CKS Thm 4 with the conversion of
 * zcdp/conversion.ts), a theorem: when the summed δ(ε) cannot confirm it (σ beyond ~3·10⁴, where
 * the bounded rest of the sum is loose), that ε is the answer.
 */
export const discreteGaussianEpsilon = (sigma: number, sensitivity: number, delta: number): number => {
  if (sigma === Infinity || delta >= 1) return 0
  const ok = (eps: number): boolean => discreteGaussianDelta(sigma, sensitivity, eps) <= delta
  if (ok(0)) return 0
  const hi = roundUpLoss(zcdpToEpsilon(discreteGaussianRho(sigma, sensitivity), delta).epsilon)
  // Where δ(ε) falls back to the zCDP bound itself, bisecting on it cannot beat hi.
  if (!summable(sigma, sensitivity, hi) || !ok(hi)) return hi
  return bisectPredicate(ok, 0, hi, 0, DISCRETE_GAUSSIAN_REL_TOL).hi
}
