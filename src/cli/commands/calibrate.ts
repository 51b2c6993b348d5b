/**
 * `dpaudit calibrate <template.json> --epsilon E --delta D [--accountant NAME|tightest] [--tolerance T] [--json]`
 *
 * Accountant names are one vocabulary with `account`: a registered name, or `tightest` / `all`
 * (synonyms: feasibility by the smallest ε of every accountant that answers).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type Calibration, calibrate, decodeTemplate, expectedProbes } from '../../accounting/calibrate.js'
import { ACCOUNTANT_NAMES, isAccountantName } from '../../accounting/registry.js'
import { formatError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { roundEpsilon, showDelta } from '../../report/format.js'
import { parseNumber, readJsonFile } from '../io.js'
import { type Progress, progressLine } from '../progress.js'
import type { CommandResult } from './result.js'
import { isAllAccountants } from './account.js'

export interface CalibrateArgs {
  readonly file: string
  readonly epsilon: string | undefined
  readonly delta: string | undefined
  readonly accountant: string | undefined
  readonly tolerance: string | undefined
  readonly json: boolean
  /** `--quiet`: no progress line. */
  readonly quiet?: boolean
  /** Where the progress line goes (tests); default stderr when it is a terminal. */
  readonly progress?: Progress
}

/**
 * The calibration for a reader: the parameter rounded to 5 significant digits towards the safe side
 * (up for a smallest σ, down for a largest rate: the rounded value meets the target too, the
 * accountant being monotone in it; integers as found), ε rounded up as the account table rounds it
 * (roundEpsilon). `--json` keeps the exact values.
 */
export const showCalibration = (c: Calibration): string => {
  const value = Number.isInteger(c.value) ? String(c.value) : c.direction === 'smallest' ? roundEpsilon(c.value) : roundEpsilon(-c.value).replace(/^-/, '')
  const rounded = Number.isInteger(c.value) ? '' : ` (rounded ${c.direction === 'smallest' ? 'up' : 'down'}, to the safe side)`
  return (
    `${c.direction} ${c.parameter} ≈ ${value}${rounded} gives ε ≤ ${roundEpsilon(c.epsilon)} ` +
    `(target ${c.targetEpsilon}) at δ = ${showDelta(c.delta)}; ${c.accountant}: ${c.method}; ${c.probes} probes`
  )
}

export const runCalibrate = (args: CalibrateArgs): CommandResult => {
  const eps = parseNumber('epsilon', args.epsilon)
  if (E.isLeft(eps)) return { code: 1, stderr: eps.left }
  const delta = parseNumber('delta', args.delta)
  if (E.isLeft(delta)) return { code: 1, stderr: delta.left }
  let tolerance: number | undefined
  if (args.tolerance !== undefined) {
    const t = parseNumber('tolerance', args.tolerance)
    if (E.isLeft(t)) return { code: 1, stderr: t.left }
    tolerance = t.right
  }
  const name = (args.accountant ?? 'tightest').trim()
  if (!isAllAccountants(name) && !isAccountantName(name))
    return { code: 1, stderr: `--accountant: unknown accountant "${name}" (one of ${ACCOUNTANT_NAMES.join(', ')}, or tightest/all for the smallest ε of every one)` }
  const acc = isAccountantName(name) ? name : 'tightest'
  const raw = readJsonFile(args.file)
  if (E.isLeft(raw)) return { code: 1, stderr: raw.left }
  const template = decodeTemplate(raw.right)
  if (E.isLeft(template)) return { code: 1, stderr: `${args.file}: ${formatError(template.left)}` }
  // every probe runs an accountant (a PLD probe can take seconds): a progress line on a terminal
  const bar = args.progress ?? progressLine({ label: 'calibrate', unit: 'probes', quiet: args.json || args.quiet === true })
  const expected = expectedProbes(tolerance)
  const result = calibrate(template.right, {
    epsilon: eps.right,
    delta: delta.right,
    accountant: acc,
    ...(tolerance === undefined ? {} : { tolerance }),
    ...(bar.active ? { onProbe: (n: number, x: number) => bar.update(n, Math.max(expected, n + 1), `probing ${x.toPrecision(6)}`) } : {}),
  })
  bar.done()
  if (E.isLeft(result)) {
    const e = result.left
    const code = e._tag === 'InvalidParameter' || e._tag === 'DecodeFailure' ? 1 : 2
    return { code, stderr: `${args.file}: ${formatError(e)}` }
  }
  return args.json
    ? { code: 0, stdout: stringifyJson({ schemaVersion: 1, tool: 'dpaudit calibrate', ...result.right }, 2) }
    : { code: 0, stdout: showCalibration(result.right) }
}
