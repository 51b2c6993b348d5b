/**
 * OLP-LDA's Bayesian denoising (Zhao et al., arXiv:2010.04391, §VI-C, eq. 14–21, Theorems 6–7): the
 * server's estimate of the presence counts N_t of a mini-batch from its noisy counts n_t and a prior
 * μ_t carried over from the public prior corpus D0 and the earlier mini-batches. All of it reads
 * released reports and public data only (post-processing).
 *
 * - Theorem 6 (`theoremSixOmega`, `bayesEstimate`): prior N_t ~ N(μ_t, σ²); the likelihood of n_t
 *   approximated by N(fM/2 + (1 − f)N_t, σ_p²) with σ_p² = M(f/2)(1 − f/2) (eq. 16–17: X1, X2 are
 *   independent, so eq. 17's 2cov(X1, X2) is 0). Lemma 1 with a = 1 − f, b = fM/2, σ₁² = σ_p²,
 *   σ₀² = σ² gives B(n_t) = ω·μ_t + (1 − ω)·N̂_t, ω = σ_p²/(σ_p² + (1 − f)²σ²) =
 *   Mf(2 − f)/(Mf(2 − f) + 4σ²(1 − f)²) — the paper's ω. (Eq. 18's exponent divides by 4σ_p² where
 *   a Gaussian in 2X needs 8σ_p²; the typo does not reach ω, which follows Lemma 1.) Algorithm 2
 *   instead takes ω as an input ("reconstruction factor", 0.4 in §VII-D): both are offered — a
 *   fixed ω, or σ with ω recomputed from each mini-batch's M by Theorem 6.
 * - Theorem 7 (`bayesVariance`): Var(B(n_t)) = (1 − ω)²·Var(N̂_t), which holds when μ_t is a
 *   constant. In the stream μ_t is computed from earlier mini-batches, whose perturbation is
 *   independent of this one's, so the theorem holds conditionally on the past; unconditionally
 *   Var(B) = (1 − ω)²Var(N̂_t) + ω²Var(μ_t). Var(N̂_t) is read as for eq. (9) in ../lp/estimate.ts:
 *   given the corpus its first term, over corpora drawn with presence probability N_t/M the whole of
 *   eq. (9) — so Theorem 7's eq. (20) is the second reading. B is biased, E[B] = ωμ_t + (1 − ω)N_t:
 *   the variance is cut by (1 − ω)² at the price of the bias ω(μ_t − N_t), which Theorem 7 omits.
 *   test/trainers/olp-lda.test.ts checks mean and variance by simulation in both readings.
 * - Eq. (21) (`nextPrior`): μ^l_t = (μ^{l−1}_t + η^{l−1}_t)/2 · |D_l|/|D_{l−1}|, η = B(n). Algorithm 2
 *   line 13 says μ^l_t = η^{l−1}_t instead; dpaudit implements eq. (21), because a count prior must
 *   be rescaled to the batch size (line 13 would give the first mini-batch a prior at the scale of
 *   D0), and with μ⁰ = η⁰ eq. (21) gives μ¹ = N⁰_t·|D_1|/|D_0|, the prior corpus's count scaled to
 *   the batch. The order of Algorithm 2 (μ, η after training on D_l) is read as: μ^l, then η^l, then
 *   the reconstruction of D_l toward η^l (line 9 reconstructs by eq. 19, which needs η^l).
 * - μ⁰_t = η⁰_t = Σ_k N⁰_{k,t} (Algorithm 2 line 3): dpaudit trains the prior model on the
 *   word-presence documents of D0, so Σ_k N⁰_{k,t} is the number of D0's documents holding t — the
 *   same unit as N_t (`presenceCounts`). Without a prior corpus, the first mini-batch is estimated by
 *   N̂_t alone (ω = 0) and its estimate serves as its own prior (μ¹ := η¹), as μ⁰ := η⁰ for D0.
 *
 * @module
 */
import { estimateCounts, estimateVariance } from '../lp/estimate.js'

/** Theorem 6: ω = Mf(2 − f)/(Mf(2 − f) + 4σ²(1 − f)²), the weight of the prior for a batch of M reports. */
export const theoremSixOmega = (M: number, f: number, sigma: number): number => {
  const a = M * f * (2 - f)
  return a / (a + 4 * sigma * sigma * (1 - f) * (1 - f))
}

/** Eq. (19): B(n_t) = ω·μ_t + (1 − ω)·(2n_t − fM)/(2(1 − f)); without a prior (μ undefined), N̂_t. */
export const bayesEstimate = (n: ArrayLike<number>, M: number, f: number, mu: ArrayLike<number> | undefined, omega: number): Float64Array => {
  const est = estimateCounts(n, M, f)
  if (mu === undefined) return est
  for (let t = 0; t < est.length; t++) est[t] = omega * (mu[t] as number) + (1 - omega) * (est[t] as number)
  return est
}

/**
 * Theorem 7 with μ_t constant: (1 − ω)² times Var(N̂_t) — `givenCorpus` over the perturbation of a
 * fixed batch, `eq20` the paper's (1 − ω)²·eq. (9) over batches drawn with presence probability N/M.
 */
export const bayesVariance = (M: number, f: number, N: number, omega: number): { readonly givenCorpus: number; readonly eq20: number } => {
  const v = estimateVariance(M, f, N)
  const s = (1 - omega) * (1 - omega)
  return { givenCorpus: s * v.givenCorpus, eq20: s * v.eq9 }
}

/** Eq. (21): μ^l = (μ^{l−1} + η^{l−1})/2 · M_l/M_{l−1}. */
export const nextPrior = (mu: ArrayLike<number>, eta: ArrayLike<number>, M: number, previousM: number): Float64Array => {
  const out = new Float64Array(mu.length)
  const scale = M / previousM
  for (let t = 0; t < mu.length; t++) out[t] = (((mu[t] as number) + (eta[t] as number)) / 2) * scale
  return out
}
