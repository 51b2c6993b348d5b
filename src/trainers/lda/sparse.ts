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
 * s and r are drawn as one bucket, β·Σ_k (α + n_dk)/(Vβ + n_k) (under 1 % of the mass at K = 50 once
 * mixed: a scan over all K topics), so no list of the document's non-zero topics is kept; 1/(Vβ + n_k − 1)
 * is cached beside 1/(Vβ + n_k), so a removal divides nothing. The sweep runs in WebAssembly
 * (./sparse-wasm.ts: the same operations in the same order, the same topics bit for bit) where the
 * runtime has it, else in the JavaScript loop below.
 *
 * @module
 */
import type { FastUniform } from './random.js'
import { wasmSparseSweep } from './sparse-wasm.js'
import type { GibbsState } from './state.js'

/**
 * Which loop runs the sweep: `wasm` (./sparse-wasm.ts, where WebAssembly is available) or `js`; both
 * give the same topics from the same uniforms, bit for bit.
 */
export type SparseEngine = 'wasm' | 'js'

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

export const makeSparseSampler = (state: GibbsState, alphaC: number, betaC: number, engine: SparseEngine = 'wasm'): SparseSampler => {
  const beta = betaC
  const { K, V, tokens, z, ndk, nk, nwk } = state
  let bits = 1
  while (1 << bits < K) bits++
  const mask = (1 << bits) - 1
  const bitsC = bits
  const maskC = mask
  // Packed per-word lists, each a length then capacity min(K, frequency of the word) entries (the length
  // shares the entries' cache line); the frequency is the count row's sum, which a sweep keeps (it is
  // the whole corpus's for an AD-LDA part's copy of the table).
  const offsetPlain = new Int32Array(V + 1)
  for (let w = 0; w < V; w++) {
    let f = 0
    for (let k = 0; k < K; k++) f += nwk[w * K + k] as number
    offsetPlain[w + 1] = (offsetPlain[w] as number) + 1 + Math.min(K, f)
  }
  const arrays = allocate(state, offsetPlain, engine)
  const { offset, packed, coef, invDen: invDenC, invDown: invDownC, local } = arrays
  const reload = (): void => {
    for (let w = 0; w < V; w++) {
      const lo = (offset[w] as number) + 1
      let end = lo
      for (let k = 0; k < K; k++) {
        const c = nwk[w * K + k] as number
        if (c === 0) continue
        if (end === (offset[w + 1] as number)) throw listOverflow(w, packed, lo, end, k, bits)
        // insertion into the sorted list (decreasing count · 2^bits + topic)
        const v = c * (1 << bits) + k
        let j = end++
        while (j > lo && (packed[j - 1] as number) < v) {
          packed[j] = packed[j - 1] as number
          j--
        }
        packed[j] = v
      }
      packed[lo - 1] = end - lo
      packed.fill(0, end, offset[w + 1] as number)
    }
  }
  reload()
  const betaSumC = V * beta

  let sink = 0
  const run = (ra: number, rb: number, rc: number, rd: number): void => {
    const w = arrays.wasm
    if (w === undefined) {
      sweepImpl(ra, rb, rc, rd, tokens, z, ndk, nk, packed, offset, coef, local)
      return
    }
    // the tables the caller may read or change between sweeps travel in and out of the module's memory
    w.z.set(z)
    w.ndk.set(ndk)
    w.nk.set(nk)
    w.sweep(ra, rb, rc, rd, state.D, K, bitsC, ...w.addresses, alphaC, betaC, betaSumC)
    z.set(w.z)
    ndk.set(w.ndk)
    nk.set(w.nk)
  }
  const sweep = (u: FastUniform): void => {
    run(u.nextUint32() | 0, u.nextUint32() | 0, u.nextUint32() | 0, u.nextUint32() | 1)
  }
  const sweepFrom = (a: number, b: number, c: number, d: number): void => {
    run(a | 0, b | 0, c | 0, d | 1)
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
    local: Int32Array,
  ): void => {
    const K = state.K
    const D = state.D
    const docStart = state.docStart
    const bits = bitsC
    const mask = maskC
    const alpha = alphaC
    const beta = betaC
    const betaSum = betaSumC
    // The per-token uniforms come from a xoshiro128** stream held in locals (ra, rb, rc, rd), seeded
    // from u once per sweep: calling u.next() per token costs a property load/store round trip on u's
    // state (boxed, as the 32-bit words do not fit a small integer) that dominated the token cost.
    let pf = 0
    const one = 1 << bits
    // 1/(Vβ + n_k) and 1/(Vβ + n_k − 1) per topic: removing a token needs the second, so no division
    // waits on the draw; they are recomputed only for the two topics of a token that moves.
    const invDen = invDenC
    const invDown = invDownC
    for (let k = 0; k < K; k++) {
      invDen[k] = 1 / ((nk[k] as number) + betaSum)
      invDown[k] = 1 / ((nk[k] as number) - 1 + betaSum)
    }
    for (let d = 0; d < D; d++) {
      const a = docStart[d] as number
      const b = docStart[d + 1] as number
      // document setup: s + r = β·Σ_k coef_k, one sum (their split matters only for the rare draw there)
      let cSum = 0
      for (let k = 0; k < K; k++) {
        const c = ndk[d * K + k] as number
        local[k] = c
        const cf = (alpha + c) * (invDen[k] as number)
        coef[k] = cf
        cSum += cf
      }
      let prevW = -1
      let qMass = 0
      for (let i = a; i < b; i++) {
        const w = tokens[i] as number
        const old = z[i] as number
        // remove the token from the document and topic totals (keeping what a draw of the same
        // topic restores: most draws keep the topic once the chain has mixed)
        const c = (local[old] as number) - 1
        local[old] = c
        nk[old] = (nk[old] as number) - 1
        const coefOldBefore = coef[old] as number
        const coefOld = (alpha + c) * (invDown[old] as number)
        coef[old] = coefOld
        const cSum0 = cSum
        cSum += coefOld - coefOldBefore
        const lo = (offset[w] as number) + 1
        let end = lo + (packed[lo - 1] as number)
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
            idx++
          }
          end = decrementAt(packed, idx, end, one)
          packed[lo - 1] = end - lo
          while (idx < end) {
            const v = packed[idx] as number
            qMass += (coef[v & mask] as number) * (v >> bits)
            idx++
          }
        } else {
          // a repeat of the previous token's word: q changed only at the topics that token and
          // this one moved, so its mass is updated in O(1)
          let idx = lo
          while (((packed[idx] as number) & mask) !== old) idx++
          const n = (packed[idx] as number) >> bits
          qMass += coefOld * (n - 1) - coefOldBefore * n
          end = decrementAt(packed, idx, end, one)
          packed[lo - 1] = end - lo
          if (end === lo) qMass = 0
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
        let x = (rr >>> 0) * 2.3283064365386963e-10 * (beta * cSum + qMass)
        let nt: number
        let nBefore: number
        if (x < qMass && end > lo) {
          // the q bucket: a scan of the word's list, heaviest topics first
          let j = lo
          const last = end - 1
          for (; j < last; j++) {
            const v = packed[j] as number
            x -= (coef[v & mask] as number) * (v >> bits)
            if (x < 0) break
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
          // s + r (under 1 % of the mass at K = 50 once mixed): a scan over every topic's β·coef_k
          x = (x - qMass) / beta
          nt = K - 1
          for (let t = 0; t < K; t++) {
            x -= coef[t] as number
            if (x <= 0) {
              nt = t
              break
            }
          }
          // increment n_wk for the new topic (insert if absent)
          let j = lo
          while (j < end && ((packed[j] as number) & mask) !== nt) j++
          let v: number
          if (j === end) {
            // a list holds at most min(K, f_w) topics, f_w its row sum when the sampler was made; one more
            // means the counts were changed behind the sampler (see listOverflow): stop, never write past
            if (end === (offset[w + 1] as number)) throw listOverflow(w, packed, lo, end, nt, bits)
            v = one | nt
            packed[lo - 1] = end + 1 - lo
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
          local[old] = c + 1
          nk[old] = (nk[old] as number) + 1
          cSum = cSum0
          qMass += coefOldBefore * (nBefore + 1) - coefOld * nBefore
          coef[old] = coefOldBefore
          continue
        }
        // the token moved: n_k of the old topic stays one lower, the new topic's one higher
        invDen[old] = invDown[old] as number
        invDown[old] = 1 / ((nk[old] as number) - 1 + betaSum)
        const cn = (local[nt] as number) + 1
        local[nt] = cn
        const nkn = (nk[nt] as number) + 1
        nk[nt] = nkn
        invDown[nt] = invDen[nt] as number
        const inv = 1 / (nkn + betaSum)
        invDen[nt] = inv
        const coefNew = (alpha + cn) * inv
        const coefNtBefore = coef[nt] as number
        // keep q's mass current for a repeat of this word: topic nt's term moved from
        // coef·n to coef′·(n + 1)
        qMass += coefNew * (nBefore + 1) - coefNtBefore * nBefore
        cSum += coefNew - coefNtBefore
        coef[nt] = coefNew
      }
      for (let k = 0; k < K; k++) ndk[d * K + k] = local[k] as number
    }
    sink ^= pf
  }

  const syncDense = (): void => {
    nwk.fill(0)
    for (let w = 0; w < V; w++)
      for (let j = (offset[w] as number) + 1; j < (offset[w + 1] as number); j++) {
        const v = packed[j] as number
        if (v <= 0) break
        nwk[w * K + (v & mask)] = v >> bits
      }
  }
  return { state, sweep, sweepFrom, syncDense, reload }
}

/** The sampler's arrays, in the WebAssembly module's memory where that engine runs (with their byte addresses). */
interface SamplerArrays {
  readonly offset: Int32Array
  readonly packed: Int32Array
  readonly coef: Float64Array
  readonly invDen: Float64Array
  readonly invDown: Float64Array
  readonly local: Int32Array
  readonly wasm?: {
    readonly sweep: (...args: number[]) => void
    readonly z: Int32Array
    readonly ndk: Int32Array
    readonly nk: Int32Array
    /** tokens, z, docStart, ndk, nk, packed, offset, coef, local, invDen, invDown */
    readonly addresses: readonly number[]
  }
}

const allocate = (state: GibbsState, offset: Int32Array, engine: SparseEngine): SamplerArrays => {
  const { K, tokens, z, docStart, ndk, nk } = state
  const P = offset[offset.length - 1] as number
  const plain = (): SamplerArrays => ({
    offset,
    packed: new Int32Array(P),
    coef: new Float64Array(K),
    invDen: new Float64Array(K),
    invDown: new Float64Array(K),
    local: new Int32Array(K),
  })
  if (engine === 'js') return plain()
  // byte layout: the f64 arrays first (8-aligned), then the i32 arrays; a spare entry after `packed`
  // (the insertion search may read one entry past a full list before it stops)
  const i32Lengths = [tokens.length, z.length, docStart.length, ndk.length, nk.length, P + 1, offset.length, K]
  const bytes = 3 * 8 * K + 4 * i32Lengths.reduce((s, n) => s + n, 0)
  const w = wasmSparseSweep(bytes)
  if (w === undefined) return plain()
  let at = 0
  const f64 = (n: number): [Float64Array, number] => {
    const a = new Float64Array(w.buffer, at, n)
    at += 8 * n
    return [a, a.byteOffset]
  }
  const i32 = (n: number): [Int32Array, number] => {
    const a = new Int32Array(w.buffer, at, n)
    at += 4 * n
    return [a, a.byteOffset]
  }
  const [coef, aCoef] = f64(K)
  const [invDen, aInvDen] = f64(K)
  const [invDown, aInvDown] = f64(K)
  const [wTokens, aTokens] = i32(tokens.length)
  const [wZ, aZ] = i32(z.length)
  const [wDoc, aDoc] = i32(docStart.length)
  const [wNdk, aNdk] = i32(ndk.length)
  const [wNk, aNk] = i32(nk.length)
  const [packed, aPacked] = i32(P + 1)
  const [wOffset, aOffset] = i32(offset.length)
  const [local, aLocal] = i32(K)
  wTokens.set(tokens)
  wDoc.set(docStart)
  wOffset.set(offset)
  return {
    offset: wOffset,
    packed: packed.subarray(0, P),
    coef,
    invDen,
    invDown,
    local,
    wasm: { sweep: w.sweep, z: wZ, ndk: wNdk, nk: wNk, addresses: [aTokens, aZ, aDoc, aNdk, aNk, aPacked, aOffset, aCoef, aLocal, aInvDen, aInvDown] },
  }
}

/**
 * The error of a word list that would grow past its capacity min(K, f_w): the sampler was made (or
 * reloaded) from counts whose row sum for the word is not the f_w it was sized for, e.g. n_wk read
 * while another thread was still writing it. The JavaScript loop would otherwise write into the next
 * word's list (or past the array, silently); the WebAssembly sweep traps out of bounds.
 */
const listOverflow = (w: number, packed: Int32Array, lo: number, end: number, topic: number, bits: number): Error => {
  let sum = 0
  const counts: string[] = []
  for (let j = lo; j < end; j++) {
    const v = packed[j] as number
    sum += v >> bits
    counts.push(`${v & ((1 << bits) - 1)}:${v >> bits}`)
  }
  return new RangeError(
    `SparseLDA: word ${w}'s topic list is full (capacity ${end - lo} topics, counts topic:count ${counts.join(' ')}, sum ${sum + 1} with the token being placed) and topic ${topic} would be one more: the word-topic counts changed behind the sampler since it was made`,
  )
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
