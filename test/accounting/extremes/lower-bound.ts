/**
 * An independent lower bound on the true δ(ε) of an event tree, for soundness checks at extreme
 * parameters (issue 30). It shares no code with the accountants: every bound is a hockey-stick
 * divergence H_{e^ε}(P‖Q) = sup_S P(S) − e^ε Q(S) of one explicit pair of output laws that some
 * mechanism meeting the event's description produces on some pair of neighbours, so the true
 * δ(ε) (a supremum over mechanisms and neighbours) is at least it. An accountant's ε at δ is
 * unsound when this bound at that ε exceeds δ; its δ at ε is unsound when it is below the bound.
 *
 * Pairs used (μ = Δ/σ, the inverse noise multiplier):
 * - Gaussian: N(μ, 1) vs N(0, 1), exactly δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (Balle & Wang
 *   2018, Thm 8), evaluated as an integral of a positive function (see `gaussianLogDelta`); k-fold and heterogeneous compositions of Gaussians (and of ρ-zCDP guarantees, met
 *   by the Gaussian with μ = √(2ρ)) are the Gaussian with μ² = Σ μ_i² (Dong, Roth & Su 2022, Cor. 3.3).
 * - Laplace Lap(1, b) vs Lap(0, b) (b = scale/Δ): δ(ε) = 1 − e^{(ε − 1/b)/2} for ε < 1/b.
 * - k-ary randomized response with ε₀: δ(ε) = (e^{ε₀} − e^ε)/(e^{ε₀} + k − 1) for ε < ε₀; a stated
 *   ε₀-DP guarantee is met by binary randomized response (k = 2); ApproxDP(ε₀, δ₀) by the pair that
 *   puts δ₀ on disjoint points and binary RR on the rest: δ₀ + (1 − δ₀)·RR₂(ε₀); the exponential
 *   mechanism with ε₀ realises binary RR with ε₀/2 (two outcomes, utilities swapped); bitwise RR
 *   with flip probability f is binary RR with |log((1 − f)/f)| on one differing bit; the discrete
 *   Laplace of scale t with a shift by 1 ≤ Δ is binary RR with 1/t (its loss is ±1/t).
 * - Discrete Gaussian σ, a shift by 1 ≤ Δ: the set S = {1} gives δ ≥ (1 − e^{ε − 1/(2σ²)})/Z with
 *   Z = Σ_x e^{−x²/(2σ²)} ≤ 1 + 2e^{−1/(2σ²)}/(1 − e^{−1/(2σ²)}).
 * - Poisson sampling with rate q of any of the above (neighbours ∅ and {x}, so the unsampled
 *   output law is the base pair's Q every time): P = (1 − q)Q + qP₁, and
 *   H_γ((1 − q)Q + qP₁ ‖ Q) = q·H_{γ'}(P₁‖Q), γ' = 1 + (γ − 1)/q — exact for that pair.
 *   Sampling m of n without replacement under replace-one neighbours is the same with q = m/n
 *   (every other record neutral, the differing one sampled with probability m/n).
 * - Composition only adds outputs, and dropping outputs is post-processing, so a composition's δ
 *   is at least each part's (of one step, for SelfCompose of anything but Gaussians).
 *
 * Every function returns log δ (−∞ for "no bound"), computed in log space so that neither a
 * tiny σ nor ε near 700 overflows.
 *
 * @module
 */
import normalLogCdf from '@stdlib/stats-base-dists-normal-logcdf'
import type { PrivacyEvent } from '../../../src/mechanisms/event.js'

const logPhi = (x: number): number => normalLogCdf(x, 0, 1)

/** log(e^a − e^b) for a > b, −∞ otherwise (a lower bound may always drop to −∞). */
const logDiff = (a: number, b: number): number => {
  if (!(a > b)) return -Infinity
  if (b === -Infinity) return a
  const x = b - a
  return a + (x > -Math.LN2 ? Math.log(-Math.expm1(x)) : Math.log1p(-Math.exp(x)))
}

/** log(1 + e^x). */
const softplus = (x: number): number => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)))

/** log(e^x − 1), x ≥ 0 (−∞ at 0). */
const logExpm1 = (x: number): number => (x > 40 ? x + Math.log1p(-Math.exp(-x)) : Math.log(Math.expm1(x)))

/** 8-point Gauss–Legendre nodes and weights on [−1, 1]. */
const GL8: ReadonlyArray<readonly [number, number]> = [
  [-0.9602898564975363, 0.1012285362903763],
  [-0.7966664774136267, 0.2223810344533745],
  [-0.525532409916329, 0.3137066458778873],
  [-0.1834346424956498, 0.362683783378362],
  [0.1834346424956498, 0.362683783378362],
  [0.525532409916329, 0.3137066458778873],
  [0.7966664774136267, 0.2223810344533745],
  [0.9602898564975363, 0.1012285362903763],
]

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI)

/**
 * log δ(ε) of N(μ, 1) vs N(0, 1) (Balle & Wang 2018, Thm 8), written with a positive integrand so
 * that no subtraction of nearly equal numbers occurs anywhere: above the threshold t* = ε/μ + μ/2
 * of the likelihood ratio, φ(x − μ) − e^ε φ(x) = φ(x − μ)(1 − e^{−μ(x − t*)}), so with s = x − t*
 * and a = μ/2 − ε/μ (t* − μ = −a)
 *   δ(ε) = ∫_0^∞ φ(s − a)(1 − e^{−μs}) ds,
 * integrated in log space by 8-point Gauss–Legendre on geometric panels from the scale of the
 * smallest feature (1/μ, 1/|a|) out to where φ(s − a) is below e^{−800} of its peak. For a > 8 the
 * bound δ ≥ Φ(8)(1 − e^{−μ(a − 8)}) (the integral over s ≥ a − 8) is used, a lower bound (only
 * lower bounds are needed) far above every δ ≤ ½ asked.
 */
export const gaussianLogDelta = (mu: number, epsilon: number): number => {
  if (epsilon === Infinity || mu === 0) return -Infinity
  if (mu === Infinity) return 0
  const a = mu / 2 - epsilon / mu
  if (Number.isNaN(a)) return -Infinity
  if (a > 8) return logPhi(8) + Math.log(-Math.expm1(-mu * (a - 8)))
  const end = Math.max(a, 0) + 40
  let lo = 1e-3 * Math.min(1, 1 / mu, 1 / Math.max(1, Math.abs(a)))
  const terms: number[] = []
  const panel = (l: number, h: number): void => {
    const c = (l + h) / 2
    const w = (h - l) / 2
    for (const [x, wt] of GL8) {
      const t = c + w * x
      terms.push(Math.log(wt * w) - ((t - a) * (t - a)) / 2 - LOG_SQRT_2PI + Math.log(-Math.expm1(-mu * t)))
    }
  }
  panel(0, lo)
  while (lo < end) {
    const hi = Math.min(end, lo * 1.5)
    panel(lo, hi)
    lo = hi
  }
  let m = -Infinity
  for (const x of terms) if (x > m) m = x
  if (m === -Infinity) return -Infinity
  let sum = 0
  for (const x of terms) sum += Math.exp(x - m)
  return m + Math.log(sum)
}

/** log δ(ε) of Lap(1, b) vs Lap(0, b). */
export const laplaceLogDelta = (b: number, epsilon: number): number => {
  if (epsilon === Infinity || b === Infinity) return -Infinity
  const eps0 = 1 / b
  if (!(epsilon < eps0)) return -Infinity
  const x = (epsilon - eps0) / 2 // log(1 − e^x), x < 0
  return x > -Math.LN2 ? Math.log(-Math.expm1(x)) : Math.log1p(-Math.exp(x))
}

/** log δ(ε) of k-ary randomized response with ε₀ (two rows of its matrix). */
export const rrLogDelta = (eps0: number, k: number, epsilon: number): number => {
  if (!(epsilon < eps0)) return -Infinity
  if (eps0 === Infinity) return 0
  const logDen = eps0 > Math.log(k - 1) ? eps0 + Math.log1p((k - 1) * Math.exp(-eps0)) : Math.log(k - 1) + Math.log1p(Math.exp(eps0) / (k - 1))
  return logDiff(eps0, epsilon) - logDen
}

/** log δ(ε) lower bound for the discrete Gaussian σ shifted by 1 (the set {1}). */
export const discreteGaussianLogDelta = (sigma: number, epsilon: number): number => {
  if (sigma === Infinity || epsilon === Infinity) return -Infinity
  const c = 1 / (2 * sigma * sigma) // e^{−c} = e^{−1/(2σ²)}
  if (!(epsilon < c)) return -Infinity
  // log Z ≤ log(1 + 2e^{−c}/(1 − e^{−c})).
  const logZ = c === Infinity ? 0 : softplus(Math.LN2 - c - Math.log(-Math.expm1(-c)))
  const x = epsilon - c
  return (x > -Math.LN2 ? Math.log(-Math.expm1(x)) : Math.log1p(-Math.exp(x))) - logZ
}

/** ε' with e^{ε'} = 1 + (e^ε − 1)/q: the base pair's ε seen through Poisson sampling at rate q. */
export const sampledEpsilon = (q: number, epsilon: number): number =>
  epsilon === Infinity ? Infinity : softplus(logExpm1(epsilon) - Math.log(q))

/** Σ μ_i² when the tree is a composition of Gaussians and zCDP guarantees only, else undefined. */
const gaussianMuSquared = (e: PrivacyEvent): number | undefined => {
  switch (e._tag) {
    case 'Gaussian': {
      const mu = e.sensitivity / e.sigma
      return mu * mu
    }
    case 'ZCDP':
      return 2 * e.rho
    case 'NoOp':
      return 0
    case 'Labeled':
      return gaussianMuSquared(e.event)
    case 'SelfCompose': {
      if (e.count === 0) return 0
      const m = gaussianMuSquared(e.event)
      return m === undefined ? undefined : m === 0 ? 0 : e.count * m
    }
    case 'Compose': {
      let s = 0
      for (const c of e.events) {
        const m = gaussianMuSquared(c)
        if (m === undefined) return undefined
        s += m
      }
      return s
    }
    default:
      return undefined
  }
}

/**
 * log of a lower bound on the true δ(ε) of `e` (leaves stated under the relation the accountant
 * uses; PoissonSample under add/remove, SampleWithoutReplacement under replace-one).
 */
export const logDeltaLower = (e: PrivacyEvent, epsilon: number): number => {
  if (epsilon === Infinity) return -Infinity
  const mu2 = gaussianMuSquared(e)
  if (mu2 !== undefined) return gaussianLogDelta(Math.sqrt(mu2), epsilon)
  switch (e._tag) {
    case 'Laplace':
      return laplaceLogDelta(e.scale / e.sensitivity, epsilon)
    case 'RandomizedResponse':
      return rrLogDelta(e.epsilon, e.k, epsilon)
    case 'PureDP':
      return rrLogDelta(e.epsilon, 2, epsilon)
    case 'ApproxDP': {
      // δ₀ + (1 − δ₀)·RR₂(ε₀) ≥ max(δ₀, RR₂(ε₀)).
      const d0 = e.delta === 0 ? -Infinity : Math.log(e.delta)
      return Math.max(d0, rrLogDelta(e.epsilon, 2, epsilon))
    }
    case 'Exponential':
      return rrLogDelta(e.epsilon / 2, 2, epsilon)
    case 'BitwiseRandomizedResponse':
      return e.bits === 0 ? -Infinity : rrLogDelta(Math.abs(Math.log1p(-e.flipProbability) - Math.log(e.flipProbability)), 2, epsilon)
    case 'DiscreteLaplace':
      return rrLogDelta(1 / e.scale, 2, epsilon)
    case 'DiscreteGaussian':
      return discreteGaussianLogDelta(e.sigma, epsilon)
    case 'NonPrivate':
      return 0
    case 'Labeled':
      return logDeltaLower(e.event, epsilon)
    case 'SelfCompose':
      return e.count === 0 ? -Infinity : logDeltaLower(e.event, epsilon)
    case 'Compose':
      return e.events.reduce((m, c) => Math.max(m, logDeltaLower(c, epsilon)), -Infinity)
    case 'PoissonSample':
      return e.q >= 1 ? logDeltaLower(e.event, epsilon) : Math.log(e.q) + logDeltaLower(e.event, sampledEpsilon(e.q, epsilon))
    case 'SampleWithoutReplacement': {
      const g = e.m / e.n
      return g >= 1 ? logDeltaLower(e.event, epsilon) : Math.log(g) + logDeltaLower(e.event, sampledEpsilon(g, epsilon))
    }
    default:
      return -Infinity
  }
}

/**
 * The largest ε with `logDelta(ε)` above `logTarget` (a decreasing function), by bisection to a
 * relative 1e-15 from the bracket [0, hi]; `hi` grows ×16 from `start` until it is satisfied.
 */
const invert = (logDelta: (epsilon: number) => number, logTarget: number, start = 1): number => {
  if (!(logDelta(0) > logTarget)) return 0
  let hi = Math.max(start, Number.MIN_VALUE)
  while (logDelta(hi) > logTarget) {
    if (hi >= Number.MAX_VALUE) return Infinity
    hi = Math.min(Number.MAX_VALUE, hi * 16)
  }
  let lo = 0
  for (let i = 0; i < 2200 && hi - lo > 1e-15 * hi; i++) {
    const mid = lo + (hi - lo) / 2
    if (mid <= lo || mid >= hi) break
    if (logDelta(mid) > logTarget) lo = mid
    else hi = mid
  }
  return lo
}

/** log(1 − x) for x ∈ [0, 1]. */
const log1m = (x: number): number => Math.log1p(-x)

/** ε below which binary-or-k-ary RR with ε₀ has δ(ε) > δ: ε₀ + log(1 − δ(1 + (k − 1)e^{−ε₀})). */
const rrEpsilon = (eps0: number, k: number, delta: number): number => {
  if (eps0 === Infinity) return Infinity
  const x = delta * (1 + (k - 1) * Math.exp(-eps0))
  return x >= 1 ? 0 : Math.max(0, eps0 + log1m(x))
}

/**
 * A lower bound on the true ε at δ of `e` — the ε below which the pairs of `logDeltaLower` have
 * δ(ε) > δ — solved in closed form where the pair allows, by bisection for the Gaussian.
 */
export const epsilonLower = (e: PrivacyEvent, delta: number): number => {
  if (!(delta < 1)) return 0
  const mu2 = gaussianMuSquared(e)
  if (mu2 !== undefined) {
    const mu = Math.sqrt(mu2)
    // Start from the zCDP bound μ²/2 + μ√(2 log(1/δ)) (Bun & Steinke 2016, Prop. 1.3), above the truth.
    const start = (mu * mu) / 2 + mu * Math.sqrt(2 * -Math.log(delta))
    return mu === 0 ? 0 : invert((x) => gaussianLogDelta(mu, x), Math.log(delta), start)
  }
  switch (e._tag) {
    case 'Laplace': {
      const eps0 = e.sensitivity / e.scale // 1 − e^{(ε − ε₀)/2} ≤ δ ⇔ ε ≥ ε₀ + 2 log(1 − δ)
      return eps0 === Infinity ? Infinity : Math.max(0, eps0 + 2 * log1m(delta))
    }
    case 'RandomizedResponse':
      return rrEpsilon(e.epsilon, e.k, delta)
    case 'PureDP':
      return rrEpsilon(e.epsilon, 2, delta)
    case 'ApproxDP':
      // δ₀ + (1 − δ₀)RR₂(ε) ≤ δ ⇔ RR₂(ε) ≤ (δ − δ₀)/(1 − δ₀); no finite ε once δ₀ > δ.
      return e.delta > delta ? Infinity : rrEpsilon(e.epsilon, 2, (delta - e.delta) / (1 - e.delta))
    case 'Exponential':
      return rrEpsilon(e.epsilon / 2, 2, delta)
    case 'BitwiseRandomizedResponse':
      return e.bits === 0 ? 0 : rrEpsilon(Math.abs(Math.log1p(-e.flipProbability) - Math.log(e.flipProbability)), 2, delta)
    case 'DiscreteLaplace':
      return rrEpsilon(1 / e.scale, 2, delta)
    case 'DiscreteGaussian':
      return invert((x) => discreteGaussianLogDelta(e.sigma, x), Math.log(delta))
    case 'NonPrivate':
      return Infinity
    case 'Labeled':
      return epsilonLower(e.event, delta)
    case 'SelfCompose':
      return e.count === 0 ? 0 : epsilonLower(e.event, delta)
    case 'Compose':
      return e.events.reduce((m, c) => Math.max(m, epsilonLower(c, delta)), 0)
    case 'PoissonSample':
      return e.q >= 1 ? epsilonLower(e.event, delta) : sampledLower(e.q, e.event, delta)
    case 'SampleWithoutReplacement': {
      const g = e.m / e.n
      return g >= 1 ? epsilonLower(e.event, delta) : sampledLower(g, e.event, delta)
    }
    default:
      return 0
  }
}

/**
 * q·δ_in(ε') > δ ⇔ δ_in(ε') > δ/q ⇔ ε' below the inner bound at δ/q; then e^ε = 1 + q(e^{ε'} − 1).
 */
const sampledLower = (q: number, inner: PrivacyEvent, delta: number): number => {
  const dIn = delta / q
  if (!(dIn < 1)) return 0
  const epsIn = epsilonLower(inner, dIn)
  return epsIn === Infinity ? Infinity : softplus(Math.log(q) + logExpm1(epsIn))
}

/**
 * Relative slack granted to an answer before it is checked: about 450 ulps, above the floating-point noise
 * of evaluating δ(ε) near ε = μ²/2 for μ = Δ/σ up to 1e150 (here and in any accountant). Errors
 * that this issue is about (0 for 10¹⁶, ∞ for 1e-3) are many orders of magnitude larger.
 */
export const EPSILON_SLACK = 1e-13
/** Slack on log δ (a relative 1e-6 on δ). */
export const LOG_DELTA_SLACK = 1e-6

const LOG_MIN_VALUE = Math.log(Number.MIN_VALUE)

/**
 * Why an ε answered at δ is below the lower bound, or undefined when it is not. An answer below
 * the bound by more than EPSILON_SLACK is a violation only if the bound's own pairs, evaluated at
 * that answer, need a δ above the one asked (beyond a relative 1e-9): where δ(ε) is flat — δ just
 * above δ(0), or an ε that is itself ~1e-16 — a few ulps of ε are below anyone's resolution.
 */
export const epsilonViolation = (e: PrivacyEvent, delta: number, epsilon: number): string | undefined => {
  if (Number.isNaN(epsilon) || epsilon < 0) return `ε = ${epsilon} is not a number ≥ 0`
  if (epsilon === Infinity) return undefined
  const lb = epsilonLower(e, delta)
  if (epsilon >= lb * (1 - EPSILON_SLACK)) return undefined
  const need = logDeltaLower(e, epsilon)
  return need > Math.log(delta) + 1e-9
    ? `ε = ${epsilon} at δ = ${delta}, but the true ε is at least ${lb} (at ε = ${epsilon} the true δ is at least e^${need} = ${Math.exp(need)})`
    : undefined
}

/** Why a δ answered at ε is below the lower bound, or undefined when it is not (ε raised by the slack). */
export const deltaViolation = (e: PrivacyEvent, epsilon: number, delta: number): string | undefined => {
  if (Number.isNaN(delta) || delta < 0 || delta > 1) return `δ = ${delta} is not a number in [0, 1]`
  const lb = logDeltaLower(e, epsilon * (1 + EPSILON_SLACK))
  // A true δ below the least positive double (e^{−2409}, say) is 0 in floating point: not a violation.
  if (lb < LOG_MIN_VALUE) return undefined
  return lb > Math.log(delta) + LOG_DELTA_SLACK
    ? `δ = ${delta} at ε = ${epsilon}, but the true δ is at least e^${lb} = ${Math.exp(lb)}`
    : undefined
}
