/**
 * Executors run chunks of work for every kind of audit (issue 23: one interface). An audit's phases
 * hand an executor a batch of independent tasks and get one result per task, in any order; results
 * are keyed by task id, and each task's outcome depends only on the task, so the audit is identical
 * whatever executor (or worker count) runs it.
 *
 * - `inProcessExecutor` runs mechanism chunks one after another in the calling thread.
 * - `createWorkerPool` / `acquireWorkerPool` (pool.ts) run them on worker threads.
 * - `queueExecutor` (queue/executor.ts) runs mechanism or trainer chunks as BullMQ jobs on any
 *   number of machines; it is asynchronous, so only the asynchronous drivers take it.
 * - trainers/audit.ts's `localExecutor` runs trainer chunks in this thread.
 *
 * A mechanism can reach a worker thread or a queue worker only by reference: a zoo name, or a
 * module URL and export.
 *
 * @module
 */
import type { AuditClaim } from './claim.js'
import type { BlackBox } from './output.js'
import type { NeighbourPair } from './pairs.js'
import type { FitRunner } from './search.js'
import { type ChunkResult, type ChunkTask, runChunk, taskInput } from './trials.js'
import { zooEntry } from './zoo/index.js'

export { taskInput } from './trials.js'

/** A mechanism a worker thread can load: a zoo entry built for a claim, or a module's export. */
export type MechanismRef =
  | { readonly _tag: 'ZooRef'; readonly name: string; readonly claim: AuditClaim }
  | { readonly _tag: 'ModuleRef'; readonly url: string; readonly exportName: string }

/** Runs tasks T to results R, synchronously (threads, this thread) or not (a queue). */
export interface Executor<T = ChunkTask, R = ChunkResult> {
  /** Runners working at once (1 in this thread; for a queue, the workers it expects): batches are sized by it. */
  readonly workers: number
  /**
   * Runs every task and calls `onResult` at least once per task (any order; a repeat is ignored by
   * the audit). Returns (or resolves to) null when all ran, or a message when execution itself
   * broke (a worker died, Redis went away); `onResult` has then seen the tasks that finished.
   * `stop`, where the executor polls it (threads, this thread), ends the batch early once it returns
   * true: the tasks in hand finish, no more start, and the result is null with fewer results.
   */
  readonly run: (tasks: ReadonlyArray<T>, onResult: (r: R) => void, stop?: () => boolean) => string | null | Promise<string | null>
  readonly close: () => void | Promise<void>
  /**
   * Runs selection's family fits (pure functions of the selection outputs) where the executor's
   * threads can share them; absent, they run in the calling thread (search.ts `fitInline`).
   */
  readonly fit?: FitRunner
  /**
   * True where `run` polls `stop` within a batch and `onResult` sees each result as it finishes
   * (worker threads): a phase then hands it all its tasks as one batch, checkpointing and reporting
   * progress from the results as they come, so no batch ends at a barrier where the workers wait for
   * its last chunk (issue 23). Otherwise phases run batches of about a second each.
   */
  readonly streams?: boolean
}

/** An executor that finishes each batch before returning (threads, this thread): a synchronous audit can use it. */
export interface SyncExecutor<T = ChunkTask, R = ChunkResult> extends Executor<T, R> {
  readonly run: (tasks: ReadonlyArray<T>, onResult: (r: R) => void, stop?: () => boolean) => string | null
  readonly close: () => void
}

/** What a phase of an audit gets back for a batch it yielded. */
export interface BatchOutcome<R> {
  readonly results: ReadonlyArray<R>
  readonly error: string | null
}

/**
 * The phases of an audit are generators: each yields a batch of tasks, receives its outcome, and
 * finally returns its value A. The same phases run under `runSteps` (synchronous executors) and
 * `runStepsAsync` (any executor), so there is one audit procedure however its chunks run.
 */
export type Steps<T, R, A> = Generator<ReadonlyArray<T> | Batch<T, R>, A, BatchOutcome<R>>

/** A batch whose results the phase also wants one by one, as they finish (`each`; see `Executor.streams`). */
export interface Batch<T, R> {
  readonly tasks: ReadonlyArray<T>
  readonly each: (r: R) => void
}

/** The tasks of a yielded batch, and the callback that collects its results. */
const unpack = <T, R>(b: ReadonlyArray<T> | Batch<T, R>, results: R[]): [ReadonlyArray<T>, (r: R) => void] => {
  if (Array.isArray(b)) return [b as ReadonlyArray<T>, (r) => results.push(r)]
  const { tasks, each } = b as Batch<T, R>
  return [
    tasks,
    (r) => {
      results.push(r)
      each(r)
    },
  ]
}

export const runSteps = <T, R, A>(steps: Steps<T, R, A>, executor: SyncExecutor<T, R>, stop?: () => boolean): A => {
  for (let step = steps.next(); ; ) {
    if (step.done === true) return step.value
    const results: R[] = []
    const error = executor.run(...unpack(step.value, results), stop)
    step = steps.next({ results, error })
  }
}

export const runStepsAsync = async <T, R, A>(steps: Steps<T, R, A>, executor: Executor<T, R>, stop?: () => boolean): Promise<A> => {
  for (let step = steps.next(); ; ) {
    if (step.done === true) return step.value
    const results: R[] = []
    const error = await executor.run(...unpack(step.value, results), stop)
    step = steps.next({ results, error })
  }
}


/** Runs tasks sequentially in this thread (a batch of one runner is short: `stop` waits for its end). */
export const inProcessExecutor = <I>(mechanism: BlackBox<I>, pairs: ReadonlyArray<NeighbourPair<I>>): SyncExecutor => ({
  workers: 1,
  run: (tasks, onResult) => {
    for (const t of tasks) onResult(runChunk(t, mechanism, taskInput(pairs, t)))
    return null
  },
  close: () => undefined,
})

/** Builds a zoo mechanism by name, or a message if there is no such entry. */
export const zooMechanism = (name: string, claim: AuditClaim): BlackBox<never> | string => {
  const e = zooEntry(name)
  return e === undefined ? `no zoo mechanism named "${name}"` : e.make(claim)
}

export const showRef = (ref: MechanismRef): string =>
  ref._tag === 'ZooRef' ? `zoo:${ref.name}` : `${ref.url}#${ref.exportName}`
