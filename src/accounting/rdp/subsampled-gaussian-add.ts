/**
 * The add direction of the Poisson-subsampled Gaussian, D_α(μ₀‖μ) with μ₀ = N(0, σ²) and
 * μ = (1 − q)μ₀ + qN(1, σ²) — Mironov, Talwar & Zhang 2019, §3: B_α = E_{z∼μ}[(μ₀/μ)^α] =
 * E_{t∼N(0,1)}[r(t)^{1−α}] with r(t) = 1 − q + q·e^{t/σ − 1/(2σ²)}, and D_α = log B_α/(α − 1); their
 * Thm 5 shows B_α ≤ A_α (the remove direction).
 *
 * Computed as a rigorous upper bound, not an approximation: f(t) = r(t)^{1−α} is decreasing in t and
 * bounded by (1 − q)^{1−α}, so on cells [t_i, t_{i+1}) of a grid f ≤ f(t_i), and with the exact normal
 * masses of the cells (log-space, @stdlib's normal logcdf)
 *   B_α ≤ Φ(t_0)(1 − q)^{1−α} + Σ_i P(t_i ≤ T < t_{i+1}) f(t_i) + (1 − Φ(t_N)) f(t_N)
 * (an upper Darboux sum with exact tails). The lower Darboux sum is returned beside it, so tests can
 * see the gap. The grid is fixed (4096 cells on [−12, 12]): the bound is loose by the variation of f
 * over one cell, which grows with α; the caller takes the minimum with A_α and −log(1 − q).
 *
 * @module
 */
import logcdf from '@stdlib/stats-base-dists-normal-logcdf'
import { logSumExp, roundUpLoss } from '../../core/numeric.js'

const HALF_WIDTH = 12
const CELLS = 4096

/** log(Φ(b) − Φ(a)) for a < b, without cancellation (the smaller tail side is used). */
const logMass = (a: number, b: number): number => {
  if (b <= 0) {
    const lb = logcdf(b, 0, 1)
    return lb + Math.log1p(-Math.exp(logcdf(a, 0, 1) - lb))
  }
  if (a >= 0) return logMass(-b, -a)
  return Math.log(1 - Math.exp(logcdf(a, 0, 1)) - Math.exp(logcdf(-b, 0, 1)))
}

/** The cell masses and log r at the cell edges of one (q, σ), shared across orders. */
export interface AddDirectionIntegral {
  /** Upper (the bound) and lower Darboux values of D_α(μ₀‖μ) at an order α > 1. */
  readonly at: (alpha: number) => { readonly upper: number; readonly lower: number }
}

/** The grid for one (q, σ): cell masses and log r at the edges, then D_α bounds at any order α > 1. */
export const sampledGaussianAddDirection = (q: number, sigma: number): AddDirectionIntegral => {
  const h = (2 * HALF_WIDTH) / CELLS
  const logR = new Float64Array(CELLS + 1)
  const logM = new Float64Array(CELLS)
  const l1q = Math.log1p(-q)
  const shift = 1 / (2 * sigma * sigma)
  for (let i = 0; i <= CELLS; i++) {
    const t = -HALF_WIDTH + i * h
    const u = t / sigma - shift
    // log(1 − q + qe^u), accurately on both sides
    logR[i] = u < 0 ? Math.log1p(q * Math.expm1(u)) : u + Math.log(q + (1 - q) * Math.exp(-u))
  }
  for (let i = 0; i < CELLS; i++) logM[i] = logMass(-HALF_WIDTH + i * h, -HALF_WIDTH + (i + 1) * h)
  const logLeft = logcdf(-HALF_WIDTH, 0, 1)
  const logRight = logLeft // symmetric tail
  const up = new Float64Array(CELLS + 2)
  const lo = new Float64Array(CELLS + 2)
  return {
    at: (alpha) => {
      const k = 1 - alpha
      for (let i = 0; i < CELLS; i++) {
        up[i] = (logM[i] as number) + k * (logR[i] as number)
        lo[i] = (logM[i] as number) + k * (logR[i + 1] as number)
      }
      // left tail: f ≤ (1 − q)^{1−α} (upper), ≥ f(t_0) (lower); right tail: f ≤ f(t_N), ≥ 0
      up[CELLS] = logLeft + k * l1q
      up[CELLS + 1] = logRight + k * (logR[CELLS] as number)
      lo[CELLS] = logLeft + k * (logR[0] as number)
      lo[CELLS + 1] = -Infinity
      const upper = Math.max(0, logSumExp(up)) / (alpha - 1)
      const lower = Math.max(0, logSumExp(lo)) / (alpha - 1)
      return { upper: roundUpLoss(upper, 1e-10), lower }
    },
  }
}
