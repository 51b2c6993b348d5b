/**
 * The LDA moment estimators of the spectral-LDA paper (arXiv:1805.10341), Lemma 21 (eq. 5–9), computed
 * from the documents without forming a V×V or V×V×V array: M̂2 as a block operator X ↦ M̂2·X (one pass
 * over the non-zeros per product) and the whitened tensor T̂ = M̂3(W, W, W) accumulated document by
 * document in k³.
 *
 * Per document n with count vector c, length l (paper App. D, eq. 2–4):
 *   M̃1 = c/l,  M̃2 = (c⊗c − diag c)/(l(l−1)),
 *   M̃3 = (c⊗c⊗c + 2Σ_i c_i e_i⊗e_i⊗e_i − Σ_{i,j} c_i c_j (e_i⊗e_i⊗e_j + e_i⊗e_j⊗e_j + e_j⊗e_i⊗e_j)) / (l(l−1)(l−2)).
 * Lemma 21 with a = α0/(α0+1), b = −α0/(α0+2), c = 2α0²/((α0+1)(α0+2)):
 *   M̂2 = (1/N)Σ M̃2ⁿ − a/(N(N−1)) Σ_{n≠m} M̃1ⁿ⊗M̃1ᵐ
 *   M̂3 = (1/N)Σ M̃3ⁿ + B1 + B2 + B3 + b̃,  B1 = b/(N(N−1)) Σ_{n≠m} M̃2ⁿ⊗M̃1ᵐ (B2, B3 its index
 *        permutations), b̃ = c/(N(N−1)(N−2)) Σ_{n,m,p distinct} M̃1ⁿ⊗M̃1ᵐ⊗M̃1ᵖ.
 * Readings (the extraction and the paper disagree with themselves; each choice below is the one
 * Lemma 22's unbiasedness proof uses):
 * - eq. (8)–(9) print full products; the proof of Lemma 22 subtracts the repeated indices (the
 *   U-statistics above), which are what make E[M̂3] = M3. We implement the U-statistics.
 * - eq. (7) multiplies by d = α0(α0+1)(α0+2)/2, which Lemma 22 and the sensitivity proof (H.2)
 *   ignore and which would make E[M̂3] = d·M3 ≠ M3 of Lemma 3. We omit d.
 * - Lemma 3 prints the coefficient of the E[x1⊗x2⊗M1] terms as 1/(α0+2); Lemma 21 (b) and
 *   Anandkumar et al. 2012 have α0/(α0+2), which is what makes eq. (1) hold. We use α0/(α0+2).
 * Documents need l ≥ 3 (M̃3 divides by l(l−1)(l−2)); shorter ones are refused, not dropped, so N is
 * the public number of documents.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { type Corpus, documentCount } from '../corpus/corpus.js'
import type { BlockOperator } from './linalg.js'

/** Documents as sparse count vectors. */
export interface CountDocuments {
  readonly documents: number
  readonly vocabulary: number
  /** Entries of document n are [start[n], start[n+1]). */
  readonly start: Int32Array
  readonly words: Int32Array
  readonly counts: Float64Array
  readonly lengths: Float64Array
}

/** Shortest document the third-moment estimator accepts (eq. 4 divides by l(l−1)(l−2)). */
export const MIN_DOCUMENT_LENGTH = 3

/** Sparse counts of every document; a document with fewer than 3 tokens is an error naming it. */
export const countDocuments = (corpus: Corpus): E.Either<DpError, CountDocuments> => {
  const D = documentCount(corpus)
  const V = corpus.vocab.length
  if (D < 3) return E.left(invalidParameter('corpus', D, 'the spectral estimators need at least 3 documents (the U-statistic of eq. 9 divides by N(N−1)(N−2))'))
  const seen = new Int32Array(V).fill(-1)
  const start = new Int32Array(D + 1)
  // at most one entry per token: typed arrays sized to the tokens, trimmed at the end
  const words = new Int32Array(corpus.tokens.length)
  const counts = new Float64Array(corpus.tokens.length)
  const lengths = new Float64Array(D)
  let nnz = 0
  for (let d = 0; d < D; d++) {
    const from = corpus.docStart[d] as number
    const to = corpus.docStart[d + 1] as number
    if (to - from < MIN_DOCUMENT_LENGTH)
      return E.left(
        invalidParameter(`corpus: document ${corpus.names[d] ?? d + 1}`, to - from, `has ${to - from} tokens; the third-moment estimator (eq. 4 of the spectral-LDA paper) needs at least ${MIN_DOCUMENT_LENGTH} per document`),
      )
    start[d] = nnz
    for (let i = from; i < to; i++) {
      const w = corpus.tokens[i] as number
      const at = seen[w] as number
      if (at >= (start[d] as number)) counts[at] = (counts[at] as number) + 1
      else {
        seen[w] = nnz
        words[nnz] = w
        counts[nnz] = 1
        nnz++
      }
    }
    lengths[d] = to - from
  }
  start[D] = nnz
  return E.right({ documents: D, vocabulary: V, start, words: words.slice(0, nnz), counts: counts.slice(0, nnz), lengths })
}

/** The coefficients a, b, c of Lemma 21 for a prior concentration α0. */
export const momentCoefficients = (alpha0: number): { readonly a: number; readonly b: number; readonly c: number } => ({
  a: alpha0 / (alpha0 + 1),
  b: -alpha0 / (alpha0 + 2),
  c: (2 * alpha0 * alpha0) / ((alpha0 + 1) * (alpha0 + 2)),
})

/** M̂1 = (1/N)Σ c/l (eq. 5). */
export const firstMoment = (docs: CountDocuments): Float64Array => {
  const out = new Float64Array(docs.vocabulary)
  const N = docs.documents
  for (let n = 0; n < N; n++) {
    const inv = 1 / ((docs.lengths[n] as number) * N)
    for (let e = docs.start[n] as number; e < (docs.start[n + 1] as number); e++) out[docs.words[e] as number] = (out[docs.words[e] as number] as number) + (docs.counts[e] as number) * inv
  }
  return out
}

/**
 * M̂2 (eq. 6) as a block operator. Expanding the U-statistic,
 *   M̂2·X = Σ_n w_n c_n (c_nᵀX) − diag(g)·X − a/(N(N−1))·s(sᵀX),
 * w_n = 1/(N l(l−1)) + a/(N(N−1) l²), g = Σ_n c_n/(N l(l−1)), s = Σ_n c_n/l.
 * One pass over the non-zeros per product: O(nnz·m).
 */
export const secondMomentOperator = (docs: CountDocuments, alpha0: number): BlockOperator => {
  const { a } = momentCoefficients(alpha0)
  const N = docs.documents
  const V = docs.vocabulary
  const weight = new Float64Array(N)
  const g = new Float64Array(V)
  const s = new Float64Array(V)
  for (let n = 0; n < N; n++) {
    const l = docs.lengths[n] as number
    weight[n] = 1 / (N * l * (l - 1)) + a / (N * (N - 1) * l * l)
    for (let e = docs.start[n] as number; e < (docs.start[n + 1] as number); e++) {
      const w = docs.words[e] as number
      const c = docs.counts[e] as number
      g[w] = (g[w] as number) + c / (N * l * (l - 1))
      s[w] = (s[w] as number) + c / l
    }
  }
  const rank1 = a / (N * (N - 1))
  return (x, m, out) => {
    out.fill(0)
    const dot = new Float64Array(m)
    for (let n = 0; n < N; n++) {
      dot.fill(0)
      const from = docs.start[n] as number
      const to = docs.start[n + 1] as number
      for (let e = from; e < to; e++) {
        const c = docs.counts[e] as number
        const o = (docs.words[e] as number) * m
        for (let j = 0; j < m; j++) dot[j] = (dot[j] as number) + c * (x[o + j] as number)
      }
      const wn = weight[n] as number
      for (let j = 0; j < m; j++) dot[j] = (dot[j] as number) * wn
      for (let e = from; e < to; e++) {
        const c = docs.counts[e] as number
        const o = (docs.words[e] as number) * m
        for (let j = 0; j < m; j++) out[o + j] = (out[o + j] as number) + c * (dot[j] as number)
      }
    }
    dot.fill(0)
    for (let v = 0; v < V; v++) {
      const sv = s[v] as number
      if (sv === 0) continue
      for (let j = 0; j < m; j++) dot[j] = (dot[j] as number) + sv * (x[v * m + j] as number)
    }
    for (let v = 0; v < V; v++) {
      const gv = g[v] as number
      const sv = s[v] as number
      const o = v * m
      for (let j = 0; j < m; j++) out[o + j] = (out[o + j] as number) - gv * (x[o + j] as number) - rank1 * sv * (dot[j] as number)
    }
  }
}

/** Index of (a, b, c) in a full k×k×k array. */
const at3 = (k: number, a: number, b: number, c: number): number => (a * k + b) * k + c

/** Fills every permutation of (a, b, c) from the entry with a ≤ b ≤ c. */
export const symmetrizeFromSorted = (t: Float64Array, k: number): void => {
  for (let a = 0; a < k; a++)
    for (let b = a; b < k; b++)
      for (let c = b; c < k; c++) {
        const x = t[at3(k, a, b, c)] as number
        t[at3(k, a, c, b)] = x
        t[at3(k, b, a, c)] = x
        t[at3(k, b, c, a)] = x
        t[at3(k, c, a, b)] = x
        t[at3(k, c, b, a)] = x
      }
}

/**
 * T̂ = M̂3(W, W, W) (k×k×k, row-major, symmetric) from the documents, W a V×k row-major matrix.
 * With y = Wᵀc, S = Σ_i c_i w_i w_iᵀ (w_i the i-th row of W) and P3(S, y)_abc = S_ab y_c + S_bc y_a + S_ac y_b:
 *   M̃3ⁿ(W,W,W) = (y⊗y⊗y − P3(S, y) + 2Σ_i c_i w_i⊗w_i⊗w_i) / (l(l−1)(l−2)),
 *   M̃2ⁿ(W,W) = (yyᵀ − S)/(l(l−1)),  M̃1ⁿ W = y/l,
 * and the U-statistics of B1+B2+B3 and b̃ reduce to per-document multiples of y⊗y⊗y and P3(S, y)
 * plus three global products (module comment). Cost O(nnz·k² + N·k³/6); W never meets a V³ array.
 */
export const whitenedThirdMoment = (docs: CountDocuments, alpha0: number, W: Float64Array, k: number): Float64Array => {
  const { b, c } = momentCoefficients(alpha0)
  const N = docs.documents
  const V = docs.vocabulary
  const B = b / (N * (N - 1))
  const C = c / (N * (N - 1) * (N - 2))
  const t = new Float64Array(k * k * k)
  const y = new Float64Array(k)
  const S = new Float64Array(k * k)
  const sumP2 = new Float64Array(k * k) // Σ_n M̃2ⁿ(W,W)
  const s = new Float64Array(k) // Σ_n M̃1ⁿW
  const sumZZ = new Float64Array(k * k) // Σ_n (M̃1ⁿW)(M̃1ⁿW)ᵀ
  const g3 = new Float64Array(V) // Σ_n c_n/(N l(l−1)(l−2)), for the diagonal term
  for (let n = 0; n < N; n++) {
    const l = docs.lengths[n] as number
    const rho3 = 1 / (N * l * (l - 1) * (l - 2))
    y.fill(0)
    S.fill(0)
    for (let e = docs.start[n] as number; e < (docs.start[n + 1] as number); e++) {
      const w = docs.words[e] as number
      const cnt = docs.counts[e] as number
      g3[w] = (g3[w] as number) + cnt * rho3
      const o = w * k
      for (let i = 0; i < k; i++) {
        const wi = cnt * (W[o + i] as number)
        y[i] = (y[i] as number) + wi
        for (let j = i; j < k; j++) S[i * k + j] = (S[i * k + j] as number) + wi * (W[o + j] as number)
      }
    }
    for (let i = 0; i < k; i++) for (let j = 0; j < i; j++) S[i * k + j] = S[j * k + i] as number
    // coefficients of y⊗y⊗y and P3(S, y) from M̃3ⁿ, Sym3(M̃2ⁿ ⊗ M̃1ⁿ) (the n = m terms removed from
    // B1+B2+B3) and 2·(M̃1ⁿ)^⊗3 (the n = m = p terms removed from b̃)
    const inv2 = 1 / (l * l * (l - 1))
    const coefY = rho3 - 3 * B * inv2 + (2 * C) / (l * l * l)
    const coefP = -rho3 + B * inv2
    for (let a = 0; a < k; a++) {
      const ya = y[a] as number
      for (let bb = a; bb < k; bb++) {
        const yb = y[bb] as number
        const sab = S[a * k + bb] as number
        for (let cc = bb; cc < k; cc++) {
          const yc = y[cc] as number
          const p3 = sab * yc + (S[bb * k + cc] as number) * ya + (S[a * k + cc] as number) * yb
          const idx = at3(k, a, bb, cc)
          t[idx] = (t[idx] as number) + coefY * ya * yb * yc + coefP * p3
        }
      }
    }
    const il = 1 / l
    const il2 = 1 / (l * (l - 1))
    for (let i = 0; i < k; i++) {
      s[i] = (s[i] as number) + (y[i] as number) * il
      for (let j = 0; j < k; j++) {
        sumP2[i * k + j] = (sumP2[i * k + j] as number) + ((y[i] as number) * (y[j] as number) - (S[i * k + j] as number)) * il2
        sumZZ[i * k + j] = (sumZZ[i * k + j] as number) + (y[i] as number) * (y[j] as number) * il * il
      }
    }
  }
  // global terms: 2Σ_v g3_v w_v^⊗3; B·Sym3(ΣM̃2 ⊗ s); C·(s^⊗3 − Sym3(Σzzᵀ ⊗ s))
  for (let v = 0; v < V; v++) {
    const gv = 2 * (g3[v] as number)
    if (gv === 0) continue
    const o = v * k
    for (let a = 0; a < k; a++) {
      const wa = gv * (W[o + a] as number)
      for (let bb = a; bb < k; bb++) {
        const wab = wa * (W[o + bb] as number)
        for (let cc = bb; cc < k; cc++) {
          const idx = at3(k, a, bb, cc)
          t[idx] = (t[idx] as number) + wab * (W[o + cc] as number)
        }
      }
    }
  }
  for (let a = 0; a < k; a++)
    for (let bb = a; bb < k; bb++)
      for (let cc = bb; cc < k; cc++) {
        const sa = s[a] as number
        const sb = s[bb] as number
        const sc = s[cc] as number
        const symP = (sumP2[a * k + bb] as number) * sc + (sumP2[bb * k + cc] as number) * sa + (sumP2[a * k + cc] as number) * sb
        const symZ = (sumZZ[a * k + bb] as number) * sc + (sumZZ[bb * k + cc] as number) * sa + (sumZZ[a * k + cc] as number) * sb
        const idx = at3(k, a, bb, cc)
        t[idx] = (t[idx] as number) + B * symP + C * (sa * sb * sc - symZ)
      }
  symmetrizeFromSorted(t, k)
  return t
}
