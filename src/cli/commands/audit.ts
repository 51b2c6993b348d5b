/**
 * `dpaudit audit <module | zoo:NAME> [--trials N] [--seed S] [--confidence C] [--workers W]
 *  [--epsilon E] [--delta D] [--out FILE] [--checkpoint FILE] [--json] [--quiet]`
 *
 * The module (JavaScript; TypeScript only where Node strips types) exports `mechanism`, `pairs`
 * (an array or a function returning one) and `claim`, optionally `name`, directly or on a
 * default-exported object. It is imported by file URL in worker threads. `zoo:NAME` audits a zoo
 * entry instead. Prints a human summary, writes the full result as JSON, and exits 0 (consistent),
 * 3 (violation), 4 (inconclusive) or 1 (bad input).
 *
 * @module
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { basename, extname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { type AnyAuditResult, type AuditProgress, type AuditResult, auditMechanism, auditZoo } from '../../attacks/audit.js'
import { formatTrainerAudit, type TrainerAuditResult } from '../../attacks/trainers/audit.js'
import { type AuditClaim, validateClaim } from '../../attacks/claim.js'
import { formatAuditResult } from '../../attacks/format.js'
import type { NeighbourPair } from '../../attacks/pairs.js'
import { describeModule, workerScriptUrl } from '../../attacks/pool.js'
import { ZOO, ZOO_NAMES, zooEntry } from '../../attacks/zoo/index.js'
import { formatError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { writeFileAtomic } from '../../core/atomic-file.js'
import { checkOutputPath } from '../io.js'
import { guardOutputs, holdingLocks, refuseOutputOverInput } from '../output-guard.js'
import { type ProgressOptions, progressLine } from '../progress.js'
import { type CommandResult, EXIT } from './result.js'

/** Exit codes of `dpaudit audit` beyond the shared ones. */
export const AUDIT_EXIT = { consistent: 0, violation: 3, inconclusive: 4 } as const

export const AUDIT_USAGE = `usage: dpaudit audit <module.js | zoo:NAME> [--trials N] [--seed S] [--confidence C] [--workers W]
                     [--epsilon E] [--delta D] [--out FILE] [--checkpoint FILE] [--chunk-timeout S] [--json] [--quiet]
  the module exports mechanism(input, rng), pairs ([{ input, neighbour, label? }] or a function returning them)
  and claim ({ epsilon, delta }); --epsilon/--delta override the claim tested, never the mechanism (a zoo entry
  is built as shipped, for its own claim). --out and --checkpoint may not be the module or each other. zoo names: ${ZOO_NAMES.join(', ')}
  defaults: --trials 1000000 (zoo entries too), --seed dpaudit, --confidence 0.95, --workers all cores
  (more than the cores available are capped, with a note), --out <name>.audit.json (not with --json).
  --chunk-timeout S (default 600): on worker threads, no chunk finishing for S seconds stops the audit (mechanism-failed,
  trials so far kept). --out and --checkpoint are checked before the audit starts. A progress line is shown on a terminal unless --quiet.
  exit codes: 0 consistent, 3 violation, 4 inconclusive, 1 bad input`

export interface AuditArgs {
  /** A module path, or `zoo:NAME`. */
  readonly target: string
  readonly trials?: string | undefined
  readonly seed?: string | undefined
  readonly confidence?: string | undefined
  readonly workers?: string | undefined
  readonly epsilon?: string | undefined
  readonly delta?: string | undefined
  /** JSON output file (default `<name>.audit.json` in the working directory). */
  readonly out?: string | undefined
  readonly checkpoint?: string | undefined
  /** Watchdog in seconds: no chunk of trials finishing for this long stops the audit (default 600). */
  readonly chunkTimeout?: string | undefined
  /** Print the JSON document on stdout instead of the summary (the file is then written only with --out). */
  readonly json?: boolean | undefined
  /** Called with progress during the audit. */
  readonly progress?: ((p: AuditProgress) => void) | undefined
  /** The signal that asked the audit to stop, or null (audit-thread.ts): checked between batches of chunks. */
  readonly stopSignal?: (() => 'SIGINT' | 'SIGTERM' | null) | undefined
}

/** Trials of one audit when --trials is not given, for modules and zoo entries alike. */
export const DEFAULT_AUDIT_TRIALS = 1_000_000

const positiveInt = (option: string, raw: string | undefined, fallback: number): E.Either<string, number> => {
  if (raw === undefined) return E.right(fallback)
  const x = Number(raw.replace(/_/g, ''))
  return Number.isInteger(x) && x >= 1 ? E.right(x) : E.left(`--${option}: expected a positive integer (got "${raw}")`)
}

const number = (option: string, raw: string | undefined): E.Either<string, number | undefined> => {
  if (raw === undefined) return E.right(undefined)
  const x = Number(raw)
  return raw.trim() === '' || Number.isNaN(x) ? E.left(`--${option}: "${raw}" is not a number`) : E.right(x)
}

const compiledWorkerExists = (): boolean => existsSync(fileURLToPath(workerScriptUrl()))

/** Progress of an audit as a progress line (the rate counts the trials run now, not the resumed ones). */
export const auditProgressLine = (quiet: boolean, stream?: ProgressOptions['stream']): { readonly onProgress: ((p: AuditProgress) => void) | undefined; readonly done: () => void } => {
  const line = progressLine({ label: 'audit', unit: 'trials', quiet, ...(stream === undefined ? {} : { stream }) })
  if (!line.active) return { onProgress: undefined, done: () => undefined }
  return {
    onProgress: (p) =>
      line.update(
        p.trialsDone - p.trialsResumed,
        p.trialsTotal - p.trialsResumed,
        `${p.phase === 'select' ? 'choosing the attack' : 'estimating'}${p.trialsResumed > 0 ? `, ${p.trialsResumed.toLocaleString('en-US')} resumed from the checkpoint` : ''}`,
      ),
    done: line.done,
  }
}

/** Runs `dpaudit audit` on parsed arguments. */
export const runAudit = (args: AuditArgs): CommandResult => holdingLocks((hold) => auditHolding(args, hold))

/** The options every target shares, read from the flags: where a flag is bad, its one-line message. */
interface AuditOptions {
  readonly trials: number
  /** Runners used: the cores at most (and 1 without the compiled worker script). */
  readonly workers: number
  /** The note when --workers asked for more than `workers`. */
  readonly warning: string | undefined
  readonly confidence: number | undefined
  readonly epsilon: number | undefined
  readonly delta: number | undefined
  readonly chunkTimeoutS: number | undefined
}

const auditOptions = (args: AuditArgs, canPool: boolean): E.Either<string, AuditOptions> => {
  const trials = positiveInt('trials', args.trials, DEFAULT_AUDIT_TRIALS)
  if (E.isLeft(trials)) return trials
  const cores = availableParallelism()
  const asked = positiveInt('workers', args.workers, canPool ? cores : 1)
  if (E.isLeft(asked)) return asked
  // Workers beyond the cores only add memory (each holds its own copy of the mechanism) and time.
  // Without the compiled worker script (running from the TypeScript sources) the audit runs in this thread.
  const cap = canPool ? cores : 1
  const warning = asked.right > cap ? `audit: --workers ${asked.right}: capped at ${cap}, ${canPool ? 'the cores available' : 'no compiled worker script (npm run build)'}` : undefined
  const confidence = number('confidence', args.confidence)
  if (E.isLeft(confidence)) return confidence
  const epsilon = number('epsilon', args.epsilon)
  if (E.isLeft(epsilon)) return epsilon
  const delta = number('delta', args.delta)
  if (E.isLeft(delta)) return delta
  const timeout = number('chunk-timeout', args.chunkTimeout)
  if (E.isLeft(timeout)) return timeout
  if (timeout.right !== undefined && !(timeout.right > 0)) return E.left(`--chunk-timeout: expected a number of seconds > 0 (got "${args.chunkTimeout}")`)
  return E.right({ trials: trials.right, workers: Math.min(asked.right, cap), warning, confidence: confidence.right, epsilon: epsilon.right, delta: delta.right, chunkTimeoutS: timeout.right })
}

/** Where the result goes, checked before any work (a bad path is reported at once, not after an hour). */
interface AuditOutputs {
  /** The result file for an audit named `name` (none with --json and no --out). */
  readonly outName: (name: string) => string | undefined
  /** Checks the result file and holds it and the checkpoint (none may be the module, each other, or a file another dpaudit writes); a message if not. */
  readonly claim: (name: string, module: string | undefined) => string | undefined
}

const auditOutputs = (args: AuditArgs, hold: (release: () => void) => void): E.Either<string, AuditOutputs> => {
  if (args.checkpoint !== undefined) {
    const c = checkOutputPath(args.checkpoint, 'checkpoint')
    if (E.isLeft(c)) return E.left(`audit: ${c.left}`)
  }
  const outName = (name: string): string | undefined => args.out ?? (args.json === true ? undefined : `${name.replace(/[^\w.-]+/g, '_')}.audit.json`)
  const claim = (name: string, module: string | undefined): string | undefined => {
    const out = outName(name)
    if (out !== undefined) {
      const c = checkOutputPath(out, 'out')
      if (E.isLeft(c)) return `audit: ${c.left}`
    }
    const outputs = [...(out === undefined ? [] : [{ what: '--out', path: out }]), ...(args.checkpoint === undefined ? [] : [{ what: '--checkpoint', path: args.checkpoint }])]
    const g = guardOutputs(outputs, module === undefined ? [] : [{ what: 'the module', path: module }])
    if (E.isLeft(g)) return `audit: ${g.left}`
    hold(g.right)
    return undefined
  }
  return E.right({ outName, claim })
}

/** The spec fields every target's audit shares. */
const sharedSpec = (args: AuditArgs, o: AuditOptions) => ({
  trials: o.trials,
  seed: args.seed ?? 'dpaudit',
  workers: o.workers,
  ...(o.confidence === undefined ? {} : { confidence: o.confidence }),
  ...(args.checkpoint === undefined ? {} : { checkpoint: args.checkpoint }),
  ...(o.chunkTimeoutS === undefined ? {} : { chunkTimeoutMs: o.chunkTimeoutS * 1000 }),
  ...(args.progress === undefined ? {} : { onProgress: args.progress }),
  ...(args.stopSignal === undefined ? {} : { shouldStop: () => args.stopSignal?.() != null }),
})

/** What a target's audit needs besides its mechanism: the shared spec fields, the claim as overridden, the outputs. */
interface AuditRun {
  readonly common: ReturnType<typeof sharedSpec>
  readonly overrideClaim: (base: AuditClaim | undefined) => E.Either<string, AuditClaim>
  readonly outputs: AuditOutputs
}

/** A zoo entry, audited for its shipped claim or the one --epsilon/--delta set (never a rebuilt mechanism). */
const auditZooTarget = (entry: NonNullable<ReturnType<typeof zooEntry>>, run: AuditRun): E.Either<string, { readonly result: AuditResult; readonly name: string }> => {
  const claim = run.overrideClaim(entry.defaultClaim)
  if (E.isLeft(claim)) return claim
  const bad = run.outputs.claim(entry.name, undefined)
  if (bad !== undefined) return E.left(bad)
  // --epsilon/--delta change the claim tested, never the mechanism: it is built as shipped
  const r = auditZoo(entry.name, { ...run.common, claim: claim.right, builtFor: entry.defaultClaim })
  return E.isLeft(r) ? E.left(`audit: ${formatError(r.left)}`) : E.right({ result: r.right, name: entry.name })
}

/** A mechanism module: read in a worker thread (its exports described), checked, then audited there. */
const auditModuleTarget = (args: AuditArgs, canPool: boolean, epsilonGiven: boolean, run: AuditRun): E.Either<string, { readonly result: AuditResult; readonly name: string }> => {
  const file = resolve(args.target)
  if (!existsSync(file)) return E.left(`audit: ${args.target}: no such file`)
  // importing a FIFO or a device would wait forever; a JSON file is a trainer audit, which the command table (command-table.ts) hands to queue-audit.ts
  if (!statSync(file).isFile()) return E.left(`audit: ${args.target}: not a regular file (a module is a .js or .mjs file)`)
  if (/\.json$/i.test(file))
    return E.left(
      `audit: ${args.target}: a JSON file is a trainer audit (docs/trainer-audits.md), run by \`dpaudit audit FILE\` (locally, or with --queue; runQueueAudit from code); runAudit audits mechanisms and takes a .js or .mjs module or zoo:NAME`,
    )
  // an output named outright is checked against the module before anything else is needed
  const early = refuseOutputOverInput(
    [...(args.out === undefined ? [] : [{ what: '--out', path: args.out }]), ...(args.checkpoint === undefined ? [] : [{ what: '--checkpoint', path: args.checkpoint }])],
    [{ what: 'the module', path: file }],
  )
  if (E.isLeft(early)) return E.left(`audit: ${early.left}`)
  if (!canPool) return E.left(`audit: auditing a module needs the compiled worker (${fileURLToPath(workerScriptUrl())}); run \`npm run build\` first`)
  const described = describeModule(file)
  if (E.isLeft(described)) return E.left(`audit: ${args.target}: ${formatError(described.left)}`)
  const d = described.right.description
  const claimFromModule = typeof d.claim === 'object' && d.claim !== null ? (d.claim as AuditClaim) : undefined
  if (claimFromModule === undefined && !epsilonGiven) return E.left(`audit: ${args.target}: the module exports no \`claim\` ({ epsilon, delta }); export one or pass --epsilon`)
  const claim = run.overrideClaim(claimFromModule)
  if (E.isLeft(claim)) return claim
  if (!Array.isArray(d.pairs)) return E.left(`audit: ${args.target}: the module must export \`pairs\`: an array of { input, neighbour, label? } (or a function returning one)`)
  const name = typeof d.name === 'string' ? d.name : basename(file, extname(file))
  const bad = run.outputs.claim(name, file)
  if (bad !== undefined) return E.left(bad)
  const r = auditMechanism<unknown>({ ...run.common, mechanism: described.right.ref, pairs: d.pairs as ReadonlyArray<NeighbourPair<unknown>>, claim: claim.right, name })
  return E.isLeft(r) ? E.left(`audit: ${args.target}: ${formatError(r.left)}`) : E.right({ result: r.right, name })
}

const auditHolding = (args: AuditArgs, hold: (release: () => void) => void): CommandResult => {
  const failed = (stderr: string): CommandResult => ({ code: EXIT.input, stderr })
  const isZoo = args.target.startsWith('zoo:')
  const entry = isZoo ? zooEntry(args.target.slice(4)) : undefined
  if (isZoo && entry === undefined) return failed(`audit: no zoo mechanism "${args.target.slice(4)}" (one of ${ZOO_NAMES.join(', ')})`)
  const canPool = compiledWorkerExists()
  const o = auditOptions(args, canPool)
  if (E.isLeft(o)) return failed(o.left)
  const outputs = auditOutputs(args, hold)
  if (E.isLeft(outputs)) return failed(outputs.left)
  const { workers, warning, epsilon, delta } = o.right
  const overrideClaim = (base: AuditClaim | undefined): E.Either<string, AuditClaim> => {
    const c = validateClaim({ epsilon: epsilon ?? base?.epsilon, delta: delta ?? base?.delta ?? 0 })
    return E.isLeft(c) ? E.left(`audit: ${formatError(c.left)}`) : E.right(c.right)
  }
  const run: AuditRun = { common: sharedSpec(args, o.right), overrideClaim, outputs: outputs.right }
  const t0 = Date.now()
  const done = entry !== undefined ? auditZooTarget(entry, run) : auditModuleTarget(args, canPool, epsilon !== undefined, run)
  if (E.isLeft(done)) return failed(done.left)
  const { result, name } = done.right
  const signal = args.stopSignal?.() ?? null
  if (signal !== null && result.status === 'interrupted') return stoppedBy(signal, result, args.checkpoint)
  if (args.checkpoint !== undefined && result.status === 'complete') rmSync(args.checkpoint, { force: true })
  return reportAudit({ target: args.target, out: outputs.right.outName(name), json: args.json === true, workers, warning }, result, Date.now() - t0)
}

/**
 * An audit stopped by a signal: one line, no result file (the run is not finished), the shell's
 * exit convention 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). The checkpoint, if
 * any, holds every chunk that finished, so the same command resumes.
 */
export const stoppedBy = (signal: 'SIGINT' | 'SIGTERM', r: Pick<AuditResult, 'trials'>, checkpoint: string | undefined, queue?: string): CommandResult => ({
  code: signal === 'SIGINT' ? 130 : 143,
  stderr: `audit: stopped by ${signal} after ${r.trials.spent.toLocaleString('en-US')} of ${r.trials.requested.toLocaleString('en-US')} trials; ${
    checkpoint !== undefined
      ? `${checkpoint} keeps the finished chunks: run the same command to resume`
      : queue !== undefined
        ? `the finished chunks stay on the queue at ${queue}: run the same command to reuse them`
        : 'no --checkpoint, so nothing is kept'
  }`,
})

/** Where and how an audit's result goes. */
export interface AuditReportOptions {
  readonly target: string
  /** The JSON file to write (always written when given). */
  readonly out: string | undefined
  /** Print the JSON document instead of the summary. */
  readonly json: boolean
  /** Runners used (threads; for a queue, the workers expected). */
  readonly workers: number
  /** Where the chunks ran, for the timing line (default "N workers"). */
  readonly where?: string
  readonly warning?: string | undefined
}

/** The summary of any audit, mechanism or trainer. */
export const formatAnyAudit = (r: AnyAuditResult): string => (r.subject.kind === 'mechanism' ? formatAuditResult(r as AuditResult) : formatTrainerAudit(r as TrainerAuditResult))

/**
 * The end of every audit command, local or queued, mechanism or trainer: the JSON document (one
 * format: the result with its subject), written to --out when there is one, the summary or the
 * document on stdout, and the exit code of the verdict.
 */
export const reportAudit = (o: AuditReportOptions, r: AnyAuditResult, elapsedMs: number): CommandResult => {
  const doc = {
    schemaVersion: 1,
    tool: 'dpaudit audit',
    target: o.target,
    node: process.version,
    options: { trials: r.trials.requested, seed: r.seed, confidence: r.confidence, workers: o.workers },
    timing: { elapsedMs, trialsPerSecond: r.trials.spent / Math.max(1e-3, elapsedMs / 1000) },
    result: r,
  }
  const json = stringifyJson(doc, 2)
  const notes: string[] = []
  if (o.out !== undefined) {
    const w = writeFileAtomic(o.out, `${json}\n`)
    // The verdict is the result: a failed write is reported, never allowed to change the exit code.
    if (E.isLeft(w))
      return { code: AUDIT_EXIT[r.verdict], stdout: o.json ? json : formatAnyAudit(r), stderr: `audit: the result could not be written (${formatError(w.left)}); the verdict above stands` }
    notes.push(`full result: ${o.out}`)
  }
  const code = AUDIT_EXIT[r.verdict]
  const timing = `${(elapsedMs / 1000).toFixed(1)} s on ${o.where ?? `${o.workers} worker${o.workers === 1 ? '' : 's'}`}`
  const stderr = [...(o.warning === undefined ? [] : [o.warning]), ...(o.json ? notes : [])]
  const side = stderr.length > 0 ? { stderr: stderr.join('\n') } : {}
  if (o.json) return { code, stdout: json, ...side }
  return { code, stdout: [formatAnyAudit(r), `${timing}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`].join('\n'), ...side }
}

/**
 * Parses `dpaudit audit` arguments (everything after the word "audit") and runs it; `thread` is set
 * when it runs on audit-thread.ts's thread (the signal flag, and stderr for the progress line).
 */
export const runAuditCommand = (
  argv: ReadonlyArray<string>,
  thread?: { readonly stopSignal: NonNullable<AuditArgs['stopSignal']>; readonly stderr: ProgressOptions['stream'] },
): CommandResult => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      trials: { type: 'string' },
      seed: { type: 'string' },
      confidence: { type: 'string' },
      workers: { type: 'string' },
      epsilon: { type: 'string' },
      delta: { type: 'string' },
      out: { type: 'string' },
      checkpoint: { type: 'string' },
      'chunk-timeout': { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
    },
  })
  const target = positionals[0]
  if (target === undefined || positionals.length > 1) return { code: EXIT.input, stderr: AUDIT_USAGE }
  // Progress goes to a terminal only: it is a side channel, not part of the result.
  const progress = auditProgressLine(values.quiet, thread?.stderr)
  const result = runAudit({
    target,
    trials: values.trials,
    seed: values.seed,
    confidence: values.confidence,
    workers: values.workers,
    epsilon: values.epsilon,
    delta: values.delta,
    out: values.out,
    checkpoint: values.checkpoint,
    chunkTimeout: values['chunk-timeout'],
    json: values.json,
    progress: progress.onProgress,
    stopSignal: thread?.stopSignal,
  })
  progress.done()
  return result
}

/** One mechanism of the demo's audit section. */
export interface AuditDemoRow {
  readonly name: string
  readonly broken: boolean
  readonly summary: string
  readonly claim: AuditClaim
  readonly trueEpsilon: number
  readonly bug: string | null
  readonly verdict: AuditResult['verdict']
  readonly epsilonLowerBound: number
  readonly ceiling: number
  readonly attack: string
}

/**
 * The audit part of `dpaudit demo`: a seeded audit of a correct mechanism (Laplace) and a broken
 * one (a histogram with the noise scale inverted), in this thread, in well under a second.
 */
export const auditDemoRows = (): ReadonlyArray<AuditDemoRow> => {
  const rows: AuditDemoRow[] = []
  for (const name of ['laplace', 'histogram-inverted']) {
    const entry = ZOO.find((e) => e.name === name)
    const r = auditZoo(name, { seed: 'demo', trials: 200_000 })
    if (entry === undefined || E.isLeft(r)) continue
    const a = r.right
    rows.push({
      name,
      broken: entry.broken,
      summary: entry.summary,
      claim: a.claim,
      trueEpsilon: entry.trueEpsilon(a.claim),
      bug: entry.bug,
      verdict: a.verdict,
      epsilonLowerBound: a.epsilonLowerBound,
      ceiling: a.ceiling,
      attack: a.attack?.description ?? 'none',
    })
  }
  return rows
}

export const renderAuditDemo = (rows: ReadonlyArray<AuditDemoRow>): string => {
  const lines = [
    'Auditing mechanisms as code: an accountant bounds ε from above, an audit from below.',
    'Two mechanisms, 200,000 trials each, seed "demo", 95% confidence:',
    '',
  ]
  for (const a of rows) {
    lines.push(`${a.broken ? 'broken' : 'correct'}: ${a.summary}`)
    lines.push(`  claim ε = ${a.claim.epsilon}; true ε = ${a.trueEpsilon}${a.bug === null ? '' : ` (${a.bug})`}`)
    lines.push(`  → ${a.verdict.toUpperCase()}: ε ≥ ${a.epsilonLowerBound.toFixed(3)} at 95% (ceiling ${a.ceiling.toFixed(2)}), attack: ${a.attack}`)
    lines.push('')
  }
  lines.push('Audit your own mechanism: dpaudit audit my-mechanism.js (see docs/auditing.md).')
  return lines.join('\n')
}

/** The demo's audit section as text. */
export const auditDemo = (): string => renderAuditDemo(auditDemoRows())
