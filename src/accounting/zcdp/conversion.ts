/**
 * zCDP → (ε, δ)-DP conversions (Bun & Steinke 2016). (ξ, ρ)-zCDP means D_α(M(x) ‖ M(x′)) ≤ ξ + αρ for
 * every α > 1 (Def. 1.1; ξ = 0 is ρ-zCDP), so every order gives a valid (ε, δ) and we may optimise
 * over a continuous α:
 * - classic: ε = ξ + ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3, stated for (ξ, ρ));
 * - tight: ε = min over real α > 1 of the Canonne–Kamath–Steinke conversion of (α, ξ + αρ)-RDP
 *   (CKS 2020, Prop. 12 / Cor. 13), evaluated by `rdpEpsilonAtOrder`;
 * - ρ = 0: D_α ≤ ξ at every order, so D_∞ ≤ ξ: pure ξ-DP, ε = ξ at every δ.
 * Every function takes ξ last, defaulting to 0.
 * The tight form is never worse: at α − 1 = √(log(1/δ)/ρ) its value is the classic one minus
 * log(α)/(α − 1) − log(1 − 1/α) ≥ 0, and that α is always among the candidates.
 *
 * @module
 */
import { goldenMin } from '../../core/numeric.js'
import { rdpDeltaAtOrder, rdpEpsilonAtOrder } from '../conversions.js'

/** One conversion result with the order it was obtained at (none for closed forms). */
export interface ZcdpEpsilon {
  readonly epsilon: number
  readonly order?: number
  readonly method: string
}

export interface ZcdpDelta {
  readonly delta: number
  readonly order?: number
  readonly method: string
}

const CLASSIC = 'zCDP → (ε,δ) by Bun & Steinke 2016, Prop. 1.3: ξ + ρ + 2√(ρ log(1/δ))'
const PURE_XI = '(ξ, 0)-zCDP: D_α ≤ ξ at every order, so pure ξ-DP (D_∞ = sup_α D_α)'
const tightMethod = (alpha: number): string =>
  `zCDP → (ε,δ) by Canonne, Kamath & Steinke 2020, Prop. 12 at the continuous order α = ${alpha.toPrecision(6)}`

/** Orders are searched as u = log(α − 1) over [min(u₀ − SPAN, U_MIN), max(u₀ + SPAN, U_MAX)], step GRID_STEP. */
const SPAN = 10
const U_MIN = -32
const U_MAX = 8
const U_CENTRE_MAX = 600
const GRID_STEP = 0.1
/** Near α = 1 the Bretagnolle–Huber rule of `rdpEpsilonAtOrder` can give ε = 0 outright. */
const ALPHA_NEAR_ONE = 1 + 1e-9

/**
 * Minimises f(α) over real α > 1 as a function of u = log(α − 1): a log-spaced grid around u₀
 * (see the constants above), then golden-section refinement between the best grid point's neighbours,
 * plus the extra candidates. The grid matters: the Bretagnolle–Huber cap inside the RDP kernels
 * can make f bimodal (a minimum near α = 1 and one at the CKS optimum). Returns the best α seen;
 * every α is a valid order, so a missed optimum costs tightness, never soundness.
 */
const minimiseOverOrders = (
  f: (alpha: number) => number,
  u0: number,
  extra: ReadonlyArray<number>,
): { readonly value: number; readonly order: number } => {
  let best = { value: Infinity, order: Number.NaN }
  const consider = (alpha: number): void => {
    if (!(alpha > 1) || !Number.isFinite(alpha)) return
    const v = f(alpha)
    if (v < best.value) best = { value: v, order: alpha }
  }
  for (const a of extra) consider(a)
  // The optimum sits near α = 1 when ρ is large, so the grid always reaches α − 1 = e^{−32}; the
  // centre is clamped so a denormal ρ (centre α = ∞) cannot make the grid unbounded.
  const uc = Math.min(U_CENTRE_MAX, Math.max(U_MIN, Number.isNaN(u0) ? 0 : u0))
  const uLo = Math.min(uc - SPAN, U_MIN)
  const uHi = Math.max(uc + SPAN, U_MAX)
  const steps = Math.ceil((uHi - uLo) / GRID_STEP)
  let bestI = 0
  let bestV = Infinity
  for (let i = 0; i <= steps; i++) {
    const v = f(1 + Math.exp(uLo + i * GRID_STEP))
    if (v < bestV) {
      bestV = v
      bestI = i
    }
  }
  consider(1 + Math.exp(uLo + bestI * GRID_STEP))
  const g = goldenMin((u) => f(1 + Math.exp(u)), uLo + (bestI - 1) * GRID_STEP, uLo + (bestI + 1) * GRID_STEP, 1e-13)
  consider(1 + Math.exp(g.x))
  return best
}

/** Classic conversion ξ + ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3). NaN outside ρ, ξ ≥ 0, δ ∈ (0, 1]. */
export const zcdpEpsilonClassic = (rho: number, delta: number, xi = 0): number => {
  if (!(rho >= 0) || !(xi >= 0) || !(delta > 0 && delta <= 1)) return Number.NaN
  if (rho === Infinity || xi === Infinity) return Infinity
  return xi + rho + 2 * Math.sqrt(rho * -Math.log(delta))
}

/** Best ε over real orders α > 1 of the CKS conversion, with the order that attains it. */
export const zcdpEpsilonTightAt = (rho: number, delta: number, xi = 0): { readonly epsilon: number; readonly order: number } => {
  if (!(rho >= 0) || !(xi >= 0) || !(delta > 0 && delta <= 1)) return { epsilon: Number.NaN, order: Number.NaN }
  if (rho === Infinity || xi === Infinity) return { epsilon: Infinity, order: Number.NaN }
  if (rho === 0) return { epsilon: xi, order: Number.NaN } // pure ξ-DP (see the module comment)
  const L = -Math.log(delta)
  const f = (alpha: number): number => {
    const v = rdpEpsilonAtOrder(alpha, xi + alpha * rho, delta)
    return Number.isNaN(v) ? Infinity : v // an order the kernel refuses is simply not a candidate
  }
  // Every candidate α > 1 gives a valid ε, so taking the minimum over them is sound.
  const a0 = L > 0 ? 1 + Math.sqrt(L / rho) : ALPHA_NEAR_ONE
  const best = minimiseOverOrders(f, Math.log(a0 - 1), [a0, ALPHA_NEAR_ONE])
  return { epsilon: best.value, order: best.order }
}

/** Tight ε (CKS 2020, Prop. 12, optimised over real α). */
export const zcdpEpsilonTight = (rho: number, delta: number, xi = 0): number => zcdpEpsilonTightAt(rho, delta, xi).epsilon

/** The tighter of the classic and tight conversions, with the method that gave it. */
export const zcdpToEpsilon = (rho: number, delta: number, xi = 0): ZcdpEpsilon => {
  if (rho === Infinity || xi === Infinity) return { epsilon: Infinity, method: 'ρ = ∞ or ξ = ∞: no zCDP guarantee' }
  if (rho === 0) return xi === 0 ? { epsilon: 0, method: 'ρ = 0: the release is independent of the data' } : { epsilon: xi, method: PURE_XI }
  const classic = zcdpEpsilonClassic(rho, delta, xi)
  const tight = zcdpEpsilonTightAt(rho, delta, xi)
  return tight.epsilon <= classic
    ? { epsilon: tight.epsilon, order: tight.order, method: tightMethod(tight.order) }
    : { epsilon: classic, method: CLASSIC }
}

/** Classic δ at ε: Prop. 1.3 solved for δ, exp(−(ε − ξ − ρ)²/(4ρ)) when ε > ξ + ρ, else 1. */
export const zcdpDeltaClassic = (rho: number, epsilon: number, xi = 0): number => {
  if (!(rho >= 0) || !(xi >= 0) || !(epsilon >= 0)) return Number.NaN
  if (epsilon === Infinity) return 0
  if (rho === 0) return epsilon >= xi ? 0 : 1
  if (rho === Infinity || epsilon <= xi + rho) return 1
  const t = epsilon - xi - rho
  return Math.exp(-(t * t) / (4 * rho))
}

/** Best δ over real orders of the CKS conversion (Prop. 12 solved for δ), with the order. */
export const zcdpDeltaTightAt = (rho: number, epsilon: number, xi = 0): { readonly delta: number; readonly order: number } => {
  if (!(rho >= 0) || !(xi >= 0) || !(epsilon >= 0)) return { delta: Number.NaN, order: Number.NaN }
  if (epsilon === Infinity || (rho === 0 && epsilon >= xi)) return { delta: 0, order: Number.NaN }
  if (rho === Infinity || xi === Infinity) return { delta: 1, order: Number.NaN }
  const f = (alpha: number): number => {
    const v = rdpDeltaAtOrder(alpha, xi + alpha * rho, epsilon)
    return Number.isNaN(v) ? Infinity : Math.log(v)
  }
  // Search centre (only a starting point): the stationary point of the CKS δ solves
  // (2α − 1)ρ + log(1 − 1/α) = ε, roughly α ≈ (1 + ε/ρ)/2 when ε ≫ ρ and α ≈ 1/√(2ρ) when ε ≪ ρ.
  const a0 = rho === 0 ? 1e3 : Math.max((1 + Math.max(0, epsilon - xi) / rho) / 2, 1 + 1 / Math.sqrt(2 * rho))
  const best = minimiseOverOrders(f, Math.log(a0 - 1), [a0, ALPHA_NEAR_ONE])
  return { delta: Math.min(1, Math.exp(best.value)), order: best.order }
}

/** The tighter δ of the two conversions. */
export const zcdpDelta = (rho: number, epsilon: number, xi = 0): number => zcdpToDelta(rho, epsilon, xi).delta

/** The tighter δ of the classic and tight conversions, with the method that gave it. */
export const zcdpToDelta = (rho: number, epsilon: number, xi = 0): ZcdpDelta => {
  if (rho === 0 && xi === 0) return { delta: 0, method: 'ρ = 0: the release is independent of the data' }
  if (rho === 0 && epsilon >= xi) return { delta: 0, method: PURE_XI }
  if (rho === Infinity || xi === Infinity) return { delta: epsilon === Infinity ? 0 : 1, method: 'ρ = ∞ or ξ = ∞: no zCDP guarantee' }
  const classic = zcdpDeltaClassic(rho, epsilon, xi)
  const tight = zcdpDeltaTightAt(rho, epsilon, xi)
  // With ρ > 0 and finite ε the true δ is positive: an underflow reports the least positive double.
  const floor = (d: number): number => (epsilon === Infinity ? d : Math.max(d, Number.MIN_VALUE))
  return tight.delta <= classic
    ? { delta: floor(tight.delta), order: tight.order, method: tightMethod(tight.order) }
    : { delta: floor(classic), method: CLASSIC }
}
