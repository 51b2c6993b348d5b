/**
 * `report(inputs)`: a report from values in memory — model files, audit results of any kind,
 * specs, claim ids — with no file and no CLI document in between. It returns the canonical JSON (and
 * its text, what report.json holds) with the renderers: Markdown, the self-contained HTML page, the
 * chart SVGs, and `write(dir)` for the whole folder. Every value is checked as a file would be (a
 * model file's parts must agree, an audit's verdict must follow from its numbers), and every input
 * is named and hashed (the SHA-256 of its canonical JSON) for the reproducibility section.
 *
 * ```ts
 * import * as E from 'fp-ts/lib/Either.js'
 * import { auditZoo } from 'dpaudit/attacks'
 * import { report } from 'dpaudit/report'
 *
 * const audit = auditZoo('laplace', { trials: 20_000, seed: 'docs', workers: 1 })
 * if (E.isRight(audit)) {
 *   const r = await report({
 *     title: 'Laplace, audited',
 *     subjects: [{ name: 'Laplace, b = 1', claim: { epsilon: 1, delta: 0, source: 'the textbook' }, audits: [{ name: 'laplace', value: audit.right }],
 *       specs: [{ schemaVersion: 1, event: { _tag: 'Laplace', scale: 1, sensitivity: 1, relation: { kind: 'add-remove', unit: 'record' } } }] }],
 *   })
 *   if (E.isRight(r)) console.log(r.right.json.summary.rows[0]?.verdict)
 * }
 * ```
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { AnyAuditResult } from '../../attacks/result.js'
import type { OneRunResult } from '../../attacks/one-run.js'
import type { ClassifierMembershipResult } from '../../attacks/trainers/classifier-membership.js'
import type { TrainerOneRunResult } from '../../attacks/trainers/one-run.js'
import type { DpError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { decodeSpec, type Spec } from '../../mechanisms/codec.js'
import { decodeCheckedModelFile, type ModelFile } from '../../trainers/model-file.js'
import type { AuditOutput } from '../schemas.js'
import { buildReport } from './build.js'
import type { ChartSpec } from './charts.js'
import type { ReportJson } from './document.js'
import type { DeclaredSubject, ReportInputs, ReportItem } from './input.js'
import { renderReportFiles, rendererVersionsLazy, writeReportFolder } from './render-lazy.js'
import type { WrittenReport } from './write.js'

/** Every audit result the report reads: mechanism or trainer (the one result type, or a `dpaudit audit --out` document), one-run, classifier membership. */
export type ReportableAudit = AnyAuditResult | AuditOutput | TrainerOneRunResult | OneRunResult | ClassifierMembershipResult

/** A value with the name the report shows for it (default: its kind and position), and where it belongs. */
export interface Named<A> {
  readonly value: A
  readonly name?: string
  readonly subject?: string
  /** The claim a one-run mechanism audit was tested against (it records none). */
  readonly claim?: { readonly epsilon: number; readonly delta: number }
}

export type Entry<A> = A | Named<A>

/** The parts of a report, as values. */
export interface ReportParts {
  readonly models?: ReadonlyArray<Entry<ModelFile>>
  readonly audits?: ReadonlyArray<Entry<ReportableAudit>>
  readonly specs?: ReadonlyArray<Entry<Spec>>
  /** Paper claims (`dpaudit verify --list`): their verdicts. */
  readonly claims?: ReadonlyArray<string>
}

export interface ReportRequest extends ReportParts {
  readonly title?: string
  /** δ values of the statements' tables (default 1e-3, 1e-5, 1e-7, 1e-9). */
  readonly deltas?: ReadonlyArray<number>
  /** Parts that belong to one subject, with the claim made for it; parts that cannot belong together are refused. */
  readonly subjects?: ReadonlyArray<DeclaredSubject & ReportParts>
}

export interface RenderedReport {
  readonly json: ReportJson
  /** The canonical JSON text (what report.json holds). */
  readonly text: string
  readonly markdown: () => Promise<string>
  readonly html: () => Promise<string>
  /** Every file of the report folder (report.json, report.md, report.html, charts/*.svg) as (name, content). */
  readonly files: () => Promise<ReadonlyArray<{ readonly name: string; readonly content: string }>>
  readonly charts: () => Promise<ReadonlyArray<ChartSpec>>
  readonly write: (dir: string) => Promise<E.Either<DpError, WrittenReport>>
}

const isNamed = <A>(e: Entry<A>): e is Named<A> => typeof e === 'object' && e !== null && 'value' in e && !('schemaVersion' in e) && !('kind' in e)

const items = <A>(role: string, entries: ReadonlyArray<Entry<A>> | undefined, subject: string | undefined, decode: (u: unknown, at: string) => E.Either<DpError, A>, offset: number): E.Either<DpError, Array<ReportItem<A>>> => {
  const out: Array<ReportItem<A>> = []
  for (const [i, e] of (entries ?? []).entries()) {
    const n = isNamed(e) ? e : { value: e }
    const input = n.name ?? `${role} ${offset + i + 1}`
    const d = decode(n.value, `${input}:$`)
    if (E.isLeft(d)) return d
    const sub = n.subject ?? subject
    out.push({ value: d.right, input, ...(sub === undefined ? {} : { subject: sub }), ...(n.claim === undefined ? {} : { claim: n.claim }) })
  }
  return E.right(out)
}

/** The values as the builder's inputs (each decoded as a file would be). */
export const reportInputs = (req: ReportRequest): E.Either<DpError, ReportInputs> => {
  const models: Array<ReportItem<ModelFile>> = []
  const audits: Array<ReportItem<unknown>> = []
  const specs: Array<ReportItem<Spec>> = []
  const claims: string[] = [...(req.claims ?? [])]
  // an audit is decoded when the report is built (./audits.ts): here it only gets its name
  const asIs = (u: unknown): E.Either<DpError, unknown> => E.right(u)
  for (const part of [{ ...req, name: undefined as string | undefined }, ...(req.subjects ?? [])]) {
    const m = items('model', part.models, part.name, decodeCheckedModelFile, models.length)
    if (E.isLeft(m)) return m
    const a = items<unknown>('audit', part.audits, part.name, asIs, audits.length)
    if (E.isLeft(a)) return a
    const s = items('spec', part.specs, part.name, decodeSpec, specs.length)
    if (E.isLeft(s)) return s
    models.push(...m.right)
    audits.push(...a.right)
    specs.push(...s.right)
    if (part.name !== undefined) claims.push(...(part.claims ?? []))
  }
  return E.right({
    ...(req.title === undefined ? {} : { title: req.title }),
    models,
    audits,
    specs,
    claims: [...new Set(claims)],
    ...(req.subjects === undefined ? {} : { subjects: req.subjects.map((s) => ({ name: s.name, ...(s.claim === undefined ? {} : { claim: s.claim }), ...(s.claims === undefined ? {} : { claims: s.claims }) })) }),
    ...(req.deltas === undefined ? {} : { deltas: req.deltas }),
  })
}

/** Builds the report from values in memory; see the module comment. */
export const report = async (req: ReportRequest): Promise<E.Either<DpError, RenderedReport>> => {
  const inputs = reportInputs(req)
  if (E.isLeft(inputs)) return inputs
  const built = buildReport(inputs.right, await rendererVersionsLazy())
  if (E.isLeft(built)) return built
  const json = built.right
  const files = () => renderReportFiles(json)
  const file = async (name: string): Promise<string> => (await files()).find((f) => f.name === name)?.content ?? ''
  return E.right({
    json,
    text: `${stringifyJson(json, 1)}\n`,
    markdown: () => file('report.md'),
    html: () => file('report.html'),
    files,
    charts: async () => (await import('./charts.js')).reportCharts(json),
    write: (dir) => writeReportFolder(dir, json),
  })
}
