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
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, decodeFailure, invalidParameter } from '../core/error.js'
import { startWorker } from '../core/worker-exec-argv.js'
import type { MechanismRef, SyncExecutor } from './executor.js'
import type { NeighbourPair } from './pairs.js'
import type { PairSamples } from './select.js'
import { type FitJob, type FitPart, type FitRunner, fitInline } from './search.js'
import { type ChunkResult, type ChunkTask, type PackedTasks, packedCount, packTasks } from './trials.js'
import { prepareStats } from './engine/verdict-stats.js'

/** Messages from the calling thread to a worker. */
export type ToWorker =
  /** Load the mechanism; `gen` numbers the request, and the 'ready' that answers it echoes it. */
  | { readonly type: 'init'; readonly gen: number; readonly ref: MechanismRef; readonly describe: boolean }
  | { readonly type: 'pairs'; readonly pairs: ReadonlyArray<NeighbourPair<unknown>> }
  /**
   * A batch: tasks (ChunkTask) or fits ([id, FitJob]), taken in turn
   * through the shared cursor. Tasks that share their phase, seed, attack and grid come as `packed`
   * instead of `items`: those fields once, and each task's numbers in a shared table (`packTasks`).
   */
  | {
      readonly type: 'run'
      readonly batch: number
      readonly kind: 'task' | 'fit'
      readonly items: ReadonlyArray<unknown>
      readonly packed?: PackedTasks
      readonly cursor: SharedArrayBuffer
      /** Items answered so far (fits): a worker with none left warms its estimation loop while others still fit (worker.ts `warmUp`). */
      readonly answered?: SharedArrayBuffer
    }
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
  /** `at`, `end`: when, on the clock all threads share (ms since the epoch); `ms`: how long the work took on its thread. */
  | { readonly type: 'ready'; readonly gen: number; readonly description: ModuleDescription | null; readonly at: number }
  | { readonly type: 'result'; readonly result: ChunkResult; readonly ms: number; readonly end: number }
  /** The pool orders later fits by `ms` (`fitOrder`). */
  | { readonly type: 'fitted'; readonly id: number; readonly fit: FitPart | null; readonly ms: number; readonly end: number }
  /** The worker found the batch's cursor spent: every item it took is answered. */
  | { readonly type: 'idle'; readonly batch: number }
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

/** Default watchdog: no chunk of trials finished for this long means the mechanism hangs. */
export const DEFAULT_CHUNK_TIMEOUT_MS = 600_000

const WATCHDOG_PREFIX = 'no chunk of trials finished within'

/** While a batch runs, this thread wakes this often (ms) to drain answers and ask whether to stop. */
const POLL_MS = 50

/** Options of a worker pool. */
export interface PoolOptions {
  /** Watchdog (default 10 minutes): a batch in which no chunk finishes for this long is stopped. */
  readonly chunkTimeoutMs?: number
  /**
   * Threads left without a fit while others still fit warm their estimation loop (worker.ts `warmUp`;
   * default true). Off, for the bench's comparison: the result is the same either way.
   */
  readonly warmUp?: boolean
}

/**
 * What a pool's threads did, for the benches (issue 23: what stands between an audit and ×W on W
 * workers is read from it): when each thread was ready, each batch handed out, and each item a thread
 * answered — a chunk of trials (by phase) or a fit — with its duration on that thread and when it
 * ended. Times are on the clock all threads share (ms since the epoch, sub-millisecond). The audit's
 * result does not depend on it.
 */
export interface PoolTimeline {
  /** When the pool was asked for (before its threads were spawned). */
  readonly created: number
  /** Per worker: when it first loaded the mechanism (null: not yet). */
  readonly ready: Array<number | null>
  readonly batches: Array<{ readonly kind: 'task' | 'fit'; readonly items: number; readonly start: number; end: number }>
  readonly items: Array<{ readonly worker: number; readonly kind: 'select' | 'estimate' | 'fit'; readonly ms: number; readonly end: number }>
}

const newTimeline = (workers: number): PoolTimeline => ({ created: performance.timeOrigin + performance.now(), ready: new Array(workers).fill(null), batches: [], items: [] })

/** Records a worker's message in the timeline. */
const record = (t: PoolTimeline, worker: number, m: FromWorker): void => {
  if (m.type === 'ready') t.ready[worker] ??= m.at
  else if (m.type === 'result') t.items.push({ worker, kind: m.result.phase, ms: m.ms, end: m.end })
  else if (m.type === 'fitted') t.items.push({ worker, kind: 'fit', ms: m.ms, end: m.end })
}

interface Slot {
  readonly worker: Worker
  readonly port: MessagePort
}

/** Requests to load a mechanism so far (a 'ready' echoes the one it answers, so a late one is not counted twice). */
let inits = 0

/** Spawns workers and waits (synchronously) for the first to load the mechanism (every one, to describe a module). */
const spawn = (
  ref: MechanismRef,
  count: number,
  describe: boolean,
  timeline: PoolTimeline = newTimeline(count),
): E.Either<DpError, { slots: Slot[]; signal: Int32Array; descriptions: Array<ModuleDescription | null> }> => {
  const script = workerScriptUrl()
  if (!existsSync(fileURLToPath(script))) return E.left(noCompiledWorker())
  // Threads start in the boot script, which reports a failed import instead of never signalling.
  const boot = new URL('./worker-boot.js', import.meta.url)
  const entry = existsSync(fileURLToPath(boot)) ? boot : script
  // signal[0]: messages posted (all workers); signal[1 + i]: worker i has exited.
  const signal = new Int32Array(new SharedArrayBuffer(4 * (1 + count)))
  const slots: Slot[] = []
  const gen = ++inits
  try {
    for (let i = 0; i < count; i++) {
      const { port1, port2 } = new MessageChannel()
      const worker = startWorker(entry, {
        workerData: { port: port2, signal: signal.buffer, index: i },
        transferList: [port2],
      })
      // Errors are reported through the port; an 'error' event without a listener would crash later.
      worker.on('error', () => undefined)
      worker.unref()
      port1.postMessage({ type: 'init', gen, ref, describe } satisfies ToWorker)
      slots.push({ worker, port: port1 })
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
    // Describing needs the one worker's answer; otherwise the first ready worker will do: the others
    // join the batches when their imports are done (issue 23: the pool's start is serial time).
    () => (describe ? ready === count : ready >= 1) || fatal !== null,
    (i, m) => {
      if (m.type === 'ready' && m.gen === gen) {
        ready++
        descriptions[i] = m.description
        record(timeline, i, m)
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
  idleLimitMs = Infinity,
  onWake?: () => void,
): string | null => {
  let lastMessage = Date.now()
  while (!done()) {
    onWake?.()
    const now = Date.now()
    if (now > deadline)
      return `the worker threads did not start within ${STARTUP_TIMEOUT_MS / 1000} s (a worker that fails before running any code cannot report why; try the same audit with workers: 1)`
    if (now - lastMessage > idleLimitMs) return `${WATCHDOG_PREFIX} ${Math.round(idleLimitMs / 1000)} s: the mechanism may never return (an endless loop?); the worker threads were stopped and the trials that finished are kept`
    const seen = Atomics.load(signal, 0)
    let got = false
    for (let i = 0; i < slots.length; i++) {
      const port = (slots[i] as Slot).port
      for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
        got = true
        handle(i, m.message as FromWorker)
      }
    }
    if (got) lastMessage = Date.now()
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
      Atomics.wait(signal, 0, seen, onWake === undefined ? 500 : POLL_MS)
    }
  }
  return null
}

/** Batches handed out so far (an 'idle' names the batch it ends). */
let batches = 0

/**
 * Runs `count` items on the slots by self-scheduling (issue 23): every worker gets the whole list in
 * one message and a shared cursor, takes the next index with `Atomics.add` until the list is spent,
 * posts each answer without waking this thread, and then posts 'idle' (which does wake it). So a
 * chunk costs one atomic increment and one unsignalled message, whatever the worker count; this
 * thread wakes at the batch's end, and every `POLL_MS` to drain answers, run the watchdog, and ask
 * `stop` — true moves the cursor past the end, so the workers finish only the items in hand.
 * The batch is done when every item taken is answered (all of them, unless stopped): a worker still
 * starting joins when it is ready, or finds the cursor spent, and is not waited for.
 * `onAnswer` gets every answer; an error message if a worker failed or the watchdog fired.
 */
const runShared = (
  slots: ReadonlyArray<Slot>,
  signal: Int32Array,
  kind: 'task' | 'fit',
  batchItems: ReadonlyArray<unknown> | PackedTasks,
  onAnswer: (m: FromWorker) => void,
  idleLimitMs: number,
  stop?: () => boolean,
  whileWaiting?: () => void,
  timeline?: PoolTimeline,
  warmUp = true,
): string | null => {
  const packed = Array.isArray(batchItems) ? undefined : (batchItems as PackedTasks)
  const items = packed === undefined ? (batchItems as ReadonlyArray<unknown>) : []
  const count = packed === undefined ? items.length : packedCount(packed)
  if (count === 0) return null
  const cursor = new Int32Array(new SharedArrayBuffer(4))
  const batch = ++batches
  let answered = 0
  let taken = count
  let fatal: string | null = null
  let stopped = false
  const run: ToWorker = {
    type: 'run',
    batch,
    kind,
    items,
    ...(packed === undefined ? {} : { packed }),
    cursor: cursor.buffer as SharedArrayBuffer,
    ...(kind === 'fit' && warmUp ? { answered: new SharedArrayBuffer(4) } : {}),
  }
  const mark = timeline === undefined ? undefined : { kind, items: count, start: performance.timeOrigin + performance.now(), end: 0 }
  if (mark !== undefined) timeline?.batches.push(mark)
  for (const s of slots) s.port.postMessage(run)
  whileWaiting?.()
  const err = pump(
    slots,
    signal,
    () => answered === taken || fatal !== null,
    (i, m) => {
      if (timeline !== undefined) record(timeline, i, m)
      if (m.type === 'fatal') fatal = m.message
      else if (m.type === 'result' || m.type === 'fitted') {
        answered++
        onAnswer(m)
      }
    },
    Infinity,
    idleLimitMs,
    () => {
      if (!stopped && stop?.() === true) {
        stopped = true
        // indices below the cursor's old value were taken, and will be answered
        taken = Math.min(count, Atomics.exchange(cursor, 0, count))
      }
    },
  )
  if (fatal !== null || err !== null) Atomics.store(cursor, 0, count)
  if (mark !== undefined) mark.end = performance.timeOrigin + performance.now()
  return fatal ?? err
}

/** Runs tasks on the slots; see `runShared`. */
const runOnSlots = (
  slots: ReadonlyArray<Slot>,
  signal: Int32Array,
  tasks: ReadonlyArray<ChunkTask>,
  onResult: (r: ChunkResult) => void,
  idleLimitMs: number,
  stop?: () => boolean,
  timeline?: PoolTimeline,
): string | null => runShared(slots, signal, 'task', packTasks(tasks) ?? tasks, (m) => (m.type === 'result' ? onResult(m.result) : undefined), idleLimitMs, stop, undefined, timeline)

/** The array in shared memory (itself if it is there already: engine/merge.ts puts the samples there): posted to a worker, it is shared, not copied. */
const inSharedMemory = <A extends Float64Array | Int32Array>(a: A): A => {
  if (a.buffer instanceof SharedArrayBuffer) return a
  const out = (a instanceof Float64Array ? new Float64Array(new SharedArrayBuffer(a.byteLength)) : new Int32Array(new SharedArrayBuffer(a.byteLength))) as A
  out.set(a)
  return out
}

/**
 * Milliseconds per selection output that each kind of fit (family and part) took on a worker thread,
 * as last measured in this process: fits cost ~linearly in the outputs, and a family's cost per
 * output is a property of its code, so one measurement orders the next rounds and audits.
 */
const fitCostPerOutput = new Map<string, number>()
const fitKind = (job: FitJob): string => `${job.family}/${job.part}${job.orientation ?? ''}`
const outputsOf = (job: FitJob): number => Math.max(1, job.samples.n[0] + job.samples.n[1])

/**
 * The order in which a round's fits are handed out: longest first (LPT, Graham 1969: a round ends
 * with its last fit, and long fits started last leave the other threads idle), by the measured cost
 * per output; fits of a kind never measured come first, events before models (cross-fitting fits
 * twice and sweeps), then in the given order. Answers are keyed by index, so no order changes a result.
 */
export const fitOrder = (jobs: ReadonlyArray<FitJob>, costPerOutput: ReadonlyMap<string, number> = fitCostPerOutput): number[] => {
  const cost = jobs.map((j) => (costPerOutput.get(fitKind(j)) ?? Infinity) * outputsOf(j))
  const rank = (k: number): number => ((jobs[k] as FitJob).part === 'event' ? 0 : 1)
  return [...jobs.keys()].sort((a, b) => {
    const ca = cost[a] as number
    const cb = cost[b] as number
    if (ca !== cb) return cb - ca
    return rank(a) - rank(b) || a - b
  })
}

/**
 * Selection's family fits on the slots: each pair's samples are copied once into shared memory, and
 * each (pair, family, part) fit is one message, handed out in `fitOrder`. A fit is a pure function
 * of its job, so its answer is the one `fitInline` gives; fits a failed worker left unanswered run in this thread.
 */
const fitOnSlots =
  (slots: ReadonlyArray<Slot>, signal: Int32Array, idleLimitMs: number, timeline?: PoolTimeline, warmUp = true): FitRunner =>
  (jobs) => {
    const sharedOf = new Map<PairSamples, PairSamples>()
    const toShare = (s: PairSamples): PairSamples => {
      let c = sharedOf.get(s)
      if (c === undefined) {
        c = { ...s, values: [inSharedMemory(s.values[0]), inSharedMemory(s.values[1])], codes: [inSharedMemory(s.codes[0]), inSharedMemory(s.codes[1])] }
        sharedOf.set(s, c)
      }
      return c
    }
    const out: Array<FitPart | null | undefined> = new Array(jobs.length).fill(undefined)
    runShared(
      slots,
      signal,
      'fit',
      fitOrder(jobs).map((id) => [id, { ...(jobs[id] as FitJob), samples: toShare((jobs[id] as FitJob).samples) }] as const),
      (m) => {
        if (m.type !== 'fitted') return
        out[m.id] = m.fit
        const job = jobs[m.id] as FitJob
        fitCostPerOutput.set(fitKind(job), m.ms / outputsOf(job))
      },
      idleLimitMs,
      undefined,
      // This thread would idle through the fits: it loads what the verdict's statistics need now
      // (they run here, after estimation; issue 23), instead of on the critical path at the end.
      prepareStats,
      timeline,
      warmUp,
    )
    return out.map((f, k) => (f === undefined ? (fitInline([jobs[k] as FitJob])[0] ?? null) : f))
  }

/**
 * A pool of `workers` threads running chunks of the referenced mechanism on the given pairs.
 * Left if the compiled worker is missing or the mechanism cannot be loaded. The caller closes it.
 * `timeline`: what its threads did (`PoolTimeline`), for the benches.
 */
export const createWorkerPool = <I>(
  ref: MechanismRef,
  pairs: ReadonlyArray<NeighbourPair<I>>,
  workers: number,
  options: PoolOptions = {},
): E.Either<DpError, SyncExecutor & { readonly timeline: PoolTimeline }> => {
  const timeline = newTimeline(workers)
  const spawned = spawn(ref, workers, false, timeline)
  if (E.isLeft(spawned)) return spawned
  const { slots, signal } = spawned.right
  const sent = sendPairs(slots, pairs)
  if (sent !== null) {
    closeSlots(slots)
    return E.left(sent)
  }
  let closed = false
  const idle = options.chunkTimeoutMs ?? DEFAULT_CHUNK_TIMEOUT_MS
  return E.right({
    workers,
    streams: true,
    timeline,
    fit: fitOnSlots(slots, signal, idle, timeline, options.warmUp ?? true),
    run: (tasks, onResult, stop) => {
      const err = runOnSlots(slots, signal, tasks, onResult, idle, stop, timeline)
      if (err !== null && err.startsWith(WATCHDOG_PREFIX) && !closed) {
        closed = true
        closeSlots(slots)
      }
      return err
    },
    close: () => {
      if (closed) return
      closed = true
      closeSlots(slots)
    },
  })
}

const sendPairs = <I>(slots: ReadonlyArray<Slot>, pairs: ReadonlyArray<NeighbourPair<I>>): DpError | null => {
  try {
    for (const s of slots) s.port.postMessage({ type: 'pairs', pairs } satisfies ToWorker)
    return null
  } catch (e) {
    return invalidParameter('$.pairs', undefined, `the pairs cannot be sent to worker threads (they must be structured-cloneable data): ${e instanceof Error ? e.message : String(e)}`)
  }
}

/** The threads kept between audits (one set: the most recent worker count). */
let shared: { slots: Slot[]; signal: Int32Array; workers: number; busy: boolean } | null = null

/**
 * A worker pool from the threads kept between audits (issue 12: starting threads cost 0.2–0.6 s per
 * audit): started lazily on first use, then re-initialised with the next mechanism and pairs by
 * message, which takes milliseconds. `close()` returns the threads to the cache; threads are unref'd,
 * so they never keep a process alive. A watchdog stop, a dead worker or a different worker count
 * replaces them. Falls back to a private pool while the shared one is in use (nested audits).
 */
export const acquireWorkerPool = <I>(
  ref: MechanismRef,
  pairs: ReadonlyArray<NeighbourPair<I>>,
  workers: number,
  options: PoolOptions = {},
): E.Either<DpError, SyncExecutor> => {
  if (shared !== null && shared.busy) return createWorkerPool(ref, pairs, workers, options)
  if (shared !== null && shared.workers !== workers) {
    closeSlots(shared.slots)
    shared = null
  }
  let fresh = false
  if (shared === null) {
    const spawned = spawn(ref, workers, false)
    if (E.isLeft(spawned)) return spawned
    shared = { slots: spawned.right.slots, signal: spawned.right.signal, workers, busy: false }
    fresh = true
  }
  const pool = shared
  if (!fresh) {
    // Re-initialise: every worker loads the mechanism again and answers 'ready' (a worker handles
    // its messages in order, so none runs a batch before it has); as at the start, the first will do.
    let ready = 0
    let fatal: string | null = null
    const gen = ++inits
    for (const s of pool.slots) s.port.postMessage({ type: 'init', gen, ref, describe: false } satisfies ToWorker)
    const err = pump(pool.slots, pool.signal, () => ready >= 1 || fatal !== null, (_i, m) => {
      if (m.type === 'ready' && m.gen === gen) ready++
      else if (m.type === 'fatal') fatal = m.message
    }, Date.now() + STARTUP_TIMEOUT_MS)
    if (fatal !== null || err !== null) {
      closeSlots(pool.slots)
      shared = null
      return E.left(decodeFailure('$.mechanism', ref._tag === 'ModuleRef' ? ref.url : ref.name, fatal ?? err ?? 'worker failed'))
    }
  }
  const sent = sendPairs(pool.slots, pairs)
  if (sent !== null) return E.left(sent)
  pool.busy = true
  const idle = options.chunkTimeoutMs ?? DEFAULT_CHUNK_TIMEOUT_MS
  let released = false
  const release = (broken: boolean): void => {
    if (released) return
    released = true
    pool.busy = false
    if (broken) {
      closeSlots(pool.slots)
      if (shared === pool) shared = null
    }
  }
  const fitOnPool = fitOnSlots(pool.slots, pool.signal, idle, undefined, options.warmUp ?? true)
  return E.right({
    workers,
    streams: true,
    fit: (jobs) => (released ? fitInline(jobs) : fitOnPool(jobs)),
    run: (tasks, onResult, stop) => {
      if (released) return 'internal: the pool was released'
      const err = runOnSlots(pool.slots, pool.signal, tasks, onResult, idle, stop)
      // After a watchdog stop or a dead worker the threads are not reusable.
      if (err !== null) release(true)
      return err
    },
    close: () => release(false),
  })
}

/** Stops the threads kept between audits (they are unref'd, so this is only needed to free them early). */
export const closeSharedWorkerPool = (): void => {
  if (shared !== null && !shared.busy) {
    closeSlots(shared.slots)
    shared = null
  }
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
