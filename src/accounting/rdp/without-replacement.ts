/**
 * Sampling m of n units without replacement, then running a mechanism on the sample: the general
 * RDP upper bound of Wang, Balle & Kasiviswanathan 2019, "Subsampled Rényi Differential Privacy and
 * Analytical Moments Accountant" (AISTATS), Theorem 9.
 *
 * Neighbouring: replace one unit (datasets of the same size n differing in one unit); that is the
 * relation the theorem is stated for, and RDP's definition quantifies over both orders of the pair.
 *
 * For integer α ≥ 2, γ = m/n, a base mechanism with RDP curve ε(·) and pure-DP parameter ε(∞)
 * (∞ when it has none):
 *   ε'(α) ≤ 1/(α−1) log( 1 + γ² C(α,2) min{4(e^{ε(2)} − 1), e^{ε(2)} min{2, (e^{ε(∞)} − 1)²}}
 *                          + Σ_{j=3}^{α} γ^j C(α,j) e^{(j−1)ε(j)} min{2, (e^{ε(∞)} − 1)^j} ).
 * The argument is already 1 + (non-negative terms), computed in log space.
 *
 * Also ε'(α) ≤ ε(α) (joint quasi-convexity of Rényi divergence, van Erven & Harremoës 2014,
 * Thm 13: the sampled pair is a mixture of replace-one pairs). Fractional orders come from
 * ./integer-orders.ts.
 *
 * @module
 */
import { roundUpLoss } from '../../core/numeric.js'
import { fromIntegerOrders } from './integer-orders.js'
import { logBinomialRow, logExpm1, logSumExpPruned, softplus } from './log-space.js'

const LN2 = Math.LN2
const LN4 = Math.log(4)

/**
 * Wang–Balle–Kasiviswanathan 2019, Thm 9 at an integer α ≥ 2, from the base curve at integers
 * 2..α and its pure ε(∞). Requires 0 < γ < 1.
 */
export const wbkBound = (
  gamma: number,
  eps: (j: number) => number,
  pureEpsilon: number,
  alpha: number,
): number => {
  if (pureEpsilon === 0) return 0
  const row = logBinomialRow(alpha)
  const lg = Math.log(gamma)
  // log(e^{ε(∞)} − 1); ∞ when there is no pure guarantee, making min{2, ·} = 2.
  const logE = pureEpsilon === Infinity ? Infinity : logExpm1(pureEpsilon)
  const terms = new Float64Array(alpha - 1)
  const e2 = eps(2)
  terms[0] = 2 * lg + (row[2] as number) + Math.min(LN4 + logExpm1(e2), e2 + Math.min(LN2, 2 * logE))
  for (let j = 3; j <= alpha; j++)
    terms[j - 2] = j * lg + (row[j] as number) + (j - 1) * eps(j) + Math.min(LN2, j * logE)
  return roundUpLoss(softplus(logSumExpPruned(terms)) / (alpha - 1))
}

/**
 * The subsampled curve on `orders` (replace-one), given the base curve as a lookup valid at every
 * order of `orders` and every integer 2..⌈max order⌉: at each order the smaller of the extended
 * WBK bound and the unsubsampled ε(α). γ = 1 returns the base curve.
 */
export const withoutReplacementCurve = (
  orders: ReadonlyArray<number>,
  gamma: number,
  base: (alpha: number) => number,
  pureEpsilon: number,
): Float64Array => {
  const out = new Float64Array(orders.length)
  if (!(gamma > 0)) return out
  if (gamma >= 1) {
    for (let i = 0; i < orders.length; i++) out[i] = base(orders[i] as number)
    return out
  }
  const bound = fromIntegerOrders(orders, (n) => wbkBound(gamma, base, pureEpsilon, n))
  for (let i = 0; i < orders.length; i++) out[i] = Math.min(bound[i] as number, base(orders[i] as number))
  return out
}
