/**
 * `chooseTestAndBound`: the auditor's calibrated threshold test on per-run statistics of a trainer
 * game (Kairouz, Oh & Viswanath 2015; Jagielski, Ullman & Oprea 2020), shared by `auditTrainer` (./audit.ts) and
 * `auditClassifierMembership` (./classifier-membership.ts). Side 0 is D (the target in, "positive"),
 * side 1 is D′.
 *
 * 1. Selection runs of each side, split in halves. On the first half (the shadow models) LiRA's
 *    IN/OUT Gaussians are fitted per statistic (Carlini et al. 2022, ./lira.ts). On the second half
 *    every candidate — each statistic as it is, then its LiRA ratio — is swept over both
 *    orientations and every threshold (`sweep`: ε̂ at Wilson upper bounds, z at α/2 per rate), and
 *    the best is kept (ties: the larger advantage, then the earlier candidate).
 * 2. Estimation runs (fresh, disjoint seeds): the chosen event {orientation · score ≥ threshold}
 *    counted on D runs (true positives) and D′ runs (false positives).
 * 3. Bound: ε_LB = max{0, ln((1−δ−FPR_hi)/FNR_hi), ln((1−δ−FNR_hi)/FPR_hi)} with Clopper–Pearson
 *    upper bounds at α/2 each (`epsilonLowerBound`, ../bounds.ts), valid with probability ≥ 1 − α
 *    for every (ε, δ)-DP trainer; beside it the ceiling n estimation runs per side can certify.
 *
 * The bound uses only the estimation runs: choosing on the selection runs affects power, never
 * validity.
 *
 * @module
 */
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { certifiableCeiling, clopperPearson, epsilonFromRates, epsilonLowerBound } from '../bounds.js'
import type { AuditClaim } from '../claim.js'
import { sweep } from '../select.js'
import { fitLira, type LiraModel, liraScore } from './lira.js'

export type TrainerVerdict = 'violation' | 'consistent' | 'inconclusive'

/** One candidate's selection score: its tuning ε̂ and advantage on the second selection half. */
export interface CandidateReport {
  readonly test: string
  readonly tuneEpsilon: number
  readonly advantage: number
}

export interface ThresholdTestInput {
  /** Names of the statistics: the columns of every matrix below. */
  readonly statistics: ReadonlyArray<string>
  /** Selection runs per side (D, D′), row-major runs × statistics. */
  readonly selection: readonly [Float64Array, Float64Array]
  /** Estimation runs per side (D, D′), row-major runs × statistics. */
  readonly estimation: readonly [Float64Array, Float64Array]
  readonly claim: AuditClaim
  readonly confidence: number
}

export interface ThresholdTestResult {
  /** The chosen test: statistic or `lira:statistic`, orientation and threshold. */
  readonly test: { readonly name: string; readonly orientation: 1 | -1; readonly threshold: number; readonly selectionEpsilon: number; readonly lira?: LiraModel }
  /** LiRA's fit for each statistic, in `statistics` order (chosen or not). */
  readonly liras: ReadonlyArray<LiraModel>
  readonly candidates: ReadonlyArray<CandidateReport>
  readonly counts: { readonly falsePositives: number; readonly negatives: number; readonly falseNegatives: number; readonly positives: number }
  readonly rates: { readonly fpr: number; readonly fnr: number; readonly fprUpper: number; readonly fnrUpper: number }
  readonly epsilonLowerBound: number
  readonly pointEstimate: number
  readonly ceiling: number
  readonly verdict: TrainerVerdict
  /**
   * The chosen test's oriented score (orientation × statistic or LiRA ratio) on every estimation run,
   * per side: the event is score ≥ threshold, so a reader recounts FP and FN from these and draws
   * them as a histogram per side (ML Privacy Meter's view). Public: every run is seeded.
   */
  readonly scores: { readonly statistic: string; readonly withTarget: ReadonlyArray<number>; readonly withoutTarget: ReadonlyArray<number> }
}

/** Column j of a row-major matrix with F columns, rows [from, to). */
const column = (m: Float64Array, F: number, j: number, from: number, to: number): Float64Array => {
  const out = new Float64Array(Math.max(0, to - from))
  for (let i = from; i < to; i++) out[i - from] = m[i * F + j] as number
  return out
}

interface Candidate {
  readonly name: string
  readonly statistic: number
  readonly lira?: LiraModel
}

const scoreOf = (c: Candidate, x: number): number => (c.lira === undefined ? x : liraScore(c.lira, x))

/** Chooses the test on the selection runs, counts its errors on the estimation runs, bounds ε; see the module comment. */
export const chooseTestAndBound = (input: ThresholdTestInput): E.Either<DpError, ThresholdTestResult> => {
  const { statistics, selection, estimation, claim, confidence } = input
  const F = statistics.length
  if (F === 0) return E.left(invalidParameter('$.statistics', statistics, 'at least one statistic is needed to choose a test'))
  const rows = (m: Float64Array): number => m.length / F
  const sel = [rows(selection[0]), rows(selection[1])] as const
  const est = [rows(estimation[0]), rows(estimation[1])] as const
  if (!(sel[0] === sel[1] && Number.isInteger(sel[0]) && sel[0] >= 2))
    return E.left(invalidParameter('$.selection', sel, `as many selection runs on both sides, at least 2 each, of ${F} statistics per run`))
  if (!(Number.isInteger(est[0]) && Number.isInteger(est[1]) && est[0] >= 1 && est[1] >= 1))
    return E.left(invalidParameter('$.estimation', est, `at least one estimation run per side, of ${F} statistics per run`))
  const alpha = 1 - confidence
  const delta = claim.delta
  // ---------------------------------------------------------------- selection
  const half = Math.floor(sel[0] / 2)
  const z = normalQuantile(1 - alpha / 2, 0, 1) // Wilson bounds at α/2 per rate while choosing
  const liras: LiraModel[] = []
  const candidates: Candidate[] = []
  for (let j = 0; j < F; j++) {
    const lira = fitLira(column(selection[0], F, j, 0, half), column(selection[1], F, j, 0, half))
    liras.push(lira)
    candidates.push({ name: statistics[j] as string, statistic: j }, { name: `lira:${statistics[j] as string}`, statistic: j, lira })
  }
  const reports: CandidateReport[] = []
  let best: { c: Candidate; orientation: 1 | -1; threshold: number; objective: number; advantage: number } | null = null
  for (const c of candidates) {
    const s0 = column(selection[0], F, c.statistic, half, sel[0]).map((x) => scoreOf(c, x))
    const s1 = column(selection[1], F, c.statistic, half, sel[1]).map((x) => scoreOf(c, x))
    const r = sweep(s0, s1, delta, z)
    reports.push({ test: c.name, tuneEpsilon: r.objective, advantage: r.advantage })
    if (best === null || r.objective > best.objective + 1e-12 || (Math.abs(r.objective - best.objective) <= 1e-12 && r.advantage > best.advantage + 1e-12))
      best = { c, orientation: r.orientation, threshold: r.threshold, objective: r.objective, advantage: r.advantage }
  }
  const chosen = best as NonNullable<typeof best> // F ≥ 1: at least two candidates were swept
  // ---------------------------------------------------------------- estimation and bound
  const oriented = (side: 0 | 1): number[] => Array.from(column(estimation[side], F, chosen.c.statistic, 0, est[side]), (x) => chosen.orientation * scoreOf(chosen.c, x))
  const withTarget = oriented(0)
  const withoutTarget = oriented(1)
  const tp = withTarget.filter((s) => s >= chosen.threshold).length
  const fp = withoutTarget.filter((s) => s >= chosen.threshold).length
  const fn = est[0] - tp
  const lb = epsilonLowerBound(fp, est[1], fn, est[0], delta, alpha)
  const rates = {
    fpr: fp / est[1],
    fnr: fn / est[0],
    fprUpper: clopperPearson(fp, est[1], alpha / 2).hi,
    fnrUpper: clopperPearson(fn, est[0], alpha / 2).hi,
  }
  const ceiling = certifiableCeiling(Math.min(est[0], est[1]), delta, alpha)
  return E.right({
    test: {
      name: chosen.c.name,
      orientation: chosen.orientation,
      threshold: chosen.threshold,
      selectionEpsilon: chosen.objective,
      ...(chosen.c.lira === undefined ? {} : { lira: chosen.c.lira }),
    },
    liras,
    candidates: reports,
    counts: { falsePositives: fp, negatives: est[1], falseNegatives: fn, positives: est[0] },
    rates,
    epsilonLowerBound: lb,
    pointEstimate: epsilonFromRates(rates.fpr, rates.fnr, delta),
    ceiling,
    verdict: lb > claim.epsilon ? 'violation' : ceiling > claim.epsilon ? 'consistent' : 'inconclusive',
    scores: { statistic: chosen.c.name, withTarget, withoutTarget },
  })
}
