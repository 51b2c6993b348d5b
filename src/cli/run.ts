/**
 * The command line as a function from argv to a `CommandResult`, for callers that cannot wait (the
 * tests of the commands that answer at once). The table and the one dispatcher are in
 * ./command-table.ts; this only refuses to block on a command that waits.
 *
 * @module
 */
import { type CommandIo, dispatch } from './command-table.js'
import { type CommandResult, EXIT } from './commands/result.js'

export type { CommandIo } from './command-table.js'

/** `dispatch`, for a command that answers at once; one that waits (a queue, a module, a browser) is refused (await `dispatch` instead). */
export const runSafely = (argv: ReadonlyArray<string>, io: CommandIo = {}): CommandResult => {
  const r = dispatch(argv, io)
  if (!(r instanceof Promise)) return r
  r.catch(() => undefined) // the caller does not wait: nothing may surface as an unhandled rejection
  return { code: EXIT.internal, stderr: `dpaudit: ${argv[0] ?? ''} waits on its work: await dispatch(argv) from command-table.ts` }
}

/** The same as `runSafely` (errors are results either way). */
export const run = runSafely
