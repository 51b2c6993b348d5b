/**
 * Gibbs sweeps against released (noisy, clipped) topic-word counts, the sampler of the private
 * trainers. Each iteration the trainer releases n̂ (Zhao et al., HDP-LDA Alg. 1 line 9; SUB-LDA paper,
 * Alg. 1) and the topic of every visited token is drawn from
 *
 *   p(z_i = k | ·) ∝ q_wk · (n_dk^{¬i} + α),   q_wk = (min(max(n̂_wk, 0), C) + β) / (max(n̂_k, 0) + Vβ)
 *
 * (Zhao et al. Alg. 1 lines 12–13; negative noisy counts are clipped at 0 so p is a distribution).
 * The word factor q is a function of the release only and is fixed for the sweep: this is the
 * reading under which the proof of Zhao et al.'s Theorem 3 (eq. 30) holds — the related words'
 * sampling probabilities are identical under D and D′ because they see only privatised counts.
 * The document factor is exact and live. The true counts (for the next release) are recounted
 * from z after each sweep.
 *
 * The draw splits into a dense bucket α·Σ_k q_wk and a sparse bucket Σ_{k: n_dk > 0} n_dk q_wk
 * over the document's non-zero topics (see `sparseSweep`). No allocation per token.
 *
 * Exact draws (`sweep`): the mechanism that runs is the categorical over the double-precision
 * weights fl(n_dk·q_wk) (document bucket, k with n_dk > 0) and fl(α·q_wk) (dense bucket, every k),
 * each one rounded product of doubles, formed the same way for every k: topic k is drawn with
 * probability exactly (fl(n_dk·q_wk) + fl(α·q_wk)) / Σ (real arithmetic on the doubles), not a
 * rounding of it. A fast path decides from one 32-bit word whenever a rigorous error bound shows
 * that no later bits and no rounding within the bound could change the decision; otherwise
 * (probability about (nnz + K)·2^-32 per draw) the exact path of exact-draw.ts decides with exact
 * sums and more words. How far these weights are from the paper's ideal p is bounded in hdp.ts
 * (`inherentEpsilon`), whose ε_I covers it. The dense sweep with noisy document counts
 * (`sweepWithDocNoise`, CDP-LDA, whose draws no plan claims as private) still draws on the 2^-32 grid.
 *
 * Randomness: every draw consumes one 32-bit word, taken from the caller's WordStream in one block
 * per sweep (node:crypto by default, through the release gate): the topic draws whose inherent
 * privacy the plan claims are as secret as the noise. A draw the fast path cannot decide reads its
 * further words from the same stream after the block, so a sweep consumes N words plus, rarely, a
 * few more (which shifts later words of a seeded stream; the words stay independent).
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { exactDraw, scanCoefficient, TINY, UNIT_ROUNDOFF } from './exact-draw.js'
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
  // loosen the ratio bound behind ε_I (Zhao et al. eq. 7) by ~1e-7, which the plan does not declare.
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
    sparseSweep(K, D, tokens, docStart, z, ndk, q, qsum, nzTopics, nzCount, nzPos, alpha, draws, include, words)
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
 * Exactness. The mechanism is the categorical over the list L = (fl(n_j·q_{w,t_j}) for the
 * document's topics t_j in list order, then fl(α·q_wk) for k = 0..K−1); entry i is drawn with
 * probability L_i/ΣL, by inversion of a uniform U whose first 32 bits are the token's word m. The
 * fast path below is the specialised copy of exact-draw.ts's `fastDraw` (a deliberate copy for the
 * hot loop: its weights are formed on the fly), with these error terms (u = 2^-53, each double
 * operation exact up to a factor 1 + δ, |δ| ≤ u; subnormal products covered by TINY):
 * - R̃ = the document mass as computed, |R̃ − R| ≤ eR, R the exact sum of the document entries.
 *   Summed afresh (two accumulators over nnz terms): |R̃ − R| ≤ nnz·u·R(1 + 2nnz·u), and eR =
 *   2(nnz + 1)·u·R̃ covers it. Along a run R̃ is updated by ∓q (not by the exact change of the
 *   rounded product, fl(c·q) − fl((c ∓ 1)·q) = q + ζ with |ζ| ≤ 2u·c·q ≤ 2u(R̃ + eR)/(1 − u)), and the
 *   update's own rounding adds u·|R̃_new|: each update adds ≤ 3.001u·R̃ + 2.001u·eR, so the bound is
 *   carried along the run as eR += 4u·(eR + R̃) (R̃ the larger of the masses before and after).
 *   Carrying costs one multiply-add per token; recomputing r at every token of a run would cost
 *   O(nnz), and the by-word order makes runs long.
 * - D̃ = fl(α·qsum[w]), qsum a recursive sum of K doubles: |D̃ − Σ_k fl(α·q_wk)| ≤ (K + 2)·u·D̃.
 * - W̃ = fl(R̃ + D̃), x̃ = fl(m·2^-32·W̃): |x̃ − m·2^-32·W| ≤ eR + (K + 2)·u·D̃ + 2u·W̃.
 * - residuals: at most nnz (document bucket) or 1 + K (dense: x̃ − R̃, then K subtractions) rounded
 *   subtractions, each ≤ u·W̃(1 + 2Ku), and x̃ − R̃ carries eR once more.
 * Total: any residual is within E₀ = 2eR + (2K + 6)·u·W̃·(1 + 2^-20) + 2^-32·(eR + (K + 2)u·W̃)
 * of m·2^-32·W − P_{i−1}; E = 3eR + (4K + 12)·u·W̃ + TINY bounds it with a margin of about 2× for
 * the rounding of E itself. Entry i is then certain for every continuation of U's bits if its
 * residual before the subtraction is ≥ E and after it ≤ −(E + 2^-32·W̃) (the interval of width
 * 2^-32·W lies inside [P_{i−1}, P_i)). A scan that falls out of its bucket or misses a margin goes
 * to the exact path, which decides on the same list L in the same order, so the map from U to the
 * entry is the exact inversion and P(entry i) = L_i/ΣL.
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
  words: WordStream,
): void => {
  const subsampled = include !== undefined
  const cW = scanCoefficient(K + 1) // (4K + 12)·u
  const U2 = 2 * UNIT_ROUNDOFF
  const U4 = 4 * UNIT_ROUNDOFF
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
    let eR = 0 // bound on |rMass − the exact sum of the document entries|
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
        eR = rMass * (nnz + 1) * U2
      } else if (nnz === 0) {
        rMass = 0
        eR = 0
      } else {
        eR += (eR + rMass) * U4
        rMass -= q[base + old] as number
      }
      const total = rMass + alpha * (qsum[w] as number)
      const m = draws[r++] as number
      const e = 3 * eR + total * cW + TINY
      const g = total * 2.3283064365386963e-10 // 2^-32·W̃, exact
      let x = m * 2.3283064365386963e-10 * total
      let nt = -1
      if (x < rMass) {
        for (let j = 0; j < nnz; j++) {
          const xp = x
          x = xp - (nzCount[j] as number) * (q[base + (nzTopics[j] as number)] as number)
          if (x < 0) {
            if (xp >= e && x <= -(e + g)) nt = nzTopics[j] as number
            break
          }
        }
      } else {
        x -= rMass
        for (let t = 0; t < K; t++) {
          const xp = x
          x = xp - alpha * (q[base + t] as number)
          if (x < 0) {
            if (xp >= e && x <= -(e + g)) nt = t
            break
          }
        }
      }
      if (nt < 0) nt = slowDraw(K, nnz, nzTopics, nzCount, q, base, alpha, m, words)
      z[i] = nt
      // add the token back: its new topic's count rises by one and moves towards the front
      {
        const p = nzPos[nt] as number
        if (p < 0) raiseTopic(nzTopics, nzCount, nzPos, nnz++, nt, 1)
        else raiseTopic(nzTopics, nzCount, nzPos, p, nt, (nzCount[p] as number) + 1)
      }
      rMass += q[base + nt] as number
      eR += (eR + rMass) * U4
    }
    for (let k = 0; k < K; k++) ndk[db + k] = 0
    for (let j = 0; j < nnz; j++) ndk[db + (nzTopics[j] as number)] = nzCount[j] as number
  }
}

/**
 * The exact path of a draw the fast path could not decide: the list L of `sparseSweep` (document
 * entries in list order, then the dense entries), each weight formed by the same product as in the
 * fast path, drawn by exact-draw.ts with `m` as U's first word and further words from `words`.
 * Rare (about (nnz + K)·2^-32 per draw); it allocates.
 */
const slowDraw = (
  K: number,
  nnz: number,
  nzTopics: Int32Array,
  nzCount: Int32Array,
  q: Float64Array,
  base: number,
  alpha: number,
  m: number,
  words: WordStream,
): number => {
  const list = new Float64Array(nnz + K)
  for (let j = 0; j < nnz; j++) list[j] = (nzCount[j] as number) * (q[base + (nzTopics[j] as number)] as number)
  for (let t = 0; t < K; t++) list[nnz + t] = alpha * (q[base + t] as number)
  const i = exactDraw(list, nnz + K, m, () => words.nextUint32())
  return i < nnz ? (nzTopics[i] as number) : i - nnz
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
