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
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { basename, extname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { type AuditProgress, type AuditResult, auditMechanism, auditZoo } from '../../attacks/audit.js'
import { type Claim, validateClaim } from '../../attacks/claim.js'
import { formatAuditResult } from '../../attacks/format.js'
import type { NeighbourPair } from '../../attacks/pairs.js'
import { describeModule, workerScriptUrl } from '../../attacks/pool.js'
import { ZOO, ZOO_NAMES, zooEntry } from '../../attacks/zoo/index.js'
import { formatError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { type CommandResult, EXIT } from './result.js'

/** Exit codes of `dpaudit audit` beyond the shared ones. */
export const AUDIT_EXIT = { consistent: 0, violation: 3, inconclusive: 4 } as const

export const AUDIT_USAGE = `usage: dpaudit audit <module.js | zoo:NAME> [--trials N] [--seed S] [--confidence C] [--workers W]
                     [--epsilon E] [--delta D] [--out FILE] [--checkpoint FILE] [--json] [--quiet]
  the module exports mechanism(input, rng), pairs ([{ input, neighbour, label? }] or a function returning them)
  and claim ({ epsilon, delta }); --epsilon/--delta override the claim. zoo names: ${ZOO_NAMES.join(', ')}
  defaults: --trials 200000 (zoo: the entry's suggestion), --seed dpaudit, --confidence 0.95, --workers all cores,
  --out <name>.audit.json. exit codes: 0 consistent, 3 violation, 4 inconclusive, 1 bad input`

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
  /** Print the JSON document on stdout instead of the summary (the file is then written only with --out). */
  readonly json?: boolean | undefined
  /** Called with one-line progress reports during the audit. */
  readonly progress?: ((line: string) => void) | undefined
}

const DEFAULT_TRIALS = 200_000

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

const progressReporter = (report: ((line: string) => void) | undefined): ((p: AuditProgress) => void) | undefined => {
  if (report === undefined) return undefined
  const t0 = Date.now()
  let last = 0
  return (p) => {
    const now = Date.now()
    if (now - last < 500 && p.trialsDone < p.trialsTotal) return
    last = now
    const rate = (p.trialsDone - p.trialsResumed) / Math.max(1e-3, (now - t0) / 1000)
    report(
      `audit: ${p.phase === 'select' ? 'choosing the attack' : 'estimating'}  ${p.trialsDone.toLocaleString('en-US')} / ${p.trialsTotal.toLocaleString('en-US')} trials (${(
        (100 * p.trialsDone) /
        Math.max(1, p.trialsTotal)
      ).toFixed(0)}%, ${(rate / 1e6).toFixed(2)} M/s${p.trialsResumed > 0 ? `, ${p.trialsResumed.toLocaleString('en-US')} resumed from the checkpoint` : ''})`,
    )
  }
}

/** Runs `dpaudit audit` on parsed arguments. */
export const runAudit = (args: AuditArgs): CommandResult => {
  const isZoo = args.target.startsWith('zoo:')
  const zooName = isZoo ? args.target.slice(4) : ''
  const entry = isZoo ? zooEntry(zooName) : undefined
  if (isZoo && entry === undefined)
    return { code: EXIT.input, stderr: `audit: no zoo mechanism "${zooName}" (one of ${ZOO_NAMES.join(', ')})` }
  const trials = positiveInt('trials', args.trials, entry?.suggestedTrials ?? DEFAULT_TRIALS)
  if (E.isLeft(trials)) return { code: EXIT.input, stderr: trials.left }
  const canPool = compiledWorkerExists()
  const workers = positiveInt('workers', args.workers, canPool ? availableParallelism() : 1)
  if (E.isLeft(workers)) return { code: EXIT.input, stderr: workers.left }
  const confidence = number('confidence', args.confidence)
  if (E.isLeft(confidence)) return { code: EXIT.input, stderr: confidence.left }
  const eps = number('epsilon', args.epsilon)
  if (E.isLeft(eps)) return { code: EXIT.input, stderr: eps.left }
  const del = number('delta', args.delta)
  if (E.isLeft(del)) return { code: EXIT.input, stderr: del.left }
  const seed = args.seed ?? 'dpaudit'
  const onProgress = progressReporter(args.progress)
  const common = {
    trials: trials.right,
    seed,
    workers: workers.right,
    ...(confidence.right === undefined ? {} : { confidence: confidence.right }),
    ...(args.checkpoint === undefined ? {} : { checkpoint: args.checkpoint }),
    ...(onProgress === undefined ? {} : { onProgress }),
  }
  const overrideClaim = (base: Claim | undefined): E.Either<string, Claim> => {
    const raw = { epsilon: eps.right ?? base?.epsilon, delta: del.right ?? base?.delta ?? 0 }
    const c = validateClaim(raw)
    return E.isLeft(c) ? E.left(`audit: ${formatError(c.left)}`) : E.right(c.right)
  }

  const t0 = Date.now()
  let result: E.Either<string, AuditResult>
  let name: string
  if (entry !== undefined) {
    const claim = overrideClaim(entry.defaultClaim)
    if (E.isLeft(claim)) return { code: EXIT.input, stderr: claim.left }
    name = entry.name
    const r = auditZoo(entry.name, { ...common, claim: claim.right })
    result = E.isLeft(r) ? E.left(`audit: ${formatError(r.left)}`) : E.right(r.right)
  } else {
    const file = resolve(args.target)
    if (!existsSync(file)) return { code: EXIT.input, stderr: `audit: ${args.target}: no such file` }
    if (!canPool)
      return {
        code: EXIT.input,
        stderr: `audit: auditing a module needs the compiled worker (${fileURLToPath(workerScriptUrl())}); run \`npm run build\` first`,
      }
    const described = describeModule(file)
    if (E.isLeft(described)) return { code: EXIT.input, stderr: `audit: ${args.target}: ${formatError(described.left)}` }
    const d = described.right.description
    const claimFromModule = typeof d.claim === 'object' && d.claim !== null ? (d.claim as Claim) : undefined
    if (claimFromModule === undefined && eps.right === undefined)
      return { code: EXIT.input, stderr: `audit: ${args.target}: the module exports no \`claim\` ({ epsilon, delta }); export one or pass --epsilon` }
    const claim = overrideClaim(claimFromModule)
    if (E.isLeft(claim)) return { code: EXIT.input, stderr: claim.left }
    if (!Array.isArray(d.pairs))
      return { code: EXIT.input, stderr: `audit: ${args.target}: the module must export \`pairs\`: an array of { input, neighbour, label? } (or a function returning one)` }
    name = typeof d.name === 'string' ? d.name : basename(file, extname(file))
    const r = auditMechanism<unknown>({ ...common, mechanism: described.right.ref, pairs: d.pairs as ReadonlyArray<NeighbourPair<unknown>>, claim: claim.right, name })
    result = E.isLeft(r) ? E.left(`audit: ${args.target}: ${formatError(r.left)}`) : E.right(r.right)
  }
  if (E.isLeft(result)) return { code: EXIT.input, stderr: result.left }
  const r = result.right
  const elapsedMs = Date.now() - t0
  const doc = {
    schemaVersion: 1,
    tool: 'dpaudit audit',
    target: args.target,
    node: process.version,
    options: { trials: trials.right, seed, confidence: r.confidence, workers: workers.right },
    timing: { elapsedMs, trialsPerSecond: r.trials.spent / Math.max(1e-3, elapsedMs / 1000) },
    result: r,
  }
  const json = stringifyJson(doc, 2)
  const out = args.out ?? (args.json === true ? undefined : `${name.replace(/[^\w.-]+/g, '_')}.audit.json`)
  const notes: string[] = []
  if (out !== undefined) {
    try {
      writeFileSync(out, `${json}\n`)
      notes.push(`full result: ${out}`)
    } catch (e) {
      return { code: EXIT.input, stdout: formatAuditResult(r), stderr: `audit: cannot write ${out}: ${e instanceof Error ? e.message : String(e)}` }
    }
  }
  if (args.checkpoint !== undefined && r.status === 'complete') rmSync(args.checkpoint, { force: true })
  const code = AUDIT_EXIT[r.verdict]
  const timing = `${(elapsedMs / 1000).toFixed(1)} s on ${workers.right} worker${workers.right === 1 ? '' : 's'}`
  if (args.json === true) return { code, stdout: json, ...(notes.length > 0 ? { stderr: notes.join('\n') } : {}) }
  return { code, stdout: [formatAuditResult(r), `${timing}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`].join('\n') }
}

/** Parses `dpaudit audit` arguments (everything after the word "audit") and runs it. */
export const runAuditCommand = (argv: ReadonlyArray<string>): CommandResult => {
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
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
    },
  })
  const target = positionals[0]
  if (target === undefined || positionals.length > 1) return { code: EXIT.input, stderr: AUDIT_USAGE }
  // Progress goes to a terminal only: it is a side channel, not part of the result.
  const tty = process.stderr.isTTY === true && !values.quiet
  let printed = false
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
    json: values.json,
    progress: tty
      ? (line) => {
          printed = true
          process.stderr.write(`\r${line}\x1b[K`)
        }
      : undefined,
  })
  // Clear the progress line so the summary starts on a clean line.
  if (printed) process.stderr.write('\r\x1b[K')
  return result
}

/**
 * The audit part of `dpaudit demo`: a seeded audit of a correct mechanism (Laplace) and a broken
 * one (a histogram with the noise scale inverted), in this thread, in well under a second.
 */
export const auditDemo = (): string => {
  const lines = [
    'Auditing mechanisms as code: an accountant bounds ε from above, an audit from below.',
    'Two mechanisms, 200,000 trials each, seed "demo", 95% confidence:',
    '',
  ]
  for (const name of ['laplace', 'histogram-inverted']) {
    const entry = ZOO.find((e) => e.name === name)
    const r = auditZoo(name, { seed: 'demo', trials: 200_000 })
    if (entry === undefined || E.isLeft(r)) {
      lines.push(`${name}: ${E.isLeft(r) ? formatError(r.left) : 'missing'}`)
      continue
    }
    const a = r.right
    lines.push(`${entry.broken ? 'broken' : 'correct'}: ${entry.summary}`)
    lines.push(`  claim ε = ${a.claim.epsilon}; true ε = ${entry.trueEpsilon(a.claim)}${entry.bug === null ? '' : ` (${entry.bug})`}`)
    lines.push(
      `  → ${a.verdict.toUpperCase()}: ε ≥ ${a.epsilonLowerBound.toFixed(3)} at 95% (ceiling ${a.ceiling.toFixed(2)}), attack: ${a.attack?.description ?? 'none'}`,
    )
    lines.push('')
  }
  lines.push('Audit your own mechanism: dpaudit audit my-mechanism.js (see docs/auditing.md).')
  return lines.join('\n')
}
