/**
 * The report model from its inputs (./input.ts): the inputs grouped by subject (./subjects.ts), each
 * subject's statement, ledger and curves recomputed by dpaudit's accountants (./statement.ts), every
 * audit decoded and checked against its own numbers (./audits.ts) with the accountant's trade-off
 * curve beside its ROC (./trade-off.ts), and the summary table the report opens with. Nothing is
 * rendered here (./charts.ts builds the chart specs, ./svg.ts draws them), so the model is testable
 * without any plotting package.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { tightestEpsilon } from '../claims/evidence.js'
import { loadClaims } from '../claims/codec.js'
import { verifyClaim } from '../claims/verify.js'
import type { ClaimVerdict } from '../claims/verdict.js'
import type { ReportJson, ReproducibilitySection, UtilitySection } from './document.js'
import { REPORT_KIND, REPORT_SCHEMA_VERSION } from './document.js'
import type { ReportInputs, ReportItem } from './input.js'
import { dpauditVersion, modelRelation, REPORT_DELTAS, type Versions } from './statement.js'
import { groupSubjects, overallSentence, subjectSection } from './subjects.js'


/** An input's hash: the file's bytes when it was read from one, else the canonical JSON of the value. */
const hashOf = (item: ReportItem<unknown>): { sha256: string; bytes: number } => {
  if (item.sha256 !== undefined && item.bytes !== undefined) return { sha256: item.sha256, bytes: item.bytes }
  const text = stringifyJson(item.value)
  return { sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) }
}

/** Builds the report model. `versions` are the renderer's (vega, vega-lite), recorded for reproducibility. */
export const buildReport = (inputs: ReportInputs, versions: Versions): E.Either<DpError, ReportJson> => {
  const deltas = inputs.deltas ?? REPORT_DELTAS
  const mainDelta = deltas.includes(1e-5) ? 1e-5 : (deltas[0] as number)
  const groups = groupSubjects(inputs, deltas)
  if (E.isLeft(groups)) return groups
  const subjects = []
  const rows = []
  for (const g of groups.right) {
    const s = subjectSection(g, deltas, mainDelta)
    if (E.isLeft(s)) return s
    subjects.push(s.right.section)
    rows.push(s.right.row)
  }
  const utilityRows: UtilitySection['rows'] = []
  for (const f of inputs.models) {
    const m = f.value
    if (m.evaluation === undefined) continue
    const rel = modelRelation(m)
    if (E.isLeft(rel)) return rel
    const a = tightestEpsilon(m.privacy.plan as never, rel.right, mainDelta)
    if (E.isLeft(a)) return a
    utilityRows.push({ model: f.input, trainer: m.trainer, epsilon: a.right.epsilon, perplexity: m.evaluation.perplexity, heldOutTokens: m.evaluation.heldOutTokens, protocol: m.evaluation.protocol })
  }
  const claims: ClaimVerdict[] = []
  if (inputs.claims.length > 0) {
    const papers = loadClaims()
    if (E.isLeft(papers)) return papers
    for (const id of inputs.claims) {
      const v = verifyClaim(papers.right, id)
      if (E.isLeft(v)) return v
      claims.push(v.right)
    }
  }
  const files: Array<[string, ReportItem<unknown>]> = [
    ...(inputs.manifest === undefined ? [] : [['manifest', inputs.manifest] as [string, ReportItem<unknown>]]),
    ...inputs.specs.map((f) => ['spec', f] as [string, ReportItem<unknown>]),
    ...inputs.models.map((f) => ['model', f] as [string, ReportItem<unknown>]),
    ...inputs.audits.map((f) => ['audit', f] as [string, ReportItem<unknown>]),
  ]
  const runs: Array<ReproducibilitySection['runs'][number]> = inputs.models.map((f) => {
    const m = f.value
    const isPrivate = m.release?.private ?? false
    // the trace's elapsedMs is cumulative (lda/loop.ts): the run's sampling time is its largest entry.
    // A private release's timing is never reported, even from a file that carries a trace: it
    // depends on the data (a timing side channel); `dpaudit train` writes none for such a run.
    const elapsed = isPrivate || m.trace === undefined || m.trace.length === 0 ? undefined : Math.max(...m.trace.map((x) => x.elapsedMs))
    const config = m.config as Record<string, unknown> | null
    const iterations = typeof config?.['iterations'] === 'number' ? (config['iterations'] as number) : undefined
    return {
      input: f.input,
      private: isPrivate,
      randomness: m.release?.randomness ?? 'not recorded (a model file without a release record)',
      ...(elapsed === undefined ? {} : { elapsedMs: elapsed }),
      ...(iterations === undefined ? {} : { iterations }),
    }
  })
  // an audit is a test, never a private release: its seed is what makes it repeatable
  for (const a of subjects.flatMap((s) => s.audits))
    runs.push({
      input: a.input ?? a.id,
      private: false,
      randomness: 'seeded stream (audits are tests, labelled not private)',
      ...(a.seed === undefined ? {} : { seed: a.seed }),
      ...(a.timing === undefined ? {} : { elapsedMs: a.timing.elapsedMs }),
      trials: a.trials.spent,
    })
  const only = subjects.length === 1 ? subjects[0] : undefined
  const title =
    inputs.title ??
    (only !== undefined ? (only.privacy !== undefined ? `Privacy report: ${only.name}` : `Audit report: ${only.name}`) : subjects.length > 1 ? `Privacy report: ${subjects.length} subjects` : claims.length > 0 ? `Verdicts: ${claims.map((c) => c.claim.id).join(', ')}` : 'Privacy report')
  return E.right({
    schemaVersion: REPORT_SCHEMA_VERSION,
    kind: REPORT_KIND,
    title,
    summary: { sentence: overallSentence(rows), rows },
    subjects,
    ...(utilityRows.length === 0 ? {} : { utility: { delta: mainDelta, rows: utilityRows } }),
    ...(claims.length === 0 ? {} : { claims }),
    reproducibility: {
      versions: { dpaudit: dpauditVersion(), node: process.version, vega: versions.vega, vegaLite: versions.vegaLite },
      inputs: files.map(([role, f]) => ({ role, path: f.input, ...hashOf(f) })),
      runs,
    },
  })
}
