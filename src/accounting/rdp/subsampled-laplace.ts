/**
 * The Poisson-subsampled Laplace mechanism: tight RDP at integer orders, in place of Zhu & Wang's
 * general bound (./poisson-general.ts, up to 34 % looser in ε on the reference workloads).
 *
 * Pair. The Laplace mechanism with b = scale/Δ₁ is dominated by P = Lap(1, b) against Q = Lap(0, b),
 * the pair the PLD accountant uses (../pld/pairs.ts); under Poisson subsampling at rate q with
 * add/remove neighbours the dominating pairs are (M, Q) and (Q, M) with M = (1 − q)Q + qP (Zhu,
 * Dong & Wang 2022, "Optimal accounting of differential privacy via characteristic function",
 * Poisson-subsampling theorem). Rényi divergence is an f-divergence, and every f-divergence is a
 * non-negative mixture of hockey-stick divergences plus terms fixed by the total masses (Liese &
 * Vajda 2006, "On divergences and informations in statistics and information theory", Thm 11), so a
 * pair that dominates in every hockey-stick divergence also dominates in D_α: the curve is
 * ε(α) = max{D_α(M‖Q), D_α(Q‖M)}. (For a vector query the scalar pair is the reading the PLD
 * accountant and the unsubsampled Laplace curve take too.)
 *
 * Forward, D_α(M‖Q), integer α ≥ 2: with L = P/Q, E_Q[(1 − q + qL)^α] = Σ_l C(α,l)(1−q)^{α−l}q^l E_Q[L^l]
 * and E_Q[L^l] = e^{(l−1)ε_Lap(l)} (Mironov 2017, Prop. 6), exactly — Zhu & Wang 2019's binomial
 * expansion without their factor 3, which holds with equality for this direction of any pair. As
 * E_Q[L^0] = E_Q[L] = 1, A − 1 = Σ_{l≥2} C(α,l)(1−q)^{α−l}q^l (E_Q[L^l] − 1), non-negative terms
 * in log space.
 *
 * Reverse, D_α(Q‖M): B = E_Q[(1 + Y)^{1−α}] with Y = q(L − 1), E_Q[Y] = 0, so
 * B − 1 = E_Q[h(Y)], h(Y) = (1 + Y)^{1−α} − 1 + (α − 1)Y = φ(βu) − βφ(u) ≥ 0 (β = 1 − α < 0,
 * u = log(1 + Y), φ(x) = e^x − 1 − x: two non-negative terms, no cancellation). L is e^{−1/b} on
 * x ≤ 0 (Q-mass ½), e^{1/b} on x ≥ 1 (Q-mass ½e^{−1/b}) — exact terms — and e^{t/b} at
 * x = (1 + t)/2, t ∈ (−1, 1), where Q has density w(t) = e^{−(1+t)/(2b)}/(4b) in t. That middle
 * integral is bounded from above, rigorously, by upper Riemann sums: on [−1, 0] h(Y(t)) decreases
 * (Y rises to 0) and so does w, so the integrand decreases and the left-endpoint sum is an upper
 * bound; on [0, 1] h(Y(t)) increases and w decreases, so each panel is at most
 * Δ·w(left)·h(Y(right)). The sum is a sound upper bound for every panel count N; N grows (64, 512,
 * 4096) only until the reverse bound falls below the forward value, which is then the exact ε(α).
 * Shortcut: D_α(Q‖M) ≤ D_∞(Q‖M) = −log(1 − q(1 − e^{−1/b})), so no quadrature is needed once the
 * forward value exceeds that.
 *
 * Before any quadrature, a bound by Taylor's theorem that costs O(1) per order (`reverseTaylorUpper`):
 * h(0) = h'(0) = 0 and h^{(k)}(y) = (−1)^k (α−1)α⋯(α+k−2)(1 + y)^{1−α−k}, so with Lagrange's
 * remainder at an even order K, for every Y ≥ Y_min = q(e^{−1/b} − 1) > −1,
 *   h(Y) ≤ Σ_{k=2}^{K−1} (−1)^k C(α+k−2, k) Y^k + C(α+K−2, K)(1 + Y_min)^{1−α−K} Y^K
 * (the K-th derivative is positive and decreasing in y, and the point ξ between 0 and Y is ≥ Y_min).
 * Taking E_Q: B − 1 ≤ the same sum over the moments E_Q[Y^k], which do not depend on α: they are
 * bounded once per (q, b), from above for even k and from below for odd k (the signs the sum needs),
 * by Riemann sums against the exact Q-mass of each panel, monotone like the sums above
 * (`reverseMoments`). This is the sampled Gaussian's argument (Mironov, Talwar & Zhang 2019, "Rényi
 * differential privacy of the sampled Gaussian mechanism", §3: the reverse direction's series in
 * central moments) made one-sided. Where it is below the forward value, ε(α) is the forward value, so
 * the answers are those the quadrature gave, found without it; only where it is not does the
 * quadrature run (and the smaller of the two reverse bounds is kept).
 *
 * Fractional orders: the convex chord of the cumulant between integers (./integer-orders.ts); the
 * max of the two directions' cumulants is convex, so the chord bounds it. Checked against mpmath
 * quadrature of both directions (scripts/fixtures/rdp_subsampled_laplace.py).
 *
 * @module
 */
import { roundUpLoss } from '../../core/numeric.js'
import { laplaceLogMomentMinus1, laplaceRdp } from './closed-forms.js'
import { fromIntegerOrders } from './integer-orders.js'
import { kept, keptOr } from './kept.js'
import { logBinomialRow, logSumExpPruned, phi, scratchTerms, softplus } from './log-space.js'

/** Relative margin on the forward sum (log-binomials ~1e-13 absolute) and on the reverse sums. */
export const SUBSAMPLED_LAPLACE_MARGIN = 1e-11

/** Panel counts per half-interval tried for the reverse direction. */
const PANELS = [64, 512, 4096] as const

/** Terms this far below the largest end the forward sum once the tail ratio is ≤ ½ (e^{−36} < 2⁻⁵¹). */
const TAIL_NATS = 36

/** log(A − 1) of the forward direction D_α(M‖Q) at an integer α ≥ 2, exact. */
const logForwardMinus1 = (q: number, b: number, alpha: number, logMoments: number[]): number => {
  const row = logBinomialRow(alpha)
  const lq = Math.log(q)
  const l1q = Math.log1p(-q)
  // Tail cut: the cumulant (l − 1)ε(l) is convex with slope ≤ ε(∞) = 1/b, so the ratio of terms
  // l + 1 and l is at most ρ_l = (α − l)/(l + 1) · q/(1 − q) · e^{1/b}, decreasing in l. Once ρ_l ≤ ½
  // and term l is 36 nats below the largest, the remaining terms sum to at most term l (a geometric
  // series of ratio ½ after it), which is added instead of them: still an upper bound, it adds at
  // most e^{−36} < 2⁻⁵¹ of the sum (below the margin), and it is cheap at large α. ρ_l ≤ ½ is
  // tested as (α − l)/(l + 1) ≤ ½(1 − q)e^{−1/b}/q, without a log per term.
  const ratioCap = 0.5 * Math.exp(Math.log1p(-q) - Math.log(q) - 1 / b)
  // A shared buffer (./log-space.ts): nothing below takes it before the sum.
  const terms = scratchTerms(alpha)
  let n = 0
  let max = -Infinity
  for (let l = 2; l <= alpha; l++) {
    let m = logMoments[l]
    if (m === undefined) {
      m = laplaceLogMomentMinus1(b, l)
      logMoments[l] = m
    }
    const t = (row[l] as number) + (alpha - l) * l1q + l * lq + m
    terms[n++] = t
    if (t > max) max = t
    if (l < alpha && t < max - TAIL_NATS && (alpha - l) / (l + 1) <= ratioCap) {
      terms[n++] = t // the tail's bound
      break
    }
  }
  return logSumExpPruned(terms, n)
}

/**
 * What the reverse sums need that does not depend on α, for one (q, b, N): u = log(1 + Y) at the
 * nodes each half reads h at, and the weights Δ·w there. Memoised (a few (q, b) per query).
 */
interface ReverseNodes {
  readonly uMinus: number
  readonly uPlus: number
  readonly u: Float64Array
  readonly w: Float64Array
  /** φ(u) at uMinus, uPlus and each node: h's α-independent half, kept (the same bits as hReverse's). */
  readonly phiMinus: number
  readonly phiPlus: number
  readonly phiU: Float64Array
}
const NODES = kept<ReverseNodes>(64)
const reverseNodes = (q: number, b: number, panels: number): ReverseNodes => {
  const key = `${q}|${b}|${panels}`
  const hit = NODES.get(key)
  if (hit !== undefined) return hit
  const uAt = (t: number): number => Math.log1p(q * Math.expm1(t / b))
  const wAt = (t: number): number => Math.exp(-(1 + t) / (2 * b)) / (4 * b)
  const step = 1 / panels
  const u = new Float64Array(2 * panels)
  const w = new Float64Array(2 * panels)
  for (let i = 0; i < panels; i++) {
    const t = -1 + i * step
    u[i] = uAt(t) // [−1, 0]: decreasing integrand, left endpoint
    w[i] = step * wAt(t)
    const s = i * step
    u[panels + i] = uAt(s + step) // [0, 1]: w at the left, h at the right
    w[panels + i] = step * wAt(s)
  }
  const uMinus = uAt(-1)
  const uPlus = uAt(1)
  const nodes = { uMinus, uPlus, u, w, phiMinus: phi(uMinus), phiPlus: phi(uPlus), phiU: u.map(phi) }
  NODES.set(key, nodes)
  return nodes
}

/** An upper bound on B − 1 of the reverse direction D_α(Q‖M), with N panels per half. */
export const reverseUpper = (q: number, b: number, alpha: number, panels: number): number => {
  const ns = reverseNodes(q, b, panels)
  // hReverse(u, α) = φ(βu) − βφ(u) with β = 1 − α, φ(u) read from the nodes.
  const beta = 1 - alpha
  const h = (u: number, phiU: number): number => phi(beta * u) - beta * phiU
  let sum = 0.5 * h(ns.uMinus, ns.phiMinus) + 0.5 * Math.exp(-1 / b) * h(ns.uPlus, ns.phiPlus)
  for (let i = 0; i < ns.u.length; i++) sum += (ns.w[i] as number) * h(ns.u[i] as number, ns.phiU[i] as number)
  return sum * (1 + SUBSAMPLED_LAPLACE_MARGIN)
}

/** Taylor order K of `reverseTaylorUpper` (even): the bound reads the moments E_Q[Y^k], k = 2..K. */
const TAYLOR_ORDER = 6

/**
 * Panels per half-interval of the moments' Riemann bounds, computed once per (q, b) and level: the
 * coarse level is tried first at every order, the fine one only where the coarse bound is not below
 * the forward value.
 */
export const MOMENT_PANELS = [32, 256] as const

/**
 * Relative slack on the moment sums (each term's rounding is a few ulps, the sum's (2N + 2)·2⁻⁵³ of
 * the sum of absolute terms, < 1e-13 in all) and on the Taylor sum (its coefficients' rounding,
 * |1 − α − K|·log(1 + Y_min) ≤ 700 nats amplified by exp: < 2e-13), each as a fraction of the sum of
 * absolute terms.
 */
const MOMENT_SLACK = 1e-12
const TAYLOR_SLACK = 1e-10

/**
 * One-sided bounds on the moments E_Q[Y^k], k = 2..K, of Y = q(L − 1) under Q (see the module
 * comment): m[k] is an upper bound for even k, a lower bound for odd k. Undefined when the largest
 * |Y|^K underflows towards the subnormals (then the sums could lose more than their slack), in
 * which case the quadrature alone is used.
 */
interface ReverseMoments {
  readonly m: Float64Array | undefined
  /** log(1 + Y_min), Y_min = q(e^{−1/b} − 1). */
  readonly logOnePlusYMin: number
}
const MOMENTS = kept<ReverseMoments>(64)
const reverseMoments = (q: number, b: number, panels: number): ReverseMoments =>
  keptOr(MOMENTS, `${q}|${b}|${panels}`, () => {
    const K = TAYLOR_ORDER
    const yMinus = q * Math.expm1(-1 / b)
    const yPlus = q * Math.expm1(1 / b)
    const logOnePlusYMin = Math.log1p(yMinus)
    // The point mass at x ≤ 0 alone contributes ½|Y_min|^K to the even moments: keep it ≥ 1e-280.
    if (!(K * Math.log(-yMinus) >= -644)) return { m: undefined, logOnePlusYMin }
    // sum[k] of signed terms and abs[k] of their absolute values, k = 2..K.
    const sum = new Float64Array(K + 1)
    const abs = new Float64Array(K + 1)
    /** Adds mass·y^k to the moments k = 2..K of the given parity. */
    const add = (y: number, mass: number, parity: 'all' | 'even' | 'odd'): void => {
      let p = y * y
      for (let k = 2; k <= K; k++) {
        if (parity === 'all' || (parity === 'even') === ((k & 1) === 0)) {
          const t = mass * p
          sum[k] = (sum[k] as number) + t
          abs[k] = (abs[k] as number) + Math.abs(t)
        }
        p *= y
      }
    }
    add(yMinus, 0.5, 'all')
    add(yPlus, 0.5 * Math.exp(-1 / b), 'all')
    // Q-mass of the panel [t, t + Δ] of the middle part (x = (1 + t)/2, density e^{−(1+t)/(2b)}/(4b) in t):
    // ½e^{−(1+t)/(2b)}(1 − e^{−Δ/(2b)}), exactly integrated.
    const N = panels
    const step = 1 / N
    const massFactor = -0.5 * Math.expm1(-step / (2 * b))
    const yAt = (t: number): number => q * Math.expm1(t / b)
    for (let i = 0; i < N; i++) {
      // [−1, 0]: Y ≤ 0 rises to 0, so Y^k is largest at the left endpoint for even k (|Y| falls)
      // and smallest there for odd k (Y^k ≤ 0 rises): the left endpoint bounds both ways we need.
      const tl = -1 + i * step
      add(yAt(tl), massFactor * Math.exp(-(1 + tl) / (2 * b)), 'all')
      // [0, 1]: Y ≥ 0 rises, so the right endpoint bounds even k from above, the left odd k from below.
      const s = i * step
      const mass = massFactor * Math.exp(-(1 + s) / (2 * b))
      add(yAt(s + step), mass, 'even')
      add(yAt(s), mass, 'odd')
    }
    const m = new Float64Array(K + 1)
    for (let k = 2; k <= K; k++) m[k] = (sum[k] as number) + ((k & 1) === 0 ? 1 : -1) * MOMENT_SLACK * (abs[k] as number)
    return { m, logOnePlusYMin }
  })

/**
 * An upper bound on B − 1 of the reverse direction D_α(Q‖M) by Taylor's theorem (module comment);
 * ∞ where it does not apply or overflows.
 */
export const reverseTaylorUpper = (q: number, b: number, alpha: number, panels: number): number => {
  const { m, logOnePlusYMin } = reverseMoments(q, b, panels)
  if (m === undefined) return Infinity
  const K = TAYLOR_ORDER
  let total = 0
  let abs = 0
  // C(α+k−2, k) = C(α+k−3, k−1)·(α+k−2)/k, from C(α, 2) = α(α−1)/2.
  let c = (alpha * (alpha - 1)) / 2
  for (let k = 2; k <= K; k++) {
    if (k > 2) c *= (alpha + k - 2) / k
    const coef = k < K ? c : c * Math.exp((1 - alpha - K) * logOnePlusYMin)
    const t = ((k & 1) === 0 ? coef : -coef) * (m[k] as number)
    total += t
    abs += Math.abs(t)
  }
  const bound = total + TAYLOR_SLACK * abs
  return Number.isNaN(bound) ? Infinity : Math.max(bound, 0)
}

/** How a value was obtained: the reverse direction stayed below the exact forward one, or bound it. */
export type SubsampledLaplaceMethod = 'exact' | 'reverse bound'

/**
 * ε(α) of the Poisson-subsampled Laplace (rate 0 < q < 1, b = scale/Δ₁) at an integer α ≥ 2:
 * max of the exact forward divergence and the reverse upper bound, rounded up.
 */
export const subsampledLaplaceIntegerRdp = (
  q: number,
  b: number,
  alpha: number,
  logMoments: number[] = [],
): { readonly rdp: number; readonly method: SubsampledLaplaceMethod } => {
  const forward = roundUpLoss(softplus(logForwardMinus1(q, b, alpha, logMoments)) / (alpha - 1), SUBSAMPLED_LAPLACE_MARGIN)
  const reverseInf = -Math.log1p(-q * -Math.expm1(-1 / b))
  if (forward >= reverseInf) return { rdp: forward, method: 'exact' }
  let taylor = Infinity
  for (const n of MOMENT_PANELS) {
    taylor = roundUpLoss(Math.log1p(reverseTaylorUpper(q, b, alpha, n)) / (alpha - 1), SUBSAMPLED_LAPLACE_MARGIN)
    if (taylor <= forward) return { rdp: forward, method: 'exact' }
  }
  let reverse = Infinity
  for (const n of PANELS) {
    reverse = Math.log1p(reverseUpper(q, b, alpha, n)) / (alpha - 1)
    if (reverse <= forward) return { rdp: forward, method: 'exact' }
  }
  return { rdp: roundUpLoss(Math.min(reverse, reverseInf, taylor), SUBSAMPLED_LAPLACE_MARGIN), method: 'reverse bound' }
}

/** Values at integer orders and the Laplace moments log(E_Q[L^l] − 1), for one (q, b). */
export interface SubsampledLaplaceMemo {
  readonly values: Map<number, number>
  readonly logMoments: number[]
}

/**
 * The Poisson-subsampled Laplace curve on `orders` (add/remove), capped by the unsubsampled
 * Laplace curve; q ≥ 1 gives the Laplace curve, q ≤ 0 or b = ∞ zero.
 */
export const subsampledLaplaceCurve = (
  orders: ReadonlyArray<number>,
  q: number,
  b: number,
  /** Work already done for this (q, b), filled as it is done. */
  memo: SubsampledLaplaceMemo = { values: new Map(), logMoments: [] },
): Float64Array => {
  const out = new Float64Array(orders.length)
  if (!(q > 0) || b === Infinity) return out
  if (q >= 1) {
    for (let i = 0; i < orders.length; i++) out[i] = roundUpLoss(laplaceRdp(b, orders[i] as number), 1e-13)
    return out
  }
  const atInteger = (n: number): number => {
    let v = memo.values.get(n)
    if (v === undefined) {
      v = subsampledLaplaceIntegerRdp(q, b, n, memo.logMoments).rdp
      memo.values.set(n, v)
    }
    return v
  }
  const bound = fromIntegerOrders(orders, atInteger)
  for (let i = 0; i < orders.length; i++)
    out[i] = Math.min(bound[i] as number, roundUpLoss(laplaceRdp(b, orders[i] as number), 1e-13))
  return out
}
