/**
 * A sweep worker thread (started by ./pool.ts): it waits on the shared control block for a
 * command, runs its part of it (./part.ts) on the shared arrays and counts itself done. Its only
 * static import is node:worker_threads, so that it registers its exit signal before anything can
 * fail to load: a worker whose module graph does not load reports it and exits instead of leaving
 * the calling thread waiting.
 *
 * @module
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import type { SweepArrays } from './part.js'

const { arrays, part, port } = workerData as { arrays: SweepArrays; part: number; port: MessagePort }
const control = arrays.control
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
  const run = makePart(arrays, part)
  let docNoise: Float64Array | undefined
  let seen = Atomics.load(control, GEN)
  Atomics.add(control, READY, 1)
  Atomics.notify(control, READY)
  for (;;) {
    Atomics.wait(control, GEN, seen)
    seen = Atomics.load(control, GEN)
    const c = readCommand(control)
    if (c.type === 'close') break
    try {
      if (c.type === 'attach') docNoise = (receiveMessageOnPort(port)?.message as { docNoise: Float64Array } | undefined)?.docNoise
      else run(c, docNoise)
    } catch (e) {
      fail(e)
    }
    done()
  }
} catch (e) {
  fail(e)
}
port.close()
