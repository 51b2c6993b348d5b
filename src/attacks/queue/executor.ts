/**
 * The coordinator's side of a queued audit: an executor (../executor.ts) that adds each chunk as a
 * BullMQ job and collects the results as workers — on this machine or any other that reaches the
 * same Redis — finish them. Mechanism and trainer audits use the same executor; `mechanismQueue`
 * and `trainerQueue` only say how their tasks and results are encoded.
 *
 * - Idempotent by chunk: the job id is (audit id, task key) and the audit id includes the dpaudit
 *   version and the code hash (jobs.ts), so a chunk is one job however often it is added, a
 *   restarted coordinator finds the chunks already done, and a chunk done by other code is never reused.
 * - Retries: a job whose worker died mid-chunk is found stalled by another worker once its lock
 *   expires (the lock follows the measured chunk durations, worker.ts) and runs again; a job that
 *   throws is retried `attempts` times; a stamp mismatch is not retried. Either way the coordinator
 *   reads one result per chunk.
 * - Redis lost: every Redis call has a deadline; when Redis has not answered for `timeoutMs`
 *   (default 60 s) the run ends with one line saying so (`unreachable()` tells the caller), and the
 *   results already delivered stay delivered (a mechanism audit's checkpoint keeps them).
 *
 * @module
 */
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { encodeJson } from '../checkpoint.js'
import type { Executor } from '../executor.js'
import type { ChunkResult, ChunkTask } from '../trials.js'
import type { TrainerAuditContext, TrainerExecutor } from '../trainers/audit.js'
import { trainerModuleUrl } from '../trainers/file.js'
import { TRAINERS, isTrainerName } from '../../trainers/registry.js'
import { decodeChunkResult, type TrainerChunkResult, type TrainerChunkTask } from '../trainers/chunk.js'
import { codeHash, decodeMechanismResult, DPAUDIT_VERSION, jobIdOf, type QueueJob, type QueueSubject, QUEUE_NAME, queueAuditId, type Stamp, subjectKey } from './jobs.js'
import { checkRedisUrl, redactUrl } from './redis.js'

export interface QueueExecutorOptions {
  /** Attempts per chunk when a worker throws (default 3). Stalled jobs are re-run separately. */
  readonly attempts?: number
  /** How often to look for finished chunks, ms (default 200). */
  readonly pollMs?: number
  /** Give up when Redis has not answered for this many ms (default 60 000). */
  readonly timeoutMs?: number
  /** Give up after this many ms without a chunk finishing (default: never; workers may be slow to come). */
  readonly idleTimeoutMs?: number
  /** Completed jobs stay in Redis this many seconds, so a restarted coordinator reuses them (default 86 400). */
  readonly keepSeconds?: number
  /** Workers expected (sizes the batches the audit hands over; default 64). */
  readonly workers?: number
}

/** A queue executor: the interface of every executor, and why it stopped if Redis went away. */
export interface QueueExecutor<T, R> extends Executor<T, R> {
  /** The one-line message when Redis became unreachable, else null. */
  readonly unreachable: () => string | null
}

/** How one kind of audit talks to the queue. */
interface Codec<R> {
  readonly subject: QueueSubject
  readonly decode: (j: unknown) => R | string
}

/** Resolves to the value, or rejects after `ms` (a Redis call that would wait forever while Redis is away). */
const deadline = <A>(p: Promise<A>, ms: number): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)
    p.then(
      (v) => {
        clearTimeout(t)
        resolve(v)
      },
      (e: unknown) => {
        clearTimeout(t)
        reject(e instanceof Error ? e : new Error(String(e)))
      },
    )
  })

/**
 * The coordinator's connection: every Redis call under a deadline, and "lost" once Redis has not
 * answered for `timeoutMs` (one line, kept for `unreachable()`); the queue opened on first use.
 */
interface RedisSession {
  /** The call's value, or null when it failed (Redis then counts as silent since the last answer). */
  readonly call: <A>(f: () => Promise<A>) => Promise<A | null>
  /** The queue, or null once Redis is lost. */
  readonly open: () => Promise<Queue | null>
  readonly lost: () => string | null
  readonly client: Redis
  readonly close: () => Promise<void>
}

const redisSession = (url: string, timeoutMs: number, pollMs: number): RedisSession => {
  const callMs = Math.max(200, Math.min(5_000, timeoutMs / 4))
  // Commands fail at once while Redis is away (no offline queue, one retry) instead of waiting forever.
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: callMs, retryStrategy: () => 250 })
  client.on('error', () => undefined) // reported once, as "unreachable", by run()
  let queue: Queue | null = null
  let lost: string | null = null
  let lastAnswer = Date.now()
  const call = async <A>(f: () => Promise<A>): Promise<A | null> => {
    try {
      const v = await deadline(f(), callMs)
      lastAnswer = Date.now()
      return v
    } catch {
      if (Date.now() - lastAnswer > timeoutMs) lost ??= `Redis at ${redactUrl(url)} is unreachable (no answer for ${Math.round(timeoutMs / 1000)} s); finished chunks are kept: run the same command again to resume`
      await new Promise((r) => setTimeout(r, Math.min(pollMs, 250)))
      return null
    }
  }
  const open = async (): Promise<Queue | null> => {
    if (queue !== null) return queue
    for (;;) {
      if (client.status === 'wait') await call(() => client.connect())
      if (client.status === 'ready') break
      if (lost !== null) return null
      await call(() => client.ping())
      if (lost !== null) return null
    }
    queue = new Queue(QUEUE_NAME, { connection: client })
    queue.on('error', () => undefined)
    return queue
  }
  const close = async (): Promise<void> => {
    await deadline(queue?.close() ?? Promise.resolve(), callMs).catch(() => undefined)
    client.disconnect()
  }
  return { call, open, lost: () => lost, client, close }
}

/** How the jobs of one audit are named and kept. */
interface JobsOf<T> {
  readonly id: (task: T) => string
  readonly data: (task: T) => QueueJob
  readonly opts: (task: T) => object
}

/**
 * Waits for every job of `byId` to finish, handing each result to `onResult` once: a job removed meanwhile
 * (expired, Redis restarted empty) is added again, one left failed by an earlier audit with the same id is
 * retried, a failure of this audit's is final. Null when all finished, else why not.
 */
const collect = async <T, R>(
  s: RedisSession,
  q: Queue,
  byId: ReadonlyMap<string, T>,
  jobs: JobsOf<T>,
  decode: Codec<R>['decode'],
  onResult: (r: R) => void,
  started: number,
  options: { readonly pollMs: number; readonly idleTimeoutMs?: number | undefined; readonly url: string },
): Promise<string | null> => {
  const pending = new Set(byId.keys())
  let lastProgress = Date.now()
  while (pending.size > 0) {
    if (s.lost() !== null) return s.lost()
    const batch = [...pending]
    const states = await s.call(() => Promise.all(batch.map((id) => q.getJobState(id))))
    if (states === null) continue
    for (const [i, id] of batch.entries()) {
      const state = states[i]
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue
      const job = await s.call(() => q.getJob(id))
      if (job === null) break
      if (job === undefined) {
        // removed meanwhile (expired, or Redis restarted empty): add it again
        const t = byId.get(id) as T
        await s.call(() => q.add('chunk', jobs.data(t), jobs.opts(t)))
      } else if (state === 'completed') {
        const r = decode(job.returnvalue)
        if (typeof r === 'string') return `chunk ${id}: ${r}`
        pending.delete(id)
        lastProgress = Date.now()
        onResult(r)
      } else if (state === 'failed') {
        // left from an earlier audit with the same id: run it again; a failure of ours is final
        if ((job.finishedOn ?? 0) < started) await s.call(() => job.retry('failed'))
        else return `chunk ${id} failed on a worker: ${job.failedReason ?? 'no reason given'}`
      }
    }
    if (pending.size === 0) break
    if (options.idleTimeoutMs !== undefined && Date.now() - lastProgress > options.idleTimeoutMs)
      return `no chunk finished in ${Math.round(options.idleTimeoutMs / 1000)} s (${pending.size} of ${byId.size} outstanding): is a worker running (dpaudit worker --queue ${redactUrl(options.url)})?`
    await new Promise((r) => setTimeout(r, options.pollMs))
  }
  return null
}

const queueExecutorFor = <T extends ChunkTask | TrainerChunkTask, R>(url: string, codec: Codec<R>, options: QueueExecutorOptions): QueueExecutor<T, R> => {
  const bad = checkRedisUrl(url)
  if (bad !== null) throw new Error(bad)
  const timeoutMs = options.timeoutMs ?? 60_000
  const pollMs = options.pollMs ?? 200
  const keep = options.keepSeconds ?? 86_400
  const attempts = options.attempts ?? 3
  const s = redisSession(url, timeoutMs, pollMs)
  const stamp: Stamp = { version: DPAUDIT_VERSION, code: codeHash(codec.subject) }
  const auditId = queueAuditId(stamp, codec.subject)
  const jobs: JobsOf<T> = {
    id: (task) => jobIdOf(auditId, task),
    opts: (task) => ({ jobId: jobIdOf(auditId, task), attempts, backoff: { type: 'fixed', delay: 500 }, removeOnComplete: { age: keep }, removeOnFail: { age: keep } }),
    data: (task) => ({ v: 3, ...stamp, auditId, kind: codec.subject.kind, task: encodeJson(task) }),
  }
  const run = async (tasks: ReadonlyArray<T>, onResult: (r: R) => void): Promise<string | null> => {
    const q = await s.open()
    if (q === null) return s.lost()
    // the subject once per audit, for every worker (jobs carry only its id)
    while ((await s.call(() => s.client.set(subjectKey(auditId), encodeJson(codec.subject), 'EX', keep))) === null) if (s.lost() !== null) return s.lost()
    const started = Date.now()
    const byId = new Map(tasks.map((t) => [jobs.id(t), t] as const))
    while ((await s.call(() => q.addBulk(tasks.map((t) => ({ name: 'chunk', data: jobs.data(t), opts: jobs.opts(t) }))))) === null) if (s.lost() !== null) return s.lost()
    return collect(s, q, byId, jobs, codec.decode, onResult, started, { pollMs, idleTimeoutMs: options.idleTimeoutMs, url })
  }
  return { workers: options.workers ?? 64, run, close: s.close, unreachable: s.lost }
}

/** A queue executor for a mechanism audit (`auditMechanismAsync`); throws on a malformed URL (check it with checkRedisUrl first). */
export const mechanismQueue = (url: string, subject: Extract<QueueSubject, { kind: 'mechanism' }>, options: QueueExecutorOptions = {}): QueueExecutor<ChunkTask, ChunkResult> =>
  queueExecutorFor<ChunkTask, ChunkResult>(url, { subject, decode: decodeMechanismResult }, options)

/**
 * Why workers cannot rebuild this audit's trainer, or null: they load a built-in trainer by name and
 * a plug-in from the module its game names by `file:` URL or absolute path; a trainer object handed
 * to `auditTrainer` in code under another name (a test-only variant) exists only in this process.
 */
const unqueueable = (ctx: TrainerAuditContext): string | null => {
  const name = ctx.game.spec.trainer
  if (trainerModuleUrl(name) !== null || (isTrainerName(name) && ctx.game.trainer === TRAINERS[name])) return null
  return `the trainer "${ctx.game.trainer.name}" (game.trainer ${JSON.stringify(name)}) cannot be queued: workers load a built-in trainer by name or a plug-in from its module, so name the module in game.trainer by an absolute path or file: URL`
}

/** A queue executor for a trainer audit (`auditTrainer`'s executor factory); `made` receives each executor built. */
export const trainerQueue =
  (url: string, options: QueueExecutorOptions = {}, made?: (e: QueueExecutor<TrainerChunkTask, TrainerChunkResult>) => void) =>
  (ctx: TrainerAuditContext): TrainerExecutor => {
    const refused = unqueueable(ctx)
    if (refused !== null) return { workers: 1, run: async () => refused, close: async () => undefined }
    const e = queueExecutorFor<TrainerChunkTask, TrainerChunkResult>(url, { subject: { kind: 'trainer', game: ctx.game.spec, seed: ctx.seed, features: ctx.features }, decode: decodeChunkResult }, options)
    made?.(e)
    return e
  }

/** The trainer-audit executor factory of earlier releases (`trainerQueue`). */
export const queueExecutor = (url: string, options: QueueExecutorOptions = {}) => trainerQueue(url, options)
