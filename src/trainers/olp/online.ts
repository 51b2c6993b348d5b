/**
 * O-LDA (Zhao et al., arXiv:2010.04391, §VI-B, eq. 10–13): LDA trained mini-batch by mini-batch, each
 * batch's topic-word prior carrying the previous batches' counts: β^l = β^{l−1} + λ·N^{l−1} (eq. 10),
 * so β^l = β·1_{K×V} + λ·Σ_{i<l} N^i (eq. 11, with the prior corpus D0 as batch 0 when there is one:
 * Algorithm 2 line 10 adds N⁰ before the first batch). Batch l is sampled by collapsed Gibbs with
 * p(z = k) ∝ (n_kt + β^l_kt)/Σ_t(n_kt + β^l_kt) · (n_km + α) (eq. 12; the document factor's
 * normaliser does not depend on k) and φ^l = (n^l_kt + β^l_kt)/Σ_t(n^l_kt + β^l_kt) (eq. 13).
 * λ ∈ [0, 1]: eq. (10)'s correlation factor (λ = 0 trains every batch afresh). N^{l−1} is read as
 * the topic-word counts of the last sweep on batch l − 1.
 *
 * The sampler is dense (O(K) per token): β^l is a full K×V matrix, so SparseLDA's split into a
 * smoothing bucket and sparse count buckets does not apply, and OLP-LDA's batches (word-presence
 * documents of a few hundred reports) are small. Tokens are visited in reading order.
 *
 * @module
 */
import type { Corpus } from '../corpus/corpus.js'
import type { FastUniform } from '../lda/random.js'
import { type GibbsState, initState } from '../lda/state.js'

/** β^l, word-major (V×K, entry t·K + k = β^l_{k,t}), and its per-topic sums Σ_t β^l_{k,t}. */
export interface TopicWordPrior {
  readonly K: number
  readonly V: number
  readonly beta: Float64Array
  readonly sum: Float64Array
}

/** β¹ = β·1_{K×V} (eq. 11 before any batch). */
export const flatPrior = (K: number, V: number, beta: number): TopicWordPrior => ({ K, V, beta: new Float64Array(K * V).fill(beta), sum: new Float64Array(K).fill(V * beta) })

/** Eq. (10): β^l = β^{l−1} + λ·N^{l−1}, N^{l−1} the word-major counts n_wk of batch l − 1. A new prior. */
export const updatePrior = (p: TopicWordPrior, nwk: ArrayLike<number>, lambda: number): TopicWordPrior => {
  const beta = p.beta.slice()
  const sum = p.sum.slice()
  for (let i = 0; i < beta.length; i++) {
    const add = lambda * (nwk[i] as number)
    beta[i] = (beta[i] as number) + add
    sum[i % p.K] = (sum[i % p.K] as number) + add
  }
  return { K: p.K, V: p.V, beta, sum }
}

/** One collapsed Gibbs sweep of eq. (12) over `s` (reading order), prior β^l. */
export const sweepWithPrior = (s: GibbsState, p: TopicWordPrior, alpha: number, u: FastUniform): void => {
  const { K, D, tokens, docStart, z, ndk, nwk, nk } = s
  const { beta, sum } = p
  const weights = new Float64Array(K)
  for (let d = 0; d < D; d++)
    for (let i = docStart[d] as number; i < (docStart[d + 1] as number); i++) {
      const w = tokens[i] as number
      const old = z[i] as number
      const wk = w * K
      const dk = d * K
      nwk[wk + old] = (nwk[wk + old] as number) - 1
      ndk[dk + old] = (ndk[dk + old] as number) - 1
      nk[old] = (nk[old] as number) - 1
      let total = 0
      for (let k = 0; k < K; k++) {
        total += (((nwk[wk + k] as number) + (beta[wk + k] as number)) / ((nk[k] as number) + (sum[k] as number))) * ((ndk[dk + k] as number) + alpha)
        weights[k] = total
      }
      const x = u.next() * total
      let k = 0
      while (k < K - 1 && (weights[k] as number) <= x) k++
      z[i] = k
      nwk[wk + k] = (nwk[wk + k] as number) + 1
      ndk[dk + k] = (ndk[dk + k] as number) + 1
      nk[k] = (nk[k] as number) + 1
    }
}

/** Eq. (13): φ_kt = (n_kt + β_kt)/Σ_t(n_kt + β_kt), K×V row-major. */
export const phiWithPrior = (nwk: ArrayLike<number>, p: TopicWordPrior): Float64Array => {
  const { K, V, beta } = p
  const phi = new Float64Array(K * V)
  const tot = new Float64Array(K)
  for (let t = 0; t < V; t++) for (let k = 0; k < K; k++) tot[k] = (tot[k] as number) + (nwk[t * K + k] as number) + (beta[t * K + k] as number)
  for (let k = 0; k < K; k++) for (let t = 0; t < V; t++) phi[k * V + t] = ((nwk[t * K + k] as number) + (beta[t * K + k] as number)) / (tot[k] as number)
  return phi
}

/** Σ_k N_{k,t} per word: with word-presence documents, the number of documents holding t (Algorithm 2 line 3). */
export const wordTotals = (nwk: ArrayLike<number>, K: number, V: number): Float64Array => {
  const out = new Float64Array(V)
  for (let t = 0; t < V; t++) for (let k = 0; k < K; k++) out[t] = (out[t] as number) + (nwk[t * K + k] as number)
  return out
}

/** Each document as its set of words, one token per distinct word, ascending (the unit randomized response perturbs). */
export const presenceDocuments = (c: Corpus): Corpus => {
  const D = c.docStart.length - 1
  const seen = new Int32Array(c.vocab.length).fill(-1)
  const docStart = new Int32Array(D + 1)
  const out: number[] = []
  for (let d = 0; d < D; d++) {
    const doc: number[] = []
    for (let i = c.docStart[d] as number; i < (c.docStart[d + 1] as number); i++) {
      const w = c.tokens[i] as number
      if (seen[w] !== d) {
        seen[w] = d
        doc.push(w)
      }
    }
    for (const w of doc.sort((a, b) => a - b)) out.push(w)
    docStart[d + 1] = out.length
  }
  return { vocab: c.vocab, docStart, tokens: Int32Array.from(out), names: c.names, labels: c.labels }
}

export interface BatchConfig {
  readonly topics: number
  readonly iterations: number
  readonly alpha: number
}

/**
 * Trains one batch under prior β^l: uniform initial topics from `uniform`, then `sweep(state)` called
 * T times by the caller's loop (a private trainer runs each sweep through its gate).
 */
export const batchState = (batch: Corpus, K: number, uniform: () => number): GibbsState => initState(batch, K, uniform, 'reading')

/**
 * O-LDA over a sequence of batches (non-private; D0 first when there is one): returns the last
 * batch's φ (eq. 13) and the prior it was trained under. `fresh` gives each batch's sampler stream.
 */
export const onlineLda = (
  batches: ReadonlyArray<Corpus>,
  c: BatchConfig & { readonly beta: number; readonly lambda: number },
  fresh: () => FastUniform,
): { readonly phi: Float64Array; readonly prior: TopicWordPrior } => {
  const V = batches[0]?.vocab.length ?? 0
  let prior = flatPrior(c.topics, V, c.beta)
  let last: GibbsState | undefined
  for (const batch of batches) {
    if (last !== undefined) prior = updatePrior(prior, last.nwk, c.lambda)
    const u = fresh()
    const s = batchState(batch, c.topics, () => u.next())
    for (let it = 0; it < c.iterations; it++) sweepWithPrior(s, prior, c.alpha, u)
    last = s
  }
  return { phi: phiWithPrior(last?.nwk ?? new Int32Array(V * c.topics), prior), prior }
}
