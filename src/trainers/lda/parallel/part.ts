/**
 * One part of a parallel snapshot sweep: the arrays every thread shares, the command the calling
 * thread writes into the shared control block, and what part j does for it — sweep its documents
 * [docCut[j], docCut[j + 1]), recount their tokens into its own table, or add a run of cells of the
 * parts' tables into n_wk. The calling thread
 * runs part 0 itself and the worker threads (./worker.ts) parts 1..W−1, with this same code.
 *
 * What crosses: the corpus, z and the count tables are the trainer's own state, shared in memory
 * between its threads; the release (q) is written by the calling thread between sweeps and only
 * read during one. Nothing leaves the process, and every release still passes through the gate on
 * the calling thread.
 *
 * @module
 */
import { docNoiseSweep, extraWords, fillRangeDraws, recount, type SweepRandomness, sparseSweep } from '../sweep-kernel.js'

/** The typed arrays of a sweep, shared between threads (SharedArrayBuffers) when there are several. */
export interface SweepArrays {
  readonly K: number
  readonly V: number
  readonly D: number
  readonly alpha: number
  readonly tokens: Int32Array
  readonly docStart: Int32Array
  readonly z: Int32Array
  readonly ndk: Int32Array
  readonly nwk: Int32Array
  /** The release's word factor q (V×K) and Σ_k q_wk (V): written between sweeps, read during one. */
  readonly q: Float64Array
  readonly qsum: Float64Array
  /** One first word per token position (see sweep-kernel.ts), and the subsample of the sweep. */
  readonly draws: Uint32Array
  readonly include: Uint8Array
  /** Topic totals per part (W×K), summed by the calling thread after a recount. */
  readonly nkParts: Int32Array
  /**
   * Word-topic counts per part (W×V×K), when there are several parts: each part recounts its own
   * documents' tokens (a streaming pass, contiguous in memory), then `reduce` sums the parts' tables
   * into n_wk, each part a run of cells.
   */
  readonly nwkParts: Int32Array | undefined
  /** Document boundaries of the parts (W + 1). */
  readonly docCut: Int32Array
  readonly control: Int32Array
}

/** Slots of the control block. */
export const GEN = 0 // bumped by the calling thread to start a command
export const DONE = 1 // parts (workers) finished with the current command
export const FAILED = 2 // a worker's command threw (its message follows on its port)
export const READY = 3 // workers that have loaded and wait for commands
const CMD = 4
const SUBSAMPLED = 5
const RANDOM = 6
const KEY = 8 // 4 words
const EXTRA_KEY = 12 // 4 words
/** Per worker: 1 once its thread has exited. */
export const EXITED = 16
export const controlLength = (parts: number): number => EXITED + parts

export type Command =
  | { readonly type: 'sweep'; readonly subsampled: boolean; readonly random: SweepRandomness }
  | { readonly type: 'sweep-doc-noise'; readonly random: SweepRandomness }
  | { readonly type: 'recount' }
  | { readonly type: 'reduce' }
  | { readonly type: 'attach' }
  | { readonly type: 'close' }
const TYPES = ['sweep', 'sweep-doc-noise', 'recount', 'reduce', 'attach', 'close'] as const

export const writeCommand = (control: Int32Array, c: Command): void => {
  control[CMD] = TYPES.indexOf(c.type)
  if (c.type === 'sweep') control[SUBSAMPLED] = c.subsampled ? 1 : 0
  if (c.type === 'sweep' || c.type === 'sweep-doc-noise') {
    control[RANDOM] = c.random.kind === 'crypto' ? 0 : 1
    if (c.random.kind === 'keyed') {
      control.set(c.random.key, KEY)
      control.set(c.random.extraKey, EXTRA_KEY)
    }
  }
}

export const readCommand = (control: Int32Array): Command => {
  const type = TYPES[control[CMD] as number]
  const random: SweepRandomness =
    control[RANDOM] === 0
      ? { kind: 'crypto' }
      : { kind: 'keyed', key: Uint32Array.from(control.subarray(KEY, KEY + 4)), extraKey: Uint32Array.from(control.subarray(EXTRA_KEY, EXTRA_KEY + 4)) }
  switch (type) {
    case 'sweep':
      return { type, subsampled: control[SUBSAMPLED] === 1, random }
    case 'sweep-doc-noise':
      return { type, random }
    case 'recount':
    case 'reduce':
    case 'attach':
    case 'close':
      return { type }
    default:
      throw new RangeError(`unknown sweep command ${control[CMD]}`)
  }
}

/** Part j of every command, with its own scratch arrays (K each). */
export const makePart = (s: SweepArrays, j: number) => {
  const { K } = s
  const nzTopics = new Int32Array(K)
  const nzCount = new Int32Array(K)
  const nzPos = new Int32Array(K)
  const scores = new Float64Array(K)
  const nk = s.nkParts.subarray(j * K, (j + 1) * K)
  const d0 = s.docCut[j] as number
  const d1 = s.docCut[j + 1] as number
  const a = s.docStart[d0] as number
  const b = s.docStart[d1] as number
  const W = s.docCut.length - 1
  const cells = s.V * K
  return (c: Command, docNoise: Float64Array | undefined): void => {
    switch (c.type) {
      case 'sweep': {
        const include = c.subsampled ? s.include : undefined
        fillRangeDraws(c.random, d0, d1, s.docStart, include, s.draws)
        sparseSweep(K, d0, d1, s.tokens, s.docStart, s.z, s.ndk, s.q, s.qsum, nzTopics, nzCount, nzPos, s.alpha, s.draws, include, extraWords(c.random))
        return
      }
      case 'sweep-doc-noise':
        if (docNoise === undefined) throw new RangeError('a doc-noise sweep before the document noise was attached')
        fillRangeDraws(c.random, d0, d1, s.docStart, undefined, s.draws)
        docNoiseSweep(K, d0, d1, s.tokens, s.docStart, s.z, s.ndk, s.q, s.alpha, docNoise, scores, s.draws)
        return
      case 'recount':
        if (s.nwkParts === undefined) recount(K, s.tokens, s.z, s.nwk, nk)
        else recount(K, s.tokens.subarray(a, b), s.z.subarray(a, b), s.nwkParts.subarray(j * cells, (j + 1) * cells), nk)
        return
      case 'reduce': {
        // n_wk over this part's run of cells: the parts' tables added in part order
        const parts = s.nwkParts
        if (parts === undefined) return
        const c0 = Math.floor((cells * j) / W)
        const c1 = Math.floor((cells * (j + 1)) / W)
        s.nwk.set(parts.subarray(c0, c1), c0)
        for (let p = 1; p < W; p++) {
          const off = p * cells
          for (let c = c0; c < c1; c++) s.nwk[c] = (s.nwk[c] as number) + (parts[off + c] as number)
        }
        return
      }
      case 'attach':
      case 'close':
        return
    }
  }
}

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
