/**
 * What the report says about a plan: the privacy statement (ε at several δ by dpaudit's
 * accountants), the ledger (the event tree flattened) and the privacy curves — every number
 * recomputed from the plan of a model or the event of a spec, never copied from a file.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../../accounting/account.js'
import { rdpCurve } from '../../accounting/rdp/curve.js'
import { type DpError, formatError, invalidParameter } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { encodeEvent, relationFromText } from '../../mechanisms/codec.js'
import { type PrivacyEvent, selfCompose } from '../../mechanisms/event.js'
import { inferRelation } from '../../accounting/relation.js'
import { type NeighbouringRelation, RELATION_SYNTAX, showRelation } from '../../mechanisms/neighbouring.js'
import type { ModelFile } from '../../trainers/model-file.js'
import type { Spec } from '../../mechanisms/codec.js'
import { tightestEpsilon } from '../claims/evidence.js'
import type { CurvesSection, LedgerSection, PrivacySection } from './document.js'

/** δ values of the statement's table (unless the manifest gives its own). */
export const REPORT_DELTAS: ReadonlyArray<number> = [1e-3, 1e-5, 1e-7, 1e-9]
/** The δ grid of the privacy profile. */
export const PROFILE_DELTAS: ReadonlyArray<number> = Array.from({ length: 23 }, (_, i) => 10 ** (-1 - i / 2))
/** RDP orders of the ε(α) curve. */
export const CURVE_ORDERS: ReadonlyArray<number> = [1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 96, 128, 192, 256]
/** Points of the ε-by-iteration curve (at most). */
export const ITERATION_POINTS = 10
/** Ledger rows kept (a 16,000-step SelfCompose is one row; a flat Compose of many leaves is cut here). */
export const MAX_LEDGER_ROWS = 300

export interface Versions {
  readonly vega: string
  readonly vegaLite: string
}

/** "replace-one one word" (showRelation) back to a relation. */
export const parseRelation = (s: string): E.Either<DpError, NeighbouringRelation> => {
  const r = relationFromText(s)
  return r === undefined ? E.left(invalidParameter('privacy.accountedUnder', s, `expected "${RELATION_SYNTAX}"`)) : E.right(r)
}

const strip = (e: PrivacyEvent): PrivacyEvent => (e._tag === 'Labeled' ? strip(e.event) : e)

const parameters = (e: PrivacyEvent): string => {
  const { _tag, ...rest } = e as unknown as Record<string, unknown>
  void _tag
  const shown = Object.entries(rest)
    .filter(([k]) => k !== 'event' && k !== 'events' && k !== 'label')
    .map(([k, v]) => `${k} = ${k === 'relation' && typeof v === 'object' && v !== null ? showRelation(v as NeighbouringRelation) : typeof v === 'number' ? String(Number(v.toPrecision(6))) : JSON.stringify(v)}`)
  return shown.join(', ')
}

/** The event tree flattened: one row per event (labels folded into the event they name), SelfCompose counts multiplied down. */
export const ledger = (event: PrivacyEvent): LedgerSection => {
  const rows: Array<LedgerSection['rows'][number]> = []
  let events = 0
  const walk = (e: PrivacyEvent, path: string, depth: number, repeats: number, label: string): void => {
    if (e._tag === 'Labeled') return walk(e.event, path, depth, repeats, label === '' ? e.label : `${label} › ${e.label}`)
    events++
    if (rows.length < MAX_LEDGER_ROWS) rows.push({ path, depth, tag: e._tag, label, parameters: parameters(e), repeats })
    switch (e._tag) {
      case 'Compose':
        e.events.forEach((c, i) => walk(c, `${path}.events[${i}]`, depth + 1, repeats, ''))
        return
      case 'SelfCompose':
        return walk(e.event, `${path}.event`, depth + 1, repeats * e.count, '')
      case 'PoissonSample':
      case 'TruncatedPoissonSample':
      case 'SampleWithoutReplacement':
      case 'WithReplacementSample':
      case 'RepeatAndSelect':
        return walk(e.event, `${path}.event`, depth + 1, repeats, '')
      default:
        return
    }
  }
  walk(event, '$', 0, 1, '')
  return { sha256: createHash('sha256').update(stringifyJson(encodeEvent(event))).digest('hex'), events, rows, truncated: events > rows.length }
}

/** The privacy curves of an event under a relation: profile, RDP ε(α), ε by iteration at δ. */
export const curves = (event: PrivacyEvent, relation: NeighbouringRelation, delta: number): CurvesSection => {
  const spec = { schemaVersion: 1 as const, relation, event }
  const prof = account(spec, { deltas: PROFILE_DELTAS })
  const profile: CurvesSection['profile'] = E.isLeft(prof)
    ? { ok: false, reason: formatError(prof.left) }
    : prof.right.tightest.length === 0
      ? { ok: false, reason: 'no accountant could answer' }
      : {
          ok: true,
          points: prof.right.tightest.filter((t) => Number.isFinite(t.epsilon)).map((t) => ({ epsilon: t.epsilon, delta: t.delta })),
          method: `the tightest of dpaudit's accountants at each δ (${[...new Set(prof.right.tightest.map((t) => t.accountant))].join(', ')})`,
        }
  const r = rdpCurve(event, relation, CURVE_ORDERS)
  const rdp: CurvesSection['rdp'] = E.isLeft(r)
    ? { ok: false, reason: formatError(r.left) }
    : { ok: true, points: CURVE_ORDERS.map((order, i) => ({ order, epsilon: r.right[i] as number })).filter((p) => Number.isFinite(p.epsilon)), method: "dpaudit's RDP accountant: the composed curve at each order" }
  const top = strip(event)
  let byIteration: CurvesSection['byIteration']
  if (top._tag !== 'SelfCompose') byIteration = { ok: false, reason: `the plan is not one step repeated (its root is ${top._tag}), so it has no iteration axis` }
  else {
    const k = top.count
    const its = [...new Set(Array.from({ length: Math.min(ITERATION_POINTS, k) }, (_, i) => Math.max(1, Math.round(((i + 1) * k) / Math.min(ITERATION_POINTS, k)))))]
    const points: Array<{ iteration: number; epsilon: number }> = []
    let failure: string | undefined
    for (const i of its) {
      const a = tightestEpsilon(selfCompose(top.event, i), relation, delta)
      if (E.isLeft(a)) {
        failure = formatError(a.left)
        break
      }
      points.push({ iteration: i, epsilon: a.right.epsilon })
    }
    byIteration = failure !== undefined ? { ok: false, reason: failure } : { ok: true, points, method: `the tightest of dpaudit's accountants on the first i of ${k} steps, at δ = ${delta}` }
  }
  return { profile: finiteOrWhy(profile), rdp: finiteOrWhy(rdp), byIteration: finiteOrWhy(byIteration), delta }
}

/** A curve with no finite point (a NonPrivate part: ε = ∞ everywhere) is reported as not drawable, with why. */
const finiteOrWhy = <C extends { ok: true; points: ReadonlyArray<{ epsilon: number }>; method: string } | { ok: false; reason: string }>(c: C): C | { ok: false; reason: string } => {
  if (!c.ok) return c
  const finite = c.points.filter((p) => Number.isFinite(p.epsilon))
  return finite.length === 0 ? { ok: false, reason: 'ε = ∞ at every point: the plan has a part no accountant can bound (NonPrivate)' } : { ...c, points: finite }
}

export const statementFromEvent = (subject: string, event: PrivacyEvent, relation: NeighbouringRelation, deltas: ReadonlyArray<number>): E.Either<DpError, PrivacySection> => {
  const r = account({ schemaVersion: 1, relation, event }, { deltas })
  if (E.isLeft(r)) return r
  const notes = r.right.results.flatMap((x) => (x.ok ? x.notes : [`${x.accountant} could not answer: ${x.message}`]))
  return E.right({
    subject,
    protects: showRelation(relation),
    accountedUnder: showRelation(relation),
    assumptions: [],
    epsilonAtDelta: deltas.map((d) => {
      const t = r.right.tightest.find((x) => x.delta === d)
      return t === undefined ? { delta: d, epsilon: Number.POSITIVE_INFINITY, accountant: 'none', method: 'no accountant could answer' } : { delta: d, epsilon: t.epsilon, accountant: t.accountant, method: t.method }
    }),
    notes: [...new Set(notes)],
  })
}

/** The package version from package.json (three folders up from src/report/audit and dist/report/audit). */
export const dpauditVersion = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string }
    return pkg.version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

export const modelRelation = (m: ModelFile): E.Either<DpError, NeighbouringRelation> => parseRelation(m.privacy.accountedUnder)

/** A model's privacy statement: the accountants' table on its plan, with what the model recorded (claim, assumptions, guarantee). */
export const modelStatement = (m: ModelFile, deltas: ReadonlyArray<number>): E.Either<DpError, { privacy: PrivacySection; event: PrivacyEvent; relation: NeighbouringRelation }> => {
  const rel = modelRelation(m)
  if (E.isLeft(rel)) return rel
  const plan = m.privacy.plan as PrivacyEvent
  const st = statementFromEvent(m.trainer, plan, rel.right, deltas)
  if (E.isLeft(st)) return st
  const privacy: PrivacySection = {
    ...st.right,
    protects: m.privacy.protects,
    accountedUnder: m.privacy.accountedUnder,
    assumptions: [...m.privacy.assumptions],
    notes: [...(m.privacy.protects !== m.privacy.accountedUnder ? [`the table is under ${m.privacy.accountedUnder}; the guarantee under ${m.privacy.protects} is the recorded one`] : []), ...m.privacy.notes, ...st.right.notes],
    claim: { source: m.privacy.claim.source, statement: m.privacy.claim.statement, atDelta: m.privacy.claim.atDelta.map((c) => ({ delta: c.delta, epsilon: c.epsilon })) },
    recorded: m.privacy.guarantee.map((g) => ({ ...g })),
  }
  return E.right({ privacy, event: plan, relation: rel.right })
}

/** A spec's privacy statement: the accountants' table on its event, under its relation (or the one its leaves share). */
export const specStatement = (s: Spec, subject: string, deltas: ReadonlyArray<number>): E.Either<DpError, { privacy: PrivacySection; event: PrivacyEvent; relation: NeighbouringRelation }> => {
  const rel = s.relation === undefined ? inferRelation(s.event) : E.right(s.relation)
  if (E.isLeft(rel)) return rel
  const st = statementFromEvent(subject, s.event, rel.right, deltas)
  if (E.isLeft(st)) return st
  return E.right({ privacy: { ...st.right, ...(s.description === undefined ? {} : { notes: [s.description, ...st.right.notes] }) }, event: s.event, relation: rel.right })
}
