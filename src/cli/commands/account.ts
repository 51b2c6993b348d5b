/**
 * `dpaudit account <spec.json> [--delta D ...] [--accountant NAME,... | all] [--orders a,b,...] [--json] [--quiet]`
 *
 * Accountant names are one vocabulary with `calibrate`: a registered name, or `all` / `tightest`
 * (synonyms: every accountant runs, and the tightest answer is reported). An empty array of specs
 * is refused (exit 1): there is nothing to account. On a terminal (stderr; not with --quiet) an
 * array of more than a few specs shows a progress line with the count, the rate and the time left;
 * fewer specs show a line only while one of them runs longer than 2 s (one PLD of a large
 * composition can take minutes).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type AccountReport, account } from '../../accounting/account.js'
import { ACCOUNTANT_NAMES, isAccountantName, type RegisteredAccountant } from '../../accounting/registry.js'
import { DEFAULT_ORDERS, rdpCurveAtOrders, validateOrders } from '../../accounting/rdp/index.js'
import { formatError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { decodeSpecs, type Spec } from '../../mechanisms/codec.js'
import { renderAccountReport, showNumber, table } from '../../report/format.js'
import { parseNumber, parseNumberList, readJsonFile } from '../io.js'
import { progressLine, slowStepLine } from '../progress.js'
import type { CommandResult, OutputSink } from './result.js'
import { inferRelation } from '../../accounting/relation.js'

export interface AccountArgs {
  readonly file: string
  readonly deltas: ReadonlyArray<string>
  readonly accountant: ReadonlyArray<string>
  readonly orders: string | undefined
  /** PLD discretisation interval. */
  readonly interval?: string | undefined
  readonly json: boolean
  /** No progress line. */
  readonly quiet?: boolean
  /** Write each spec's answer here as soon as it is computed (not with --json); the result then has no stdout. */
  readonly emit?: OutputSink
  /** Where progress goes (tests): default stderr, drawn on only when it is a terminal. */
  readonly progressTo?: {
    readonly stream: { readonly isTTY?: boolean; readonly fd: number; write(s: string): unknown }
    /** A single spec is shown once it runs this long (ms, default 2000). */
    readonly afterMs?: number
    readonly everyMs?: number
  }
}

/** Accountant choices that mean "every accountant, reported with the tightest" (shared with calibrate). */
export const ALL_ACCOUNTANTS = ['all', 'tightest'] as const
export const isAllAccountants = (name: string): boolean => (ALL_ACCOUNTANTS as ReadonlyArray<string>).includes(name)

export const DEFAULT_DELTAS = [1e-5] as const

/** What the JSON says of the answers' `lower` and `estimate` (PLD), so no reader takes them for guarantees. */
export const BRACKET_NOTE =
  'each answer\'s "epsilon" is the guarantee; "lower" and "estimate" (PLD answers) are NOT guarantees: the true ε of the ' +
  'accounted pairs lies in [lower, epsilon] (an optimistic discretisation, Doroshenko et al. 2022), and estimate is the ' +
  'centre of that bracket, as PRV\'s (eps_low, eps_estimate, eps_upper) (Gopi, Lee & Wutschitz 2021)'

/** The flags that say what to compute: δ values, accountants, RDP orders, PLD interval (a message naming the flag if one is bad). */
interface AccountOptions {
  readonly deltas: number[]
  readonly accountants: ReadonlyArray<RegisteredAccountant>
  readonly orders: ReadonlyArray<number> | undefined
  readonly interval: number | undefined
}

const accountOptions = (args: AccountArgs): E.Either<string, AccountOptions> => {
  const deltas: number[] = []
  for (const raw of args.deltas.length === 0 ? DEFAULT_DELTAS.map(String) : args.deltas) {
    const d = parseNumber('delta', raw)
    if (E.isLeft(d)) return d
    if (!(d.right >= 0 && d.right < 1)) return E.left(`--delta: δ must be in [0, 1) (0: pure ε-DP) (got ${raw})`)
    deltas.push(d.right)
  }
  const chosen = args.accountant.flatMap((a) => a.split(',')).map((a) => a.trim())
  const bad = chosen.find((a) => !isAccountantName(a) && !isAllAccountants(a))
  if (bad !== undefined) return E.left(`--accountant: unknown accountant "${bad}" (one of ${ACCOUNTANT_NAMES.join(', ')}, or all/tightest for every one)`)
  const accountants: ReadonlyArray<RegisteredAccountant> = chosen.length > 0 && !chosen.some(isAllAccountants) ? chosen.filter(isAccountantName) : ACCOUNTANT_NAMES
  let orders: ReadonlyArray<number> | undefined
  if (args.orders !== undefined) {
    const o = parseNumberList('orders', args.orders)
    if (E.isLeft(o)) return o
    const v = validateOrders(o.right)
    if (E.isLeft(v)) return E.left(`--orders: ${formatError(v.left)}`)
    orders = o.right
  }
  let interval: number | undefined
  if (args.interval !== undefined) {
    const h = parseNumber('interval', args.interval)
    if (E.isLeft(h)) return h
    if (!(h.right > 0) || !Number.isFinite(h.right)) return E.left(`--interval: the PLD discretisation interval must be a finite number > 0 (got ${args.interval})`)
    interval = h.right
  }
  return E.right({ deltas, accountants, orders, interval })
}

type Reported = { report: AccountReport; curve?: ReadonlyArray<{ order: number; rdp: number }> | string }

/**
 * Accounts each spec in turn, with progress (many specs: the count, rate and time left; a few: a timer
 * for one that runs long), streaming each answer to `emit` as it is found; a reader that has gone
 * (`| head`) ends the work. The reports, or the failing spec's message.
 */
const accountEach = (args: AccountArgs, specs: ReadonlyArray<Spec>, o: AccountOptions, emit: AccountArgs['emit'] | undefined): E.Either<string, { readonly reports: Reported[]; readonly gone: boolean }> => {
  const many = specs.length >= 4
  const to = args.progressTo
  const progress = progressLine({ label: 'account', unit: 'specs', quiet: args.quiet === true || !many, ...(to === undefined ? {} : { stream: to.stream }) })
  const slow = slowStepLine({
    label: 'account',
    quiet: args.quiet === true || many,
    ...(to === undefined ? {} : { stream: to.stream }),
    ...(to?.afterMs === undefined ? {} : { afterMs: to.afterMs }),
    ...(to?.everyMs === undefined ? {} : { everyMs: to.everyMs }),
  })
  const { deltas, accountants, orders, interval } = o
  // --orders asks for the curve at those orders; the conversion optimises over them together with
  // the default grid (more orders can only tighten a minimum of valid bounds).
  const grid = orders === undefined ? undefined : [...new Set([...DEFAULT_ORDERS, ...orders])].sort((a, b) => a - b)
  const reports: Reported[] = []
  let gone = false
  for (const [i, spec] of specs.entries()) {
    slow.step(`spec ${i + 1} / ${specs.length}`)
    const r = account(spec, { deltas, accountants, ...(grid === undefined ? {} : { orders: grid }), ...(interval === undefined ? {} : { interval }) })
    progress.update(i + 1, specs.length)
    if (E.isLeft(r)) {
      progress.done()
      slow.done()
      return E.left(`${args.file}${specs.length > 1 ? `[${i}]` : ''}: ${formatError(r.left)}`)
    }
    if (orders === undefined) reports.push({ report: r.right })
    else {
      const rel = spec.relation !== undefined ? E.right(spec.relation) : inferRelation(spec.event, '$.event')
      const curve = E.isLeft(rel) ? rel : rdpCurveAtOrders(spec.event, rel.right, orders)
      reports.push({ report: r.right, curve: E.isLeft(curve) ? formatError(curve.left) : orders.map((order, k) => ({ order, rdp: curve.right[k] as number })) })
    }
    if (emit !== undefined && !emit(`${i === 0 ? '' : '\n\n'}${renderOne(reports[reports.length - 1] as Reported)}`)) {
      gone = true
      break
    }
  }
  progress.done()
  slow.done()
  return E.right({ reports, gone })
}

export const runAccount = (args: AccountArgs): CommandResult => {
  const o = accountOptions(args)
  if (E.isLeft(o)) return { code: 1, stderr: o.left }
  const raw = readJsonFile(args.file)
  if (E.isLeft(raw)) return { code: 1, stderr: raw.left }
  const specs = decodeSpecs(raw.right)
  if (E.isLeft(specs)) return { code: 1, stderr: `${args.file}: ${formatError(specs.left)}` }
  if (specs.right.length === 0) return { code: 1, stderr: `${args.file}: an empty array of specs: nothing to account (give a spec object or a non-empty array)` }
  // streamed, each answer is written as it is found
  const emit = args.json ? undefined : args.emit
  const done = accountEach(args, specs.right, o.right, emit)
  if (E.isLeft(done)) return { code: 1, stderr: done.left }
  const { reports, gone } = done.right
  if (gone) return { code: 0 }
  const anyAnswered = reports.every((r) => r.report.results.some((x) => x.ok))
  if (args.json) {
    const doc = {
      schemaVersion: 1,
      tool: 'dpaudit account',
      deltas: o.right.deltas,
      bracketNote: BRACKET_NOTE,
      reports: reports.map((r) => ({ ...r.report, ...(r.curve === undefined ? {} : { rdpCurve: r.curve }) })),
    }
    return { code: anyAnswered ? 0 : 2, stdout: stringifyJson(doc, 2) }
  }
  if (emit !== undefined) {
    emit('\n')
    return { code: anyAnswered ? 0 : 2 }
  }
  return { code: anyAnswered ? 0 : 2, stdout: reports.map(renderOne).join('\n\n') }
}

const renderOne = ({ report, curve }: { report: AccountReport; curve?: ReadonlyArray<{ order: number; rdp: number }> | string }): string => {
  const parts = [renderAccountReport(report)]
  if (typeof curve === 'string') parts.push(`RDP curve: cannot compute: ${curve}`)
  else if (curve !== undefined) parts.push('RDP curve (ε(α) of the whole spec):', table(['α', 'ε(α)'], curve.map((c) => [String(c.order), showNumber(c.rdp, 6)])))
  return parts.join('\n')
}
