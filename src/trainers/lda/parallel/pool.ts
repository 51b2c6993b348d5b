/**
 * The threads of a parallel snapshot sweep: the calling thread runs part 0 of each command and
 * W − 1 worker threads (./worker.ts) the others, all on the shared arrays of ./part.ts. A command
 * is a plain synchronous call: the calling thread writes it into the control block, wakes the
 * workers (Atomics.notify), runs its own part and blocks (Atomics.wait) until every worker has
 * counted itself done — so a trainer's `fit` stays a function from its inputs to a result, and the
 * release gate and the ledger never leave the calling thread.
 *
 * Workers run the compiled worker.js beside this module (dist/); from the TypeScript sources
 * (vitest) they load worker.ts through the test suite's TypeScript hooks (test/cli/ts-hooks.mjs).
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../../core/error.js'
import { type Command, DONE, EXITED, FAILED, GEN, makePart, READY, type SweepArrays, writeCommand } from './part.js'

export interface SweepPool {
  /** Threads sweeping, the calling one included. */
  readonly parts: number
  /** Runs `c` on every part and returns when all are done (throws if a worker failed). */
  readonly run: (c: Command) => void
  /** Gives every part the document noise of doc-noise sweeps (shared when there are workers). */
  readonly attachDocNoise: (docNoise: Float64Array) => void
  /** Ends the worker threads. */
  readonly close: () => void
}

/** How long worker threads may take to load. */
const STARTUP_MS = 60_000

/** The worker script: compiled JavaScript, else the TypeScript source with the test suite's hooks. */
const workerScript = (): E.Either<DpError, { url: URL; execArgv: string[] | undefined }> => {
  const js = new URL('./worker.js', import.meta.url)
  if (existsSync(fileURLToPath(js))) return E.right({ url: js, execArgv: undefined })
  const ts = new URL('./worker.ts', import.meta.url)
  const hooks = new URL('../../../../test/cli/ts-register.mjs', import.meta.url)
  if (existsSync(fileURLToPath(ts)) && existsSync(fileURLToPath(hooks))) return E.right({ url: ts, execArgv: ['--import', hooks.href] })
  return E.left(invalidParameter('workers', undefined, `sweeping on worker threads needs the compiled worker ${fileURLToPath(js)}: run \`npm run build\`, or train with --workers 1`))
}

export const startSweepPool = (arrays: SweepArrays, parts: number): E.Either<DpError, SweepPool> => {
  const control = arrays.control
  const own = makePart(arrays, 0)
  let docNoise: Float64Array | undefined
  if (parts === 1)
    return E.right({
      parts,
      run: (c) => own(c, docNoise),
      attachDocNoise: (n) => {
        docNoise = n
      },
      close: () => undefined,
    })
  const script = workerScript()
  if (E.isLeft(script)) return script
  const workers: Worker[] = []
  const ports: MessagePort[] = []
  const close = (): void => {
    writeCommand(control, { type: 'close' })
    Atomics.add(control, GEN, 1)
    Atomics.notify(control, GEN)
    for (const p of ports) p.close()
    workers.length = 0
  }
  const failure = (): string | undefined => {
    for (let j = 1; j < parts; j++) if (control[EXITED + j] === 1) return `sweep worker ${j} exited`
    return undefined
  }
  const messages = (): string => ports.map((p) => receiveMessageOnPort(p)?.message).filter((m) => m !== undefined).join('; ')
  try {
    for (let j = 1; j < parts; j++) {
      const { port1, port2 } = new MessageChannel()
      const w = new Worker(script.right.url, {
        workerData: { arrays, part: j, port: port2 },
        transferList: [port2],
        ...(script.right.execArgv === undefined ? {} : { execArgv: script.right.execArgv }),
      })
      w.on('error', () => undefined) // reported through the control block and the port
      w.unref()
      workers.push(w)
      ports.push(port1)
    }
  } catch (e) {
    close()
    return E.left(invalidParameter('workers', parts, `cannot start worker threads: ${e instanceof Error ? e.message : String(e)}`))
  }
  const deadline = Date.now() + STARTUP_MS
  for (;;) {
    const ready = Atomics.load(control, READY)
    if (ready === parts - 1) break
    const bad = failure() ?? (control[FAILED] === 1 ? messages() : undefined)
    if (bad !== undefined || Date.now() > deadline) {
      const why = bad ?? `${parts - 1 - ready} sweep worker(s) did not start within ${STARTUP_MS / 1000} s`
      close()
      return E.left(invalidParameter('workers', parts, `cannot start worker threads: ${why}`))
    }
    Atomics.wait(control, READY, ready, 100)
  }
  const run = (c: Command): void => {
    if (workers.length === 0) throw new Error('the sweep pool is closed')
    Atomics.store(control, DONE, 0)
    writeCommand(control, c)
    Atomics.add(control, GEN, 1)
    Atomics.notify(control, GEN)
    own(c, docNoise)
    for (;;) {
      const n = Atomics.load(control, DONE)
      if (n >= parts - 1) break
      const bad = failure()
      if (bad !== undefined) throw new Error(`${bad} during a sweep: ${messages()}`)
      Atomics.wait(control, DONE, n, 1000)
    }
    if (control[FAILED] === 1) {
      const m = messages()
      close()
      throw new Error(m)
    }
  }
  return E.right({
    parts,
    run,
    attachDocNoise: (n) => {
      docNoise = n
      for (const p of ports) p.postMessage({ docNoise: n })
      run({ type: 'attach' })
    },
    close,
  })
}
