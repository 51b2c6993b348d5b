/**
 * A composed PLD as the hockey-stick queries see it: a window of N grid points (loss (start + i)·h
 * for i = 0 … N − 1) read only through suffix sums
 *
 *   A(i) = Σ_{j≥i} c_j,   B(i) = Σ_{j≥i} c_j e^{−(j−i)h},
 *
 * because for ε with grid point i the first one above ε,
 *
 *   Σ_j c_j (1 − e^{ε−ℓ_j})₊ = A(i) − e^{ε−ℓ_i} B(i)
 *
 * (the hockey-stick divergence of a discrete PLD, Sommer, Meiser & Mohammadi 2019, §4.4; the same
 * split as dp_accounting's `get_delta_for_epsilon`). Scaling B by e^{−ℓ_i} keeps every factor in
 * (0, 1], so nothing overflows whatever the loss range. Two implementations: dense (an array of
 * masses with precomputed suffix sums) and spectral (./spectral.ts: sums evaluated from a sparse
 * spectrum without ever forming the array).
 *
 * @module
 */

const U = Number.EPSILON / 2

/** Suffix sums at window index i: out[0] = A(i), out[1] = B(i), out[2] = a bound on their rounding error. */
export interface SuffixView {
  readonly length: number
  readonly suffix: (i: number, out: Float64Array) => void
  /** Spectral views: the number of frequency bins each suffix sum reads (./spectral.ts). */
  readonly bins?: number
}

/**
 * A dense view over masses c[0..N−1] on a grid of interval h. The suffix sums are built on first
 * use, after which the masses are released (two arrays of N + 1 are kept).
 */
export const denseView = (c: Float64Array, h: number): SuffixView => {
  const n = c.length
  let masses: Float64Array | undefined = c
  let A: Float64Array | undefined
  let B: Float64Array | undefined
  // Σ|c_j| − Σc_j over the window (twice the negative floating-point noise left by an inverse FFT).
  let negative = 0
  const build = (m: Float64Array): void => {
    A = new Float64Array(n + 1)
    B = new Float64Array(n + 1)
    const r = Math.exp(-h)
    for (let i = n - 1; i >= 0; i--) {
      const v = m[i]!
      A[i] = A[i + 1]! + v
      B[i] = v + r * B[i + 1]!
      if (v < 0) negative -= 2 * v
    }
    masses = undefined
  }
  return {
    length: n,
    suffix: (i, out) => {
      if (masses !== undefined) build(masses)
      const k = Math.max(0, Math.min(n, i))
      const a = A![k]!
      out[0] = a
      out[1] = B![k]!
      // Recursive summation: each partial sum carries at most (n − k)·u relative error of Σ|c|
      // (≤ A(k) + the negative noise; B ≤ A in absolute terms).
      out[2] = 4 * U * (n - k + 2) * (Math.abs(a) + negative)
    },
  }
}
