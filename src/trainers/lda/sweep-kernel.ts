/**
 * The kernels of the private trainers' Gibbs sweep (snapshot.ts), written over a range of
 * documents [d0, d1) and plain typed arrays so that the same code runs on the calling thread and on
 * worker threads (./parallel). Within a sweep every token's topic is drawn from the iteration's
 * released word factor q (read only) and its own document's counts n_dk, so the documents are
 * independent given the release: sweeping them in any grouping, on any number of threads, draws
 * from exactly the same distribution — no approximation (unlike AD-LDA for the non-private CGS).
 *
 * Randomness of a sweep (`SweepRandomness`), one 32-bit word per visited token:
 * - `crypto`: the words come straight from node:crypto (`randomFillSync`) on whichever thread
 *   sweeps the range — as secret as the release noise; no two threads share a stream.
 * - `keyed`: a reproducible run (a seed, or a test's stub of the secure source). Two 128-bit keys
 *   are drawn from the run's word source once per sweep; document d's words are a xoshiro128**
 *   stream whose state is derived from (key, d), and the rare further words of an exact draw the
 *   first word could not settle (`slowDraw`) come from a stream derived from (extra key, token
 *   position). Every word is thus a function of the run's source, the document and the position —
 *   never of which thread swept it — so a seeded run writes the same model with any number of
 *   workers.
 *
 * @module
 */
import { randomFillSync } from 'node:crypto'
import { exactDraw, scanCoefficient, TINY, UNIT_ROUNDOFF } from './exact-draw.js'

/** Where a sweep's words come from (see the module comment); keys are four 32-bit words each. */
export type SweepRandomness = { readonly kind: 'crypto' } | { readonly kind: 'keyed'; readonly key: Uint32Array; readonly extraKey: Uint32Array }

/** The further words of token i's exact draw, when its first word cannot settle it. */
export type ExtraWords = (token: number) => () => number

/** MurmurHash3's 32-bit finaliser (Appleby): a bijection of 32-bit words with full avalanche. */
const fmix32 = (x: number): number => {
  let h = x ^ (x >>> 16)
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) | 0
}

/**
 * The xoshiro128** state of stream `index` under `key`: each state word is the key word mixed with
 * a hash of (index, word number), so streams of neighbouring indices share no structure; the last
 * word is made odd (the state is never zero).
 */
export const keyedState = (key: Uint32Array, index: number, out: Int32Array): Int32Array => {
  const h = fmix32(Math.imul(index, 0x9e3779b9) ^ fmix32(index ^ 0x5bd1e995))
  for (let j = 0; j < 4; j++) out[j] = fmix32((key[j] as number) ^ fmix32(h + Math.imul(j + 1, 0x7feb352d)))
  out[3] = (out[3] as number) | 1
  return out
}

/** Words from a xoshiro128** state (the generator of core/words.ts), advancing it. */
const keyedNext = (s: Int32Array): number => {
  const a = s[0] as number
  const b = s[1] as number
  let c = s[2] as number
  let d = s[3] as number
  const m = Math.imul(b, 5)
  const r = Math.imul((m << 7) | (m >>> 25), 9)
  const t = b << 9
  c ^= a
  d ^= b
  s[1] = b ^ c
  s[0] = a ^ d
  s[2] = c ^ t
  s[3] = (d << 11) | (d >>> 21)
  return r >>> 0
}

/** The extra-word source of a sweep: node:crypto, or the stream keyed by the token's position. */
export const extraWords = (rand: SweepRandomness): ExtraWords => {
  if (rand.kind === 'crypto') {
    const buf = new Uint32Array(1)
    const next = (): number => {
      randomFillSync(buf)
      return buf[0] as number
    }
    return () => next
  }
  return (i) => {
    const s = keyedState(rand.extraKey, i, new Int32Array(4))
    return () => keyedNext(s)
  }
}

/** Words per node:crypto call of `cryptoDraws`: 64 KiB, the size the table noise's streams measured best (docs/trainers.md). */
const CRYPTO_DRAW_WORDS = 1 << 14

/**
 * A thread's supply of node:crypto first words for its sweeps: `fill(out)` writes the next out.length
 * words, drawn CRYPTO_DRAW_WORDS at a time. One randomFillSync per chunk of documents cost ~7 µs a
 * call before its bytes (on 2 threads, 32 chunks each per sweep: the words took ×4 per token what one
 * thread's single call does); words left over serve the next sweep — fresh secret words, never read
 * by anything else.
 */
export const cryptoDraws = (): ((out: Uint32Array) => void) => {
  const buf = new Uint32Array(CRYPTO_DRAW_WORDS)
  let pos = buf.length
  return (out) => {
    for (let o = 0; o < out.length; ) {
      if (pos === buf.length) {
        randomFillSync(buf)
        pos = 0
      }
      const n = Math.min(out.length - o, buf.length - pos)
      out.set(buf.subarray(pos, pos + n), o)
      pos += n
      o += n
    }
  }
}

/**
 * Fills `draws` with the first word of every visited token of documents [d0, d1), in order from
 * position docStart[d0] (the layout `sparseSweep` and `docNoiseSweep` read).
 */
export const fillRangeDraws = (rand: SweepRandomness, d0: number, d1: number, docStart: Int32Array, include: Uint8Array | undefined, draws: Uint32Array): void => {
  const a = docStart[d0] as number
  const b = docStart[d1] as number
  if (rand.kind === 'crypto') {
    let n = b - a
    if (include !== undefined) {
      n = 0
      for (let i = a; i < b; i++) n += include[i] as number
    }
    // randomFillSync takes at most 2^31 − 1 bytes a call
    for (let from = a; from < a + n; from += 1 << 28) randomFillSync(draws.subarray(from, Math.min(a + n, from + (1 << 28))))
    return
  }
  const s = new Int32Array(4)
  let r = a
  for (let d = d0; d < d1; d++) {
    keyedState(rand.key, d, s)
    let sa = s[0] as number
    let sb = s[1] as number
    let sc = s[2] as number
    let sd = s[3] as number
    const end = docStart[d + 1] as number
    for (let i = docStart[d] as number; i < end; i++) {
      if (include !== undefined && include[i] === 0) continue
      // inline xoshiro128** step (as keyedNext), one word per visited token
      const m = Math.imul(sb, 5)
      draws[r++] = Math.imul((m << 7) | (m >>> 25), 9)
      const t = sb << 9
      sc ^= sa
      sd ^= sb
      sb ^= sc
      sa ^= sd
      sc ^= t
      sd = (sd << 11) | (sd >>> 21)
    }
  }
}

/**
 * The dense sweep of documents [d0, d1) whose document factor is also noisy (CDP-LDA, CDP-LDA+):
 * p(k) ∝ q_wk·(max(n_dk^{¬i} + η_dk, 0) + α), η fixed for the sweep; the draw on the 2^-32 grid
 * of the token's word (no plan claims these draws as private). z and n_dk are updated; the
 * word-topic counts are counted afterwards (by rows: parallel/release-work.ts `countCells`).
 * The document factors max(n_dk + η_dk, 0) + α are kept in `docFactor` (K) for the document and
 * formed again only for the two topics a token changes: the token's loop is then one product and
 * one sum per topic (the same doubles as forming every factor at every token, so the same draws;
 * the whole 1-worker CDP-LDA+ fit on Brown, K = 50: ×0.71–0.74 the CPU, `node bench/lda-fit-ab.mjs … --trainer cdpLdaPlus`;
 * locating the draw by bisection instead of the scan measured within noise, ×0.95–1.02: the time is the
 * chain of K dependent sums).
 */
export const docNoiseSweep = (
  K: number,
  d0: number,
  d1: number,
  tokens: Int32Array,
  docStart: Int32Array,
  z: Int32Array,
  ndk: Int32Array,
  q: Float64Array,
  alpha: number,
  docNoise: Float64Array,
  scores: Float64Array,
  docFactor: Float64Array,
  draws: Uint32Array,
): void => {
  let r = docStart[d0] as number
  for (let d = d0; d < d1; d++) {
    const a = docStart[d] as number
    const b = docStart[d + 1] as number
    const db = d * K
    for (let k = 0; k < K; k++) docFactor[k] = Math.max((ndk[db + k] as number) + (docNoise[db + k] as number), 0) + alpha
    for (let i = a; i < b; i++) {
      const base = (tokens[i] as number) * K
      const old = z[i] as number
      ndk[db + old] = (ndk[db + old] as number) - 1
      docFactor[old] = Math.max((ndk[db + old] as number) + (docNoise[db + old] as number), 0) + alpha
      let s = 0
      for (let k = 0; k < K; k++) {
        s += (q[base + k] as number) * (docFactor[k] as number)
        scores[k] = s
      }
      const x = (draws[r++] as number) * 2.3283064365386963e-10 * s
      let nt = 0
      while (nt < K - 1 && (scores[nt] as number) <= x) nt++
      z[i] = nt
      ndk[db + nt] = (ndk[db + nt] as number) + 1
      docFactor[nt] = Math.max((ndk[db + nt] as number) + (docNoise[db + nt] as number), 0) + alpha
    }
  }
}

/**
 * The sweep of `makeSnapshotSampler`, a top-level function whose state arrives as parameters
 * (locals in the hot loop, not closure slots). Where WebAssembly is available the threads run
 * ./private-wasm.ts instead, this loop compiled with its document mass summed densely by SIMD (the
 * same draws bit for bit: only the fast path's error term differs, `massCoefficient`);
 * this loop is the fallback and the reference that module is tested against. Target per token: p(k) ∝ (n_dk + α)·q_wk, split
 * into the document bucket r = Σ_{k: n_dk > 0} n_dk q_wk over the document's non-zero topics and
 * the dense bucket α·Σ_k q_wk (precomputed per word, rarely hit).
 * - The document's non-zero topics are kept sorted by decreasing count, so the linear scan that
 *   locates the draw meets the heavy topics first. Each entry is one packed integer, count·2^bits +
 *   topic (`topicBits`): the sum over the list, most of a token's cost, reads one array instead of
 *   two (measured ×1.2 on the whole sweep against parallel topic and count arrays). Ties keep the
 *   order the parallel arrays gave them (the comparisons look at the count alone), so the list L
 *   below — and a seeded run's topics — are what they were.
 * - The document mass is summed afresh at every token: in reading order a token repeats the
 *   previous one's word for under 1 % of Brown's tokens, too rarely to pay for carrying the sum
 *   along a run of the same word.
 *
 * Exactness. The mechanism is the categorical over the list L = (fl(n_j·q_{w,t_j}) for the
 * document's topics t_j in list order, then fl(α·q_wk) for k = 0..K−1); entry i is drawn with
 * probability L_i/ΣL, by inversion of a uniform U whose first 32 bits are the token's word m. The
 * fast path below is the specialised copy of exact-draw.ts's `fastDraw` (a deliberate copy for the
 * hot loop: its weights are formed on the fly), with these error terms (u = 2^-53, each double
 * operation exact up to a factor 1 + δ, |δ| ≤ u; subnormal products covered by TINY):
 * - R̃ = the document mass as computed, |R̃ − R| ≤ eR, R the exact sum of the document entries.
 *   Summed afresh (two accumulators over nnz terms): |R̃ − R| ≤ nnz·u·R(1 + 2nnz·u), and eR =
 *   2(nnz + 1)·u·R̃ covers it.
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
export const sparseSweep = (
  K: number,
  d0: number,
  d1: number,
  tokens: Int32Array,
  docStart: Int32Array,
  z: Int32Array,
  ndk: Int32Array,
  q: Float64Array,
  qsum: Float64Array,
  nz: Int32Array,
  nzPos: Int32Array,
  alpha: number,
  draws: Uint32Array,
  include: Uint8Array | undefined,
  extra: ExtraWords,
): void => {
  const subsampled = include !== undefined
  const bits = topicBits(K)
  const mask = (1 << bits) - 1
  const cW = scanCoefficient(K + 1) // (4K + 12)·u
  const U2 = 2 * UNIT_ROUNDOFF
  let r = docStart[d0] as number // next unused word of `draws` (one per visited token, from the range's first position)
  for (let d = d0; d < d1; d++) {
    const a = docStart[d] as number
    const b = docStart[d + 1] as number
    const db = d * K
    let nnz = 0
    for (let k = 0; k < K; k++) {
      const c = ndk[db + k] as number
      nzPos[k] = -1
      if (c > 0) raiseTopic(nz, nzPos, bits, nnz++, k, c)
    }
    for (let i = a; i < b; i++) {
      if (subsampled && include[i] === 0) continue
      const w = tokens[i] as number
      const old = z[i] as number
      const base = w * K
      // remove the token: its topic's count drops by one and moves towards the end
      {
        let p = nzPos[old] as number
        const v = (nz[p] as number) - (1 << bits)
        if (v <= mask) {
          // the count is now 0; every later entry has count 1 (sorted), so the last one may take this place
          const u = nz[--nnz] as number
          nz[p] = u
          nzPos[u & mask] = p
          nzPos[old] = -1
        } else {
          // past the entries whose count exceeds the new one (entries ≥ v | mask + 1)
          const above = v | mask
          while (p + 1 < nnz && (nz[p + 1] as number) > above) {
            const u = nz[p + 1] as number
            nz[p] = u
            nzPos[u & mask] = p
            p++
          }
          nz[p] = v
          nzPos[old] = p
        }
      }
      let r0 = 0
      let r1 = 0
      let j = 0
      for (; j + 1 < nnz; j += 2) {
        const e0 = nz[j] as number
        const e1 = nz[j + 1] as number
        r0 += (e0 >> bits) * (q[base + (e0 & mask)] as number)
        r1 += (e1 >> bits) * (q[base + (e1 & mask)] as number)
      }
      if (j < nnz) {
        const e0 = nz[j] as number
        r0 += (e0 >> bits) * (q[base + (e0 & mask)] as number)
      }
      const rMass = r0 + r1
      const eR = rMass * (nnz + 1) * U2 // bound on |rMass − the exact sum of the document entries|
      const total = rMass + alpha * (qsum[w] as number)
      const m = draws[r++] as number
      const e = 3 * eR + total * cW + TINY
      const g = total * 2.3283064365386963e-10 // 2^-32·W̃, exact
      let x = m * 2.3283064365386963e-10 * total
      let nt = -1
      if (x < rMass) {
        for (let j = 0; j < nnz; j++) {
          const xp = x
          const e0 = nz[j] as number
          x = xp - (e0 >> bits) * (q[base + (e0 & mask)] as number)
          if (x < 0) {
            if (xp >= e && x <= -(e + g)) nt = e0 & mask
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
      if (nt < 0) nt = slowDraw(K, bits, nnz, nz, q, base, alpha, m, extra(i))
      z[i] = nt
      // add the token back: its new topic's count rises by one and moves towards the front
      {
        const p = nzPos[nt] as number
        if (p < 0) raiseTopic(nz, nzPos, bits, nnz++, nt, 1)
        else raiseTopic(nz, nzPos, bits, p, nt, ((nz[p] as number) >> bits) + 1)
      }
    }
    for (let k = 0; k < K; k++) ndk[db + k] = 0
    for (let j = 0; j < nnz; j++) ndk[db + ((nz[j] as number) & mask)] = (nz[j] as number) >> bits
  }
}

/** The bits of a topic in a packed entry of the document's topic list: topics 0..K−1 fit. */
export const topicBits = (K: number): number => (K <= 1 ? 0 : 32 - Math.clz32(K - 1))

/**
 * The longest document `sparseSweep` can hold with K topics: a packed entry count·2^bits + topic must
 * stay below 2^31 (K·length below about 2^30: documents of 2^25 tokens at K = 50, 2^21 at K = 1000).
 */
export const maxPackedCount = (K: number): number => 2 ** (31 - topicBits(K)) - 1

/**
 * The exact path of a draw the fast path could not decide: the list L of `sparseSweep` (document
 * entries in list order, then the dense entries), each weight formed by the same product as in the
 * fast path, drawn by exact-draw.ts with `m` as U's first word and further words from `next`.
 * Rare (about (nnz + K)·2^-32 per draw); it allocates.
 */
export const slowDraw = (K: number, bits: number, nnz: number, nz: Int32Array, q: Float64Array, base: number, alpha: number, m: number, next: () => number): number => {
  const mask = (1 << bits) - 1
  const list = new Float64Array(nnz + K)
  for (let j = 0; j < nnz; j++) list[j] = ((nz[j] as number) >> bits) * (q[base + ((nz[j] as number) & mask)] as number)
  for (let t = 0; t < K; t++) list[nnz + t] = alpha * (q[base + t] as number)
  const i = exactDraw(list, nnz + K, m, next)
  return i < nnz ? (nz[i] as number) & mask : i - nnz
}

/**
 * Gives topic `t` the count `c` at position `p` of the document's packed topic list (sorted by
 * decreasing count) and moves it towards the front past every entry with a smaller count (an entry
 * below c·2^bits; equal counts keep their order). `p` may be the free slot at the end (a topic
 * entering the list).
 */
const raiseTopic = (nz: Int32Array, nzPos: Int32Array, bits: number, p: number, t: number, c: number): void => {
  const floor = c << bits
  const mask = (1 << bits) - 1
  while (p > 0 && (nz[p - 1] as number) < floor) {
    const u = nz[p - 1] as number
    nz[p] = u
    nzPos[u & mask] = p
    p--
  }
  nz[p] = floor | t
  nzPos[t] = p
}

/**
 * Adds the tokens [i0, i1) to a word-major V×K table (`counts[tokens[i]·K + z[i]] += 1`): a sweep that
 * counts along (./parallel/part.ts) calls it on each stretch of tokens it has just drawn, while their words and
 * topics are still in this thread's cache, into its own table (`partTables`).
 */
export const countRange = (K: number, tokens: Int32Array, z: Int32Array, i0: number, i1: number, counts: Int32Array): void => {
  // two tokens a step: their cells' addresses are formed before either increment (the increments stay in
  // order, so two tokens of one cell count twice); ×0.8 the time of one a step on Brown
  let i = i0
  for (; i + 2 <= i1; i += 2) {
    const a = (tokens[i] as number) * K + (z[i] as number)
    const b = (tokens[i + 1] as number) * K + (z[i + 1] as number)
    counts[a] = (counts[a] as number) + 1
    counts[b] = (counts[b] as number) + 1
  }
  if (i < i1) {
    const a = (tokens[i] as number) * K + (z[i] as number)
    counts[a] = (counts[a] as number) + 1
  }
}
