/**
 * Audit chunks as BullMQ jobs, for mechanism and trainer audits alike (issue 23). A job carries:
 *
 * - a stamp: the dpaudit version and a hash of the audited code (`codeHash`: for a mechanism
 *   module or a plug-in trainer, the module file's bytes and those of the files it imports by
 *   relative path; for zoo entries and built-in trainers, code that ships inside dpaudit, the
 *   version is the code's identity). The subject names a plug-in by its `file:` URL, which the
 *   worker imports as the coordinator did. A worker refuses a job whose stamp differs from its own: a
 *   chunk computed by other code would silently change the answer.
 * - the audit id: a digest of the stamp and everything that determines the chunks (subject, pairs
 *   or game, seed, statistics). The subject itself (mechanism reference and pairs, or the game with
 *   its corpus) is stored once per audit under `subjectKey(auditId)`, so jobs stay small.
 * - the task, as JSON in which ±∞ survive (`encodeJson`).
 *
 * The job id is the audit id and the task's key (phase, pair, side, trial range; for estimation
 * also a digest of the attack and grid), so adding the same chunk twice is a no-op, a chunk retried
 * after a worker died is the same job, and a finished chunk is reused only by the same code.
 *
 * Results travel as JSON with typed arrays in base64 (bit for bit: −0 and every NaN payload of a
 * mechanism output survive, which the bit-level attack families can see).
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { formatError } from '../../core/error.js'
import { decodeJson, encodeJson } from '../checkpoint.js'
import { type MechanismRef, taskInput, zooMechanism } from '../executor.js'
import type { BlackBox } from '../output.js'
import type { NeighbourPair } from '../pairs.js'
import { hashSeed } from '../stream.js'
import { type ChunkResult, type ChunkTask, runChunk } from '../trials.js'
import { type TrainerChunkTask, encodeChunkResult, runTrainerChunk } from '../trainers/chunk.js'
import { type FeatureName, featuresFor } from '../trainers/features.js'
import { trainerModuleUrl } from '../trainers/file.js'
import { buildGame, type GameTrainer, type TrainerGame, type TrainerGameSpec } from '../trainers/game.js'
import { importTrainerModule } from '../../trainers/module.js'
import { moduleHash } from './module-hash.js'

/** The BullMQ queue every dpaudit coordinator and worker of this job format uses. */
export const QUEUE_NAME = 'dpaudit-audit-v3'

/** The version of dpaudit this code belongs to (package.json). */
export const DPAUDIT_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string }
    return pkg.version ?? 'unknown'
  } catch {
    return 'unknown'
  }
})()

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex')

/** What an audit's workers must run: a mechanism on its pairs, or a trainer game. */
export type QueueSubject =
  | { readonly kind: 'mechanism'; readonly ref: MechanismRef; readonly pairs: ReadonlyArray<NeighbourPair<unknown>> }
  | { readonly kind: 'trainer'; readonly game: TrainerGameSpec; readonly seed: string; readonly features: ReadonlyArray<FeatureName> }

/** The `file:` URL of the module holding the audited code, when it lives outside dpaudit (a mechanism module, a plug-in trainer). */
const moduleOf = (subject: QueueSubject): string | null =>
  subject.kind === 'mechanism' ? (subject.ref._tag === 'ModuleRef' ? subject.ref.url : null) : trainerModuleUrl(subject.game.trainer)

/**
 * A hash of the audited code: a module's file bytes and those of the modules it imports by relative
 * path (./module-hash.ts; read where the code runs, so a worker with an edited copy is refused), or
 * for code inside dpaudit the version and the subject's name.
 */
export const codeHash = (subject: QueueSubject): string => {
  const url = moduleOf(subject)
  if (url !== null) return moduleHash(url)
  const name = subject.kind === 'mechanism' ? `zoo:${(subject.ref as Extract<MechanismRef, { _tag: 'ZooRef' }>).name}` : `trainer:${subject.game.trainer}`
  return sha(`${DPAUDIT_VERSION}\n${name}`).slice(0, 16)
}

/** The stamp every job carries. */
export interface Stamp {
  readonly version: string
  readonly code: string
}

/** The id of an audit's chunks: the stamp and the subject (seed included for trainers; mechanism tasks carry theirs). */
export const queueAuditId = (stamp: Stamp, subject: QueueSubject): string => sha(encodeJson({ v: 3, stamp, subject })).slice(0, 24)

/** Where the coordinator stores an audit's subject (JSON) for the workers. */
export const subjectKey = (auditId: string): string => `dpaudit:subject:${auditId}`

/** Where workers share an audit's measured chunk duration (ms), from which each sets its lock. */
export const durationKey = (auditId: string): string => `dpaudit:chunk-ms:${auditId}`

export interface QueueJob {
  readonly v: 3
  readonly version: string
  readonly code: string
  readonly auditId: string
  readonly kind: QueueSubject['kind']
  /** The task as `encodeJson` text. */
  readonly task: string
}

/** The key of a task within its audit (BullMQ job ids may not contain ':'). */
export const taskKey = (task: ChunkTask | TrainerChunkTask): string => {
  if (typeof task.id === 'string') return task.id.replaceAll(':', '-')
  const t = task as ChunkTask
  const est = t.phase === 'estimate' ? `-${sha(encodeJson([t.attack, t.grid])).slice(0, 12)}` : ''
  return `${t.phase}${est}-${t.pair}-${t.side}-${t.start}-${t.end}`
}

export const jobIdOf = (auditId: string, task: ChunkTask | TrainerChunkTask): string => `${auditId}-${taskKey(task)}`

// ---------------------------------------------------------------------------------- results

const b64 = (a: Float64Array | Int32Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64')
const f64 = (s: string): Float64Array => {
  const b = Buffer.from(s, 'base64')
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
}
const i32 = (s: string): Int32Array => {
  const b = Buffer.from(s, 'base64')
  return new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
}

/** A mechanism chunk's result as JSON (typed arrays in base64). */
export const encodeMechanismResult = (r: ChunkResult): Record<string, unknown> =>
  r.phase === 'select' ? { ...r, values: b64(r.values), codes: b64(r.codes) } : { ...r, counts: b64(r.counts) }

export const decodeMechanismResult = (j: unknown): ChunkResult | string => {
  const o = j as Record<string, unknown>
  if (typeof o !== 'object' || o === null || typeof o.id !== 'number' || typeof o.completed !== 'number') return 'not a mechanism chunk result'
  if (o.phase === 'select' && typeof o.values === 'string' && typeof o.codes === 'string')
    return { ...(o as unknown as ChunkResult), values: f64(o.values), codes: i32(o.codes) } as ChunkResult
  if (o.phase === 'estimate' && typeof o.counts === 'string') return { ...(o as unknown as ChunkResult), counts: f64(o.counts) } as ChunkResult
  return `chunk ${String(o.id)}: bad phase or arrays`
}

// ---------------------------------------------------------------------------------- workers

/** A job's stamp does not match this worker: never retried (the same worker would refuse it again). */
export class StampMismatch extends Error {}

/** What a worker builds once per audit. */
type Loaded =
  | { readonly kind: 'mechanism'; readonly mechanism: BlackBox<unknown>; readonly pairs: ReadonlyArray<NeighbourPair<unknown>> }
  | { readonly kind: 'trainer'; readonly game: TrainerGame; readonly features: ReadonlyArray<FeatureName>; readonly seed: readonly [number, number] }

const loaded = new Map<string, Loaded>()

const at = (mod: Record<string, unknown>, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], mod)

/** The code hash of each module this process has imported: the ESM cache would keep serving a module edited since. */
const imported = new Map<string, string>()

/** Imports a plug-in trainer for a job, once per content: an edited file needs a fresh worker. */
const importTrainer = async (url: string, hash: string): Promise<GameTrainer> => {
  const before = imported.get(url)
  if (before !== undefined && before !== hash)
    throw new StampMismatch(`the trainer module ${url} changed since this worker imported it (code ${before}, now ${hash}): restart the worker`)
  const t = await importTrainerModule(url, 'worker')
  if (E.isLeft(t)) throw new StampMismatch(t.left)
  imported.set(url, hash)
  return t.right
}

const load = async (job: QueueJob, subject: QueueSubject): Promise<Loaded> => {
  if (subject.kind === 'trainer') {
    const url = trainerModuleUrl(subject.game.trainer)
    const g = buildGame(subject.game, url === null ? undefined : await importTrainer(url, job.code))
    if (E.isLeft(g)) throw new Error(`the job's game is invalid: ${formatError(g.left)}`)
    const features = featuresFor(g.right)
    if (features.join() !== subject.features.join())
      throw new StampMismatch(`audit ${job.auditId}: this worker's statistics [${features.join(', ')}] differ from the coordinator's; run the same dpaudit version on every machine`)
    return { kind: 'trainer', game: g.right, features, seed: hashSeed(subject.seed) }
  }
  const ref = subject.ref
  if (ref._tag === 'ZooRef') {
    const m = zooMechanism(ref.name, ref.claim)
    if (typeof m === 'string') throw new StampMismatch(m)
    return { kind: 'mechanism', mechanism: m as BlackBox<unknown>, pairs: subject.pairs }
  }
  const mod = (await import(ref.url)) as Record<string, unknown>
  const f = at(mod, ref.exportName)
  if (typeof f !== 'function') throw new StampMismatch(`${ref.url} has no function export "${ref.exportName}"`)
  return { kind: 'mechanism', mechanism: f as BlackBox<unknown>, pairs: subject.pairs }
}

/** Why a job's code stamp differs from this worker's code, naming the module file when there is one. */
const codeMismatch = (job: QueueJob, subject: QueueSubject, mine: string): string => {
  const what = subject.kind === 'mechanism' ? 'mechanism' : 'trainer'
  const url = moduleOf(subject)
  if (url === null) return `audit ${job.auditId}: the ${what} code here hashes to ${mine}, the coordinator's to ${job.code}: run the same code on every machine`
  const here = mine.startsWith('unreadable:') ? `cannot be read here (${mine.slice('unreadable: '.length)})` : `here hashes to ${mine} (the file and the modules it imports by relative path)`
  return `audit ${job.auditId}: the ${what} module ${fileURLToPath(url)} ${here}, the coordinator's to ${job.code}: install the same file at the same path on every machine`
}

/**
 * Runs one job (`guard` wraps the synchronous chunk): checks its stamp against this worker's version and code (refusing a mismatch),
 * fetches and builds the audit's subject once (`fetch` reads `subjectKey`), and runs the chunk.
 */
export const processJob = async (
  data: unknown,
  fetch: (key: string) => Promise<string | null>,
  guard: <A>(compute: () => A) => A = (compute) => compute(),
): Promise<Record<string, unknown>> => {
  const job = data as QueueJob
  if (typeof job !== 'object' || job === null || job.v !== 3 || typeof job.auditId !== 'string' || typeof job.task !== 'string')
    throw new StampMismatch('not a dpaudit audit job of this format (v3); run the same dpaudit version on every machine')
  if (job.version !== DPAUDIT_VERSION)
    throw new StampMismatch(`the job comes from dpaudit ${job.version}, this worker is dpaudit ${DPAUDIT_VERSION}: run the same version on every machine`)
  let entry = loaded.get(job.auditId)
  if (entry === undefined) {
    const text = await fetch(subjectKey(job.auditId))
    if (text === null) throw new Error(`the subject of audit ${job.auditId} is not in Redis (expired, or the coordinator's Redis database differs)`)
    const subject = decodeJson(text) as QueueSubject
    const mine = codeHash(subject)
    if (mine !== job.code) throw new StampMismatch(codeMismatch(job, subject, mine))
    entry = await load(job, subject)
    if (loaded.size > 16) loaded.clear()
    loaded.set(job.auditId, entry)
  }
  const task = decodeJson(job.task)
  const e = entry
  // the chunk itself runs synchronously, inside `guard` (the CLI lets a signal end the process there)
  if (e.kind === 'trainer') return encodeChunkResult(guard(() => runTrainerChunk(e.game, e.features, e.seed, task as TrainerChunkTask)))
  const t = task as ChunkTask
  return encodeMechanismResult(guard(() => runChunk(t, e.mechanism, taskInput(e.pairs, t))))
}
