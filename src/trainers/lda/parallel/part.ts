/**
 * One part of a parallel snapshot sweep (the part module of ./pool.ts): the arrays every thread
 * shares, the command the calling thread writes into the pool's control block, and what part j does
 * for it. Every command's work comes in fixed units that the threads take from a shared counter
 * until none is left (`SweepArrays.next`): chunks of documents (sweep, SUB-LDA's coins, the initial
 * topics; several at a time while many are left, `eachChunk`), blocks of cells (count the word-topic table by rows, draw a release's noise — counting
 * the blocks' cells first when the table is owed a count), blocks of rows (the column sums of a
 * release; q from a release, on the threads' shared WebAssembly memory; ./release-work.ts), or its
 * own word-topic table of the documents it swept or the tokens its coins kept (counting along).
 * Threads without a shared memory each build their own q, every row, at the start of the sweep that
 * reads it. Each command is one function below (`sweepCommand`, `noiseCommand`, …) over the thread's
 * `Part`; `makePart` dispatches. A thread that wakes late or works slower takes fewer units instead of holding the others at the
 * command's end, and the units do not depend on the number of threads, so neither do the numbers.
 * The calling thread runs part 0 itself and the worker threads (./worker.ts) parts 1..W−1, with this same code.
 *
 * What crosses: the corpus, z and the count tables are the trainer's own state, shared in memory
 * between its threads; a release's noisy table is written by the threads inside the gate's release
 * (the measurement's run, on the calling thread, waits for them, and may have them count the table's
 * cells first from z: the true counts, inside the release), and q only from a release. Scalars
 * travel in the shared control block and `params`; a table's handle (a SharedArrayBuffer, not its
 * contents) is posted once when it is attached. Nothing leaves the process, and every release still
 * passes through the gate on the calling thread.
 *
 * @module
 */
import type { TableNoise } from '../../../mechanisms/measurement.js'
import type { PartModule } from './pool.js'
import { type WasmPrivateSweeper, wasmPrivateSweeper } from '../private-wasm.js'
import type { SparseEngine } from '../sparse.js'
import { countRange, cryptoDraws, docNoiseSweep, extraWords, fillRangeDraws, type SweepRandomness, sparseSweep } from '../sweep-kernel.js'
import {
  addNoiseBlock,
  blockCount,
  columnSums,
  countCells,
  countTokens,
  cryptoStream,
  initialTopics,
  NOISE_BLOCK,
  ROW_BLOCK,
  rowBlocksOf,
  samplerCache,
  type StreamKey,
  subsampleCoins,
  sumPartBlock,
  tokenWords,
  type WordIndex,
  wordFactors,
} from './release-work.js'

/** The typed arrays of a sweep, shared between threads (SharedArrayBuffers) when there are several. */
export interface SweepArrays {
  readonly K: number
  readonly V: number
  readonly D: number
  readonly alpha: number
  readonly beta: number
  /** The clipping bound C of q (∞: none). */
  readonly clip: number
  readonly tokens: Int32Array
  readonly docStart: Int32Array
  readonly z: Int32Array
  readonly ndk: Int32Array
  readonly nwk: Int32Array
  /** One first word per token position (see sweep-kernel.ts), and the subsample of the sweep. */
  readonly draws: Uint32Array
  readonly include: Uint8Array
  /** The tokens grouped by word (`countCells`): a block of n_wk's cells is counted from its rows' tokens. */
  readonly index: WordIndex
  /** The noise blocks of a V×K table, the largest count first (`blocksByWork`): the order threads take them when counting. */
  readonly countOrder: Int32Array
  /** Column sums of a release per block of ROW_BLOCK rows (⌈V/ROW_BLOCK⌉×K), and 1/(their total + Vβ) (K). */
  readonly colBlocks: Float64Array
  readonly inverseTotals: Float64Array
  /**
   * Per row block, the noise blocks of a release of n_wk still to be drawn (`noiseBlocksPerRowBlock`,
   * set before the command): the thread that draws a row block's last one takes its column sums.
   */
  readonly rowsPending: Int32Array
  /** SUB-LDA: the (word, topic) counts of the sample (V×K), and each part's number of kept tokens (W). */
  readonly sample: Int32Array
  readonly keptParts: Int32Array
  /** Scalars of the current command: [RELEASE_SCALE] the release's scale, [COIN_RATE] the coins' rate. */
  readonly params: Float64Array
  /**
   * Document boundaries of the chunks (about CHUNKS_PER_PART per part, cut by tokens), the units
   * of the sweep, the coins and the initial topics: a part whose documents cost more per token (more
   * topics each) does not leave the others waiting at the end of the sweep.
   */
  readonly chunkCut: Int32Array
  /**
   * The next unit of the current command (one slot, reset by the calling thread before each command
   * and published by the command's start): the threads take units with Atomics.add until none is left.
   */
  readonly next: Int32Array
  /** Which loop sweeps: WebAssembly (./private-wasm.ts, where available) or the JavaScript `sparseSweep`; the same draws. */
  readonly engine: SparseEngine
  /**
   * The WebAssembly memory the threads share (../private-wasm.ts `sharedSweepMemory`): one q, built by
   * all of them together (`factors` command) and read by every sweep, instead of one q per thread, each
   * built whole. Undefined: each thread's sweeper has a memory and a q of its own.
   */
  readonly wasmMemory?: object
}

/** Slots of a command's words (the pool's COMMAND_WORDS). */
const CMD = 0
const FLAG = 1
const RANDOM = 2
/** A second flag: a sweep's `factors`, a noise's `sums`. */
const FLAG2 = 3
const KEY = 4 // 4 words
const EXTRA_KEY = 8 // 4 words
/** Slots of `params`. */
export const RELEASE_SCALE = 0
export const COIN_RATE = 1
export const PARAMS = 2

/**
 * Tables a part reads by handle, attached (posted once to each worker) before the commands that
 * read them: the noisy document counts' noise of a doc-noise sweep, the counts and output of a noisy
 * table, the release q is built from, SUB-LDA's frequent (word, topic) pairs.
 */
export interface Attached {
  docNoise?: Float64Array
  noiseIn?: Int32Array | Float64Array
  noiseOut?: Float64Array
  noise?: TableNoise
  release?: Float64Array
  frequent?: Uint8Array
  /**
   * The threads' own word-topic tables (P·V·K, part j's at j·V·K) of a sweep that counts along on
   * several threads: each sweeping thread adds the tokens it drew to its own table, and the next
   * release of n_wk sums the P tables per block of cells (`sumPartBlock`).
   */
  partTables?: Int32Array
  /**
   * SUB-LDA on several threads: the threads' own tables of the sample's (word, topic) counts (P·V·K,
   * part j's at j·V·K), each counted as its thread throws the coins, summed by the sample's release.
   */
  sampleParts?: Int32Array
}

export type Command =
  /**
   * A sweep. `countAlong` (several threads): once its chunks are drawn, every thread counts their tokens
   * into its own part of the attached `partTables` (zeroed first), which n_wk's next release sums.
   * `factors` (threads of their own q): each thread first builds its word factor q from the attached
   * release (every row, where its sweep reads it), in the same command — no pass over the threads of
   * its own; on a shared q the `factors` command builds it before the sweep instead.
   */
  | { readonly type: 'sweep'; readonly subsampled: boolean; readonly random: SweepRandomness; readonly factors: boolean; readonly countAlong: boolean }
  | { readonly type: 'sweep-doc-noise'; readonly random: SweepRandomness; readonly factors: boolean; readonly countAlong: boolean }
  | { readonly type: 'count'; readonly tokens: CountedTokens }
  /**
   * A table's noise, its blocks' cells counted first when it is owed a count; `sums` (n_wk's release,
   * V×K): the column sums of the noisy table are taken as its row blocks complete (`rowsPending`), the
   * scale-1 sums of the column-sums command, for the release that is this very table.
   */
  | { readonly type: 'noise'; readonly random: StreamKey; readonly count: CountedTokens | undefined; readonly sums: boolean }
  | { readonly type: 'column-sums' }
  /** q from the attached release into the shared WebAssembly memory (`wasmMemory`), by blocks of rows. */
  | { readonly type: 'factors' }
  /**
   * SUB-LDA's coins. `count`: the kept tokens are counted as they are kept — into the sample's table by
   * a thread alone, else into each thread's own part of the attached `sampleParts` (zeroed first),
   * which the sample's release sums; otherwise the table is counted by rows, inside its release.
   */
  | { readonly type: 'coins'; readonly adaptive: boolean; readonly random: StreamKey; readonly count: boolean }
  | { readonly type: 'initial-topics'; readonly random: StreamKey }
const TYPES = ['sweep', 'sweep-doc-noise', 'count', 'noise', 'column-sums', 'coins', 'initial-topics', 'factors'] as const
/**
 * Which tokens a word-topic table counts: every token (n_wk), or those of SUB-LDA's sample
 * (include[i] = 1), by rows from z; or `parts`: every token, already counted along the sweep into the
 * threads' own tables (`partTables`), summed; or `sample-parts`: the sample's tokens, counted by the
 * threads as they threw the coins (`sampleParts`), summed. A `count` command counts them into the attached
 * `noiseIn`; a `noise` command with `count` counts each of its blocks' cells there just before drawing their noise.
 */
export type CountedTokens = 'all' | 'sample' | 'parts' | 'sample-parts'
const COUNTED: ReadonlyArray<CountedTokens | undefined> = [undefined, 'all', 'sample', 'parts', 'sample-parts']
/** The sweep's bits in FLAG2: build q first, count along. */
const FACTORS_BIT = 1
const COUNT_ALONG_BIT = 2

const writeKey = (words: Int32Array, key: Uint32Array, at: number): void => {
  words.set(key, at)
}
const writeRandom = (words: Int32Array, r: SweepRandomness | StreamKey): void => {
  words[RANDOM] = r.kind === 'crypto' ? 0 : 1
  if (r.kind === 'keyed') {
    writeKey(words, r.key, KEY)
    if ('extraKey' in r) writeKey(words, r.extraKey, EXTRA_KEY)
  }
}

export const writeCommand = (words: Int32Array, c: Command): void => {
  words[CMD] = TYPES.indexOf(c.type)
  if (c.type === 'sweep') words[FLAG] = c.subsampled ? 1 : 0
  if (c.type === 'count') words[FLAG] = COUNTED.indexOf(c.tokens)
  if (c.type === 'noise') {
    words[FLAG] = COUNTED.indexOf(c.count)
    words[FLAG2] = c.sums ? 1 : 0
  }
  if (c.type === 'coins') {
    words[FLAG] = c.adaptive ? 1 : 0
    words[FLAG2] = c.count ? 1 : 0
  }
  if ('factors' in c) words[FLAG2] = (c.factors ? FACTORS_BIT : 0) | (c.countAlong ? COUNT_ALONG_BIT : 0)
  if ('random' in c) writeRandom(words, c.random)
}

const readKey = (words: Int32Array, at: number): Uint32Array => Uint32Array.from(words.subarray(at, at + 4))

export const readCommand = (words: Int32Array): Command => {
  const type = TYPES[words[CMD] as number]
  const keyed = words[RANDOM] === 1
  const random: SweepRandomness = keyed ? { kind: 'keyed', key: readKey(words, KEY), extraKey: readKey(words, EXTRA_KEY) } : { kind: 'crypto' }
  const stream: StreamKey = keyed ? { kind: 'keyed', key: readKey(words, KEY) } : { kind: 'crypto' }
  const flag = words[FLAG] === 1
  const factors = ((words[FLAG2] as number) & FACTORS_BIT) !== 0
  const countAlong = ((words[FLAG2] as number) & COUNT_ALONG_BIT) !== 0
  switch (type) {
    case 'sweep':
      return { type, subsampled: flag, random, factors, countAlong }
    case 'sweep-doc-noise':
      return { type, random, factors, countAlong }
    case 'count':
      return { type, tokens: COUNTED[words[FLAG] as number] ?? 'all' }
    case 'noise':
      return { type, random: stream, count: COUNTED[words[FLAG] as number], sums: words[FLAG2] === 1 }
    case 'initial-topics':
      return { type, random: stream }
    case 'coins':
      return { type, adaptive: flag, random: stream, count: words[FLAG2] === 1 }
    case 'column-sums':
    case 'factors':
      return { type }
    default:
      throw new RangeError(`unknown sweep command ${words[CMD]}`)
  }
}

const need = <T>(x: T | undefined, what: string): T => {
  if (x === undefined) throw new RangeError(`${what} was not attached`)
  return x
}

/**
 * What part j keeps from command to command: its scratch (K each), its sweeper and q, its node:crypto
 * first words, and the chunks it took in its last sweep. The command functions below read it.
 */
interface Part {
  readonly s: SweepArrays
  readonly j: number
  readonly nz: Int32Array // the document's packed topic list (sweep-kernel.ts)
  readonly nzPos: Int32Array
  readonly scores: Float64Array
  readonly docFactor: Float64Array // a doc-noise sweep's document factors (sweep-kernel.ts `docNoiseSweep`)
  readonly samplers: ReturnType<typeof samplerCache>
  readonly words: ReturnType<typeof tokenWords>
  readonly keyScratch: Int32Array
  /** The chunks this part took in its last `eachChunk`, in the order taken: mine[0, taken). */
  readonly mine: Int32Array
  /** Whether it is the only part: a thread alone counts a whole table in one streaming pass (`countTokens`), cheaper than by rows. */
  readonly alone: boolean
  /** The sweep in WebAssembly (../private-wasm.ts, the same draws as sparseSweep), made at the first use; undefined: unavailable. */
  readonly wasm: () => WasmPrivateSweeper | undefined
  /**
   * This thread's word factor q (V×K) and Σ_k q_wk (V), read by its sweeps: in the WebAssembly
   * sweeper's memory (no copy per sweep; on a shared memory the one q all threads build together),
   * else in arrays of its own (the JavaScript loop). q stays in double precision: single precision
   * measured ~5 % faster, but its rounding would loosen the ratio bound behind ε_I (Zhao et al. eq. 7)
   * by ~1e-7, which the plan does not declare.
   */
  readonly factors: () => { readonly q: Float64Array; readonly qsum: Float64Array }
  /** This thread's node:crypto first words (`cryptoDraws`), made at the first crypto sweep. */
  readonly cryptoWords: () => (out: Uint32Array) => void
}

const makePartState = (s: SweepArrays, j: number): Part => {
  const { K, V } = s
  let sweeper: WasmPrivateSweeper | null | undefined
  const wasm = (): WasmPrivateSweeper | undefined => {
    if (sweeper === undefined) {
      sweeper = (s.engine === 'wasm' ? wasmPrivateSweeper(s, s.wasmMemory === undefined ? undefined : { memory: s.wasmMemory, part: j }) : undefined) ?? null
      // the threads share one q that only their sweepers hold: a thread without one could not read it
      if (sweeper === null && s.wasmMemory !== undefined) throw new Error(`thread ${j} cannot instantiate the WebAssembly sweep on the shared memory`)
    }
    return sweeper ?? undefined
  }
  let ownFactors: { readonly q: Float64Array; readonly qsum: Float64Array } | undefined
  let ownDraws: ((out: Uint32Array) => void) | undefined
  return {
    s,
    j,
    nz: new Int32Array(K),
    nzPos: new Int32Array(K),
    scores: new Float64Array(K),
    docFactor: new Float64Array(K),
    samplers: samplerCache(),
    words: tokenWords(),
    keyScratch: new Int32Array(4),
    mine: new Int32Array(s.chunkCut.length - 1),
    alone: s.keptParts.length === 1,
    wasm,
    factors: () => (ownFactors ??= wasm() ?? { q: new Float64Array(V * K), qsum: new Float64Array(V) }),
    cryptoWords: () => (ownDraws ??= cryptoDraws()),
  }
}

/** Calls `visit(u)` on the units of [0, units) this part takes from the shared counter (every unit when it is the only part). */
const eachUnit = (p: Part, units: number, visit: (u: number) => void): void => {
  const next = p.s.next
  for (let u = Atomics.add(next, 0, 1); u < units; u = Atomics.add(next, 0, 1)) visit(u)
}

/**
 * Visits the chunks of documents this part takes, several consecutive chunks a visit while many are
 * left (guided self-scheduling, Polychronopoulos & Kuck 1987: 1/(2W) of those left, at least one);
 * returns how many chunks it took (listed in `p.mine`). The chunks are fine (CHUNKS_PER_PART a part)
 * so that the last visits, one chunk each, leave the other threads a short wait at the sweep's end;
 * the claims stay few (~2W·ln(chunks)).
 */
const eachChunk = (p: Part, visit: (c0: number, c1: number) => void): number => {
  const { chunkCut: cut, next } = p.s
  const chunks = cut.length - 1
  const share = 2 * p.s.keptParts.length // keptParts has one slot per part: 2W
  let taken = 0
  for (;;) {
    const step = Math.max(1, Math.floor((chunks - Atomics.load(next, 0)) / share))
    const i0 = Atomics.add(next, 0, step)
    if (i0 >= chunks) return taken
    const i1 = Math.min(chunks, i0 + step)
    for (let i = i0; i < i1; i++) p.mine[taken++] = i
    visit(cut[i0] as number, cut[i1] as number)
  }
}

/** Part j's own V×K slice of a P·V·K table of the threads' own tables. */
const ownSlice = (p: Part, tables: Int32Array): Int32Array => {
  const cells = p.s.V * p.s.K
  return tables.subarray(p.j * cells, (p.j + 1) * cells)
}

const counted = (p: Part, tokens: CountedTokens): Uint8Array | undefined => (tokens === 'sample' ? p.s.include : undefined)

/** The threads' own tables a table owed `tokens` is summed from (undefined: it is counted from z). */
const partsOf = (tokens: CountedTokens | undefined, t: Attached): Int32Array | undefined =>
  tokens === 'parts' ? need(t.partTables, "the threads' own tables") : tokens === 'sample-parts' ? need(t.sampleParts, "the threads' own sample tables") : undefined

/** Counts the cells of noise block b of `table` (V×K) from z. */
const countBlock = (p: Part, table: Int32Array, include: Uint8Array | undefined, b: number): void =>
  countCells(p.s.K, p.s.index, p.s.z, include, table, b * NOISE_BLOCK, Math.min(table.length, (b + 1) * NOISE_BLOCK))

/** Builds this thread's q from the attached release: every row, on every thread (in WebAssembly: where the sweep reads it). */
const buildFactors = (p: Part, t: Attached): void => {
  const { s } = p
  // a shared q is built by the `factors` command, each row once: every thread writing all of it would race with the sweeps
  if (s.wasmMemory !== undefined) throw new Error('a sweep with factors on a shared memory: run the factors command')
  const release = need(t.release, 'the release')
  const scale = s.params[RELEASE_SCALE] as number
  const w = p.wasm()
  const f = p.factors()
  if (w !== undefined) w.factors(release, s.inverseTotals, scale, s.clip, s.beta)
  else wordFactors(s.K, s.V, release, scale, s.clip, s.beta, s.inverseTotals, f.q, f.qsum, 0, blockCount(s.V, ROW_BLOCK))
}

/**
 * Counts the tokens of the chunks this part just swept into its own part table, zeroed first, in one
 * streaming pass once the sweep is done: counted while sweeping (each piece's tokens after its
 * draws) it cost ~3× as much, the table's lines evicted by q's rows between pieces.
 */
const countTaken = (p: Part, t: Attached, taken: number): void => {
  const { s } = p
  const own = ownSlice(p, need(t.partTables, "the threads' own tables"))
  own.fill(0)
  for (let m = 0; m < taken; m++) {
    const i = p.mine[m] as number
    countRange(s.K, s.tokens, s.z, s.docStart[s.chunkCut[i] as number] as number, s.docStart[s.chunkCut[i + 1] as number] as number, own)
  }
}

const sweepCommand = (p: Part, c: Extract<Command, { type: 'sweep' }>, t: Attached): void => {
  const { s } = p
  if (c.factors) buildFactors(p, t)
  const include = c.subsampled ? s.include : undefined
  const extra = extraWords(c.random)
  const w = p.wasm()
  const { q, qsum } = p.factors()
  // node:crypto words go straight into the WebAssembly sweep's pieces, from this thread's supply
  const supply = c.random.kind === 'crypto' && w !== undefined ? p.cryptoWords() : undefined
  const taken = eachChunk(p, (c0, c1) => {
    if (w !== undefined && supply !== undefined) return w.sweep(c0, c1, supply, include, extra)
    fillRangeDraws(c.random, c0, c1, s.docStart, include, s.draws)
    if (w !== undefined) w.sweep(c0, c1, s.draws, include, extra)
    else sparseSweep(s.K, c0, c1, s.tokens, s.docStart, s.z, s.ndk, q, qsum, p.nz, p.nzPos, s.alpha, s.draws, include, extra)
  })
  if (c.countAlong) countTaken(p, t, taken)
}

const docNoiseSweepCommand = (p: Part, c: Extract<Command, { type: 'sweep-doc-noise' }>, t: Attached): void => {
  const { s } = p
  if (c.factors) buildFactors(p, t)
  const docNoise = need(t.docNoise, 'the document noise of a doc-noise sweep')
  const { q } = p.factors()
  const taken = eachChunk(p, (c0, c1) => {
    fillRangeDraws(c.random, c0, c1, s.docStart, undefined, s.draws)
    docNoiseSweep(s.K, c0, c1, s.tokens, s.docStart, s.z, s.ndk, q, s.alpha, docNoise, p.scores, p.docFactor, s.draws)
  })
  if (c.countAlong) countTaken(p, t, taken)
}

const countCommand = (p: Part, c: Extract<Command, { type: 'count' }>, t: Attached): void => {
  const { s } = p
  const table = need(t.noiseIn, 'the table to count') as Int32Array
  const parts = partsOf(c.tokens, t)
  if (parts !== undefined) return eachUnit(p, blockCount(table.length, NOISE_BLOCK), (b) => sumPartBlock(parts, table, b))
  const include = counted(p, c.tokens)
  if (p.alone) countTokens(s.K, s.tokens, s.z, include, table)
  else eachUnit(p, s.countOrder.length, (u) => countBlock(p, table, include, s.countOrder[u] as number))
}

const noiseCommand = (p: Part, c: Extract<Command, { type: 'noise' }>, t: Attached): void => {
  const { s } = p
  const { K, V } = s
  const counts = need(t.noiseIn, 'the counts of a noisy table')
  const out = need(t.noiseOut, 'the output of a noisy table')
  const sampler = p.samplers(need(t.noise, 'the noise of a noisy table'))
  const crypto = cryptoStream()
  // a table owed a count: counted first in one streaming pass (a thread alone), or per block just before
  // its noise — summed from the threads' own tables, or by rows (the largest blocks first)
  const parts = partsOf(c.count, t)
  const byRows = c.count !== undefined && parts === undefined && !p.alone
  const include = counted(p, c.count ?? 'all')
  if (c.count !== undefined && parts === undefined && p.alone) countTokens(K, s.tokens, s.z, include, counts as Int32Array)
  eachUnit(p, blockCount(counts.length, NOISE_BLOCK), (u) => {
    const b = byRows ? (s.countOrder[u] as number) : u
    if (byRows) countBlock(p, counts as Int32Array, include, b)
    else if (parts !== undefined) sumPartBlock(parts, counts as Int32Array, b)
    addNoiseBlock(sampler, c.random, crypto, counts, out, b, p.keyScratch)
    if (c.sums) {
      // the row blocks this block completes (it drew their last cells): their column sums, as the column-sums
      // command takes them, while the block is in cache
      const [r0, r1] = rowBlocksOf(K, V, b)
      for (let rb = r0; rb <= r1; rb++) if (Atomics.sub(s.rowsPending, rb, 1) === 1) columnSums(K, V, out, 1, s.colBlocks, rb, rb + 1)
    }
  })
}

/** q from the attached release into the shared WebAssembly memory, by blocks of rows. */
const factorsCommand = (p: Part, t: Attached): void => {
  const { s } = p
  const release = need(t.release, 'the release')
  const w = p.wasm() as WasmPrivateSweeper // a shared memory means a sweeper on every thread (`makePartState`)
  const scale = s.params[RELEASE_SCALE] as number
  eachUnit(p, blockCount(s.V, ROW_BLOCK), (rb) => w.factors(release, s.inverseTotals, scale, s.clip, s.beta, rb * ROW_BLOCK, Math.min(s.V, (rb + 1) * ROW_BLOCK)))
}

const coinsCommand = (p: Part, c: Extract<Command, { type: 'coins' }>, t: Attached): void => {
  const { s } = p
  const frequent = c.adaptive ? need(t.frequent, 'the frequent pairs') : undefined
  // the kept tokens counted as they are kept: a thread alone into the sample's table, else into its own part
  const counts = !c.count ? undefined : p.alone ? s.sample : ownSlice(p, need(t.sampleParts, "the threads' own sample tables"))
  counts?.fill(0)
  let kept = 0
  eachChunk(p, (d0, d1) => {
    kept += subsampleCoins(s.K, s.tokens, s.docStart, s.z, d0, d1, s.params[COIN_RATE] as number, frequent, c.random, s.include, counts, p.words)
  })
  s.keptParts[p.j] = kept
}

/** Part j of every command, on the fit's shared arrays and the tables attached so far. */
export const makePart = (s: SweepArrays, j: number) => {
  const p = makePartState(s, j)
  return (c: Command, t: Attached): void => {
    switch (c.type) {
      case 'sweep':
        return sweepCommand(p, c, t)
      case 'sweep-doc-noise':
        return docNoiseSweepCommand(p, c, t)
      case 'count':
        return countCommand(p, c, t)
      case 'noise':
        return noiseCommand(p, c, t)
      case 'column-sums':
        return eachUnit(p, blockCount(s.V, ROW_BLOCK), (rb) => columnSums(s.K, s.V, need(t.release, 'the release'), s.params[RELEASE_SCALE] as number, s.colBlocks, rb, rb + 1))
      case 'factors':
        return factorsCommand(p, t)
      case 'coins':
        return coinsCommand(p, c, t)
      case 'initial-topics':
        eachChunk(p, (d0, d1) => initialTopics(s.K, s.docStart, d0, d1, c.random, s.z, s.ndk, p.words))
        return
    }
  }
}

/** The snapshot sweep as a part module of ./pool.ts. */
export const sweepPart: PartModule<SweepArrays, Command, Attached> = { url: new URL('./part.js', import.meta.url), makePart, writeCommand }

/** Sweep chunks per part (see `SweepArrays.chunkCut`): at most about 1/CHUNKS_PER_PART of a part's share is left to one thread at the end. */
export const CHUNKS_PER_PART = 128

/** Cuts [0, n) items with cumulative weights `start` (start[0] = 0, nondecreasing) into `parts` runs of about equal weight. */
export const cutByWeight = (start: Int32Array, parts: number): Int32Array => {
  const n = start.length - 1
  const total = start[n] as number
  const cut = new Int32Array(parts + 1)
  let i = 0
  for (let j = 1; j < parts; j++) {
    const target = (total * j) / parts
    while (i < n && (start[i] as number) < target) i++
    cut[j] = i
  }
  cut[parts] = n
  return cut
}
