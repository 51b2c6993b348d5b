/**
 * A queue worker: takes audit chunks (mechanism or trainer) from BullMQ and runs them (`dpaudit
 * worker`). Any number of workers on any number of machines may serve one Redis; each runs one
 * chunk at a time per unit of concurrency (a chunk is CPU-bound: run one worker process per core).
 *
 * Locks follow the chunks (issue 23). A chunk runs synchronously, so its lock cannot be renewed
 * while it runs; instead, just before running it the worker extends the job's lock to
 * `lockFor(ms)`: three times the audit's measured chunk duration plus a second (durations are
 * shared through Redis under `durationKey`, so every worker learns from the first chunks), never
 * below `minLockMs` nor above `lockMs`. A worker that dies mid-chunk leaves a lock that expires a
 * few chunk-lengths later, and the stalled-job check (every `stalledMs`, a second by default)
 * returns the chunk to the queue for another worker — instead of waiting a fixed 30 s lock twice.
 * A chunk that outlives its lock is run twice: wasted work, not a wrong answer (results are keyed
 * by chunk and counted once).
 *
 * A job whose stamp (dpaudit version, code hash) differs from this worker's is refused without
 * retries (BullMQ's UnrecoverableError): another attempt here would be refused the same way.
 *
 * @module
 */
import { UnrecoverableError, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import { durationKey, processJob, QUEUE_NAME, type QueueJob, StampMismatch } from './jobs.js'
import { checkRedisUrl, connectionFor } from './redis.js'

export interface QueueWorkerOptions {
  /** Chunks run at once in this process (default 1). */
  readonly concurrency?: number
  /** Longest lock on a running chunk, and the lock before any duration is known, in ms (default 30 000). */
  readonly lockMs?: number
  /** Shortest lock, ms (default 2 000). */
  readonly minLockMs?: number
  /** How often this worker looks for stalled chunks, ms (default min(1 000, lockMs)). */
  readonly stalledMs?: number
  /** Wraps each chunk's synchronous computation (the CLI uses it to let SIGTERM end the process at once). */
  readonly guard?: <A>(compute: () => A) => A
  /** Called for every chunk started, finished or failed (log lines). */
  readonly onEvent?: (e: { readonly kind: 'started' | 'finished' | 'failed'; readonly job: string; readonly runs?: number; readonly ms?: number; readonly lockMs?: number; readonly error?: string }) => void
}

export interface QueueWorker {
  /** Stops taking chunks and disconnects; `force` does not wait for a running chunk. */
  readonly close: (force?: boolean) => Promise<void>
  /** Chunks finished by this worker so far. */
  readonly finished: () => number
  /** Milliseconds since this worker last finished or started a chunk. */
  readonly idleMs: () => number
  /** Whether a chunk is running now. */
  readonly busy: () => boolean
}

/** The lock for a chunk expected to take `ms`: three chunk-lengths and a second, within [min, max]. */
export const lockFor = (ms: number | null, min: number, max: number): number => (ms === null ? max : Math.max(min, Math.min(max, Math.ceil(3 * ms + 1000))))

export const startQueueWorker = (url: string, options: QueueWorkerOptions = {}): QueueWorker => {
  const bad = checkRedisUrl(url)
  if (bad !== null) throw new Error(bad)
  const lockMs = options.lockMs ?? 30_000
  const minLockMs = Math.min(lockMs, options.minLockMs ?? 2_000)
  let finished = 0
  let running = 0
  let last = Date.now()
  const store = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: null })
  store.on('error', () => undefined) // reconnects; a chunk whose fetch fails is retried by BullMQ
  const worker = new Worker(
    QUEUE_NAME,
    async (job, token) => {
      const id = String(job.id)
      const auditId = (job.data as QueueJob).auditId
      last = Date.now()
      const known = typeof auditId === 'string' ? Number(await store.get(durationKey(auditId))) : Number.NaN
      const lock = lockFor(Number.isFinite(known) && known > 0 ? known : null, minLockMs, lockMs)
      if (token !== undefined) await job.extendLock(token, lock)
      options.onEvent?.({ kind: 'started', job: id, lockMs: lock })
      const t0 = Date.now()
      running++
      try {
        const r = await processJob(job.data, (key) => store.get(key), options.guard)
        const ms = Date.now() - t0
        finished++
        last = Date.now()
        // the slowest recent chunk sets the lock of the next ones (kept a day, like the results)
        if (typeof auditId === 'string') await store.set(durationKey(auditId), String(Math.max(ms, Number.isFinite(known) ? known : 0)), 'EX', 86_400)
        options.onEvent?.({ kind: 'finished', job: id, runs: r.completed as number, ms })
        return r
      } catch (e) {
        if (e instanceof StampMismatch) throw new UnrecoverableError(e.message)
        throw e
      } finally {
        running--
      }
    },
    {
      connection: connectionFor(url),
      concurrency: options.concurrency ?? 1,
      lockDuration: lockMs,
      stalledInterval: options.stalledMs ?? Math.min(1_000, lockMs),
      maxStalledCount: 5,
      autorun: true,
    },
  )
  worker.on('failed', (job, err) => options.onEvent?.({ kind: 'failed', job: String(job?.id ?? '?'), error: err.message }))
  worker.on('error', () => undefined) // connection errors: BullMQ reconnects; the CLI reports nothing per retry
  return {
    close: async (force = false) => {
      await worker.close(force)
      store.disconnect()
    },
    finished: () => finished,
    idleMs: () => Date.now() - last,
    busy: () => running > 0,
  }
}
