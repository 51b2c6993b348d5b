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
 * per topic and updated in O(1) per token. No allocation happens inside a sweep.
 *
 * @module
 */
import type { FastUniform } from './random.js'
import type { GibbsState } from './state.js'

export interface SparseSampler {
  readonly state: GibbsState
  /** One full sweep over every token, in document order. */
  readonly sweep: (u: FastUniform) => void
  /** Writes the word-topic counts back into state.nwk (dense), e.g. before computing φ. */
  readonly syncDense: () => void
}

export const makeSparseSampler = (state: GibbsState, alphaC: number, betaC: number): SparseSampler => {
  const alpha = alphaC
  const beta = betaC
  const { K, V, D, tokens, docStart, z, ndk, nk, nwk } = state
  let bits = 1
  while (1 << bits < K) bits++
  const mask = (1 << bits) - 1
  const bitsC = bits
  const maskC = mask
  // Packed per-word arrays with capacity min(K, frequency of the word).
  const freq = new Int32Array(V)
  for (let i = 0; i < tokens.length; i++) { const w = tokens[i] as number; freq[w] = (freq[w] as number) + 1 }
  const offset = new Int32Array(V + 1)
  for (let w = 0; w < V; w++) offset[w + 1] = (offset[w] as number) + Math.min(K, freq[w] as number)
  const packed = new Int32Array(offset[V] as number)
  for (let w = 0; w < V; w++) {
    let p = offset[w] as number
    const entries: number[] = []
    for (let k = 0; k < K; k++) {
      const c = nwk[w * K + k] as number
      if (c > 0) entries.push(c * (1 << bits) + k)
    }
    entries.sort((a, b) => b - a)
    for (const e of entries) packed[p++] = e
  }
  const betaSum = V * beta
  const betaSumC = betaSum
  const coef = new Float64Array(K)
  const scores = new Float64Array(K)
  const local = new Int32Array(K)
  const nzTopics = new Int32Array(K)
  const nzPos = new Int32Array(K)

  const sweep = (u: FastUniform): void => {
    sweepImpl(u, tokens, z, ndk, nk, packed, offset, coef, scores, local, nzTopics, nzPos)
  }
  const sweepImpl = (
    u: FastUniform,
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
        const den = (nk[k] as number) + betaSum
        const c = local[k] as number
        sMass += (alpha * beta) / den
        rMass += (beta * c) / den
        coef[k] = (alpha + c) / den
      }
      for (let i = a; i < b; i++) {
        const w = tokens[i] as number
        const old = z[i] as number
        // remove the token from the document and topic totals
        let den = (nk[old] as number) + betaSum
        sMass -= (alpha * beta) / den
        let c = local[old] as number
        rMass -= (beta * c) / den
        c--
        local[old] = c
        if (c === 0) {
          const p = nzPos[old] as number
          const last = nzTopics[--nnz] as number
          nzTopics[p] = last
          nzPos[last] = p
        }
        nk[old] = (nk[old] as number) - 1
        den -= 1
        sMass += (alpha * beta) / den
        rMass += (beta * c) / den
        coef[old] = (alpha + c) / den
        // decrement n_wk for the old topic (always present: this token holds it), keeping the
        // word's list sorted by decreasing count
        const lo = offset[w] as number
        const hi = offset[w + 1] as number
        {
          let j = lo
          while (((packed[j] as number) & mask) !== old) j++
          const cnt = ((packed[j] as number) >> bits) - 1
          if (cnt === 0) {
            // shift the rest up over the emptied slot
            while (j + 1 < hi && (packed[j + 1] as number) > 0) {
              packed[j] = packed[j + 1] as number
              j++
            }
            packed[j] = 0
          } else {
            const nv = (cnt << bits) | old
            while (j + 1 < hi && (packed[j + 1] as number) > nv) {
              packed[j] = packed[j + 1] as number
              j++
            }
            packed[j] = nv
          }
        }
        // q bucket over the word's non-zero topics, as running prefix sums
        let idx = lo
        let qMass = 0
        while (idx < hi) {
          const v = packed[idx] as number
          if (v <= 0) break
          qMass += (coef[v & mask] as number) * (v >> bits)
          scores[idx - lo] = qMass
          idx++
        }
        let x = u.next() * (sMass + rMass + qMass)
        let nt = -1
        if (x < qMass) {
          let j = lo
          const end = idx - 1
          while (j < end && (scores[j - lo] as number) <= x) j++
          const v = (packed[j] as number) + (1 << bits)
          nt = v & mask
          packed[j] = v
          while (j > lo && (packed[j - 1] as number) < v) {
            packed[j] = packed[j - 1] as number
            packed[--j] = v
          }
        } else {
          x -= qMass
          if (x < rMass) {
            x /= beta
            nt = nzTopics[nnz - 1] as number
            for (let j = 0; j < nnz; j++) {
              const t = nzTopics[j] as number
              x -= (local[t] as number) / ((nk[t] as number) + betaSum)
              if (x <= 0) {
                nt = t
                break
              }
            }
          } else {
            x = (x - rMass) / beta
            nt = K - 1
            for (let t = 0; t < K; t++) {
              x -= alpha / ((nk[t] as number) + betaSum)
              if (x <= 0) {
                nt = t
                break
              }
            }
          }
          // increment n_wk for the new topic (insert if absent)
          let j = lo
          while (j < hi) {
            const v = packed[j] as number
            if (v <= 0 || (v & mask) === nt) break
            j++
          }
          const v = (packed[j] as number) <= 0 ? (1 << bits) | nt : (packed[j] as number) + (1 << bits)
          packed[j] = v
          while (j > lo && (packed[j - 1] as number) < v) {
            packed[j] = packed[j - 1] as number
            packed[--j] = v
          }
        }
        // add the token back with its new topic
        z[i] = nt
        den = (nk[nt] as number) + betaSum
        sMass -= (alpha * beta) / den
        c = local[nt] as number
        rMass -= (beta * c) / den
        c++
        local[nt] = c
        if (c === 1) {
          nzPos[nt] = nnz
          nzTopics[nnz++] = nt
        }
        nk[nt] = (nk[nt] as number) + 1
        den += 1
        sMass += (alpha * beta) / den
        rMass += (beta * c) / den
        coef[nt] = (alpha + c) / den
      }
      for (let k = 0; k < K; k++) ndk[d * K + k] = local[k] as number
    }
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
  return { state, sweep, syncDense }
}
