/**
 * The asynchronous forms of `dpaudit audit` (issue 23: one command for every subject and executor):
 *
 * - `dpaudit audit <trainer-audit.json>`: a trainer audit, run in this process;
 * - `dpaudit audit --queue redis://… <trainer-audit.json | zoo:NAME | module.js>`: the same audit with
 *   its chunks on a BullMQ queue, for `dpaudit worker --queue …` processes on any machines. The
 *   answer is the local one, bit for bit: chunks are seeded per trial and merged by index.
 *
 * Every form honours --out (the same JSON document as a local mechanism audit: the result with its
 * subject). When Redis stops answering for --timeout seconds (default 60) the command prints one
 * line saying so and exits 1; a mechanism audit's --checkpoint keeps the finished chunks, and the
 * same command resumes. SIGTERM or SIGINT stops an audit (mechanism or trainer) after the batch of
 * chunks in flight, with one line and exit 143 or 130: a mechanism audit's checkpoint is kept, and
 * a queued audit's finished chunks stay in Redis, so the same command reuses them. A mechanism audit without --queue
 * is audit.ts's command (on a thread of its own: audit-thread.ts).
 *
 * @module
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, extname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { auditMechanismAsync, type AuditSpec, zooAuditSpec } from '../../attacks/audit.js'
import { type AuditClaim, validateClaim } from '../../attacks/claim.js'
import type { MechanismRef } from '../../attacks/executor.js'
import type { NeighbourPair } from '../../attacks/pairs.js'
import { describeModule } from '../../attacks/pool.js'
import { mechanismQueue, type QueueExecutor, trainerQueue } from '../../attacks/queue/executor.js'
import { pingRedis, redactUrl } from '../../attacks/queue/redis.js'
import type { AnyAuditResult } from '../../attacks/result.js'
import { auditTrainer } from '../../attacks/trainers/audit.js'
import { isAccountedClaim } from '../../attacks/trainers/accounted.js'
import { decodeTrainerAuditFile, isTrainerModulePath, type TrainerAuditFile } from '../../attacks/trainers/file.js'
import { zooEntry, ZOO_NAMES } from '../../attacks/zoo/index.js'
import { type DpError, formatError } from '../../core/error.js'
import { importTrainerModule } from '../../trainers/module.js'
import { QUEUE_AUDIT_USAGE, wantsHelp } from '../help.js'
import { checkOutputPath, parseNumber, readJsonFile } from '../io.js'
import { guardOutputs } from '../output-guard.js'
import { progressLine } from '../progress.js'
import { reportAudit, stoppedBy } from './audit.js'
import { type CommandResult, EXIT } from './result.js'

type Values = Record<string, string | boolean | undefined>

const OPTIONS = {
  queue: { type: 'string' },
  runs: { type: 'string' },
  trials: { type: 'string' },
  seed: { type: 'string' },
  confidence: { type: 'string' },
  epsilon: { type: 'string' },
  delta: { type: 'string' },
  timeout: { type: 'string' },
  'idle-timeout': { type: 'string' },
  out: { type: 'string' },
  checkpoint: { type: 'string' },
  workers: { type: 'string' },
  json: { type: 'boolean', default: false },
  quiet: { type: 'boolean', default: false },
} as const

/** What the command will run: an audit that resolves to a result, with the queue executor if any. */
interface Planned {
  readonly name: string
  readonly run: () => Promise<E.Either<DpError, AnyAuditResult>>
  readonly queue: () => QueueExecutor<unknown, unknown> | null
  readonly inputs: ReadonlyArray<{ what: string; path: string }>
}

const claimFrom = (v: Values, nums: Record<string, number | undefined>, base: AuditClaim | undefined): E.Either<string, AuditClaim> => {
  const c = validateClaim({ ...(base ?? {}), epsilon: nums.epsilon ?? base?.epsilon, delta: nums.delta ?? base?.delta ?? 0 })
  return E.isLeft(c) ? E.left(`audit: ${formatError(c.left)}`) : E.right(c.right)
}

/** The claim of a trainer-audit file under --epsilon/--delta: an accounted claim stays the accountant's ε unless --epsilon replaces it. */
const trainerClaim = (v: Values, nums: Record<string, number | undefined>, base: TrainerAuditFile['claim']): E.Either<string, TrainerAuditFile['claim']> =>
  isAccountedClaim(base) && nums.epsilon === undefined
    ? E.right({ accounted: true, delta: nums.delta ?? base.delta })
    : claimFrom(v, nums, isAccountedClaim(base) ? { epsilon: Number.NaN, delta: base.delta } : base)

const planTrainer = async (
  file: string,
  v: Values,
  nums: Record<string, number | undefined>,
  progress: ReturnType<typeof progressLine>,
  shouldStop: () => boolean,
): Promise<E.Either<string, Planned>> => {
  const raw = readJsonFile(file)
  if (E.isLeft(raw)) return raw
  const decoded = decodeTrainerAuditFile(raw.right)
  if (E.isLeft(decoded)) return E.left(`${file}: ${formatError(decoded.left)}`)
  const f = decoded.right
  const claim = trainerClaim(v, nums, f.claim)
  if (E.isLeft(claim)) return claim
  const url = v.queue as string | undefined
  // a plug-in trainer (a module path, relative to the file) is imported here, and the game names it
  // by its file: URL, which a queue's workers import in turn (the job's code hash checks their copy)
  const modulePath = isTrainerModulePath(f.game.trainer) ? resolve(dirname(file), f.game.trainer) : undefined
  const plugin = modulePath === undefined ? undefined : await importTrainerModule(modulePath, 'audit')
  if (plugin !== undefined && E.isLeft(plugin)) return plugin
  const game = modulePath === undefined ? f.game : { ...f.game, trainer: pathToFileURL(modulePath).href }
  let made: QueueExecutor<unknown, unknown> | null = null
  const executor = url === undefined ? undefined : trainerQueue(url, queueOptions(nums), (e) => (made = e as unknown as QueueExecutor<unknown, unknown>))
  return E.right({
    name: basename(file, extname(file)),
    inputs: [{ what: 'the trainer-audit file', path: file }, ...(modulePath === undefined ? [] : [{ what: 'the trainer module', path: modulePath }])],
    queue: () => made,
    run: () =>
      auditTrainer({
        ...f,
        game,
        ...(plugin === undefined ? {} : { trainer: plugin.right }),
        claim: claim.right,
        runs: nums.runs ?? nums.trials ?? f.runs,
        seed: (v.seed as string | undefined) ?? f.seed,
        ...(nums.confidence === undefined ? {} : { confidence: nums.confidence }),
        ...(executor === undefined ? {} : { executor }),
        shouldStop,
        onProgress: (p) => progress.update(p.done, p.total, p.phase === 'select' ? 'choosing the test' : 'estimating'),
      }),
  })
}

const queueOptions = (nums: Record<string, number | undefined>) => ({
  ...(nums.timeout === undefined ? {} : { timeoutMs: nums.timeout * 1000 }),
  ...(nums['idle-timeout'] === undefined ? {} : { idleTimeoutMs: nums['idle-timeout'] * 1000 }),
  ...(nums.workers === undefined ? {} : { workers: nums.workers }),
})

/** A mechanism (zoo entry or module) audited on the queue. */
const planMechanism = (
  target: string,
  v: Values,
  nums: Record<string, number | undefined>,
  progress: ReturnType<typeof progressLine>,
  shouldStop: () => boolean,
): E.Either<string, Planned> => {
  const url = v.queue as string
  let spec: AuditSpec<unknown>
  let ref: MechanismRef
  let inputs: Array<{ what: string; path: string }> = []
  const common = {
    trials: nums.trials ?? nums.runs ?? 1_000_000,
    seed: (v.seed as string | undefined) ?? 'dpaudit',
    ...(nums.confidence === undefined ? {} : { confidence: nums.confidence }),
    ...(v.checkpoint === undefined ? {} : { checkpoint: v.checkpoint as string }),
    shouldStop,
    onProgress: (p: { phase: string; trialsDone: number; trialsTotal: number; trialsResumed: number }) =>
      progress.update(p.trialsDone - p.trialsResumed, p.trialsTotal - p.trialsResumed, p.phase === 'select' ? 'choosing the attack' : 'estimating'),
  }
  if (target.startsWith('zoo:')) {
    const entry = zooEntry(target.slice(4))
    if (entry === undefined) return E.left(`audit: no zoo mechanism "${target.slice(4)}" (one of ${ZOO_NAMES.join(', ')})`)
    const claim = claimFrom(v, nums, entry.defaultClaim)
    if (E.isLeft(claim)) return claim
    const s = zooAuditSpec(entry.name, { ...common, claim: claim.right, builtFor: entry.defaultClaim })
    if (E.isLeft(s)) return E.left(`audit: ${formatError(s.left)}`)
    spec = s.right
    ref = spec.mechanism as MechanismRef
  } else {
    const file = resolve(target)
    if (!existsSync(file) || !statSync(file).isFile()) return E.left(`audit: ${target}: no such file (a module is a .js or .mjs file)`)
    const d = describeModule(file)
    if (E.isLeft(d)) return E.left(`audit: ${target}: ${formatError(d.left)}`)
    const desc = d.right.description
    const claim = claimFrom(v, nums, typeof desc.claim === 'object' && desc.claim !== null ? (desc.claim as AuditClaim) : undefined)
    if (E.isLeft(claim)) return claim
    if (!Array.isArray(desc.pairs)) return E.left(`audit: ${target}: the module must export \`pairs\`: an array of { input, neighbour, label? }`)
    ref = d.right.ref
    spec = { ...common, mechanism: ref, pairs: desc.pairs as ReadonlyArray<NeighbourPair<unknown>>, claim: claim.right, name: typeof desc.name === 'string' ? desc.name : basename(file, extname(file)) }
    inputs = [{ what: 'the module', path: file }]
  }
  const pairs = spec.pairs as ReadonlyArray<NeighbourPair<unknown>>
  const executor = mechanismQueue(url, { kind: 'mechanism', ref, pairs }, queueOptions(nums))
  return E.right({
    name: spec.name ?? target,
    inputs,
    queue: () => executor as unknown as QueueExecutor<unknown, unknown>,
    run: async () => {
      try {
        return await auditMechanismAsync({ ...spec, executor })
      } finally {
        await executor.close()
      }
    },
  })
}

export const runQueueAudit = async (args: ReadonlyArray<string>): Promise<CommandResult> => {
  if (wantsHelp(args)) return { code: EXIT.ok, stdout: QUEUE_AUDIT_USAGE }
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: OPTIONS })
  const target = positionals[0]
  if (target === undefined || positionals.length > 1) return { code: EXIT.input, stderr: QUEUE_AUDIT_USAGE }
  const nums: Record<string, number | undefined> = {}
  for (const k of ['runs', 'trials', 'epsilon', 'delta', 'timeout', 'idle-timeout', 'confidence', 'workers'] as const) {
    if (values[k] === undefined) continue
    const x = parseNumber(k, values[k])
    if (E.isLeft(x)) return { code: EXIT.input, stderr: x.left }
    nums[k] = x.right
  }
  for (const [flag, path] of [['out', values.out], ['checkpoint', values.checkpoint]] as const) {
    if (path === undefined) continue
    const c = checkOutputPath(path, flag)
    if (E.isLeft(c)) return { code: EXIT.input, stderr: `audit: ${c.left}` }
  }
  const trainer = /\.json$/i.test(target)
  if (!trainer && values.queue === undefined) return { code: EXIT.input, stderr: QUEUE_AUDIT_USAGE }
  if (values.queue !== undefined) {
    const unreachable = await pingRedis(values.queue)
    if (unreachable !== null) return { code: EXIT.input, stderr: `--queue: ${unreachable}` }
  }
  const progress = progressLine({ label: values.queue === undefined ? 'audit' : 'queued audit', unit: trainer ? 'runs' : 'trials', quiet: values.quiet })
  // SIGTERM/SIGINT stop an audit after the batch of chunks in flight (a mechanism audit's checkpoint
  // kept; a queued audit's finished chunks stay in Redis; one line, 143/130); a second signal ends the process at once.
  let signal: 'SIGINT' | 'SIGTERM' | null = null
  const onSignal = (s: 'SIGINT' | 'SIGTERM') => (): void => {
    if (signal !== null) process.exit(s === 'SIGINT' ? 130 : 143)
    signal = s
  }
  const onInt = onSignal('SIGINT')
  const onTerm = onSignal('SIGTERM')
  const stopped = (): boolean => signal !== null
  const planned = trainer ? await planTrainer(target, values, nums, progress, stopped) : planMechanism(target, values, nums, progress, stopped)
  if (E.isLeft(planned)) return { code: EXIT.input, stderr: planned.left }
  const out = values.out ?? (values.json ? undefined : `${planned.right.name.replace(/[^\w.-]+/g, '_')}.audit.json`)
  const outputs = [...(out === undefined ? [] : [{ what: '--out', path: out }]), ...(values.checkpoint === undefined ? [] : [{ what: '--checkpoint', path: values.checkpoint }])]
  const locks = guardOutputs(outputs, planned.right.inputs)
  if (E.isLeft(locks)) return { code: EXIT.input, stderr: `audit: ${locks.left}` }
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  try {
    const t0 = Date.now()
    const r = await planned.right.run()
    progress.done()
    if (signal !== null && E.isRight(r) && r.right.status === 'interrupted') return stoppedBy(signal, r.right, values.checkpoint, values.queue === undefined ? undefined : redactUrl(values.queue))
    const lost = planned.right.queue()?.unreachable() ?? null
    // Redis gone: one line, exit 1, the checkpoint kept for the resume
    if (lost !== null) return { code: EXIT.input, stderr: `audit: ${lost}` }
    if (E.isLeft(r)) return { code: EXIT.input, stderr: `audit: ${target}: ${formatError(r.left)}` }
    if (values.checkpoint !== undefined && r.right.status === 'complete') rmSync(values.checkpoint, { force: true })
    const where = values.queue === undefined ? 'this process' : `the queue at ${redactUrl(values.queue)}`
    return reportAudit({ target, out, json: values.json, workers: nums.workers ?? 1, where }, r.right, Date.now() - t0)
  } finally {
    process.removeListener('SIGINT', onInt)
    process.removeListener('SIGTERM', onTerm)
    locks.right()
  }
}
