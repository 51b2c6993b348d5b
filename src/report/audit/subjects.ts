/**
 * A report is about subjects — a mechanism, a spec, a trained model — and each subject's row of the
 * summary puts its claimed, accounted and audited ε side by side. Inputs go to the subject the
 * manifest (or the caller) names, else to the one their content names: a spec's name, a model's
 * trainer and corpus, an audit's mechanism or trainer. A subject has one plan; parts that cannot be
 * about the same thing (two different plans, a trainer audit of another trainer, a zoo mechanism or
 * a paper's claim beside a model they are not about) are refused, naming both.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { rdpCurveDetailed } from '../../accounting/rdp/curve.js'
import { type DpError, decodeFailure, formatError } from '../../core/error.js'
import type { Spec } from '../../mechanisms/codec.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { ModelFile } from '../../trainers/model-file.js'
import { auditIsAbout } from '../audit-check.js'
import { tightestEpsilon } from '../claims/evidence.js'
import { roundEpsilon, showDelta as showDeltaNonZero } from '../format.js'
import { auditSection } from './audits.js'
import type { AuditSection, PrivacySection, SubjectSection, SummaryRow } from './document.js'
import type { DeclaredSubject, ReportInputs, ReportItem } from './input.js'
import { curves, ledger, modelStatement, specStatement } from './statement.js'
import { accountedCurve, withTradeOff } from './trade-off.js'

export interface SubjectGroup {
  readonly name: string
  readonly declared?: DeclaredSubject
  readonly models: Array<ReportItem<ModelFile>>
  readonly specs: Array<ReportItem<Spec>>
  readonly audits: Array<{ readonly item: ReportItem<unknown>; readonly section: AuditSection }>
  readonly claims: string[]
}

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'subject'

const planHash = (event: unknown): string => ledger(event as PrivacyEvent).sha256

const trainerOf = (a: { item: ReportItem<unknown>; section: AuditSection }): string | undefined =>
  a.section.kind === 'mechanism' || a.section.kind === 'one-run' ? undefined : ((a.item.value as { trainer?: string }).trainer ?? undefined)

/** The zoo entry a mechanism audit ran (`dpaudit audit zoo:NAME`), if it did. */
const zooTarget = (a: { item: ReportItem<unknown> }): string | undefined => {
  const t = (a.item.value as { target?: unknown }).target
  return typeof t === 'string' && t.startsWith('zoo:') ? t : undefined
}

const clash = (g: SubjectGroup, a: string, b: string, why: string): E.Either<DpError, never> =>
  E.left(decodeFailure(`subject "${g.name}"`, [a, b], `${a} and ${b} do not belong together: ${why}; give them separate subjects`))

/** Whether the parts of one subject can be about the same thing; Left names the two that cannot. */
const checkBelonging = (g: SubjectGroup): E.Either<DpError, void> => {
  const plans = [...g.specs.map((s) => ({ input: s.input, hash: planHash(s.value.event) })), ...g.models.map((m) => ({ input: m.input, hash: planHash(m.value.privacy.plan) }))]
  for (const p of plans.slice(1)) if (p.hash !== (plans[0] as { hash: string }).hash) return clash(g, (plans[0] as { input: string }).input, p.input, 'they account different plans (the ledger hashes differ)')
  const zoo = g.audits.find((a) => zooTarget(a) !== undefined)
  for (const m of g.models) {
    for (const a of g.audits) {
      const t = trainerOf(a)
      if (t !== undefined && t !== m.value.trainer) return clash(g, m.input, a.item.input, `the model was trained by ${m.value.trainer}, the audit is of ${t}`)
    }
    if (zoo !== undefined) return clash(g, m.input, zoo.item.input, `a zoo mechanism (${zooTarget(zoo) ?? ''}) is a test mechanism, not the model's trainer ${m.value.trainer}`)
  }
  const trainers = [...new Set(g.audits.map(trainerOf).filter((t): t is string => t !== undefined))]
  if (trainers.length > 1) {
    const [a, b] = g.audits.filter((x) => trainerOf(x) !== undefined)
    return clash(g, a?.item.input ?? '', b?.item.input ?? '', `they audit different trainers (${trainers.join(', ')})`)
  }
  for (const id of g.claims) {
    const about = id.split('.')[0] ?? id
    for (const m of g.models) if (!auditIsAbout(about, m.value.trainer, '')) return clash(g, `claim ${id}`, m.input, `the claim is about ${about}, the model was trained by ${m.value.trainer}`)
    if (zoo !== undefined) return clash(g, `claim ${id}`, zoo.item.input, `a zoo mechanism is not ${about}`)
  }
  return E.right(undefined)
}

/** A model's subject: its trainer and corpus (a corpus named by a path is shown by its last part: no absolute path in a report). */
export const modelName = (m: ModelFile): string => `${m.trainer} on ${m.corpus.name.split(/[\\/]/).filter((x) => x !== '').pop() ?? m.corpus.name}`

/** The pure ε of a plan (δ = 0): the RDP accountant's pure-ε bound, ∞ where a part has none. */
const pureEpsilon = (event: PrivacyEvent, relation: NeighbouringRelation): E.Either<DpError, { epsilon: number; accountant: string; method: string }> => {
  const r = rdpCurveDetailed(event, relation, [2])
  return E.isLeft(r) ? r : E.right({ epsilon: r.right.pureEpsilon, accountant: 'rdp', method: 'pure ε-DP (δ = 0): the pure ε of each event, composed by summing (basic composition)' })
}

/** The inputs grouped by subject, declared subjects first, each checked for parts that do not belong together. */
export const groupSubjects = (inputs: ReportInputs, _deltas: ReadonlyArray<number>): E.Either<DpError, ReadonlyArray<SubjectGroup>> => {
  const groups: SubjectGroup[] = []
  const byName = new Map<string, SubjectGroup>()
  const declared = new Map((inputs.subjects ?? []).map((s) => [s.name, s]))
  const group = (name: string): SubjectGroup => {
    const known = byName.get(name)
    if (known !== undefined) return known
    const d = declared.get(name)
    const g: SubjectGroup = { name, ...(d === undefined ? {} : { declared: d }), models: [], specs: [], audits: [], claims: [...(d?.claims ?? [])] }
    groups.push(g)
    byName.set(name, g)
    return g
  }
  for (const s of inputs.subjects ?? []) group(s.name)
  // a subject has one plan: an undeclared model or spec whose plan differs from its namesake's gets its own subject
  const planOf = (g: SubjectGroup): string | undefined => (g.specs[0] !== undefined ? planHash(g.specs[0].value.event) : g.models[0] !== undefined ? planHash(g.models[0].value.privacy.plan) : undefined)
  const place = (item: ReportItem<unknown>, inferred: string, plan: string): SubjectGroup => {
    if (item.subject !== undefined) return group(item.subject)
    const g = byName.get(inferred)
    const p = g === undefined ? undefined : planOf(g)
    return p === undefined || p === plan ? group(inferred) : group(`${inferred} (${item.input})`)
  }
  for (const s of inputs.specs) place(s, s.value.name ?? s.input, planHash(s.value.event)).specs.push(s)
  for (const m of inputs.models) place(m, modelName(m.value), planHash(m.value.privacy.plan)).models.push(m)
  for (const a of inputs.audits) {
    const s = auditSection(a.value, { input: a.input, ...(a.file === undefined ? {} : { file: a.file }), ...(a.subject === undefined ? {} : { subject: a.subject }), ...(a.claim === undefined ? {} : { claim: a.claim }) })
    if (E.isLeft(s)) return s
    group(a.subject ?? s.right.subject).audits.push({ item: a, section: s.right })
  }
  for (const g of groups) {
    const ok = checkBelonging(g)
    if (E.isLeft(ok)) return ok
  }
  // two audits of one input name would share an id: number them
  const ids = new Map<string, number>()
  for (const g of groups)
    for (const a of g.audits) {
      const n = (ids.get(a.section.id) ?? 0) + 1
      ids.set(a.section.id, n)
      if (n > 1) (a as { section: AuditSection }).section = { ...a.section, id: `${a.section.id}-${n}` }
    }
  return E.right(groups)
}

const showDelta = (d: number): string => (d === 0 ? '0' : showDeltaNonZero(d))

const pct = (c: number): string => `${+(c * 100).toPrecision(6)} %`

/** The subject's verdict in words: what its claimed, accounted, audited and true ε say together. */
export const subjectVerdict = (r: Omit<SummaryRow, 'verdict'>): string => {
  const out: string[] = []
  const { claimed, accounted, audited, knownTrueEpsilon: truth } = r
  const sameDelta = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(a, b)
  // a measured ε above the accounted one at a δ no larger than the audit's: the code is not the accounted plan
  const contradiction = audited !== undefined && accounted !== undefined && Number.isFinite(accounted.epsilon) && audited.epsilonLowerBound > accounted.epsilon && audited.delta >= accounted.delta
  if (contradiction)
    out.push(`The audit contradicts the accounting: ε ≥ ${roundEpsilon(audited.epsilonLowerBound)} measured at ${pct(audited.confidence)} confidence, ${roundEpsilon(accounted.epsilon)} accounted — the implementation is not the accounted plan (or the accountant is unsound).`)
  if (claimed !== undefined && accounted !== undefined && sameDelta(claimed.delta, accounted.delta))
    out.push(
      accounted.epsilon > claimed.epsilon * (1 + 1e-9)
        ? `The accountant gives ε = ${roundEpsilon(accounted.epsilon)} at δ = ${showDelta(accounted.delta)}, above the claimed ${roundEpsilon(claimed.epsilon)}: the claim understates ε.`
        : `The accounting supports the claim: ε = ${roundEpsilon(accounted.epsilon)} ≤ ${roundEpsilon(claimed.epsilon)} at δ = ${showDelta(accounted.delta)}.`,
    )
  if (audited !== undefined && !contradiction)
    out.push(
      audited.verdict === 'violation'
        ? `The audit refutes its claim: ε ≥ ${roundEpsilon(audited.epsilonLowerBound)} at ${pct(audited.confidence)} confidence.`
        : audited.verdict === 'consistent'
          ? `The audit found nothing against its claim (ε ≥ ${roundEpsilon(audited.epsilonLowerBound)}; it could certify up to ${roundEpsilon(audited.ceiling)}).`
          : `The audit could not test its claim (ε ≥ ${roundEpsilon(audited.epsilonLowerBound)}, ceiling ${roundEpsilon(audited.ceiling)}).`,
    )
  if (truth !== undefined && claimed !== undefined) out.push(truth.epsilon > claimed.epsilon * (1 + 1e-9) ? `Its true ε is ${roundEpsilon(truth.epsilon)}, above the claim: it is broken.` : `Its true ε is ${roundEpsilon(truth.epsilon)}, within the claim.`)
  return out.length === 0 ? (accounted !== undefined ? `Accounted ε = ${roundEpsilon(accounted.epsilon)} at δ = ${showDelta(accounted.delta)}; no claim or audit to compare it with.` : 'Nothing to compare.') : out.join(' ')
}

/** One sentence over every row: how many subjects are refuted, understated, or hold up. */
export const overallSentence = (rows: ReadonlyArray<SummaryRow>): string => {
  const refuted = rows.filter((r) => r.audited?.verdict === 'violation' || (r.audited !== undefined && r.accounted !== undefined && r.audited.epsilonLowerBound > r.accounted.epsilon && r.audited.delta >= r.accounted.delta))
  const understated = rows.filter((r) => !refuted.includes(r) && r.claimed !== undefined && r.accounted !== undefined && Math.abs(r.claimed.delta - r.accounted.delta) <= 1e-12 * r.claimed.delta && r.accounted.epsilon > r.claimed.epsilon * (1 + 1e-9))
  const names = (rs: ReadonlyArray<SummaryRow>) => rs.slice(0, 3).map((r) => r.subject).join(', ') + (rs.length > 3 ? `, and ${rs.length - 3} more` : '')
  const seen = new Set([...refuted, ...understated])
  // an audit that could not test its claim (the mechanism failed, too few trials) is no check passed
  const untested = rows.filter((r) => !seen.has(r) && r.audited !== undefined && r.audited.verdict !== 'consistent')
  for (const r of untested) seen.add(r)
  // nor is a subject with no audit and no claim its accounting could be set against
  const accountingChecks = (r: SummaryRow): boolean => r.claimed !== undefined && r.accounted !== undefined && Math.abs(r.claimed.delta - r.accounted.delta) <= 1e-12 * Math.max(r.claimed.delta, r.accounted.delta)
  const unchecked = rows.filter((r) => !seen.has(r) && r.audited === undefined && !accountingChecks(r))
  const n = rows.length
  const parts = [
    refuted.length === 0 ? undefined : `${refuted.length} refuted by an audit (${names(refuted)})`,
    understated.length === 0 ? undefined : `${understated.length} whose accounting is above the claim (${names(understated)})`,
    untested.length === 0 ? undefined : `${untested.length} whose audit could not test the claim (${names(untested)})`,
    unchecked.length === 0 ? undefined : `${unchecked.length} with nothing to check it against (${names(unchecked)})`,
  ].filter((x): x is string => x !== undefined)
  if (n === 0) return 'No subject: this report holds claim verdicts only.'
  if (parts.length === 0) return `${n === 1 ? 'The subject holds' : `All ${n} subjects hold`} up against every check made here (an audit can refute a claim, never prove it).`
  const rest = n - refuted.length - understated.length - untested.length - unchecked.length
  const tail = rest === 0 ? '' : `; the ${rest === 1 ? 'other holds' : `other ${rest} hold`} up against every check made here`
  if (n > 1) return `Of ${n} subjects, ${parts.join('; ')}${tail}.`
  return refuted.length === 1
    ? 'The subject is refuted by an audit.'
    : understated.length === 1
      ? 'The subject’s accounting is above its claim: the claim understates ε.'
      : untested.length === 1
        ? `The subject’s audit could not test its claim${accountingChecks(rows[0] as SummaryRow) ? '; only its accounting checks it' : ', and nothing else here checks it'}.`
        : 'Nothing here checks the subject: no audit, and no claim to set its accounting against.'
}

/** A subject's section and its summary row. */
export const subjectSection = (g: SubjectGroup, deltas: ReadonlyArray<number>, mainDelta: number): E.Either<DpError, { section: SubjectSection; row: SummaryRow }> => {
  let stated: { privacy: PrivacySection; event: PrivacyEvent; relation: NeighbouringRelation } | undefined
  const model = g.models[0]
  const spec = g.specs[0]
  if (model !== undefined) {
    const s = modelStatement(model.value, deltas)
    if (E.isLeft(s)) return s
    stated = s.right
  } else if (spec !== undefined) {
    const s = specStatement(spec.value, g.name, deltas)
    if (E.isLeft(s)) return s
    stated = s.right
  }
  const privacy = stated === undefined ? undefined : { ...stated.privacy, subject: g.name }
  const paper = privacy?.claim?.atDelta.find((c) => c.delta === mainDelta) ?? privacy?.claim?.atDelta[0]
  const firstAudit = g.audits[0]?.section
  const claimed: SummaryRow['claimed'] =
    g.declared?.claim !== undefined
      ? { epsilon: g.declared.claim.epsilon, delta: g.declared.claim.delta, source: g.declared.claim.source ?? 'the manifest' }
      : paper !== undefined && privacy?.claim !== undefined
        ? { epsilon: paper.epsilon, delta: paper.delta, source: privacy.claim.source }
        : firstAudit !== undefined
          ? { epsilon: firstAudit.claim.epsilon, delta: firstAudit.claim.delta, source: `the claim the audit ${firstAudit.input ?? firstAudit.id} tested` }
          : undefined
  let accounted: SummaryRow['accounted']
  const notes: string[] = []
  if (stated !== undefined) {
    // accounted at the claim's δ, so the two are comparable; at the report's main δ when there is no claim
    const at = claimed?.delta ?? mainDelta
    const a = at === 0 ? pureEpsilon(stated.event, stated.relation) : tightestEpsilon(stated.event, stated.relation, at)
    if (E.isRight(a)) accounted = { epsilon: a.right.epsilon, delta: at, accountant: a.right.accountant, method: a.right.method, relation: stated.privacy.accountedUnder }
    else notes.push(`no accountant could answer at δ = ${showDelta(at)}: ${formatError(a.left)}`)
  }
  // the subject's own curve (with or without an audit): a plan the accountants cannot bound has none, and says why in its notes
  const curve = stated === undefined ? undefined : accountedCurve(stated.event, stated.relation)
  if (curve !== undefined && E.isLeft(curve)) notes.push(`no trade-off curve: ${formatError(curve.left)}`)
  const audits: AuditSection[] = []
  for (const a of g.audits) {
    const t = withTradeOff(a.section, curve === undefined ? undefined : E.isLeft(curve) ? null : { ...curve.right, source: `the accounted plan of ${g.name}` })
    if (E.isLeft(t)) return t
    audits.push(t.right)
  }
  const best = audits.reduce<AuditSection | undefined>((b, a) => (b === undefined || a.epsilonLowerBound > b.epsilonLowerBound ? a : b), undefined)
  const truth = audits.find((a) => a.knownTrueEpsilon !== undefined)?.knownTrueEpsilon
  const base: Omit<SummaryRow, 'verdict'> = {
    subject: g.name,
    ...(claimed === undefined ? {} : { claimed }),
    ...(accounted === undefined ? {} : { accounted }),
    ...(best === undefined ? {} : { audited: { epsilonLowerBound: best.epsilonLowerBound, confidence: best.confidence, ceiling: best.ceiling, delta: best.claim.delta, audit: best.input ?? best.id, verdict: best.verdict } }),
    ...(truth === undefined ? {} : { knownTrueEpsilon: truth }),
  }
  const section: SubjectSection = {
    id: slug(g.name),
    name: g.name,
    audits,
    ...(privacy === undefined ? {} : { privacy: notes.length === 0 ? privacy : { ...privacy, notes: [...privacy.notes, ...notes] } }),
    ...(stated === undefined ? {} : { ledger: ledger(stated.event), curves: curves(stated.event, stated.relation, mainDelta) }),
    ...(curve === undefined || E.isLeft(curve) ? {} : { tradeOff: curve.right.json }),
  }
  return E.right({ section, row: { ...base, verdict: subjectVerdict(base) } })
}
