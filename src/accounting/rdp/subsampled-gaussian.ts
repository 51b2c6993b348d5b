/**
 * The Poisson-subsampled Gaussian mechanism, exact at integer and fractional orders.
 *
 * Mironov, Talwar & Zhang 2019 ("Rényi Differential Privacy of the Sampled Gaussian Mechanism",
 * §3): for add/remove neighbours and noise multiplier σ, with μ0 = N(0, σ²), μ1 = N(1, σ²) and
 * μ = (1 − q)μ0 + qμ1, the sampled Gaussian is (α, ε)-RDP with
 *   ε(α) = log max(A_α, B_α)/(α − 1),  A_α = E_{z∼μ0}[(μ(z)/μ0(z))^α],  B_α = E_{z∼μ}[(μ0(z)/μ(z))^α]
 * (their Thm 4: the one-dimensional pair is the worst case, for both directions of add/remove),
 * and A_α ≥ B_α for α ≥ 1 (their Thm 5), so ε(α) = log(A_α)/(α − 1), where
 *   A_α = E_{z∼N(0,σ²)}[(1 − q + q·e^{(2z−1)/(2σ²)})^α].
 *
 * We compute X = A_α − 1 ≥ 0 directly (never A_α − 1 after rounding A_α), in log space:
 * - integer α: the binomial expansion (MTZ 2019, §3.3)
 *     A_α − 1 = Σ_{k=2}^{α} C(α,k)(1−q)^{α−k} q^k (e^{(k²−k)/(2σ²)} − 1),
 *   every term non-negative (the k = 0, 1 terms and the 1 cancel by the binomial theorem);
 * - fractional α: the trapezoid rule on the integral with a rigorous error bound that is added to
 *   the result (see `sampledGaussianQuadrature`), so the answer is an upper bound by construction.
 * The result is inflated by a relative 1e-11 (`roundUpLoss`) against rounding in the sums
 * (measured errors before the margin: below 3e-15 against 50-digit mpmath).
 *
 * One `makeSampledGaussian(q, σ)` serves a whole order grid: the quadrature nodes (which depend
 * on q and σ but not on α) and the per-k exponentials of the binomial sums are computed once.
 *
 * @module
 */
import logcdf from '@stdlib/stats-base-dists-normal-logcdf'
import { logAddExp, logSumExp, roundUpLoss } from '../../core/numeric.js'
import { gaussianRdp } from './closed-forms.js'
import { byOrder, kept, keptOr } from './kept.js'
import { PRUNE_NATS, logBinomialRow, logExpm1, logSumExpPruned, phi, scratchTerms, softplus } from './log-space.js'

/** Relative margin against floating-point error. */
export const SAMPLED_GAUSSIAN_MARGIN = 1e-11

/**
 * Below this order the fractional computation would lose digits to the cancellation in
 * g(Y) = (1+Y)^α − 1 − αY (which vanishes like α − 1); smaller orders reuse its value, an upper
 * bound because Rényi divergence is non-decreasing in α (van Erven & Harremoës 2014, Thm 3).
 */
export const MIN_FRACTIONAL_ORDER = 1.01

/** The quadrature gives up (and the caller interpolates, soundly) beyond this many nodes. */
export const MAX_QUADRATURE_POINTS = 200_000

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI)
const LN2 = Math.LN2

/**
 * log g where g = (1+Y)^α − 1 − αY ≥ 0 and u = log(1+Y). With φ(x) = e^x − 1 − x,
 * g = φ(αu) − αφ(u) = e^{αu} − αe^u + (α − 1); the branches avoid cancellation:
 * - |αu| ≤ 1/2: the series Σ_{n≥2} (αⁿ − α)uⁿ/n!, with αⁿ⁻¹ − 1 built by a recurrence of
 *   non-negative terms (no cancellation even for α near 1);
 * - αu > 30: g = e^{αu}(1 − e^{−(α−1)u} − (α−1)e^{−(α−1)u} + (α−1)e^{−αu}), in log space;
 * - otherwise φ(αu) − αφ(u), whose relative cancellation is bounded (φ(x)/x² is increasing).
 * `phiU` is φ(u), which does not depend on α: the quadrature passes the value it keeps per node.
 */
const logG = (u: number, alpha: number, phiU: number = phi(u)): number => {
  const au = alpha * u
  return au > 30 ? au + Math.log(gFarInner(u, alpha)) : Math.log(gNear(u, alpha, phiU))
}

/** g itself where αu ≤ 30 (the first and last branches of `logG`). */
const gNear = (u: number, alpha: number, phiU: number): number => {
  const au = alpha * u
  if (Math.abs(au) <= 0.5) {
    // term_n = α(αⁿ⁻¹ − 1)·uⁿ/n!;  e_{n+1} = α·e_n + (α − 1) with e_n = αⁿ⁻¹ − 1.
    let e = alpha - 1
    let p = (u * u) / 2
    let sum = alpha * e * p
    for (let n = 3; n < 40; n++) {
      e = alpha * e + (alpha - 1)
      p *= u / n
      const t = alpha * e * p
      sum += t
      if (Math.abs(t) <= 1e-17 * Math.abs(sum)) break
    }
    return sum
  }
  return phi(au) - alpha * phiU
}

/** g·e^{−αu} where αu > 30 (the middle branch of `logG`). */
const gFarInner = (u: number, alpha: number): number => {
  const s = (alpha - 1) * u
  return -Math.expm1(-s) - (alpha - 1) * Math.exp(-s) + (alpha - 1) * Math.exp(-alpha * u)
}

/** What the quadrature did, for tests and for the curious. */
export interface QuadratureResult {
  /** log of a rigorous upper bound on A_α − 1 (sum plus all error bounds). */
  readonly logUpper: number
  /** log of the trapezoid sum itself. */
  readonly logSum: number
  /** log of the total added error bound (tails + discretisation). */
  readonly logMargin: number
  readonly step: number
  readonly points: number
}

/**
 * How a value was obtained. 'unsampled' marks a value that failed its floor check (see
 * `sampledGaussianFloor`) and was replaced by the unsampled α/(2σ²), an upper bound on it.
 */
export type SampledGaussianMethod = 'no sampling' | 'binomial' | 'quadrature' | 'interpolated' | 'unsampled'

/**
 * A lower bound on ε(α), computed apart from the sums it checks. At an integer n ≥ 2 every term of
 * the binomial expansion (MTZ 2019, §3.3) is non-negative, so A_n − 1 is at least its k = 2 term
 * C(n,2)(1−q)^{n−2}q²(e^{1/σ²} − 1) and its k = n term qⁿ(e^{n(n−1)/(2σ²)} − 1); for real α ≥ 2,
 * ε(α) ≥ ε(⌊α⌋) (Rényi divergence is non-decreasing in α, van Erven & Harremoës 2014, Thm 3); below
 * 2 the floor is 0. A computed ε(α) below it is a numerical failure, never an answer: the sums at
 * σ ≤ 1e-7 once collapsed to ε(α) = 0 (issue 30), which this floor exposes at once.
 */
export const sampledGaussianFloor = (q: number, sigma: number, alpha: number): number => {
  if (alpha < 2) return 0
  const n = Math.floor(alpha)
  const inv2s2 = 1 / (2 * sigma * sigma)
  const lq = Math.log(q)
  const pairs = (n * (n - 1)) / 2 // C(n, 2)
  const first = Math.log(pairs) + (n - 2) * Math.log1p(-q) + 2 * lq + logExpm1(2 * inv2s2)
  const last = n * lq + logExpm1(n * (n - 1) * inv2s2)
  return softplus(Math.max(first, last)) / (n - 1)
}

export interface SampledGaussian {
  /** log(A_α − 1) at an integer α ≥ 2 by the binomial expansion. */
  readonly logAMinus1Binomial: (alpha: number) => number
  /** log(A_α − 1) for real α > 1 by quadrature, or undefined past MAX_QUADRATURE_POINTS. */
  readonly quadrature: (alpha: number) => QuadratureResult | undefined
  /** ε(α), never above the unsubsampled α/(2σ²), with how it was computed. */
  readonly rdp: (alpha: number) => { readonly rdp: number; readonly method: SampledGaussianMethod }
}

/** Trapezoid nodes z_j = lo + j·h for one (step, range) choice, grown on demand. */
interface Nodes {
  readonly h: number
  readonly lo: number
  readonly T: number
  readonly logC: number
  /** −z²/(2σ²) − log(σ√(2π)), the log Gaussian density at each node. */
  readonly base: number[]
  /** u = log(1 + Y(z)) at each node. */
  readonly u: number[]
  /** φ(u) at each node (α-independent; `logG` would recompute it at every order). */
  readonly phiU: number[]
  /** e^{−z²/(2σ²)} = e^{base − log(1/(σ√(2π)))} ∈ (0, 1] at each node, for the linear-space sum. */
  readonly dens: number[]
}

/**
 * The sampled Gaussian with rate 0 < q < 1 and noise multiplier σ > 0 (finite). Memoises what
 * does not depend on α; build one per (q, σ) and evaluate it on every order of a grid.
 */
export const makeSampledGaussian = (q: number, sigma: number): SampledGaussian => {
  const s2 = sigma * sigma
  const inv2s2 = 1 / (2 * s2)
  const lq = Math.log(q)
  const l1q = Math.log1p(-q)
  const logNorm = -Math.log(sigma) - LOG_SQRT_2PI

  // log(e^{k(k−1)/(2σ²)} − 1), shared by all integer orders, computed for the k a sum reads (NaN: not yet).
  let logMoment = new Float64Array(0)
  const logMomentAt = (k: number): number => {
    if (k >= logMoment.length) {
      const grown = new Float64Array(Math.max(k + 1, 2 * logMoment.length)).fill(Number.NaN)
      grown.set(logMoment)
      logMoment = grown
    }
    let v = logMoment[k] as number
    if (Number.isNaN(v)) {
      v = logExpm1(k * (k - 1) * inv2s2)
      logMoment[k] = v
    }
    return v
  }
  /**
   * The binomial sum from k = α down. The terms left below k are at most
   *   Σ_{j<k} C(α,j)(1−q)^{α−j}q^j (e^{k(k−1)/(2σ²)} − 1) ≤ e^{k(k−1)/(2σ²)} − 1
   * (the moment factor grows with j, the binomial probabilities sum to at most 1), so once that
   * is more than PRUNE_NATS below the largest term seen, the rest is dropped: less than e^{−60} of
   * the result, within what `logSumExpPruned` already drops from the α − 1 terms of the full sum
   * (each pruned term is below e^{−60} of the largest, so the old shortfall was at most (α − 1)e^{−60};
   * now at most (computed terms + 1)e^{−60}, no more since at least one term was skipped), and far
   * inside SAMPLED_GAUSSIAN_MARGIN. High orders at small σ are dominated by their top few terms
   * (σ 1.1, α = 1024: about 2 of 1023), which is where the cold grid spent its integer-order time.
   */
  const logAMinus1Binomial = (alpha: number): number => {
    const row = logBinomialRow(alpha)
    const terms = scratchTerms(alpha - 1)
    let n = 0
    let m = -Infinity
    for (let k = alpha; k >= 2; k--) {
      const lm = logMomentAt(k)
      if (lm - m < -PRUNE_NATS) break // difference form: m − 60 rounds to m past 2⁶⁰ (issue 30)
      const t = (row[k] as number) + (alpha - k) * l1q + k * lq + lm
      terms[n++] = t
      if (t > m) m = t
    }
    // Ascending k, the order the full sum added them in (the same rounding where nothing was dropped).
    terms.subarray(0, n).reverse()
    return logSumExpPruned(terms, n)
  }

  const logOnePlusY = (z: number): number => {
    const w = (2 * z - 1) * inv2s2
    return w < 700 ? Math.log1p(q * Math.expm1(w)) : logAddExp(l1q, lq + w)
  }
  const nodeSets: Nodes[] = []
  const nodesFor = (attempt: number): Nodes => {
    const hit = nodeSets[attempt]
    if (hit !== undefined) return hit
    const tau = 60 + 15 * attempt
    const T = 10 + 3 * attempt
    const target = tau + LN2
    // Strip half-width a = πσ² when that minimises the bound (h ≤ 2), else a = 2πσ²/h.
    const hBoundary = (2 * Math.PI * Math.PI * s2) / ((Math.PI * Math.PI * s2) / 2 + target)
    const h = hBoundary <= 2 ? hBoundary : Math.PI * sigma * Math.sqrt(2 / target)
    const a = Math.min(Math.PI * s2, (2 * Math.PI * s2) / h)
    const ns: Nodes = {
      h,
      lo: -T * sigma,
      T,
      logC: LN2 + a * a * inv2s2 - logExpm1((2 * Math.PI * a) / h),
      base: [],
      u: [],
      phiU: [],
      dens: [],
    }
    nodeSets[attempt] = ns
    return ns
  }
  const ensure = (ns: Nodes, n: number): void => {
    for (let j = ns.base.length; j <= n; j++) {
      const z = ns.lo + j * ns.h
      const u = logOnePlusY(z)
      ns.base.push(-z * z * inv2s2 + logNorm)
      ns.u.push(u)
      ns.phiU.push(phi(u))
      ns.dens.push(Math.exp(-z * z * inv2s2))
    }
  }
  const leftTailG = (alpha: number): number => logG(l1q, alpha)

  /**
   * log Σ_{j≤n} N(z_j)·g(Y(z_j)). In linear space when nothing can overflow (αu ≤ 600 at the last,
   * largest node: g < e^{600}) or underflow (the sum above 1e-290): Σ e^{−z²/(2σ²)}·g, one product
   * per node instead of a log and an exp, every term non-negative so the sum's rounding stays a few
   * ulps relative, far inside SAMPLED_GAUSSIAN_MARGIN. Otherwise in log space, term by term.
   */
  const trapezoidLogSum = (ns: Nodes, n: number, alpha: number): number => {
    if (alpha * (ns.u[n] as number) <= 600) {
      let acc = 0
      for (let j = 0; j <= n; j++) {
        const u = ns.u[j] as number
        const g = alpha * u > 30 ? Math.exp(alpha * u) * gFarInner(u, alpha) : gNear(u, alpha, ns.phiU[j] as number)
        acc += (ns.dens[j] as number) * g
      }
      if (acc > 1e-290 && acc < Infinity) return logNorm + Math.log(acc)
    }
    const terms = scratchTerms(n + 1)
    for (let j = 0; j <= n; j++) terms[j] = (ns.base[j] as number) + logG(ns.u[j] as number, alpha, ns.phiU[j] as number)
    return logSumExpPruned(terms, n + 1)
  }

  /**
   * log(A_α − 1) for any real α > 1 by the trapezoid rule, with a rigorous bound on its error.
   *
   * Write A_α − 1 = ∫ w, w(z) = N(z; 0, σ²)·g(Y(z)), Y = q(e^{(2z−1)/(2σ²)} − 1) (E[Y] = 0, so
   * the αY term integrates to 0, and g ≥ 0 by convexity).
   *
   * Discretisation (Trefethen & Weideman 2014, "The exponentially convergent trapezoidal rule",
   * Thm 5.1): if w is analytic in the strip |Im z| < a with ∫|w(x + ib)|dx ≤ M for |b| < a, the
   * infinite trapezoid sum with step h is within 2M/(e^{2πa/h} − 1) of the integral. Here 1 + Y
   * vanishes only where Im z = ±πσ² (e^w = −(1−q)/q), and on the principal branch (1+Y)^α is
   * analytic for |Im z| < πσ². With |N(x+ib)| = N(x)e^{b²/(2σ²)}, |1+Y| ≤ 1 − q + q·e^{Re w}
   * and E[e^w] = 1: M ≤ e^{a²/(2σ²)}(A_α + 1 + 2αq). We take a = min(πσ², 2πσ²/h) (the
   * minimiser of the bound) and h with c = 2e^{a²/(2σ²)}/(e^{2πa/h} − 1) ≤ e^{−60}.
   *
   * Truncation to nodes in [−Tσ, max(α, ½) + Tσ]: left of 0, w ≤ g(−q)·N(z) with N increasing, so
   * the omitted left nodes sum to at most g(−q)·Φ(−T); right of α, f_A(z) = N(z)(1+Y)^α ≥ w has
   * (log f_A)' ≤ −(z − α)/σ², so the omitted right nodes sum to at most f_A(z_N)·σ√(π/2).
   *
   * All bounds are added: A − 1 ≤ (S + tails + c(2 + 2αq))/(1 − c). If they exceed 1e-15 of the
   * sum (tiny q), the range and the accuracy target grow (T += 3, −log c += 15) and we retry.
   */
  const quadrature = (alpha: number): QuadratureResult | undefined => {
    let last: QuadratureResult | undefined
    for (let attempt = 0; attempt < 6; attempt++) {
      const ns = nodesFor(attempt)
      const hi = Math.max(alpha, 0.5) + ns.T * sigma
      const n = Math.ceil((hi - ns.lo) / ns.h)
      if (n + 1 > MAX_QUADRATURE_POINTS) return undefined
      ensure(ns, n)
      const logSum = Math.log(ns.h) + trapezoidLogSum(ns, n, alpha)
      const leftTail = leftTailG(alpha) + logcdf(-ns.T, 0, 1)
      const rightTail =
        (ns.base[n] as number) + alpha * (ns.u[n] as number) + Math.log(sigma) + 0.5 * Math.log(Math.PI / 2)
      const disc = ns.logC + Math.log(2 + 2 * alpha * q)
      const logUpper = logSumExp([logSum, leftTail, rightTail, disc]) - Math.log1p(-Math.exp(ns.logC))
      const logMargin = logSumExp([leftTail, rightTail, disc, ns.logC + logSum])
      last = { logUpper, logSum, logMargin, step: ns.h, points: n + 1 }
      if (logMargin <= logSum + Math.log(1e-15)) return last
    }
    return last
  }

  const full = (alpha: number): number => gaussianRdp(sigma, alpha)
  /**
   * The soundness guard on every value: never below the independent floor (a computation that
   * undercuts it failed: the unsampled α/(2σ²), an upper bound by joint quasi-convexity, replaces
   * it), and never 0 — with q > 0 and σ < ∞ the two laws differ, so an underflow reports the least
   * positive double.
   */
  const checked = (
    alpha: number,
    r: { readonly rdp: number; readonly method: SampledGaussianMethod },
  ): { readonly rdp: number; readonly method: SampledGaussianMethod } => {
    // σ past ~1e150: 1/(2σ²) and the sampled terms fall to subnormal doubles or underflow (the answer read the
    // least positive double, or a subnormal with a few bits, below the truth ≈ αq²/(2σ²)); the unsampled α/(2σ²),
    // computed without overflow and rounded up, bounds it (joint quasi-convexity) and loses nothing that matters
    const unsampled = full(alpha)
    if (unsampled < 2 ** -1000) return { rdp: unsampled, method: 'unsampled' }
    const floor = sampledGaussianFloor(q, sigma, alpha)
    if (!(r.rdp >= floor * (1 - 1e-9))) return { rdp: Math.max(unsampled, Number.MIN_VALUE), method: 'unsampled' }
    return r.rdp > 0 ? r : { rdp: Number.MIN_VALUE, method: r.method }
  }
  const rdpUnchecked = (alpha: number): { readonly rdp: number; readonly method: SampledGaussianMethod } => {
    const order = Math.max(alpha, MIN_FRACTIONAL_ORDER)
    if (Number.isInteger(order)) {
      const eps = roundUpLoss(softplus(logAMinus1Binomial(order)) / (order - 1), SAMPLED_GAUSSIAN_MARGIN)
      return { rdp: Math.min(full(alpha), eps), method: 'binomial' }
    }
    const quad = quadrature(order)
    if (quad !== undefined) {
      const eps = roundUpLoss(softplus(quad.logUpper) / (order - 1), SAMPLED_GAUSSIAN_MARGIN)
      return { rdp: Math.min(full(alpha), eps), method: 'quadrature' }
    }
    // Too many nodes (tiny σ, huge α): the cumulant (α−1)ε(α) = log A_α is convex in α (van Erven
    // & Harremoës 2014, Thm 11), so the chord between the neighbouring integers bounds it; below
    // 2, ε is non-decreasing in α, so ε(2) bounds it.
    const lo = Math.max(2, Math.floor(order))
    const hi = Math.max(2, Math.ceil(order))
    const kLo = softplus(logAMinus1Binomial(lo))
    const kHi = softplus(logAMinus1Binomial(hi))
    const cumulant = order < 2 ? (order - 1) * kLo : (hi - order) * kLo + (order - lo) * kHi
    return {
      rdp: Math.min(full(alpha), roundUpLoss(cumulant / (order - 1), SAMPLED_GAUSSIAN_MARGIN)),
      method: 'interpolated',
    }
  }

  const rdp = (alpha: number): { readonly rdp: number; readonly method: SampledGaussianMethod } => checked(alpha, rdpUnchecked(alpha))
  return { logAMinus1Binomial, quadrature, rdp }
}

const KEPT = kept<SampledGaussian>(16)

/**
 * The SampledGaussian of (q, σ), shared by every curve and continuous search of the process
 * (./kept.ts), with its ε(α) remembered per order (up to 4096). Everything kept is a pure function
 * of (q, σ, α) — the nodes, the binomial moments, the values — so the answers are the same bits as
 * a fresh instance's (test/accounting/rdp/subsampled-gaussian.test.ts).
 */
export const sampledGaussianFor = (q: number, sigma: number): SampledGaussian =>
  keptOr(KEPT, `${q}|${sigma}`, () => {
    const made = makeSampledGaussian(q, sigma)
    return { ...made, rdp: byOrder(4096, made.rdp) }
  })

/**
 * ε(α) of the Poisson-subsampled Gaussian with rate q and noise multiplier σ (add/remove), with how
 * it was computed. q = 0 or σ = ∞ give 0; q = 1 is the plain Gaussian α/(2σ²).
 */
export const subsampledGaussianRdpWithMethod = (
  q: number,
  sigma: number,
  alpha: number,
): { readonly rdp: number; readonly method: SampledGaussianMethod } => {
  if (!(q > 0) || sigma === Infinity) return { rdp: 0, method: 'no sampling' }
  if (q >= 1) return { rdp: gaussianRdp(sigma, alpha), method: 'no sampling' }
  return sampledGaussianFor(q, sigma).rdp(alpha)
}

/** ε(α) of the Poisson-subsampled Gaussian (see `subsampledGaussianRdpWithMethod`). */
export const subsampledGaussianRdp = (q: number, sigma: number, alpha: number): number =>
  subsampledGaussianRdpWithMethod(q, sigma, alpha).rdp

/**
 * The curve on a grid; notes whether any order had to fall back to interpolation, or failed its
 * floor check and took the unsampled value.
 */
export const subsampledGaussianCurve = (
  q: number,
  sigma: number,
  orders: ReadonlyArray<number>,
): { readonly curve: Float64Array; readonly interpolated: boolean; readonly unsampled: boolean } => {
  const curve = new Float64Array(orders.length)
  let interpolated = false
  let unsampled = false
  if (!(q > 0) || sigma === Infinity) return { curve, interpolated, unsampled }
  if (q >= 1) {
    for (let i = 0; i < orders.length; i++) curve[i] = gaussianRdp(sigma, orders[i] as number)
    return { curve, interpolated, unsampled }
  }
  const sg = sampledGaussianFor(q, sigma)
  for (let i = 0; i < orders.length; i++) {
    const r = sg.rdp(orders[i] as number)
    curve[i] = r.rdp
    if (r.method === 'interpolated') interpolated = true
    if (r.method === 'unsampled') unsampled = true
  }
  return { curve, interpolated, unsampled }
}
