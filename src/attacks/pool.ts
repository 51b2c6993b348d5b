/**
 * A synchronous worker-thread pool for audits. The calling thread hands out chunk tasks and
 * blocks with `Atomics.wait` until results arrive, reading them with `receiveMessageOnPort`, so an
 * audit on N threads is a plain synchronous call (like the in-process path) and the CLI can stay a
 * function from arguments to a result. Workers signal each message through a shared counter.
 *
 * Workers run the compiled `worker.js` next to this module (dist/attacks/worker.js): from the
 * TypeScript sources (e.g. under vitest) there is no compiled worker and the pool reports that as
 * an error value — use `workers: 1` there. A worker loads the mechanism by reference: a zoo entry
 * by name, or a module by file URL and export name.
 *
 * Blocking the calling thread is deliberate (audits are CPU-bound batch work); do not run a pooled
 * audit on the event loop of a server that must stay responsive.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, decodeFailure, invalidParameter } from '../core/error.js'
import type { Executor, MechanismRef } from './executor.js'
import type { NeighbourPair } from './pairs.js'
import type { ChunkResult, ChunkTask } from './trials.js'

/** Messages from the calling thread to a worker. */
export type ToWorker =
  | { readonly type: 'init'; readonly ref: MechanismRef; readonly describe: boolean }
  | { readonly type: 'pairs'; readonly pairs: ReadonlyArray<NeighbourPair<unknown>> }
  | { readonly type: 'task'; readonly task: ChunkTask }
  | { readonly type: 'close' }

/** What an audit module exports, as read by a worker (structured-cloned). */
export interface ModuleDescription {
  readonly exports: ReadonlyArray<string>
  readonly pairs: unknown
  readonly claim: unknown
  readonly name: unknown
  /** Export path of the mechanism: "mechanism" or "default.mechanism"; null if there is none. */
  readonly mechanismExport: string | null
}

/** Messages from a worker to the calling thread. */
export type FromWorker =
  | { readonly type: 'ready'; readonly description: ModuleDescription | null }
  | { readonly type: 'result'; readonly result: ChunkResult }
  | { readonly type: 'fatal'; readonly message: string }

/** Location of the compiled worker script next to this module. */
export const workerScriptUrl = (): URL => new URL('./worker.js', import.meta.url)

const noCompiledWorker = (): DpError =>
  invalidParameter(
    '$.workers',
    undefined,
    `worker threads need the compiled worker script ${fileURLToPath(workerScriptUrl())}, which does not exist (running from TypeScript sources?): run \`npm run build\`, or audit with workers: 1`,
  )

/** How long workers may take to start and load the mechanism. */
export const STARTUP_TIMEOUT_MS = 60_000

/**
 * Node flags for workers: the parent's, minus those that only make sense for the main script
 * (`--input-type` is rejected for file entry points and would kill the worker before it starts).
 */
const workerExecArgv = (): string[] => {
  const out: string[] = []
  const args = process.execArgv
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string
    if (a.startsWith('--input-type')) {
      if (a === '--input-type') i++
      continue
    }
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') {
      i++
      continue
    }
    out.push(a)
  }
  return out
}

interface Slot {
  readonly worker: Worker
  readonly port: MessagePort
  outstanding: number
}

/** Spawns workers and waits (synchronously) for each to load the mechanism. */
const spawn = (
  ref: MechanismRef,
  count: number,
  describe: boolean,
): E.Either<DpError, { slots: Slot[]; signal: Int32Array; descriptions: Array<ModuleDescription | null> }> => {
  const script = workerScriptUrl()
  if (!existsSync(fileURLToPath(script))) return E.left(noCompiledWorker())
  // signal[0]: messages posted (all workers); signal[1 + i]: worker i has exited.
  const signal = new Int32Array(new SharedArrayBuffer(4 * (1 + count)))
  const slots: Slot[] = []
  try {
    for (let i = 0; i < count; i++) {
      const { port1, port2 } = new MessageChannel()
      const worker = new Worker(script, {
        workerData: { port: port2, signal: signal.buffer, index: i },
        transferList: [port2],
        execArgv: workerExecArgv(),
      })
      // Errors are reported through the port; an 'error' event without a listener would crash later.
      worker.on('error', () => undefined)
      worker.unref()
      port1.postMessage({ type: 'init', ref, describe } satisfies ToWorker)
      slots.push({ worker, port: port1, outstanding: 0 })
    }
  } catch (e) {
    closeSlots(slots)
    return E.left(invalidParameter('$.workers', count, `cannot start worker threads: ${e instanceof Error ? e.message : String(e)}`))
  }
  const descriptions: Array<ModuleDescription | null> = new Array(count).fill(null)
  let ready = 0
  let fatal: string | null = null
  // A worker that cannot even start (bad flags, missing files) never runs our code and never
  // signals; the calling thread is blocked and cannot see its 'error' event, hence a deadline.
  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  const err = pump(
    slots,
    signal,
    () => ready === count || fatal !== null,
    (i, m) => {
      if (m.type === 'ready') {
        ready++
        descriptions[i] = m.description
      } else if (m.type === 'fatal') fatal = m.message
    },
    deadline,
  )
  if (fatal !== null || err !== null) {
    closeSlots(slots)
    return E.left(decodeFailure('$.mechanism', ref._tag === 'ModuleRef' ? ref.url : ref.name, fatal ?? err ?? 'worker failed'))
  }
  return E.right({ slots, signal, descriptions })
}

const closeSlots = (slots: ReadonlyArray<Slot>): void => {
  for (const s of slots) {
    try {
      s.port.postMessage({ type: 'close' } satisfies ToWorker)
      s.port.close()
    } catch {
      // already closed
    }
    void s.worker.terminate().catch(() => undefined)
  }
}

/**
 * Drains every port, calling `handle` per message, until `done()`; blocks on the shared counter
 * in between. Returns an error message if a worker exited while work was expected.
 */
const pump = (
  slots: ReadonlyArray<Slot>,
  signal: Int32Array,
  done: () => boolean,
  handle: (worker: number, m: FromWorker) => void,
  deadline = Infinity,
): string | null => {
  while (!done()) {
    if (Date.now() > deadline)
      return `the worker threads did not start within ${STARTUP_TIMEOUT_MS / 1000} s (a worker that fails before running any code cannot report why; try the same audit with workers: 1)`
    const seen = Atomics.load(signal, 0)
    let got = false
    for (let i = 0; i < slots.length; i++) {
      const port = (slots[i] as Slot).port
      for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
        got = true
        handle(i, m.message as FromWorker)
      }
    }
    if (done()) return null
    if (!got) {
      for (let i = 0; i < slots.length; i++) {
        if (Atomics.load(signal, 1 + i) !== 1) continue
        // Exited: take anything it posted before exiting, then give up if that was not enough.
        const port = (slots[i] as Slot).port
        for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) handle(i, m.message as FromWorker)
        if (done()) return null
        return `worker ${i} exited unexpectedly (did the mechanism call process.exit or run out of memory?)`
      }
      Atomics.wait(signal, 0, seen, 500)
    }
  }
  return null
}

/**
 * A pool of `workers` threads running chunks of the referenced mechanism on the given pairs.
 * Left if the compiled worker is missing or the mechanism cannot be loaded.
 */
export const createWorkerPool = <I>(ref: MechanismRef, pairs: ReadonlyArray<NeighbourPair<I>>, workers: number): E.Either<DpError, Executor> => {
  const spawned = spawn(ref, workers, false)
  if (E.isLeft(spawned)) return spawned
  const { slots, signal } = spawned.right
  try {
    for (const s of slots) s.port.postMessage({ type: 'pairs', pairs } satisfies ToWorker)
  } catch (e) {
    closeSlots(slots)
    return E.left(invalidParameter('$.pairs', undefined, `the pairs cannot be sent to worker threads (they must be structured-cloneable data): ${e instanceof Error ? e.message : String(e)}`))
  }
  let closed = false
  return E.right({
    workers,
    run: (tasks: ReadonlyArray<ChunkTask>, onResult: (r: ChunkResult) => void): string | null => {
      let next = 0
      let finished = 0
      let fatal: string | null = null
      const feed = (i: number): void => {
        const s = slots[i] as Slot
        while (s.outstanding < 2 && next < tasks.length) {
          s.port.postMessage({ type: 'task', task: tasks[next] as ChunkTask } satisfies ToWorker)
          next++
          s.outstanding++
        }
      }
      for (let i = 0; i < slots.length; i++) feed(i)
      const err = pump(slots, signal, () => finished === tasks.length || fatal !== null, (i, m) => {
        if (m.type === 'result') {
          ;(slots[i] as Slot).outstanding--
          finished++
          onResult(m.result)
          feed(i)
        } else if (m.type === 'fatal') fatal = m.message
      })
      return fatal ?? err
    },
    close: () => {
      if (closed) return
      closed = true
      closeSlots(slots)
    },
  })
}

/**
 * Loads an audit module in a worker thread and returns what it exports (`mechanism`, `pairs`,
 * `claim`, optional `name`, directly or on a default-exported object). The module is imported by
 * file URL; TypeScript modules need a Node that strips types (see docs/auditing.md).
 */
export const describeModule = (file: string): E.Either<DpError, { readonly ref: MechanismRef; readonly description: ModuleDescription }> => {
  const url = pathToFileURL(file).href
  const probe: MechanismRef = { _tag: 'ModuleRef', url, exportName: 'mechanism' }
  const spawned = spawn(probe, 1, true)
  if (E.isLeft(spawned)) return spawned
  closeSlots(spawned.right.slots)
  const d = spawned.right.descriptions[0]
  if (d === null || d === undefined) return E.left(decodeFailure('$.module', file, 'the worker did not describe the module'))
  if (d.mechanismExport === null)
    return E.left(decodeFailure('$.module', file, `the module must export a function \`mechanism\` (found exports: ${d.exports.join(', ') || 'none'})`))
  return E.right({ ref: { _tag: 'ModuleRef', url, exportName: d.mechanismExport }, description: d })
}
