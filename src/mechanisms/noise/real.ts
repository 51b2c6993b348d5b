/**
 * Exact comparison of a uniform real with exp(−x), x rational: rigorous BigInt intervals for
 * exp(−x) at any precision, and a uniform U revealed a word at a time until its prefix lies clear
 * of the interval. This is the slow path behind the samplers' 31/32-bit threshold tables: it runs
 * only when a word equals a threshold's floor (probability 2^-31 or so per draw), so it may
 * allocate and use BigInt freely.
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { bitLength } from './rational.js'

/** Integers lo ≤ 2^bits·c ≤ hi for the real c being compared, at any precision `bits` asked for. */
export type Bounds = (bits: number) => readonly [bigint, bigint]

/** ⌈a / 2^k⌉ for a ≥ 0. */
export const shiftUp = (a: bigint, k: bigint): bigint => -(-a >> k)

/**
 * Integers lo ≤ 2^bits·exp(−n/d) ≤ hi with hi − lo ≤ 4, for n ≥ 0, d > 0.
 *
 * With m = ⌈n/d⌉ and y = n/(d·m) ∈ (0, 1]: exp(−y) by its alternating Taylor series in fixed point
 * at q = bits + guard bits, then the m-th power by squaring, each product rounded outward.
 * Series: the exact terms τ_k = 2^q·y^k/k! decrease (y/k ≤ 1); the computed t_0 = 2^q,
 * t_k = ⌊t_{k−1}·y/k⌋ satisfy τ_k − e_k ≤ t_k ≤ τ_k with e_k = e_{k−1}·y/k + 1 ≤ k. Summing
 * t_0 … t_{K−1}, where t_K = 0 is the first zero term, misses the tail (at most τ_K ≤ e_K ≤ K, the
 * series being alternating with decreasing terms) and the rounding (at most Σ e_k ≤ K(K−1)/2), so
 * 2^q·exp(−y) lies within K(K+1)/2 + 1 of the sum. If the result is wider than 4, the guard grows.
 */
export const expNegBounds = (n: bigint, d: bigint, bits: number): readonly [bigint, bigint] => {
  if (n === 0n) {
    const one = 1n << BigInt(bits)
    return [one, one]
  }
  const m = (n + d - 1n) / d
  const dm = d * m
  for (let guard = 24 + 2 * bitLength(m); ; guard += 32) {
    const q = BigInt(bits + guard)
    let term = 1n << q
    let sum = 0n
    let k = 0
    while (term !== 0n) {
      sum += (k & 1) === 0 ? term : -term
      k++
      term = (term * n) / (dm * BigInt(k))
    }
    const err = BigInt((k * (k + 1)) / 2 + 1)
    const baseLo = sum > err ? sum - err : 0n
    const baseHi = sum + err
    // [lo, hi] ∋ 2^q·exp(−y·j) for j = the bits of m read so far; [bLo, bHi] for the current square.
    let lo = 1n << q
    let hi = lo
    let bLo = baseLo
    let bHi = baseHi
    for (let e = m; ; ) {
      if ((e & 1n) === 1n) {
        lo = (lo * bLo) >> q
        hi = shiftUp(hi * bHi, q)
      }
      e >>= 1n
      if (e === 0n) break
      bLo = (bLo * bLo) >> q
      bHi = shiftUp(bHi * bHi, q)
    }
    const g = BigInt(guard)
    const outLo = lo >> g
    const outHi = shiftUp(hi, g)
    if (outHi - outLo <= 4n) return [outLo, outHi]
  }
}

/**
 * ⌊2^bits·c⌋ exactly, for an irrational c (so no integer lies on it and the refinement ends): the
 * bounds are refined 32 bits at a time until both ends have the same floor at `bits`.
 */
export const exactFloor = (bounds: Bounds, bits: number): number => {
  for (let extra = 32; ; extra += 32) {
    const [lo, hi] = bounds(bits + extra)
    const e = BigInt(extra)
    if (lo >> e === hi >> e) return Number(lo >> e)
  }
}

/** A uniform U ∈ [0, 1) known by its first `bits` bits, extended by a word at a time when a comparison needs it. */
export class LazyUniform {
  private prefix: bigint
  private bits: number
  constructor(prefix: number, bits: number) {
    this.prefix = BigInt(prefix)
    this.bits = bits
  }
  /**
   * U < c, exactly: U lies in [v, v + 1)/2^b for its known prefix v of b bits, so v + 1 ≤ lo means
   * U < c and v ≥ hi means U ≥ c; otherwise U is extended (ends with probability 1: the intervals
   * have width ≤ 4 units of 2^-b while b grows).
   */
  below(s: WordStream, bounds: Bounds): boolean {
    for (;;) {
      const [lo, hi] = bounds(this.bits)
      if (this.prefix + 1n <= lo) return true
      if (this.prefix >= hi) return false
      this.prefix = (this.prefix << 32n) | BigInt(s.nextUint32())
      this.bits += 32
    }
  }
}
