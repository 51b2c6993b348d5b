/**
 * Statistics that turn attack outcomes into ε lower bounds: the hypothesis-testing bound of Kairouz, Oh &
 * Viswanath 2015 at Clopper–Pearson rates, as in Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021.
 * The auditing engine (issue 5) builds on these; they are exact and small, so they live here.
 *
 * @module
 */
import { createRequire } from 'node:module'
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'

/**
 * @stdlib's incomplete-beta inverse, loaded on first use (issue 23): it is ~400 CommonJS files, the
 * larger part of what an audit worker thread loads for selection's fits, which never call it (they
 * use `wilsonUpper`); loaded with the rest, it sat on a fresh pool's critical path before the first
 * fit. Workers load it while they wait for a fit batch's longest job (worker.ts), ahead of the verdict.
 */
let incompleteBetaInverse: ((p: number, a: number, b: number) => number) | null = null
export const loadIncompleteBetaInverse = (): ((p: number, a: number, b: number) => number) =>
  (incompleteBetaInverse ??= createRequire(import.meta.url)('@stdlib/math-base-special-betaincinv') as (p: number, a: number, b: number) => number)
const betaincinv = (p: number, a: number, b: number): number => loadIncompleteBetaInverse()(p, a, b)

/** Clopper–Pearson one-sided bounds at level a each for k successes in n trials. */
export const clopperPearson = (k: number, n: number, a: number): { readonly lo: number; readonly hi: number } => {
  // p_lo = Beta⁻¹(a; k, n−k+1) (0 if k = 0); p_hi = Beta⁻¹(1−a; k+1, n−k) (1 if k = n).
  // At the ends the Beta quantiles are closed-form: Beta⁻¹(1−a; 1, n) = 1 − a^(1/n) and
  // Beta⁻¹(a; n, 1) = a^(1/n), computed as −expm1(ln a / n) and exp(ln a / n) without cancellation.
  const lo = k === 0 ? 0 : k === n ? Math.exp(Math.log(a) / n) : betaincinv(a, k, n - k + 1)
  return { lo, hi: clopperPearsonUpper(k, n, a) }
}

/**
 * The upper end of `clopperPearson` alone (the same number): the verdict's bounds use only upper
 * ends, and each end is an incomplete-beta inversion, the audit's costliest serial step (issue 23).
 */
export const clopperPearsonUpper = (k: number, n: number, a: number): number =>
  k === n ? 1 : k === 0 ? -Math.expm1(Math.log(a) / n) : betaincinv(1 - a, k + 1, n - k)

/**
 * Wilson score upper bound (Wilson 1927) for k successes in n at one-sided normal quantile z: an
 * approximation to the Clopper–Pearson bound, cheap enough to evaluate at every candidate threshold.
 * dpaudit uses it only where validity does not depend on it (choosing attacks, projections).
 */
export const wilsonUpper = (k: number, n: number, z: number): number => {
  if (n <= 0) return 1
  const p = k / n
  const z2 = z * z
  const centre = p + z2 / (2 * n)
  const half = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  return Math.min(1, (centre + half) / (1 + z2 / n))
}

/**
 * ε̂(FPR, FNR; δ) = max{0, ln((1−δ−FPR)/FNR), ln((1−δ−FNR)/FPR)} (Kairouz, Oh & Viswanath 2015,
 * Thm 2.1): every test between neighbours satisfies FPR + e^ε FNR ≥ 1 − δ and symmetrically.
 */
export const epsilonFromRates = (fpr: number, fnr: number, delta: number): number => {
  const a = fnr > 0 ? Math.log((1 - delta - fpr) / fnr) : 1 - delta - fpr > 0 ? Infinity : 0
  const b = fpr > 0 ? Math.log((1 - delta - fnr) / fpr) : 1 - delta - fnr > 0 ? Infinity : 0
  return Math.max(0, Number.isNaN(a) ? 0 : a, Number.isNaN(b) ? 0 : b)
}

/**
 * A (1 − alpha)-confidence ε lower bound from false-positive and false-negative counts: the
 * upper Clopper–Pearson bound of both rates at alpha/2 each (union bound), since ε̂ falls in both.
 */
export const epsilonLowerBound = (
  falsePositives: number,
  negatives: number,
  falseNegatives: number,
  positives: number,
  delta: number,
  alpha: number,
): number => {
  const fprHi = clopperPearsonUpper(falsePositives, negatives, alpha / 2)
  const fnrHi = clopperPearsonUpper(falseNegatives, positives, alpha / 2)
  return epsilonFromRates(fprHi, fnrHi, delta)
}

/** The largest ε that n trials per side can certify at confidence 1 − alpha (perfect separation). */
export const certifiableCeiling = (trialsPerSide: number, delta: number, alpha: number): number =>
  epsilonLowerBound(0, trialsPerSide, 0, trialsPerSide, delta, alpha)

/**
 * Smallest integer n in [lo, 2^45] with pred(n), for pred monotone in n; Infinity if none. With
 * relTol > 0 the bisection stops once the bracket is that narrow (relative) and returns its top.
 */
const smallestTrue = (pred: (n: number) => boolean, lo = 1, relTol = 0): number => {
  let hi = Math.max(1, lo)
  while (!pred(hi)) {
    if (hi > 2 ** 45) return Infinity
    hi *= 2
  }
  let a = Math.max(lo, Math.floor(hi / 2))
  if (pred(a)) return a
  // Invariant: pred(a) false, pred(hi) true.
  while (hi - a > 1 && hi - a > relTol * hi) {
    const mid = Math.floor((a + hi) / 2)
    if (pred(mid)) hi = mid
    else a = mid
  }
  return hi
}

/**
 * Trials per side needed before a run can certify any ε above `epsilon` at confidence 1 − alpha:
 * the smallest n with certifiableCeiling(n) > epsilon (≈ ln(2/alpha)·e^ε for δ = 0). An audit
 * with fewer trials per side cannot report a violation of that claim whatever the mechanism does.
 */
export const trialsForCeiling = (epsilon: number, delta: number, alpha: number): number =>
  smallestTrue((n) => certifiableCeiling(n, delta, alpha) > epsilon)

/**
 * Trials per side at which rates as observed (fpr, fnr) would certify ε_LB > epsilon, or null if
 * even exact knowledge of those rates would not (their ε̂ is ≤ epsilon) or it would take more than
 * 2^45. A projection, not a promise: the observed rates are estimates. It uses Wilson upper bounds
 * (close to Clopper–Pearson at these sizes, and cheap where n runs to billions) and is accurate to
 * 0.1 %.
 */
export const projectedTrials = (fpr: number, fnr: number, epsilon: number, delta: number, alpha: number): number | null => {
  if (!(epsilonFromRates(fpr, fnr, delta) > epsilon)) return null
  const z = normalQuantile(1 - alpha / 2, 0, 1)
  const n = smallestTrue((m) => epsilonFromRates(wilsonUpper(fpr * m, m, z), wilsonUpper(fnr * m, m, z), delta) > epsilon, 1, 1e-3)
  return Number.isFinite(n) ? n : null
}
