/**
 * A sweep worker thread (started by ./pool.ts): it waits on the shared control block for a
 * command, runs its part of it (./part.ts) on the shared arrays of the fit it is bound to and counts
 * itself done. Its only
 * static import is node:worker_threads, so that it registers its exit signal before anything can
 * fail to load: a worker whose module graph does not load reports it and exits instead of leaving
 * the calling thread waiting.
 *
 * @module
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import type { Attached, SweepArrays } from './part.js'

const { control, part, port } = workerData as { control: Int32Array; part: number; port: MessagePort }
// slots of part.ts's control block (kept literal here: part.js is not loaded yet)
const GEN = 0
const DONE = 1
const FAILED = 2
const READY = 3
const EXITED = 16
const done = (): void => {
  Atomics.add(control, DONE, 1)
  Atomics.notify(control, DONE)
}
process.on('exit', () => {
  Atomics.store(control, EXITED + part, 1)
  done()
  Atomics.notify(control, READY)
})
const fail = (e: unknown): void => {
  port.postMessage(`sweep worker ${part}: ${e instanceof Error ? e.message : String(e)}`)
  Atomics.store(control, FAILED, 1)
}

try {
  const { makePart, readCommand } = await import('./part.js')
  // bound to a fit's arrays by its 'bind' command (a parked thread serves the next fit the same way)
  let run: ReturnType<typeof makePart> | undefined
  let attached: Attached = {}
  /** The messages posted before the current command: a fit's arrays, or tables to attach. */
  const receive = (): void => {
    for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
      const message = m.message as Attached | { arrays: Omit<SweepArrays, 'control'> }
      if ('arrays' in message) {
        run = makePart({ ...message.arrays, control }, part)
        attached = {}
      } else Object.assign(attached, message)
    }
  }
  let seen = Atomics.load(control, GEN)
  Atomics.add(control, READY, 1)
  Atomics.notify(control, READY)
  for (;;) {
    Atomics.wait(control, GEN, seen)
    seen = Atomics.load(control, GEN)
    const c = readCommand(control)
    if (c.type === 'close') break
    try {
      if (c.type === 'attach' || c.type === 'bind') receive()
      else if (run === undefined) throw new Error('a command before the arrays were bound')
      else run(c, attached)
    } catch (e) {
      fail(e)
    }
    done()
  }
} catch (e) {
  fail(e)
}
port.close()
