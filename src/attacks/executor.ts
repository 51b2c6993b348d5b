/**
 * Executors run chunks of trials. The auditor hands an executor a batch of independent tasks and
 * gets one result per task, in any order; results are keyed by task id, and each task's outcome
 * depends only on the task, so the audit is identical whatever executor (or worker count) runs it.
 *
 * - `inProcessExecutor` runs tasks one after another in the calling thread (works everywhere).
 * - `createWorkerPool` (pool.ts) runs them on worker threads from the compiled package.
 *
 * A mechanism can reach a worker thread only by reference: a zoo name, or a module URL and export.
 *
 * @module
 */
import type { Claim } from './claim.js'
import type { BlackBox } from './output.js'
import type { NeighbourPair } from './pairs.js'
import { type ChunkResult, type ChunkTask, runChunk } from './trials.js'
import { zooEntry } from './zoo/index.js'

/** A mechanism a worker thread can load: a zoo entry built for a claim, or a module's export. */
export type MechanismRef =
  | { readonly _tag: 'ZooRef'; readonly name: string; readonly claim: Claim }
  | { readonly _tag: 'ModuleRef'; readonly url: string; readonly exportName: string }

export interface Executor {
  /** Number of threads running trials (1 for the in-process executor). */
  readonly workers: number
  /**
   * Runs every task and calls `onResult` once per task (any order). Returns null when all ran, or
   * a message when execution itself broke (a worker died); `onResult` has then seen the tasks that
   * finished.
   */
  readonly run: (tasks: ReadonlyArray<ChunkTask>, onResult: (r: ChunkResult) => void) => string | null
  readonly close: () => void
}

/** Input of a task: side 0 runs the pair's `input`, side 1 its `neighbour`. */
export const taskInput = <I>(pairs: ReadonlyArray<NeighbourPair<I>>, task: ChunkTask): I => {
  const p = pairs[task.pair]
  if (p === undefined) throw new Error(`internal: task for pair ${task.pair} of ${pairs.length}`)
  return task.side === 0 ? p.input : p.neighbour
}

/** Runs tasks sequentially in this thread. */
export const inProcessExecutor = <I>(mechanism: BlackBox<I>, pairs: ReadonlyArray<NeighbourPair<I>>): Executor => ({
  workers: 1,
  run: (tasks, onResult) => {
    for (const t of tasks) onResult(runChunk(t, mechanism, taskInput(pairs, t)))
    return null
  },
  close: () => undefined,
})

/** Builds a zoo mechanism by name, or a message if there is no such entry. */
export const zooMechanism = (name: string, claim: Claim): BlackBox<never> | string => {
  const e = zooEntry(name)
  return e === undefined ? `no zoo mechanism named "${name}"` : e.make(claim)
}

export const showRef = (ref: MechanismRef): string =>
  ref._tag === 'ZooRef' ? `zoo:${ref.name}` : `${ref.url}#${ref.exportName}`
