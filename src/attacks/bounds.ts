/**
 * Statistics that turn attack outcomes into ε lower bounds (design/AUDITING.md §3.1–3.2).
 * The auditing engine (issue 5) builds on these; they are exact and small, so they live here.
 *
 * @module
 */
import betaincinv from '@stdlib/math-base-special-betaincinv'

/** Clopper–Pearson one-sided bounds at level a each for k successes in n trials. */
export const clopperPearson = (k: number, n: number, a: number): { readonly lo: number; readonly hi: number } => {
  // p_lo = Beta⁻¹(a; k, n−k+1) (0 if k = 0); p_hi = Beta⁻¹(1−a; k+1, n−k) (1 if k = n).
  const lo = k === 0 ? 0 : betaincinv(a, k, n - k + 1)
  const hi = k === n ? 1 : betaincinv(1 - a, k + 1, n - k)
  return { lo, hi }
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
  const fprHi = clopperPearson(falsePositives, negatives, alpha / 2).hi
  const fnrHi = clopperPearson(falseNegatives, positives, alpha / 2).hi
  return epsilonFromRates(fprHi, fnrHi, delta)
}

/** The largest ε that n trials per side can certify at confidence 1 − alpha (perfect separation). */
export const certifiableCeiling = (trialsPerSide: number, delta: number, alpha: number): number =>
  epsilonLowerBound(0, trialsPerSide, 0, trialsPerSide, delta, alpha)
