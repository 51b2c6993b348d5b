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
import { log1mExp, logAddExp, roundUpLoss } from '../../core/numeric.js'
import { type NormalizedLeaf, pureEpsilonOf } from '../normalize.js'
import { logExpm1, logPhi, softplus } from './log-space.js'

/** Gaussian, noise multiplier m = σ/Δ₂: ε(α) = α/(2m²) (Mironov 2017, Prop. 7). */
export const gaussianRdp = (noiseMultiplier: number, alpha: number): number =>
  alpha / (2 * noiseMultiplier * noiseMultiplier)

/**
 * Laplace, b = scale/Δ₁ (Mironov 2017, Prop. 6):
 *   ε(α) = (1/(α−1)) log( α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b} ).
 * With c = α/(2α−1), d = (α−1)/(2α−1) (c + d = 1) and φ(x) = e^x − 1 − x, the argument is
 * 1 + c·φ((α−1)/b) + d·φ(−α/b): the first-order terms c(α−1)/b − dα/b cancel exactly, so X is a
 * sum of two non-negative terms. Capped by the pure 1/b (never binds; guards rounding).
 */
export const laplaceRdp = (b: number, alpha: number): number => {
  if (b === Infinity) return 0
  const logDen = Math.log(2 * alpha - 1)
  const logX = logAddExp(
    Math.log(alpha) - logDen + logPhi((alpha - 1) / b),
    Math.log(alpha - 1) - logDen + logPhi(-alpha / b),
  )
  return Math.min(softplus(logX) / (alpha - 1), 1 / b)
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
  const logX =
    logExpm1((alpha - 1) * epsilon) + log1mExp(-alpha * epsilon) + epsilon - logAddExp(epsilon, Math.log(k - 1))
  return Math.min(softplus(logX) / (alpha - 1), epsilon)
}

/**
 * Any ε-DP mechanism: every ε-DP pair of distributions is a post-processing of binary randomized
 * response with parameter ε (Kairouz, Oh & Viswanath 2015, §2: the (ε, 0) privacy region is binary
 * RR's), so by data processing its curve is at most binary RR's, whose divergence is Mironov 2017,
 * Prop. 5 with p = e^ε/(1 + e^ε). The min with ε (D_α ≤ D_∞) and with αε²/2 (Bun & Steinke 2016,
 * Prop. 3.3) never binds mathematically; it guards rounding.
 */
export const pureDpRdp = (epsilon: number, alpha: number): number =>
  Math.min(randomizedResponseRdp(epsilon, 2, alpha), epsilon, (alpha * epsilon * epsilon) / 2)

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
export const exponentialRdp = (epsilon: number, alpha: number): number =>
  Math.min(pureDpRdp(epsilon, alpha), (alpha * epsilon * epsilon) / 8)

/** ρ-zCDP is by definition D_α ≤ αρ for all α > 1 (Bun & Steinke 2016, Def. 1.1). */
export const zcdpRdp = (rho: number, alpha: number): number => alpha * rho

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
  return v === undefined ? undefined : roundUpLoss(v, CLOSED_FORM_MARGIN)
}

const leafRdpExact = (leaf: NormalizedLeaf, alpha: number): number | undefined => {
  switch (leaf._tag) {
    case 'Gaussian':
      return gaussianRdp(leaf.noiseMultiplier, alpha)
    case 'Laplace':
      return laplaceRdp(leaf.noiseMultiplier, alpha)
    case 'RandomizedResponse':
      return randomizedResponseRdp(leaf.epsilon, leaf.k, alpha)
    case 'BitwiseRandomizedResponse':
      return bitwiseRandomizedResponseRdp(leaf.flipProbability, leaf.bits, alpha)
    case 'Exponential':
      return exponentialRdp(leaf.epsilon, alpha)
    case 'PureDP':
      return pureDpRdp(leaf.epsilon, alpha)
    case 'ApproxDP':
      return leaf.delta === 0 ? pureDpRdp(leaf.epsilon, alpha) : undefined
    case 'ZCDP':
      return zcdpRdp(leaf.rho, alpha)
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
  for (let i = 0; i < orders.length; i++) out[i] = leafRdp(leaf, orders[i] as number) as number
  return E.right(out)
}
