/**
 * The report model as a sequence of sections — headings, paragraphs, tables and chart references —
 * that the Markdown and HTML renderers (./pages.ts) both print, so the two always say the same
 * thing. The verdict of an audit is put in plain words here.
 *
 * @module
 */
import { roundEpsilon, showDelta as showDeltaNonZero, showNumber } from '../format.js'
import { VERDICT_WORDS, type EvidenceTable } from '../claims/verdict.js'
import type { ChartSpec } from './charts.js'
import type { AuditSection, ReportJson, SubjectSection, SummarySection } from './document.js'

export type Block =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'list'; readonly items: ReadonlyArray<string> }
  | { readonly kind: 'table'; readonly table: EvidenceTable }
  | { readonly kind: 'chart'; readonly chart: ChartSpec }

export interface Section {
  readonly id: string
  readonly title: string
  /** 2: a top-level section; 3: a part of the subject above it. */
  readonly level?: 2 | 3
  readonly blocks: ReadonlyArray<Block>
}

const eps = (x: number): string => roundEpsilon(x)
const showDelta = (d: number): string => (d === 0 ? '0' : showDeltaNonZero(d))
const ms = (x: number): string => (x >= 60_000 ? `${(x / 60_000).toFixed(1)} min` : x >= 1000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`)

/** The audit's verdict in plain words. */
export const auditInWords = (a: AuditSection): string => {
  const lb = eps(a.epsilonLowerBound)
  const claim = `(ε = ${eps(a.claim.epsilon)}, δ = ${showDelta(a.claim.delta)})`
  switch (a.verdict) {
    case 'violation':
      return `The audit found a violation: with ${pct(a.confidence)} confidence the true ε is at least ${lb}, above the claimed ${claim}. The claim is false for what was audited.`
    case 'consistent':
      return `The audit is consistent with the claim ${claim}: the ε it can certify, ${lb} at ${pct(a.confidence)} confidence, is below the claim. This does not prove the claim — an audit can only refute — and this run could certify at most ε = ${eps(a.ceiling)}.`
    default:
      return `The audit is inconclusive for the claim ${claim}: ε lower bound ${lb} at ${pct(a.confidence)} confidence, and this run could certify at most ${eps(a.ceiling)}${a.ceiling < a.claim.epsilon ? ', below the claim: more trials are needed to test it' : ''}.`
  }
}

const pct = (c: number): string => `${+(c * 100).toPrecision(6)} %`

/** The summary table: one row per subject, claimed / accounted / audited / true ε and the verdict in words. */
export const summaryTable = (s: SummarySection): EvidenceTable => ({
  title: 'claimed, accounted and audited ε of each subject',
  columns: ['subject', 'claimed ε (source)', 'accounted ε (method, relation)', 'audited ε lower bound (confidence; ceiling)', 'true ε', 'verdict'],
  rows: s.rows.map((r) => [
    r.subject,
    r.claimed === undefined ? '—' : `${eps(r.claimed.epsilon)} at δ = ${showDelta(r.claimed.delta)} (${r.claimed.source})`,
    r.accounted === undefined ? '—' : `${eps(r.accounted.epsilon)} at δ = ${showDelta(r.accounted.delta)} (${r.accounted.accountant}; ${r.accounted.relation})`,
    r.audited === undefined ? '—' : `${eps(r.audited.epsilonLowerBound)} (${pct(r.audited.confidence)}; ceiling ${eps(r.audited.ceiling)}; ${r.audited.audit})`,
    r.knownTrueEpsilon === undefined ? '—' : eps(r.knownTrueEpsilon.epsilon),
    r.verdict,
  ]),
})

/** What a reviewer needs to recompute the bound, as a table. */
export const evidenceTable = (a: AuditSection): EvidenceTable => {
  const e = a.evidence
  const rows: Array<[string, string | number]> = [
    ['attack', e.attack],
    ['chosen event or threshold', e.event],
  ]
  if (e.counts !== undefined)
    rows.push(
      ['true positives (with the target, in the event)', e.counts.truePositives],
      ['false negatives (with the target, outside it)', e.counts.falseNegatives],
      ['false positives (without the target, in the event)', e.counts.falsePositives],
      ['true negatives (without the target, outside it)', e.counts.trueNegatives],
    )
  if (e.clopperPearson !== undefined) {
    const c = e.clopperPearson
    rows.push(
      ['Clopper–Pearson', `α = ${showNumber(c.alpha)}, α/2 = ${showNumber(c.alphaPerSide)} per rate: FPR ≤ ${showNumber(c.fprUpper, 6)}, FNR ≤ ${showNumber(c.fnrUpper, 6)}`],
      ['ε lower bound', `max{0, ln((1 − δ − FPR_hi)/FNR_hi), ln((1 − δ − FNR_hi)/FPR_hi)} at δ = ${showDelta(c.delta)}: ${eps(a.epsilonLowerBound)}`],
    )
  }
  if (e.oneRun !== undefined) rows.push(['one-run game', `${e.oneRun.correct} of ${e.oneRun.guesses} guesses right on ${e.oneRun.canaries} canaries: ε ≥ ${eps(a.epsilonLowerBound)}`])
  if (e.gdp !== undefined) rows.push(['μ-GDP fit', `μ ≥ ${showNumber(e.gdp.muLowerBound)}${e.gdp.epsilonIfGaussian === null ? '' : ` (ε = ${eps(e.gdp.epsilonIfGaussian)} if the trade-off were exactly Gaussian)`}: ${e.gdp.statement}`])
  if (e.support !== undefined) rows.push(['support test', typeof e.support['statement'] === 'string' ? (e.support['statement'] as string) : JSON.stringify(e.support)])
  if (a.tradeOff !== undefined) rows.push(['trade-off', `${a.tradeOff.pointsBelow} of ${a.tradeOff.empirical.length} operating points below the accounted β(α) (${a.tradeOff.source})`])
  if (a.seed !== undefined) rows.push(['seed', a.seed])
  return { title: `evidence: how to recompute ε_LB for ${a.mechanism}`, columns: ['quantity', 'value'], rows }
}

const privacyBlocks = (p: NonNullable<SubjectSection['privacy']>): Block[] => {
  const blocks: Block[] = [
    { kind: 'text', text: `Protects: ${p.protects} (the unit and neighbouring relation); accounted under ${p.accountedUnder}.` },
    {
      kind: 'table',
      table: {
        title: 'ε at each δ (the tightest of dpaudit’s accountants; an upper bound on the true ε)',
        columns: ['δ', 'ε', 'accountant', 'method'],
        rows: p.epsilonAtDelta.map((x) => [showDelta(x.delta), eps(x.epsilon), x.accountant, x.method]),
      },
    },
  ]
  if (p.claim !== undefined)
    blocks.push({ kind: 'text', text: `The paper's claim (${p.claim.source}): ${p.claim.statement}${p.claim.atDelta.length > 0 ? ` — ${p.claim.atDelta.map((c) => `ε = ${eps(c.epsilon)} at δ = ${showDelta(c.delta)}`).join(', ')}` : ''}. It is shown for comparison and never used in the computation.` })
  if (p.recorded !== undefined && p.recorded.length > 0) blocks.push({ kind: 'text', text: `Recorded at training time: ${p.recorded.map((g) => `ε = ${eps(g.epsilon)} at δ = ${showDelta(g.delta)} (${g.accountant})`).join('; ')}.` })
  if (p.assumptions.length > 0) blocks.push({ kind: 'text', text: 'Assumptions:' }, { kind: 'list', items: p.assumptions })
  if (p.notes.length > 0) blocks.push({ kind: 'text', text: 'Notes:' }, { kind: 'list', items: p.notes })
  return blocks
}

const subjectSections = (sub: SubjectSection, chart: (id: string) => Block[]): Section[] => {
  const out: Section[] = [{ id: `subject-${sub.id}`, title: sub.name, level: 2, blocks: sub.privacy === undefined ? [{ kind: 'text', text: 'No plan or spec was given for this subject: it has no accounted ε.' }] : privacyBlocks(sub.privacy) }]
  const l = sub.ledger
  if (l !== undefined)
    out.push({
      id: `${sub.id}-ledger`,
      title: 'Mechanism ledger',
      level: 3,
      blocks: [
        { kind: 'text', text: `The plan as an event tree: ${l.events} events; SHA-256 of its canonical JSON ${l.sha256}.${l.truncated ? ` The first ${l.rows.length} rows are shown.` : ''} "repeats" is how many times the event runs (the product of the SelfCompose counts above it).` },
        { kind: 'table', table: { title: 'events', columns: ['path', 'event', 'label', 'parameters', 'repeats'], rows: l.rows.map((x) => [x.path, `${'· '.repeat(x.depth)}${x.tag}`, x.label, x.parameters, x.repeats]) } },
      ],
    })
  const c = sub.curves
  if (c !== undefined) {
    const missing = [c.profile.ok ? undefined : `privacy profile: ${c.profile.reason}`, c.rdp.ok ? undefined : `RDP curve: ${c.rdp.reason}`, c.byIteration.ok ? undefined : `ε by iteration: ${c.byIteration.reason}`].filter((x): x is string => x !== undefined)
    out.push({
      id: `${sub.id}-curves`,
      title: 'Privacy curves',
      level: 3,
      blocks: [...chart(`${sub.id}-privacy-profile`), ...chart(`${sub.id}-rdp-curve`), ...chart(`${sub.id}-epsilon-by-iteration`), ...chart(`${sub.id}-trade-off`), ...(missing.length > 0 ? [{ kind: 'text', text: 'Not drawn:' } as const, { kind: 'list', items: missing } as const] : [])],
    })
  }
  for (const a of sub.audits)
    out.push({
      id: `audit-${a.id}`,
      title: `Empirical audit: ${a.mechanism}${a.input === undefined ? '' : ` (${a.input})`}`,
      level: 3,
      blocks: [
        { kind: 'text', text: auditInWords(a) },
        ...(a.interpretation === '' ? [] : [{ kind: 'text', text: a.interpretation } as const]),
        {
          kind: 'table',
          table: {
            title: `audit of ${a.mechanism} (${a.kind})`,
            columns: ['quantity', 'value'],
            rows: [
              ['verdict', a.verdict],
              ['claim', `ε = ${eps(a.claim.epsilon)}, δ = ${showDelta(a.claim.delta)}`],
              [`ε lower bound (${pct(a.confidence)} confidence)`, eps(a.epsilonLowerBound)],
              ['ceiling (largest ε this run could certify)', eps(a.ceiling)],
              ...(a.pointEstimate === undefined ? [] : [['point estimate (no confidence)', eps(a.pointEstimate)] as [string, string]]),
              ...(a.knownTrueEpsilon === undefined ? [] : [['true ε (known)', `${eps(a.knownTrueEpsilon.epsilon)} (${a.knownTrueEpsilon.method})`] as [string, string]]),
              ...(a.roc === undefined ? [] : [['AUC', showNumber(a.roc.auc)], ['TPR at FPR 1 %', showNumber(a.roc.tprAtFpr1pct)], ['TPR at FPR 0.1 %', showNumber(a.roc.tprAtFpr01pct)]]),
              ['trials (spent / requested)', `${a.trials.spent} / ${a.trials.requested}`],
              ['method', a.method],
            ],
          },
        },
        { kind: 'table', table: evidenceTable(a) },
        ...chart(`${a.id}-roc-linear`),
        ...chart(`${a.id}-trade-off`),
        ...chart(`${a.id}-scores`),
        ...chart(`${a.id}-audit-vs-claim`),
      ],
    })
  return out
}

/** The report's sections, the summary first, charts placed where they belong (`charts` from ./charts.ts). */
export const reportSections = (r: ReportJson, charts: ReadonlyArray<ChartSpec>): ReadonlyArray<Section> => {
  const chart = (id: string): Block[] => charts.filter((c) => c.id === id).map((c) => ({ kind: 'chart', chart: c }) as const)
  const out: Section[] = []
  if (r.summary.rows.length > 0) out.push({ id: 'summary', title: 'Summary', blocks: [{ kind: 'text', text: r.summary.sentence }, { kind: 'table', table: summaryTable(r.summary) }, ...chart('summary')] })
  for (const sub of r.subjects) out.push(...subjectSections(sub, chart))
  const u = r.utility
  if (u !== undefined)
    out.push({
      id: 'utility',
      title: 'Utility',
      blocks: [
        {
          kind: 'table',
          table: {
            title: `held-out perplexity and accounted ε at δ = ${showDelta(u.delta)}`,
            columns: ['model', 'trainer', 'ε', 'perplexity', 'held-out tokens', 'protocol'],
            rows: u.rows.map((x) => [x.model, x.trainer, eps(x.epsilon), showNumber(x.perplexity, 5), x.heldOutTokens, x.protocol]),
          },
        },
        ...chart('utility'),
      ],
    })
  for (const v of r.claims ?? [])
    out.push({
      id: `claim-${v.claim.id}`,
      title: `Claim ${v.claim.id}: ${v.claim.title}`,
      blocks: [
        { kind: 'text', text: `Verdict: ${VERDICT_WORDS[v.kind]}. ${v.statement}` },
        { kind: 'list', items: [`relation: ${v.assumptions.relation}`, `sampling: ${v.assumptions.sampling}`, `reading: ${v.assumptions.reading}`, ...v.assumptions.other] },
        ...v.evidence.map((t) => ({ kind: 'table', table: t }) as const),
        ...(v.notes.length > 0 ? [{ kind: 'list', items: v.notes } as const] : []),
      ],
    })
  const rep = r.reproducibility
  out.push({
    id: 'reproducibility',
    title: 'Reproducibility',
    blocks: [
      { kind: 'text', text: `dpaudit ${rep.versions.dpaudit}, Node ${rep.versions.node}, vega ${rep.versions.vega}, vega-lite ${rep.versions.vegaLite}; report schemaVersion ${r.schemaVersion}.` },
      { kind: 'table', table: { title: 'inputs', columns: ['role', 'file', 'SHA-256', 'bytes'], rows: rep.inputs.map((x) => [x.role, x.path, x.sha256, x.bytes]) } },
      {
        kind: 'table',
        table: {
          title: 'runs (a seed is shown only for runs labelled not private; time: the whole audit, or a training run’s sampling iterations — never a private release’s, whose timing depends on its data)',
          columns: ['input', 'private release', 'randomness', 'seed', 'time', 'trials / iterations'],
          rows: rep.runs.map((x) => [
            x.input,
            x.private ? 'yes' : 'no',
            x.randomness,
            x.private ? '—' : (x.seed ?? 'not recorded'),
            x.elapsedMs !== undefined ? ms(x.elapsedMs) : x.private ? 'withheld (private release)' : 'not recorded',
            x.trials !== undefined ? `${x.trials} trials` : x.iterations !== undefined ? `${x.iterations} iterations` : '—',
          ]),
        },
      },
    ],
  })
  return out
}
