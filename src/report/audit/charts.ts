/**
 * Vega-Lite specs of the report's charts, as pure functions of the report model: plain JSON that
 * the HTML page embeds next to its rendering and that tests can inspect without drawing anything.
 * Each chart has a stable id (the browser test and the page's anchors use it).
 *
 * @module
 */
import type { AuditSection, ReportJson, SubjectSection, SummarySection, UtilitySection } from './document.js'

export interface ChartSpec {
  readonly id: string
  readonly title: string
  /** One sentence under the chart: what it shows and how it was computed. */
  readonly caption: string
  readonly spec: Record<string, unknown>
}

const WIDTH = 420
const HEIGHT = 240
const base = (title: string, values: ReadonlyArray<Record<string, unknown>>) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  title,
  width: WIDTH,
  height: HEIGHT,
  data: { values },
  config: { font: 'sans-serif', axis: { labelFontSize: 11, titleFontSize: 12 } },
})
const q = (field: string, title: string, extra: Record<string, unknown> = {}) => ({ field, type: 'quantitative', title, ...extra })

/** Powers of ten from 10^⌊log lo⌋ to 1: log-axis ticks that never crowd (at most one label a decade, thinned past 6 decades). */
export const decadeTicks = (lo: number): number[] => {
  const from = Math.floor(Math.log10(Math.max(lo, 1e-300)))
  const n = -from
  const step = Math.max(1, Math.ceil(n / 6))
  const out: number[] = []
  for (let k = 0; k <= n; k += step) out.push(10 ** -k)
  return out.reverse()
}
const logAxis = (lo: number) => ({ scale: { type: 'log', domain: [10 ** Math.floor(Math.log10(Math.max(lo, 1e-300))), 1] }, axis: { values: decadeTicks(lo), format: '.0e', labelOverlap: 'greedy' } })

const finite = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x)

/**
 * One label per group of close dots of a subject (values within 4 % of the axis), alternately above
 * and below the row: labels that would print on top of each other are merged ("1.00 = 1.00" reads
 * as one "1.00") instead of overlapping.
 */
const summaryLabels = (dots: ReadonlyArray<{ subject: string; epsilon: number }>): Array<{ subject: string; epsilon: number; label: string; dy: number }> => {
  const span = Math.max(1e-12, ...dots.map((d) => d.epsilon))
  const out: Array<{ subject: string; epsilon: number; label: string; dy: number }> = []
  for (const subject of [...new Set(dots.map((d) => d.subject))]) {
    const mine = dots.filter((d) => d.subject === subject).sort((a, b) => a.epsilon - b.epsilon)
    const groups: Array<Array<{ epsilon: number }>> = []
    for (const d of mine) {
      const last = groups[groups.length - 1]
      if (last !== undefined && d.epsilon - (last[0] as { epsilon: number }).epsilon <= 0.04 * span) last.push(d)
      else groups.push([d])
    }
    groups.forEach((g, i) => {
      const labels = [...new Set(g.map((d) => d.epsilon.toPrecision(3)))]
      out.push({ subject, epsilon: (g[0] as { epsilon: number }).epsilon, label: labels.join(' / '), dy: i % 2 === 0 ? -11 : 13 })
    })
  }
  return out
}

/**
 * The summary as dots and intervals: per subject, the claimed ε, the accounted ε and the known true ε
 * as dots, and the audit as an interval from its ε lower bound to the most this run could certify;
 * each dot labelled with its value. The caption is the report's one verdict sentence.
 */
export const summaryChart = (s: SummarySection): ChartSpec | undefined => {
  const dots = s.rows.flatMap((r) => [
    ...(finite(r.claimed?.epsilon) ? [{ subject: r.subject, what: 'claimed ε', epsilon: r.claimed.epsilon }] : []),
    ...(finite(r.accounted?.epsilon) ? [{ subject: r.subject, what: 'accounted ε (upper bound)', epsilon: r.accounted.epsilon }] : []),
    ...(finite(r.audited?.epsilonLowerBound) ? [{ subject: r.subject, what: 'audited ε lower bound', epsilon: r.audited.epsilonLowerBound }] : []),
    ...(finite(r.knownTrueEpsilon?.epsilon) ? [{ subject: r.subject, what: 'true ε (known)', epsilon: r.knownTrueEpsilon.epsilon }] : []),
  ])
  if (dots.length === 0) return undefined
  const intervals = s.rows.flatMap((r) => (r.audited !== undefined && finite(r.audited.ceiling) ? [{ subject: r.subject, lo: r.audited.epsilonLowerBound, hi: Math.max(r.audited.ceiling, r.audited.epsilonLowerBound) }] : []))
  const y = { field: 'subject', type: 'nominal', title: null, sort: s.rows.map((r) => r.subject), axis: { labelLimit: 240 } }
  const colors = { domain: ['claimed ε', 'accounted ε (upper bound)', 'audited ε lower bound', 'true ε (known)'], range: ['#1f77b4', '#2ca02c', '#d62728', '#7f7f7f'] }
  return {
    id: 'summary',
    title: 'Claimed, accounted and audited ε',
    caption: `${s.sentence} Dots: the claimed ε, the accountant's ε (an upper bound on the true ε), the audit's ε lower bound and, for zoo mechanisms, the true ε; the grey interval runs from the audit's lower bound to the most its run could certify.`,
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: 'claimed vs accounted vs audited ε',
      width: WIDTH,
      height: Math.max(60, 34 * s.rows.length),
      config: { font: 'sans-serif', axis: { labelFontSize: 11, titleFontSize: 12 } },
      layer: [
        { data: { values: intervals }, mark: { type: 'rule', strokeWidth: 6, opacity: 0.25, color: '#555' }, encoding: { y, x: q('lo', 'ε'), x2: { field: 'hi' } } },
        {
          data: { values: dots },
          mark: { type: 'point', filled: true, size: 90 },
          encoding: { y, x: q('epsilon', 'ε'), color: { field: 'what', type: 'nominal', title: null, scale: colors, legend: { labelLimit: 300 } }, shape: { field: 'what', type: 'nominal', title: null, scale: { domain: colors.domain } } },
        },
        ...[-1, 1].map((side) => ({
          data: { values: summaryLabels(dots).filter((l) => Math.sign(l.dy) === side) },
          mark: { type: 'text', fontSize: 10, color: '#333', dy: side < 0 ? -10 : 12 },
          encoding: { y, x: q('epsilon', 'ε'), text: { field: 'label' } },
        })),
      ],
    },
  }
}

/** A subject's privacy curves (profile, RDP, ε by iteration), ids prefixed by the subject's id. */
export const subjectCharts = (sub: SubjectSection): ChartSpec[] => {
  const out: ChartSpec[] = []
  const c = sub.curves
  const id = (x: string) => `${sub.id}-${x}`
  if (c !== undefined && c.profile.ok && c.profile.points.length > 1) {
    const lo = Math.min(...c.profile.points.map((p) => p.delta))
    out.push({
      id: id('privacy-profile'),
      title: `${sub.name}: privacy profile δ(ε)`,
      caption: `The smallest δ at each ε (log scale): ${c.profile.method}.`,
      spec: {
        ...base('δ(ε): the privacy profile', c.profile.points),
        mark: { type: 'line', point: true },
        encoding: { x: q('epsilon', 'ε'), y: q('delta', 'δ', { scale: { type: 'log' }, axis: { values: decadeTicks(lo).filter((v) => v >= lo / 10), format: '.0e', labelOverlap: 'greedy' } }) },
      },
    })
  }
  if (c !== undefined && c.rdp.ok && c.rdp.points.length > 1)
    out.push({
      id: id('rdp-curve'),
      title: `${sub.name}: RDP curve ε(α)`,
      caption: `Rényi DP of the whole plan at each order α: ${c.rdp.method}.`,
      spec: {
        ...base('RDP ε(α)', c.rdp.points),
        mark: { type: 'line', point: true },
        encoding: { x: q('order', 'order α', { scale: { type: 'log' }, axis: { labelOverlap: 'greedy' } }), y: q('epsilon', 'ε(α)', { scale: { type: 'log' }, axis: { labelOverlap: 'greedy' } }) },
      },
    })
  if (c !== undefined && c.byIteration.ok && c.byIteration.points.length > 0)
    out.push({
      id: id('epsilon-by-iteration'),
      title: `${sub.name}: ε by iteration`,
      caption: `ε after each number of iterations: ${c.byIteration.method}.`,
      spec: {
        ...base(`ε at δ = ${c.delta} after i iterations`, c.byIteration.points),
        mark: { type: 'line', point: true },
        encoding: { x: q('iteration', 'iteration'), y: q('epsilon', 'ε') },
      },
    })
  if (sub.tradeOff !== undefined && sub.audits.length === 0)
    out.push(tradeOffChart(id('trade-off'), `${sub.name}: accounted trade-off`, sub.tradeOff.points, [], `The best any attack can do against the plan: β(α), the smallest false-negative rate at false-positive rate α (log axes): ${sub.tradeOff.description}.`))
  for (const a of sub.audits) out.push(...auditCharts(a, sub))
  return out
}

const CHANCE = 'chance (a coin flip)'

const TRADE_OFF_SERIES = { domain: ['accounted trade-off β(α)', CHANCE, 'attack', 'attack, below the curve'], range: ['#2ca02c', '#999999', '#1f77b4', '#d62728'] }

/** β(α) and (optionally) an attack's operating points on log axes: FPR α against FNR = 1 − TPR, with the chance line. */
const tradeOffChart = (id: string, title: string, curvePoints: ReadonlyArray<{ alpha: number; beta: number }>, emp: ReadonlyArray<{ fpr: number; fnr: number; below: boolean }>, caption: string): ChartSpec => {
  const lo = Math.min(...emp.map((p) => p.fpr), ...curvePoints.filter((p) => p.alpha > 0).map((p) => p.alpha), 1e-3)
  const loBeta = Math.min(...emp.map((p) => p.fnr), ...curvePoints.filter((p) => p.beta > 0 && p.alpha >= lo).map((p) => p.beta), 1e-3)
  const curve = curvePoints.filter((p) => p.alpha >= lo && p.beta > 0).map((p) => ({ fpr: p.alpha, fnr: p.beta, series: 'accounted trade-off β(α)' }))
  // the chance line 1 − α, sampled densely enough to be drawn as a curve on log axes
  const chance = Array.from({ length: 41 }, (_, i) => lo ** (1 - i / 40))
    .filter((x) => x < 1)
    .concat([0.9, 0.99, 0.999].filter((x) => x > lo))
    .sort((a, b) => a - b)
    .map((x) => ({ fpr: x, fnr: 1 - x, series: CHANCE }))
    .filter((p) => p.fnr >= loBeta)
  const color = { field: 'series', type: 'nominal', title: null, scale: TRADE_OFF_SERIES, legend: { orient: 'bottom-left', labelLimit: 320 } }
  return {
    id,
    title,
    caption,
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: '1 − TPR against FPR (log-log)',
      width: WIDTH,
      height: HEIGHT,
      config: { font: 'sans-serif', axis: { labelFontSize: 11, titleFontSize: 12 } },
      encoding: { x: q('fpr', 'false-positive rate α', logAxis(lo)), y: q('fnr', 'false-negative rate 1 − TPR', logAxis(loBeta)) },
      layer: [
        { data: { values: [...curve, ...chance] }, mark: { type: 'line', clip: true }, encoding: { color, strokeDash: { field: 'series', type: 'nominal', legend: null, scale: { domain: TRADE_OFF_SERIES.domain, range: [[1, 0], [5, 4], [1, 0], [1, 0]] } } } },
        ...(emp.length === 0 ? [] : [{ data: { values: emp.map((p) => ({ fpr: p.fpr, fnr: p.fnr, series: p.below ? 'attack, below the curve' : 'attack' })) }, mark: { type: 'point', filled: true, size: 16, clip: true }, encoding: { color } }]),
      ],
    },
  }
}

/** An audit's charts: ROC, the trade-off view (1 − TPR against FPR, log axes, with the accountant's curve), scores per side, and the ε bars. */
export const auditCharts = (a: AuditSection, sub: SubjectSection): ChartSpec[] => {
  const out: ChartSpec[] = []
  const id = (x: string) => `${a.id}-${x}`
  if (a.roc !== undefined && a.roc.points.length > 1) {
    const roc = a.roc.points.map((p) => ({ ...p, series: 'attack' }))
    out.push({
      id: id('roc-linear'),
      title: `${a.mechanism}: ROC`,
      caption: `The chosen attack's ROC on the estimation trials; AUC = ${a.roc.auc.toFixed(4)}. The dashed diagonal is a coin flip.`,
      spec: {
        ...base('ROC', [...roc, { fpr: 0, tpr: 0, series: CHANCE }, { fpr: 1, tpr: 1, series: CHANCE }]),
        mark: { type: 'line' },
        encoding: {
          x: q('fpr', 'false-positive rate', { scale: { domain: [0, 1] } }),
          y: q('tpr', 'true-positive rate', { scale: { domain: [0, 1] } }),
          color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom-right' } },
          strokeDash: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom-right' } },
        },
      },
    })
  }
  const tradeOff = a.tradeOff
  const emp = (tradeOff?.empirical ?? a.roc?.points.map((p) => ({ fpr: p.fpr, fnr: 1 - p.tpr, below: false })) ?? []).filter((p) => p.fpr > 0 && p.fnr > 0)
  if (emp.length > 1 || (tradeOff !== undefined && tradeOff.curve.length > 1)) {
    const below = tradeOff?.pointsBelow ?? 0
    out.push(
      tradeOffChart(
        id('trade-off'),
        `${a.mechanism}: attack against the accounted trade-off`,
        tradeOff?.curve ?? [],
        emp,
        tradeOff === undefined
          ? `The attack's error rates on the estimation trials (1 − TPR against FPR, log axes); no accounted curve.`
          : `The attack's error rates (dots: 1 − TPR against FPR on the estimation trials) and the best any attack can do under ${tradeOff.source} (line: β(α), ${tradeOff.method}). ${below === 0 ? 'No point lies below the curve: the attack does not beat the accounting.' : `${below} point${below === 1 ? ' lies' : 's lie'} below the curve at ${a.confidence} confidence: the mechanism is not what was accounted.`}`,
      ),
    )
  }
  if (a.histogram !== undefined && a.histogram.bins.length > 0) {
    const h = a.histogram
    const values = h.bins.flatMap((b) => [
      { lo: b.lo, hi: b.hi, side: 'with the target (D)', runs: b.withTarget },
      { lo: b.lo, hi: b.hi, side: 'without it (D′)', runs: b.withoutTarget },
    ])
    out.push({
      id: id('scores'),
      title: `${a.mechanism}: scores per side`,
      caption: `The chosen test's score (${h.statistic}) on each estimation run, per side; the test says "with the target" at scores ≥ its threshold.`,
      spec: {
        ...base('scores on the estimation runs', values),
        layer: [
          { mark: { type: 'bar', opacity: 0.55, binSpacing: 0 }, encoding: { x: q('lo', 'score', { bin: { binned: true } }), x2: { field: 'hi' }, y: q('runs', 'runs', { stack: null }), color: { field: 'side', type: 'nominal', title: null, legend: { orient: 'top-left', labelLimit: 300 } } } },
          ...(h.threshold === undefined ? [] : [{ data: { values: [{ threshold: h.threshold, label: 'threshold' }] }, layer: [{ mark: { type: 'rule', color: '#333', strokeDash: [4, 3] }, encoding: { x: q('threshold', 'score') } }, { mark: { type: 'text', dy: -4, align: 'left', dx: 3, fontSize: 10 }, encoding: { x: q('threshold', 'score'), y: { value: 8 }, text: { field: 'label' } } }] }]),
        ],
      },
    })
  }
  const accounted = sub.privacy?.epsilonAtDelta.find((x) => x.delta === a.claim.delta)
  const bars = [
    { what: 'ε lower bound (audit)', epsilon: a.epsilonLowerBound },
    { what: 'ceiling of this run', epsilon: a.ceiling },
    { what: 'claimed ε', epsilon: a.claim.epsilon },
    ...(accounted === undefined ? [] : [{ what: 'accounted ε', epsilon: accounted.epsilon }]),
    ...(a.knownTrueEpsilon === undefined ? [] : [{ what: 'true ε', epsilon: a.knownTrueEpsilon.epsilon }]),
  ].filter((b) => Number.isFinite(b.epsilon))
  out.push({
    id: id('audit-vs-claim'),
    title: `${a.mechanism}: audit against the claim`,
    caption: `ε lower bound at ${a.confidence} confidence, the largest ε this run could certify, the claim${accounted === undefined ? '' : ', the accounted ε'}${a.knownTrueEpsilon === undefined ? '' : ' and the true ε'}: ${a.verdict}.`,
    spec: {
      ...base('audit vs claim', bars.map((b) => ({ ...b, label: b.epsilon.toPrecision(3) }))),
      height: 24 * bars.length,
      layer: [
        { mark: { type: 'bar' }, encoding: { y: { field: 'what', type: 'nominal', title: null, sort: null, axis: { labelLimit: 260 } }, x: q('epsilon', 'ε'), color: { field: 'what', type: 'nominal', legend: null } } },
        { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: { y: { field: 'what', type: 'nominal', sort: null }, x: q('epsilon', 'ε'), text: { field: 'label' } } },
      ],
    },
  })
  return out
}

const utilityChart = (u: UtilitySection): ChartSpec | undefined => {
  const rows = u.rows.filter((x) => Number.isFinite(x.epsilon)).map((x) => ({ epsilon: x.epsilon, perplexity: x.perplexity, trainer: x.trainer, label: `${x.model} (ε ${x.epsilon.toPrecision(3)})` }))
  if (rows.length === 0) return undefined
  return {
    id: 'utility',
    title: 'Perplexity against ε',
    caption: `Held-out perplexity of each model against its accounted ε at δ = ${u.delta} (lower is better); each point is labelled with its model.`,
    spec: {
      ...base('perplexity vs ε', rows),
      layer: [
        { mark: { type: 'point', filled: true, size: 60 }, encoding: { x: q('epsilon', 'ε'), y: q('perplexity', 'perplexity', { scale: { zero: false } }), color: { field: 'trainer', type: 'nominal' } } },
        { mark: { type: 'text', dy: -9, fontSize: 10 }, encoding: { x: q('epsilon', 'ε'), y: q('perplexity', 'perplexity', { scale: { zero: false } }), text: { field: 'label' } } },
      ],
    },
  }
}

/** Every chart the report's sections call for, in page order; sections without data give none. */
export const reportCharts = (r: ReportJson): ReadonlyArray<ChartSpec> => {
  const summary = summaryChart(r.summary)
  const utility = r.utility === undefined ? undefined : utilityChart(r.utility)
  return [...(summary === undefined ? [] : [summary]), ...r.subjects.flatMap(subjectCharts), ...(utility === undefined ? [] : [utility])]
}
