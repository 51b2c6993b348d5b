/**
 * The per-iteration work around a private Gibbs sweep that is not the sweep itself, cut so that
 * every thread of the sweep can do its share (./part.ts): the release's noise, the word factor q
 * built from the release, and SUB-LDA's subsampling coins with the counts of the sample.
 *
 * Each function works on a range of fixed blocks (cells, rows or documents) whose size does not
 * depend on the number of threads, and a keyed (reproducible) run derives every block's words from
 * the block's index, so a seeded run computes the same numbers, in the same order, with any number
 * of threads:
 * - noise: cells in blocks of NOISE_BLOCK, block b's words a xoshiro128** stream keyed by (key, b);
 *   from node:crypto each thread draws its own words (nothing to reproduce);
 * - q: column sums over blocks of ROW_BLOCK rows, added block by block in order on one thread;
 * - coins: two words per token from a stream keyed by (key, document), as the sweep's draws.
 *
 * Privacy: these functions compute the noisy table inside the gate's release (the measurement's run
 * calls them through its TableNoiser, src/mechanisms/measurement.ts): the noise is added in place,
 * cell by cell, and never exists as a table of its own. The release gate and its ledger stay on the
 * calling thread.
 *
 * @module
 */
import { randomFillSync } from 'node:crypto'
import { secureWords, WordStream, xoshiroWords } from '../../../core/words.js'
import { type TableNoise, tableNoiseSampler } from '../../../mechanisms/measurement.js'
import { countRange, keyedState } from '../sweep-kernel.js'

/** Where a piece of work's words come from: node:crypto on the thread that does it, or streams keyed by block. */
export type StreamKey = { readonly kind: 'crypto' } | { readonly kind: 'keyed'; readonly key: Uint32Array }

/** Cells per noise block (a keyed run's stream unit; independent of the number of threads). */
export const NOISE_BLOCK = 4096
/** Rows (words) per block of q's column sums. */
export const ROW_BLOCK = 64

export const blockCount = (n: number, size: number): number => Math.ceil(n / size)

/** Part j of `parts` of n items: [⌊nj/parts⌋, ⌊n(j+1)/parts⌋). */
export const partRange = (n: number, j: number, parts: number): readonly [number, number] => [Math.floor((n * j) / parts), Math.floor((n * (j + 1)) / parts)]

export type NoiseSampler = ReturnType<typeof tableNoiseSampler>

/** The samplers a thread has built, by noise (the discrete Laplace's tables take milliseconds to build). */
export const samplerCache = (): ((n: TableNoise) => NoiseSampler) => {
  const built = new Map<string, NoiseSampler>()
  return (n) => {
    const key = JSON.stringify(n)
    let s = built.get(key)
    if (s === undefined) {
      s = tableNoiseSampler(n)
      built.set(key, s)
    }
    return s
  }
}

/** The thread's stream for keyed blocks, restarted at each block's own words (`addNoiseBlock` runs to its end before another starts). */
let keyedBlockWords: WordStream | undefined

/**
 * out[c] = counts[c] + noise for the cells of noise block b, the noise added as it is drawn
 * (`fillAdd`): from `crypto` (a thread's node:crypto stream, shared by the blocks it takes) or,
 * keyed, the block's own stream (one buffer of 1,024 words restarted per block, not a new one).
 */
export const addNoiseBlock = (sampler: NoiseSampler, random: StreamKey, crypto: () => WordStream, counts: ArrayLike<number>, out: Float64Array, b: number, scratch: Int32Array): void => {
  const n = counts.length
  const c0 = Math.min(n, b * NOISE_BLOCK)
  const c1 = Math.min(n, c0 + NOISE_BLOCK)
  if (c0 === c1) return
  let words: WordStream
  if (random.kind === 'crypto') words = crypto()
  else {
    const block = xoshiroWords(keyedState(random.key, b, scratch), 'keyed block')
    words = keyedBlockWords === undefined ? (keyedBlockWords = new WordStream(block, 1024)) : keyedBlockWords.restart(block)
  }
  sampler.fillAdd(words, counts, out, c0, c1)
}

/** A thread's node:crypto word stream, made on first use (a command's blocks share it). */
export const cryptoStream = (): (() => WordStream) => {
  let w: WordStream | undefined
  return () => (w ??= new WordStream(secureWords()))
}

/** out[c] = counts[c] + noise for the cells of noise blocks [b0, b1) (`addNoiseBlock` block by block). */
export const addBlockNoise = (sampler: NoiseSampler, random: StreamKey, counts: ArrayLike<number>, out: Float64Array, b0: number, b1: number): void => {
  const crypto = cryptoStream()
  const s = new Int32Array(4)
  for (let b = b0; b < b1; b++) addNoiseBlock(sampler, random, crypto, counts, out, b, s)
}

/**
 * The noisy table `counts` + noise as a keyed run draws it, on the calling thread: what the threads
 * compute together, block by block. (A seed-replay attack regenerates a --seed run's noise with it.)
 */
export const keyedNoisyTable = (n: TableNoise, key: Uint32Array, counts: ArrayLike<number>): Float64Array => {
  const out = new Float64Array(counts.length)
  addBlockNoise(tableNoiseSampler(n), { kind: 'keyed', key }, counts, out, 0, blockCount(counts.length, NOISE_BLOCK))
  return out
}

/**
 * The corpus's token positions grouped by word: word w's tokens are byWord[wordStart[w] …
 * wordStart[w + 1]), in reading order. With it a thread counts the word-topic table by rows (`countCells`)
 * — only its own cells, with no table of its own to add up afterwards.
 */
export interface WordIndex {
  readonly byWord: Int32Array
  readonly wordStart: Int32Array
}

export const wordIndex = (tokens: Int32Array, V: number, alloc: (n: number) => Int32Array): WordIndex => {
  const wordStart = alloc(V + 1)
  for (let i = 0; i < tokens.length; i++) wordStart[(tokens[i] as number) + 1] = (wordStart[(tokens[i] as number) + 1] as number) + 1
  for (let w = 0; w < V; w++) wordStart[w + 1] = (wordStart[w + 1] as number) + (wordStart[w] as number)
  const at = wordStart.slice(0, V)
  const byWord = alloc(tokens.length)
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i] as number
    byWord[at[w] as number] = i
    at[w] = (at[w] as number) + 1
  }
  return { byWord, wordStart }
}

/**
 * table[c] for the cells c of [c0, c1) of a word-major V×K table: the number of tokens i with
 * tokens[i]·K + z[i] = c (only those with include[i] = 1 when `include` is given), counted from the
 * rows' tokens. The cells of one row may be split between two calls (a block's edge): each counts
 * only its own cells.
 */
export const countCells = (K: number, index: WordIndex, z: Int32Array, include: Uint8Array | undefined, table: Int32Array, c0: number, c1: number): void => {
  if (c0 >= c1) return
  const { byWord, wordStart } = index
  table.fill(0, c0, c1)
  const w0 = Math.floor(c0 / K)
  const w1 = Math.floor((c1 - 1) / K) + 1
  for (let w = w0; w < w1; w++) {
    const base = w * K
    // a row wholly inside the block counts every token; an edge row only its cells in [c0, c1)
    const whole = base >= c0 && base + K <= c1
    const end = wordStart[w + 1] as number
    for (let j = wordStart[w] as number; j < end; j++) {
      const i = byWord[j] as number
      if (include !== undefined && include[i] === 0) continue
      const cell = base + (z[i] as number)
      if (whole || (cell >= c0 && cell < c1)) table[cell] = (table[cell] as number) + 1
    }
  }
}

/**
 * The whole word-topic table from z in one streaming pass over the tokens (those with include[i] = 1
 * when `include` is given): what one thread alone does instead of `countCells` block by block. By
 * rows, every token's topic is read through the word index, at random across z; in reading order z
 * is read in sequence and a document's few topics keep hitting the same cells of a row. Brown, K = 50,
 * documents leaning on a few topics: 0.37 ms against 0.72 by rows (node /tmp/countab.mjs, CPU, best
 * of 5×20; the same table).
 */
export const countTokens = (K: number, tokens: Int32Array, z: Int32Array, include: Uint8Array | undefined, table: Int32Array): void => {
  table.fill(0)
  // every token (the common case) without the per-token test, two a step (countRange): 50 → 40 ms a 60-iteration fit on Brown
  if (include === undefined) return countRange(K, tokens, z, 0, tokens.length, table)
  for (let i = 0; i < tokens.length; i++) {
    if (include[i] === 0) continue
    const cell = (tokens[i] as number) * K + (z[i] as number)
    table[cell] = (table[cell] as number) + 1
  }
}

/**
 * table[c] = Σ_j parts[j·n + c] for the cells c of noise block b of a table of n cells (`parts`: the
 * threads' own tables of a sweep that counted along, one after another): the word-topic counts, summed
 * where the block's noise is drawn. Sequential reads of P tables, where counting by rows reads z at random.
 */
export const sumPartBlock = (parts: Int32Array, table: Int32Array, b: number): void => {
  const n = table.length
  const P = parts.length / n
  const c0 = b * NOISE_BLOCK
  const c1 = Math.min(n, c0 + NOISE_BLOCK)
  if (P === 2) {
    // two threads (the common case): one pass, no copy of the first table first (26 → 22 ms a fit's blocks on Brown)
    for (let c = c0; c < c1; c++) table[c] = (parts[c] as number) + (parts[n + c] as number)
    return
  }
  table.set(parts.subarray(c0, c1), c0)
  for (let j = 1; j < P; j++) {
    const off = j * n
    for (let c = c0; c < c1; c++) table[c] = (table[c] as number) + (parts[off + c] as number)
  }
}

/**
 * The noise blocks of a V×K table in decreasing order of their work when they count their cells
 * first (the tokens of their rows, plus the cells): the threads take them in this order, so the
 * largest blocks start first and the last ones to finish are small.
 */
export const blocksByWork = (K: number, V: number, index: WordIndex, alloc: (n: number) => Int32Array): Int32Array => {
  const cells = V * K
  const blocks = blockCount(cells, NOISE_BLOCK)
  const work = new Float64Array(blocks)
  for (let b = 0; b < blocks; b++) {
    const c0 = b * NOISE_BLOCK
    const c1 = Math.min(cells, c0 + NOISE_BLOCK)
    const w0 = Math.floor(c0 / K)
    const w1 = Math.floor((c1 - 1) / K) + 1
    work[b] = c1 - c0 + (index.wordStart[w1] as number) - (index.wordStart[w0] as number)
  }
  const order = Array.from({ length: blocks }, (_, b) => b).sort((a, b) => (work[b] as number) - (work[a] as number) || a - b)
  const out = alloc(blocks)
  out.set(order)
  return out
}

/** colBlocks[rb·K + k] = Σ_{w in row block rb} release[w·K + k]·scale, for row blocks [rb0, rb1). */
export const columnSums = (K: number, V: number, release: Float64Array, scale: number, colBlocks: Float64Array, rb0: number, rb1: number): void => {
  for (let rb = rb0; rb < rb1; rb++) {
    const sums = colBlocks.subarray(rb * K, (rb + 1) * K)
    sums.fill(0)
    const w1 = Math.min(V, (rb + 1) * ROW_BLOCK)
    // four rows a step, each column's additions in row order as one row at a time makes them (the same
    // doubles), the running sum held in a local: a quarter of the loads and stores of `sums`
    let w = rb * ROW_BLOCK
    for (; w + 4 <= w1; w += 4) {
      const r0 = w * K
      for (let k = 0; k < K; k++) {
        let x = sums[k] as number
        x += (release[r0 + k] as number) * scale
        x += (release[r0 + K + k] as number) * scale
        x += (release[r0 + 2 * K + k] as number) * scale
        x += (release[r0 + 3 * K + k] as number) * scale
        sums[k] = x
      }
    }
    for (; w < w1; w++) for (let k = 0; k < K; k++) sums[k] = (sums[k] as number) + (release[w * K + k] as number) * scale
  }
}

/** The row blocks (of ROW_BLOCK rows) that noise block b of a V×K table overlaps: [first, last]. */
export const rowBlocksOf = (K: number, V: number, b: number): readonly [number, number] => {
  const c0 = b * NOISE_BLOCK
  const c1 = Math.min(V * K, c0 + NOISE_BLOCK)
  return [Math.floor(Math.floor(c0 / K) / ROW_BLOCK), Math.floor(Math.floor((c1 - 1) / K) / ROW_BLOCK)]
}

/** For each row block of a V×K table, how many noise blocks overlap it (what its column sums wait for). */
export const noiseBlocksPerRowBlock = (K: number, V: number, alloc: (n: number) => Int32Array): Int32Array => {
  const out = alloc(blockCount(V, ROW_BLOCK))
  for (let b = 0; b < blockCount(V * K, NOISE_BLOCK); b++) {
    const [r0, r1] = rowBlocksOf(K, V, b)
    for (let rb = r0; rb <= r1; rb++) out[rb] = (out[rb] as number) + 1
  }
  return out
}

/** inv[k] = 1/(max(Σ_rb colBlocks[rb·K + k], 0) + Vβ), the row blocks added in order. */
export const inverseTotals = (K: number, V: number, beta: number, colBlocks: Float64Array, inv: Float64Array): void => {
  const blocks = colBlocks.length / K
  inv.fill(0)
  for (let rb = 0; rb < blocks; rb++) for (let k = 0; k < K; k++) inv[k] = (inv[k] as number) + (colBlocks[rb * K + k] as number)
  for (let k = 0; k < K; k++) inv[k] = 1 / (Math.max(0, inv[k] as number) + V * beta)
}

/**
 * q_wk = (min(max(scale·n̂_wk, 0), C) + β)·inv[k] and qsum[w] = Σ_k q_wk for the rows of row
 * blocks [rb0, rb1) (snapshot.ts: Zhao et al. Alg. 1 lines 12–13).
 */
export const wordFactors = (
  K: number,
  V: number,
  release: Float64Array,
  scale: number,
  clip: number,
  beta: number,
  inv: Float64Array,
  q: Float64Array,
  qsum: Float64Array,
  rb0: number,
  rb1: number,
): void => {
  const w1 = Math.min(V, rb1 * ROW_BLOCK)
  for (let w = rb0 * ROW_BLOCK; w < w1; w++) {
    let s = 0
    for (let k = 0; k < K; k++) {
      const c = Math.min(Math.max((release[w * K + k] as number) * scale, 0), clip)
      const v = (c + beta) * (inv[k] as number)
      q[w * K + k] = v
      s += v
    }
    qsum[w] = s
  }
}

/** Scratch words of one thread's per-token draws (grown to the longest document). */
export interface TokenWords {
  buf: Uint32Array
  /** Next unused word of `buf` (node:crypto: a chunk shared by documents). */
  pos: number
}
export const tokenWords = (): TokenWords => ({ buf: new Uint32Array(1 << 16), pos: 1 << 16 })

/**
 * Two words for every token of document d, at scratch.buf[returned offset …]: from node:crypto
 * (a chunk refilled when spent), or the stream keyed by (key, d) — the same words for document d
 * whichever thread asks.
 */
const documentWords = (random: StreamKey, d: number, tokens: number, scratch: TokenWords, state: Int32Array): number => {
  const need = 2 * tokens
  if (need > scratch.buf.length) {
    scratch.buf = new Uint32Array(Math.max(need, 2 * scratch.buf.length))
    scratch.pos = scratch.buf.length
  }
  if (random.kind === 'keyed') {
    xoshiroWords(keyedState(random.key, d, state), 'keyed document').fill(scratch.buf.subarray(0, need))
    scratch.pos = 0
  } else if (scratch.pos + need > scratch.buf.length) {
    randomFillSync(scratch.buf)
    scratch.pos = 0
  }
  const at = scratch.pos
  scratch.pos += need
  return at
}

/**
 * Calls `visit(d, a, b, at, buf)` for documents d of [d0, d1), tokens [a, b), with the tokens' two
 * words each at buf[at …] (`documentWords`).
 */
const eachDocument = (
  random: StreamKey,
  docStart: Int32Array,
  d0: number,
  d1: number,
  scratch: TokenWords,
  visit: (d: number, a: number, b: number, at: number, buf: Uint32Array) => void,
): void => {
  const s = new Int32Array(4)
  for (let d = d0; d < d1; d++) {
    const a = docStart[d] as number
    const b = docStart[d + 1] as number
    const at = documentWords(random, d, b - a, scratch, s)
    visit(d, a, b, at, scratch.buf)
  }
}

/** The 53-bit uniform in [0, 1) of words (hi, lo), as WordStream.nextDouble: (hi >>> 5)·2^26 + (lo >>> 6) over 2^53. */
const unit = (hi: number, lo: number): number => ((hi >>> 5) * 67108864 + (lo >>> 6)) * 1.1102230246251565e-16

/**
 * SUB-LDA's sampling coins for documents [d0, d1) (the SUB-LDA paper, Def. 3.3, Poisson
 * subsampling): token i is kept with probability r — the rate, or 0 for a token outside the
 * frequent (word, topic) pairs when `frequent` is given (adaptive, eq. 10–13) — by the coin
 * U < r, U a 53-bit uniform from the token's two words. include[i] is set to 0/1; `counts` (V×K),
 * when given, has the kept tokens' (word, topic) counts added (the caller zeroes it: a thread's
 * chunks add up in one table). Returns how many were kept.
 */
export const subsampleCoins = (
  K: number,
  tokens: Int32Array,
  docStart: Int32Array,
  z: Int32Array,
  d0: number,
  d1: number,
  rate: number,
  frequent: Uint8Array | undefined,
  random: StreamKey,
  include: Uint8Array,
  counts: Int32Array | undefined,
  scratch: TokenWords,
): number => {
  let kept = 0
  eachDocument(random, docStart, d0, d1, scratch, (_, a, b, at, buf) => {
    for (let i = a, j = at; i < b; i++, j += 2) {
      const cell = (tokens[i] as number) * K + (z[i] as number)
      const r = frequent !== undefined && frequent[cell] !== 1 ? 0 : rate
      const keep = r >= 1 || (r > 0 && unit(buf[j] as number, buf[j + 1] as number) < r) ? 1 : 0
      include[i] = keep
      kept += keep
      if (keep === 1 && counts !== undefined) counts[cell] = (counts[cell] as number) + 1
    }
  })
  return kept
}

/**
 * The initial topics of documents [d0, d1): each token's topic uniform, min(K − 1, ⌊U·K⌋) with U
 * from its two words, and the documents' rows of n_dk counted (the word-topic counts are counted
 * afterwards, by rows: `countCells`). Randomness that carries no information about the data (the gate's `independent`).
 */
export const initialTopics = (K: number, docStart: Int32Array, d0: number, d1: number, random: StreamKey, z: Int32Array, ndk: Int32Array, scratch: TokenWords): void => {
  ndk.fill(0, d0 * K, d1 * K)
  eachDocument(random, docStart, d0, d1, scratch, (d, a, b, at, buf) => {
    for (let i = a, j = at; i < b; i++, j += 2) {
      const k = Math.min(K - 1, Math.floor(unit(buf[j] as number, buf[j + 1] as number) * K))
      z[i] = k
      ndk[d * K + k] = (ndk[d * K + k] as number) + 1
    }
  })
}
