/**
 * Privacy amplification by subsampling for (ε, δ) guarantees. If M is (ε, δ)-DP, running it on a
 * random subsample is (log(1 + γ(e^ε − 1)), γδ)-DP, where
 * - Poisson sampling with rate γ = q, under add/remove neighbours: Balle, Barthe & Gaboardi 2018,
 *   Thm 8 (also Li, Qardaji & Su 2012, Thm 1). Each direction needs only the inner guarantee in the
 *   same direction, so it holds under remove-only and add-only too: removing x, P = (1 − q)μ₀ + qμ₁
 *   against Q = μ₀ with μ₁(S) ≤ e^ε μ₀(S) + δ gives (log(1 + q(e^ε − 1)), qδ); adding x, P = μ₀
 *   against Q = (1 − q)μ₀ + qμ₁ with μ₀(S) ≤ e^ε μ₁(S) + δ gives ε′ = −log(1 − q + qe^{−ε}), never
 *   above log(1 + q(e^ε − 1)) (their product (1 − q + qe^ε)(1 − q + qe^{−ε}) ≥ 1), and
 *   δ′ = qe^{−ε}δ/(1 − q + qe^{−ε}) ≤ qδ. Under replace-special (⊥ the zero record) the pairs are the
 *   add/remove ones;
 * - sampling m of n without replacement, γ = m/n, under replace-one (substitution) neighbours:
 *   Balle, Barthe & Gaboardi 2018, Thm 9.
 * The theorem amplifies one (ε, δ) guarantee of the whole inner mechanism; a composed inner
 * mechanism must first be composed to a single (ε, δ) (see ./query.ts).
 *
 * @module
 */
import { MIN_NORMAL, roundUpSubnormal } from '../../core/numeric.js'
import { logExpm1, softplus } from '../rdp/log-space.js'

/** One (ε, δ) guarantee. */
export interface Guarantee {
  readonly epsilon: number
  readonly delta: number
}

/**
 * log(1 + γ(e^ε − 1)) for γ ∈ [0, 1], ε ∈ [0, ∞], to a few ulps everywhere:
 * - log1p(γ·expm1(ε)) while γ·expm1(ε) is a normal double (no cancellation: both factors and the
 *   log1p keep full relative precision, also for small γ and large ε, where the older
 *   ε + log(γ + (1 − γ)e^{−ε}) cancelled to 1e-11 relative — an understatement at q = 1e-6, issue 30);
 * - otherwise (e^ε overflows, or the product underflows) softplus(log γ + log(e^ε − 1)), in log space;
 * - never 0 for γ, ε > 0: the true value is positive, so an underflow reports the least positive
 *   double (the sound side).
 * Clamped at ε: subsampling never hurts, and rounding must not make it look so.
 */
export const amplifiedEpsilon = (rate: number, epsilon: number): number => {
  if (!(rate >= 0 && rate <= 1) || !(epsilon >= 0)) return Number.NaN
  if (rate === 0 || epsilon === 0) return 0
  if (epsilon === Infinity) return Infinity
  const x = rate * Math.expm1(epsilon)
  const amp = x >= MIN_NORMAL && x < Infinity ? Math.log1p(x) : softplus(Math.log(rate) + logExpm1(epsilon))
  return Math.min(epsilon, Math.max(Number.MIN_VALUE, amp))
}


/** Amplification by a sampling rate γ (see the module note for which γ and which relation). */
export const amplify = (rate: number, g: Guarantee): Guarantee => ({
  epsilon: amplifiedEpsilon(rate, g.epsilon),
  delta: amplifiedDelta(rate, g.delta),
})

/**
 * γδ, never 0 for γ, δ > 0 (q = 1e-300 of δ = 1e-300 underflowed to 0 and made the sampled step pure
 * ε-DP: a finite ε at δ = 0 where the truth is ∞), rounded up below the normal doubles; at most δ.
 */
export const amplifiedDelta = (rate: number, delta: number): number => {
  const d = rate * delta
  return Math.min(delta, rate > 0 && delta > 0 ? roundUpSubnormal(d) : d)
}

/** Poisson subsampling with rate q under add/remove (Balle, Barthe & Gaboardi 2018, Thm 8). */
export const amplifyPoisson = (q: number, g: Guarantee): Guarantee => amplify(q, g)

/** m of n without replacement under replace-one (Balle, Barthe & Gaboardi 2018, Thm 9). */
export const amplifyWithoutReplacement = (m: number, n: number, g: Guarantee): Guarantee => amplify(m / n, g)
