/**
 * Trainer audits over BullMQ, end to end on loopback: a real redis-server started here on a free
 * port, `dpaudit worker` processes (the compiled CLI when dist is newer than every source, else the
 * sources through test/cli/ts-register.mjs),
 * the coordinator both in-process and as `dpaudit audit --queue`. The queued answer must equal the
 * local one for the same seed, also when a worker is killed in the middle of a chunk (the chunk is
 * retried by another worker and counted once), and for a plug-in trainer (examples/dp-sgd), whose
 * module the workers import and whose code hash they check. Redis and every child are stopped after the tests,
 * whatever happens. Skipped, with a message, where /usr/bin/redis-server is absent.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseJson, stringifyJson } from '../../src/core/json.js'
import { mechanismQueue, queueExecutor } from '../../src/attacks/queue/executor.js'
import { auditMechanism, auditMechanismAsync, zooAuditSpec } from '../../src/attacks/audit.js'
import type { MechanismRef } from '../../src/attacks/executor.js'
import type { NeighbourPair } from '../../src/attacks/pairs.js'
import { DPAUDIT_VERSION, QUEUE_NAME, subjectKey } from '../../src/attacks/queue/jobs.js'
import { connectionFor, pingRedis } from '../../src/attacks/queue/redis.js'
import { auditTrainer, type TrainerAuditResult, type TrainerAuditSpec } from '../../src/attacks/trainers/audit.js'
import { syntheticCorpus } from '../../src/attacks/trainers/game.js'

const REDIS = '/usr/bin/redis-server'
const hasRedis = existsSync(REDIS)
if (!hasRedis) console.warn(`test/attacks/queue.test.ts: skipped — ${REDIS} is absent (Debian: apt-get install redis-server)`)

const ROOT = new URL('../../', import.meta.url).pathname
const children: ChildProcess[] = []

/** Newest modification time under a folder (ms). */
const newest = (dir: string): number => {
  let t = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

/**
 * How to run the CLI in a child: the compiled dist/cli/main.js when it was built after every source
 * changed (starts in about a second), otherwise the sources through test/cli/ts-register.mjs
 * (transpiles what it imports: many seconds on a busy machine, but always the current code).
 */
const CLI: ReadonlyArray<string> = (() => {
  const main = join(ROOT, 'dist/cli/main.js')
  return existsSync(main) && statSync(main).mtimeMs > newest(join(ROOT, 'src')) ? [main] : ['--import', './test/cli/ts-register.mjs', 'src/cli/main.ts']
})()

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const a = s.address()
      const port = typeof a === 'object' && a !== null ? a.port : 0
      s.close(() => resolve(port))
    })
  })

const waitFor = async (what: string, ok: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await ok()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

interface Worker {
  readonly child: ChildProcess
  log: string
}

const startWorker = (url: string, lockMs: number): Worker => {
  const child = spawn(process.execPath, [...CLI, 'worker', '--queue', url, '--lock-ms', String(lockMs), '--exit-when-idle', '300'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.push(child)
  const w: Worker = { child, log: '' }
  child.stderr?.on('data', (b: Buffer) => {
    w.log += b.toString()
  })
  return w
}

const stop = (c: ChildProcess): void => {
  if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}

const corpus = E.getOrElseW((e) => {
  throw new Error(JSON.stringify(e))
})(syntheticCorpus({ documents: 50, vocabulary: 30, topics: 3, meanDocumentLength: 20, unused: 5, seed: 'queue' }))

describe.skipIf(!hasRedis)('trainer audits on BullMQ over a real Redis', () => {
  let redis: ChildProcess
  let redisPort = 0
  let url = ''
  const startRedis = (): ChildProcess => {
    const r = spawn(REDIS, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' })
    children.push(r)
    return r
  }
  /** Runs the CLI in a child; resolves to its exit code and output. */
  const cli = (args: ReadonlyArray<string>): { child: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    let out = ''
    let err = ''
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()))
    child.stderr?.on('data', (b: Buffer) => (err += b.toString()))
    return { child, done: new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err }))) }
  }
  let dir = ''
  // Two workers for both tests, started once Redis answers. Short locks, so a killed worker's chunk is
  // found stalled within seconds. From the sources, B and the coordinators start after A is waiting
  // for chunks: A's start-up transpiles the CLI into test/cli/ts-hooks.mjs's cache (~10 s of CPU),
  // and the later children read it (~1.5 s each) instead of each transpiling the same files at once.
  let a: Worker
  let b: Worker
  const LOCK_MS = 3000

  beforeAll(async () => {
    const port = await freePort()
    url = `redis://127.0.0.1:${port}`
    // Not a dpaudit-* name: another test run's global teardown (test/setup/tmp.ts) removes new
    // dpaudit-* entries, and this folder must outlive the children's slow start. afterAll removes it.
    dir = mkdtempSync(join(tmpdir(), 'trainer-queue-test-'))
    redisPort = port
    redis = startRedis()
    await waitFor('redis-server', async () => (await pingRedis(url, 500)) === null)
    a = startWorker(url, LOCK_MS)
    if (CLI[0] === '--import')
      await waitFor('worker A to start (transpiling the sources)', () => {
        if (a.child.exitCode !== null) throw new Error(`worker A exited ${a.child.exitCode}: ${a.log}`)
        return /waiting for chunks/.test(a.log)
      }, 150_000)
    b = startWorker(url, LOCK_MS)
  }, 180_000)

  afterAll(() => {
    for (const c of children) stop(c)
    if (dir !== '') rmSync(dir, { recursive: true, force: true })
  })

  const local = async (spec: TrainerAuditSpec): Promise<TrainerAuditResult> => {
    const r = await auditTrainer(spec)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    return r.right
  }

  it('`dpaudit audit --queue` with two workers gives the local answer', async () => {
    const spec: TrainerAuditSpec = {
      game: { trainer: 'cdp-lda+', config: { topics: 3, iterations: 4, epsilon: 0.05 }, corpus, neighbour: { kind: 'replace-word', document: 0, position: 0, word: 30 }, view: 'white-box' },
      claim: { epsilon: 0.2, delta: 0 },
      runs: 160,
      seed: 'queue-cli',
      chunkSize: 10,
    }
    const file = join(dir, 'audit.json')
    writeFileSync(file, JSON.stringify(spec))
    const coordinator = spawn(process.execPath, [...CLI, 'audit', '--queue', url, file, '--json', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(coordinator)
    let out = ''
    let err = ''
    coordinator.stdout?.on('data', (b: Buffer) => (out += b.toString()))
    coordinator.stderr?.on('data', (b: Buffer) => (err += b.toString()))
    const code = await new Promise<number | null>((resolve) => coordinator.on('exit', resolve))
    const expected = await local(spec)
    expect(err).toBe('')
    expect(a.log + b.log).toMatch(/finished /)
    expect(code).toBe(expected.verdict === 'violation' ? 3 : expected.verdict === 'inconclusive' ? 4 : 0)
    const parsed = parseJson(out)
    expect(E.isRight(parsed) && (parsed.right as { result: unknown }).result).toEqual(JSON.parse(stringifyJson(expected)))
  }, 120_000)

  it('a worker killed mid-chunk: the chunk is retried by another worker, counted once, and the answer is unchanged; a restarted coordinator reuses the finished chunks', async () => {
    // Heavy runs (T = 200), so a chunk takes long enough to be killed inside, and every chunk full:
    // selection 0.25 · 160 / 2 = 20 runs per side, estimation 60 = 3 · 20. With T = 25 and the default
    // split (24 + 56 per side) the worker could be handed a 4-run tail chunk, done in 14 ms before the
    // kill landed (seen once the private sweep ran in WebAssembly).
    const spec: TrainerAuditSpec = {
      game: { trainer: 'hdp-lda', config: { topics: 3, iterations: 200, epsilonL: 0.5, clip: 1, beta: 1 }, corpus, neighbour: { kind: 'replace-word', document: 0, position: 0, word: 30 }, view: 'white-box' },
      claim: { epsilon: 1, delta: 0 },
      runs: 160,
      seed: 'queue-kill',
      chunkSize: 20,
      selectionFraction: 0.25,
    }
    const started = /started (\S+)/
    const from = a.log.length // this audit's chunks only
    const pending = auditTrainer({ ...spec, executor: queueExecutor(url, { pollMs: 50 }) })
    await waitFor('worker A to start a chunk of this audit', () => started.test(a.log.slice(from)), 60_000)
    const killed = (started.exec(a.log.slice(from)) as RegExpExecArray)[1] as string
    a.child.kill('SIGKILL')
    await new Promise((r) => a.child.once('exit', r))
    expect(a.log).not.toContain(`finished ${killed}`) // it died inside the chunk
    const r = await pending
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(r.right).toEqual(await local(spec))
    expect(b.log).toContain(`finished ${killed}`) // re-run by the survivor
    // Redis saw the job stall once and kept one result for it
    const queue = new Queue(QUEUE_NAME, { connection: connectionFor(url) })
    try {
      const job = await queue.getJob(killed)
      expect(job?.stalledCounter ?? 0).toBeGreaterThanOrEqual(1)
      expect(await job?.getState()).toBe('completed')
    } finally {
      await queue.close()
    }
    // A coordinator restarted on the same audit finds every chunk done: with no worker left alive
    // it still completes, with the same answer (the chunks are jobs named by audit digest and chunk).
    stop(b.child)
    await new Promise((r2) => (b.child.exitCode !== null || b.child.signalCode !== null ? r2(null) : b.child.once('exit', r2)))
    const again = await auditTrainer({ ...spec, executor: queueExecutor(url, { pollMs: 50, idleTimeoutMs: 10_000 }) })
    expect(again).toEqual(r)
  }, 120_000)

  it('a job stamped by another dpaudit version is refused by the workers, not retried, and ends the audit with their reason', async () => {
    // the previous test stopped both workers: two fresh ones for the tests below
    a = startWorker(url, LOCK_MS)
    b = startWorker(url, LOCK_MS)
    const queue = new Queue(QUEUE_NAME, { connection: connectionFor(url) })
    try {
      const job = await queue.add('chunk', { v: 3, version: '0.0.0-other', code: 'x', auditId: 'a'.repeat(24), kind: 'mechanism', task: '{}' }, { attempts: 3 })
      await waitFor('the job to fail', async () => (await job.getState()) === 'failed', 60_000)
      const failed = await queue.getJob(job.id as string)
      expect(failed?.failedReason).toMatch(new RegExp(`dpaudit 0\\.0\\.0-other, this worker is dpaudit ${DPAUDIT_VERSION.replaceAll('.', '\\.')}`))
      expect(failed?.attemptsMade).toBe(1)
    } finally {
      await queue.close()
    }
  }, 60_000)

  it('a plug-in trainer (examples/dp-sgd) audited on the queue: the workers load its module and give the local answer bit for bit', async () => {
    const file = join(ROOT, 'examples/dp-sgd/trainer-audit.json')
    const args = [file, '--runs', '200', '--seed', 'queue-plugin', '--json', '--quiet']
    const [fromA, fromB] = [a.log.length, b.log.length]
    const [queued, local] = [await cli(['audit', '--queue', url, ...args]).done, await cli(['audit', ...args]).done]
    expect(queued.err).toBe('')
    expect(local.err).toBe('')
    expect(a.log.slice(fromA) + b.log.slice(fromB)).toMatch(/finished /) // the chunks ran on the workers
    expect(queued.code).toBe(local.code)
    const [q, l] = [parseJson(queued.out), parseJson(local.out)]
    if (E.isLeft(q) || E.isLeft(l)) throw new Error('not JSON')
    const result = (d: unknown): unknown => (d as { result: unknown }).result
    expect((result(q.right) as { subject: { name: string } }).subject.name).toBe('dp-sgd-logreg')
    expect(stringifyJson(result(q.right))).toBe(stringifyJson(result(l.right)))
  }, 180_000)

  it('a job whose plug-in module differs from the worker\'s copy, or is missing there, is refused with the file named, not retried', async () => {
    const store = new Redis(url)
    const queue = new Queue(QUEUE_NAME, { connection: connectionFor(url) })
    try {
      for (const [module, reason] of [
        [pathToFileURL(join(ROOT, 'examples/dp-sgd-logreg.mjs')).href, /the trainer module \S+dp-sgd-logreg\.mjs here hashes to [0-9a-f]{16} \(the file and the modules it imports by relative path\), the coordinator's to 0{16}: install the same file at the same path on every machine/],
        [pathToFileURL(join(dir, 'elsewhere.mjs')).href, /the trainer module \S+elsewhere\.mjs cannot be read here \(ENOENT\), the coordinator's to 0{16}/],
      ] as const) {
        const auditId = module.endsWith('elsewhere.mjs') ? 'e'.repeat(24) : 'f'.repeat(24)
        const game = { trainer: module, config: {}, corpus, neighbour: { kind: 'add-document', words: [30] }, view: 'white-box' }
        await store.set(subjectKey(auditId), stringifyJson({ kind: 'trainer', game, seed: 's', features: [] }), 'EX', 600)
        const job = await queue.add('chunk', { v: 3, version: DPAUDIT_VERSION, code: '0'.repeat(16), auditId, kind: 'trainer', task: '{}' }, { attempts: 3 })
        await waitFor('the job to fail', async () => (await job.getState()) === 'failed', 60_000)
        const failed = await queue.getJob(job.id as string)
        expect(failed?.failedReason).toMatch(reason)
        expect(failed?.attemptsMade).toBe(1)
      }
    } finally {
      await queue.close()
      store.disconnect()
    }
  }, 90_000)

  it('a mechanism audit through the queue gives the local answer bit for bit', async () => {
    const spec = zooAuditSpec('histogram-inverted', { trials: 60_000, seed: 'queue-mechanism', chunkSize: 7_000 })
    if (E.isLeft(spec)) throw new Error(JSON.stringify(spec.left))
    const pairs = spec.right.pairs as ReadonlyArray<NeighbourPair<unknown>>
    const executor = mechanismQueue(url, { kind: 'mechanism', ref: spec.right.mechanism as MechanismRef, pairs }, { pollMs: 50 })
    const queued = await auditMechanismAsync({ ...spec.right, executor })
    await executor.close()
    const local = auditMechanism(spec.right)
    if (E.isLeft(queued) || E.isLeft(local)) throw new Error('audit failed')
    expect(stringifyJson(queued.right)).toBe(stringifyJson(local.right))
  }, 120_000)

  it('SIGTERM to a queued trainer audit stops it after the batch in flight: one line, 143; the same command then reuses the finished chunks and gives the local answer', async () => {
    const spec: TrainerAuditSpec = {
      game: { trainer: 'hdp-lda', config: { topics: 3, iterations: 25, epsilonL: 0.5, clip: 1, beta: 1 }, corpus, neighbour: { kind: 'replace-word', document: 0, position: 0, word: 30 }, view: 'white-box' },
      claim: { epsilon: 1, delta: 0 },
      runs: 240,
      seed: 'queue-signal',
      chunkSize: 10,
    }
    const file = join(dir, 'signal.json')
    writeFileSync(file, JSON.stringify(spec))
    // --workers 2: batches of 8 chunks, so the audit has several batches to stop between
    const args = ['audit', '--queue', url, file, '--workers', '2', '--json', '--quiet']
    const [fromA, fromB] = [a.log.length, b.log.length]
    const first = cli(args)
    await waitFor('a chunk of this audit to finish', () => /finished /.test(a.log.slice(fromA) + b.log.slice(fromB)), 60_000)
    first.child.kill('SIGTERM')
    const r1 = await first.done
    expect(r1.code).toBe(143)
    expect(r1.err.trim().split('\n')).toHaveLength(1)
    expect(r1.err).toMatch(/^audit: stopped by SIGTERM after [\d,]+ of 240 trials; the finished chunks stay on the queue at redis:\/\/127\.0\.0\.1:\d+: run the same command to reuse them/)
    expect(r1.out).toBe('') // no result for an unfinished run
    const r2 = await cli(args).done
    const expected = await local(spec)
    expect(r2.err).toBe('')
    expect(r2.code).toBe(expected.verdict === 'violation' ? 3 : expected.verdict === 'inconclusive' ? 4 : 0)
    const parsed = parseJson(r2.out)
    expect(E.isRight(parsed) && (parsed.right as { result: unknown }).result).toEqual(JSON.parse(stringifyJson(expected)))
  }, 180_000)

  it('SIGTERM ends an idle worker within a second', async () => {
    const w = startWorker(url, LOCK_MS)
    await waitFor('the worker to wait for chunks', () => /waiting for chunks/.test(w.log), 60_000)
    expect(w.log).not.toMatch(/:[^/@]*@/) // no credentials in the log (none here; the URL is shown redacted)
    const t0 = Date.now()
    w.child.kill('SIGTERM')
    await new Promise((r) => (w.child.exitCode !== null || w.child.signalCode !== null ? r(null) : w.child.once('exit', r)))
    expect(Date.now() - t0).toBeLessThan(1000)
  }, 90_000)

  it('Redis lost mid-run: the coordinator stops within --timeout with one line, exit 1, the checkpoint kept; the resumed audit gives the local answer', async () => {
    const checkpoint = join(dir, 'lost.ckpt')
    const args = ['audit', '--queue', url, 'zoo:histogram-inverted', '--trials', '600000', '--seed', 'lost', '--checkpoint', checkpoint, '--json', '--quiet']
    const first = cli([...args, '--timeout', '3'])
    await waitFor('the checkpoint (selection done)', () => existsSync(checkpoint), 90_000)
    redis.kill('SIGKILL')
    const lostAt = Date.now()
    const r1 = await first.done
    expect(Date.now() - lostAt).toBeLessThan(3_000 + 5_000) // the timeout, and a loaded machine's slack
    expect(r1.code).toBe(1)
    expect(r1.err.trim().split('\n')).toHaveLength(1)
    expect(r1.err).toMatch(/^audit: Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/)
    expect(existsSync(checkpoint)).toBe(true)
    redis = startRedis()
    await waitFor('redis-server again', async () => (await pingRedis(url, 500)) === null)
    const r2 = await cli(args).done
    const local = auditMechanism((zooAuditSpec('histogram-inverted', { trials: 600_000, seed: 'lost' }) as E.Right<never>).right)
    if (E.isLeft(local)) throw new Error('local audit failed')
    expect(r2.err).toBe('')
    const parsed = parseJson(r2.out)
    expect(E.isRight(parsed) && (parsed.right as { result: unknown }).result).toEqual(JSON.parse(stringifyJson(local.right)))
  }, 240_000)
})
