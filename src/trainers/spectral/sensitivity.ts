/**
 * Sensitivities of the quantities on the spectral-LDA paper's graph (arXiv:1805.10341, Figure 1), under
 * replace-one document with N public, each as a function of the data-dependent quantities it needs, and
 * each with its status: 'proved' (derived here, in the comment next to it) or 'paper' (the paper's
 * local-sensitivity theorem, implemented as stated and NOT verified — the privacy statement says which
 * edges rest on one).
 *
 * Proved (L2, which is what the Gaussian mechanism needs; the paper bounds L1, which also bounds
 * L2 but is looser):
 * - Δ2 = √2(1 + 2a)/N for M̂2 (Theorem 4, App. H.1 re-derived). Replacing document N changes
 *   (1/N)M̃2ᴺ and, in the U-statistic, (a/N)[(M̃1ᴺ − M̃1ᴺ′)⊗p̄ + p̄⊗(M̃1ᴺ − M̃1ᴺ′)] with p̄ the mean of
 *   the other M̃1ⁿ. M̃2, M̃1, p̄ are probability arrays (non-negative, sum 1), so ‖A‖_F ≤ 1 and the
 *   difference of two is ≤ √2 in Frobenius norm (‖A − B‖² = ‖A‖² + ‖B‖² − 2⟨A, B⟩ ≤ 2); the
 *   outer products keep the norm (‖x⊗p̄‖_F = ‖x‖‖p̄‖ ≤ ‖x‖). The paper's Theorem 4 prints 2/N;
 *   its own appendix gets (2 + 4a)/N in L1.
 * - Δ3 = √2(1 + 6|b| + 3c)/N for M̂3 (Theorem 4, App. H.2 re-derived): √2/N from M̃3ᴺ, 2√2|b|/N
 *   from each of B1, B2, B3 (App. H.2 counts B1 only; B2 and B3 move as much), 3√2c/N from b̃
 *   (document N in each of the three places of the distinct-index sum).
 * - σ_k(M̂2) and σ_1(M̂2) move by at most ‖M̂2 − M̂2′‖₂ ≤ ‖·‖_F ≤ Δ2 (Weyl; Lemma 9 says 2/N).
 *   dpaudit's statistic is the k-th Ritz value of the range finder, which is ≤ σ_k by Cauchy
 *   interlacing, but its own sensitivity is that of σ_k only when the range finder has converged:
 *   an assumption the statement lists.
 * - ‖M̂3‖_F ≤ 1 + 3|b| + c (each term a probability tensor times its coefficient), hence
 *   σ_1(T̂) ≤ ‖M̂3‖_F·‖W‖³ = (1 + 3|b| + c)/σ_k^{3/2}: used for Theorem 7's σ_1(T̂).
 *
 * Paper (local sensitivities, App. H.3–H.5, as stated, with Δ2 and Δ3 above plugged in):
 * - Δ_T (eq. 64) = ‖M̂3‖·(2k)^{3/2}Δ2³/(σ_k·√s)³ + Δ3·k^{3/2}/s^{3/2}, s = σ_k − Δ2 (the Weyl step of
 *   eq. 58, which needs no σ_{k+1}; the paper then writes ½(σ_k + σ_{k+1}) under its gap condition).
 *   dpaudit finds the derivation wrong: eq. (60) expands M̂3(W,W,W) − M̂3(W′,W′,W′) as
 *   M̂3(W − W′, W − W′, W − W′), dropping the first-order terms M̂3(W − W′, W, W) etc.; and W is
 *   defined only up to a k×k rotation (eigenvector signs), so T̂ as computed has no bounded
 *   sensitivity without a canonical choice.
 * - Δ_μ̄ = Δ_ᾱ = 2√k·Δ_T/γ_s (Theorem 6, App. H.4, from [23]'s perturbation bound; it needs
 *   Δ_T ≤ γ_s·ε/(2√k), unchecked), with the same rotation/sign and ordering problem.
 * - Δ_μ (Theorem 7, App. H.5) = C[σ1(T̂)√σ1(M̂2)·2√kΔ_T/γ_s + σ1(T̂)√σ1(M̂2)Δ2/σ_k + √(σ1(M̂2) + Δ2)·2√kΔ_T/γ_s],
 *   C = (α0 + 2)/(2√(α0(α0 + 1))); plus the topic order, which the formula ignores.
 * - γ_s = min_i (λ_i − λ_{i+1})/4 over the tensor eigenvalues (λ_{k+1} = 0) has sensitivity 2/N by
 *   Lemma 9, whose proof bounds T̂'s perturbation by 1; T̂ moves by Δ_T, not by ≤ 1.
 *
 * @module
 */
import { momentCoefficients } from './moments.js'

export type SensitivityStatus = 'proved' | 'paper'

/** Data-dependent quantities a sensitivity may need; in a private run, their released bounds. */
export interface DataQuantities {
  readonly documents: number
  readonly topics: number
  readonly alpha0: number
  /** Lower bound of σ_k(M̂2). */
  readonly sigmaK?: number
  /** Upper bound of σ_1(M̂2). */
  readonly sigma1?: number
  /** Lower bound of γ_s. */
  readonly gammaS?: number
}

export type QuantityName = 'sigmaK' | 'sigma1' | 'gammaS'

export const QUANTITY_TEXT: Readonly<Record<QuantityName, string>> = {
  sigmaK: 'σ_k(M̂2)',
  sigma1: 'σ_1(M̂2)',
  gammaS: 'γ_s of T̂',
}

/** Δ2: L2 sensitivity of M̂2 (proved). */
export const secondMomentSensitivity = (N: number, alpha0: number): number => (Math.SQRT2 * (1 + 2 * momentCoefficients(alpha0).a)) / N

/** Δ3: L2 sensitivity of M̂3 (proved). */
export const thirdMomentSensitivity = (N: number, alpha0: number): number => {
  const { b, c } = momentCoefficients(alpha0)
  return (Math.SQRT2 * (1 + 6 * Math.abs(b) + 3 * c)) / N
}

/** ‖M̂3‖_F ≤ 1 + 3|b| + c (proved). */
export const thirdMomentNormBound = (alpha0: number): number => {
  const { b, c } = momentCoefficients(alpha0)
  return 1 + 3 * Math.abs(b) + c
}

/** Sensitivity of σ_k(M̂2) and σ_1(M̂2): Δ2 by Weyl (proved; Lemma 9 prints 2/N). */
export const eigenvalueSensitivity = secondMomentSensitivity

/** Sensitivity of γ_s as Lemma 9 states it: 2/N (paper; its proof does not hold, module comment). */
export const gammaSensitivityAsStated = (N: number): number => 2 / N

const need = (q: DataQuantities, name: QuantityName): number => {
  const x = q[name]
  return x === undefined ? Number.NaN : x
}

/**
 * Eq. (64) of the spectral-LDA paper (App. H.3) for given moment sensitivities:
 * ‖M̂3‖(2k)^{3/2}Δ2³/(σ_k√s)³ + Δ3·k^{3/2}/s^{3/2}, s = σ_k − Δ2; ∞ when σ_k ≤ Δ2. The bound is
 * NOT a sensitivity of T̂ as computed: a counterexample (src/report/claims/spectral-counterexample.ts)
 * moves T̂ by O(1) at any N while this is O(1/N) — it depends on σ_k only, not on the gaps between
 * the top k eigenvalues that fix W's basis.
 */
export const equation64 = (k: number, sigmaK: number, delta2: number, delta3: number, m3Norm: number): number => {
  const s = sigmaK - delta2
  if (!(s > 0)) return Number.POSITIVE_INFINITY
  return (m3Norm * ((2 * k) ** 1.5 * delta2 ** 3)) / (sigmaK * Math.sqrt(s)) ** 3 + (delta3 * k ** 1.5) / s ** 1.5
}

/** Δ_T (paper eq. 64 with dpaudit's proved Δ2, Δ3 and ‖M̂3‖_F bound); ∞ when σ_k ≤ Δ2 (the bound does not apply). */
export const whitenedTensorSensitivity = (q: DataQuantities): number =>
  equation64(q.topics, need(q, 'sigmaK'), secondMomentSensitivity(q.documents, q.alpha0), thirdMomentSensitivity(q.documents, q.alpha0), thirdMomentNormBound(q.alpha0))

/**
 * The noise scales §6.2–6.4 print, read as sensitivities (the O(·) rates of Theorems 5–7 with
 * constant 1, the reading the paper's Gaussian noise takes): the standard deviation divided by τ.
 * - e6, §6.2: N(0, k³/(N²σ̃_k³)·τ) → k^{3/2}/(N σ_k^{3/2}) (Theorem 5's O(k^{1.5}/(N σ_k^{1.5})));
 * - e7, §6.3: N(0, k⁴/(N²γ̃_s²σ̃_k³)·τ) on each μ̄_i, ᾱ_i → k²/(N γ_s σ_k^{3/2}) (Theorem 6);
 * - e9, §6.4: N(0, k⁴σ1(M̂2)/(N²γ̃_s²σ̃_k³)·τ) on μ_i, α_i → k²√σ1/(N γ_s σ_k^{3/2}) (Theorem 7).
 * The printed variances carry τ, not τ², like §6.1's (the reading of spectral.config1 takes the
 * standard deviation as rate × τ). Each is the paper's per-coordinate scale for the whole release
 * (no √(2k) or √k for the joint vector): exactly what the text prints, for comparison only.
 */
export const printedRateSensitivity = (id: 'e6' | 'e7' | 'e9', q: DataQuantities): number => {
  const sk = need(q, 'sigmaK')
  if (!(sk > 0)) return Number.POSITIVE_INFINITY
  const k = q.topics
  const N = q.documents
  if (id === 'e6') return k ** 1.5 / (N * sk ** 1.5)
  const g = need(q, 'gammaS')
  if (!(g > 0)) return Number.POSITIVE_INFINITY
  const base = k ** 2 / (N * g * sk ** 1.5)
  if (id === 'e7') return base
  const s1 = need(q, 'sigma1')
  return s1 > 0 ? base * Math.sqrt(s1) : Number.POSITIVE_INFINITY
}

/** Δ_μ̄ = Δ_ᾱ = 2√k·Δ_T/γ_s (paper Theorem 6). */
export const decompositionSensitivity = (q: DataQuantities): number => {
  const g = need(q, 'gammaS')
  if (!(g > 0)) return Number.POSITIVE_INFINITY
  return (2 * Math.sqrt(q.topics) * whitenedTensorSensitivity(q)) / g
}

/**
 * The released vector of e7 is every (ᾱ_i, μ̄_i), i = 1…k: Theorem 6 bounds each ‖μ̄_i − μ̄_i′‖ and
 * each |ᾱ_i − ᾱ_i′| by Δ_μ̄, so the joint L2 sensitivity is √(2k)·Δ_μ̄ (the paper calibrates each
 * with Δ_μ̄ alone, under-counting by √(2k)).
 */
export const decompositionReleaseSensitivity = (q: DataQuantities): number => Math.sqrt(2 * q.topics) * decompositionSensitivity(q)

/** The released μ of e9 is all k topics: √k·Δ_μ (Theorem 7 is per topic; α is not released, φ needs only μ). */
export const outputReleaseSensitivity = (q: DataQuantities): number => Math.sqrt(q.topics) * outputSensitivity(q)

/** Δ_μ (paper Theorem 7, App. H.5) with σ_1(T̂) ≤ (1 + 3|b| + c)/σ_k^{3/2}. */
export const outputSensitivity = (q: DataQuantities): number => {
  const sk = need(q, 'sigmaK')
  const s1 = need(q, 'sigma1')
  if (!(sk > 0) || !(s1 > 0)) return Number.POSITIVE_INFINITY
  const C = (q.alpha0 + 2) / (2 * Math.sqrt(q.alpha0 * (q.alpha0 + 1)))
  const d2 = secondMomentSensitivity(q.documents, q.alpha0)
  const sigmaT = thirdMomentNormBound(q.alpha0) / sk ** 1.5
  const dec = decompositionSensitivity(q)
  return C * (sigmaT * Math.sqrt(s1) * dec + (sigmaT * Math.sqrt(s1) * d2) / sk + Math.sqrt(s1 + d2) * dec)
}
