/**
 * The exact (ε, δ) curve of the Gaussian mechanism — Balle & Wang 2018, "Improving the Gaussian
 * mechanism for differential privacy", Thm 8. With noise multiplier m = σ/Δ₂:
 *
 *   δ(ε) = Φ(1/(2m) − εm) − e^ε Φ(−1/(2m) − εm).
 *
 * This is the privacy profile of the pair N(0, m²), N(1, m²) (equivalently N(0,1), N(1/m,1)), so it
 * is tight: no smaller δ holds at that ε.
 *
 * Soundness oracle. k-fold adaptive composition of Gaussian(m) is exactly Gaussian(m/√k), and
 * heterogeneous Gaussians compose to m = (Σ 1/m_i²)^(−1/2): the composed dominating pair is
 * N(0, I) vs N(μ, I) with ‖μ‖² = Σ 1/m_i², a one-dimensional Gaussian shift after rotation
 * (Dong, Roth & Su 2019/2022, "Gaussian differential privacy", Cor. 3.3: μ-GDP composes to
 * √(Σμ_i²)-GDP, and Gaussian(m) is exactly (1/m)-GDP). Every accountant must therefore report, for
 * k Gaussians, an ε no smaller than `analyticGaussianEpsilon(composedNoiseMultiplier(m, k), δ)`.
 *
 * The numeric kernels return plain numbers (NaN only for arguments outside their domain); the
 * `…E` wrappers check arguments and return Either for public boundaries.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import erfcx from '@stdlib/math-base-special-erfcx'
import normalLogCdf from '@stdlib/stats-base-dists-normal-logcdf'
import { type DpError, invalidParameter, numericFailure } from '../core/error.js'
import { bisectPredicate, logSubExp } from '../core/numeric.js'

const SQRT1_2 = Math.SQRT1_2
const LN_HALF = -Math.LN2

/** Relative width of the final bisection brackets (the reported end is the conservative one). */
export const ANALYTIC_GAUSSIAN_REL_TOL = 1e-12

const logPhi = (x: number): number => normalLogCdf(x, 0, 1)

/**
 * log δ(ε) of the Gaussian mechanism with noise multiplier m (Balle & Wang 2018, Thm 8), without
 * cancellation or overflow. NaN outside m > 0, ε ≥ 0.
 *
 * Write a = 1/(2m) − εm and b = a − 1/m. Because b² − a² = 2ε, the second term has the same
 * Gaussian factor as the first: e^ε Φ(b) = ½ erfcx(−b/√2) e^{−a²/2} when b < 0. Hence for ε > 1/(2m²)
 * (a < 0, both tails)
 *   δ = ½ e^{−a²/2} [erfcx(−a/√2) − erfcx(−b/√2)],
 * a difference of two O(1)-scaled numbers with no exponential cancellation and no overflow even
 * when δ underflows (ε = 50, m = 100 gives log δ ≈ −1.25·10⁷). When the signal 1/m is small the
 * two erfcx are close (their arguments differ by 1/(m√2)) and their difference lost a relative
 * ~1e-16·m — at m = 10⁸ an ε understated by 2e-8 relative (issue 30) — so for 1/m < 1 it is the
 * integral of −erfcx′(t) = 2/√π − 2t·erfcx(t) over [−a/√2, −a/√2 + 1/(m√2)] by Gauss–Legendre, which
 * keeps full relative precision.
 * For ε ≤ 1/(2m²) (a ≥ 0) δ ≥ δ(1/(2m²)) is not small and exp(log Φ(a)) − exp(ε + log Φ(b)) is
 * computed directly (absolute error ~1e-16); for 1/m < 1 that subtraction would cancel to a relative
 * ~1e-16·m, so δ = ∫_b^a φ − (e^ε − 1)Φ(b) instead, the integral by Gauss–Legendre on [b, a].
 */
export const analyticGaussianLogDelta = (noiseMultiplier: number, epsilon: number): number => {
  const m = noiseMultiplier
  if (!(m > 0) || !(epsilon >= 0)) return Number.NaN
  if (m === Infinity || epsilon === Infinity) return -Infinity
  const a = 1 / (2 * m) - epsilon * m
  const b = a - 1 / m
  const smallSignal = 1 / m < 1
  if (a < 0) {
    const u = -a * SQRT1_2
    const v = -b * SQRT1_2
    const diff = smallSignal ? gaussLegendre(erfcxSlope, u, SQRT1_2 / m) : erfcx(u) - erfcx(v)
    // erfcx is decreasing, so diff > 0; it rounds to 0 only when δ < exp(−10¹⁶) or so: reporting 0
    // changes no representable answer.
    if (!(diff > 0)) return -Infinity
    return -(a * a) / 2 + LN_HALF + Math.log(diff)
  }
  if (smallSignal) {
    // δ = [Φ(a) − Φ(b)] − (e^ε − 1)Φ(b): the first term ≈ φ(0)/m, the second ≤ ε ≤ 1/(2m²), no cancellation.
    const logFirst = Math.log(gaussLegendre(normalDensity, b, 1 / m))
    const logSecond = epsilon === 0 ? -Infinity : Math.log(Math.expm1(epsilon)) + logPhi(b)
    if (logSecond < logFirst) return logSubExp(logFirst, logSecond)
  }
  // a ≥ 0 > b: δ ≥ δ(1/(2m²)) = ½ − e^{1/(2m²)}Φ(−1/m), about 0.4/m for large m and ½ for small m,
  // so subtract directly, the second term in log space (e^ε alone may overflow when m is small).
  const logFirst = logPhi(a)
  const logSecond = epsilon + logPhi(b)
  if (logSecond < logFirst) return logSubExp(logFirst, logSecond)
  // Should the difference be lost to rounding: fall back to the upper bound
  // δ(ε) ≤ δ(0) = erf(1/(2√2 m)) ≤ 1/(m√(2π)) (erf is concave on [0, ∞)), never an understatement.
  return -Math.log(m) - 0.5 * Math.log(2 * Math.PI)
}

const INV_SQRT_PI = 1 / Math.sqrt(Math.PI)
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI)

/** φ(t), the standard normal density. */
const normalDensity = (t: number): number => INV_SQRT_2PI * Math.exp(-(t * t) / 2)

/**
 * −erfcx′(t) = 2/√π − 2t·erfcx(t) > 0 for t ≥ 0 (erfcx′ = 2t·erfcx − 2/√π). The subtraction loses
 * a relative ~1e-16·2t², so beyond t = 30 the asymptotic series (2/√π)Σ_{n≥1} (−1)^{n+1}(2n−1)!!/(2t²)ⁿ
 * is used (from erfcx(t) ~ (1/(t√π))Σ (−1)ⁿ(2n−1)!!/(2t²)ⁿ; its terms shrink by (2n+1)/(2t²) ≤ 1/40).
 */
const erfcxSlope = (t: number): number => {
  if (t < 30) return 2 * INV_SQRT_PI - 2 * t * erfcx(t)
  const x = 1 / (2 * t * t)
  let term = x
  let sum = x
  for (let n = 2; n <= 12; n++) {
    term *= -(2 * n - 1) * x
    sum += term
  }
  return 2 * INV_SQRT_PI * sum
}

/** 16-point Gauss–Legendre nodes and weights on [−1, 1] (Newton’s method on the Legendre polynomial P₁₆, to rounding). */
const GL_NODES: ReadonlyArray<readonly [number, number]> = (() => {
  const n = 16
  const out: Array<readonly [number, number]> = []
  for (let i = 1; i <= n; i++) {
    let x = Math.cos((Math.PI * (i - 0.25)) / (n + 0.5))
    let dp = 0
    for (let it = 0; it < 100; it++) {
      let p0 = 1
      let p1 = x
      for (let k = 2; k <= n; k++) {
        const p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        p0 = p1
        p1 = p2
      }
      dp = (n * (x * p1 - p0)) / (x * x - 1)
      const dx = p1 / dp
      x -= dx
      if (Math.abs(dx) < 1e-16) break
    }
    out.push([x, 2 / ((1 - x * x) * dp * dp)])
  }
  return out
})()

/**
 * ∫_lo^{lo+width} f by 16-point Gauss–Legendre: exact to rounding for the smooth integrands here over
 * an interval of width < 1 (where it is used), far narrower than their scale of variation. The
 * width is passed, not recomputed as hi − lo: at m = 10⁸ that difference of two numbers near 20
 * would keep only 7 of its digits.
 */
const gaussLegendre = (f: (t: number) => number, lo: number, width: number): number => {
  const h = width / 2
  const c = lo + h
  let s = 0
  for (const [x, w] of GL_NODES) s += w * f(c + h * x)
  return s * h
}

/** δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm 8); 0 when it underflows. */
export const analyticGaussianDelta = (noiseMultiplier: number, epsilon: number): number =>
  // m = 0 (σ/Δ underflowed, or μ = Δ/σ overflowed): no noise, δ = 1 at every finite ε.
  noiseMultiplier === 0 && epsilon >= 0 ? (epsilon === Infinity ? 0 : 1) : Math.exp(analyticGaussianLogDelta(noiseMultiplier, epsilon))

/**
 * Smallest ε ≥ 0 with δ(ε) ≤ delta, by bisection on the decreasing δ(ε); reports the upper end
 * of the final bracket (relative width ANALYTIC_GAUSSIAN_REL_TOL), so never an underestimate.
 * NaN outside m > 0, δ ∈ (0, 1]. Infinity only if no finite bracket could be found (sound).
 */
export const analyticGaussianEpsilon = (noiseMultiplier: number, delta: number): number => {
  const m = noiseMultiplier
  // m = 0 (σ/Δ underflowed, or μ = Δ/σ overflowed): no noise, no finite ε below δ = 1.
  if (m === 0 && delta > 0 && delta < 1) return Infinity
  if (!(m > 0) || !(delta > 0 && delta <= 1)) return Number.NaN
  const logTarget = Math.log(delta)
  const ok = (eps: number): boolean => analyticGaussianLogDelta(m, eps) <= logTarget
  if (ok(0)) return 0
  // Upper bracket from the zCDP bound ρ + 2√(ρ log(1/δ)) with ρ = 1/(2m²) (Bun & Steinke 2016,
  // Props 1.3 and 1.6) — a theorem, so δ(hi) ≤ δ; doubled defensively if rounding disagrees.
  const rho = 1 / (2 * m * m)
  let hi = rho + 2 * Math.sqrt(rho * -logTarget)
  if (!(hi > 0) || !Number.isFinite(hi)) hi = 1
  for (let i = 0; i < 2100 && !ok(hi); i++) hi *= 2
  if (!ok(hi)) return Infinity
  return bisectPredicate(ok, 0, hi, 0, ANALYTIC_GAUSSIAN_REL_TOL).hi
}

/**
 * Smallest noise multiplier m = σ/Δ₂ with δ_m(ε) ≤ delta (δ_m(ε) decreases in m); reports the
 * upper end of the bracket (more noise: the conservative side). NaN outside ε ∈ [0, ∞),
 * δ ∈ (0, 1).
 */
export const analyticGaussianNoiseMultiplier = (epsilon: number, delta: number): number => {
  if (!(epsilon >= 0) || epsilon === Infinity || !(delta > 0 && delta < 1)) return Number.NaN
  const logTarget = Math.log(delta)
  const ok = (m: number): boolean => analyticGaussianLogDelta(m, epsilon) <= logTarget
  // Starting guess: the zCDP calibration √ρ = ε/(√(L+ε) + √L), m = 1/√(2ρ) (sufficient by Prop 1.3),
  // or for ε = 0 the small-signal δ(0) ≈ 1/(m√(2π)).
  const L = -logTarget
  let hi = epsilon > 0 ? (Math.sqrt(L + epsilon) + Math.sqrt(L)) / (Math.SQRT2 * epsilon) : 1 / (delta * 2.5) + 1
  for (let i = 0; i < 2100 && !ok(hi); i++) hi *= 2
  if (!ok(hi)) return Number.NaN
  let lo = hi / 2
  for (let i = 0; i < 2100 && ok(lo); i++) lo /= 2
  if (ok(lo)) return lo // every representable m works (cannot happen for δ < 1)
  return bisectPredicate(ok, lo, hi, 0, ANALYTIC_GAUSSIAN_REL_TOL).hi
}

/**
 * Noise multiplier of the k-fold composition of Gaussian(m): exactly m/√k (see the module note).
 * k = 0 releases nothing: m = ∞.
 */
export const composedNoiseMultiplier = (noiseMultiplier: number, count: number): number =>
  count === 0 ? Infinity : noiseMultiplier / Math.sqrt(count)

/** Noise multiplier of the composition of Gaussians with the given multipliers: (Σ 1/m_i²)^(−1/2). */
export const composeNoiseMultipliers = (noiseMultipliers: ReadonlyArray<number>): number => {
  let s = 0
  for (const m of noiseMultipliers) s += 1 / (m * m)
  return s === 0 ? Infinity : 1 / Math.sqrt(s)
}

// -------------------------------------------------------------------------------------------
// checked wrappers
// -------------------------------------------------------------------------------------------

const checkMultiplier = (path: string, m: number): E.Either<DpError, number> =>
  m > 0 ? E.right(m) : E.left(invalidParameter(path, m, 'the noise multiplier σ/Δ must be positive'))

const checkEpsilon = (path: string, eps: number): E.Either<DpError, number> =>
  eps >= 0 ? E.right(eps) : E.left(invalidParameter(path, eps, 'ε must be ≥ 0'))

const checkDelta = (path: string, d: number): E.Either<DpError, number> =>
  d > 0 && d < 1 ? E.right(d) : E.left(invalidParameter(path, d, 'δ must be in (0, 1)'))

const finiteOrFail = (path: string, what: string, x: number): E.Either<DpError, number> =>
  Number.isNaN(x) ? E.left(numericFailure(path, `${what}: no bracket found`)) : E.right(x)

/** δ(ε) of Gaussian(m), with argument checks; `path` prefixes the field names in errors. */
export const analyticGaussianDeltaE = (noiseMultiplier: number, epsilon: number, path = '$'): E.Either<DpError, number> => {
  const m = checkMultiplier(`${path}.noiseMultiplier`, noiseMultiplier)
  if (E.isLeft(m)) return m
  const e = checkEpsilon(`${path}.epsilon`, epsilon)
  if (E.isLeft(e)) return e
  return E.right(analyticGaussianDelta(noiseMultiplier, epsilon))
}

/** ε(δ) of Gaussian(m), with argument checks. */
export const analyticGaussianEpsilonE = (noiseMultiplier: number, delta: number, path = '$'): E.Either<DpError, number> => {
  const m = checkMultiplier(`${path}.noiseMultiplier`, noiseMultiplier)
  if (E.isLeft(m)) return m
  const d = checkDelta(`${path}.delta`, delta)
  if (E.isLeft(d)) return d
  return finiteOrFail(path, 'analytic Gaussian ε', analyticGaussianEpsilon(noiseMultiplier, delta))
}

/** Smallest σ/Δ meeting (ε, δ), with argument checks (ε must be finite). */
export const analyticGaussianNoiseMultiplierE = (epsilon: number, delta: number, path = '$'): E.Either<DpError, number> => {
  const e = checkEpsilon(`${path}.epsilon`, epsilon)
  if (E.isLeft(e)) return e
  if (epsilon === Infinity) return E.left(invalidParameter(`${path}.epsilon`, epsilon, 'ε must be finite to calibrate noise'))
  const d = checkDelta(`${path}.delta`, delta)
  if (E.isLeft(d)) return d
  return finiteOrFail(path, 'analytic Gaussian calibration', analyticGaussianNoiseMultiplier(epsilon, delta))
}
