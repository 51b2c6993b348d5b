/**
 * The verdict's statistics as independent jobs (issue 23, scale). Every Clopper–Pearson end is an
 * incomplete-beta inversion (0.3–5 ms cold); the μ-GDP test has four per grid threshold (~100), which
 * made the verdict the largest serial step of an audit. `gdpMu` computes only the corners that can
 * hold the maximum (a handful), so the calling thread runs the jobs itself (`statsInline`), after
 * loading the inverse while it waited for the fits (pool.ts `fitOnSlots`); worker threads would each
 * have to load @stdlib's inverse, 130–200 ms per thread. Each job is a pure function of the counts,
 * and the μ of a grid is the same however it is sliced (a maximum does not depend on the order of its terms).
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

/** Runs stat jobs and returns one answer per job, in the jobs' order. */
export type StatsRunner = (jobs: ReadonlyArray<StatJob>) => ReadonlyArray<StatAnswer>

/**
 * μ ≥ 0 such that no μ-GDP trade-off curve passes below the Clopper–Pearson corner of a test at these
 * thresholds: Φ⁻¹(1 − FPR_hi) − Φ⁻¹(FNR_hi) (Dong, Roth & Su 2022, Def. 2.7 and Cor. 2.14), both
 * orientations of each threshold.
 *
 * Exact, without an incomplete-beta inversion per corner (issue 23: four per threshold made the
 * verdict the largest serial step). A Clopper–Pearson upper end at level a ≤ 1/2 is at least the
 * observed rate k/n: it is a (1 − a)-quantile of Beta(k + 1, n − k), above that law's median, which
 * lies between its mode k/(n − 1) and its mean (k + 1)/(n + 1), both ≥ k/n. Φ⁻¹ increases, so a
 * corner's μ is at most the same expression at the observed rates (`mu` at the point estimates). The
 * corners are taken in decreasing order of that cap, and the walk stops once the cap is below the
 * largest μ found (less a margin for rounding): every corner skipped has a smaller μ, so the maximum
 * is the one of all corners, bit for bit.
 */
const gdpMu = (j: Extract<StatJob, { kind: 'gdp' }>): number => {
  const m = j.to - j.from
  // Corner c = 2·(k − from) + o: o = 0 tests {score above threshold k} for side 0, o = 1 its complement.
  const cap = new Float64Array(2 * m)
  const tps = new Float64Array(m)
  const fps = new Float64Array(m)
  for (let i = 0; i < m; i++) {
    const tp = aboveCount(j.c0, j.from + i)
    const fp = aboveCount(j.c1, j.from + i)
    tps[i] = tp
    fps[i] = fp
    cap[2 * i] = corner(fp / j.n1, (j.n0 - tp) / j.n0)
    cap[2 * i + 1] = corner(tp / j.n0, (j.n1 - fp) / j.n1)
  }
  const order = Array.from(cap.keys()).sort((x, y) => (cap[y] as number) - (cap[x] as number) || x - y)
  let mu = 0
  for (const c of order) {
    if ((cap[c] as number) + CAP_MARGIN <= mu) break
    const i = c >> 1
    const tp = tps[i] as number
    const fp = fps[i] as number
    const fprHi = c % 2 === 0 ? clopperPearsonUpper(fp, j.n1, j.a) : clopperPearsonUpper(tp, j.n0, j.a)
    const fnrHi = c % 2 === 0 ? clopperPearsonUpper(j.n0 - tp, j.n0, j.a) : clopperPearsonUpper(j.n1 - fp, j.n1, j.a)
    if (fprHi < 1 && fnrHi < 1) mu = Math.max(mu, normalQuantile(1 - fprHi, 0, 1) - normalQuantile(fnrHi, 0, 1))
  }
  return mu
}

/** Φ⁻¹(1 − x) − Φ⁻¹(y): a corner's μ, and at the observed rates its cap (∞ where undefined, so it is computed). */
const corner = (x: number, y: number): number => {
  const v = normalQuantile(1 - x, 0, 1) - normalQuantile(y, 0, 1)
  return Number.isNaN(v) ? Infinity : v
}

/** Rounding in Φ⁻¹ near 0 and 1 is far below this; the caps exceed the corners' μ by much more. */
const CAP_MARGIN = 1e-6

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
