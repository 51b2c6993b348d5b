/**
 * The unit of audit work: run trials [start, end) of one (phase, pair, side) stream and return
 * typed arrays. This is the worker entry as a plain function — the worker thread calls it, and so
 * does the in-process executor — so its determinism can be tested without threads.
 *
 * Hot loop: one `TrialRng` per chunk, reset per trial (no allocation); outputs go straight into a
 * preallocated Float64Array (selection) or into per-bin counts of the attack score (estimation).
 * The first failing trial (throw, NaN, changed shape) ends the chunk; every trial before it is kept.
 *
 * @module
 */
import {
  classify,
  describeOutput,
  errorMessage,
  type BlackBox,
  type OutputShape,
  sameShape,
  shapeFailure,
  showShape,
  type TrialFailure,
} from './output.js'
import type { NeighbourPair } from './pairs.js'
import { type ChosenAttack, compileScorer, countAtMost, type Scorer } from './score.js'
import { type Phase, streamKey, TrialRng } from './stream.js'

export interface ChunkTask {
  readonly id: number
  readonly phase: Phase
  readonly pair: number
  readonly side: 0 | 1
  /** Trial indices [start, end) of the stream. */
  readonly start: number
  readonly end: number
  /** The audit seed's 64-bit hash. */
  readonly seed: readonly [number, number]
  /** Estimation only: the attack and the sorted score grid to count against. */
  readonly attack?: ChosenAttack
  readonly grid?: ReadonlyArray<number>
}

export interface SelectChunkResult {
  readonly id: number
  readonly phase: 'select'
  readonly pair: number
  readonly side: 0 | 1
  readonly start: number
  /** Trials completed before the first failure (end − start if none). */
  readonly completed: number
  /** Shape of the chunk's outputs (null if no trial completed). */
  readonly shape: OutputShape | null
  /** Numbers, booleans (0/1) and vectors (row-major, completed × dim). Empty for categories. */
  readonly values: Float64Array
  /** Categories: codes into `categories` (first-seen order within the chunk). */
  readonly codes: Int32Array
  readonly categories: ReadonlyArray<string>
  readonly failure: TrialFailure | null
}

export interface EstimateChunkResult {
  readonly id: number
  readonly phase: 'estimate'
  readonly pair: number
  readonly side: 0 | 1
  readonly start: number
  readonly completed: number
  /** counts[k] = number of trials whose oriented score s has exactly k grid points ≤ s. */
  readonly counts: Float64Array
  readonly failure: TrialFailure | null
}

export type ChunkResult = SelectChunkResult | EstimateChunkResult

const EMPTY_F64 = new Float64Array(0)
const EMPTY_I32 = new Int32Array(0)

const threw = (trial: number, e: unknown): TrialFailure => ({
  _tag: 'MechanismThrew',
  trial,
  message: `the mechanism threw at trial ${trial}: ${errorMessage(e)}`,
})

const nan = (trial: number, where = ''): TrialFailure => ({
  _tag: 'NonFiniteOutput',
  trial,
  message: `trial ${trial} returned NaN${where}; a mechanism's outputs must be numbers (±∞ allowed for scalars, finite in vectors)`,
})

/**
 * Copies a vector output into `buf` at `off`; returns null, or why not: 'shape' (not a vector of
 * length dim), an index (an entry that is neither a number nor a boolean), or a non-finite entry's text.
 */
const storeVector = (o: unknown, dim: number, buf: Float64Array, off: number): string | number | null => {
  if (!(Array.isArray(o) || (ArrayBuffer.isView(o) && !(o instanceof DataView)))) return 'shape'
  const v = o as ArrayLike<unknown>
  if (v.length !== dim) return 'shape'
  for (let j = 0; j < dim; j++) {
    const x = v[j]
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return ` at entry ${j} (${String(x)})`
      buf[off + j] = x
    } else if (typeof x === 'boolean') buf[off + j] = x ? 1 : 0
    else return j
  }
  return null
}

const vectorFailure = (trial: number, why: string | number, shape: OutputShape, o: unknown): TrialFailure =>
  why === 'shape'
    ? shapeFailure(trial, shape, o)
    : typeof why === 'number'
      ? {
          _tag: 'InvalidOutput',
          trial,
          message: `trial ${trial} returned a vector whose entry ${why} is ${describeOutput((o as ArrayLike<unknown>)[why])}; vector entries must be finite numbers or booleans (a mixed output can be a string category instead)`,
        }
      : { _tag: 'NonFiniteOutput', trial, message: `trial ${trial} returned a vector with a non-finite entry${why}; vector outputs must be finite numbers or booleans` }

/**
 * Generators kept for the next chunk (issue 23, per-chunk cost): a chunk takes one, rekeys it and
 * gives it back. A new generator per chunk brought a new `next` closure to every chunk, and each
 * mechanism optimised with the last one inlined deoptimised and recompiled, in every worker thread
 * (V8's compiler threads are shared by all of them). A list, not one generator: a mechanism may
 * run an audit of its own.
 */
const spare: TrialRng[] = []
const takeRng = (key: readonly [number, number]): TrialRng => {
  const rng = spare.pop()
  if (rng === undefined) return new TrialRng(key)
  rng.rekey(key)
  return rng
}

/**
 * The scorer and grid of an attack, compiled once per (attack, grid) object: a worker gets them once
 * per batch (`unpackTask` shares them between the batch's tasks), and a scorer compiled per
 * chunk was a new closure per chunk, which deoptimised the estimation loop that inlined the last one.
 */
const compiled = new WeakMap<ChosenAttack, { readonly gridArr: ReadonlyArray<number>; readonly grid: Float64Array; readonly scorer: Scorer }>()
const compiledFor = (attack: ChosenAttack, gridArr: ReadonlyArray<number>): { readonly grid: Float64Array; readonly scorer: Scorer } => {
  const c = compiled.get(attack)
  if (c !== undefined && c.gridArr === gridArr) return c
  const fresh = { gridArr, grid: Float64Array.from(gridArr), scorer: compileScorer(attack.model, attack.shape) }
  compiled.set(attack, fresh)
  return fresh
}

/** Runs one selection chunk: the raw outputs of trials [start, end). */
const runSelect = <I>(task: ChunkTask, mechanism: BlackBox<I>, input: I): SelectChunkResult => {
  const rng = takeRng(streamKey(task.seed, 'select', task.pair, task.side))
  try {
    return select(task, mechanism, input, rng)
  } finally {
    spare.push(rng)
  }
}

const select = <I>(task: ChunkTask, mechanism: BlackBox<I>, input: I, rng: TrialRng): SelectChunkResult => {
  const { start, end } = task
  const base = { id: task.id, phase: 'select' as const, pair: task.pair, side: task.side, start }
  if (end <= start) return { ...base, completed: 0, shape: null, values: EMPTY_F64, codes: EMPTY_I32, categories: [], failure: null }
  // The first trial fixes the chunk's shape.
  rng.reset(start)
  let first: unknown
  try {
    first = mechanism(input, rng)
  } catch (e) {
    return { ...base, completed: 0, shape: null, values: EMPTY_F64, codes: EMPTY_I32, categories: [], failure: threw(start, e) }
  }
  const c = classify(first)
  if (typeof c === 'string')
    return { ...base, completed: 0, shape: null, values: EMPTY_F64, codes: EMPTY_I32, categories: [], failure: { _tag: 'InvalidOutput', trial: start, message: `trial ${start}: ${c}` } }
  const shape = c
  const n = end - start
  let failure: TrialFailure | null = null
  let i = start
  switch (shape.kind) {
    case 'number':
    case 'boolean': {
      const values = new Float64Array(n)
      const isBool = shape.kind === 'boolean'
      let y: unknown = first
      for (;;) {
        if (isBool) {
          if (typeof y !== 'boolean') {
            failure = shapeFailure(i, shape, y)
            break
          }
          values[i - start] = y ? 1 : 0
        } else {
          if (typeof y !== 'number') {
            failure = shapeFailure(i, shape, y)
            break
          }
          if (y !== y) {
            failure = nan(i)
            break
          }
          values[i - start] = y
        }
        if (++i >= end) break
        rng.reset(i)
        try {
          y = mechanism(input, rng)
        } catch (e) {
          failure = threw(i, e)
          break
        }
      }
      const done = i - start
      return { ...base, completed: done, shape, values: done === n ? values : values.slice(0, done), codes: EMPTY_I32, categories: [], failure }
    }
    case 'vector': {
      const dim = shape.dim
      const values = new Float64Array(n * dim)
      let y: unknown = first
      for (;;) {
        const why = storeVector(y, dim, values, (i - start) * dim)
        if (why !== null) {
          failure = vectorFailure(i, why, shape, y)
          break
        }
        if (++i >= end) break
        rng.reset(i)
        try {
          y = mechanism(input, rng)
        } catch (e) {
          failure = threw(i, e)
          break
        }
      }
      const done = i - start
      return { ...base, completed: done, shape, values: done === n ? values : values.slice(0, done * dim), codes: EMPTY_I32, categories: [], failure }
    }
    case 'category': {
      const codes = new Int32Array(n)
      const dict = new Map<string, number>()
      const categories: string[] = []
      let y: unknown = first
      for (;;) {
        if (typeof y !== 'string') {
          failure = shapeFailure(i, shape, y)
          break
        }
        let code = dict.get(y)
        if (code === undefined) {
          code = categories.length
          dict.set(y, code)
          categories.push(y)
        }
        codes[i - start] = code
        if (++i >= end) break
        rng.reset(i)
        try {
          y = mechanism(input, rng)
        } catch (e) {
          failure = threw(i, e)
          break
        }
      }
      const done = i - start
      return { ...base, completed: done, shape, values: EMPTY_F64, codes: done === n ? codes : codes.slice(0, done), categories, failure }
    }
  }
}

/** Runs one estimation chunk: counts of the attack's oriented score against the grid. */
const runEstimate = <I>(task: ChunkTask, mechanism: BlackBox<I>, input: I): EstimateChunkResult => {
  const attack = task.attack
  const gridArr = task.grid
  if (attack === undefined || gridArr === undefined) throw new Error('internal: an estimation task needs an attack and a grid')
  const { grid, scorer } = compiledFor(attack, gridArr)
  const rng = takeRng(streamKey(task.seed, 'estimate', task.pair, task.side))
  try {
    return estimate(task, mechanism, input, rng, attack, grid, scorer)
  } finally {
    spare.push(rng)
  }
}

const estimate = <I>(task: ChunkTask, mechanism: BlackBox<I>, input: I, rng: TrialRng, attack: ChosenAttack, grid: Float64Array, scorer: Scorer): EstimateChunkResult => {
  const counts = new Float64Array(grid.length + 1)
  const { start, end } = task
  const shape = attack.shape
  const sigma = attack.orientation
  let failure: TrialFailure | null = null
  let i = start
  const scratch = new Float64Array(shape.dim)
  for (; i < end; i++) {
    rng.reset(i)
    let y: unknown
    try {
      y = mechanism(input, rng)
    } catch (e) {
      failure = threw(i, e)
      break
    }
    let s: number
    if (scorer.kind === 'scalar') {
      if (shape.kind === 'boolean') {
        if (typeof y !== 'boolean') {
          failure = shapeFailure(i, shape, y)
          break
        }
        s = scorer.score(y ? 1 : 0)
      } else {
        if (typeof y !== 'number') {
          failure = shapeFailure(i, shape, y)
          break
        }
        if (y !== y) {
          failure = nan(i)
          break
        }
        s = scorer.score(y)
      }
    } else if (scorer.kind === 'vector') {
      const why = storeVector(y, shape.dim, scratch, 0)
      if (why !== null) {
        failure = vectorFailure(i, why, shape, y)
        break
      }
      s = scorer.score(scratch, 0)
    } else {
      if (typeof y !== 'string') {
        failure = shapeFailure(i, shape, y)
        break
      }
      s = scorer.score(y)
    }
    const k = countAtMost(grid, sigma * s)
    counts[k] = (counts[k] as number) + 1
  }
  return { id: task.id, phase: 'estimate', pair: task.pair, side: task.side, start, completed: i - start, counts, failure }
}

/** Input of a task: side 0 runs the pair's `input`, side 1 its `neighbour`. */
export const taskInput = <I>(pairs: ReadonlyArray<NeighbourPair<I>>, task: ChunkTask): I => {
  const p = pairs[task.pair]
  if (p === undefined) throw new Error(`internal: task for pair ${task.pair} of ${pairs.length}`)
  return task.side === 0 ? p.input : p.neighbour
}

/**
 * Runs one chunk of trials. Pure apart from calling the mechanism: the same task gives the same
 * result in any thread, in any order, next to any other tasks.
 */
export const runChunk = <I>(task: ChunkTask, mechanism: BlackBox<I>, input: I): ChunkResult =>
  task.phase === 'select' ? runSelect(task, mechanism, input) : runEstimate(task, mechanism, input)

/** A chunk's shape check against the run's shape: the failure to report, or null. */
export const chunkShapeFailure = (r: SelectChunkResult, expected: OutputShape): TrialFailure | null =>
  r.shape === null || sameShape(r.shape, expected)
    ? null
    : {
        _tag: 'ShapeChanged',
        trial: r.start,
        message: `trial ${r.start} returned a ${showShape(r.shape)}, but earlier outputs were a ${showShape(expected)}; outputs must keep one shape`,
      }

/**
 * A batch's tasks as a worker thread receives them (issue 23, per-chunk cost): the fields they share
 * (phase, seed, attack, grid) once, and each task's own numbers in a table in shared memory. Posting
 * it to W workers copies the shared fields W times, not once per task and worker, and the table not
 * at all; a task is rebuilt with `unpackTask`, equal to the one packed.
 */
export interface PackedTasks {
  readonly common: Pick<ChunkTask, 'phase' | 'seed' | 'attack' | 'grid'>
  /** PACKED_FIELDS numbers per task: id, pair, side, start, end. */
  readonly table: Float64Array
}

const PACKED_FIELDS = 5

/** The tasks packed, or null when they do not all share their phase, seed, attack and grid (then they go one by one). */
export const packTasks = (tasks: ReadonlyArray<ChunkTask>): PackedTasks | null => {
  const f = tasks[0]
  if (f === undefined) return null
  for (const t of tasks) if (t.phase !== f.phase || t.seed[0] !== f.seed[0] || t.seed[1] !== f.seed[1] || t.attack !== f.attack || t.grid !== f.grid) return null
  const table = new Float64Array(new SharedArrayBuffer(8 * PACKED_FIELDS * tasks.length))
  tasks.forEach((t, k) => table.set([t.id, t.pair, t.side, t.start, t.end], PACKED_FIELDS * k))
  const common = { phase: f.phase, seed: f.seed, ...(f.attack === undefined ? {} : { attack: f.attack }), ...(f.grid === undefined ? {} : { grid: f.grid }) }
  return { common, table }
}

export const packedCount = (p: PackedTasks): number => p.table.length / PACKED_FIELDS

/** Task k of a packed batch. */
export const unpackTask = (p: PackedTasks, k: number): ChunkTask => {
  const t = p.table
  const o = PACKED_FIELDS * k
  return { ...p.common, id: t[o] as number, pair: t[o + 1] as number, side: t[o + 2] === 1 ? 1 : 0, start: t[o + 3] as number, end: t[o + 4] as number }
}
