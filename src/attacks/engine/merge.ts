/**
 * Merging chunk results in canonical order: selection outputs per (pair, side) stream, estimation
 * counts per side, and the earliest failure. Chunks are merged in trial order up to a stream's first
 * failure, so the merged result is the same for any chunking, any executor and any finishing order.
 *
 * @module
 */
import type { EstimationChunkRecord } from '../checkpoint.js'
import { type OutputShape, type TrialFailure } from '../output.js'
import type { AuditIssue } from '../result.js'
import { type ChunkTask, chunkShapeFailure, type SelectChunkResult } from '../trials.js'

/** Splits [0, n) into chunk tasks of one (phase, pair, side) stream. */
export const chunkTasks = (
  firstId: number,
  base: Omit<ChunkTask, 'id' | 'start' | 'end'>,
  n: number,
  chunk: number,
): ChunkTask[] => {
  const out: ChunkTask[] = []
  for (let s = 0, k = 0; s < n; s += chunk, k++) out.push({ ...base, id: firstId + k, start: s, end: Math.min(n, s + chunk) })
  return out
}

export const failureIssue = (f: TrialFailure, phase: 'select' | 'estimate', pair: number, side: 0 | 1): AuditIssue => ({
  _tag: f._tag,
  message: `${phase === 'select' ? 'selection' : 'estimation'}, pair ${pair}, ${side === 0 ? 'input' : 'neighbour'} side: ${f.message}`,
  phase,
  pair,
  side,
  trial: f.trial,
})

/** The earliest failure in canonical (pair, side, trial) order. */
export const earliest = (xs: ReadonlyArray<AuditIssue>): AuditIssue | null => {
  let best: AuditIssue | null = null
  for (const x of xs) {
    if (
      best === null ||
      (x.pair ?? 0) < (best.pair ?? 0) ||
      ((x.pair ?? 0) === (best.pair ?? 0) && ((x.side ?? 0) < (best.side ?? 0) || ((x.side ?? 0) === (best.side ?? 0) && (x.trial ?? 0) < (best.trial ?? 0))))
    )
      best = x
  }
  return best
}

/** The code of category `k` in a growing dictionary (added at the end if new). */
const intern = (dict: Map<string, number>, categories: string[], k: string): number => {
  let g = dict.get(k)
  if (g === undefined) {
    g = categories.length
    dict.set(k, g)
    categories.push(k)
  }
  return g
}

/**
 * Arrays of the selection samples live in shared memory from the start: worker threads fit on them
 * (pool.ts `fitOnSlots`) without a copy in the calling thread, which is the audit's serial part (issue 23).
 */
const sharedFloat64 = (n: number): Float64Array => new Float64Array(new SharedArrayBuffer(8 * n))
const sharedInt32 = (n: number): Int32Array => new Int32Array(new SharedArrayBuffer(4 * n))

/** Merges a stream's selection chunks (in trial order) up to its first failure. */
export const mergeSelection = (
  chunks: ReadonlyArray<SelectChunkResult>,
  reference: OutputShape | null,
): { shape: OutputShape | null; values: Float64Array; categories: string[]; codes: Int32Array; n: number; failure: TrialFailure | null } => {
  let shape = reference
  let n = 0
  let failure: TrialFailure | null = null
  const used: SelectChunkResult[] = []
  for (const c of chunks) {
    if (shape === null && c.shape !== null) shape = c.shape
    const sf = shape === null ? null : chunkShapeFailure(c, shape)
    if (sf !== null) {
      failure = sf
      break
    }
    used.push(c)
    n += c.completed
    if (c.failure !== null) {
      failure = c.failure
      break
    }
  }
  if (shape === null) return { shape, values: new Float64Array(0), categories: [], codes: new Int32Array(0), n: 0, failure }
  const dim = shape.kind === 'category' ? 0 : shape.dim
  const values = sharedFloat64(n * dim)
  const codes = sharedInt32(shape.kind === 'category' ? n : 0)
  const categories: string[] = []
  const dict = new Map<string, number>()
  let at = 0
  for (const c of used) {
    if (shape.kind === 'category') {
      const remap = c.categories.map((k) => intern(dict, categories, k))
      for (let i = 0; i < c.completed; i++) codes[at + i] = remap[c.codes[i] as number] as number
    } else values.set(c.values.subarray(0, c.completed * dim), at * dim)
    at += c.completed
  }
  return { shape, values, categories, codes, n, failure }
}

/** Re-codes side 1's categories into side 0's dictionary (extended), so both sides share codes. */
export const unifyCategories = (
  a: { categories: string[]; codes: Int32Array },
  b: { categories: string[]; codes: Int32Array },
): { categories: string[]; codes: [Int32Array, Int32Array] } => {
  const categories = [...a.categories]
  const dict = new Map(categories.map((k, i) => [k, i] as const))
  const remap = b.categories.map((k) => intern(dict, categories, k))
  const codes = sharedInt32(b.codes.length)
  for (let i = 0; i < codes.length; i++) codes[i] = remap[b.codes[i] as number] as number
  return { categories, codes: [a.codes, codes] }
}

export interface EstimationTotals {
  readonly counts: readonly [Float64Array, Float64Array]
  readonly n: readonly [number, number]
  readonly failure: AuditIssue | null
}

/** Sums estimation chunks of each side in trial order, up to that side's first failure. */
export const sumEstimation = (records: ReadonlyArray<EstimationChunkRecord>, gridLength: number, pair: number): EstimationTotals => {
  const counts: [Float64Array, Float64Array] = [new Float64Array(gridLength + 1), new Float64Array(gridLength + 1)]
  const n: [number, number] = [0, 0]
  const failures: AuditIssue[] = []
  for (const side of [0, 1] as const) {
    const mine = records.filter((r) => r.side === side).sort((p, q) => p.start - q.start)
    let expected = 0
    for (const r of mine) {
      if (r.start !== expected) break // a gap (interrupted run): count only the contiguous prefix
      for (let k = 0; k <= gridLength; k++) counts[side][k] = (counts[side][k] as number) + (r.counts[k] as number)
      n[side] += r.completed
      expected = r.start + r.completed
      if (r.failure !== null) {
        failures.push(failureIssue(r.failure, 'estimate', pair, side))
        break
      }
    }
  }
  return { counts, n, failure: earliest(failures) }
}



export const aboveCount = (c: Float64Array, k: number): number => {
  let s = 0
  for (let b = k + 1; b < c.length; b++) s += c[b] as number
  return s
}

