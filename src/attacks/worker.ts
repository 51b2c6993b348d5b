/**
 * Worker-thread entry for the audit pool (compiled to dist/attacks/worker.js). It loads the
 * mechanism by reference, then serves batches (pool.ts `runShared`): it takes the next item
 * through the batch's shared cursor, runs it — `runChunk`, the same function the in-process
 * executor calls, or a family fit — and posts the answer, until the cursor is spent; then it posts
 * 'idle', the one message that wakes the calling thread.
 *
 * Start-up (issue 23): the thread imports only the hot loop (trials.js) at once. The family fits
 * (search.js) and the zoo's analytic Gaussian pull in @stdlib's special functions, about 400 small
 * CommonJS files and most of a thread's 250 ms start; they are imported when first needed (a zoo
 * mechanism loads the analytic Gaussian only if it uses it: zoo/entries.ts `prepareZooEntry`; the
 * fits' module at the first fit), the fits' module in the background as soon as the mechanism is loaded.
 * The verdict's statistics (and their incomplete-beta inverse) run in the calling thread, which
 * loads them while it waits for the fits (pool.ts `fitOnSlots`).
 *
 * @module
 */
import { isMainThread, type MessagePort, workerData } from 'node:worker_threads'
import type { BlackBox } from './output.js'
import type { NeighbourPair } from './pairs.js'
import type { FromWorker, ModuleDescription, ToWorker } from './pool.js'
import type { FitJob } from './search.js'
import type { AttackModel, ChosenAttack } from './score.js'
import { runChunk, type ChunkTask, packedCount, taskInput, unpackTask } from './trials.js'

if (isMainThread) throw new Error('attacks/worker is the entry point of audit worker threads; import dpaudit/attacks instead')

const { port, signal: sab, index } = workerData as { port: MessagePort; signal: SharedArrayBuffer; index: number }
const signal = new Int32Array(sab)

const post = (m: FromWorker): void => {
  port.postMessage(m)
  Atomics.add(signal, 0, 1)
  Atomics.notify(signal, 0)
}

/** The time on a clock all threads share (ms since the epoch, sub-millisecond): the pool's timeline (pool.ts `PoolTimeline`). */
const now = (): number => performance.timeOrigin + performance.now()

/** An answer within a batch: queued on the port without waking the calling thread ('idle' will). */
const answer = (m: FromWorker): void => port.postMessage(m)

/** The family fits' module, imported once, when first wanted. */
let searchModule: Promise<typeof import('./search.js')> | null = null
const search = (): Promise<typeof import('./search.js')> => (searchModule ??= import('./search.js'))

process.on('exit', () => {
  Atomics.store(signal, 1 + index, 1)
  Atomics.add(signal, 0, 1)
  Atomics.notify(signal, 0)
})

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

let mechanism: BlackBox<unknown> | null = null
let pairs: ReadonlyArray<NeighbourPair<unknown>> = []

/** Resolves "a.b" on a module namespace. */
const at = (mod: Record<string, unknown>, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), mod)

const describe = (mod: Record<string, unknown>): ModuleDescription => {
  const host = typeof mod.mechanism === 'function' ? mod : typeof at(mod, 'default.mechanism') === 'function' ? (mod.default as Record<string, unknown>) : mod
  let p = host.pairs
  if (typeof p === 'function') p = [...(p as () => Iterable<unknown>)()]
  return {
    exports: Object.keys(mod),
    pairs: p,
    claim: host.claim,
    name: host.name,
    mechanismExport: typeof mod.mechanism === 'function' ? 'mechanism' : typeof at(mod, 'default.mechanism') === 'function' ? 'default.mechanism' : null,
  }
}

const init = async (m: Extract<ToWorker, { type: 'init' }>): Promise<void> => {
  const ref = m.ref
  if (ref._tag === 'ZooRef') {
    // entries.js, not index.js: only the entry run here loads what it needs (the analytic Gaussian's @stdlib)
    const { prepareZooEntry } = await import('./zoo/entries.js')
    const e = await prepareZooEntry(ref.name)
    if (e === undefined) return post({ type: 'fatal', message: `no zoo mechanism named "${ref.name}"` })
    mechanism = e.make(ref.claim) as BlackBox<unknown>
    return post({ type: 'ready', gen: m.gen, description: null, at: now() })
  }
  let mod: Record<string, unknown>
  try {
    mod = (await import(ref.url)) as Record<string, unknown>
  } catch (e) {
    const ts = /\.(c|m)?ts$/.test(ref.url)
    return post({
      type: 'fatal',
      message: `cannot import the module: ${message(e)}${ts ? ' (TypeScript modules need Node ≥ 22.6 with --experimental-strip-types; on Node 20 compile the module to .js first)' : ''}`,
    })
  }
  let description: ModuleDescription | null = null
  if (m.describe) {
    try {
      description = describe(mod)
    } catch (e) {
      return post({ type: 'fatal', message: `reading the module's exports failed: ${message(e)}` })
    }
  }
  const f = at(mod, ref.exportName)
  if (typeof f !== 'function' && !m.describe) return post({ type: 'fatal', message: `${ref.url} has no function export "${ref.exportName}"` })
  if (typeof f === 'function') mechanism = f as BlackBox<unknown>
  try {
    post({ type: 'ready', gen: m.gen, description, at: now() })
  } catch (e) {
    post({ type: 'fatal', message: `the module's pairs and claim must be plain data (structured-cloneable): ${message(e)}` })
  }
}

/** Runs `work` (which posts its own answer); an exception is posted as the worker's fatal error. False after one. */
const answering = (work: () => void): boolean => {
  try {
    work()
    return true
  } catch (e) {
    post({ type: 'fatal', message: `internal error in a worker: ${message(e)}` })
    return false
  }
}

/**
 * Answers are copied to the calling thread, never transferred. Transferring an ArrayBuffer detaches it,
 * and the first detached buffer of an isolate switches V8's "no buffer was ever detached" assumption off
 * for good: from then on every typed-array access in this thread's optimised code checks its buffer. The
 * estimation loop ran 10.0–10.3 M Laplace trials/s inside its chunks with the answers transferred against
 * 10.4–10.6 M copied, and a 4·10⁷-trial audit 4.23–4.34 s against 4.08–4.14 s on 1 worker, 2.25–2.26 against
 * 2.14–2.21 s on 2 (interleaved processes, 2-core VM); a copy of a chunk's counts or a fit's scores costs
 * far less than that.
 */

/** Runs one chunk and posts its result (a copy: see above); false after a fatal error. */
const runTask = (task: ChunkTask): boolean => {
  const loaded = mechanism
  if (loaded === null) {
    post({ type: 'fatal', message: 'internal: task before the mechanism was loaded' })
    return false
  }
  return answering(() => {
    const t0 = performance.now()
    const r = runChunk(task, loaded, taskInput(pairs, task))
    const t1 = performance.now()
    answer({ type: 'result', result: r, ms: t1 - t0, end: performance.timeOrigin + t1 })
  })
}

/** Runs one family fit and posts it with its duration (its scores copied, as every answer). */
const runFit = (evaluateFamily: typeof import('./search.js').evaluateFamily, id: number, job: FitJob): boolean =>
  answering(() => {
    const t0 = performance.now()
    const fit = evaluateFamily(job)
    const t1 = performance.now()
    answer({ type: 'fitted', id, fit, ms: t1 - t0, end: performance.timeOrigin + t1 })
  })

/** Serves a batch: takes items through the shared cursor until it is spent, then says 'idle'. */
const serve = async (m: Extract<ToWorker, { type: 'run' }>): Promise<void> => {
  const cursor = new Int32Array(m.cursor)
  const answered = m.answered === undefined ? null : new Int32Array(m.answered)
  const packed = m.packed
  const n = packed === undefined ? m.items.length : packedCount(packed)
  const fits = m.kind === 'fit' ? (await search()).evaluateFamily : null
  for (let k = Atomics.add(cursor, 0, 1); k < n; k = Atomics.add(cursor, 0, 1)) {
    const ok =
      fits !== null
        ? runFit(fits, ...(m.items[k] as [number, FitJob]))
        : runTask(packed === undefined ? (m.items[k] as ChunkTask) : unpackTask(packed, k))
    if (!ok) return
    if (answered !== null) Atomics.add(answered, 0, 1)
  }
  post({ type: 'idle', batch: m.batch })
  const first = m.items[0] as [number, FitJob] | undefined
  if (answered !== null && first !== undefined) warmUp(answered, n, first[1])
}

/** The longest a worker warms up (ms): a bound for slow mechanisms; the fits' end stops it sooner. */
const WARM_MAX_MS = 40

/**
 * While other threads still fit (issue 23: on many workers most are idle then), runs discarded
 * estimation trials of the mechanism on the fitted pair, with the threshold score (coordinate 0 for
 * vectors, an empty key table for categories), so that V8 has compiled this thread's estimation loop
 * with the mechanism inlined before estimation starts: a cold thread otherwise runs its first chunk
 * several times slower, and with many threads their compiles queue on V8's few shared compiler
 * threads. Chunks grow from 256 trials; it stops when every fit is answered or after WARM_MAX_MS.
 * Nothing it computes is kept: the audit's result cannot depend on it.
 */
const warmUp = (answered: Int32Array, n: number, job: FitJob): void => {
  const loaded = mechanism
  if (loaded === null) return
  const shape = job.samples.shape
  const model: AttackModel =
    shape.kind === 'vector' ? { family: 'coordinate', index: 0 } : shape.kind === 'category' ? { family: 'histogram', keys: { keys: [], scores: [], other: 0 } } : { family: 'threshold' }
  const attack: ChosenAttack = { shape, model, orientation: 1, threshold: 0 }
  const t0 = performance.now()
  try {
    for (let start = 0, size = 256; Atomics.load(answered, 0) < n && performance.now() - t0 < WARM_MAX_MS; start += size, size = Math.min(2 * size, 16_384)) {
      const task: ChunkTask = { id: -1, phase: 'estimate', pair: job.pair, side: 0, start, end: start + size, seed: WARM_SEED, attack, grid: WARM_GRID }
      if (runChunk(task, loaded, taskInput(pairs, task)).failure !== null) return
    }
  } catch {
    // a mechanism that fails here fails in estimation too, where it is reported
  }
}

const WARM_SEED = [0x5eed, 0x3a41] as const
const WARM_GRID = Array.from({ length: 100 }, (_, i) => i / 10 - 5)

/** What to do with a message; messages are handled in order, each after the previous one's work (a batch waits for the mechanism's import). */
const handle = async (m: ToWorker): Promise<void> => {
  switch (m.type) {
    case 'init':
      await init(m)
      // the fits come after selection's first round: their module loads meanwhile
      if (!m.describe && mechanism !== null) void search().catch(() => undefined)
      return
    case 'pairs':
      pairs = m.pairs
      return
    case 'run':
      return serve(m)
    case 'close':
      port.close()
      return
  }
}

let queue: Promise<void> = Promise.resolve()
port.on('message', (m: ToWorker) => {
  queue = queue.then(() => handle(m)).catch((e: unknown) => post({ type: 'fatal', message: message(e) }))
})
