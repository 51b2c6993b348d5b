/**
 * Composition theorems for (ε, δ)-DP over a multiset of per-step guarantees: basic composition,
 * advanced composition (Dwork, Rothblum & Vadhan 2010), the heterogeneous bound of Kairouz, Oh &
 * Viswanath 2015 (Thm 3.5), and their exact optimal homogeneous composition (KOV15 Thm 3.3;
 * Murtagh & Vadhan 2016). All are adaptive-composition theorems. Steps carry a multiplicity, so
 * 10,000 repetitions of one guarantee cost one entry.
 *
 * @module
 */
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import { log1mExp, logAddExp } from '../../core/numeric.js'
import { coversCommittedDelta } from '../committed-delta.js'
import { illinoisBracket } from './root.js'

/** `count` adaptive repetitions of an (ε, δ)-DP step. */
export interface StepGuarantee {
  readonly epsilon: number
  readonly delta: number
  readonly count: number
}

/** Relative width of the final brackets of the searches below; the conservative end is reported. */
export const COMPOSITION_REL_TOL = 1e-12

/** Largest k for which the exact KOV sum is evaluated (its cost grows like √k). */
export const KOV_MAX_STEPS = 1e7

/** Total number of steps. */
export const stepCount = (steps: ReadonlyArray<StepGuarantee>): number => steps.reduce((s, g) => s + g.count, 0)

/**
 * Basic composition (Dwork & Roth 2014, Thm 3.16): k adaptive (ε_i, δ_i) steps are
 * (Σ ε_i, Σ δ_i)-DP.
 */
export const basicComposition = (steps: ReadonlyArray<StepGuarantee>): { readonly epsilon: number; readonly delta: number } => {
  let eps = 0
  let delta = 0
  for (const g of steps) {
    if (g.count === 0) continue
    eps += g.count * g.epsilon
    delta += g.count * g.delta
  }
  return { epsilon: eps, delta: Math.min(1, delta) }
}

/**
 * Sums for advanced composition: A = Σ ε_i (e^{ε_i} − 1) (the expected privacy loss bound of
 * Dwork & Roth 2014, Lemma 3.18, written with expm1 so small ε keep their digits) and
 * B = Σ ε_i². Each sum has one term per distinct step, so thousands of steps cost nothing.
 */
const drvSums = (steps: ReadonlyArray<StepGuarantee>): { readonly a: number; readonly b: number } => {
  let a = 0
  let b = 0
  for (const g of steps) {
    if (g.count === 0 || g.epsilon === 0) continue
    a += g.count * g.epsilon * Math.expm1(g.epsilon)
    b += g.count * square(g.epsilon)
  }
  return { a, b }
}

/**
 * ε² of a step with ε > 0, never 0: ε² underflows for ε ≲ 1e-162, and a sum of squares of 0 reads
 * as "no step leaks anything" (ε = 0, δ′ = 0) — an understatement (issue 30). The least positive
 * double is reported instead, the sound side.
 */
const square = (epsilon: number): number => (epsilon > 0 ? Math.max(epsilon * epsilon, Number.MIN_VALUE) : 0)

/**
 * Advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3; Dwork & Roth 2014, Thm 3.20),
 * heterogeneous form: for any δ′ ∈ (0, 1], k adaptive (ε_i, δ_i) steps are (ε′, Σ δ_i + δ′)-DP with
 *   ε′ = Σ ε_i (e^{ε_i} − 1) + √(2 log(1/δ′) Σ ε_i²).
 * The proof is DR's with per-step bounds: step i's privacy loss lies in [−ε_i, ε_i] with mean at
 * most ε_i(e^{ε_i} − 1) (DR Lemma 3.18), and Azuma–Hoeffding over ranges of width 2ε_i gives the
 * tail exp(−t²/(2Σ ε_i²)). (KOV 2015 Thm 3.5 tightens the mean term; see below.)
 * Returns ε′ (∞ for δ′ ≤ 0). The caller adds Σ δ_i + δ′.
 */
export const advancedCompositionEpsilon = (steps: ReadonlyArray<StepGuarantee>, deltaPrime: number): number => {
  if (!(deltaPrime > 0)) return Infinity
  const { a, b } = drvSums(steps)
  if (b === 0) return 0
  return a + Math.sqrt(2 * -Math.log(Math.min(1, deltaPrime)) * b)
}

/** The δ′ that advanced composition needs to reach ε′ (∞-free inverse of the above; 1 if none). */
export const advancedCompositionDeltaPrime = (steps: ReadonlyArray<StepGuarantee>, epsilon: number): number => {
  const { a, b } = drvSums(steps)
  if (b === 0) return 0
  if (!(epsilon > a)) return 1
  const t = epsilon - a
  return Math.min(1, Math.exp(-(t * t) / (2 * b)))
}

/**
 * Kairouz, Oh & Viswanath 2015, Thm 3.5 (heterogeneous steps): for δ̃ ∈ (0, 1], the composition is
 * (ε̃, 1 − (1 − δ̃) Π (1 − δ_i))-DP with ε̃ the minimum of
 *   Σ ε_i,
 *   Σ ε_i tanh(ε_i/2) + √(2 Σ ε_i² · log(e + √(Σ ε_i²)/δ̃)),
 *   Σ ε_i tanh(ε_i/2) + √(2 Σ ε_i² · log(1/δ̃)),
 * where ε tanh(ε/2) = ε(e^ε − 1)/(e^ε + 1) is their (tighter) expected-loss term.
 */
export const kovHeterogeneousEpsilon = (steps: ReadonlyArray<StepGuarantee>, deltaTilde: number): number => {
  let s1 = 0
  let s2 = 0
  let s3 = 0
  for (const g of steps) {
    if (g.count === 0 || g.epsilon === 0) continue
    s1 += g.count * g.epsilon
    s2 += g.count * g.epsilon * Math.tanh(g.epsilon / 2)
    s3 += g.count * square(g.epsilon)
  }
  if (s3 === 0) return 0
  if (!(deltaTilde > 0)) return s1
  const d = Math.min(1, deltaTilde)
  const e2 = s2 + Math.sqrt(2 * s3 * Math.log(Math.E + Math.sqrt(s3) / d))
  const e3 = s2 + Math.sqrt(2 * s3 * -Math.log(d))
  return Math.min(s1, e2, e3)
}

/**
 * Inverse of `kovHeterogeneousEpsilon`: the smallest δ̃ at which Thm 3.5 gives ε̃ ≤ ε (0 when
 * Σ ε_i ≤ ε; 1 when no δ̃ < 1 works). From the third form δ̃ = exp(−(ε − S₂)²/(2S₃)); from the
 * second, log(e + √S₃/δ̃) ≤ (ε − S₂)²/(2S₃) gives δ̃ = √S₃/(exp((ε − S₂)²/(2S₃)) − e).
 */
export const kovHeterogeneousDeltaTilde = (steps: ReadonlyArray<StepGuarantee>, epsilon: number): number => {
  let s1 = 0
  let s2 = 0
  let s3 = 0
  for (const g of steps) {
    if (g.count === 0 || g.epsilon === 0) continue
    s1 += g.count * g.epsilon
    s2 += g.count * g.epsilon * Math.tanh(g.epsilon / 2)
    s3 += g.count * square(g.epsilon)
  }
  if (s1 <= epsilon) return 0
  if (!(epsilon > s2)) return 1
  const q = ((epsilon - s2) * (epsilon - s2)) / (2 * s3)
  const third = Math.exp(-q)
  const eq = Math.exp(q)
  const second = eq > Math.E ? Math.sqrt(s3) / (eq - Math.E) : 1
  return Math.max(Number.MIN_VALUE, Math.min(1, third, second)) // true δ̃ > 0 here, even if it underflows
}

/**
 * log δ_pure(ε_g) for k-fold composition of ε₀-DP: the hockey-stick divergence E_{e^{ε_g}} of
 * the k-fold product of binary randomized response with parameter ε₀ (KOV15 Thm 3.3; Murtagh &
 * Vadhan 2016, Thm 1.5, for arbitrary ε_g):
 *   δ_pure(ε_g) = Σ_{l : (k−2l)ε₀ > ε_g} C(k, l) (e^{(k−l)ε₀} − e^{ε_g + lε₀}) / (1 + e^{ε₀})^k.
 * In log space the l-th term is
 *   log C(k,l) − lε₀ − k·log(1 + e^{−ε₀}) + log(1 − e^{ε_g − (k−2l)ε₀}),
 * a Binomial(k, 1/(1 + e^{ε₀})) log-pmf plus a concave factor, so it is concave in l: we find its
 * maximum by ternary search, sum outward until the terms fall e^{−60} below it, and add a bound
 * on each dropped tail (count × last dropped term, valid because the terms decrease monotonically
 * away from the maximum) — the result never understates δ_pure. Cost O(√k).
 */
export const kovLogDeltaPure = (epsilon0: number, k: number, epsilonG: number): number => {
  if (!(epsilon0 >= 0) || !Number.isInteger(k) || k < 0 || !(epsilonG >= 0)) return Number.NaN
  if (k === 0 || epsilon0 === 0) return -Infinity // δ_pure = 0: ε₀ = 0 steps are identical
  if (epsilon0 === Infinity) return epsilonG === Infinity ? -Infinity : 0
  // Largest l with (k − 2l)ε₀ > ε_g: estimate, clamp to [−1, ⌊k/2⌋] (l < k/2 since ε_g ≥ 0),
  // then correct the estimate's rounding by single steps.
  let top = Math.min(Math.floor(k / 2), Math.max(-1, Math.floor((k - epsilonG / epsilon0) / 2)))
  while (top >= 0 && !((k - 2 * top) * epsilon0 > epsilonG)) top--
  while ((k - 2 * (top + 1)) * epsilon0 > epsilonG) top++
  if (top < 0) return -Infinity
  const c = k * Math.log1p(Math.exp(-epsilon0))
  const term = (l: number): number =>
    binomcoefln(k, l) - l * epsilon0 - c + log1mExp(Math.min(0, epsilonG - (k - 2 * l) * epsilon0))
  // Ternary search for the maximiser of the concave sequence term(0..top).
  let lo = 0
  let hi = top
  while (hi - lo > 2) {
    const m1 = lo + Math.floor((hi - lo) / 3)
    const m2 = hi - Math.floor((hi - lo) / 3)
    if (term(m1) < term(m2)) lo = m1 + 1
    else hi = m2 - 1
  }
  let best = lo
  for (let l = lo + 1; l <= hi; l++) if (term(l) > term(best)) best = l
  const peak = term(best)
  if (peak === -Infinity) return -Infinity
  const cutoff = peak - 60
  let acc = -Infinity
  for (let l = best; l >= 0; l--) {
    const t = term(l)
    if (t < cutoff) {
      acc = logAddExp(acc, Math.log(l + 1) + t) // terms 0..l, each ≤ term(l)
      break
    }
    acc = logAddExp(acc, t)
  }
  for (let l = best + 1; l <= top; l++) {
    const t = term(l)
    if (t < cutoff) {
      acc = logAddExp(acc, Math.log(top - l + 1) + t) // terms l..top, each ≤ term(l)
      break
    }
    acc = logAddExp(acc, t)
  }
  return Math.min(0, acc)
}

/**
 * Exact optimal δ of k adaptive (ε₀, δ₀)-DP steps at ε_g (KOV15 Thm 3.3; Murtagh & Vadhan 2016):
 *   δ = 1 − (1 − δ₀)^k (1 − δ_pure(ε_g)).
 * Computed as −expm1(k·log1p(−δ₀) + log1p(−δ_pure)) so tiny δ₀ and δ_pure keep their digits.
 */
export const kovDelta = (epsilon0: number, delta0: number, k: number, epsilonG: number): number => {
  if (!(delta0 >= 0 && delta0 <= 1)) return Number.NaN
  if (k === 0) return 0
  const lp = kovLogDeltaPure(epsilon0, k, epsilonG)
  if (Number.isNaN(lp)) return Number.NaN
  return Math.min(1, -Math.expm1(k * Math.log1p(-delta0) + Math.log1p(-Math.exp(lp))))
}

/**
 * Smallest ε_g with kovDelta(ε₀, δ₀, k, ε_g) ≤ δ, by a bracketing search on [0, kε₀] (δ_pure
 * decreases in ε_g and vanishes at kε₀); the upper, satisfied end of the bracket is reported.
 * ∞ when even ε_g = kε₀ cannot meet δ, i.e. 1 − (1 − δ₀)^k > δ.
 */
export const kovEpsilon = (epsilon0: number, delta0: number, k: number, delta: number): number => {
  if (!(epsilon0 >= 0) || !(delta0 >= 0 && delta0 <= 1) || !Number.isInteger(k) || k < 0 || !(delta >= 0)) return Number.NaN
  if (k === 0 || delta >= 1) return 0
  // δ_pure(ε_g) must be ≤ t = 1 − (1 − δ)/(1 − δ₀)^k, i.e. log t = log1mExp(x) with x below.
  // The per-step δ₀ alone exceed δ: no ε_g. Decided with rigorous rounding (./committed-delta.ts),
  // so a δ exactly on the boundary 1 − (1 − δ₀)^k is answered kε₀, not ∞ (issue 26).
  if (!coversCommittedDelta([{ delta: delta0, count: k }], delta)) return Infinity
  const x = Math.log1p(-delta) - k * Math.log1p(-delta0)
  if (x >= 0) return k * epsilon0 // on the boundary (up to rounding): δ_pure must vanish, only at ε_g = kε₀
  const logT = log1mExp(x)
  if (epsilon0 === 0) return 0
  if (epsilon0 === Infinity) return Infinity
  const gap = (eg: number): number => kovLogDeltaPure(epsilon0, k, eg) - logT
  if (gap(0) <= 0) return 0
  return illinoisBracket(gap, 0, k * epsilon0, 0, COMPOSITION_REL_TOL).hi
}
