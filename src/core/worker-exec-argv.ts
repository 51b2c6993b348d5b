/**
 * The Node flags a worker thread is started with: the parent's (`process.execArgv`), minus those a
 * worker cannot take.
 * - `--input-type` is rejected for a file entry point and kills the worker while it loads, where
 *   nothing has run to report it: a pool waiting for the thread to say it is ready then waited out its
 *   whole start-up limit for a message that names no cause (a fit from `node --input-type=module -e …`
 *   did, 60 s). `-e`/`-p` and their scripts are the main script itself.
 * - V8's flags and the process's own (`--max-old-space-size=8192`, `--stack-size=…`, `--trace-opt`) are
 *   refused by the Worker constructor (ERR_WORKER_INVALID_EXEC_ARGV): `node --max-old-space-size=8192
 *   dpaudit audit … --workers 2` could not start a worker. They hold for every isolate of the process
 *   already (a worker's heap limit follows --max-old-space-size: Node's `resourceLimits`), so
 *   `startWorker` leaves out those the constructor names and starts the thread without them.
 *
 * @module
 */
import { Worker, type WorkerOptions } from 'node:worker_threads'

/** `process.execArgv` (or `args`) without --input-type, -e/--eval and -p/--print and their values. */
export const workerExecArgv = (args: ReadonlyArray<string> = process.execArgv): string[] => {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string
    if (a.startsWith('--input-type')) {
      if (a === '--input-type') i++
      continue
    }
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') {
      i++
      continue
    }
    out.push(a)
  }
  return out
}

/**
 * `args` without the flags an ERR_WORKER_INVALID_EXEC_ARGV message names ("…flags: --a=1, --b"), each
 * with its value where it came as the next argument; undefined when the message names none of them.
 */
export const withoutRefused = (args: ReadonlyArray<string>, message: string): string[] | undefined => {
  const at = message.indexOf('flags: ')
  if (at < 0) return undefined
  const refused = new Set(message.slice(at + 'flags: '.length).split(', ').map((f) => f.trim()))
  const out: string[] = []
  let dropped = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string
    if (!refused.has(a)) {
      out.push(a)
      continue
    }
    dropped = true
    // "--stack-size 2000": the refused flag's value is the next argument
    const next = args[i + 1]
    if (!a.includes('=') && next !== undefined && !next.startsWith('-')) i++
  }
  return dropped ? out : undefined
}

/** The parent's flags the last thread started with (those a worker refused left out). */
let accepted: string[] | undefined

/**
 * `new Worker(url, options)` with the parent's flags a worker can take (`workerExecArgv`, those the
 * constructor refuses left out, see the module comment) followed by `more`.
 */
export const startWorker = (url: URL, options: Omit<WorkerOptions, 'execArgv'>, more: ReadonlyArray<string> = []): Worker => {
  const base = accepted ?? workerExecArgv()
  try {
    const w = new Worker(url, { ...options, execArgv: [...base, ...more] })
    accepted = base
    return w
  } catch (e) {
    const kept = (e as { code?: unknown }).code === 'ERR_WORKER_INVALID_EXEC_ARGV' ? withoutRefused(base, (e as Error).message) : undefined
    if (kept === undefined) throw e
    const w = new Worker(url, { ...options, execArgv: [...kept, ...more] })
    accepted = kept
    return w
  }
}
