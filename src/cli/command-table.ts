/**
 * The dpaudit commands, in one table: each command's name, usage, how its arguments are parsed and
 * how it runs. `dispatch` is the one dispatcher: `dpaudit --help` and `dpaudit <command> --help` are
 * assembled from the table (`dpaudit train --help` from the trainers, in commands/train.ts), and a
 * parse error (node:util's parseArgs throws on an unknown option) or an unexpected exception is turned
 * into a result once, here, for the commands that answer at once and those that wait (a queue, a
 * module import, a browser) alike.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { runAccount } from './commands/account.js'
import { AUDIT_USAGE, runAuditCommand } from './commands/audit.js'
import { runCalibrate } from './commands/calibrate.js'
import { runDemo } from './commands/demo.js'
import { EVALUATE_USAGE, runEvaluateCli } from './commands/evaluate.js'
import { REPORT_USAGE } from './commands/report.js'
import { type CommandResult, EXIT, type OutputSink } from './commands/result.js'
import { runTrainCli, TRAIN_USAGE } from './commands/train.js'
import { VERIFY_USAGE } from './commands/verify.js'
import { ACCOUNT_USAGE, CALIBRATE_USAGE, DEMO_USAGE, QUEUE_AUDIT_USAGE, version, wantsHelp, WORKER_USAGE } from './help.js'
import { argumentError } from './io.js'

/** What the executable lends a command: a sink for output written as it goes (see OutputSink). */
export interface CommandIo {
  readonly stdout?: OutputSink
}

/** A result now, or one to wait for. */
export type Outcome = CommandResult | Promise<CommandResult>

/**
 * One command: `parse` reads the arguments after its name into what `run` takes, or answers at once
 * (a usage error); `run` does the work. A command whose options depend on what it runs (train's
 * trainer, audit's target) parses inside its own module and its `parse` passes the arguments on.
 */
export interface Command<P> {
  readonly name: string
  readonly usage: string
  readonly parse: (args: ReadonlyArray<string>) => E.Either<CommandResult, P>
  readonly run: (parsed: P, io: CommandIo) => Outcome
  /** `--help` when the usage depends on the arguments (train's ./module.js); absent: `usage`. */
  readonly help?: (args: ReadonlyArray<string>) => Outcome
}

/** A command with its parsed type hidden, as the table holds it. */
export interface AnyCommand {
  readonly name: string
  readonly usage: string
  readonly invoke: (args: ReadonlyArray<string>, io: CommandIo) => Outcome
  readonly help: (args: ReadonlyArray<string>) => Outcome
}

const command = <P>(c: Command<P>): AnyCommand => ({
  name: c.name,
  usage: c.usage,
  help: c.help ?? (() => ({ code: EXIT.ok, stdout: c.usage })),
  invoke: (args, io) => {
    const p = c.parse(args)
    return E.isLeft(p) ? p.left : c.run(p.right, io)
  },
})

/** Commands that parse in their own module: the arguments as given. */
const passOn = (args: ReadonlyArray<string>): E.Either<CommandResult, ReadonlyArray<string>> => E.right(args)

/** Exactly one positional (the input file), or the command's usage as the error. */
const oneFile = (positionals: ReadonlyArray<string>, usage: string): E.Either<CommandResult, string> => {
  const file = positionals[0]
  return file === undefined || positionals.length > 1 ? E.left({ code: EXIT.input, stderr: usage }) : E.right(file)
}

/** Options of `dpaudit audit` that take a value (so their values are not mistaken for the target). */
const AUDIT_VALUE_OPTIONS = ['queue', 'runs', 'trials', 'seed', 'confidence', 'epsilon', 'delta', 'timeout', 'idle-timeout', 'out', 'checkpoint', 'workers', 'chunk-timeout']

/** `dpaudit audit` waits with --queue, or for a trainer-audit file (its target ends in .json); a local mechanism audit answers at once. */
export const isAsyncAudit = (args: ReadonlyArray<string>): boolean => {
  const { values, positionals } = parseArgs({
    args: [...args],
    strict: false,
    allowPositionals: true,
    options: Object.fromEntries(AUDIT_VALUE_OPTIONS.map((o) => [o, { type: 'string' as const }])),
  })
  return values.queue !== undefined || /\.json$/i.test(positionals[0] ?? '')
}

/** `dpaudit train ./my-trainer.js …`: the trainer is a module's, not a built-in one's name. */
const isTrainerModule = (args: ReadonlyArray<string>): boolean => /\.(m|c)?js$/.test(args[0] ?? '')

/** Every command, in the order the overview lists them. Modules with heavy imports (BullMQ, vega) load on demand. */
export const COMMANDS: ReadonlyArray<AnyCommand> = [
  command({
    name: 'demo',
    usage: DEMO_USAGE,
    parse: (args) => E.right(parseArgs({ args: [...args], options: { json: { type: 'boolean', default: false } } }).values.json),
    run: (json) => runDemo({ json }),
  }),
  command({
    name: 'account',
    usage: ACCOUNT_USAGE,
    parse: (args) => {
      const { values, positionals } = parseArgs({
        args: [...args],
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
      return E.map((file: string) => ({ file, deltas: values.delta ?? [], accountant: values.accountant ?? [], orders: values.orders, interval: values.interval, json: values.json, quiet: values.quiet }))(oneFile(positionals, ACCOUNT_USAGE))
    },
    run: (a, io) => runAccount({ ...a, ...(io.stdout === undefined ? {} : { emit: io.stdout }) }),
  }),
  command({
    name: 'calibrate',
    usage: CALIBRATE_USAGE,
    parse: (args) => {
      const { values, positionals } = parseArgs({
        args: [...args],
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
      return E.map((file: string) => ({ file, epsilon: values.epsilon, delta: values.delta, accountant: values.accountant, tolerance: values.tolerance, json: values.json, quiet: values.quiet }))(oneFile(positionals, CALIBRATE_USAGE))
    },
    run: (a) => runCalibrate(a),
  }),
  command({
    name: 'train',
    usage: TRAIN_USAGE,
    parse: passOn,
    // a trainer from a module (dpaudit train ./my-trainer.js ...) is imported, so the command waits on it
    run: (args) => (isTrainerModule(args) ? import('./commands/train-module.js').then((m) => m.runTrainModule(args)) : runTrainCli(args)),
    // `dpaudit train ./my-trainer.js --help`: the module's own flags, as `train --help` shows the built-in trainers'
    help: (args) => (isTrainerModule(args) ? import('./commands/train-module.js').then((m) => m.trainModuleUsage(args[0] as string)) : { code: EXIT.ok, stdout: TRAIN_USAGE }),
  }),
  command({ name: 'evaluate', usage: EVALUATE_USAGE, parse: passOn, run: (args) => runEvaluateCli(args) }),
  command({
    name: 'audit',
    usage: `${AUDIT_USAGE}\n${QUEUE_AUDIT_USAGE}`,
    parse: passOn,
    // a trainer-audit file, or anything on a queue, waits on queue-audit.ts; a local mechanism audit runs on a
    // thread of its own, so that this one can take SIGTERM/SIGINT and stop it cleanly (audit-thread.ts) —
    // except from the TypeScript sources (no compiled thread script), where it runs in this thread
    run: (args) =>
      isAsyncAudit(args)
        ? import('./commands/queue-audit.js').then((m) => m.runQueueAudit(args))
        : existsSync(fileURLToPath(new URL('./commands/audit-thread-worker.js', import.meta.url)))
          ? import('./commands/audit-thread.js').then((m) => m.runAuditInThread(args))
          : runAuditCommand(args),
  }),
  command({ name: 'report', usage: REPORT_USAGE, parse: passOn, run: (args) => import('./commands/report.js').then((m) => m.runReport(args)) }),
  command({ name: 'verify', usage: VERIFY_USAGE, parse: passOn, run: (args) => import('./commands/verify.js').then((m) => m.runVerify(args)) }),
  command({ name: 'worker', usage: WORKER_USAGE, parse: passOn, run: (args) => import('./commands/worker.js').then((m) => m.runWorker(args)) }),
]

const named = (name: string): AnyCommand | undefined => COMMANDS.find((c) => c.name === name)

const indent = (usage: string): string =>
  usage
    .split('\n')
    .map((line) => line.replace(/^usage: /, ''))
    .join('\n  ')

/** `dpaudit --help`: every command's usage, from the table. */
export const USAGE = `dpaudit — account for, train under, and audit differential privacy

usage:
  ${COMMANDS.map((c) => indent(c.usage)).join('\n  ')}
  dpaudit help [command] | dpaudit <command> --help | dpaudit --version

exit codes: 0 ok, 1 bad usage or input, 2 no accountant could answer or the target is infeasible,
            3 audit found a violation, 4 audit inconclusive, 70 internal error
spec format: docs/spec-format.md`

const NAMES = COMMANDS.map((c) => c.name).join(', ')

/** Help, version, and the command's own usage on --help, answered before the command parses (its parser would reject --help). */
const answerFirst = (argv: ReadonlyArray<string>): Outcome | undefined => {
  const [name, ...rest] = argv
  switch (name) {
    case undefined:
    case 'help':
    case '--help':
    case '-h': {
      // `dpaudit help account` is `dpaudit account --help`; `dpaudit help --help` asks for the overview
      const topic = name === 'help' ? rest[0] : undefined
      if (topic !== undefined && topic !== '--help' && topic !== '-h') {
        const c = named(topic)
        return c === undefined ? { code: EXIT.input, stderr: `unknown command "${topic}" (one of ${NAMES})` } : { code: EXIT.ok, stdout: c.usage }
      }
      return { code: name === undefined ? EXIT.input : EXIT.ok, stdout: USAGE }
    }
    case '--version':
    case '-V':
    case 'version':
      return { code: EXIT.ok, stdout: version() }
  }
  const c = named(name)
  if (c === undefined) return { code: EXIT.input, stderr: `unknown command "${name}" (one of ${NAMES}; dpaudit help for usage)` }
  return wantsHelp(rest) ? c.help(rest) : undefined
}

/** A thrown argument error is a usage error (one line, exit 1); anything else an internal error (exit 70), never a stack trace. */
const asResult = (e: unknown): CommandResult => {
  const err = e as { code?: string; message?: string }
  const usage = argumentError(err)
  return usage !== undefined ? { code: EXIT.input, stderr: usage } : { code: EXIT.internal, stderr: `dpaudit: internal error: ${err.message ?? String(e)}` }
}

/** Runs `argv` (the arguments after `dpaudit`): the one dispatcher of the command line. It reads files; it never prints or exits. */
export const dispatch = (argv: ReadonlyArray<string>, io: CommandIo = {}): Outcome => {
  try {
    const r = answerFirst(argv) ?? (named(argv[0] as string) as AnyCommand).invoke(argv.slice(1), io)
    return r instanceof Promise ? r.catch(asResult) : r
  } catch (e) {
    return asResult(e)
  }
}
