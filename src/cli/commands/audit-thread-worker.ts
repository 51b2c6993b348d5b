/**
 * The worker side of audit-thread.ts: runs `dpaudit audit` with a stop flag shared with the thread
 * that receives the signals, and posts the command's result back.
 *
 * @module
 */
import { writeSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { argumentError } from '../io.js'
import { runAuditCommand } from './audit.js'
import { EXIT } from './result.js'

const { argv, flag: buffer, stderrIsTTY } = workerData as { readonly argv: ReadonlyArray<string>; readonly flag: SharedArrayBuffer; readonly stderrIsTTY: boolean }
const flag = new Int32Array(buffer)
const stopSignal = (): 'SIGINT' | 'SIGTERM' | null => {
  const n = Atomics.load(flag, 0)
  return n === 0 ? null : n === 2 ? 'SIGINT' : 'SIGTERM'
}
// This thread's process.stderr is a pipe to the main thread, drawn only when that thread's loop
// runs; the progress line goes to the terminal directly (file descriptor 2), synchronously.
const stderr = { isTTY: stderrIsTTY, write: (s: string): number => writeSync(2, s) }
try {
  parentPort?.postMessage(runAuditCommand(argv, { stopSignal, stderr }))
} catch (e) {
  const err = e as { code?: string; message?: string }
  // parseArgs' own errors are input errors, as the command table's dispatch reports them
  const usage = argumentError(err)
  parentPort?.postMessage(usage !== undefined ? { code: EXIT.input, stderr: usage } : { code: EXIT.internal, stderr: `dpaudit: internal error: ${err.message ?? String(e)}` })
}
