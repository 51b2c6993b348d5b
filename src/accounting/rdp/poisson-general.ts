/**
 * Poisson subsampling of an arbitrary mechanism: the general RDP upper bound of Zhu & Wang 2019,
 * "Poisson Subsampled Rényi Differential Privacy" (ICML), Theorem 6 — the bound the SUB-LDA paper
 * cites as its Theorem 3.1 (see the note below).
 *
 * Neighbouring: add/remove one unit. Each unit enters the sample independently with probability q,
 * so for X' = X ∪ {x} the output on X' is the mixture (1 − q)·M(S) + q·M(S ∪ {x}) over samples S
 * of X. Zhu & Wang's neighbouring relation is this symmetric add/remove one, and Theorem 6 states
 * that M∘PoissonSample is (α, ε'(α))-RDP under it, i.e. for both ordered pairs:
 * D_α(M∘P(X')‖M∘P(X)) (x added) and D_α(M∘P(X)‖M∘P(X')) (x removed). It says nothing about
 * replace-one neighbours, which `checkSamplingRelation` refuses.
 *
 * For integer α ≥ 2 and any mechanism with RDP curve ε(·):
 *   ε'(α) ≤ 1/(α−1) log{ (1−q)^{α−1}(αq − q + 1) + C(α,2) q² (1−q)^{α−2} e^{ε(2)}
 *                        + 3 Σ_{l=3}^{α} C(α,l) (1−q)^{α−l} q^l e^{(l−1)ε(l)} }.
 * By the binomial theorem the first term is the l = 0, 1 part of Σ_l C(α,l)(1−q)^{α−l}q^l = 1, so
 *   braces − 1 = C(α,2)q²(1−q)^{α−2}(e^{ε(2)} − 1) + Σ_{l≥3} C(α,l)(1−q)^{α−l}q^l(3e^{(l−1)ε(l)} − 1),
 * a sum of non-negative terms, which is what we compute (in log space).
 *
 * The SUB-LDA paper's printed Theorem 3.1 (eq. 3) drops the factor 3 and sums from l = 2: that is
 * Zhu & Wang's *tight* formula, which they prove only for mechanisms meeting an extra condition
 * (e.g. the Gaussian and Laplace mechanisms), not for general M. We use the general Theorem 6; the
 * exact sampled Gaussian (./subsampled-gaussian.ts) covers the Gaussian case tightly.
 *
 * Also ε'(α) ≤ ε(α): the subsampled pair is a mixture of pairs each at most ε(α) apart, and Rényi
 * divergence is jointly quasi-convex (van Erven & Harremoës 2014, Thm 13). Fractional orders come
 * from ./integer-orders.ts.
 *
 * @module
 */
import { roundUpLoss } from '../../core/numeric.js'
import { fromIntegerOrders } from './integer-orders.js'
import { logBinomialRow, logExpm1, logSumExpPruned, softplus } from './log-space.js'

const LN3 = Math.log(3)

/**
 * Zhu–Wang 2019, Thm 6 at an integer α ≥ 2, from the base curve at integers 2..α.
 * Requires 0 < q < 1.
 */
export const zhuWangBound = (q: number, eps: (l: number) => number, alpha: number): number => {
  const row = logBinomialRow(alpha)
  const lq = Math.log(q)
  const l1q = Math.log1p(-q)
  const terms = new Float64Array(alpha - 1)
  terms[0] = (row[2] as number) + (alpha - 2) * l1q + 2 * lq + logExpm1(eps(2))
  for (let l = 3; l <= alpha; l++) {
    const x = (l - 1) * eps(l)
    // log(3e^x − 1) = log 3 + x + log(1 − e^{−x}/3), x ≥ 0.
    terms[l - 2] = (row[l] as number) + (alpha - l) * l1q + l * lq + LN3 + x + Math.log1p(-Math.exp(-x) / 3)
  }
  return roundUpLoss(softplus(logSumExpPruned(terms)) / (alpha - 1))
}

/**
 * The Poisson-subsampled curve on `orders` (add/remove), given the base curve as a lookup valid at
 * every order of `orders` and at every integer 2..⌈max order⌉: at each order the smaller of the
 * extended Zhu–Wang bound and the unsubsampled ε(α). q = 1 returns the base curve.
 */
export const poissonGeneralCurve = (
  orders: ReadonlyArray<number>,
  q: number,
  base: (alpha: number) => number,
  /** The bound at integer orders already computed for this (q, base), filled as it is computed. */
  memo?: Map<number, number>,
): Float64Array => {
  const out = new Float64Array(orders.length)
  if (!(q > 0)) return out
  if (q >= 1) {
    for (let i = 0; i < orders.length; i++) out[i] = base(orders[i] as number)
    return out
  }
  const at = (n: number): number => {
    const hit = memo?.get(n)
    if (hit !== undefined) return hit
    const v = zhuWangBound(q, base, n)
    memo?.set(n, v)
    return v
  }
  const bound = fromIntegerOrders(orders, at)
  for (let i = 0; i < orders.length; i++) out[i] = Math.min(bound[i] as number, base(orders[i] as number))
  return out
}

/**
 * The Zhu–Wang bound alone (not capped by the unsubsampled ε(α)) at any order α > 1: Thm 6 at
 * integers, the cumulant chord between them, ε(2) below 2. For comparing with papers that print it.
 * q ≥ 1 returns eps(α); q ≤ 0 returns 0.
 */
export const zhuWangPoissonRdp = (q: number, eps: (l: number) => number, alpha: number): number => {
  if (!(q > 0)) return 0
  if (q >= 1) return eps(alpha)
  return fromIntegerOrders([alpha], (n) => zhuWangBound(q, eps, n))[0] as number
}
