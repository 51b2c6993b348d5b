/**
 * SparseLDA: exact collapsed Gibbs sampling for LDA with the s + r + q bucket decomposition of
 * Yao, Mimno & McCallum (KDD 2009, §3), laid out as in Mallet's ParallelTopicModel:
 *
 *   p(z = k | ·) ∝ (α + n_dk)(β + n_wk)/(Vβ + n_k)
 *              = αβ/(Vβ + n_k)                 s: smoothing, over all topics, rarely visited
 *              + β·n_dk/(Vβ + n_k)             r: the document's non-zero topics
 *              + (α + n_dk)·n_wk/(Vβ + n_k)     q: the word's non-zero topics.
 *
 * Word-topic counts are packed per word as `count << bits | topic`, sorted by decreasing count,
 * so the q scan visits the heaviest topics first. The coefficient (α + n_dk)/(Vβ + n_k) is cached
 * per topic and updated in O(1) per token. Tokens arrive grouped by word (state.ts): the first
 * token of a run sums the q bucket over the word's list; a repeat updates that mass in O(1) (only
 * the topics the previous token and this one moved have changed) and scans only as far as the
 * draw. A draw that keeps the token's topic restores the totals saved before the removal instead
 * of recomputing them. No allocation happens inside a sweep.
 *
 * @module
 */
import type { FastUniform } from './random.js'
import type { GibbsState } from './state.js'

export interface SparseSampler {
  readonly state: GibbsState
  /** One full sweep over every token, document by document, grouped by word inside each. */
  readonly sweep: (u: FastUniform) => void
  /**
   * One sweep whose per-token uniforms come from the xoshiro128** state (a, b, c, d) instead of
   * four words of a FastUniform (AD-LDA: each thread's stream is drawn by the calling thread).
   */
  readonly sweepFrom: (a: number, b: number, c: number, d: number) => void
  /** Writes the word-topic counts back into state.nwk (dense), e.g. before computing φ. */
  readonly syncDense: () => void
  /** Rebuilds the sampler's word lists from state.nwk (dense), e.g. after another thread's counts were merged in. */
  readonly reload: () => void
}

export const makeSparseSampler = (state: GibbsState, alphaC: number, betaC: number): SparseSampler => {
  const beta = betaC
  const { K, V, tokens, z, ndk, nk, nwk } = state
  let bits = 1
  while (1 << bits < K) bits++
  const mask = (1 << bits) - 1
  const bitsC = bits
  const maskC = mask
  // Packed per-word arrays with capacity min(K, frequency of the word); the frequency is the count
  // row's sum, which a sweep keeps (it is the whole corpus's for an AD-LDA part's copy of the table).
  const offset = new Int32Array(V + 1)
  for (let w = 0; w < V; w++) {
    let f = 0
    for (let k = 0; k < K; k++) f += nwk[w * K + k] as number
    offset[w + 1] = (offset[w] as number) + Math.min(K, f)
  }
  const packed = new Int32Array(offset[V] as number)
  const wlenC = new Int32Array(V)
  const reload = (): void => {
    for (let w = 0; w < V; w++) {
      const lo = offset[w] as number
      let end = lo
      for (let k = 0; k < K; k++) {
        const c = nwk[w * K + k] as number
        if (c === 0) continue
        // insertion into the sorted list (decreasing count · 2^bits + topic)
        const v = c * (1 << bits) + k
        let j = end++
        while (j > lo && (packed[j - 1] as number) < v) {
          packed[j] = packed[j - 1] as number
          j--
        }
        packed[j] = v
      }
      wlenC[w] = end - lo
      packed.fill(0, end, offset[w + 1] as number)
    }
  }
  reload()
  const betaSum = V * beta
  const betaSumC = betaSum
  const coef = new Float64Array(K)
  const scores = new Float64Array(K)
  const invDenC = new Float64Array(K)
  const local = new Int32Array(K)
  const nzTopics = new Int32Array(K)
  const nzPos = new Int32Array(K)

  let sink = 0
  const sweep = (u: FastUniform): void => {
    sweepImpl(u.nextUint32() | 0, u.nextUint32() | 0, u.nextUint32() | 0, u.nextUint32() | 1, tokens, z, ndk, nk, packed, offset, coef, scores, local, nzTopics, nzPos)
  }
  const sweepFrom = (a: number, b: number, c: number, d: number): void => {
    sweepImpl(a | 0, b | 0, c | 0, d | 1, tokens, z, ndk, nk, packed, offset, coef, scores, local, nzTopics, nzPos)
  }
  const sweepImpl = (
    ra: number,
    rb: number,
    rc: number,
    rd: number,
    tokens: Int32Array,
    z: Int32Array,
    ndk: Int32Array,
    nk: Int32Array,
    packed: Int32Array,
    offset: Int32Array,
    coef: Float64Array,
    scores: Float64Array,
    local: Int32Array,
    nzTopics: Int32Array,
    nzPos: Int32Array,
  ): void => {
    const K = state.K
    const D = state.D
    const docStart = state.docStart
    const bits = bitsC
    const mask = maskC
    const alpha = alphaC
    const beta = betaC
    const betaSum = betaSumC
    const ab = alpha * beta
    // The per-token uniforms come from a xoshiro128** stream held in locals (ra, rb, rc, rd), seeded
    // from u once per sweep: calling u.next() per token costs a property load/store round trip on u's
    // state (boxed, as the 32-bit words do not fit a small integer) that dominated the token cost.
    let pf = 0
    const one = 1 << bits
    const wlen = wlenC
    const invDen = invDenC
    for (let d = 0; d < D; d++) {
      const a = docStart[d] as number
      const b = docStart[d + 1] as number
      // document setup
      let nnz = 0
      for (let k = 0; k < K; k++) {
        const c = ndk[d * K + k] as number
        local[k] = c
        if (c > 0) {
          nzPos[k] = nnz
          nzTopics[nnz++] = k
        }
      }
      let sMass = 0
      let rMass = 0
      for (let k = 0; k < K; k++) {
        const inv = 1 / ((nk[k] as number) + betaSum)
        const c = local[k] as number
        invDen[k] = inv
        sMass += ab * inv
        rMass += beta * c * inv
        coef[k] = (alpha + c) * inv
      }
      let prevW = -1
      let qMass = 0
      for (let i = a; i < b; i++) {
        const w = tokens[i] as number
        const old = z[i] as number
        // remove the token from the document and topic totals (keeping what a draw of the same
        // topic restores: most draws keep the topic once the chain has mixed)
        const sMass0 = sMass
        const rMass0 = rMass
        const inv0 = invDen[old] as number
        let inv = inv0
        let c = local[old] as number
        sMass -= ab * inv
        rMass -= beta * c * inv
        c--
        local[old] = c
        if (c === 0) {
          const p = nzPos[old] as number
          const last = nzTopics[--nnz] as number
          nzTopics[p] = last
          nzPos[last] = p
        }
        const nko = (nk[old] as number) - 1
        nk[old] = nko
        inv = 1 / (nko + betaSum)
        invDen[old] = inv
        sMass += ab * inv
        rMass += beta * c * inv
        const coefOldBefore = coef[old] as number
        coef[old] = (alpha + c) * inv
        const lo = offset[w] as number
        let end = lo + (wlen[w] as number)
        let si = 0
        if (w !== prevW) {
          // first token of a run: one pass over the word's non-zero topics (Mallet) accumulates
          // the q bucket as running prefix sums and, on reaching the old topic (always present:
          // this token holds it), decrements its count, moving it down to keep the list sorted
          prevW = w
          let idx = lo
          qMass = 0
          for (;;) {
            const v = packed[idx] as number
            if ((v & mask) === old) break
            qMass += (coef[v & mask] as number) * (v >> bits)
            scores[si++] = qMass
            idx++
          }
          end = decrementAt(packed, idx, end, one)
          wlen[w] = end - lo
          while (idx < end) {
            const v = packed[idx] as number
            qMass += (coef[v & mask] as number) * (v >> bits)
            scores[si++] = qMass
            idx++
          }
        } else {
          // a repeat of the previous token's word: q changed only at the topics that token and
          // this one moved, so its mass is updated in O(1); the draw is located by a scan below
          let idx = lo
          while (((packed[idx] as number) & mask) !== old) idx++
          const n = (packed[idx] as number) >> bits
          qMass += (coef[old] as number) * (n - 1) - coefOldBefore * n
          end = decrementAt(packed, idx, end, one)
          wlen[w] = end - lo
          if (end === lo) qMass = 0
          si = -1
        }
        // touch the next word's list now so its cache miss overlaps this token's work
        if (i + 1 < b) {
          const nw = tokens[i + 1] as number
          if (nw !== w) pf ^= packed[offset[nw] as number] as number
        }
        // inline xoshiro128** step (the same generator as FastUniform), uniform in [0, 1)
        const rm = Math.imul(rb, 5)
        const rr = Math.imul((rm << 7) | (rm >>> 25), 9)
        const rt = rb << 9
        rc ^= ra
        rd ^= rb
        rb ^= rc
        ra ^= rd
        rc ^= rt
        rd = (rd << 11) | (rd >>> 21)
        let x = (rr >>> 0) * 2.3283064365386963e-10 * (sMass + rMass + qMass)
        let nt = -1
        let nBefore: number
        if (x < qMass && end > lo) {
          let j: number
          if (si >= 0) {
            j = 0
            const last = si - 1
            while (j < last && (scores[j] as number) <= x) j++
            j += lo
          } else {
            j = lo
            const last = end - 1
            for (; j < last; j++) {
              const v = packed[j] as number
              x -= (coef[v & mask] as number) * (v >> bits)
              if (x < 0) break
            }
          }
          nBefore = (packed[j] as number) >> bits
          const v = (packed[j] as number) + one
          nt = v & mask
          packed[j] = v
          while (j > lo && (packed[j - 1] as number) < v) {
            packed[j] = packed[j - 1] as number
            packed[--j] = v
          }
        } else {
          x -= qMass
          if (x < rMass && nnz > 0) {
            x /= beta
            nt = nzTopics[nnz - 1] as number
            for (let j = 0; j < nnz; j++) {
              const t = nzTopics[j] as number
              x -= (local[t] as number) * (invDen[t] as number)
              if (x <= 0) {
                nt = t
                break
              }
            }
          } else {
            x = (x - rMass) / beta
            nt = K - 1
            for (let t = 0; t < K; t++) {
              x -= alpha * (invDen[t] as number)
              if (x <= 0) {
                nt = t
                break
              }
            }
          }
          // increment n_wk for the new topic (insert if absent)
          let j = lo
          while (j < end && ((packed[j] as number) & mask) !== nt) j++
          let v: number
          if (j === end) {
            v = one | nt
            wlen[w] = end + 1 - lo
            nBefore = 0
          } else {
            nBefore = (packed[j] as number) >> bits
            v = (packed[j] as number) + one
          }
          packed[j] = v
          while (j > lo && (packed[j - 1] as number) < v) {
            packed[j] = packed[j - 1] as number
            packed[--j] = v
          }
        }
        // add the token back with its new topic
        z[i] = nt
        if (nt === old) {
          c = (local[old] as number) + 1
          local[old] = c
          if (c === 1) {
            nzPos[old] = nnz
            nzTopics[nnz++] = old
          }
          nk[old] = (nk[old] as number) + 1
          invDen[old] = inv0
          sMass = sMass0
          rMass = rMass0
          qMass += coefOldBefore * (nBefore + 1) - (coef[old] as number) * nBefore
          coef[old] = coefOldBefore
          continue
        }
        inv = invDen[nt] as number
        c = local[nt] as number
        sMass -= ab * inv
        rMass -= beta * c * inv
        c++
        local[nt] = c
        if (c === 1) {
          nzPos[nt] = nnz
          nzTopics[nnz++] = nt
        }
        const nkn = (nk[nt] as number) + 1
        nk[nt] = nkn
        inv = 1 / (nkn + betaSum)
        invDen[nt] = inv
        sMass += ab * inv
        rMass += beta * c * inv
        const coefNew = (alpha + c) * inv
        // keep q's mass current for a repeat of this word: topic nt's term moved from
        // coef·n to coef′·(n + 1)
        qMass += coefNew * (nBefore + 1) - (coef[nt] as number) * nBefore
        coef[nt] = coefNew
      }
      for (let k = 0; k < K; k++) ndk[d * K + k] = local[k] as number
    }
    sink ^= pf
  }

  const syncDense = (): void => {
    nwk.fill(0)
    for (let w = 0; w < V; w++)
      for (let j = offset[w] as number; j < (offset[w + 1] as number); j++) {
        const v = packed[j] as number
        if (v <= 0) break
        nwk[w * K + (v & mask)] = v >> bits
      }
  }
  return { state, sweep, sweepFrom, syncDense, reload }
}

/**
 * Decrements the packed count at `j` in a word's list [.., end), keeping the list sorted by
 * decreasing count (an entry whose count reaches 0 leaves the list); returns the new end.
 */
const decrementAt = (packed: Int32Array, j: number, end: number, one: number): number => {
  const nv = (packed[j] as number) - one
  if (nv < one) {
    const last = end - 1
    while (j < last) {
      packed[j] = packed[j + 1] as number
      j++
    }
    packed[last] = 0
    return last
  }
  while (j + 1 < end && (packed[j + 1] as number) > nv) {
    packed[j] = packed[j + 1] as number
    j++
  }
  packed[j] = nv
  return end
}
