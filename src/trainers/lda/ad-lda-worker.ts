/**
 * An AD-LDA worker thread (started by ./ad-lda.ts): it waits on the shared control block for a
 * command, runs its part (./ad-lda-part.ts) and counts itself done. Its only static import is
 * node:worker_threads, so that it registers its exit signal before anything can fail to load.
 *
 * @module
 */
import { type MessagePort, workerData } from 'node:worker_threads'
import type { AdLdaArrays } from './ad-lda-part.js'

const { arrays, part, port } = workerData as { arrays: AdLdaArrays; part: number; port: MessagePort }
const control = arrays.control
// slots of ad-lda-part.ts's control block (literal: that module is not loaded yet)
const GEN = 0
const DONE = 1
const FAILED = 2
const READY = 3
const CMD = 4
const EXITED = 8
const CLOSE = 3
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
  port.postMessage(`AD-LDA worker ${part}: ${e instanceof Error ? e.message : String(e)}`)
  Atomics.store(control, FAILED, 1)
}

try {
  const { makeAdLdaPart } = await import('./ad-lda-part.js')
  const run = makeAdLdaPart(arrays, part)
  let seen = Atomics.load(control, GEN)
  Atomics.add(control, READY, 1)
  Atomics.notify(control, READY)
  for (;;) {
    Atomics.wait(control, GEN, seen)
    seen = Atomics.load(control, GEN)
    const c = control[CMD] as number
    if (c === CLOSE) break
    try {
      run(c)
    } catch (e) {
      fail(e)
    }
    done()
  }
} catch (e) {
  fail(e)
}
port.close()
