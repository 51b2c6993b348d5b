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
 * a sum of non-negative terms, which is what we compute (its log: by a recurrence in linear space
 * where that is safe, else term by term in log space; see `linearSum`).
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
const U = Number.EPSILON / 2

/**
 * The α-free parts of Thm 6's terms on 2..n. With ρ = q/(1 − q) and x_l = (l − 1)ε(l),
 *   term_l = C(α, l)(1 − q)^α e^{a_l},   a_2 = 2 log ρ + log(e^{ε(2)} − 1),
 *   a_l = l log ρ + log 3 + x_l + log(1 − e^{−x_l}/3)  (l ≥ 3: log(3e^x − 1), x ≥ 0),
 * where for x_l > 40 the last log (above −1.5e-18) is left out, which only raises the term. Why: a
 * curve asks the bound at every integer order of the grid up to 1024, each a sum over l ≤ α, and
 * these depend on l alone, so they are computed once per curve. A bound at α reads l ≤ α only, so
 * it is the same bits whether the terms were computed up to α or further (a curve's value at α is
 * the bound computed alone).
 */
interface BaseTerms {
  readonly l1q: number
  /** a_l for 2 ≤ l ≤ n. */
  readonly a: Float64Array
  /** max over 2 ≤ j ≤ l of |a_{j+1} − a_j|, for 2 ≤ l < n (NaN once a step is not finite). */
  readonly maxStep: Float64Array
  /** e^{a_{l+1} − a_l}, the α-free factor of the ratio of consecutive terms; filled for l < `filled`. */
  readonly ratio: Float64Array
  filled: number
}

const baseTerms = (q: number, eps: (l: number) => number, n: number): BaseTerms => {
  const lr = Math.log(q) - Math.log1p(-q)
  const a = new Float64Array(n + 1)
  a[2] = 2 * lr + logExpm1(eps(2))
  for (let l = 3; l <= n; l++) {
    const x = (l - 1) * eps(l)
    a[l] = l * lr + LN3 + x + (x > 40 ? 0 : Math.log1p(-Math.exp(-x) / 3))
  }
  const maxStep = new Float64Array(n + 1)
  let m = 0
  for (let l = 2; l < n; l++) {
    const d = Math.abs((a[l + 1] as number) - (a[l] as number))
    // A step that is not finite (a_2 = −∞ for ε(2) = 0, an infinite ε(l)) makes m NaN for good.
    if (!(d <= m) && !Number.isNaN(m)) m = Number.isFinite(d) ? d : Number.NaN
    maxStep[l] = m
  }
  return { l1q: Math.log1p(-q), a, maxStep, ratio: new Float64Array(n + 1), filled: 2 }
}

/** The linear-space sum is taken only where no step |a_{l+1} − a_l| exceeds this (else in log space). */
const MAX_STEP = 64
/** Every BLOCK terms the running term is recomputed from its log, so the recurrence's rounding does not pile up. */
const BLOCK = 16
/** The sum stops at a term below this fraction of the partial sum once the rest is bounded (below). */
const TINY = 2 ** -60
/** Exact power-of-two rescaling keeps the running term within [2^−500, 2^500] of the scale. */
const BIG = 2 ** 500
const LOG_BIG = 500 * Math.LN2

/**
 * log Σ_{l=2}^{α} C(α, l)e^{a_l}, in linear space, or undefined where that is not safe (then
 * `logSpaceSum`). The terms follow from one another by
 *   t_{l+1} = t_l · (α − l)/(l + 1) · e^{a_{l+1} − a_l},
 * one division and two products per term instead of an exp (and the exps e^{a_{l+1} − a_l} are
 * α-free, shared by every order of the curve); every BLOCK terms t is recomputed from its log.
 * Each step's factor is within e^{±64}·α, so with t kept within 2^{±500} of the scale (s ≥ 1, the
 * first term) nothing over- or underflows; a term that falls below 2^−500 of the sum without the
 * tail being bounded hands over to the log-space sum (a curve whose later terms may grow back).
 *
 * Truncation: once t_{l+1} < 2⁻⁶⁰·s, every later ratio is at most
 * R = (α − l − 1)/(l + 2)·max_{l < j < α} e^{a_{j+1} − a_j} ((α − j)/(j + 1) falls with j), so
 * Σ_{j>l} t_j ≤ t_{l+1}/(1 − R); when R ≤ 1/2 the sum stops and adds 2t_{l+1}, an upper bound of
 * what it left out. The rounding of the recurrence (per step: a division and two products, 3u; the
 * exp, one ulp = 2u; the difference a_{l+1} − a_l, u·|a_{l+1} − a_l|; at most BLOCK steps) and of
 * the sum of k positive terms ((k − 1)u) is added as a relative margin, so the recurrence never
 * falls below the terms it starts from and is re-anchored to. What both sums share, the rounding
 * of each term's log row[l] + a_l (a few ulps of its magnitude), is covered as before by the 1e-12
 * of `roundUpLoss` in `boundFromTerms` (checked against 60-digit mpmath in the commit that made
 * this: never below the exact bound of the same ε(l)). For a pure-ε inner mechanism (RR,
 * Laplace, the exponential mechanism) the terms fall like a binomial's past its mode: RR ε = 2 at
 * q = 0.05 stops at l = 53 of 64, 139 of 256, 448 of 1024.
 */
const linearSum = (b: BaseTerms, alpha: number, row: Float64Array): number | undefined => {
  const maxStep = b.maxStep[alpha - 1] as number
  if (!(maxStep <= MAX_STEP)) return undefined
  const { a, ratio } = b
  const m0 = (row[2] as number) + (a[2] as number)
  let s = 1
  let t = 1
  let off = 0
  let supRatio = -1
  let l = 2
  for (; l < alpha; l++) {
    if ((l & (BLOCK - 1)) === 0) t = Math.exp((row[l] as number) + (a[l] as number) - m0 - off)
    if (l >= b.filled) {
      const to = Math.min(l + BLOCK, alpha)
      for (let j = b.filled; j < to; j++) ratio[j] = Math.exp((a[j + 1] as number) - (a[j] as number))
      b.filled = to
    }
    t *= ((alpha - l) / (l + 1)) * (ratio[l] as number)
    if (t < TINY * s) {
      if (supRatio < 0) {
        let d = -Infinity
        for (let j = l + 1; j < alpha; j++) d = Math.max(d, (a[j + 1] as number) - (a[j] as number))
        supRatio = Math.exp(d)
      }
      if (((alpha - l - 1) / (l + 2)) * supRatio <= 0.5) {
        s += 2 * t
        l++
        break
      }
      if (t < 1 / BIG) return undefined
    }
    s += t
    if (t > BIG) {
      t /= BIG
      s /= BIG
      off += LOG_BIG
    }
  }
  // l − 1 terms summed (l − 2 additions), each at most BLOCK recurrence steps from a recomputed one.
  const margin = (Math.min(BLOCK, l - 2) * (5 + maxStep) + (l - 2)) * U
  return m0 + off + Math.log(s * (1 + margin))
}

/** log Σ_{l=2}^{α} C(α, l)e^{a_l} term by term in log space (any terms; `logSumExpPruned`'s pruning). */
const logSpaceSum = (b: BaseTerms, alpha: number, row: Float64Array): number => {
  const terms = scratchTerms(alpha - 1)
  for (let l = 2; l <= alpha; l++) terms[l - 2] = (row[l] as number) + (b.a[l] as number)
  return logSumExpPruned(terms, alpha - 1)
}

/** Thm 6 at the integer order 2 ≤ α ≤ n of `b`: (1/(α − 1))·log(1 + (1 − q)^α Σ_l C(α, l)e^{a_l}). */
const boundFromTerms = (b: BaseTerms, alpha: number): number => {
  const row = logBinomialRow(alpha)
  const logSum = linearSum(b, alpha, row) ?? logSpaceSum(b, alpha, row)
  return roundUpLoss(softplus(alpha * b.l1q + logSum) / (alpha - 1))
}

/**
 * Zhu–Wang 2019, Thm 6 at an integer α ≥ 2, from the base curve at integers 2..α.
 * Requires 0 < q < 1.
 */
export const zhuWangBound = (q: number, eps: (l: number) => number, alpha: number): number =>
  boundFromTerms(baseTerms(q, eps, alpha), alpha)

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
  // Made at the first order not in `memo`, up to the largest integer any order needs.
  let terms: BaseTerms | undefined
  const at = (n: number): number => {
    const hit = memo?.get(n)
    if (hit !== undefined) return hit
    terms ??= baseTerms(q, base, Math.max(2, Math.ceil(orders.reduce((m, a) => Math.max(m, a), 2))))
    const v = boundFromTerms(terms, n)
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
