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
import { runTrainCli, TRAIN_USAGE } from './commands/train.js'
import { runEvaluateCli, EVALUATE_USAGE } from './commands/evaluate.js'
import { runAuditCommand, AUDIT_USAGE } from './commands/audit.js'
import { type CommandResult, EXIT } from './commands/result.js'

const USAGE = `dpaudit — account for, train under, and audit differential privacy

usage:
  dpaudit demo [--json]
      an accounting walkthrough: DP-SGD and the SUB-LDA setting, every accountant side by side
  dpaudit account <spec.json> [--delta D ...] [--accountant rdp|pld|zcdp|basic|advanced|optimal|all] [--orders a,b,...] [--interval H] [--json]
      ε at each δ for one spec or an array of specs, per accountant, with the method and the tightest value
  dpaudit calibrate <template.json> --epsilon E --delta D [--accountant NAME|tightest] [--tolerance T] [--json]
      the smallest noise (or largest rate / step count) meeting (ε, δ); the template marks the field with "$param"
  ${TRAIN_USAGE.replace(/^usage: /, '').split('\n').join('\n  ')}
      train a (private) LDA topic model; prints perplexity and the privacy statement (claimed vs accounted ε)
  ${EVALUATE_USAGE.replace(/^usage: /, '')}
      held-out perplexity of a saved model
  ${AUDIT_USAGE.replace(/^usage: /, '').split('\n').join('\n  ')}
      audit a mechanism: an ε lower bound with confidence, beside the claimed ε (exit 3 on a violation)
  dpaudit help

exit codes: 0 ok, 1 bad usage or input, 2 no accountant could answer or the target is infeasible,
            3 audit found a violation, 4 audit inconclusive, 70 internal error
spec format: docs/spec-format.md`

export const run = (argv: ReadonlyArray<string>): CommandResult => {
  const [command, ...rest] = argv
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { code: command === undefined ? EXIT.input : EXIT.ok, stdout: USAGE }
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
        },
      })
      const file = positionals[0]
      if (file === undefined || positionals.length > 1)
        return { code: EXIT.input, stderr: 'usage: dpaudit account <spec.json> [--delta D ...] [--accountant NAME] [--orders a,b,...] [--json]' }
      return runAccount({ file, deltas: values.delta ?? [], accountant: values.accountant ?? [], orders: values.orders, interval: values.interval, json: values.json })
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
        },
      })
      const file = positionals[0]
      if (file === undefined || positionals.length > 1)
        return { code: EXIT.input, stderr: 'usage: dpaudit calibrate <template.json> --epsilon E --delta D [--accountant NAME] [--tolerance T] [--json]' }
      return runCalibrate({ file, epsilon: values.epsilon, delta: values.delta, accountant: values.accountant, tolerance: values.tolerance, json: values.json })
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
      return { code: EXIT.input, stderr: `unknown command "${command}"\n\n${USAGE}` }
  }
}


/** Like `run`, but turns thrown argument errors and unexpected exceptions into results. */
export const runSafely = (argv: ReadonlyArray<string>): CommandResult => {
  try {
    return run(argv)
  } catch (e) {
    // parseArgs reports unknown options by throwing; those are usage errors, not crashes.
    const err = e as { code?: string; message?: string }
    if (typeof err.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS'))
      return { code: EXIT.input, stderr: `${err.message ?? 'bad arguments'}\n(dpaudit help for usage)` }
    return { code: EXIT.internal, stderr: `dpaudit: internal error: ${err.message ?? String(e)}` }
  }
}
