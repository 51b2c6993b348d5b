/**
 * Exact rationals for the noise samplers: a double's exact value as num/den, and a double close to
 * a BigInt ratio (for fast-path comparisons whose error is bounded where they are used).
 *
 * @module
 */

/** num/den in lowest terms (den a power of two). */
export interface Dyadic {
  readonly num: bigint
  readonly den: bigint
}

/** The exact value of a finite double x ≥ 0: every double is m·2^e, so doubling it at most 1074 times makes it an integer. */
export const dyadic = (x: number): Dyadic => {
  if (!(Number.isFinite(x) && x >= 0)) throw new RangeError(`dyadic needs a finite non-negative double, got ${x}`)
  let m = x
  let e = 0
  while (!Number.isInteger(m)) {
    m *= 2 // exact: no overflow before m is an integer (m < 2^53 · 2 by then)
    e++
  }
  let num = BigInt(m)
  let den = 1n << BigInt(e)
  while (den > 1n && (num & 1n) === 0n) {
    num >>= 1n
    den >>= 1n
  }
  return { num, den }
}

/** Bits in the binary form of x > 0 (0 for 0). */
export const bitLength = (x: bigint): number => (x === 0n ? 0 : x.toString(2).length)

/** x·2^e, in steps so that no intermediate power of two overflows or underflows on its own. */
const scale2 = (x: number, e: number): number => {
  let y = x
  let k = e
  while (k > 1000) {
    y *= 2 ** 1000
    k -= 1000
  }
  while (k < -1000) {
    y *= 2 ** -1000
    k += 1000
  }
  return y * 2 ** k
}

/**
 * A double within relative error 2^-52 of n/d (n ≥ 0, d > 0) when n/d lies in the normal double
 * range: q = ⌊n·2^k/d⌋ with k chosen so that 2^63 ≤ q < 2^65 (relative error ≤ 2^-63), rounded to
 * the nearest double (≤ 2^-53), then scaled by 2^-k exactly. Outside the normal range the result
 * underflows (absolute error below 2^-1022) or overflows to Infinity.
 */
export const approxRatio = (n: bigint, d: bigint): number => {
  if (n === 0n) return 0
  const k = bitLength(d) - bitLength(n) + 64
  const q = k >= 0 ? (n << BigInt(k)) / d : n / (d << BigInt(-k))
  return scale2(Number(q), -k)
}
