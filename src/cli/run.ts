/**
 * Argument dispatch for the dpaudit command line, as a pure-ish function from argv to a
 * `CommandResult` (it reads input files; it never prints or exits), so tests can drive it.
 *
 * @module
 */
import { parseArgs } from 'node:util'
import { runAccount } from './commands/account.js'
import { runCalibrate } from './commands/calibrate.js'
import { runDemo } from './commands/demo.js'
import { runTrainCli } from './commands/train.js'
import { runEvaluateCli } from './commands/evaluate.js'
import { runAuditCommand } from './commands/audit.js'
import { type CommandResult, EXIT, type OutputSink } from './commands/result.js'
import { argumentError } from './io.js'
import { ACCOUNT_USAGE, CALIBRATE_USAGE, COMMAND_USAGE, USAGE, version, wantsHelp } from './help.js'

/** What the executable lends a command: a sink for output written as it goes (see OutputSink). */
export interface CommandIo {
  readonly stdout?: OutputSink
}

export const run = (argv: ReadonlyArray<string>, io: CommandIo = {}): CommandResult => {
  const [command, ...rest] = argv
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h': {
      // `dpaudit help account` is `dpaudit account --help`
      const topic = command === 'help' ? rest[0] : undefined
      // `dpaudit help --help` asks for the same overview
      if (topic !== undefined && topic !== '--help' && topic !== '-h') {
        const usage = COMMAND_USAGE[topic]
        return usage === undefined ? { code: EXIT.input, stderr: `unknown command "${topic}" (one of ${Object.keys(COMMAND_USAGE).join(', ')})` } : { code: EXIT.ok, stdout: usage }
      }
      return { code: command === undefined ? EXIT.input : EXIT.ok, stdout: USAGE }
    }
    case '--version':
    case '-V':
    case 'version':
      return { code: EXIT.ok, stdout: version() }
  }
  // Every command answers --help before its own argument parsing (which would reject the flag).
  const usage = COMMAND_USAGE[command]
  if (usage !== undefined && wantsHelp(rest)) return { code: EXIT.ok, stdout: usage }
  switch (command) {
    case 'account': {
      const { values, positionals } = parseArgs({
        args: [...rest],
        allowPositionals: true,
        options: {
          delta: { type: 'string', multiple: true },
          accountant: { type: 'string', multiple: true },
          orders: { type: 'string' },
          interval: { type: 'string' },
          json: { type: 'boolean', default: false },
          quiet: { type: 'boolean', default: false },
        },
      })
      const file = positionals[0]
      if (file === undefined || positionals.length > 1) return { code: EXIT.input, stderr: ACCOUNT_USAGE }
      return runAccount({ file, deltas: values.delta ?? [], accountant: values.accountant ?? [], orders: values.orders, interval: values.interval, json: values.json, quiet: values.quiet, ...(io.stdout === undefined ? {} : { emit: io.stdout }) })
    }
    case 'calibrate': {
      const { values, positionals } = parseArgs({
        args: [...rest],
        allowPositionals: true,
        options: {
          epsilon: { type: 'string' },
          delta: { type: 'string' },
          accountant: { type: 'string' },
          tolerance: { type: 'string' },
          json: { type: 'boolean', default: false },
          quiet: { type: 'boolean', default: false },
        },
      })
      const file = positionals[0]
      if (file === undefined || positionals.length > 1) return { code: EXIT.input, stderr: CALIBRATE_USAGE }
      return runCalibrate({ file, epsilon: values.epsilon, delta: values.delta, accountant: values.accountant, tolerance: values.tolerance, json: values.json, quiet: values.quiet })
    }
    case 'demo': {
      const { values } = parseArgs({ args: [...rest], options: { json: { type: 'boolean', default: false } } })
      return runDemo({ json: values.json })
    }
    case 'train':
      return runTrainCli(rest)
    case 'evaluate':
      return runEvaluateCli(rest)
    case 'audit':
      return runAuditCommand(rest)
    default:
      return { code: EXIT.input, stderr: `unknown command "${command}" (one of ${Object.keys(COMMAND_USAGE).join(', ')}; dpaudit help for usage)` }
  }
}


/** Like `run`, but turns thrown argument errors and unexpected exceptions into results. */
export const runSafely = (argv: ReadonlyArray<string>, io: CommandIo = {}): CommandResult => {
  try {
    return run(argv, io)
  } catch (e) {
    // parseArgs reports unknown options by throwing; those are usage errors, not crashes.
    const err = e as { code?: string; message?: string }
    const usage = argumentError(err)
    if (usage !== undefined) return { code: EXIT.input, stderr: usage }
    return { code: EXIT.internal, stderr: `dpaudit: internal error: ${err.message ?? String(e)}` }
  }
}
