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
import type { ReportJson } from './document.js'

export type Block =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'list'; readonly items: ReadonlyArray<string> }
  | { readonly kind: 'table'; readonly table: EvidenceTable }
  | { readonly kind: 'chart'; readonly chart: ChartSpec }

export interface Section {
  readonly id: string
  readonly title: string
  readonly blocks: ReadonlyArray<Block>
}

const eps = (x: number): string => roundEpsilon(x)
const showDelta = (d: number): string => (d === 0 ? '0' : showDeltaNonZero(d))
const ms = (x: number): string => (x >= 60_000 ? `${(x / 60_000).toFixed(1)} min` : x >= 1000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`)

/** The audit's verdict in plain words. */
export const auditInWords = (a: NonNullable<ReportJson['audit']>): string => {
  const lb = eps(a.epsilonLowerBound)
  const claim = `(ε = ${eps(a.claim.epsilon)}, δ = ${showDelta(a.claim.delta)})`
  switch (a.verdict) {
    case 'violation':
      return `The audit found a violation: with ${a.confidence * 100} % confidence the mechanism's true ε is at least ${lb}, above the claimed ${claim}. The claim is false for this mechanism.`
    case 'consistent':
      return `The audit is consistent with the claim ${claim}: the ε it can certify, ${lb} at ${a.confidence * 100} % confidence, is below the claim. This does not prove the claim — an audit can only refute — and this run could certify at most ε = ${eps(a.ceiling)}.`
    default:
      return `The audit is inconclusive for the claim ${claim}: ε lower bound ${lb} at ${a.confidence * 100} % confidence, and this run could certify at most ${eps(a.ceiling)}${a.ceiling < a.claim.epsilon ? ', below the claim: more trials are needed to test it' : ''}.`
  }
}

/** The report's sections, charts placed where they belong (`charts` from ./charts.ts). */
export const reportSections = (r: ReportJson, charts: ReadonlyArray<ChartSpec>): ReadonlyArray<Section> => {
  const chart = (id: string): Block[] => charts.filter((c) => c.id === id).map((c) => ({ kind: 'chart', chart: c }) as const)
  const out: Section[] = []
  const p = r.privacy
  if (p !== undefined) {
    const blocks: Block[] = [
      { kind: 'text', text: `Subject: ${p.subject}. Protects: ${p.protects} (the unit and neighbouring relation); accounted under ${p.accountedUnder}.` },
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
    if (p.recorded !== undefined && p.recorded.length > 0)
      blocks.push({ kind: 'text', text: `Recorded at training time: ${p.recorded.map((g) => `ε = ${eps(g.epsilon)} at δ = ${showDelta(g.delta)} (${g.accountant})`).join('; ')}.` })
    if (p.assumptions.length > 0) blocks.push({ kind: 'text', text: 'Assumptions:' }, { kind: 'list', items: p.assumptions })
    if (p.notes.length > 0) blocks.push({ kind: 'text', text: 'Notes:' }, { kind: 'list', items: p.notes })
    out.push({ id: 'privacy', title: 'Privacy statement', blocks })
  }
  const l = r.ledger
  if (l !== undefined)
    out.push({
      id: 'ledger',
      title: 'Mechanism ledger',
      blocks: [
        { kind: 'text', text: `The plan as an event tree: ${l.events} events; SHA-256 of its canonical JSON ${l.sha256}.${l.truncated ? ` The first ${l.rows.length} rows are shown.` : ''} "repeats" is how many times the event runs (the product of the SelfCompose counts above it).` },
        {
          kind: 'table',
          table: { title: 'events', columns: ['path', 'event', 'label', 'parameters', 'repeats'], rows: l.rows.map((x) => [x.path, `${'· '.repeat(x.depth)}${x.tag}`, x.label, x.parameters, x.repeats]) },
        },
      ],
    })
  const c = r.curves
  if (c !== undefined) {
    const missing = [
      c.profile.ok ? undefined : `privacy profile: ${c.profile.reason}`,
      c.rdp.ok ? undefined : `RDP curve: ${c.rdp.reason}`,
      c.byIteration.ok ? undefined : `ε by iteration: ${c.byIteration.reason}`,
    ].filter((x): x is string => x !== undefined)
    out.push({
      id: 'curves',
      title: 'Privacy curves',
      blocks: [...chart('privacy-profile'), ...chart('rdp-curve'), ...chart('epsilon-by-iteration'), ...(missing.length > 0 ? [{ kind: 'text', text: 'Not drawn:' } as const, { kind: 'list', items: missing } as const] : [])],
    })
  }
  const a = r.audit
  if (a !== undefined)
    out.push({
      id: 'audit',
      title: 'Empirical audit',
      blocks: [
        { kind: 'text', text: auditInWords(a) },
        ...(a.interpretation === '' ? [] : [{ kind: 'text', text: a.interpretation } as const]),
        {
          kind: 'table',
          table: {
            title: `audit of ${a.mechanism}`,
            columns: ['quantity', 'value'],
            rows: [
              ['verdict', a.verdict],
              ['claim', `ε = ${eps(a.claim.epsilon)}, δ = ${showDelta(a.claim.delta)}`],
              [`ε lower bound (${a.confidence * 100} % confidence)`, eps(a.epsilonLowerBound)],
              ['ceiling (largest ε this run could certify)', eps(a.ceiling)],
              ['point estimate (no confidence)', eps(a.pointEstimate)],
              ...(a.roc === undefined ? [] : [['AUC', showNumber(a.roc.auc)], ['TPR at FPR 1 %', showNumber(a.roc.tprAtFpr1pct)], ['TPR at FPR 0.1 %', showNumber(a.roc.tprAtFpr01pct)]]),
              ['trials (spent / requested)', `${a.trials.spent} / ${a.trials.requested}`],
              ['method', a.method],
            ],
          },
        },
        ...chart('roc-linear'),
        ...chart('roc-log'),
        ...chart('audit-vs-claim'),
      ],
    })
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
