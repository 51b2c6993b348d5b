/**
 * The true ε of zoo mechanisms over the pairs they are audited on, computed independently of the
 * auditor: output probabilities by numerical integration (report noisy max, sparse vector) or in
 * closed form (exponential mechanism), then max over pairs and outputs of |ln P[o | D] − ln P[o | D′]|
 * (the definition of pure ε-DP restricted to those pairs). An output possible under one input and
 * not the other gives ∞.
 *
 * Integration: composite 5-point Gauss–Legendre on subintervals between the kinks and jumps of the
 * integrand (the breakpoints), with the range cut where the Laplace/exponential densities are below
 * e⁻⁶⁰ of their peak. Relative error well below 10⁻⁸ on these smooth pieces, far below the audits'
 * resolution.
 *
 * @module
 */

const GL_X = [-0.906179845938664, -0.5384693101056831, 0, 0.5384693101056831, 0.906179845938664]
const GL_W = [0.23692688505618908, 0.47862867049936647, 0.5688888888888889, 0.47862867049936647, 0.23692688505618908]

/** ∫_lo^hi f, split at the breakpoints, each piece into `pieces` Gauss–Legendre panels. */
export const integrate = (f: (x: number) => number, lo: number, hi: number, breaks: ReadonlyArray<number> = [], pieces = 64): number => {
  const cuts = [lo, ...breaks.filter((b) => b > lo && b < hi), hi].sort((a, b) => a - b)
  let total = 0
  for (let s = 0; s + 1 < cuts.length; s++) {
    const a = cuts[s] as number
    const b = cuts[s + 1] as number
    if (!(b > a)) continue
    const h = (b - a) / pieces
    for (let k = 0; k < pieces; k++) {
      const mid = a + (k + 0.5) * h
      for (let g = 0; g < 5; g++) total += (GL_W[g] as number) * f(mid + (GL_X[g] as number) * (h / 2)) * (h / 2)
    }
  }
  return total
}

export const laplacePdf = (t: number, b: number): number => Math.exp(-Math.abs(t) / b) / (2 * b)
export const laplaceCdf = (t: number, b: number): number => (t < 0 ? 0.5 * Math.exp(t / b) : 1 - 0.5 * Math.exp(-t / b))
export const exponentialPdf = (t: number, b: number): number => (t < 0 ? 0 : Math.exp(-t / b) / b)
export const exponentialCdf = (t: number, b: number): number => (t < 0 ? 0 : -Math.expm1(-t / b))

export type NoiseKind = 'laplace' | 'exponential'

const pdf = (k: NoiseKind, t: number, b: number): number => (k === 'laplace' ? laplacePdf(t, b) : exponentialPdf(t, b))
const cdf = (k: NoiseKind, t: number, b: number): number => (k === 'laplace' ? laplaceCdf(t, b) : exponentialCdf(t, b))

/** Range outside which a density of scale b is below e⁻⁶⁰ of its peak. */
const REACH = 60

/** P[argmax_i (q_i + Z_i) = i] for i.i.d. noise Z of scale b: ∫ f(y − q_i) Π_{j≠i} F(y − q_j) dy. */
export const argmaxProbabilities = (q: ReadonlyArray<number>, noise: NoiseKind, b: number): number[] => {
  const lo = Math.min(...q) - (noise === 'laplace' ? REACH * b : 0)
  const hi = Math.max(...q) + REACH * b
  return q.map((qi, i) =>
    integrate(
      (y) => {
        let p = pdf(noise, y - qi, b)
        for (let j = 0; j < q.length; j++) if (j !== i) p *= cdf(noise, y - (q[j] as number), b)
        return p
      },
      lo,
      hi,
      q,
      128,
    ),
  )
}

/** Largest |ln p − ln p′| over outcomes; ∞ if an outcome is possible under one and impossible under the other. */
export const maxLogRatio = (p: ReadonlyArray<number>, pPrime: ReadonlyArray<number>): number => {
  let m = 0
  for (let i = 0; i < p.length; i++) {
    const a = p[i] as number
    const b = pPrime[i] as number
    if (a === 0 && b === 0) continue
    if (a === 0 || b === 0) return Infinity
    m = Math.max(m, Math.abs(Math.log(a) - Math.log(b)))
  }
  return m
}

/** Max over pairs of a per-input outcome distribution's log ratio. */
export const pairsEpsilon = <I>(pairs: ReadonlyArray<{ readonly input: I; readonly neighbour: I }>, dist: (x: I) => ReadonlyArray<number>): number =>
  pairs.reduce((m, p) => Math.max(m, maxLogRatio(dist(p.input), dist(p.neighbour))), 0)

/** Sparse vector's noise: threshold noise ρ ~ Lap(bRho), query noise ν_i ~ Lap(bNu) (bNu = 0: none). */
export interface SvtNoise {
  readonly threshold: number
  readonly bRho: number
  readonly bNu: number
}

/** P[q_i + ν_i ≥ T + r]: the query is reported above the noisy threshold. */
const above = (n: SvtNoise, qi: number, r: number): number => (n.bNu > 0 ? 1 - laplaceCdf(n.threshold + r - qi, n.bNu) : qi >= n.threshold + r ? 1 : 0)

/**
 * Probabilities of every answer pattern of sparse vector on queries q, as 1-D integrals over the
 * threshold noise ρ (queries are independent given ρ). With `cutoff`, the run stops at the first
 * "above": outcome k < d is "first above at k", outcome d is "none above". Without, every one of
 * the 2^d above/below patterns (bit i of the outcome index = query i above).
 */
export const svtPatternProbabilities = (q: ReadonlyArray<number>, n: SvtNoise, cutoff: boolean): number[] => {
  const d = q.length
  const breaks = [0, ...q.map((qi) => qi - n.threshold)]
  const lo = -REACH * n.bRho
  const hi = REACH * n.bRho
  const outcomes = cutoff ? d + 1 : 2 ** d
  const out: number[] = []
  for (let o = 0; o < outcomes; o++)
    out.push(
      integrate(
        (r) => {
          let p = laplacePdf(r, n.bRho)
          for (let i = 0; i < d; i++) {
            const a = above(n, q[i] as number, r)
            if (cutoff) {
              if (i < o) p *= 1 - a
              else if (i === o) {
                p *= a
                break
              }
            } else p *= (o >> i) & 1 ? a : 1 - a
          }
          return p
        },
        lo,
        hi,
        breaks,
        96,
      ),
    )
  return out
}

/**
 * Sparse vector (cutoff 1) that reports the noisy answer q_k + ν_k of the first query above:
 * density of (k, v) is f_ν(v − q_k) ∫_{r ≤ v − T} f_ρ(r) Π_{i<k} F_ν(T + r − q_i) dr, and the
 * "none above" outcome has the probability of the pattern case. Returned on a grid of v (the sup
 * over v is approached on the grid; the grid spans ±40 around the threshold, where the ratio has
 * reached its tail limit for the zoo's scales).
 */
export const svtNoisyValueDensities = (q: ReadonlyArray<number>, n: SvtNoise, grid: ReadonlyArray<number>): number[] => {
  const d = q.length
  const out: number[] = []
  const lo = -REACH * n.bRho
  for (let k = 0; k < d; k++)
    for (const v of grid) {
      const top = Math.min(v - n.threshold, REACH * n.bRho)
      const inner =
        top <= lo
          ? 0
          : integrate(
              (r) => {
                let p = laplacePdf(r, n.bRho)
                for (let i = 0; i < k; i++) p *= laplaceCdf(n.threshold + r - (q[i] as number), n.bNu)
                return p
              },
              lo,
              top,
              [0, ...q.map((qi) => qi - n.threshold)],
              48,
            )
      out.push(laplacePdf(v - (q[k] as number), n.bNu) * inner)
    }
  out.push((svtPatternProbabilities(q, n, true)[d] as number) * 1)
  return out
}

/** The exponential mechanism's output probabilities: P(i) ∝ exp(scale · u_i) (McSherry & Talwar 2007). */
export const exponentialMechanismProbabilities = (u: ReadonlyArray<number>, scale: number): number[] => {
  const m = Math.max(...u)
  const w = u.map((x) => Math.exp(scale * (x - m)))
  const z = w.reduce((s, x) => s + x, 0)
  return w.map((x) => x / z)
}

/**
 * Density of the noisy maximum max_i (q_i + Z_i) at y, for i.i.d. noise of scale b:
 * Σ_i f(y − q_i) Π_{j≠i} F(y − q_j) (the derivative of Π_i F(y − q_i)). For report noisy max
 * returning the value (StatDP's ReportNoisyMax3/4), evaluated on a grid of y.
 */
export const noisyMaxValueDensities = (q: ReadonlyArray<number>, noise: NoiseKind, b: number, grid: ReadonlyArray<number>): number[] =>
  grid.map((y) => {
    let total = 0
    for (let i = 0; i < q.length; i++) {
      let p = pdf(noise, y - (q[i] as number), b)
      for (let j = 0; j < q.length && p > 0; j++) if (j !== i) p *= cdf(noise, y - (q[j] as number), b)
      total += p
    }
    return total
  })

/**
 * A grid for suprema of density ratios over a reported value: `reach` scales b either side of the
 * breakpoints (where the ratio's pieces change), `steps` points across, plus each breakpoint and a
 * point just beside it on each side (the ratio of two piecewise-smooth densities is extreme at a
 * kink or in a tail, where it is constant for Laplace and exponential noise).
 */
export const valueGrid = (breaks: ReadonlyArray<number>, b: number, reach = 30, steps = 600): number[] => {
  const lo = Math.min(...breaks) - reach * b
  const hi = Math.max(...breaks) + reach * b
  const out = Array.from({ length: steps + 1 }, (_, i) => lo + ((hi - lo) * i) / steps)
  const eps = 1e-6 * b
  for (const k of breaks) out.push(k - eps, k, k + eps)
  return out.sort((x, y) => x - y)
}
