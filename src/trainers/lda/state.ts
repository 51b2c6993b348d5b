/**
 * The collapsed Gibbs state shared by every sampler: topic assignments z (one per token) and
 * the count tables n_dk (document-topic, D×K), n_wk (word-topic, V×K, word-major) and n_k, all
 * typed arrays. Initialisation draws every z uniformly (Zhao et al., Alg. 1 line 3; the SUB-LDA
 * paper, Alg. 1: k ~ Mult(1/K·1_K)), which does not look at the words.
 *
 * Sweep order (`SweepOrder`):
 * - `reading` — every document's tokens in the order they were read. The private trainers use it:
 *   the order is fixed by the token positions, as HDP-LDA's Theorem 3 argument assumes (Zhao et al.),
 *   so replacing one word changes that token and nothing about when the others are visited.
 * - `by-word` — inside each document grouped by word (ascending id), the order in which the
 *   reference figures' samplers expanded the UCI file (docs/trainers.md § Reference figures); it keeps
 *   a word's count row in cache across its repeats. Only the non-private CGS uses it: the order depends
 *   on the words, so replacing one word moves its token in the scan (a data-dependent order, outside
 *   the private trainers' analysis).
 *
 * @module
 */
import type { Corpus } from '../corpus/corpus.js'

/** The order a sweep visits the tokens of a document (see the module comment). */
export type SweepOrder = 'reading' | 'by-word'

export interface GibbsState {
  readonly K: number
  readonly V: number
  readonly D: number
  readonly tokens: Int32Array
  readonly docStart: Int32Array
  readonly z: Int32Array
  readonly ndk: Int32Array
  readonly nwk: Int32Array
  readonly nk: Int32Array
}

/** The corpus tokens with each document's tokens sorted by word id (the sweep order). */
export const groupedByWord = (tokens: Int32Array, docStart: Int32Array): Int32Array => {
  const out = tokens.slice()
  for (let d = 0; d + 1 < docStart.length; d++) out.subarray(docStart[d] as number, docStart[d + 1] as number).sort()
  return out
}

/**
 * Where each token of the corpus, in reading order, sits in a `by-word` state: the j-th occurrence
 * of a word in a document is the j-th token of that word's group (tokens of one word in one
 * document are exchangeable to the sampler; this fixes which is which).
 */
export const byWordPositions = (tokens: Int32Array, docStart: Int32Array): Int32Array => {
  const out = new Int32Array(tokens.length)
  for (let d = 0; d + 1 < docStart.length; d++) {
    const start = docStart[d] as number
    const order = Array.from({ length: (docStart[d + 1] as number) - start }, (_, j) => start + j)
    order.sort((a, b) => (tokens[a] as number) - (tokens[b] as number) || a - b)
    for (const [j, i] of order.entries()) out[i] = start + j
  }
  return out
}

/** Integer arrays in plain memory, or in SharedArrayBuffers that worker threads can read (./parallel). */
export type Int32Alloc = (length: number) => Int32Array
export const plainInt32: Int32Alloc = (n) => new Int32Array(n)
export const sharedInt32: Int32Alloc = (n) => new Int32Array(new SharedArrayBuffer(4 * n))

/**
 * The state's arrays for `corpus` with K topics, tokens in `order`, every count 0 and every topic 0
 * (the caller draws the topics: `initState`, or the private trainers' threads); the tables from
 * `alloc` (shared memory for a sweep across threads).
 */
export const allocState = (corpus: Corpus, K: number, order: SweepOrder = 'by-word', alloc: Int32Alloc = plainInt32): GibbsState => {
  const V = corpus.vocab.length
  const D = corpus.docStart.length - 1
  const copy = (a: Int32Array): Int32Array => {
    const out = alloc(a.length)
    out.set(a)
    return out
  }
  const own = (a: Int32Array): Int32Array => (alloc === plainInt32 ? a : copy(a))
  const docStart = own(corpus.docStart)
  const tokens = order === 'by-word' ? own(groupedByWord(corpus.tokens, docStart)) : copy(corpus.tokens)
  return { K, V, D, tokens, docStart, z: alloc(tokens.length), ndk: alloc(D * K), nwk: alloc(V * K), nk: alloc(K) }
}

/**
 * Initial state: every topic uniform from `uniform` (values in [0, 1)), tokens in `order`; the
 * tables from `alloc` (shared memory for a sweep across threads).
 */
export const initState = (corpus: Corpus, K: number, uniform: () => number, order: SweepOrder = 'by-word', alloc: Int32Alloc = plainInt32): GibbsState => {
  const state = allocState(corpus, K, order, alloc)
  const { D, tokens, docStart, z, ndk, nwk, nk } = state
  for (let d = 0; d < D; d++)
    for (let i = docStart[d] as number; i < (docStart[d + 1] as number); i++) {
      const k = Math.min(K - 1, Math.floor(uniform() * K))
      z[i] = k
      const w = tokens[i] as number
      ndk[d * K + k] = (ndk[d * K + k] as number) + 1
      nwk[w * K + k] = (nwk[w * K + k] as number) + 1
      nk[k] = (nk[k] as number) + 1
    }
  return state
}

/** φ_kw = (n_wk + β)/(n_k + Vβ) from the counts (as docs/trainers.md § Held-out perplexity), K×V row-major. */
export const phiFromCounts = (nwk: ArrayLike<number>, K: number, V: number, beta: number): Float64Array => {
  const phi = new Float64Array(K * V)
  const tot = new Float64Array(K)
  for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) tot[k] = (tot[k] as number) + (nwk[w * K + k] as number)
  for (let k = 0; k < K; k++) {
    const den = (tot[k] as number) + V * beta
    for (let w = 0; w < V; w++) phi[k * V + w] = ((nwk[w * K + k] as number) + beta) / den
  }
  return phi
}

/**
 * φ from released noisy counts n̂ (post-processing): negative entries clipped at 0, then as
 * `phiFromCounts`. `scale` rescales subsampled counts (SUB-LDA: 1/γ).
 */
export const phiFromNoisyCounts = (noisy: Float64Array, K: number, V: number, beta: number, scale = 1): Float64Array => {
  const clipped = new Float64Array(noisy.length)
  for (let i = 0; i < noisy.length; i++) clipped[i] = Math.max(0, (noisy[i] as number) * scale)
  return phiFromCounts(clipped, K, V, beta)
}

/** θ_dk = (n_dk + α)/(n_d + Kα), D×K row-major. */
export const thetaFromCounts = (s: GibbsState, alpha: number): Float64Array => {
  const { K, D, ndk, docStart } = s
  const theta = new Float64Array(D * K)
  for (let d = 0; d < D; d++) {
    const den = (docStart[d + 1] as number) - (docStart[d] as number) + K * alpha
    for (let k = 0; k < K; k++) theta[d * K + k] = ((ndk[d * K + k] as number) + alpha) / den
  }
  return theta
}
