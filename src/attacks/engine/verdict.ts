/**
 * Phase 5 of a mechanism audit, the verdict: the estimation counts at the chosen threshold give the
 * Clopper–Pearson rates and ε_LB (Kairouz, Oh & Viswanath 2015; Jagielski, Ullman & Oprea 2020),
 * the ROC over the grid, the μ-GDP test (Dong, Roth & Su 2022), the claim's profile points, and the
 * verdict with its reading; `tooFewTrialsResult` is the result of an audit not worth running.
 *
 * Verdict: `violation` if ε_LB (or a profile point, or the exact-support test) refutes the claim;
 * `inconclusive` if the run could not have certified more than the claim (its ceiling ≤ ε) or did
 * not finish; `consistent` otherwise.
 *
 * @module
 */
import { analyticGaussianEpsilon } from '../../accounting/analytic-gaussian.js'
import { epsilonFromRates, projectedTrials } from '../bounds.js'
import { BOUND_METHOD } from '../ratio-bound.js'
import type { SelectionOutcome } from '../checkpoint.js'
import type { AttackReport, AuditResult, AuditStatus, GdpTest, AuditVerdict } from '../result.js'
import { type RocData, rocFromCounts } from '../roc.js'
import { describeAttack } from '../score.js'
import { aboveCount, type EstimationTotals } from './merge.js'
import { int, METHOD, num, pct, type Validated } from './spec.js'
import { gdpJobs, type StatJob, statsInline } from './verdict-stats.js'
import type { AuditState, Budget } from './state.js'


const emptyCounts = { falsePositives: 0, negatives: 0, falseNegatives: 0, positives: 0 }
const emptyRates = { fpr: Number.NaN, fnr: Number.NaN, fprUpper: 1, fnrUpper: 1 }

/** The fields every mechanism result starts with. */
const header = <I>(cfg: Validated<I>, name: string, seed: string | number) => ({
  schemaVersion: 1 as const,
  subject: { kind: 'mechanism' as const, name, pairs: cfg.pairs.length },
  mechanism: name,
  claim: cfg.claim,
  confidence: cfg.confidence,
  seed: String(seed),
  method: METHOD,
  pairs: cfg.pairs.length,
})

/** The result of an audit that was not run: too few trials to choose an attack or certify anything. */
export const tooFewTrialsResult = <I>(cfg: Validated<I>, name: string, seed: string | number, budget: Budget, needed: number, message: string): AuditResult => ({
  ...header(cfg, name, seed),
  ceiling: budget.ceiling,
  verdict: 'inconclusive',
  status: 'too-few-trials',
  epsilonLowerBound: 0,
  pointEstimate: 0,
  attack: null,
  counts: emptyCounts,
  rates: emptyRates,
  trials: { requested: cfg.trials, spent: 0, selection: 0, estimation: 0, selectionPerPairPerSide: budget.selPerSide, estimationPerSide: budget.estPerSide },
  trialsNeeded: { forCeiling: needed, projectedViolation: null },
  roc: null,
  candidates: [],
  issues: [{ _tag: 'TooFewTrials', message }],
  interpretation: `Not run: ${message}.`,
})

/** What the estimation counts say at the chosen threshold, and over the whole grid. */
interface Estimate {
  readonly counts: AuditResult['counts']
  readonly rates: AuditResult['rates']
  readonly lb: number
  readonly point: number
  readonly roc: RocData | null
  readonly gdp: GdpTest | null
  readonly profileViolations: Array<{ epsilon: number; delta: number; epsilonLowerBound: number }>
  readonly projected: number | null
}

const NOTHING: Estimate = { counts: emptyCounts, rates: emptyRates, lb: 0, point: 0, roc: null, gdp: null, profileViolations: [], projected: null }

const estimate = <I>(st: AuditState<I>, sel: SelectionOutcome | null, tot: EstimationTotals | null): Estimate => {
  if (sel === null || tot === null || !(tot.n[0] > 0 && tot.n[1] > 0)) return { ...NOTHING, profileViolations: [] }
  const { claim, alpha, confidence } = st.cfg
  const delta = claim.delta
  const k = sel.grid.indexOf(sel.attack.threshold)
  const tp = aboveCount(tot.counts[0], k)
  const fpC = aboveCount(tot.counts[1], k)
  const fnC = tot.n[0] - tp
  // The Clopper–Pearson ends, in this thread: the μ-GDP test computes only the corners that can
  // matter (verdict-stats.ts `gdpMu`), a few incomplete-beta inversions instead of four per
  // threshold, and the pool loaded their module while the fits ran (issue 23).
  const G = sel.grid.length
  const jobs: StatJob[] = [
    { kind: 'bound', form: sel.bound ?? 'rates', fp: fpC, negatives: tot.n[1], fn: fnC, positives: tot.n[0], delta, alpha },
    ...gdpJobs(tot.counts[0], tot.counts[1], alpha / (2 * G), 1),
  ]
  const answers = statsInline(jobs)
  const b = answers[0]
  if (b?.kind !== 'bound') throw new Error('internal: the verdict statistics came back out of order')
  let mu = 0
  for (const x of answers) if (x.kind === 'gdp') mu = Math.max(mu, x.mu)
  const { fprUpper, fnrUpper, lb } = b
  const rates = { fpr: fpC / tot.n[1], fnr: fnC / tot.n[0], fprUpper, fnrUpper }
  let projected: number | null = null
  if (lb <= claim.epsilon) {
    const n = projectedTrials(rates.fpr, rates.fnr, claim.epsilon, delta, alpha)
    projected = n === null ? null : st.budget.totalFor(n)
  }
  return {
    counts: { falsePositives: fpC, negatives: tot.n[1], falseNegatives: fnC, positives: tot.n[0] },
    rates,
    lb,
    point: epsilonFromRates(rates.fpr, rates.fnr, delta),
    roc: rocFromCounts(sel.grid, tot.counts[0], tot.counts[1]),
    gdp: gdpTest(G, mu, delta, claim.epsilon, confidence),
    profileViolations: (claim.profile ?? [])
      .map((q) => ({ epsilon: q.epsilon, delta: q.delta, epsilonLowerBound: epsilonFromRates(fprUpper, fnrUpper, q.delta) }))
      .filter((q) => q.epsilonLowerBound > q.epsilon),
    projected,
  }
}

/** The plain-language reading of a result. */
const interpret = <I>(st: AuditState<I>, status: AuditStatus, verdict: AuditVerdict, est: Estimate, sel: SelectionOutcome | null, perSideDone: number, supportRefutes: boolean): string => {
  const { claim, confidence } = st.cfg
  const { lb, profileViolations: pv } = est
  const c = pct(confidence)
  if (status === 'complete' && lb <= claim.epsilon) {
    if (supportRefutes) return `Violation: ${sel?.support?.statement ?? ''}`
    if (pv.length > 0)
      return `Violation of the claimed profile: with ${c} confidence the mechanism is not (${pv[0]?.epsilon}, ${pv[0]?.delta})-DP (ε ≥ ${num(pv[0]?.epsilonLowerBound ?? 0)} at that δ), a point the claim includes.`
  }
  const done = int(st.progress.trialsDone)
  switch (status) {
    case 'complete':
      return verdict === 'violation'
        ? `Violation: the mechanism is not (${claim.epsilon}, ${claim.delta})-DP on these inputs. With ${c} confidence its ε is at least ${num(lb)}, above the claimed ${claim.epsilon}.`
        : verdict === 'consistent'
          ? `Consistent: no violation found. This run could have certified up to ε = ${num(st.ceiling)} but the best attack reached ${num(lb)} ≤ ${claim.epsilon}. An audit refutes claims; it cannot prove them.`
          : `Inconclusive: ${int(perSideDone)} trials per side can certify at most ε = ${num(st.ceiling)}, not more than the claimed ${claim.epsilon}; run at least ${int(st.budget.forCeiling)} trials.` +
            (est.projected !== null ? ` At the observed rates about ${int(est.projected)} trials would certify a violation.` : '')
    case 'mechanism-failed':
    case 'trainer-failed':
      return `Inconclusive: the audit stopped because the mechanism failed (${st.issues[st.issues.length - 1]?.message ?? 'see issues'}). The ${done} trials that ran are kept in the counts; fix the mechanism and re-run.`
    case 'interrupted':
      return `Inconclusive: interrupted after ${done} of ${int(st.progress.trialsTotal)} trials${st.spec.checkpoint !== undefined ? `; run again with the same options to resume from ${st.spec.checkpoint}` : ''}. The bound shown covers only the trials finished.`
    case 'too-few-trials':
      return 'Not run: too few trials.'
  }
}

/** Phase 5: the result of a run that got as far as `status`. */
export const verdictPhase = <I>(
  st: AuditState<I>,
  status: AuditStatus,
  parts: { readonly selection: SelectionOutcome | null; readonly selectionTrials: number; readonly totals: EstimationTotals | null },
): AuditResult => {
  const { claim } = st.cfg
  const sel = parts.selection
  const tot = parts.totals
  const est = estimate(st, sel, tot)
  // The support test's pure-ε refutation is certain (given the oracle): it adds no error to the verdict.
  const supportRefutes = claim.delta === 0 && sel?.support?.refutesEveryPureEpsilon === true
  const refuted = est.lb > claim.epsilon || est.profileViolations.length > 0 || supportRefutes
  const verdict: AuditVerdict = status === 'complete' ? (refuted ? 'violation' : st.ceiling > claim.epsilon ? 'consistent' : 'inconclusive') : 'inconclusive'
  const attack: AttackReport | null =
    sel === null
      ? null
      : {
          family: sel.family,
          pair: sel.pair,
          pairLabel: st.cfg.pairs[sel.pair]?.label ?? `pair ${sel.pair}`,
          outputShape: sel.attack.shape,
          description: describeAttack(sel.attack),
          selectionEpsilon: sel.tuneEpsilon,
          chosen: sel.attack,
        }
  const estimated = tot === null ? 0 : tot.n[0] + tot.n[1]
  const perSideDone = tot === null ? 0 : Math.min(tot.n[0], tot.n[1])
  const bound = sel?.bound ?? 'rates'
  return {
    ...header(st.cfg, st.name, st.spec.seed),
    ...(bound === 'rates' ? {} : { method: BOUND_METHOD[bound], bound }),
    ceiling: st.ceiling,
    verdict,
    status,
    epsilonLowerBound: est.lb,
    pointEstimate: est.point,
    attack,
    counts: est.counts,
    rates: est.rates,
    trials: {
      requested: st.cfg.trials,
      spent: parts.selectionTrials + estimated,
      selection: parts.selectionTrials,
      estimation: estimated,
      selectionPerPairPerSide: st.selPerPairSide,
      estimationPerSide: st.estPerSide,
    },
    trialsNeeded: { forCeiling: st.budget.forCeiling, projectedViolation: est.projected },
    roc: est.roc,
    candidates: sel?.candidates ?? [],
    issues: st.issues,
    interpretation: interpret(st, status, verdict, est, sel, perSideDone, supportRefutes),
    gdp: est.gdp,
    profileViolations: est.profileViolations,
    support: sel?.support ?? null,
  }
}

/** The μ-GDP test over every threshold of the estimation grid (see GdpTest), from its μ (verdict-stats.ts `gdpJobs`). */
const gdpTest = (G: number, mu: number, delta: number, claimed: number, confidence: number): GdpTest => {
  const eps = mu > 0 && delta > 0 ? analyticGaussianEpsilon(1 / mu, delta) : null
  const pctc = `${+(confidence * 100).toPrecision(6)}%`
  return {
    muLowerBound: mu,
    epsilonIfGaussian: eps,
    refutesClaimIfGaussian: eps !== null && eps > claimed,
    statement:
      `With ${pctc} confidence the mechanism is not μ-GDP for any μ < ${mu.toFixed(3)} (Clopper–Pearson at α/(2·${G}) per threshold, Bonferroni over the grid).` +
      (eps === null ? '' : ` If its trade-off curve were exactly Gaussian (an assumption), that μ would mean ε ≥ ${num(eps)} at δ = ${delta}.`),
  }
}
