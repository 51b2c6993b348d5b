/**
 * Exact RDP curves ε(α) of the noise leaves, noise relative to sensitivity (the output of
 * `resolveLeaf`). Convention throughout the RDP module: mechanism parameters first, the order α
 * last. Each is the worst-case Rényi divergence D_α(P‖Q) over neighbouring inputs, or a
 * sound upper bound on it where stated; all are computed as log1p(X)/(α − 1) with X ≥ 0 formed in
 * log space (see ./log-space.ts), so tiny and huge values keep full relative accuracy.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, unsupportedEvent } from '../../core/error.js'
import { log1mExp, logAddExp, logSumExp, MIN_NORMAL, roundUpLoss } from '../../core/numeric.js'
import { absurd } from '../../mechanisms/event.js'
import { halfInverseSquareUp, isSilentLeaf, type NormalizedLeaf, pureEpsilonOf, rrToUniformLosses } from '../normalize.js'
import { statedRdpAt } from '../stated.js'
import { logExpm1, logPhi, softplus } from './log-space.js'

/** Gaussian, noise multiplier m = σ/Δ₂: ε(α) = α/(2m²) (Mironov 2017, Prop. 7). */
export const gaussianRdp = (noiseMultiplier: number, alpha: number): number => {
  const v = alpha / (2 * noiseMultiplier * noiseMultiplier)
  // past m ≈ 1.3e154, 2m² overflows and v reads 0 (then floored at 4.9e-324, below the true value): α·(1/m)²/2, rounded up
  return v >= MIN_NORMAL || noiseMultiplier === Infinity ? v : alpha * halfInverseSquareUp(noiseMultiplier)
}

/**
 * Discrete Gaussian σ with integer L2 sensitivity Δ: ε(α) = αΔ²/(2σ²), as the continuous Gaussian.
 * For a scalar shift by an integer k, completing the square gives
 *   Σ_x P^α Q^{1−α} = e^{α(α−1)k²/(2σ²)} Z(αk)/Z(0),   Z(c) = Σ_{x∈ℤ} e^{−(x−c)²/(2σ²)},
 * and Z(c) ≤ Z(0) (Poisson summation: Z(c) = σ√(2π) Σ_j e^{−2π²σ²j²} cos(2πjc)), so
 * D_α ≤ αk²/(2σ²), with equality when αk is an integer (CKS 2020, Thm 4: ½(k/σ)²-zCDP). Independent
 * coordinates add, so a vector difference of L2 norm ≤ Δ has D_α ≤ αΔ²/(2σ²).
 */
export const discreteGaussianRdp = (sigma: number, sensitivity: number, alpha: number): number =>
  gaussianRdp(sigma / sensitivity, alpha)

/**
 * Laplace, b = scale/Δ₁ (Mironov 2017, Prop. 6):
 *   ε(α) = (1/(α−1)) log( α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b} ).
 * With c = α/(2α−1), d = (α−1)/(2α−1) (c + d = 1) and φ(x) = e^x − 1 − x, the argument is
 * 1 + c·φ((α−1)/b) + d·φ(−α/b): the first-order terms c(α−1)/b − dα/b cancel exactly, so X is a
 * sum of two non-negative terms. Capped by the pure 1/b (never binds; guards rounding).
 */
export const laplaceRdp = (b: number, alpha: number): number => {
  if (b === Infinity) return 0
  return Math.min(softplus(laplaceLogMomentMinus1(b, alpha)) / (alpha - 1), 1 / b)
}

/**
 * log X with X = E_Q[(P/Q)^α] − 1 = e^{(α−1)ε(α)} − 1 for the Laplace pair P = Lap(1, b),
 * Q = Lap(0, b), as a sum of two non-negative terms (see `laplaceRdp`). The subsampled Laplace
 * (./subsampled-laplace.ts) needs these moments themselves.
 */
export const laplaceLogMomentMinus1 = (b: number, alpha: number): number => {
  const logDen = Math.log(2 * alpha - 1)
  return logAddExp(
    Math.log(alpha) - logDen + logPhi((alpha - 1) / b),
    Math.log(alpha - 1) - logDen + logPhi(-alpha / b),
  )
}

/** h(x) = sinh(x)/x − 1 for x ≥ 0, by its series below 1 (no cancellation), directly above. */
const sinhcm1 = (x: number): number => {
  if (x >= 1) return Math.sinh(x) / x - 1
  const x2 = x * x
  let term = x2 / 6
  let sum = term
  for (let n = 2; n < 20 && term > 1e-18 * sum; n++) {
    term *= x2 / ((2 * n) * (2 * n + 1))
    sum += term
  }
  return sum
}

/** log h(x), without overflow: for x > 700, h(x) = e^x/(2x)·(1 − (2x + 2)e^{−x}/… ) ≈ e^x/(2x). */
const logSinhcm1 = (x: number): number => (x > 700 ? x - Math.log(2 * x) + Math.log1p(-(2 * x + 1) * Math.exp(-x)) : Math.log(sinhcm1(x)))

const U = Number.EPSILON / 2

/**
 * Discrete Laplace of scale t shifted by the integer Δ: the exact Rényi divergence of
 * P = law of Z + Δ from Q = law of Z, P(Z = x) = c·r^{|x|}, r = e^{−a}, a = 1/t, c = (1 − r)/(1 + r).
 * Derived here by summing the geometric series (checked against direct summation over the integers
 * in test/accounting/discrete.test.ts). With s = e^{(2α−1)a},
 *   Σ_x P^α Q^{1−α} = c Σ_x r^{α|x−Δ| + (1−α)|x|}
 *     = c [ r^{αΔ}/(1 − r)  (x ≤ 0)  +  r^{(1−α)Δ}/(1 − r)  (x ≥ Δ)  +  r^{αΔ} Σ_{x=1}^{Δ−1} s^x ]
 *     = w₁ e^{(α−1)aΔ} + w₂ e^{−αaΔ},
 *   w₁ = (s − e^{−a}) / ((s − 1)(1 + e^{−a})),   w₂ = (e^{2(α−1)a} − 1) / ((s − 1)(1 + e^{−a})),
 * and w₁ + w₂ = 1 (Δ = 0 gives 1). As for the continuous Laplace, with φ(x) = e^x − 1 − x,
 *   X = Σ P^α Q^{1−α} − 1 = w₁ φ((α−1)aΔ) + w₂ φ(−αaΔ) + aΔ·λ,   λ = (α−1)w₁ − αw₂,
 * and λ = 2e^{(α−1)a} α(α−1)a [h(αa) − h((α−1)a)] / ((1 + e^{−a})(s − 1)) with h(x) = sinh(x)/x − 1
 * increasing on [0, ∞) — so λ ≥ 0 and X is a sum of three non-negative terms. λ is rounded up by
 * the cancellation in h(αa) − h((α−1)a) (a relative 16u·h(αa)/(h(αa) − h((α−1)a))).
 *
 * Δ = 1 is binary randomized response with ε = a (the outcomes x ≤ 0 and x ≥ 1 are sufficient).
 * Vector queries: log(w₁e^{(α−1)aΔ} + w₂e^{−αaΔ}) is convex in Δ and 0 at Δ = 0, so f(Δ) = D_α
 * has f(k)/k non-decreasing; a difference with coordinates k_i, Σk_i ≤ Δ, has Rényi divergence
 * Σ f(k_i) (independent coordinates) ≤ Σ k_i f(Δ)/Δ ≤ f(Δ). Capped by the pure bound (never binds;
 * guards rounding).
 */
export const discreteLaplaceRdp = (scale: number, sensitivity: number, alpha: number): number => {
  if (scale === Infinity) return 0
  const a = 1 / scale
  const eps = sensitivity * a
  if (sensitivity === 1) return randomizedResponseRdp(a, 2, alpha)
  const logDen = logExpm1((2 * alpha - 1) * a) + Math.log1p(Math.exp(-a))
  const logW1 = -a + logExpm1(2 * alpha * a) - logDen
  const logW2 = logExpm1(2 * (alpha - 1) * a) - logDen
  const hHi = logSinhcm1(alpha * a)
  const hLo = logSinhcm1((alpha - 1) * a)
  const ratio = Math.exp(hLo - hHi)
  if (!(ratio < 1)) return pureDpRdp(eps, alpha) // h(αa) = h((α−1)a) in floating point: keep the sound cap
  const logLambda =
    (alpha - 1) * a + Math.log(2 * alpha * (alpha - 1) * a) + hHi + Math.log1p(-ratio) - logDen + Math.log1p((16 * U) / (1 - ratio))
  const logX = logSumExp([logW1 + logPhi((alpha - 1) * eps), logW2 + logPhi(-alpha * eps), logLambda + Math.log(eps)])
  return Math.min(softplus(logX) / (alpha - 1), pureDpRdp(eps, alpha))
}

/**
 * k-ary randomized response with parameter ε: the true value is reported with probability
 * p = e^ε/(e^ε + k − 1), each other value with r = 1/(e^ε + k − 1). Every pair of inputs is
 * neighbouring and all pairs are alike by symmetry, so the curve is the divergence between the
 * row of value i and the row of value j (derived here; checked against the explicit sum in
 * scripts/fixtures/rdp_closed_forms.py):
 *   Σ_x P^α Q^{1−α} = p^α r^{1−α} + r^α p^{1−α} + (k − 2)r = (e^{αε} + e^{(1−α)ε} + k − 2)/(e^ε + k − 1),
 * and subtracting 1 = (e^ε + k − 1)/(e^ε + k − 1) factorises:
 *   X = (e^{(α−1)ε} − 1)(1 − e^{−αε}) e^ε / (e^ε + k − 1)   (all factors ≥ 0).
 * For k = 2 this is binary randomized response.
 */
export const randomizedResponseRdp = (epsilon: number, k: number, alpha: number): number => {
  if (epsilon === 0) return 0
  if (epsilon === Infinity) return Infinity
  return rrRdpWith(epsilon, rrLogNormaliser(epsilon, k), alpha)
}

/** log(e^ε + k − 1), the α-free normaliser of `randomizedResponseRdp` (a curve computes it once). */
const rrLogNormaliser = (epsilon: number, k: number): number => logAddExp(epsilon, Math.log(k - 1))

/**
 * `randomizedResponseRdp` for 0 < ε < ∞ given its normaliser. Where x = (α − 1)ε > 40 the logs of
 * e^x − 1 and of 1 − e^{−αε} are x and 0 to the bit (they differ from them by less than 4.3e-18,
 * below half an ulp of x ≥ 40), and log(1 + e^y) = y to the bit for y > 37 (e^{−37} < 8.6e-17, half
 * an ulp of 37 is 3.6e-15): those exps and logs are skipped, the same bits (most orders of a
 * curve's grid are there: α > 21 at ε = 2).
 */
const rrRdpWith = (epsilon: number, logNorm: number, alpha: number): number => {
  const x = (alpha - 1) * epsilon
  const logX = x > 40 ? x + epsilon - logNorm : logExpm1(x) + log1mExp(-alpha * epsilon) + epsilon - logNorm
  return Math.min((logX > 37 ? logX : softplus(logX)) / (alpha - 1), epsilon)
}

/**
 * k-ary randomized response against its uniform output on ⊥ (replace-special; ../normalize.ts):
 * P = RR(v) with masses a = e^ε/Z once and b = 1/Z (k − 1 times), U = 1/k each, so
 *   D_α(P‖U) = [(α − 1) ln k + ln(a^α + (k − 1) b^α)]/(α − 1),
 *   D_α(U‖P) = [−α ln k + ln(a^{1−α} + (k − 1) b^{1−α})]/(α − 1)
 * (the definition, Mironov 2017, Def. 3, on a k-point space); the larger of the two orders, capped
 * by the pure ε of the pair (D_α ≤ D_∞). dp_accounting's replace-special RR curve is this pair.
 */
export const rrToUniformRdp = (epsilon: number, k: number, alpha: number): number => {
  if (epsilon === 0) return 0
  const [up, down] = rrToUniformLosses(epsilon, k)
  const pure = pureEpsilonOf({ _tag: 'RandomizedResponseToUniform', epsilon, k }) as number
  if (!Number.isFinite(pure)) return Infinity
  const logA = up - Math.log(k) // ln a
  const logB = down - Math.log(k) // ln b
  const lk1 = Math.log(k - 1)
  const forward = ((alpha - 1) * Math.log(k) + logAddExp(alpha * logA, lk1 + alpha * logB)) / (alpha - 1)
  const backward = (-alpha * Math.log(k) + logAddExp((1 - alpha) * logA, lk1 + (1 - alpha) * logB)) / (alpha - 1)
  return Math.min(pure, Math.max(0, roundUpLoss(Math.max(forward, backward))))
}

/**
 * Any ε-DP mechanism: every ε-DP pair of distributions is a post-processing of binary randomized
 * response with parameter ε (Kairouz, Oh & Viswanath 2015, §2: the (ε, 0) privacy region is binary
 * RR's), so by data processing its curve is at most binary RR's, whose divergence is Mironov 2017,
 * Prop. 5 with p = e^ε/(1 + e^ε). The min with ε (D_α ≤ D_∞) and with αε²/2 (Bun & Steinke 2016,
 * Prop. 3.3) never binds mathematically; it guards rounding.
 */
export const pureDpRdp = (epsilon: number, alpha: number): number => pureDpCap(randomizedResponseRdp(epsilon, 2, alpha), epsilon, alpha)

/** `pureDpRdp` from binary RR's value `rr` at the same ε and α. */
const pureDpCap = (rr: number, epsilon: number, alpha: number): number => Math.min(rr, epsilon, (alpha * epsilon * epsilon) / 2)

/**
 * Bitwise randomized response: independent flips with probability f on each bit, neighbours
 * differ in at most `bits` bits. Rényi divergence is additive over independent coordinates, and
 * each differing bit is binary RR with ε_bit = |ln((1 − f)/f)| (f and 1 − f give the same pair).
 */
export const bitwiseRandomizedResponseRdp = (flipProbability: number, bits: number, alpha: number): number => {
  if (bits === 0) return 0
  const epsBit = Math.abs(Math.log1p(-flipProbability) - Math.log(flipProbability))
  return bits * randomizedResponseRdp(epsBit, 2, alpha)
}

/**
 * Exponential mechanism with parameter ε: ε-DP and ε-bounded-range, and ε-bounded-range implies
 * ε²/8-zCDP (Cesar & Rogers 2021, "Bounding, concentrating, and truncating"):
 * ε(α) ≤ min(pure-DP curve(ε), αε²/8).
 */
export const exponentialRdp = (epsilon: number, alpha: number): number => exponentialCap(pureDpRdp(epsilon, alpha), epsilon, alpha)

/** `exponentialRdp` from the pure-DP value `pure` at the same ε and α. */
const exponentialCap = (pure: number, epsilon: number, alpha: number): number => Math.min(pure, (alpha * epsilon * epsilon) / 8)

/**
 * A mixture of Gaussians, N(0, 1) against Σ w_i N(μ_i, 1), in both orders: ∫P^α Q^{1−α} is jointly
 * convex in (P, Q) for α > 1 (the perspective of t ↦ t^α), so writing N(0, 1) as Σ w_i N(0, 1) on the
 * other side, e^{(α−1)D_α} ≤ Σ w_i e^{(α−1)αμ_i²/2} either way (the Gaussian's ∫ is symmetric in the
 * order), and D_α ≤ log(Σ w_i e^{α(α−1)μ_i²/2})/(α − 1) — at most the largest shift's Gaussian curve
 * αμ_max²/2, and equal to it for one shift. An upper bound, not the exact divergence (the remove
 * direction of {0, μ} is the sampled Gaussian's, which mechanisms/degenerate.ts routes to its exact
 * curve).
 */
export const mixtureRdp = (shifts: ReadonlyArray<number>, weights: ReadonlyArray<number>, alpha: number): number => {
  const terms = shifts.map((m, i) => Math.log(weights[i] as number) + (alpha * (alpha - 1) * m * m) / 2)
  const max = shifts.reduce((a, m) => Math.max(a, m), 0)
  return Math.max(0, Math.min(logSumExp(terms) / (alpha - 1), (alpha * max * max) / 2))
}

/** (ξ, ρ)-zCDP is by definition D_α ≤ ξ + αρ for all α > 1 (Bun & Steinke 2016, Def. 1.1); ξ = 0 is ρ-zCDP. */
export const zcdpRdp = (rho: number, alpha: number, xi = 0): number => xi + alpha * rho

/**
 * Relative margin added by `leafRdp`: the closed forms above agree with 60-digit mpmath to within
 * 3e-15 relative either way (test/accounting/rdp/closed-forms.test.ts); the margin makes the value
 * the accountant uses an upper bound.
 */
export const CLOSED_FORM_MARGIN = 1e-13

/**
 * RDP of a normalized leaf at one order, rounded up by CLOSED_FORM_MARGIN, or undefined when RDP
 * cannot express it: an (ε, δ) guarantee with δ > 0 bounds no Rényi divergence of any order.
 */
export const leafRdp = (leaf: NormalizedLeaf, alpha: number): number | undefined => {
  const v = leafRdpExact(leaf, alpha)
  return v === undefined ? undefined : roundedUp(leaf, v)
}

/**
 * A leaf's exact value `v` rounded up by CLOSED_FORM_MARGIN. A leaf that reveals anything has
 * D_α > 0; a value that underflowed to 0 (αε²/2 for ε ≲ 1e-162) is reported as the least positive
 * double, else the conversion would answer ε = 0 (issue 30).
 */
const roundedUp = (leaf: NormalizedLeaf, v: number): number =>
  v === 0 && !isSilentLeaf(leaf) ? Number.MIN_VALUE : roundUpLoss(v, CLOSED_FORM_MARGIN)

const leafRdpExact = (leaf: NormalizedLeaf, alpha: number): number | undefined => {
  switch (leaf._tag) {
    case 'Gaussian':
      return gaussianRdp(leaf.noiseMultiplier, alpha)
    case 'Laplace':
      return laplaceRdp(leaf.noiseMultiplier, alpha)
    case 'DiscreteLaplace':
      return discreteLaplaceRdp(leaf.scale, leaf.sensitivity, alpha)
    case 'DiscreteGaussian':
      return discreteGaussianRdp(leaf.sigma, leaf.sensitivity, alpha)
    case 'RandomizedResponse':
      return randomizedResponseRdp(leaf.epsilon, leaf.k, alpha)
    case 'RandomizedResponseToUniform':
      return rrToUniformRdp(leaf.epsilon, leaf.k, alpha)
    case 'BitwiseRandomizedResponse':
      return bitwiseRandomizedResponseRdp(leaf.flipProbability, leaf.bits, alpha)
    case 'Exponential':
      return exponentialRdp(leaf.epsilon, alpha)
    case 'PureDP':
      return pureDpRdp(leaf.epsilon, alpha)
    case 'ApproxDP':
      return leaf.delta === 0 ? pureDpRdp(leaf.epsilon, alpha) : undefined
    case 'ZCDP':
      return zcdpRdp(leaf.rho, alpha, leaf.xi)
    case 'MixtureOfGaussians':
      return mixtureRdp(leaf.shifts, leaf.weights, alpha)
    case 'StatedRdp':
      // Upward only: monotone and convex in α between stated orders, ∞ above them (./../stated.ts).
      return statedRdpAt(leaf.curve, alpha).value
    case 'StatedProfile': {
      // A profile bounds a Rényi divergence only through a pure point (δ_i = 0).
      const pure = pureEpsilonOf(leaf)
      return pure === undefined ? undefined : pureDpRdp(pure, alpha)
    }
    default:
      return absurd(leaf)
  }
}

/** The pure ε of a leaf, ∞ when it has none (Gaussian, zCDP). */
export const leafPureEpsilon = (leaf: NormalizedLeaf): number => pureEpsilonOf(leaf) ?? Infinity

/** A leaf's curve on `orders`; an approximate-DP leaf is refused with its path. */
export const leafCurve = (
  leaf: NormalizedLeaf,
  orders: ReadonlyArray<number>,
  path: string,
): E.Either<DpError, Float64Array> => {
  if (leaf._tag === 'StatedProfile' && pureEpsilonOf(leaf) === undefined)
    return E.left(
      unsupportedEvent(
        path,
        'rdp',
        'StatedProfile',
        'a privacy profile without a point at δ = 0 bounds no Rényi divergence; use the basic/advanced/optimal accountant',
      ),
    )
  if (leaf._tag === 'ApproxDP' && leaf.delta > 0)
    return E.left(
      unsupportedEvent(
        path,
        'rdp',
        'ApproxDP',
        `an (ε, δ) guarantee with δ = ${leaf.delta} > 0 bounds no Rényi divergence; state the mechanism itself, or use an (ε, δ) accountant`,
      ),
    )
  const out = new Float64Array(orders.length)
  const rr = rrBased(leaf)
  if (rr !== undefined && rr.epsilon > 0 && rr.epsilon < Infinity) {
    // `leafRdp` with RR's normaliser computed once for the curve (the same bits: ~1,100 orders where
    // a general subsampling bound reads every integer up to 1024).
    const logNorm = rrLogNormaliser(rr.epsilon, rr.k)
    for (let i = 0; i < orders.length; i++) {
      const a = orders[i] as number
      out[i] = roundedUp(leaf, rr.cap(rrRdpWith(rr.epsilon, logNorm, a), a))
    }
    return E.right(out)
  }
  for (let i = 0; i < orders.length; i++) out[i] = leafRdp(leaf, orders[i] as number) as number
  return E.right(out)
}

/**
 * A leaf whose curve is k-ary RR's at one ε followed by a cap at each order, as `leafRdpExact`
 * computes it: RR itself, pure ε-DP and (ε, 0)-DP (binary RR, `pureDpRdp`), the exponential
 * mechanism (`exponentialRdp`). undefined for any other leaf.
 */
const rrBased = (
  leaf: NormalizedLeaf,
): { readonly epsilon: number; readonly k: number; readonly cap: (rr: number, alpha: number) => number } | undefined => {
  switch (leaf._tag) {
    case 'RandomizedResponse':
      return { epsilon: leaf.epsilon, k: leaf.k, cap: (v) => v }
    case 'PureDP':
      return { epsilon: leaf.epsilon, k: 2, cap: (v, a) => pureDpCap(v, leaf.epsilon, a) }
    case 'ApproxDP':
      return leaf.delta === 0 ? { epsilon: leaf.epsilon, k: 2, cap: (v, a) => pureDpCap(v, leaf.epsilon, a) } : undefined
    case 'Exponential':
      return { epsilon: leaf.epsilon, k: 2, cap: (v, a) => exponentialCap(pureDpCap(v, leaf.epsilon, a), leaf.epsilon, a) }
    default:
      return undefined
  }
}
