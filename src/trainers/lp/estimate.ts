/**
 * LP-LDA, the server side (Zhao et al., arXiv:2010.04391, §V-B, Steps 1–5): everything here takes the
 * users' `LocalReports` (./perturb.ts) and nothing else about the data, so it is post-processing of the
 * one release.
 *
 * - Step 1, `onesPerWord`: n_t, the number of reports with bit t set.
 * - Step 2, `estimateCounts`: N̂_t = (2n_t − fM)/(2(1 − f)) (eq. 8, Theorem 5). Given the true
 *   corpus, n_t = n₁ + n₂ with n₁ ~ B(N_t, 1 − f/2) and n₂ ~ B(M − N_t, f/2) independent, so
 *   E[n_t] = f M/2 + (1 − f)N_t: N̂_t is unbiased, and Var(N̂_t) = Var(n_t)/(1 − f)² =
 *   M·(f/2)(1 − f/2)/(1 − f)² = (2 − f)fM/(4(1 − f)²) — the first term of eq. (9) only.
 *   Eq. (9)'s second term, (M − N_t)N_t/M, is the variance of a presence count when every
 *   document holds word t independently with probability N_t/M: eq. (9) is the variance of N̂_t
 *   over corpora drawn that way (around M·N_t/M), not given the corpus. `estimateVariance` returns
 *   both; test/trainers/lp-lda.test.ts checks each against simulation in its own setting.
 * - Steps 3–4, `reconstruct`: δ_t = N̂_t − n_t; flip |δ_t| randomly chosen bits of column t (0 → 1
 *   among the reports with bit t = 0 when δ_t > 0, 1 → 0 among those with bit t = 1 when δ_t < 0),
 *   uniformly without replacement (partial Fisher–Yates, drawing the smaller of the chosen set and
 *   its complement). The paper leaves two things open:
 *   N̂_t is not an integer — dpaudit rounds it stochastically (⌊N̂_t⌋ + Bernoulli(frac), unbiased) —
 *   and it may fall outside [0, M] — dpaudit clamps the target to [0, M]. δ_t > 0 only when
 *   n_t > M/2 (N̂_t − n_t = f(2n_t − M)/(2(1 − f))), so listing the zeros of such a column costs
 *   M − n_t < n_t: the reconstruction is linear in the number of set bits (plus one pass over the
 *   report words). It works on columns (the reports holding each word) and returns them, so no
 *   bit of the row-major reports is visited at random.
 * - Step 5, `presenceCorpus`: the reconstructed columns as a corpus of word-presence documents
 *   (one token per set bit, in word order) for collapsed Gibbs sampling.
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import type { Corpus } from '../corpus/corpus.js'
import type { LocalReports } from './perturb.js'

/** Index of the lowest set bit of a non-zero 32-bit word. */
const lowestBit = (x: number): number => 31 - Math.clz32(x & -x)

/**
 * The reports column by column: column t lists, in report order, the reports whose bit t is set —
 * docs[start[t] .. start[t+1]). Built in one pass over the set bits.
 */
export interface PresenceColumns {
  readonly V: number
  readonly M: number
  readonly start: Int32Array
  readonly docs: Int32Array
}

/** Step 1: n_t = Σ_m V̂_m[t]. (The loops over set bits are written out here and in `columns`: a shared callback was not inlined and cost ×3.) */
export const onesPerWord = (r: LocalReports): Int32Array => {
  const { M, stride, bits } = r
  const n = new Int32Array(r.V)
  for (let m = 0; m < M; m++)
    for (let w = 0; w < stride; w++)
      for (let x = bits[m * stride + w] as number; x !== 0; x &= x - 1) {
        const t = (w << 5) + lowestBit(x)
        n[t] = (n[t] as number) + 1
      }
  return n
}

/** The reports as columns, given n = onesPerWord(r). */
const columns = (r: LocalReports, n: Int32Array): PresenceColumns => {
  const { V, M, stride, bits } = r
  const start = new Int32Array(V + 1)
  for (let t = 0; t < V; t++) start[t + 1] = (start[t] as number) + (n[t] as number)
  const fill = start.slice(0, V)
  const docs = new Int32Array(start[V] as number)
  for (let m = 0; m < M; m++)
    for (let w = 0; w < stride; w++)
      for (let x = bits[m * stride + w] as number; x !== 0; x &= x - 1) {
        const t = (w << 5) + lowestBit(x)
        docs[fill[t] as number] = m
        fill[t] = (fill[t] as number) + 1
      }
  return { V, M, start, docs }
}

/** Step 2 (eq. 8): N̂_t = (2n_t − fM)/(2(1 − f)). */
export const estimateCounts = (n: ArrayLike<number>, M: number, f: number): Float64Array => {
  const out = new Float64Array(n.length)
  for (let t = 0; t < n.length; t++) out[t] = (2 * (n[t] as number) - f * M) / (2 * (1 - f))
  return out
}

/**
 * Var(N̂_t): `givenCorpus` = (2 − f)fM/(4(1 − f)²), the variance over the perturbation of a fixed
 * corpus; `eq9` = that + (M − N)N/M, the paper's eq. (9), the variance when the M documents hold
 * the word independently with probability N/M (see the module comment).
 */
export const estimateVariance = (M: number, f: number, N: number): { readonly givenCorpus: number; readonly eq9: number } => {
  const givenCorpus = ((2 - f) * f * M) / (4 * (1 - f) * (1 - f))
  return { givenCorpus, eq9: givenCorpus + ((M - N) * N) / M }
}

/** ⌊x⌋ + Bernoulli(x − ⌊x⌋), clamped to [0, M]. */
const roundedTarget = (x: number, M: number, words: WordStream): number => {
  const lo = Math.floor(x)
  const t = lo + (words.nextDouble() < x - lo ? 1 : 0)
  return Math.min(M, Math.max(0, t))
}

/** Moves k uniformly chosen entries of list[0..len) to its front (partial Fisher–Yates). */
const chooseFront = (list: Int32Array, len: number, k: number, words: WordStream): void => {
  for (let i = 0; i < k; i++) {
    const j = i + words.uniformBelow(len - i)
    const s = list[i] as number
    list[i] = list[j] as number
    list[j] = s
  }
}

/**
 * A uniformly chosen k-subset of list[0..len), as a range of the permuted list: the chosen k at
 * the front, or — when k > len/2, fewer draws — the len − k left out at the front and the chosen
 * ones behind them (the complement of a uniform subset is uniform).
 */
const chooseSubset = (list: Int32Array, len: number, k: number, words: WordStream): readonly [number, number] => {
  if (2 * k <= len) {
    chooseFront(list, len, k, words)
    return [0, k]
  }
  chooseFront(list, len, len - k, words)
  return [len - k, len]
}

/**
 * Steps 3–4: the reports with column t adjusted to the rounded, clamped N̂_t by flipping uniformly
 * chosen bits of that column, returned as columns (PresenceColumns). Randomness from `words` only;
 * reads nothing but the reports.
 */
export const reconstruct = (r: LocalReports, f: number, words: WordStream): PresenceColumns => {
  const n = onesPerWord(r)
  return reconstructToward(r, n, estimateCounts(n, r.M, f), words)
}

/**
 * Steps 3–4 toward any per-word estimate (OLP-LDA passes its Bayesian estimates B(n_t), eq. 19):
 * column t is adjusted to `estimate[t]`, rounded stochastically and clamped to [0, M], from
 * n = onesPerWord(r). With N̂_t a column needs added bits only when n_t > M/2; with another
 * estimate a column whose target exceeds n_t costs M − n_t to list its zeros.
 */
export const reconstructToward = (r: LocalReports, n: Int32Array, estimate: ArrayLike<number>, words: WordStream): PresenceColumns => {
  const { V, M } = r
  const received = columns(r, n)
  const target = new Int32Array(V + 1)
  for (let t = 0; t < V; t++) target[t + 1] = (target[t] as number) + roundedTarget(estimate[t] as number, M, words)
  const docs = new Int32Array(target[V] as number)
  const zeros = new Int32Array(M)
  for (let t = 0; t < V; t++) {
    const nt = n[t] as number
    const at = target[t] as number
    const delta = (target[t + 1] as number) - at - nt
    const ones = received.docs.subarray(received.start[t] as number, received.start[t + 1] as number)
    if (delta <= 0) {
      // clear −δ of the ones: keep the rest
      const [from, to] = chooseSubset(ones, nt, -delta, words)
      docs.set(from === 0 ? ones.subarray(to) : ones.subarray(0, from), at)
    } else {
      // set δ of the zeros (δ > 0 only when n_t > M/2, so listing the M − n_t zeros costs < n_t)
      let z = 0
      let next = 0
      for (let m = 0; m < M; m++) {
        if (next < nt && ones[next] === m) next++
        else zeros[z++] = m
      }
      const [from, to] = chooseSubset(zeros, z, delta, words)
      docs.set(ones, at)
      docs.set(zeros.subarray(from, to), at + nt)
    }
  }
  return { V, M, start: target, docs }
}

/**
 * Step 5: the reconstructed vectors as a corpus of word-presence documents (one token per set
 * bit, ascending word id); reports with no bit set are left out (they hold no token to sample).
 */
export const presenceCorpus = (c: PresenceColumns, vocab: ReadonlyArray<string>): Corpus => {
  const { V, M, start, docs } = c
  const perReport = new Int32Array(M)
  for (let i = 0; i < docs.length; i++) perReport[docs[i] as number] = (perReport[docs[i] as number] as number) + 1
  const kept: number[] = []
  for (let m = 0; m < M; m++) if ((perReport[m] as number) > 0) kept.push(m)
  const docStart = new Int32Array(kept.length + 1)
  const pos = new Int32Array(M)
  for (let d = 0; d < kept.length; d++) {
    pos[kept[d] as number] = docStart[d] as number
    docStart[d + 1] = (docStart[d] as number) + (perReport[kept[d] as number] as number)
  }
  const tokens = new Int32Array(docs.length)
  for (let t = 0; t < V; t++)
    for (let i = start[t] as number; i < (start[t + 1] as number); i++) {
      const m = docs[i] as number
      tokens[pos[m] as number] = t
      pos[m] = (pos[m] as number) + 1
    }
  const names = kept.map((m) => `report ${m + 1}`)
  return { vocab, docStart, tokens, names, labels: names.map(() => '') }
}
