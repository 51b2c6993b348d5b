/**
 * The ratio bound (issue 23: power at small ε), and the choice between it and the rates bound of
 * bounds.ts. Kept out of the package's public surface (attacks/index.ts re-exports bounds.ts): a
 * result names its form in `bound`, and `boundFromCounts` re-derives its ε_LB from its counts.
 *
 * @module
 */
import { clopperPearsonUpper, epsilonLowerBound } from './bounds.js'

// For pure ε-DP every event S satisfies P₀(S) ≤ e^ε·P₁(S), so a lower confidence bound on the
// log ratio θ = ln(p₀/p₁) of one event, fixed before the estimation trials, bounds ε. The rates
// bound (bounds.ts) gets it from two Clopper–Pearson bounds at α/2 each, whose errors add:
// ≈ z_{α/2}·(1/√k₀ + 1/√k₁) for counts k₀, k₁ in the event. Conditioning on the total k₀ + k₁
// (Fisher's exact test; Cornfield 1956's exact interval for the odds ratio) gives one interval at
// level ≈ α with error ≈ z_α·√(1/k₀ + 1/k₁): about 0.6 times as wide for a rare event seen about
// equally often on both sides — exactly the events that separate neighbours at small ε (a sparse
// vector's answer pattern, a tail of a reported noisy value), where the ratio is near 1.

/** Which bound an audit's ε_LB comes from (chosen on selection trials, before estimation). */
export type BoundForm = 'rates' | 'ratio-in' | 'ratio-out'
export const BOUND_FORMS: ReadonlyArray<BoundForm> = ['rates', 'ratio-in', 'ratio-out']

/** What each bound form computes, for a result's `method`. */
export const BOUND_METHOD: Readonly<Record<BoundForm, string>> = {
  rates:
    'Clopper–Pearson upper bounds on FPR and FNR at α/2 each (union bound), ε_LB = max{0, ln((1−δ−FPR_hi)/FNR_hi), ln((1−δ−FNR_hi)/FPR_hi)}; attack chosen on separate selection trials',
  'ratio-in':
    'pure ε: ε_LB = lower bound on ln(TPR/FPR) of the chosen event: exact conditional (Fisher/Cornfield) bound on the odds ratio at 0.95α, turned into the ratio with a Clopper–Pearson upper bound on TPR at 0.05α (union bound); bound form and attack chosen on separate selection trials',
  'ratio-out':
    'pure ε: ε_LB = lower bound on ln(TNR/FNR) of the chosen event\'s complement: exact conditional (Fisher/Cornfield) bound on the odds ratio at 0.95α, turned into the ratio with a Clopper–Pearson upper bound on TNR at 0.05α (union bound); bound form and attack chosen on separate selection trials',
}

/** Share of α spent on the upper bound of p₀ that turns the odds ratio into the ratio (small: it only corrects). */
const P_SHARE = 1 / 20

/**
 * P[X ≥ x] for X ~ Fisher's noncentral hypergeometric(n0, n1, K; ψ) at ln ψ = lpsi: the law of k₀
 * given k₀ + k₁ = K for k₀ ~ Bin(n0, p₀), k₁ ~ Bin(n1, p₁) with odds ratio ψ. Its terms are
 * log-concave in x, so the sum walks out from the mode until a term falls below e⁻⁴⁵ of the
 * largest (the rest is smaller than the float error).
 */
const fisherUpperTail = (x: number, n0: number, n1: number, K: number, lpsi: number): number => {
  const lo = Math.max(0, K - n1)
  const hi = Math.min(n0, K)
  // log t(i+1)/t(i) = ln((n0−i)(K−i)) − ln((i+1)(n1−K+i+1)) + ln ψ, decreasing in i.
  const step = (i: number): number => Math.log((n0 - i) * (K - i)) - Math.log((i + 1) * (n1 - K + i + 1)) + lpsi
  let a = lo
  let b = hi
  while (a < b) {
    const m = Math.floor((a + b) / 2)
    if (step(m) > 0) a = m + 1
    else b = m
  }
  const mode = a
  let total = 1
  let tail = mode >= x ? 1 : 0
  let lt = 0
  for (let i = mode; i < hi; i++) {
    lt += step(i)
    if (lt < -45) break
    const t = Math.exp(lt)
    total += t
    if (i + 1 >= x) tail += t
  }
  lt = 0
  for (let i = mode - 1; i >= lo; i--) {
    lt -= step(i)
    if (lt < -45) break
    const t = Math.exp(lt)
    total += t
    if (i >= x) tail += t
  }
  return tail / total
}

/**
 * Lower (1 − a) confidence bound on ln ψ, the log odds ratio, from k0 of n0 and k1 of n1
 * (Cornfield 1956: the ψ at which P_ψ[X ≥ k0 | K] = a); −∞ when k0 is the least possible.
 */
export const logOddsRatioLower = (k0: number, n0: number, k1: number, n1: number, a: number): number => {
  const K = k0 + k1
  if (k0 <= Math.max(0, K - n1)) return -Infinity
  if (k0 >= Math.min(n0, K) && fisherUpperTail(k0, n0, n1, K, 60) < a) return 60
  let lo = -1
  let hi = 1
  while (fisherUpperTail(k0, n0, n1, K, lo) > a && lo > -60) lo *= 2
  while (fisherUpperTail(k0, n0, n1, K, hi) < a && hi < 60) hi *= 2
  for (let i = 0; i < 60 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2
    if (fisherUpperTail(k0, n0, n1, K, mid) < a) lo = mid
    else hi = mid
  }
  return lo
}

/**
 * A (1 − alpha)-confidence lower bound on θ = ln(p₀/p₁) from k0 of n0 and k1 of n1 (clamped at 0).
 * The odds ratio is ψ = e^θ·(1 − p₀e^(−θ))/(1 − p₀), so ln ψ = h(θ, p₀) with h increasing in θ and,
 * for θ > 0, in p₀: with ln ψ ≥ L_ψ (level alpha·(1 − P_SHARE)) and p₀ ≤ p₀⁺ (Clopper–Pearson at
 * alpha·P_SHARE) the θ solving h(θ, p₀⁺) = L_ψ is ≤ the true θ (union bound). For a rare event the
 * correction is tiny (≈ p₀·θ).
 */
export const logRatioLowerBound = (k0: number, n0: number, k1: number, n1: number, alpha: number): number => {
  if (n0 <= 0 || n1 <= 0) return 0
  const lpsi = logOddsRatioLower(k0, n0, k1, n1, alpha * (1 - P_SHARE))
  if (!(lpsi > 0)) return 0
  const p = clopperPearsonUpper(k0, n0, alpha * P_SHARE)
  if (!(p < 1)) return 0
  const h = (th: number): number => th + Math.log1p(-p * Math.exp(-th)) - Math.log1p(-p)
  // h(θ) ≥ θ for θ ≥ 0, so the root lies in [0, L_ψ].
  let lo = 0
  let hi = lpsi
  for (let i = 0; i < 100 && hi - lo > 1e-13; i++) {
    const mid = (lo + hi) / 2
    if (h(mid) <= lpsi) lo = mid
    else hi = mid
  }
  return lo
}

/**
 * ε_LB from an audit's counts under the bound form chosen at selection. `rates` is
 * `epsilonLowerBound`; the ratio forms (pure claims, δ = 0) bound the log ratio of one event:
 * `ratio-in` the event {score ≥ t}, input over neighbour (tp of positives over fp of negatives);
 * `ratio-out` its complement, neighbour over input (true negatives over false negatives).
 */
export const boundFromCounts = (
  form: BoundForm,
  falsePositives: number,
  negatives: number,
  falseNegatives: number,
  positives: number,
  delta: number,
  alpha: number,
): number => {
  if (form === 'rates' || delta > 0) return epsilonLowerBound(falsePositives, negatives, falseNegatives, positives, delta, alpha)
  return form === 'ratio-in'
    ? logRatioLowerBound(positives - falseNegatives, positives, falsePositives, negatives, alpha)
    : logRatioLowerBound(negatives - falsePositives, negatives, falseNegatives, positives, alpha)
}
