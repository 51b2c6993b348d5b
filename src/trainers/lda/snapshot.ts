/**
 * Gibbs sweeps against released (noisy, clipped) topic-word counts, the sampler of the private
 * trainers. Each iteration the trainer releases n̂ (paper 001 Alg. 1 line 9; paper 000 Alg. 1)
 * and the topic of every visited token is drawn from
 *
 *   p(z_i = k | ·) ∝ q_wk · (n_dk^{¬i} + α),   q_wk = (min(max(n̂_wk, 0), C) + β) / (max(n̂_k, 0) + Vβ)
 *
 * (paper 001 Alg. 1 lines 12–13; negative noisy counts are clipped at 0 so p is a distribution).
 * The word factor q is a function of the release only and is fixed for the sweep: this is the
 * reading under which the proof of paper 001 Theorem 3 (eq. 30) holds — the related words'
 * sampling probabilities are identical under D and D′ because they see only privatised counts.
 * The document factor is exact and live. The true counts (for the next release) are recounted
 * from z after each sweep.
 *
 * The draw splits into a dense bucket α·Σ_k q_wk and a sparse bucket Σ_{k: n_dk > 0} n_dk q_wk
 * over the document's non-zero topics (see `sparseSweep`). No allocation per token.
 *
 * Randomness: every draw consumes one 32-bit word, taken from the caller's WordStream in one block
 * per sweep (node:crypto by default, through the release gate): the topic draws whose inherent
 * privacy the plan claims are as secret as the noise.
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import type { GibbsState } from './state.js'

export interface SnapshotSampler {
  /** Rebuilds q from a release n̂ (V×K word-major), multiplied by `scale` first (1/γ for SUB-LDA). */
  readonly setRelease: (noisy: Float64Array, scale: number) => void
  /**
   * One sweep; `include` (optional) decides per token whether it is visited this iteration
   * (Poisson subsampling), as a 0/1 byte per token.
   */
  readonly sweep: (words: WordStream, include?: Uint8Array) => void
  /**
   * One dense sweep in which the document factor is also noisy: (max(n_dk^{¬i} + η_dk, 0) + α),
   * η fixed for the sweep (CDP-LDA, CDP-LDA+: Laplace on the document-topic counts).
   */
  readonly sweepWithDocNoise: (words: WordStream, docNoise: Float64Array) => void
}

export const makeSnapshotSampler = (state: GibbsState, alpha: number, beta: number, clip: number): SnapshotSampler => {
  const { K, V, D, tokens, docStart, z, ndk, nwk, nk } = state
  // q stays in double precision: single precision measured ~5 % faster, but its rounding would
  // loosen the ratio bound behind ε_I (paper 001 eq. 7) by ~1e-7, which the plan does not declare.
  const q = new Float64Array(V * K)
  const qsum = new Float64Array(V) // Σ_k q_wk, the dense bucket's mass / α
  const scores = new Float64Array(K)
  const nzTopics = new Int32Array(K)
  const nzCount = new Int32Array(K)
  const nzPos = new Int32Array(K)
  const tot = new Float64Array(K)
  const draws = new Uint32Array(tokens.length) // one random word per visited token, refilled per sweep

  const setRelease = (noisy: Float64Array, scale: number): void => {
    tot.fill(0)
    for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) tot[k] = (tot[k] as number) + (noisy[w * K + k] as number) * scale
    for (let k = 0; k < K; k++) tot[k] = 1 / (Math.max(0, tot[k] as number) + V * beta)
    for (let w = 0; w < V; w++) {
      let s = 0
      for (let k = 0; k < K; k++) {
        const c = Math.min(Math.max((noisy[w * K + k] as number) * scale, 0), clip)
        const v = (c + beta) * (tot[k] as number)
        q[w * K + k] = v
        s += v
      }
      qsum[w] = s
    }
  }

  const sweep = (words: WordStream, include?: Uint8Array): void => {
    let n = tokens.length
    if (include !== undefined) {
      n = 0
      for (let i = 0; i < include.length; i++) n += include[i] as number
    }
    words.fillWords(draws.subarray(0, n))
    sparseSweep(K, D, tokens, docStart, z, ndk, q, qsum, nzTopics, nzCount, nzPos, alpha, draws, include)
    recount(K, tokens, z, nwk, nk)
  }
  const sweepWithDocNoise = (words: WordStream, docNoise: Float64Array): void => {
    words.fillWords(draws)
    let r = 0
    for (let d = 0; d < D; d++) {
      const a = docStart[d] as number
      const b = docStart[d + 1] as number
      const db = d * K
      for (let i = a; i < b; i++) {
        const w = tokens[i] as number
        const old = z[i] as number
        ndk[db + old] = (ndk[db + old] as number) - 1
        const base = w * K
        let s = 0
        for (let k = 0; k < K; k++) {
          s += (q[base + k] as number) * (Math.max((ndk[db + k] as number) + (docNoise[db + k] as number), 0) + alpha)
          scores[k] = s
        }
        const x = (draws[r++] as number) * 2.3283064365386963e-10 * s
        let nt = 0
        while (nt < K - 1 && (scores[nt] as number) <= x) nt++
        z[i] = nt
        ndk[db + nt] = (ndk[db + nt] as number) + 1
        if (nt !== old) {
          nwk[base + old] = (nwk[base + old] as number) - 1
          nwk[base + nt] = (nwk[base + nt] as number) + 1
          nk[old] = (nk[old] as number) - 1
          nk[nt] = (nk[nt] as number) + 1
        }
      }
    }
  }
  return { setRelease, sweep, sweepWithDocNoise }
}

/**
 * The sweep of `makeSnapshotSampler`, a top-level function whose state arrives as parameters
 * (locals in the hot loop, not closure slots). Target per token: p(k) ∝ (n_dk + α)·q_wk, split
 * into the document bucket r = Σ_{k: n_dk > 0} n_dk q_wk over the document's non-zero topics and
 * the dense bucket α·Σ_k q_wk (precomputed per word, rarely hit).
 * - Along a run of the same word (repeats in reading order) r changes only through the two counts
 *   the token moves, so it is summed at the first token of a run and updated in O(1) after that.
 * - The document's non-zero topics are kept sorted by decreasing count (topic and count in
 *   parallel arrays), so the linear scan that locates the draw meets the heavy topics first.
 *
 * Rounding: along a run r carries the rounding of a few hundred additions (relative error
 * ~1e-14); a draw landing in that last sliver goes to the last topic of the scan, a bias far
 * below anything a sweep can resolve.
 */
const sparseSweep = (
  K: number,
  D: number,
  tokens: Int32Array,
  docStart: Int32Array,
  z: Int32Array,
  ndk: Int32Array,
  q: Float64Array,
  qsum: Float64Array,
  nzTopics: Int32Array,
  nzCount: Int32Array,
  nzPos: Int32Array,
  alpha: number,
  draws: Uint32Array,
  include: Uint8Array | undefined,
): void => {
  const subsampled = include !== undefined
  let r = 0 // next unused word of `draws` (one per visited token)
  for (let d = 0; d < D; d++) {
    const a = docStart[d] as number
    const b = docStart[d + 1] as number
    const db = d * K
    let nnz = 0
    for (let k = 0; k < K; k++) {
      const c = ndk[db + k] as number
      nzPos[k] = -1
      if (c > 0) raiseTopic(nzTopics, nzCount, nzPos, nnz++, k, c)
    }
    let prevW = -1
    let rMass = 0
    for (let i = a; i < b; i++) {
      if (subsampled && include[i] === 0) continue
      const w = tokens[i] as number
      const old = z[i] as number
      const base = w * K
      // remove the token: its topic's count drops by one and moves towards the end
      {
        let p = nzPos[old] as number
        const c = (nzCount[p] as number) - 1
        if (c === 0) {
          // every later entry has count 1 (sorted), so the last one may take this place
          const last = --nnz
          const t = nzTopics[last] as number
          nzTopics[p] = t
          nzCount[p] = nzCount[last] as number
          nzPos[t] = p
          nzPos[old] = -1
        } else {
          while (p + 1 < nnz && (nzCount[p + 1] as number) > c) {
            const t = nzTopics[p + 1] as number
            nzTopics[p] = t
            nzCount[p] = nzCount[p + 1] as number
            nzPos[t] = p
            p++
          }
          nzTopics[p] = old
          nzCount[p] = c
          nzPos[old] = p
        }
      }
      if (w !== prevW) {
        prevW = w
        let r0 = 0
        let r1 = 0
        let j = 0
        for (; j + 1 < nnz; j += 2) {
          r0 += (nzCount[j] as number) * (q[base + (nzTopics[j] as number)] as number)
          r1 += (nzCount[j + 1] as number) * (q[base + (nzTopics[j + 1] as number)] as number)
        }
        if (j < nnz) r0 += (nzCount[j] as number) * (q[base + (nzTopics[j] as number)] as number)
        rMass = r0 + r1
      } else rMass = nnz === 0 ? 0 : rMass - (q[base + old] as number)
      let x = (draws[r++] as number) * 2.3283064365386963e-10 * (rMass + alpha * (qsum[w] as number))
      let nt: number
      if (x < rMass) {
        nt = nzTopics[nnz - 1] as number
        for (let j = 0; j < nnz; j++) {
          x -= (nzCount[j] as number) * (q[base + (nzTopics[j] as number)] as number)
          if (x < 0) {
            nt = nzTopics[j] as number
            break
          }
        }
      } else {
        x = (x - rMass) / alpha
        nt = K - 1
        for (let t = 0; t < K; t++) {
          x -= q[base + t] as number
          if (x < 0) {
            nt = t
            break
          }
        }
      }
      z[i] = nt
      // add the token back: its new topic's count rises by one and moves towards the front
      {
        const p = nzPos[nt] as number
        if (p < 0) raiseTopic(nzTopics, nzCount, nzPos, nnz++, nt, 1)
        else raiseTopic(nzTopics, nzCount, nzPos, p, nt, (nzCount[p] as number) + 1)
      }
      rMass += q[base + nt] as number
    }
    for (let k = 0; k < K; k++) ndk[db + k] = 0
    for (let j = 0; j < nnz; j++) ndk[db + (nzTopics[j] as number)] = nzCount[j] as number
  }
}

/**
 * Gives topic `t` the count `c` at position `p` of the document's topic list (sorted by decreasing
 * count) and moves it towards the front past every entry with a smaller count. `p` may be the
 * free slot at the end (a topic entering the list).
 */
const raiseTopic = (nzTopics: Int32Array, nzCount: Int32Array, nzPos: Int32Array, p: number, t: number, c: number): void => {
  while (p > 0 && (nzCount[p - 1] as number) < c) {
    const u = nzTopics[p - 1] as number
    nzTopics[p] = u
    nzCount[p] = nzCount[p - 1] as number
    nzPos[u] = p
    p--
  }
  nzTopics[p] = t
  nzCount[p] = c
  nzPos[t] = p
}

/**
 * The true word-topic counts (for the next release), recounted from z after a sweep: the sweep
 * reads only the release, and a streaming recount costs less than updating a word's count row on
 * every move. (A function of its own: code after the sweep's hot loop, compiled without type
 * feedback, deoptimised the sweep at every exit.)
 */
const recount = (K: number, tokens: Int32Array, z: Int32Array, nwk: Int32Array, nk: Int32Array): void => {
  nwk.fill(0)
  nk.fill(0)
  for (let i = 0; i < tokens.length; i++) {
    const k = z[i] as number
    const cell = (tokens[i] as number) * K + k
    nwk[cell] = (nwk[cell] as number) + 1
    nk[k] = (nk[k] as number) + 1
  }
}
