/**
 * Inverse accounting: the smallest noise, or the largest sampling rate, number of steps or
 * per-step budget, that meets a target (ε, δ). A template is a spec whose event tree holds the
 * placeholder "$param" in one or more fields of the same name; each probe substitutes a value,
 * decodes and validates the event afresh and runs a *fresh* accountant (calibration never
 * touches a live accountant: cf. Opacus PR #264, dp_accounting's mechanism_calibration).
 * The search brackets the boundary, then bisects to the stated tolerance, and returns the side
 * of the bracket that meets the target, so the answer is always feasible.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, decodeFailure, infeasible, invalidParameter, numericFailure } from '../core/error.js'
import { decodeEvent, RelationCodec } from '../mechanisms/codec.js'
import { SCHEMA_VERSION, type PrivacyEvent } from '../mechanisms/event.js'
import { type NeighbouringRelation, PRIVACY_UNITS, RELATION_KINDS } from '../mechanisms/neighbouring.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS, type RegisteredAccountant } from './registry.js'
import { inferRelation } from './relation.js'

/** The placeholder a template puts where the searched parameter goes. */
export const PARAM = '$param'

/** How ε moves as the parameter grows, and the parameter's domain. */
interface ParamKind {
  /** 'noise': ε falls as it grows, find the smallest; 'budget': ε grows, find the largest. */
  readonly direction: 'noise' | 'budget'
  readonly integer: boolean
  readonly lower: number
  readonly upper: number
  /** Whether the upper end itself is a legal value (q = 1 is, σ = ∞ is not). */
  readonly upperInclusive: boolean
}

const KINDS: Readonly<Record<string, ParamKind>> = {
  sigma: { direction: 'noise', integer: false, lower: 0, upper: 1e8, upperInclusive: true },
  scale: { direction: 'noise', integer: false, lower: 0, upper: 1e8, upperInclusive: true },
  flipProbability: { direction: 'noise', integer: false, lower: 0, upper: 0.5, upperInclusive: false },
  n: { direction: 'noise', integer: true, lower: 1, upper: 2 ** 40, upperInclusive: true },
  q: { direction: 'budget', integer: false, lower: 0, upper: 1, upperInclusive: true },
  count: { direction: 'budget', integer: true, lower: 0, upper: 2 ** 40, upperInclusive: true },
  m: { direction: 'budget', integer: true, lower: 1, upper: 2 ** 40, upperInclusive: true },
  // TruncatedPoissonSample: a larger cap overflows less (ε falls), a larger dataset more (ε grows).
  maxBatch: { direction: 'noise', integer: true, lower: 1, upper: 2 ** 40, upperInclusive: true },
  datasetSize: { direction: 'budget', integer: true, lower: 1, upper: 2 ** 40, upperInclusive: true },
  // WithReplacementSample: more draws reach the record more often (ε grows).
  batchSize: { direction: 'budget', integer: true, lower: 1, upper: 2 ** 40, upperInclusive: true },
  epsilon: { direction: 'budget', integer: false, lower: 0, upper: 1e4, upperInclusive: true },
  rho: { direction: 'budget', integer: false, lower: 0, upper: 1e6, upperInclusive: true },
  xi: { direction: 'budget', integer: false, lower: 0, upper: 1e4, upperInclusive: true },
  mean: { direction: 'budget', integer: false, lower: 1, upper: 1e9, upperInclusive: true },
  sensitivity: { direction: 'budget', integer: false, lower: 0, upper: 1e8, upperInclusive: true },
}

/** Fields whose direction depends on the event: drawing with replacement from more records reaches the record less often. */
const KINDS_BY_TAG: Readonly<Record<string, Readonly<Record<string, ParamKind>>>> = {
  WithReplacementSample: { datasetSize: { direction: 'noise', integer: true, lower: 1, upper: 2 ** 40, upperInclusive: true } },
}

const kindOf = (tag: string | undefined, field: string): ParamKind | undefined => (tag === undefined ? undefined : KINDS_BY_TAG[tag]?.[field]) ?? KINDS[field]

export const CALIBRATABLE_FIELDS = Object.keys(KINDS)

export interface CalibrationTemplate {
  readonly schemaVersion: typeof SCHEMA_VERSION
  readonly name?: string
  readonly relation?: NeighbouringRelation
  /** The raw event tree with "$param" placeholders (decoded afresh at every probe). */
  readonly event: unknown
}

export interface CalibrateOptions {
  readonly epsilon: number
  readonly delta: number
  /** Which accountant decides feasibility; 'tightest' takes the minimum over all that answer. */
  readonly accountant?: RegisteredAccountant | 'tightest'
  /** Relative tolerance of the returned value for continuous parameters (default 1e-6). */
  readonly tolerance?: number
  readonly orders?: ReadonlyArray<number>
  /** Called after each probe (an accountant run at one parameter value), e.g. for a progress line. */
  readonly onProbe?: (probes: number, value: number) => void
}

/**
 * About how many probes a calibration takes: the bracketing doublings plus the bisection to the
 * relative tolerance (log₂ of the bracket's width over the tolerance). Used only to say "time left".
 */
export const expectedProbes = (tolerance = 1e-6): number => 16 + Math.ceil(Math.log2(8 / tolerance))

export interface Calibration {
  readonly parameter: string
  readonly direction: 'smallest' | 'largest'
  /** The value meeting the target (the conservative end of the final bracket). */
  readonly value: number
  /** The other end of the final bracket: it does not meet the target (undefined at a domain edge). */
  readonly infeasibleNeighbour: number | undefined
  readonly epsilon: number
  readonly delta: number
  readonly targetEpsilon: number
  readonly accountant: string
  readonly method: string
  readonly probes: number
  readonly tolerance: number
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** Fields holding the placeholder, with their JSON paths. */
const findPlaceholders = (u: unknown, path: string, out: Array<{ field: string; path: string; tag?: string }>): void => {
  if (Array.isArray(u)) u.forEach((c, i) => findPlaceholders(c, `${path}[${i}]`, out))
  else if (isRecord(u))
    for (const [k, v] of Object.entries(u)) {
      if (v === PARAM) out.push(typeof u['_tag'] === 'string' ? { field: k, path: `${path}.${k}`, tag: u['_tag'] } : { field: k, path: `${path}.${k}` })
      else findPlaceholders(v, `${path}.${k}`, out)
    }
}

const substitute = (u: unknown, value: number): unknown =>
  u === PARAM
    ? value
    : Array.isArray(u)
      ? u.map((c) => substitute(c, value))
      : isRecord(u)
        ? Object.fromEntries(Object.entries(u).map(([k, v]) => [k, substitute(v, value)]))
        : u

/** Decodes a calibration template (a spec document with "$param" placeholders). */
export const decodeTemplate = (u: unknown): E.Either<DpError, CalibrationTemplate> => {
  if (!isRecord(u)) return E.left(decodeFailure('$', u, 'expected a template object with "schemaVersion" and "event"'))
  if (u['schemaVersion'] !== SCHEMA_VERSION)
    return E.left(decodeFailure('$.schemaVersion', u['schemaVersion'], `expected schemaVersion ${SCHEMA_VERSION}`))
  if (!('event' in u)) return E.left(decodeFailure('$.event', undefined, 'a template needs an "event"'))
  let relation: NeighbouringRelation | undefined
  if (u['relation'] !== undefined) {
    const r = RelationCodec.decode(u['relation'])
    if (E.isLeft(r)) return E.left(decodeFailure('$.relation', u['relation'], `expected {"kind": ${RELATION_KINDS.map((k) => `"${k}"`).join('|')}, "unit": ${PRIVACY_UNITS.map((u) => `"${u}"`).join('|')}}`))
    relation = r.right
  }
  const name = typeof u['name'] === 'string' ? u['name'] : undefined
  return E.right({
    schemaVersion: SCHEMA_VERSION,
    event: u['event'],
    ...(name === undefined ? {} : { name }),
    ...(relation === undefined ? {} : { relation }),
  })
}

/** Finds the smallest noise / largest budget parameter meeting (ε, δ). */
export const calibrate = (template: CalibrationTemplate, options: CalibrateOptions): E.Either<DpError, Calibration> => {
  const { epsilon: target, delta } = options
  if (!(target > 0) || !Number.isFinite(target)) return E.left(invalidParameter('epsilon', target, 'target ε must be a finite number > 0'))
  if (!(delta >= 0 && delta < 1)) return E.left(invalidParameter('delta', delta, 'target δ must be in [0, 1) (0: pure ε-DP)'))
  const tol = options.tolerance ?? 1e-6
  if (!(tol > 0 && tol < 1)) return E.left(invalidParameter('tolerance', tol, 'must be in (0, 1)'))

  const holes: Array<{ field: string; path: string; tag?: string }> = []
  findPlaceholders(template.event, '$.event', holes)
  const first = holes[0]
  if (first === undefined)
    return E.left(decodeFailure('$.event', template.event, `a template needs "${PARAM}" in the field to calibrate (one of ${CALIBRATABLE_FIELDS.join(', ')})`))
  const other = holes.find((h) => h.field !== first.field)
  if (other !== undefined)
    return E.left(decodeFailure(other.path, PARAM, `all "${PARAM}" placeholders must sit in fields of one name (found ${first.field} and ${other.field})`))
  const kind = kindOf(first.tag, first.field)
  if (kind === undefined)
    return E.left(decodeFailure(first.path, PARAM, `cannot calibrate the field "${first.field}"; calibratable: ${CALIBRATABLE_FIELDS.join(', ')}`))
  const opposed = holes.find((h) => kindOf(h.tag, h.field)?.direction !== kind.direction)
  if (opposed !== undefined)
    return E.left(decodeFailure(opposed.path, PARAM, `"${first.field}" moves ε one way in ${first.tag ?? 'its event'} and the other in ${opposed.tag ?? 'its event'}: calibrate one of them at a time`))

  let probes = 0
  let lastMethod = ''
  let lastAccountant = ''
  // ε at a parameter value; Left on an event that fails to decode or that no accountant handles.
  const epsAt = (x: number): E.Either<DpError, number> => {
    probes++
    const ev = decodeEvent(substitute(template.event, x), '$.event')
    if (E.isLeft(ev)) return ev
    const eps = epsilonOf(ev.right, template.relation, delta, options, (acc, method) => {
      lastAccountant = acc
      lastMethod = method
    })
    options.onProbe?.(probes, x)
    return eps
  }
  const feasibleAt = (x: number): E.Either<DpError, boolean> => {
    const e = epsAt(x)
    return E.isLeft(e) ? e : E.right(e.right <= target)
  }

  // Map to a search for the boundary of a monotone predicate "meets the target".
  const noise = kind.direction === 'noise'
  const lowest = kind.integer ? kind.lower : kind.lower + Math.max(1e-12, kind.lower * 1e-12)
  const highest = kind.upperInclusive ? kind.upper : kind.upper - 1e-12
  // A feasible end and an infeasible end of the current bracket.
  let good: number | undefined
  let bad: number | undefined
  let x = kind.integer ? Math.max(kind.lower, 1) : Math.min(highest, Math.max(lowest, kind.upper === 1 || kind.upper === 0.5 ? kind.upper / 2 : 1))
  // Bracket: step geometrically towards the boundary.
  for (let i = 0; i < 200; i++) {
    const f = feasibleAt(x)
    if (E.isLeft(f)) return f
    if (f.right) good = x
    else bad = x
    if (good !== undefined && bad !== undefined) break
    // Need to move: in the 'noise' direction feasibility grows with x; in 'budget' it shrinks.
    const wantUp = noise ? !f.right : f.right
    let next: number
    if (wantUp) {
      if (x >= highest) break
      next = kind.integer ? Math.min(highest, Math.max(x + 1, x * 2)) : Math.min(highest, x < 1 && kind.upper <= 1 ? x + (highest - x) / 2 : x * 2)
    } else {
      if (x <= lowest) break
      next = kind.integer ? Math.max(lowest, Math.floor(x / 2)) : Math.max(lowest, x / 2)
    }
    if (next === x) break
    x = next
  }
  const dirWord = noise ? 'smallest' : 'largest'
  if (good === undefined) {
    const edge = noise ? highest : lowest
    return E.left(
      infeasible(
        first.path,
        `no value of ${first.field} meets ε ≤ ${target} at δ = ${delta}: even ${first.field} = ${edge} (the ${noise ? 'most' : 'least'} private value searched) does not`,
      ),
    )
  }
  if (bad === undefined) {
    // Feasible across the whole domain: the answer is the domain edge.
    const edge = noise ? lowest : highest
    const f = epsAt(edge)
    if (E.isLeft(f)) return f
    const unmet = unmetAt(first.path, first.field, edge, f.right, target, delta)
    if (unmet !== undefined) return E.left(unmet)
    return E.right({
      parameter: first.field,
      direction: dirWord,
      value: edge,
      infeasibleNeighbour: undefined,
      epsilon: f.right,
      delta,
      targetEpsilon: target,
      accountant: lastAccountant,
      method: `${lastMethod}; the target is met at the edge of the domain (${first.field} = ${edge})`,
      probes,
      tolerance: tol,
    })
  }
  // Bisection between bad and good.
  let lo = Math.min(good, bad)
  let hi = Math.max(good, bad)
  while (kind.integer ? hi - lo > 1 : hi - lo > tol * hi) {
    const mid = kind.integer ? Math.floor((lo + hi) / 2) : lo + (hi - lo) / 2
    if (mid <= lo || mid >= hi) break
    const f = feasibleAt(mid)
    if (E.isLeft(f)) return f
    const midGood = f.right
    // In the noise direction the good side is hi; in the budget direction it is lo.
    if (noise === midGood) hi = mid
    else lo = mid
  }
  const value = noise ? hi : lo
  const final = epsAt(value)
  if (E.isLeft(final)) return final
  const unmet = unmetAt(first.path, first.field, value, final.right, target, delta)
  if (unmet !== undefined) return E.left(unmet)
  return E.right({
    parameter: first.field,
    direction: dirWord,
    value,
    infeasibleNeighbour: noise ? lo : hi,
    epsilon: final.right,
    delta,
    targetEpsilon: target,
    accountant: lastAccountant,
    method: lastMethod,
    probes,
    tolerance: kind.integer ? 0 : tol,
  })
}

/**
 * The bracketing assumes ε is monotone in the parameter; the value returned is probed once more
 * and must meet the target itself, else the search is refused rather than answered (issue 30: an
 * accountant that collapsed to ε = 0 at tiny σ once let the bracket run to the edge of the domain).
 */
const unmetAt = (path: string, field: string, value: number, epsilon: number, target: number, delta: number): DpError | undefined =>
  epsilon <= target
    ? undefined
    : numericFailure(
        path,
        `calibration of ${field} ended at ${value}, where ε = ${epsilon} > ${target} at δ = ${delta}: ε is not monotone in ${field} here; no value returned`,
      )

/** ε of an event at δ under the chosen accountant, or the minimum over all that answer. */
const epsilonOf = (
  event: PrivacyEvent,
  relation: NeighbouringRelation | undefined,
  delta: number,
  options: CalibrateOptions,
  record: (accountant: string, method: string) => void,
): E.Either<DpError, number> => {
  const rel = relation !== undefined ? E.right(relation) : inferRelation(event, '$.event')
  if (E.isLeft(rel)) return rel
  const choice = options.accountant ?? 'tightest'
  const names = choice === 'tightest' ? ACCOUNTANT_NAMES : [choice]
  let best: { eps: number; acc: string; method: string } | undefined
  let firstError: DpError | undefined
  for (const name of names) {
    const acc = ACCOUNTANTS[name](options.orders === undefined ? { relation: rel.right } : { relation: rel.right, orders: options.orders })
    const run = acc.run(event, '$.event')
    const ans = E.isLeft(run) ? run : run.right.epsilon(delta)
    if (E.isLeft(ans)) {
      firstError ??= ans.left
      continue
    }
    if (best === undefined || ans.right.epsilon < best.eps) best = { eps: ans.right.epsilon, acc: name, method: ans.right.method }
  }
  if (best === undefined)
    return E.left(firstError ?? infeasible('$.event', 'no accountant could account for the template'))
  record(best.acc, best.method)
  return E.right(best.eps)
}

