/**
 * `dpaudit audit` of a mechanism, run on a thread of its own so that SIGTERM and SIGINT can stop it
 * cleanly (issue 23). A local audit is synchronous: its calling thread blocks on the worker pool
 * between batches of chunks, and a blocked thread never runs a signal handler, so the signal took
 * its default action and the process died mid-chunk. Here the command runs in a worker thread
 * (audit-thread-worker.ts) and this thread only waits: on the first signal it raises a shared flag
 * that the audit reads between batches (`shouldStop`), so the audit finishes the batch in flight,
 * saves its checkpoint, closes its worker pool and returns; the command then prints one line and
 * exits 130 (SIGINT) or 143 (SIGTERM). A second signal ends the process at once.
 *
 * @module
 */
import { Worker } from 'node:worker_threads'
import type { CommandResult } from './result.js'
import { EXIT } from './result.js'

/** The flag's values: 0 none, else the signal's number (2 SIGINT, 15 SIGTERM). */
export const SIGNAL_NUMBER = { SIGINT: 2, SIGTERM: 15 } as const

/** Runs `dpaudit audit argv` (a local mechanism audit) on a worker thread; resolves to its result. */
export const runAuditInThread = (argv: ReadonlyArray<string>): Promise<CommandResult> =>
  new Promise((done) => {
    const flag = new Int32Array(new SharedArrayBuffer(4))
    const worker = new Worker(new URL('./audit-thread-worker.js', import.meta.url), { workerData: { argv: [...argv], flag: flag.buffer, stderrIsTTY: process.stderr.isTTY === true } })
    const onSignal = (s: 'SIGINT' | 'SIGTERM'): void => {
      if (Atomics.load(flag, 0) !== 0) {
        // a second signal: no more waiting for the batch in flight
        void worker.terminate()
        process.exit(128 + SIGNAL_NUMBER[s])
      }
      Atomics.store(flag, 0, SIGNAL_NUMBER[s])
    }
    const onInt = (): void => onSignal('SIGINT')
    const onTerm = (): void => onSignal('SIGTERM')
    process.on('SIGINT', onInt)
    process.on('SIGTERM', onTerm)
    let result: CommandResult | undefined
    const finish = (r: CommandResult): void => {
      process.removeListener('SIGINT', onInt)
      process.removeListener('SIGTERM', onTerm)
      done(r)
    }
    worker.on('message', (m: CommandResult) => {
      result = m
    })
    worker.on('error', (e) => finish({ code: EXIT.internal, stderr: `dpaudit: internal error: ${e.message}` }))
    worker.on('exit', () => finish(result ?? { code: EXIT.internal, stderr: 'dpaudit: internal error: the audit thread ended without a result' }))
  })
