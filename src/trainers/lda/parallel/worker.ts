/**
 * A worker thread of ./pool.ts: it waits on the shared control block for an operation, and runs
 * its part of each command with the part module of the fit it is bound to (the snapshot sweep's
 * ./part.ts, private SVI's E-step, …: the module's URL comes with the fit's arrays), then counts
 * itself done. Its only static import is node:worker_threads, so that it registers its exit signal
 * before anything can fail to load: a worker whose module graph does not load reports it and exits
 * instead of leaving the calling thread waiting.
 *
 * @module
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads'

/** The control block's slots, as ./pool.ts lays them out (posted here: this thread imports nothing first). */
interface Slots {
  readonly GEN: number
  readonly DONE: number
  readonly FAILED: number
  readonly READY: number
  readonly OP: number
  readonly COMMAND: number
  readonly COMMAND_WORDS: number
  readonly EXITED: number
  readonly ACK: number
  readonly RUN: number
  readonly BIND: number
  readonly CLOSE: number
}
/** What a part module exports (./pool.ts `PartModule`). */
interface PartExports {
  readonly makePart: (arrays: object, j: number) => (c: unknown, attached: object) => void
  readonly readCommand: (words: Int32Array) => unknown
}

const { control, part, port, slots, spinMs, preload } = workerData as { control: Int32Array; part: number; port: MessagePort; slots: Slots; spinMs: number; preload?: string }
const { GEN, DONE, FAILED, READY, OP, COMMAND, COMMAND_WORDS, EXITED, ACK, BIND, CLOSE } = slots
const words = control.subarray(COMMAND, COMMAND + COMMAND_WORDS)
/** Counts this thread done with generation `gen` (acknowledged in its own slot: see ./pool.ts). */
const done = (gen?: number): void => {
  if (gen !== undefined) Atomics.store(control, ACK + part, gen)
  Atomics.add(control, DONE, 1)
  Atomics.notify(control, DONE)
}
process.on('exit', () => {
  Atomics.store(control, EXITED + part, 1)
  done()
  Atomics.notify(control, READY)
})
const fail = (e: unknown): void => {
  port.postMessage(`worker ${part}: ${e instanceof Error ? e.message : String(e)}`)
  Atomics.store(control, FAILED, 1)
}

// bound to a fit's module and arrays by its BIND operation (a parked thread serves the next fit the same way)
let module: PartExports | undefined
let run: ((c: unknown, attached: object) => void) | undefined
let attached: object = {}
/** The messages posted before the current operation: a fit's module and arrays, or tables to attach. */
const receive = async (): Promise<void> => {
  for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
    const message = m.message as object | { module: string; arrays: object }
    if ('module' in message && 'arrays' in message) {
      module = (await import(message.module)) as PartExports
      run = module.makePart(message.arrays, part)
      attached = {}
    } else Object.assign(attached, message)
  }
}
// read first: a pool ended while this thread loads has bumped it since (its CLOSE is seen below)
let seen = Atomics.load(control, GEN)
// a pool started ahead of its fit loads its part module now (a failure is the BIND's to report)
if (preload !== undefined) await import(preload).catch(() => undefined)
Atomics.add(control, READY, 1)
Atomics.notify(control, READY)
for (;;) {
  // only a new generation starts an operation (a wake without one must not run a command twice)
  // the next command usually follows within a fraction of a millisecond: watch for it before blocking (pool.ts `SPIN_MS`)
  const t0 = performance.now()
  while (Atomics.load(control, GEN) === seen && performance.now() - t0 < spinMs);
  while (Atomics.load(control, GEN) === seen) Atomics.wait(control, GEN, seen)
  seen = Atomics.load(control, GEN)
  const op = control[OP] as number
  if (op === CLOSE) break
  try {
    // what was posted before this operation (a fit's module and arrays, attached tables): a posted
    // message is in the port's queue when postMessage returns, before the operation's GEN bump, so
    // attaching needs no operation of its own (a round trip through every thread, twice an iteration)
    await receive()
    // BIND: receiving was the whole operation
    if (op !== BIND) {
      if (module === undefined || run === undefined) throw new Error('a command before the fit was bound')
      run(module.readCommand(words), attached)
    }
  } catch (e) {
    fail(e)
  }
  done(seen)
}
port.close()
