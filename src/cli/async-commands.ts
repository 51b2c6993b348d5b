/**
 * Commands that must wait on something outside the process (a Redis queue, a browser, a worker
 * that runs until stopped). They resolve to a `CommandResult` like the synchronous commands of
 * `run.ts`; the executable awaits them. Each entry is `name → (args after the name) → result`.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { CommandResult } from './commands/result.js'
import { EXIT } from './commands/result.js'
import { wantsHelp } from './help.js'
import { argumentError } from './io.js'

/** Resolves to the command's result, or returns undefined to decline (then run.ts handles the argv;
 * e.g. `audit` is asynchronous only with `--queue`). */
export type AsyncCommand = (args: ReadonlyArray<string>) => Promise<CommandResult> | undefined

/** Options of `dpaudit audit` that take a value (so their values are not mistaken for the target). */
const AUDIT_VALUE_OPTIONS = ['queue', 'runs', 'trials', 'seed', 'confidence', 'epsilon', 'delta', 'timeout', 'idle-timeout', 'out', 'checkpoint', 'workers', 'chunk-timeout']

/** `dpaudit audit` is asynchronous with --queue, or for a trainer-audit file (its target ends in .json). */
export const isAsyncAudit = (args: ReadonlyArray<string>): boolean => {
  const { values, positionals } = parseArgs({
    args: [...args],
    strict: false,
    allowPositionals: true,
    options: Object.fromEntries(AUDIT_VALUE_OPTIONS.map((o) => [o, { type: 'string' as const }])),
  })
  return values.queue !== undefined || /\.json$/i.test(positionals[0] ?? '')
}

/** Registered asynchronous commands (the synchronous ones are dispatched in run.ts). */
export const ASYNC_COMMANDS: Readonly<Record<string, AsyncCommand>> = {
  // Loaded on demand: BullMQ is imported only by the commands that use a queue.
  // a trainer-audit file, or anything on a queue; a local mechanism audit runs on a thread of its
  // own, so that this one can take SIGTERM/SIGINT and stop it cleanly (audit-thread.ts)
  audit: (args) =>
    isAsyncAudit(args)
      ? import('./commands/queue-audit.js').then((m) => m.runQueueAudit(args))
      : wantsHelp(args) || !existsSync(fileURLToPath(new URL('./commands/audit-thread-worker.js', import.meta.url)))
        ? undefined // help, or running from the TypeScript sources (no compiled thread script): run.ts, in this thread
        : import('./commands/audit-thread.js').then((m) => m.runAuditInThread(args)),
  worker: (args) => import('./commands/worker.js').then((m) => m.runWorker(args)),
  // Loaded on demand: vega is imported only when a report is drawn.
  report: (args) => import('./commands/report.js').then((m) => m.runReport(args)),
  verify: (args) => import('./commands/verify.js').then((m) => m.runVerify(args)),
  // a trainer from a module (dpaudit train ./my-trainer.js ...) is imported, so the command waits on it
  train: (args) => (/\.(m|c)?js$/.test(args[0] ?? '') ? import('./commands/train-module.js').then((m) => m.runTrainModule(args)) : undefined),
}

/** Runs `argv` if it names an asynchronous command, turning thrown errors into results; else undefined. */
export const runAsyncCommand = (argv: ReadonlyArray<string>): Promise<CommandResult> | undefined => {
  const [command, ...rest] = argv
  const handler = command === undefined ? undefined : ASYNC_COMMANDS[command]
  const pending = handler?.(rest)
  if (pending === undefined) return undefined
  return pending.catch((e: unknown) => {
    const err = e as { code?: string; message?: string }
    const usage = argumentError(err)
    if (usage !== undefined) return { code: EXIT.input, stderr: usage }
    return { code: EXIT.internal, stderr: `dpaudit: internal error: ${err.message ?? String(e)}` }
  })
}
