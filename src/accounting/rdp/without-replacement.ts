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
import { gaussianRdp } from './closed-forms.js'
import { fromIntegerOrders } from './integer-orders.js'
import { logBinomialRow, logExpm1, logSumExpPruned, scratchTerms, softplus } from './log-space.js'
import { byOrder, kept, keptOr } from './kept.js'

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

/**
 * Sampling without replacement of a Gaussian base: Wang, Balle & Kasiviswanathan 2019, Theorem 27,
 * the tighter bound for base mechanisms whose RDP is attained, at every order, by one pair of
 * neighbouring datasets that is also worst for every Pearson–Vajda pseudo-divergence
 * χ^j = E_q[(p/q − 1)^j] (their Definition 26). The Gaussian qualifies: every neighbouring pair is
 * N(μ, m²) against N(μ′, m²) with |μ − μ′| ≤ 1 (noise multiplier m, replace-one sensitivity), and
 * each divergence grows with |μ − μ′|, so the pair N(0, m²), N(1, m²) is worst for all of them, and
 * ε(α) = α/(2m²) is exact.
 *
 * For integer α ≥ 2, γ = m/n:
 *   ε'(α) ≤ 1/(α−1) log( 1 + γ² C(α,2) min{4(e^{ε(2)} − 1), 2e^{ε(2)}}
 *                          + Σ_{j=3}^{α} γ^j C(α,j) min{ 4·(χ^{2⌊j/2⌋} χ^{2⌈j/2⌉})^{1/2}, 2e^{(j−1)ε(j)} } ),
 * the j = 2 term and the second argument of each min being Theorem 9's (the Gaussian has no pure ε,
 * so min{2, (e^{ε(∞)} − 1)^j} = 2), the first argument of the min the Pearson–Vajda moment of the
 * worst pair (Cauchy–Schwarz between the two even orders around an odd j). For even j,
 *   χ^j = E_q[(p/q − 1)^j] = Σ_{i=0}^{j} C(j,i)(−1)^{j−i} E_q[(p/q)^i] = Σ_i C(j,i)(−1)^{j−i} e^{(i−1)ε(i)},
 * the j-th forward difference at 0 of a_i = e^{i(i−1)/(2m²)}. The alternating sum cancels (badly
 * for large m); `logPearsonVajdaGaussian` returns a rigorous upper bound on it, and where that
 * bound is loose the min falls back to Theorem 9's term. Checked against mpmath evaluations of the
 * theorem as printed (scripts/fixtures/rdp_wor_gaussian.py); autodp implements the same theorem
 * (`compose_subsampled_mechanism(..., improved_bound_flag=True)`).
 */
const CANCELLATION_REL = 2e-12

/**
 * log of an upper bound on the Pearson–Vajda moment χ^j of N(1, m²) against N(0, m²), j even ≥ 2:
 * the alternating sum Σ_i C(j,i)(−1)^{j−i} e^{i(i−1)/(2m²)} in scaled floating point, plus
 * 2e-12 of the sum of absolute terms. That covers the log-binomials (@stdlib's binomcoefln, ~1e-13
 * absolute), the exponentials of scaled terms (relative ≤ 700u for terms that are not negligible)
 * and the j + 1 additions (≤ (j + 1)u ≤ 1.2e-13 for j ≤ 1024).
 */
export const logPearsonVajdaGaussian = (m: number, j: number): number => {
  const c = 1 / (2 * m * m)
  const row = logBinomialRow(j)
  let max = -Infinity
  for (let i = 0; i <= j; i++) max = Math.max(max, (row[i] as number) + i * (i - 1) * c)
  let signed = 0
  let abs = 0
  for (let i = 0; i <= j; i++) {
    const t = Math.exp((row[i] as number) + i * (i - 1) * c - max)
    signed += (j - i) % 2 === 0 ? t : -t
    abs += t
  }
  return max + Math.log(Math.max(signed, 0) + CANCELLATION_REL * abs)
}

/** log χ^j for even j of one noise multiplier, memoised (the bound reads j up to α + 1). */
const PV_MEMO = kept<number[], number>(32)
const pvMemo = (m: number): number[] => keptOr(PV_MEMO, m, () => [])
const logPv = (m: number, memo: number[], j: number): number => {
  let v = memo[j]
  if (v === undefined) {
    v = logPearsonVajdaGaussian(m, j)
    memo[j] = v
  }
  return v
}

/**
 * Wang–Balle–Kasiviswanathan 2019, Thm 27 for a Gaussian base of noise multiplier m (relative to
 * the replace-one sensitivity) at an integer α ≥ 2. Requires 0 < γ < 1.
 */
export const wbkGaussianBound = (gamma: number, m: number, alpha: number): number => {
  const eps = (j: number): number => j / (2 * m * m)
  const memo = pvMemo(m)
  const row = logBinomialRow(alpha)
  const lg = Math.log(gamma)
  // The shared buffer (./log-space.ts): nothing below takes it (logPv reads binomial rows only).
  const terms = scratchTerms(alpha - 1)
  const e2 = eps(2)
  terms[0] = 2 * lg + (row[2] as number) + Math.min(LN4 + logExpm1(e2), e2 + LN2)
  /** Term j with its Pearson–Vajda side: the Cauchy–Schwarz mean of the even moments around j. */
  const exactTerm = (j: number, head: number, theorem9: number): number => {
    const lo = 2 * Math.floor(j / 2)
    const hi = 2 * Math.ceil(j / 2)
    const pv = LN4 + 0.5 * (logPv(m, memo, lo) + logPv(m, memo, hi))
    return head + Math.min(pv, theorem9)
  }
  // Skipping terms that cannot count. A term 60 nats or more below the largest is skipped by
  // logSumExpPruned (it adds < e^{−60} of the sum), so any value that is ≥ it and still below that
  // line gives the same bits; the line is at least `cut`, as the j = 2 and j = α terms are terms.
  // Two upper bounds on a term decide it without its O(j) Pearson–Vajda moments: its Theorem-9
  // side, and Lyapunov's inequality (‖X‖_j ≤ ‖X‖_J for j ≤ J, so χ^j ≤ (χ^J)^{j/J} for even j ≤ J,
  // and the Cauchy–Schwarz mean of an odd j too) from the top moment J = 2⌈α/2⌉, which the j = α
  // term reads anyway. A term that may count is computed as before. At γ = 2.5e-4, σ 2 this
  // computes the moments of a few j per order instead of every even j ≤ α + 1 (O(α²) in all).
  const top = 2 * Math.ceil(alpha / 2)
  const lastHead = alpha * lg + (row[alpha] as number)
  const lastTerm = alpha >= 3 ? exactTerm(alpha, lastHead, (alpha - 1) * eps(alpha) + LN2) : -Infinity
  const cut = Math.max(terms[0] as number, lastTerm) - 60
  const lyapunovRate = alpha >= 3 ? logPv(m, memo, top) / top : 0
  for (let j = 3; j <= alpha; j++) {
    const head = j * lg + (row[j] as number)
    const theorem9 = (j - 1) * eps(j) + LN2
    if (head + theorem9 < cut) {
      terms[j - 2] = head + theorem9
      continue
    }
    const lyapunov = LN4 + j * lyapunovRate
    if (j < alpha && head + lyapunov < cut) {
      terms[j - 2] = head + Math.min(lyapunov, theorem9)
      continue
    }
    terms[j - 2] = j === alpha ? lastTerm : exactTerm(j, head, theorem9)
  }
  return roundUpLoss(softplus(logSumExpPruned(terms, alpha - 1)) / (alpha - 1))
}

/**
 * The without-replacement curve of a Gaussian base (noise multiplier m) on `orders`: Theorem 27 at
 * integers, the cumulant chord between them (./integer-orders.ts), capped by the unsubsampled
 * α/(2m²). γ ≥ 1 returns the Gaussian's curve.
 */
export const withoutReplacementGaussianCurve = (orders: ReadonlyArray<number>, gamma: number, m: number): Float64Array => {
  const out = new Float64Array(orders.length)
  if (!(gamma > 0) || m === Infinity) return out
  // The Gaussian's exact curve, rounded up as leafRdp rounds every closed form (gaussianRdp: no overflow of 2m²).
  const base = (a: number): number => roundUpLoss(gaussianRdp(m, a), 1e-13)
  // m past ~1e150: Theorem 27's terms underflow (2m² overflowed: ε(0) read 2.2e-162 where δ(0) ≈ 2e-155); the
  // unsubsampled curve, itself below 1e-300, bounds the subsampled one (joint quasi-convexity)
  if (gamma >= 1 || base(2) < 2 ** -1000) {
    for (let i = 0; i < orders.length; i++) out[i] = base(orders[i] as number)
    return out
  }
  const memo = keptOr(WBK_GAUSSIAN, `${gamma}|${m}`, () => byOrder(4096, (n) => wbkGaussianBound(gamma, m, n)))
  const bound = fromIntegerOrders(orders, memo)
  for (let i = 0; i < orders.length; i++) out[i] = Math.min(bound[i] as number, base(orders[i] as number))
  return out
}

/** Thm 27 at integer orders, kept per (γ, m) across queries (./kept.ts: a pure function of γ, m, α). */
const WBK_GAUSSIAN = kept<(n: number) => number>(16)
