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
import { logBinomialRow, logExpm1, logSumExpPruned, scratchTerms, softplus } from './log-space.js'

const LN3 = Math.log(3)

/**
 * The α-independent parts of Thm 6's terms, per order l of the base curve: log(e^{ε(2)} − 1) and,
 * for l ≥ 3, x_l = (l − 1)ε(l) and log(1 − e^{−x_l}/3). Why: a curve asks the bound at every integer
 * order of the grid up to 1024, each a sum over l ≤ α whose exp and log1p per term were the cost;
 * these depend on l alone, so they are computed once per curve (grown on demand). Each term is still
 * summed in the same order from the same values, so the bound is the same bits as term by term.
 */
interface BaseTerms {
  readonly eps: (l: number) => number
  first: number | undefined
  readonly x: number[]
  readonly log1pTail: number[]
}

const baseTerms = (eps: (l: number) => number): BaseTerms => ({ eps, first: undefined, x: [], log1pTail: [] })

const boundFromTerms = (q: number, b: BaseTerms, alpha: number): number => {
  const row = logBinomialRow(alpha)
  const lq = Math.log(q)
  const l1q = Math.log1p(-q)
  b.first ??= logExpm1(b.eps(2))
  for (let l = b.x.length; l <= alpha; l++) {
    if (l < 3) {
      b.x.push(Number.NaN)
      b.log1pTail.push(Number.NaN)
      continue
    }
    const x = (l - 1) * b.eps(l)
    b.x.push(x)
    b.log1pTail.push(Math.log1p(-Math.exp(-x) / 3))
  }
  // Filled after every call to b.eps above (the buffer is shared: ./log-space.ts scratchTerms).
  const terms = scratchTerms(alpha - 1)
  terms[0] = (row[2] as number) + (alpha - 2) * l1q + 2 * lq + b.first
  for (let l = 3; l <= alpha; l++)
    // log(3e^x − 1) = log 3 + x + log(1 − e^{−x}/3), x ≥ 0.
    terms[l - 2] = (row[l] as number) + (alpha - l) * l1q + l * lq + LN3 + (b.x[l] as number) + (b.log1pTail[l] as number)
  return roundUpLoss(softplus(logSumExpPruned(terms, alpha - 1)) / (alpha - 1))
}

/**
 * Zhu–Wang 2019, Thm 6 at an integer α ≥ 2, from the base curve at integers 2..α.
 * Requires 0 < q < 1.
 */
export const zhuWangBound = (q: number, eps: (l: number) => number, alpha: number): number =>
  boundFromTerms(q, baseTerms(eps), alpha)

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
  const terms = baseTerms(base)
  const at = (n: number): number => {
    const hit = memo?.get(n)
    if (hit !== undefined) return hit
    const v = boundFromTerms(q, terms, n)
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
