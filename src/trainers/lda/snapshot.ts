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
 * The document factor is exact and live. The true counts (for the next release) are counted
 * from z after each sweep (inside that release: see Threads below).
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
 * Randomness: every draw consumes one 32-bit word. When the gate's source is node:crypto the words
 * are node:crypto's, drawn by whichever thread sweeps the document: the topic draws whose inherent
 * privacy the plan claims are as secret as the noise. Otherwise (a seed, a test's stub) the sweep
 * takes two keys from the gate's words and every document's words are a stream derived from its
 * key and index (sweep-kernel.ts), so the run does not depend on the number of threads.
 *
 * Threads (`makeParallelSnapshotSampler`): documents are independent given the release, so the
 * documents are cut into about 32·W chunks of equal tokens that the threads take from a shared
 * counter until none is left (a thread whose documents cost more per token does not hold the
 * others at the barrier). The true counts n_wk are counted inside the next release of n_wk, block by
 * block before each block's noise — one pass over the threads per iteration fewer (./parallel): as
 * the sum of the threads' own tables, which each thread counted from the documents it swept at the
 * end of the sweep (`countAlong`, while P tables fit `alongFits`), else by rows, each thread the blocks
 * of cells it takes, from the tokens grouped by word (no table per thread: the work per thread falls
 * as 1/W, but z is read at random). The draws are
 * the same functions of the same words with any W: exact parallelism, the distribution unchanged.
 * The rest of an iteration runs on the same threads (./parallel/release-work.ts): the release's
 * noise (`noiser`, which the trainer's table measurement calls inside the gate's release), q from
 * the release (`setRelease`) and SUB-LDA's coins (`subsample`). Its noise words: node:crypto on
 * each thread, or (keyed) per block of cells from a key the gate's words give, so a seeded release
 * is the same with any W, too.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { WordStream } from '../../core/words.js'
import type { TableNoise, TableNoiser } from '../../mechanisms/measurement.js'
import { type Attached, CHUNKS_PER_PART, COIN_RATE, type Command, type CountedTokens, cutByWeight, PARAMS, RELEASE_SCALE, type SweepArrays, sweepPart } from './parallel/part.js'
import { type Pool, startPool } from './parallel/pool.js'
import { addBlockNoise, blockCount, blocksByWork, inverseTotals, NOISE_BLOCK, noiseBlocksPerRowBlock, ROW_BLOCK, samplerCache, type StreamKey, type WordIndex, wordIndex } from './parallel/release-work.js'
import { sharedSweepMemory } from './private-wasm.js'
import type { SparseEngine } from './sparse.js'
import { type GibbsState, sharedInt32 } from './state.js'
import { maxPackedCount, type SweepRandomness } from './sweep-kernel.js'

export interface SnapshotSampler {
  /**
   * Sets the release n̂ (V×K word-major) q is built from, multiplied by `scale` first (1/γ for
   * SUB-LDA): its column sums now, q itself by each thread at the start of the next sweep. The release
   * must not change before that sweep (a table outside shared memory is copied here).
   */
  readonly setRelease: (noisy: Float64Array, scale: number) => void
  /**
   * One sweep; `include` (optional) decides per token whether it is visited this iteration
   * (Poisson subsampling), as a 0/1 byte per token. z and n_dk are current after it; n_wk and n_k
   * are owed a count (see `counts`).
   */
  readonly sweep: (words: WordStream, include?: Uint8Array) => void
  /**
   * Brings the state's true counts n_wk and n_k up to date with z (counted on the threads, by rows
   * of n_wk). A sweep leaves them owed: the next release of n_wk through `noiser`/`reusingNoiser`
   * counts each block of cells on the threads just before its noise (no pass of its own, no wait
   * between), and only a reader of n_wk or n_k outside such a release (the log-likelihood diagnostic,
   * a release computed on the calling thread) calls this first. Nothing to do when nothing is owed.
   */
  readonly counts: () => void
  /**
   * One dense sweep in which the document factor is also noisy: (max(n_dk^{¬i} + η_dk, 0) + α),
   * η fixed for the sweep (CDP-LDA, CDP-LDA+: Laplace on the document-topic counts).
   */
  readonly sweepWithDocNoise: (words: WordStream, docNoise: Float64Array) => void
  /**
   * Draws a table release's noise on the sampler's threads (pass it to discreteLaplaceTable /
   * discreteGaussianTable): counts plus noise, computed inside the release. A table in shared memory
   * is done by every thread at once, any other by the calling thread, with the same words. A table
   * owed a count (n_wk after a sweep, the sample's counts after `subsample`) is counted inside the
   * same release, block by block before each block's noise.
   */
  readonly noiser: TableNoiser
  /**
   * `noiser` for a trainer that reads each release of a table only until its next release: unless the
   * sampler was built `observed` (an observer may keep every release), the noisy table is written into
   * one table per `slot`, reused from release to release, instead of a fresh copy (2 MB at Brown's
   * V × K = 50) each iteration: the same numbers, drawn from the same words.
   */
  readonly reusingNoiser: (slot: string) => TableNoiser
  /**
   * SUB-LDA's coins on the sampler's threads: every token is kept with probability `rate` (0 outside
   * `frequent`, when given), into `include`; returns the table of the (word, topic) counts of the kept
   * tokens (valid until the next call) and how many were kept. The table is owed its count: release
   * it through `noiser`/`reusingNoiser`, which counts it on the threads.
   */
  readonly subsample: (rate: number, frequent: Uint8Array | undefined, words: WordStream) => { counts: Int32Array; kept: number }
  /**
   * Draws every token's initial topic, uniform (on the sampler's threads, per document: node:crypto,
   * or streams keyed from `words`), and counts n_dk (n_wk and n_k are owed, as after a sweep). Run it
   * through the gate's `independent`: the topics carry no information about the data.
   */
  readonly initialTopics: (words: WordStream) => void
  /** The sample of the last `subsample`, one 0/1 byte per token: pass it to `sweep`. */
  readonly include: Uint8Array
  /** Threads that sweep (1: the calling thread alone). */
  readonly workers: number
  /** Ends the worker threads (nothing to do for one thread); the sampler is unusable after it. */
  readonly close: () => void
}

/** The sampler on the calling thread alone. */
export const makeSnapshotSampler = (state: GibbsState, alpha: number, beta: number, clip: number, engine: SparseEngine = 'wasm'): SnapshotSampler => {
  const s = build(state, alpha, beta, clip, 1, engine, true)
  if (E.isLeft(s)) throw new RangeError(s.left.message) // one part starts no thread: only a document too long for the packed topic lists
  return s.right
}

/**
 * The sampler on `workers` threads (the calling one included). The state's arrays must live in
 * SharedArrayBuffers (initState with `sharedInt32`) when workers > 1. `engine`: the sweep's loop,
 * WebAssembly (./private-wasm.ts, where available) or JavaScript — the same draws bit for bit.
 * `observed`: whether an observer may keep the releases (then `reusingNoiser` copies each one).
 * `index`: the state's tokens grouped by word, in shared memory (`sharedWordIndex`), when the caller
 * keeps one for its corpus; otherwise it is built here (a few milliseconds on the calling thread).
 */
export const makeParallelSnapshotSampler = (
  state: GibbsState,
  alpha: number,
  beta: number,
  clip: number,
  workers: number,
  engine: SparseEngine = 'wasm',
  observed = true,
  index?: WordIndex,
): E.Either<DpError, SnapshotSampler> => build(state, alpha, beta, clip, workers, engine, observed, index)

/**
 * The tokens of `tokens` (a corpus's, in reading order) grouped by word, in shared memory, kept per
 * token array while it lives: a process that fits one corpus several times (an audit, a bench)
 * groups it once. The array must not change afterwards (corpora are values).
 */
const indexes = new WeakMap<Int32Array, WordIndex>()
export const sharedWordIndex = (tokens: Int32Array, V: number): WordIndex => {
  let ix = indexes.get(tokens)
  if (ix === undefined || ix.wordStart.length !== V + 1) indexes.set(tokens, (ix = wordIndex(tokens, V, sharedInt32)))
  return ix
}

/**
 * Whether P threads' own V×K tables are worth counting along the sweep (`partTables`): at most
 * MAX_PART_CELLS in all, and summing them reads at most PART_READS_PER_TOKEN cells per token of the
 * corpus. Per thread, summing reads V·K cells whatever P (~1.9 ns a cell: 0.48 ms on Brown, K = 50, 2
 * threads), where counting by rows reads N/P tokens' topics at random across z (~13 ns a token at 2
 * threads): the two cost the same near P·V·K = 7·N, so from there on (Brown, K = 50: P ≥ 10) the
 * threads count by rows.
 */
export const MAX_PART_CELLS = 2 ** 25
export const PART_READS_PER_TOKEN = 8
export const alongFits = (parts: number, V: number, K: number, tokens: number): boolean => parts * V * K <= MAX_PART_CELLS && parts * V * K <= PART_READS_PER_TOKEN * tokens

/** The randomness of other per-iteration work (noise, coins): node:crypto on every thread, or one key from the gate's words. */
export const streamKeyOf = (words: WordStream): StreamKey => {
  if (words.source.nodeCrypto === true) return { kind: 'crypto' }
  const key = new Uint32Array(4)
  words.fillWords(key)
  return { kind: 'keyed', key }
}

/** The randomness of one sweep: node:crypto on every thread, or two keys from the gate's words. */
const randomnessOf = (words: WordStream): SweepRandomness => {
  if (words.source.nodeCrypto === true) return { kind: 'crypto' }
  const key = new Uint32Array(4)
  const extraKey = new Uint32Array(4)
  words.fillWords(key)
  words.fillWords(extraKey)
  return { kind: 'keyed', key, extraKey }
}

/** What the pieces of a sampler share: its arrays, its threads, and how it allocates (shared memory when threaded). */
interface Sampling {
  readonly state: GibbsState
  readonly arrays: SweepArrays
  readonly pool: Pool<Command, Attached>
  readonly parts: number
  readonly threaded: boolean
  /** Runs a command: its units are taken from the shared counter, reset here (published to the workers by the command's start, an Atomics.add on the control block). */
  readonly run: (c: Command) => void
  readonly f64: (n: number) => Float64Array
  readonly i32: (n: number) => Int32Array
  /** Whether the threads can read `a` by handle (always, on one thread). */
  readonly shared: (a: ArrayBufferView) => boolean
}

/**
 * Whether `parts` threads should each build all of q (V·K cells) in a WebAssembly memory of its own
 * rather than share one q built by rows. Own: every thread builds the cells the others would have,
 * V·K·(W − 1)/W more per sweep, and the sweep needs no factors command before it. Shared: a barrier more
 * per iteration, and the kernel ran 2.5–3 ns a token slower in the fit at 2 workers on the 2-core VM
 * (41–44 against 38–41 ns; outside a fit, two threads' kernels on one shared memory run as fast as on
 * memories of their own, bench/lda-kernel-shared.mjs, and so does a one-worker fit on a shared memory:
 * the cause in the fit is not isolated), while building q costs about 2.3 ns a cell. Own therefore pays where V·K·(W − 1) ≤ N: Brown (V·K = 250,000,
 * N = 303,359) at 2 workers, not at 3 (docs/trainers.md, "Two workers: q of their own, and waking the threads").
 */
export const ownFactorsPay = (cells: number, tokens: number, parts: number): boolean => cells * (parts - 1) <= tokens

/** The sampler's arrays and threads: Left for a bad thread count, a state outside shared memory on several threads, or a document too long. */
const startSampling = (state: GibbsState, alpha: number, beta: number, clip: number, workers: number, engine: SparseEngine, given?: WordIndex): E.Either<DpError, Sampling> => {
  const { K, V, D, tokens, docStart, z, ndk, nwk } = state
  if (!(Number.isInteger(workers) && workers >= 1)) return E.left(invalidParameter('workers', workers, 'the number of worker threads must be an integer ≥ 1'))
  // more parts than documents would leave threads idle
  const parts = Math.max(1, Math.min(workers, D))
  const threaded = parts > 1
  if (threaded && ![tokens, docStart, z, ndk, nwk].every((a) => a.buffer instanceof SharedArrayBuffer))
    return E.left(invalidParameter('workers', workers, 'a sweep on several threads needs the Gibbs state in shared memory (initState with sharedInt32)'))
  let longest = 0
  for (let d = 0; d < D; d++) longest = Math.max(longest, (docStart[d + 1] as number) - (docStart[d] as number))
  if (longest > maxPackedCount(K))
    return E.left(invalidParameter('topics', K, `a document of ${longest} tokens is longer than the ${maxPackedCount(K)} that the sweep's packed topic lists hold with ${K} topics (K × the longest document must stay below about 2^30): split it`))
  const f64 = (n: number): Float64Array => (threaded ? new Float64Array(new SharedArrayBuffer(8 * n)) : new Float64Array(n))
  const i32 = (n: number): Int32Array => (threaded ? new Int32Array(new SharedArrayBuffer(4 * n)) : new Int32Array(n))
  const index = given !== undefined && (!threaded || given.byWord.buffer instanceof SharedArrayBuffer) && given.byWord.length === tokens.length ? given : wordIndex(tokens, V, i32)
  // several threads sweeping in WebAssembly share one q (built by rows, together) where the runtime gives a
  // shared memory, unless q is small beside the tokens (`ownFactorsPay`): then each builds its own
  const wasmMemory = threaded && engine === 'wasm' && !ownFactorsPay(V * K, tokens.length, parts) ? sharedSweepMemory({ K, V, alpha, tokens, docStart, z, ndk }, parts) : undefined
  const arrays: SweepArrays = {
    K,
    V,
    D,
    alpha,
    beta,
    clip,
    tokens,
    docStart,
    z,
    ndk,
    nwk,
    draws: threaded ? new Uint32Array(new SharedArrayBuffer(4 * tokens.length)) : new Uint32Array(tokens.length),
    include: threaded ? new Uint8Array(new SharedArrayBuffer(tokens.length)) : new Uint8Array(tokens.length),
    index,
    countOrder: blocksByWork(K, V, index, i32),
    colBlocks: f64(blockCount(V, ROW_BLOCK) * K),
    inverseTotals: f64(K),
    rowsPending: i32(blockCount(V, ROW_BLOCK)),
    sample: i32(V * K),
    keptParts: i32(parts),
    params: f64(PARAMS),
    chunkCut: cutByWeight(docStart, parts === 1 ? 1 : Math.min(D, parts * CHUNKS_PER_PART)),
    next: i32(1),
    engine,
    ...(wasmMemory === undefined ? {} : { wasmMemory }),
  }
  const started = startPool(sweepPart, arrays, parts)
  if (E.isLeft(started)) return started
  const pool = started.right
  const run = (c: Command): void => {
    arrays.next[0] = 0
    pool.run(c)
  }
  return E.right({ state, arrays, pool, parts, threaded, run, f64, i32, shared: (a) => !threaded || a.buffer instanceof SharedArrayBuffer })
}

/**
 * The word-topic tables owed a count, and how each will be counted: n_wk after a sweep or the initial
 * topics (every token), SUB-LDA's sample after the coins (the kept tokens). Counted on the threads
 * inside the table's next release through the noiser (`drawInto`), else by `settle`.
 */
interface CountLedger {
  readonly owed: Map<Int32Array, CountedTokens>
  /** Counts `table` now if it is owed a count. */
  readonly settle: (table: Int32Array) => void
  /** After the initial topics: n_wk and n_k owed, every token. */
  readonly owe: () => void
  /** After a sweep: n_wk owed, as the sum of the threads' tables when they counted along, else by rows. */
  readonly swept: (along: boolean) => void
  /** Whether the next sweep counts along (`startCountingAlong` turned it on). */
  readonly countingAlong: () => boolean
  readonly startCountingAlong: () => void
  /** n_wk and n_k brought up to date. */
  readonly counts: () => void
  /** Whether the coins count the sample as they are thrown (allocating the threads' tables at the first call). */
  readonly sampleAlong: () => boolean
}

const countLedger = (g: Sampling): CountLedger => {
  const { K, V, tokens, nwk, nk } = g.state
  const owed = new Map<Int32Array, CountedTokens>()
  const settle = (table: Int32Array): void => {
    const tokens = owed.get(table)
    if (tokens === undefined) return
    if (table === nwk) startCountingAlong()
    g.pool.attach({ noiseIn: table })
    g.run({ type: 'count', tokens })
    owed.delete(table)
  }
  /** n_k, owed since n_wk last changed: summed from n_wk when someone reads it (`counts`). */
  let nkOwed = false
  const owe = (): void => {
    owed.set(nwk, 'all')
    nkOwed = true
  }
  /**
   * Whether sweeps on several threads count n_wk along: each thread counts the documents it drew into
   * its own part of `partTables` in one streaming pass at the end of the sweep, and the next release
   * sums the P tables per block instead of counting by rows, which reads z at random (HDP-LDA, Brown,
   * K = 50, 2 threads: ~2 ms per thread per iteration by rows, against 1.07 ms for one thread's
   * streaming `countTokens` of the whole table). Turned on the first time n_wk is counted after a
   * sweep — a trainer that never reads n_wk (SUB-LDA releases its sample's counts) pays nothing — and
   * only while the threads' tables fit `alongFits`. One thread keeps `countTokens` inside the release:
   * counting along there measured slower (the table's lines compete with q's rows in the sweep).
   */
  let countAlong = false
  const startCountingAlong = (): void => {
    if (countAlong || !g.threaded || !alongFits(g.parts, V, K, tokens.length)) return
    g.pool.attach({ partTables: g.i32(g.parts * V * K) })
    countAlong = true
  }
  /**
   * Whether the coins count the kept tokens as they keep them: the coins read every token's word and
   * topic anyway, so counting the kept ones there costs a few increments per kept token, where
   * counting the sample afterwards reads every token again — in one streaming pass on one thread
   * (~1.3 ms a release on Brown, whatever the rate), by rows on several, reading z and the sample at
   * random (~2 ms per thread at 2 threads). Several threads count into tables of their own, summed by
   * the release (`sampleParts`), while they fit `alongFits`, as n_wk's count along the sweep.
   */
  let sampleParts = false
  const sampleAlong = (): boolean => {
    if (!g.threaded || sampleParts) return true
    if (!alongFits(g.parts, V, K, tokens.length)) return false
    g.pool.attach({ sampleParts: g.i32(g.parts * V * K) })
    sampleParts = true
    return true
  }
  return {
    owed,
    settle,
    owe,
    swept: (along) => {
      owe()
      if (along) owed.set(nwk, 'parts')
    },
    countingAlong: () => countAlong,
    startCountingAlong,
    counts: () => {
      settle(nwk)
      if (!nkOwed) return
      nk.fill(0)
      for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) nk[k] = (nk[k] as number) + (nwk[w * K + k] as number)
      nkOwed = false
    },
    sampleAlong,
  }
}

/** The releases' side of a sampler: noisy tables drawn on the threads, and q built from a release. */
interface Releases {
  readonly setRelease: SnapshotSampler['setRelease']
  readonly noiser: TableNoiser
  readonly reusingNoiser: SnapshotSampler['reusingNoiser']
  /** Whether the next sweep builds q first (once per release), running the factors command first on a shared q. */
  readonly takeFactors: () => boolean
}

const releases = (g: Sampling, ledger: CountLedger, observed: boolean): Releases => {
  const { K, V, nwk } = g.state
  const { arrays, pool, run, f64 } = g
  /** A release copied into shared memory when it is not there (the threads read it by handle). */
  let releaseCopy: Float64Array | undefined
  /**
   * The plain copy of the threads' last noisy table that left the gate, and the shared table it was
   * copied from: a release that is that copy is read by the threads from the shared table (the same
   * numbers; nothing writes it before the next noise command), saving a serial copy of V·K doubles
   * per iteration on the calling thread.
   */
  let lastNoise: { readonly copy: Float64Array; readonly shared: Float64Array } | undefined
  /** The noisy table whose column sums (scale 1) colBlocks holds, taken as the threads drew it; and what each row block waits for. */
  let summed: Float64Array | undefined
  const pendingRows = noiseBlocksPerRowBlock(K, V, (n) => new Int32Array(n))
  let factorsOwed = false
  const setRelease = (noisy: Float64Array, scale: number): void => {
    let release = noisy
    if (lastNoise !== undefined && lastNoise.copy === noisy) release = lastNoise.shared
    else if (!g.shared(noisy)) {
      releaseCopy ??= f64(V * K)
      releaseCopy.set(noisy)
      release = releaseCopy
    }
    arrays.params[RELEASE_SCALE] = scale
    pool.attach({ release })
    // a release of n_wk that is the threads' own noisy table had its column sums taken as it was drawn
    if (!(scale === 1 && release === summed)) run({ type: 'column-sums' })
    summed = undefined
    inverseTotals(K, V, arrays.beta, arrays.colBlocks, arrays.inverseTotals)
    // q itself is built by each thread at the start of the next sweep (the release and the totals stay until then)
    factorsOwed = true
  }
  /**
   * On threads of their own q, the next sweep builds q in its own command; on a shared q the factors
   * command builds it before the sweep (every row must be built before any thread sweeps), the sweep
   * then building nothing.
   */
  const takeFactors = (): boolean => {
    const f = factorsOwed
    factorsOwed = false
    if (!f || arrays.wasmMemory === undefined) return f
    run({ type: 'factors' })
    return false
  }
  const samplers = samplerCache()
  /**
   * The threads' noise output, one shared table per size (CDP-LDA releases two), allocated once per
   * fit and copied out after each release. A fresh SharedArrayBuffer per release stayed alive until
   * every worker's own collection, which a worker that allocates almost nothing seldom runs: resident
   * memory at 2 workers grew by the ~2 MB table every iteration. Reusing it is safe because each pool
   * command is a barrier: no thread still writes it once `run` returns, and the next release starts
   * after the sweep that read this one (through q, which `setRelease` builds before it returns).
   */
  const noiseOuts = new Map<number, Float64Array>()
  const noiseOut = (n: number): Float64Array => {
    let out = noiseOuts.get(n)
    if (out === undefined) noiseOuts.set(n, (out = f64(n)))
    return out
  }
  const threadsRead = (counts: ArrayLike<number>): boolean => ArrayBuffer.isView(counts) && g.shared(counts as unknown as ArrayBufferView)
  /**
   * counts + noise into `out` (shared when the threads draw it): by every thread when they can read
   * `counts` (counting its cells first, block by block, when the table is owed a count), else here with the same words.
   */
  const drawInto = (noise: TableNoise, counts: ArrayLike<number>, random: StreamKey, out: Float64Array): void => {
    if (!threadsRead(counts)) {
      for (const table of ledger.owed.keys()) if (table === counts) ledger.settle(table)
      addBlockNoise(samplers(noise), random, counts, out, 0, blockCount(counts.length, NOISE_BLOCK))
      return
    }
    const table = counts as Int32Array | Float64Array
    const count = table instanceof Int32Array ? ledger.owed.get(table) : undefined
    if (table === nwk && count !== undefined) ledger.startCountingAlong()
    // n_wk's release: its column sums taken on the way, for setRelease if this table is the release
    const sums = table === nwk
    if (sums) arrays.rowsPending.set(pendingRows)
    pool.attach({ noiseIn: table, noiseOut: out, noise })
    run({ type: 'noise', random, count, sums })
    if (count !== undefined) ledger.owed.delete(table as Int32Array)
    if (sums) summed = out
    else if (summed === out) summed = undefined
  }
  const noiser: TableNoiser = (noise, counts, words) => {
    const random = streamKeyOf(words)
    if (!g.threaded || !threadsRead(counts)) {
      const out = new Float64Array(counts.length)
      drawInto(noise, counts, random, out)
      return out
    }
    const out = noiseOut(counts.length)
    drawInto(noise, counts, random, out)
    // the release leaves the gate and may be kept (an observer records every table): a plain copy, never the reused table
    const copy = out.slice()
    lastNoise = { copy, shared: out }
    return copy
  }
  const slots = new Map<string, Float64Array>()
  const reusingNoiser = (slot: string): TableNoiser =>
    observed
      ? noiser
      : (noise, counts, words) => {
          const random = streamKeyOf(words)
          let out = slots.get(slot)
          if (out === undefined || out.length !== counts.length) slots.set(slot, (out = f64(counts.length)))
          drawInto(noise, counts, random, out)
          return out
        }
  return { setRelease, noiser, reusingNoiser, takeFactors }
}

const build = (state: GibbsState, alpha: number, beta: number, clip: number, workers: number, engine: SparseEngine, observed: boolean, given?: WordIndex): E.Either<DpError, SnapshotSampler> => {
  const started = startSampling(state, alpha, beta, clip, workers, engine, given)
  if (E.isLeft(started)) return started
  const g = started.right
  const { arrays, pool, run, parts, threaded } = g
  const { K, V, D } = state
  const ledger = countLedger(g)
  const { setRelease, noiser, reusingNoiser, takeFactors } = releases(g, ledger, observed)
  let frequentCopy: Uint8Array | undefined
  const subsample = (rate: number, frequent: Uint8Array | undefined, words: WordStream): { counts: Int32Array; kept: number } => {
    const random = streamKeyOf(words)
    arrays.params[COIN_RATE] = rate
    if (frequent !== undefined) {
      let f = frequent
      if (!g.shared(frequent)) {
        frequentCopy ??= threaded ? new Uint8Array(new SharedArrayBuffer(V * K)) : new Uint8Array(V * K)
        frequentCopy.set(frequent)
        f = frequentCopy
      }
      pool.attach({ frequent: f })
    }
    // the kept tokens counted as the coins are thrown (`sampleAlong`), else by rows inside the sample's release
    const along = ledger.sampleAlong()
    run({ type: 'coins', adaptive: frequent !== undefined, random, count: along })
    if (!along) ledger.owed.set(arrays.sample, 'sample')
    else if (threaded) ledger.owed.set(arrays.sample, 'sample-parts')
    else ledger.owed.delete(arrays.sample)
    let kept = 0
    for (let j = 0; j < parts; j++) kept += arrays.keptParts[j] as number
    return { counts: arrays.sample, kept }
  }
  const sweep = (words: WordStream, include?: Uint8Array): void => {
    const random = randomnessOf(words)
    if (include !== undefined && include !== arrays.include) arrays.include.set(include)
    const along = ledger.countingAlong()
    run({ type: 'sweep', subsampled: include !== undefined, random, factors: takeFactors(), countAlong: along })
    ledger.swept(along)
  }
  let sharedDocNoise: Float64Array | undefined
  const sweepWithDocNoise = (words: WordStream, docNoise: Float64Array): void => {
    const random = randomnessOf(words)
    if (!threaded) pool.attach({ docNoise })
    else {
      if (sharedDocNoise === undefined) {
        sharedDocNoise = g.f64(D * K)
        pool.attach({ docNoise: sharedDocNoise })
      }
      sharedDocNoise.set(docNoise)
    }
    const along = ledger.countingAlong()
    run({ type: 'sweep-doc-noise', random, factors: takeFactors(), countAlong: along })
    ledger.swept(along)
  }
  const initialTopics = (words: WordStream): void => {
    run({ type: 'initial-topics', random: streamKeyOf(words) })
    ledger.owe()
  }
  return E.right({ setRelease, sweep, counts: ledger.counts, sweepWithDocNoise, noiser, reusingNoiser, subsample, initialTopics, include: arrays.include, workers: parts, close: pool.close })
}
