/**
 * The threads of a parallel fit: the calling thread runs part 0 of each command and W − 1 worker
 * threads (./worker.ts) the others, all on the shared arrays of a part module — the snapshot sweep's
 * (./part.ts) or private SVI's E-step (../../svi/e-step-part.ts). A command is a plain synchronous
 * call: the calling thread writes it into the control block, wakes the workers (Atomics.notify),
 * runs its own part and blocks (Atomics.wait) until every worker has acknowledged the command's generation — so a
 * trainer's `fit` stays a function from its inputs to a result, and the release gate and the ledger
 * never leave the calling thread.
 *
 * A part module (`PartModule`) exports `makePart(arrays, j)` (part j's work for each command) and
 * `readCommand(words)`; the pool owns the control block's header (generation, done count, failure,
 * readiness, the pool's own operation) and hands the module COMMAND_WORDS slots for its command.
 *
 * Across fits: closing a pool parks its workers (waiting on the control block, unreferenced) instead
 * of ending them, and the next fit on as many threads binds its arrays to them: a process that fits
 * several times (an audit, a bench) starts its threads, and compiles their kernels, once, whatever
 * part module each fit binds them to (a worker imports a module the first time it is bound to it).
 * One pool per number of threads is parked; it ends after PARKED_MS unused (no CPU while parked: its threads
 * block in Atomics.wait), when another of its size replaces it, or when the process exits.
 *
 * Before a fit: `prestartPool` starts a pool's threads, loading a part module, without waiting for
 * them, and parks them; the fit that takes them waits only for what is left of their start. A command
 * that knows its thread count before it reads its corpus (dpaudit train --workers W) starts them first,
 * so the threads' start (Node's, the module graph's, the WebAssembly compile) runs while the corpus is read.
 *
 * Workers run the compiled worker.js beside this module (dist/); from the TypeScript sources
 * (vitest) they load worker.ts through the test suite's TypeScript hooks (test/cli/ts-hooks.mjs).
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../../core/error.js'
import { startWorker } from '../../../core/worker-exec-argv.js'

/** Slots of the control block's header (./worker.ts repeats them literally: it loads nothing before it runs). */
const GEN = 0 // bumped by the calling thread to start a command
const DONE = 1 // bumped by a worker that finished a command (or exited): what the calling thread waits on
const FAILED = 2 // a worker's command threw (its message follows on its port)
const READY = 3 // workers that have loaded and wait for commands
const OP = 4 // the pool's operation: RUN, BIND or CLOSE
/** The part module's command: COMMAND_WORDS slots from COMMAND, written and read by the module. */
const COMMAND = 5
export const COMMAND_WORDS = 12
/** Per worker: 1 once its thread has exited. */
const EXITED = COMMAND + COMMAND_WORDS
/**
 * Per worker (from EXITED + parts): the generation whose operation it finished. An operation is complete
 * when every worker has acknowledged ITS generation, not when DONE reaches a count: a count can be
 * met by a late or extra "done" from an earlier operation, and then the calling thread runs ahead of
 * a worker (AD-LDA's merge reading a part mid-sweep, a part copying the counts mid-merge).
 */
const ackOf = (parts: number): number => EXITED + parts
const controlLength = (parts: number): number => EXITED + 2 * parts
const RUN = 0
const BIND = 1
const CLOSE = 2

/**
 * The work of a parallel fit: the module every thread loads (`url`: the compiled .js beside it; from
 * the TypeScript sources the test suite's hooks resolve it to the .ts), which exports `makePart` and
 * `readCommand`; the calling thread uses the same functions, passed here.
 */
export interface PartModule<A, C, T extends object> {
  readonly url: URL
  /** Part j of every command, on the fit's arrays `A` and the tables attached so far. */
  readonly makePart: (arrays: A, j: number) => (c: C, attached: T) => void
  /** Writes a command into its COMMAND_WORDS slots (the module's `readCommand` reads it back). */
  readonly writeCommand: (words: Int32Array, c: C) => void
}

/** The codec of a part module whose commands are names only: the name's index in word 0. */
export const namedCommands = <C extends string>(what: string, names: ReadonlyArray<C>) => ({
  readCommand: (words: Int32Array): C => {
    const c = names[words[0] as number]
    if (c === undefined) throw new RangeError(`unknown ${what} command ${words[0]}`)
    return c
  },
  writeCommand: (words: Int32Array, c: C): void => {
    words[0] = names.indexOf(c)
  },
})

export interface Pool<C, T extends object> {
  /** Threads working, the calling one included. */
  readonly parts: number
  /** Runs `c` on every part and returns when all are done (throws if a worker failed). */
  readonly run: (c: C) => void
  /**
   * Gives every part these tables (shared when there are workers: their handles are posted, their
   * contents are not copied) for the commands that follow; other attached tables stay. A shared
   * table already attached under the same name is not posted again (attaching it each iteration costs nothing).
   */
  readonly attach: (tables: T) => void
  /** Releases the worker threads (parked for the next fit, see the module comment); the pool is unusable after it. */
  readonly close: () => void
}

/**
 * Wall time this process has spent inside pool commands (every pool, every part's work, the waits for
 * the slowest part included): the parallel part of the fits, which bench/lda.bench.mjs and
 * bench/svi.bench.mjs subtract from a 1-thread fit's time to measure the serial fraction (release,
 * aggregation, the M-step, the gate's calls).
 */
let commandMs = 0
export const sweepCommandMs = (): number => commandMs

/**
 * How long a thread that waits for the others (the calling thread for the workers' acknowledgements, a
 * worker for the next command) first watches the control block before it blocks in Atomics.wait, when
 * every thread has a core of its own (`spinMsFor`). A private Gibbs fit runs two or three commands an
 * iteration (the noise, q on a shared memory, the sweep) of a few milliseconds each on Brown; waking a
 * blocked thread took 30–50 µs on the 2-core VM, paid twice a command on the critical path (the
 * worker's start, the calling thread's return). Watching for up to 0.2 ms costs a core that has nothing
 * else to run and keeps both wake-ups off the path (docs/trainers.md, "Two workers: q of their own, and
 * waking the threads"). With more threads than cores a watching thread would take a core from one that
 * works: then it blocks at once.
 */
const SPIN_MS = 0.2
export const spinMsFor = (parts: number, cores: number = availableParallelism()): number => (parts <= cores ? SPIN_MS : 0)

/** How long worker threads may take to load. */
const STARTUP_MS = 60_000
/** How long a parked pool waits for the next fit before its threads end. */
const PARKED_MS = 60_000

/** The worker script: compiled JavaScript, else the TypeScript source with the test suite's hooks (flags after the parent's: core/worker-exec-argv.ts). */
const workerScript = (): E.Either<DpError, { url: URL; flags: string[] }> => {
  const js = new URL('./worker.js', import.meta.url)
  if (existsSync(fileURLToPath(js))) return E.right({ url: js, flags: [] })
  const ts = new URL('./worker.ts', import.meta.url)
  const hooks = new URL('../../../../test/cli/ts-register.mjs', import.meta.url)
  if (existsSync(fileURLToPath(ts)) && existsSync(fileURLToPath(hooks))) return E.right({ url: ts, flags: ['--import', hooks.href] })
  return E.left(invalidParameter('workers', undefined, `training on worker threads needs the compiled worker ${fileURLToPath(js)}: run \`npm run build\`, or train with --workers 1`))
}

/** Worker threads waiting on their control block (or still starting: `awaitReady`): `parts` − 1 of them. */
interface Threads {
  readonly parts: number
  readonly control: Int32Array
  readonly workers: Worker[]
  readonly ports: MessagePort[]
}

/** Tells the threads to exit (they leave their loop; nothing waits for them). */
const endThreads = (t: Threads): void => {
  t.control[OP] = CLOSE
  Atomics.add(t.control, GEN, 1)
  Atomics.notify(t.control, GEN)
  for (const p of t.ports) p.close()
  t.workers.length = 0
}

/** Parked threads by their number of parts (one pool per size: a bench alternates sizes). */
const parked = new Map<number, { threads: Threads; timer: ReturnType<typeof setTimeout> }>()
const endParked = (parts: number): void => {
  const p = parked.get(parts)
  if (p === undefined) return
  clearTimeout(p.timer)
  endThreads(p.threads)
  parked.delete(parts)
}
const endAllParked = (): void => {
  for (const parts of [...parked.keys()]) endParked(parts)
}
/**
 * For the pool's test only: wakes the parked workers of a `parts`-thread pool without a new generation —
 * what Node's `Atomics.wait` was seen to do now and then (see `ackOf`). A worker must wait again, not
 * run its last command a second time.
 */
export const wakeParkedWithoutCommand = (parts: number): number => {
  const p = parked.get(parts)
  return p === undefined ? 0 : Atomics.notify(p.threads.control, GEN)
}
let exitHook = false
const park = (t: Threads): void => {
  endParked(t.parts)
  const timer = setTimeout(() => endParked(t.parts), PARKED_MS)
  timer.unref()
  parked.set(t.parts, { threads: t, timer })
  if (!exitHook) {
    exitHook = true
    process.once('exit', endAllParked)
  }
}

const exitedWorker = (t: Threads): string | undefined => {
  for (let j = 1; j < t.parts; j++) if (t.control[EXITED + j] === 1) return `worker ${j} exited`
  return undefined
}
const messages = (t: Threads): string =>
  t.ports
    .map((p) => receiveMessageOnPort(p)?.message)
    .filter((m) => typeof m === 'string')
    .join('; ')

/**
 * `parts` − 1 new worker threads, started and not waited for (`awaitReady`); each imports `preload`
 * (a part module) before it counts itself ready, so that the fit that binds it finds it loaded.
 */
const launchThreads = (parts: number, preload?: URL): E.Either<DpError, Threads> => {
  const script = workerScript()
  if (E.isLeft(script)) return script
  const t: Threads = { parts, control: new Int32Array(new SharedArrayBuffer(4 * controlLength(parts))), workers: [], ports: [] }
  try {
    for (let j = 1; j < parts; j++) {
      const { port1, port2 } = new MessageChannel()
      const slots = { GEN, DONE, FAILED, READY, OP, COMMAND, COMMAND_WORDS, EXITED, ACK: ackOf(parts), RUN, BIND, CLOSE }
      const w = startWorker(
        script.right.url,
        { workerData: { control: t.control, part: j, port: port2, slots, spinMs: spinMsFor(parts), ...(preload === undefined ? {} : { preload: preload.href }) }, transferList: [port2] },
        script.right.flags,
      )
      w.on('error', () => undefined) // reported through the control block and the port
      w.unref()
      t.workers.push(w)
      t.ports.push(port1)
    }
  } catch (e) {
    endThreads(t)
    return E.left(invalidParameter('workers', parts, `cannot start worker threads: ${e instanceof Error ? e.message : String(e)}`))
  }
  return E.right(t)
}

/** Waits until the threads of `t` have loaded (at most STARTUP_MS more); ends them if they cannot. */
const awaitReady = (t: Threads): E.Either<DpError, Threads> => {
  const { parts } = t
  const deadline = Date.now() + STARTUP_MS
  for (;;) {
    const ready = Atomics.load(t.control, READY)
    if (ready === parts - 1) return E.right(t)
    const bad = exitedWorker(t) ?? (t.control[FAILED] === 1 ? messages(t) : undefined)
    if (bad !== undefined || Date.now() > deadline) {
      const why = bad ?? `${parts - 1 - ready} worker(s) did not start within ${STARTUP_MS / 1000} s`
      endThreads(t)
      return E.left(invalidParameter('workers', parts, `cannot start worker threads: ${why}`))
    }
    Atomics.wait(t.control, READY, ready, 100)
  }
}

/**
 * The entries of `t` the workers do not hold yet: a typed array over shared memory already attached
 * under the same name is left out (a worker's view of it already sees its current contents; posting
 * it again would only make each worker a new view); anything else is posted again, since a copy may
 * have gone stale. Undefined when nothing is left.
 */
const unheld = <T extends object>(attached: T, t: T): Partial<T> | undefined => {
  const fresh: Partial<T> = {}
  let any = false
  for (const [k, v] of Object.entries(t) as [keyof T, T[keyof T]][]) {
    if (v === attached[k] && ArrayBuffer.isView(v) && v.buffer instanceof SharedArrayBuffer) continue
    fresh[k] = v
    any = true
  }
  return any ? fresh : undefined
}

/**
 * Starts the threads of a `parts`-thread pool that will run `module`, without waiting for them, and
 * parks them for the next fit on as many threads (see the module comment). Nothing to do for one
 * part, or when such a pool is parked already; a start that fails is reported by the fit that takes it.
 */
export const prestartPool = (module: { readonly url: URL }, parts: number): void => {
  if (parts < 2 || parked.has(parts)) return
  const t = launchThreads(parts, module.url)
  if (E.isRight(t)) park(t.right)
}

/**
 * The pool of a fit of `module` on `parts` threads over `shared` (the parked threads when there are
 * as many, else new ones). With several parts every typed array in `shared` and in what is attached
 * must live in a SharedArrayBuffer (the others would be copied: a worker's writes would be lost).
 */
export const startPool = <A extends object, C, T extends object>(module: PartModule<A, C, T>, shared: A, parts: number): E.Either<DpError, Pool<C, T>> => {
  if (parts === 1) return E.right(onePartPool(module, shared))
  return E.flatMap((threads: Threads) => threadPool(module, shared, threads))(takeThreads(parts, module.url))
}

/** A pool of one part: the calling thread runs every command itself. */
const onePartPool = <A extends object, C, T extends object>(module: PartModule<A, C, T>, shared: A): Pool<C, T> => {
  const own = module.makePart(shared, 0)
  const attached = {} as T
  return {
    parts: 1,
    run: (c) => {
      const t0 = performance.now()
      own(c, attached)
      commandMs += performance.now() - t0
    },
    attach: (t) => {
      Object.assign(attached, t)
    },
    close: () => undefined,
  }
}

/** The threads of a `parts`-part pool, ready: the parked ones when there are as many, else new ones (loading `url`). */
const takeThreads = (parts: number, url: URL): E.Either<DpError, Threads> => {
  const waiting = parked.get(parts)
  if (waiting !== undefined && exitedWorker(waiting.threads) === undefined) {
    clearTimeout(waiting.timer)
    parked.delete(parts)
    return awaitReady(waiting.threads)
  }
  endParked(parts)
  return E.flatMap(awaitReady)(launchThreads(parts, url))
}

/** A pool on `threads` (their part 0 is the calling thread): binds them to the fit's module and arrays. */
const threadPool = <A extends object, C, T extends object>(module: PartModule<A, C, T>, shared: A, threads: Threads): E.Either<DpError, Pool<C, T>> => {
  const { control, ports, parts } = threads
  const words = control.subarray(COMMAND, COMMAND + COMMAND_WORDS)
  const ack = ackOf(parts)
  const spinMs = spinMsFor(parts)
  const acknowledged = (gen: number): boolean => {
    for (let j = 1; j < parts; j++) if (Atomics.load(control, ack + j) !== gen) return false
    return true
  }
  const own = module.makePart(shared, 0)
  const attached = {} as T
  let open = true
  const close = (): void => {
    if (!open) return
    open = false
    if (control[FAILED] === 1 || exitedWorker(threads) !== undefined) endThreads(threads)
    else park(threads)
  }
  /** Starts operation `op` on the workers (`c`, when it runs a command, on the calling thread too) and waits for them. */
  const operate = (op: number, c?: C): void => {
    if (!open) throw new Error('the worker pool is closed')
    const t0 = performance.now()
    Atomics.store(control, DONE, 0)
    control[OP] = op
    if (c !== undefined) module.writeCommand(words, c)
    const gen = (Atomics.add(control, GEN, 1) + 1) | 0
    Atomics.notify(control, GEN)
    // Part 0 may throw (a trap in its sweep, a bad table): the workers are still running the command
    // then, so wait for them before rethrowing. Threads parked while busy would finish this command
    // during the next fit's BIND and count as its "done": that fit would run ahead of its workers
    // (its merge reading parts mid-sweep, its parts built on counts mid-merge), each operation
    // completing on the previous one's count.
    let ownFailure: { readonly e: unknown } | undefined
    if (c !== undefined)
      try {
        own(c, attached)
      } catch (e) {
        ownFailure = { e }
      }
    let watched = false
    for (;;) {
      const n = Atomics.load(control, DONE)
      if (acknowledged(gen)) break
      const bad = exitedWorker(threads)
      if (bad !== undefined) {
        const m = messages(threads)
        close()
        throw new Error(`${bad} during a command: ${m}`)
      }
      if (!watched && spinMs > 0) {
        // watch the acknowledgements briefly before blocking: the last worker is usually about to finish (SPIN_MS)
        watched = true
        const t1 = performance.now()
        while (!acknowledged(gen) && performance.now() - t1 < spinMs);
        continue
      }
      Atomics.wait(control, DONE, n, 1000)
    }
    if (control[FAILED] === 1) {
      const m = messages(threads)
      close()
      throw new Error(m)
    }
    if (ownFailure !== undefined) throw ownFailure.e
    commandMs += performance.now() - t0
  }
  const post = (message: unknown): void => {
    for (const p of ports) p.postMessage(message)
  }
  try {
    // the fit's module and arrays, bound to the threads (the SharedArrayBuffers are shared, not copied);
    // arrays that cannot be posted (a function, say) throw here, after the threads were taken from the
    // parked ones or started: they are ended, not leaked (a failed BIND has already closed them)
    post({ module: module.url.href, arrays: shared })
    operate(BIND)
  } catch (e) {
    if (open) {
      open = false
      endThreads(threads)
    }
    return E.left(invalidParameter('workers', parts, `cannot start worker threads: ${e instanceof Error ? e.message : String(e)}`))
  }
  return E.right({
    parts,
    run: (c) => operate(RUN, c),
    // no operation of its own: each worker receives what was posted when the next operation starts
    attach: (t) => {
      const fresh = unheld(attached, t)
      Object.assign(attached, t)
      if (fresh !== undefined) post(fresh)
    },
    close,
  })
}
