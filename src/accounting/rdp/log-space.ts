/**
 * Log-space kernels for RDP curves. Every RDP formula here has the shape
 * ε(α) = log(1 + X)/(α − 1) with X ≥ 0 a sum of non-negative terms; computing log X directly
 * (never 1 + X and then subtracting 1) keeps full relative accuracy when X is tiny (small q, large
 * σ) and avoids overflow when X is astronomically large (small σ, large α).
 *
 * @module
 */
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import { kept } from './kept.js'

/** log(1 + e^x), for any x (−∞ gives 0). */
export const softplus = (x: number): number => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)))

/** log(e^x − 1) for x ≥ 0 (−∞ at 0). */
export const logExpm1 = (x: number): number => (x > 40 ? x + Math.log1p(-Math.exp(-x)) : Math.log(Math.expm1(x)))

/**
 * φ(x) = e^x − 1 − x ≥ 0. By Taylor series where expm1(x) − x would cancel (|x| < 1/2: 20 terms
 * reach 2⁻⁵³ relative), directly elsewhere.
 */
export const phi = (x: number): number => {
  if (Math.abs(x) >= 0.5) return Math.expm1(x) - x
  let term = (x * x) / 2
  let sum = term
  for (let n = 3; n < 30 && Math.abs(term) > 1e-17 * sum; n++) {
    term *= x / n
    sum += term
  }
  return sum
}

/**
 * The kernel of the reverse direction D_α(Q‖M) of a subsampled pair (./subsampled-laplace.ts,
 * ./subsampled-discrete-gaussian.ts): h = (1 + Y)^{1−α} − 1 + (α − 1)Y = φ(βu) − βφ(u) ≥ 0 with
 * β = 1 − α and u = log(1 + Y): two non-negative terms, no cancellation.
 */
export const hReverse = (u: number, alpha: number): number => {
  const beta = 1 - alpha
  return phi(beta * u) - beta * phi(u)
}

/** log φ(x) = log(e^x − 1 − x), without overflow for large x. */
export const logPhi = (x: number): number => {
  // For x > 40, log(e^x − 1 − x) = x + log(1 − (1 + x)e^{−x}).
  if (x > 40) return x + Math.log1p(-(1 + x) * Math.exp(-x))
  return Math.log(phi(x))
}

/**
 * Rows of log binomial coefficients log C(n, k), k = 0..n, memoised per integer n. This is a pure
 * constant table: @stdlib's binomcoefln is accurate to ~1e-13 absolute but costs ~0.7 µs a call,
 * and the subsampling sums use the same few rows (n = the integer orders of the grid) over and
 * over. Rows are filled by symmetry, C(n, k) = C(n, n − k). A kept table (./kept.ts), parameter-free:
 * `forgetKept('parameters')` keeps it. At most 2,048 rows (the default grid reads 82; the
 * without-replacement Gaussian bound reads every even j ≤ α + 1 besides, ~600 in all: a table too
 * small for that evicts the rows it is about to read).
 */
const ROWS = kept<Float64Array, number>(2048, true)

export const logBinomialRow = (n: number): Float64Array => {
  const hit = ROWS.get(n)
  if (hit !== undefined) return hit
  const row = new Float64Array(n + 1)
  for (let k = 0; k <= n >> 1; k++) {
    const v = binomcoefln(n, k)
    row[k] = v
    row[n - k] = v
  }
  ROWS.set(n, row)
  return row
}

let SCRATCH = new Float64Array(1024)

/**
 * A buffer of at least `n` doubles for the terms of one log-sum (the integer-order sums below are
 * up to α ≤ 10⁴ terms long, built once per order: a fresh array each was most of what a cold RDP
 * query allocated). Shared by every caller: valid until the next call, so a caller fills it and
 * sums it without calling anything that may take it in between.
 */
export const scratchTerms = (n: number): Float64Array => {
  if (SCRATCH.length < n) SCRATCH = new Float64Array(Math.max(n, 2 * SCRATCH.length))
  return SCRATCH
}

/** Terms this far below the largest are skipped by `logSumExpPruned`. */
export const PRUNE_NATS = 60

/**
 * log Σ_{i<n} e^{x_i}, skipping the exp of terms more than 60 nats below the largest: their total
 * is below n·e^{−60} (≈ 1e-22 for n = 10⁴) of the result, far inside the relative margins every
 * caller adds (≥ 1e-12). Saves most exps in the long, steep sums of high orders.
 *
 * The test is on the difference x − m, never against m − 60: above |m| ≈ 2⁶⁰ (a sampled Gaussian
 * at σ ≤ 1e-7 and high orders) m − 60 rounds to m, and `x > m − 60` would skip every term, the
 * largest too, giving log 0 = −∞ — an RDP value of 0, the understatement of issue 30. The sum is
 * never below its largest term, so the result is also clamped to ≥ m.
 */
export const logSumExpPruned = (xs: ArrayLike<number>, n: number = xs.length): number => {
  let m = -Infinity
  for (let i = 0; i < n; i++) {
    const x = xs[i] as number
    if (Number.isNaN(x)) return Number.NaN
    if (x > m) m = x
  }
  if (m === -Infinity || m === Infinity) return m
  let s = 0
  for (let i = 0; i < n; i++) {
    const d = (xs[i] as number) - m
    if (d > -PRUNE_NATS) s += Math.exp(d)
  }
  // s ≥ 1 (the largest term contributes e⁰), so log s ≥ 0: log Σ e^{x_i} ≥ max x_i.
  return m + Math.max(0, Math.log(s))
}
