/**
 * The verdict's statistics as independent jobs (issue 23, scale). Every Clopper–Pearson end is an
 * incomplete-beta inversion (~0.1 ms); the μ-GDP test needs four per grid threshold (~100), which
 * made the verdict the largest serial step of an audit on kept threads. Each job is a pure function
 * of the estimation counts, so an executor with worker threads runs them at once (pool.ts
 * `statsOnSlots`) and the calling thread only takes the maximum: the answer is the one computed
 * here in order (a maximum does not depend on the order of its terms).
 *
 * @module
 */
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'
import { clopperPearsonUpper, loadIncompleteBetaInverse } from '../bounds.js'
import { type BoundForm, boundFromCounts } from '../ratio-bound.js'
import { aboveCount } from './merge.js'

/** A statistic of the verdict: plain data (counts as typed arrays), so it can run on a worker thread. */
export type StatJob =
  /** The μ-GDP test's largest μ over grid thresholds [from, to) (see verdict.ts `gdpTest`). */
  | { readonly kind: 'gdp'; readonly c0: Float64Array; readonly c1: Float64Array; readonly n0: number; readonly n1: number; readonly a: number; readonly from: number; readonly to: number }
  /** The chosen event's rates at their Clopper–Pearson upper ends (α/2 each) and the certified bound. */
  | {
      readonly kind: 'bound'
      readonly form: BoundForm
      readonly fp: number
      readonly negatives: number
      readonly fn: number
      readonly positives: number
      readonly delta: number
      readonly alpha: number
    }

export type StatAnswer =
  | { readonly kind: 'gdp'; readonly mu: number }
  | { readonly kind: 'bound'; readonly fprUpper: number; readonly fnrUpper: number; readonly lb: number }

/** Runs stat jobs and returns one answer per job, in the jobs' order: in this thread or on worker threads. */
export type StatsRunner = (jobs: ReadonlyArray<StatJob>) => ReadonlyArray<StatAnswer>

/**
 * μ ≥ 0 such that no μ-GDP trade-off curve passes below the Clopper–Pearson corner of a test at these
 * thresholds: Φ⁻¹(1 − FPR_hi) − Φ⁻¹(FNR_hi) (Dong, Roth & Su 2022, Def. 2.7 and Cor. 2.14), both
 * orientations of each threshold.
 */
const gdpMu = (j: Extract<StatJob, { kind: 'gdp' }>): number => {
  let mu = 0
  for (let k = j.from; k < j.to; k++) {
    const tp = aboveCount(j.c0, k)
    const fp = aboveCount(j.c1, k)
    const fprHi = clopperPearsonUpper(fp, j.n1, j.a)
    const fnrHi = clopperPearsonUpper(j.n0 - tp, j.n0, j.a)
    // Both orientations: a test and its complement.
    const fprHi2 = clopperPearsonUpper(j.n1 - fp, j.n1, j.a)
    const fnrHi2 = clopperPearsonUpper(tp, j.n0, j.a)
    if (fprHi < 1 && fnrHi < 1) mu = Math.max(mu, normalQuantile(1 - fprHi, 0, 1) - normalQuantile(fnrHi, 0, 1))
    if (fnrHi2 < 1 && fprHi2 < 1) mu = Math.max(mu, normalQuantile(1 - fnrHi2, 0, 1) - normalQuantile(fprHi2, 0, 1))
  }
  return mu
}

export const runStat = (j: StatJob): StatAnswer => {
  if (j.kind === 'gdp') return { kind: 'gdp', mu: gdpMu(j) }
  return {
    kind: 'bound',
    fprUpper: clopperPearsonUpper(j.fp, j.negatives, j.alpha / 2),
    fnrUpper: clopperPearsonUpper(j.fn, j.positives, j.alpha / 2),
    lb: boundFromCounts(j.form, j.fp, j.negatives, j.fn, j.positives, j.delta, j.alpha),
  }
}

/** Loads what the jobs need ahead of them (the incomplete-beta inverse, loaded lazily: bounds.ts). */
export const prepareStats = (): void => {
  loadIncompleteBetaInverse()
}

/** Runs the jobs one after another in this thread. */
export const statsInline: StatsRunner = (jobs) => jobs.map(runStat)

/**
 * The μ-GDP jobs of a grid of G thresholds: `parts` slices of consecutive thresholds (their
 * maximum is the whole grid's μ).
 */
export const gdpJobs = (c0: Float64Array, c1: Float64Array, a: number, parts: number): StatJob[] => {
  const G = c0.length - 1
  let n0 = 0
  let n1 = 0
  for (let k = 0; k <= G; k++) {
    n0 += c0[k] as number
    n1 += c1[k] as number
  }
  const P = Math.max(1, Math.min(G, parts))
  const out: StatJob[] = []
  for (let p = 0; p < P; p++) {
    const from = Math.floor((p * G) / P)
    const to = Math.floor(((p + 1) * G) / P)
    if (to > from) out.push({ kind: 'gdp', c0, c1, n0, n1, a, from, to })
  }
  return out
}
