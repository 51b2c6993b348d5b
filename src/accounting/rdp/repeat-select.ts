/**
 * Private selection by repetition (hyperparameter tuning): run a mechanism K times, K random, and
 * release only the best run. RDP of the whole from the RDP of one run — Papernot & Steinke 2022,
 * "Hyperparameter tuning with Rényi differential privacy" (arXiv 2110.03620v2), parameterised as
 * dp_accounting's RepeatAndSelectDpEvent by the mean μ = E[K] and a shape η:
 *
 * - truncated negative binomial K (η ≥ 0 finite; η = 1 geometric, η = 0 logarithmic), their Thm 2:
 *   if one run is (λ, ε(λ))-RDP and (λ̂, ε(λ̂))-RDP, the selection is (λ, ε′)-RDP with
 *     ε′ = ε(λ) + (1 + η)(1 − 1/λ̂)ε(λ̂) + (1 + η)log(1/γ)/λ̂ + log(μ)/(λ − 1),
 *   γ the TNB's parameter with mean μ (Def. 1 there: μ = η(1 − γ)/(γ(1 − γ^η)), 1/γ for η = 1,
 *   (1/γ − 1)/log(1/γ) for η = 0); λ̂ is free, so the minimum over the grid (and λ̂ → ∞, where the
 *   term tends to (1 + η)ε_∞, the pure ε) is taken;
 * - Poisson K (η = ∞), their Thm 6: ε′ = ε(λ) + μ·δ̂ + log(μ)/(λ − 1), where one run is
 *   (ε̂, δ̂)-DP at ε̂ = log(1 + 1/(λ − 1)) (δ̂ from the run's RDP curve by CKS 2020 Prop. 12, or 0
 *   when its pure ε is at most ε̂).
 * RDP is non-decreasing in λ (van Erven & Harremoës 2014, Thm 3), so each order then takes the least
 * bound at any order at or above it (as dp_accounting does). Pure DP: letting λ → ∞ and λ̂ → ∞ in
 * Thm 2 (D_∞ = lim D_λ) gives (2 + η)ε_∞ — for the geometric number of runs 3ε, Liu & Talwar 2019,
 * "Private selection from private candidates", their random-stopping theorem; λ → ∞ in Thm 6 gives
 * ε_∞ + μ·tanh(ε_∞/2) for Poisson (../dp/selection.ts).
 *
 * @module
 */
import { klDeltaBound } from '../conversions.js'
import { roundUpLoss } from '../../core/numeric.js'
import { floatsKey } from '../value-key.js'
import { kept, keptOr } from './kept.js'

/** The mean of the truncated negative binomial with parameters (γ, η) (PS 2022, Def. 1). */
export const tnbMean = (gamma: number, shape: number): number => {
  if (gamma >= 1) return 1
  if (shape === 1) return 1 / gamma
  const logG = Math.log(gamma)
  // η = 0: (1 − γ)/(γ log(1/γ)); η > 0: η(1 − γ)/(γ(1 − γ^η)) with 1 − γ^η = −expm1(η log γ).
  return shape === 0 ? (1 - gamma) / (-gamma * logG) : (shape * (1 - gamma)) / (gamma * -Math.expm1(shape * logG))
}

/**
 * γ of the truncated negative binomial of shape η with mean μ ≥ 1 (the mean falls as γ rises), by
 * bisection, returned on the small side: a smaller γ makes log(1/γ) and so the bound larger (sound).
 */
export const tnbGamma = (shape: number, mean: number): number => {
  if (mean <= 1) return 1
  if (shape === 1) return (1 / mean) * (1 - 4 * Number.EPSILON)
  let lo = 0
  let hi = Math.min(1, (2 * (shape + 1)) / mean) // μ ≤ 2(η + 1)/γ (dp_accounting's bracket)
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = (lo + hi) / 2
    if (tnbMean(mid, shape) < mean) hi = mid
    else lo = mid
  }
  return lo * (1 - 1e-9)
}

/** One run's curve: values at `orders` (ascending), its pure ε (∞ when none). */
export interface RunCurve {
  readonly orders: ReadonlyArray<number>
  readonly values: ArrayLike<number>
  readonly pureEpsilon: number
}

/** The bound's ingredients on the wide grid, computed once per run curve (they do not depend on `at`). */
interface WideEnvelope {
  /** Thm 2's (1 + η)·min over λ̂ (∞ for Poisson, unused). */
  readonly c: number
  /** δ̂(ε) of one run from the wide curve (Thm 6). */
  readonly delta: (eps: number) => number
  /** The bound at each wide order, then its minimum over that order and every larger one. */
  readonly suffix: Float64Array
}

/**
 * Envelopes of the last run curve met (identity) by parameters, for the folds of one query and its
 * order search, and by value across folds (./kept.ts): each query folds in fresh contexts, whose
 * wide curve is a new array of the same values. The last curve only, held strongly: a module-wide
 * WeakMap by curve kept every query's envelopes alive through each scavenge (see the accountant's
 * `evaluatorOf`).
 */
let lastWide: { readonly values: ArrayLike<number>; readonly byParams: Map<string, WideEnvelope> } | undefined
const KEPT_ENVELOPES = kept<WideEnvelope>(64)

const wideEnvelope = (wide: RunCurve, mean: number, shape: number): WideEnvelope => {
  const key = `${mean}|${shape}|${wide.pureEpsilon}`
  if (lastWide?.values !== wide.values) lastWide = { values: wide.values, byParams: new Map() }
  const { byParams } = lastWide
  const hit = byParams.get(key)
  if (hit !== undefined) return hit
  // Same-length bit strings of the orders and the values: the key of exactly these values.
  const valueKey = `${key}|${floatsKey(wide.orders)}${floatsKey(wide.values)}`
  const env = keptOr(KEPT_ENVELOPES, valueKey, () => makeEnvelope(wide, mean, shape))
  byParams.set(key, env)
  return env
}

const makeEnvelope = (wide: RunCurve, mean: number, shape: number): WideEnvelope => {
  let c = Infinity
  if (shape !== Infinity) {
    // Thm 2's λ̂ term, minimised over the wide grid and λ̂ → ∞ (the pure ε).
    const logInvGamma = -Math.log(tnbGamma(shape, mean))
    let m = wide.pureEpsilon
    for (let j = 0; j < wide.orders.length; j++) {
      const lh = wide.orders[j] as number
      const v = (1 - 1 / lh) * (wide.values[j] as number) + logInvGamma / lh
      if (v < m) m = v
    }
    c = (1 + shape) * m
  }
  const n = wide.orders.length
  const suffix = new Float64Array(n)
  const delta = shape === Infinity ? runDelta(wide) : () => 1
  for (let j = n - 1; j >= 0; j--) {
    const alpha = wide.orders[j] as number
    const eps = wide.values[j] as number
    // Thm 6's bound is at least ε(α) + log(μ)/(α − 1) (δ̂ ≥ 0): where that is already no smaller than
    // the suffix to the right, the minimum is that suffix whatever δ̂ is, so δ̂ (a pass over the
    // grid) is not computed. The same bits as computing it.
    if (j < n - 1 && shape === Infinity && eps + Math.log(mean) / (alpha - 1) >= (suffix[j + 1] as number)) {
      suffix[j] = suffix[j + 1] as number
      continue
    }
    const b = boundAt(wide, delta, alpha, eps, c, mean, shape)
    suffix[j] = j === n - 1 ? b : Math.min(b, suffix[j + 1] as number)
  }
  return { c, delta, suffix }
}

/** Thm 2 or Thm 6 at one order α for a run with ε(α) = eps. */
const boundAt = (
  wide: RunCurve,
  deltaOf: (eps: number) => number,
  alpha: number,
  eps: number,
  c: number,
  mean: number,
  shape: number,
): number => {
  if (eps === Infinity) return Infinity
  if (shape === Infinity) {
    const epsHat = Math.log1p(1 / (alpha - 1))
    const deltaHat = wide.pureEpsilon <= epsHat ? 0 : deltaOf(epsHat)
    return eps + mean * deltaHat + Math.log(mean) / (alpha - 1)
  }
  return eps + c + Math.log(mean) / (alpha - 1)
}

/**
 * The selection's RDP bound at each order of `at`, from one run's curve on `at` and on a wider grid
 * `wide` (ascending) that supplies λ̂ (Thm 2), δ̂ (Thm 6) and the larger orders of the monotone
 * envelope. `shape` = ∞ is Poisson.
 */
export const repeatSelectCurve = (at: RunCurve, wide: RunCurve, mean: number, shape: number): Float64Array => {
  const env = wideEnvelope(wide, mean, shape)
  const out = new Float64Array(at.orders.length)
  // `at` ascending: the monotone envelope from the right over `at`, merged with the wide suffix.
  let right = Infinity
  let j = wide.orders.length
  for (let i = at.orders.length - 1; i >= 0; i--) {
    const a = at.orders[i] as number
    while (j > 0 && (wide.orders[j - 1] as number) >= a) j--
    const fromWide = j < wide.orders.length ? (env.suffix[j] as number) : Infinity
    // An order of the wide grid with the same value is already in the suffix (the grid case: no recomputation).
    const known = j < wide.orders.length && wide.orders[j] === a && wide.values[j] === at.values[i]
    right = Math.min(right, known ? fromWide : boundAt(wide, env.delta, a, at.values[i] as number, env.c, mean, shape), fromWide)
    out[i] = right
  }
  return out
}

/**
 * δ of one run at ε from its RDP curve: the least CKS δ over the grid (Canonne, Kamath & Steinke
 * 2020, Prop. 12), min over j of rdpDeltaAtOrder(λ_j, r_j, ε) = min(1, √(1 − e^{−r_j}) rounded up,
 * e^{x_j}) with x_j = (λ_j − 1)(r_j − ε + log(1 − 1/λ_j)) − log λ_j.
 *
 * Why not a loop over rdpDeltaAtOrder: Thm 6's envelope asks δ̂ at every order of the wide grid, a
 * grid × grid loop per run curve. Everything that does not depend on ε is computed once per curve;
 * e^x is increasing, so min_j e^{x_j} = e^{min_j x_j}; and x_j is affine in ε with slope −(λ_j − 1),
 * so min_j x_j is the lower envelope of lines, built once per curve (the convex-hull trick), and a
 * query reads the envelope's line at ε and its two neighbours (binary search): O(log n), not O(n).
 * Each x_j is the same floating-point expression as rdpDeltaAtOrder's, and the minimum is taken over
 * a subset of the orders, so the answer is never below the full loop's (each order's δ is a valid
 * bound on its own); it can exceed it only where the envelope's breakpoints, computed in floating
 * point, pick a line that ties the true minimum to rounding: at most 1e-12 relative
 * (test/accounting/events/repeat-select.test.ts checks both against the loop).
 */
export const runDelta = (c: RunCurve): ((eps: number) => number) => {
  const n = c.orders.length
  const am1 = new Float64Array(n)
  const l1 = new Float64Array(n)
  const la = new Float64Array(n)
  const r = new Float64Array(n)
  let live = 0
  let floor = 1 // min over the live orders of the ε-independent parts min(1, kl_j)
  for (let j = 0; j < n; j++) {
    const alpha = c.orders[j] as number
    const v = c.values[j] as number
    // rdpDeltaAtOrder gives NaN (never the minimum) for these, and 1 for r = ∞.
    if (!(alpha > 1) || Number.isNaN(v) || v < 0 || v === Infinity) continue
    floor = Math.min(floor, klDeltaBound(v))
    am1[live] = alpha - 1
    l1[live] = Math.log1p(-1 / alpha)
    la[live] = Math.log(alpha)
    r[live] = v
    live++
  }
  // The lower envelope of x_j(ε) = b_j − s_j·ε, s_j = λ_j − 1 ascending: hull[i] is the least line
  // from ε = from[i] on (steeper lines win at larger ε).
  const hull = new Int32Array(live)
  const from = new Float64Array(live)
  const b = new Float64Array(live)
  let h = 0
  for (let j = 0; j < live; j++) {
    const sj = am1[j] as number
    const bj = sj * ((r[j] as number) + (l1[j] as number)) - (la[j] as number)
    b[j] = bj
    let start = -Infinity
    let skip = false
    while (h > 0) {
      const top = hull[h - 1] as number
      const st = am1[top] as number
      if (sj === st) {
        // Parallel (a repeated order): the lower line wins everywhere.
        if (bj >= (b[top] as number)) {
          skip = true
          break
        }
        h--
        continue
      }
      const cross = (bj - (b[top] as number)) / (sj - st) // j is below top for ε > cross
      if (h > 1 && cross <= (from[h - 1] as number)) {
        h--
        continue
      }
      start = cross
      break
    }
    if (skip) continue
    hull[h] = j
    from[h] = start
    h++
  }
  const x = (j: number, eps: number): number => (am1[j] as number) * ((r[j] as number) - eps + (l1[j] as number)) - (la[j] as number)
  return (eps) => {
    if (!(eps >= 0)) return 1
    if (h === 0) return floor
    // The last i with from[i] ≤ ε.
    let lo = 0
    let hi = h - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((from[mid] as number) <= eps) lo = mid
      else hi = mid - 1
    }
    let m = x(hull[lo] as number, eps)
    if (lo > 0) m = Math.min(m, x(hull[lo - 1] as number, eps))
    if (lo + 1 < h) m = Math.min(m, x(hull[lo + 1] as number, eps))
    return Math.min(floor, Math.exp(m))
  }
}

/**
 * The selection's pure ε from the run's pure ε: (2 + η)ε for a TNB number of runs (Thm 2 as λ, λ̂ → ∞;
 * PS 2022, Cor. 3), and ε + μ·tanh(ε/2) for a Poisson number — Thm 6 as λ → ∞, δ̂ at most the run's
 * total variation, tanh(ε/2) for an ε-DP run (derivation in ../dp/selection.ts) — rounded up.
 */
export const repeatSelectPure = (pureEpsilon: number, mean: number, shape: number): number => {
  if (pureEpsilon === Infinity) return Infinity
  if (shape !== Infinity) return (2 + shape) * pureEpsilon
  return pureEpsilon === 0 ? 0 : roundUpLoss(pureEpsilon + mean * Math.tanh(pureEpsilon / 2))
}
