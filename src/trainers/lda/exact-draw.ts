/**
 * Exact sampling from a categorical distribution given by double-precision weights: entry j is drawn
 * with probability exactly w_j / Σ_i w_i (real arithmetic on the doubles as they are), given
 * uniform 32-bit words. The Gibbs draws of the private trainers use it (snapshot.ts), so that the
 * exponential mechanism they declare is the one the code runs — a floating-point draw against a
 * 2^-32 grid realises rounded probabilities, and a topic of probability ≪ 2^-32 can then have a
 * likelihood ratio between neighbours far from the declared one (the failure Mironov 2012 shows
 * for the Laplace sampler).
 *
 * The draw is the inversion of a uniform U ∈ [0, 1), read lazily as a binary fraction 32 bits at a
 * time: entry j is the one with P_{j−1} ≤ U·W < P_j, where P_j = w_0 + … + w_j and W = P_{n−1}.
 * - `fastDraw`: the first word m gives U ∈ [m·2^-32, (m + 1)·2^-32); the cumulative sums are formed
 *   in doubles, with a rigorous bound on their error (`fastMargin`). If the whole interval lands
 *   inside one entry's cell for every value the rounding errors allow, that entry is the answer,
 *   whatever U's later bits are; otherwise it gives up (−1). It gives up with probability about
 *   (number of entries)·2^-32.
 * - `exactDraw`: doubles are dyadic rationals, so every P_j is an integer multiple of 2^e for the
 *   smallest exponent e among the weights' last bits; it sums them exactly as BigInts and compares
 *   U's lazily extended prefix exactly, reading a further word while the prefix's interval
 *   straddles a boundary. Rare; it allocates.
 *
 * The hot loop of snapshot.ts carries a specialised copy of `fastDraw` (its weights are products
 * formed on the fly); `fastDraw` is the reference the property tests compare with `exactDraw`.
 *
 * @module
 */

/** The unit roundoff of binary64, u = 2^-53. */
export const UNIT_ROUNDOFF = 1.1102230246251565e-16
/** 2^-32: the width of the first word's interval of U. */
export const WORD_SCALE = 2.3283064365386963e-10
/**
 * An absolute term that covers products rounded into the subnormal range (absolute error ≤ 2^-1075
 * each, where the relative bound u no longer holds): 2^-1060 covers 2^15 of them.
 */
export const TINY = 2 ** -1060

/**
 * The coefficient c such that c·W̃ bounds the rounding error of a fast draw over n entries (besides
 * the error of the document mass carried by the caller, see `fastMargin`).
 *
 * Derivation. Let u = 2^-53; every double operation returns the exact result times (1 + δ), |δ| ≤ u
 * (sums and differences of doubles are exact when subnormal; products can add 2^-1075 absolute,
 * covered by TINY). The fast draw computes
 * - W̃ = the total, formed from partial masses with a known error (for a flat list, by recursive
 *   summation of n terms: |W̃ − W| ≤ (n − 1)·u·W/(1 − (n−1)u));
 * - x̃ = fl(m·2^-32 · W̃) (m·2^-32 is exact): |x̃ − m2^-32·W| ≤ |W̃ − W| + u·x̃;
 * - residuals ρ_0 = x̃ (or x̃ − R̃ to enter a second bucket), ρ_{i+1} = fl(ρ_i − w_i) with the exact
 *   weights w_i: each subtraction adds ≤ u·|ρ_{i+1}| ≤ u·max(x̃, w_i) ≤ u·W̃(1 + 2nu), so after i
 *   steps |ρ_i − (x̃ − P_{i−1})| ≤ i·u·W̃(1 + 2nu).
 * The draw is decided for entry j if P_{j−1} ≤ m2^-32·W and (m + 1)·2^-32·W ≤ P_j, i.e. if
 *   ρ_j ≥ E   and   ρ_{j+1} ≤ −(E + 2^-32·W̃),
 * where E bounds |ρ_i − (m2^-32·W − P_{i−1})| (all of the above, plus 2^-32·|W̃ − W| for the width).
 * Summing: at most n subtractions, one product, the total's error and the width's: E ≤
 * (2n + 4)·u·W̃·(1 + 2^-20) + TINY for a flat list. Doubling the coefficient absorbs the rounding of
 * E's own computation (at most three roundings, relative 3u) and of −(E + 2^-32·W̃), with a margin
 * of nearly 2×; the decision it protects has slack 2^-32·W̃, some 10^6 times larger, so the margin
 * costs nothing measurable.
 */
export const scanCoefficient = (n: number): number => 2 * (2 * n + 4) * UNIT_ROUNDOFF

/**
 * The reference fast path: entry j of `w[0..n)` if the first word m decides it for every value the
 * later words and the rounding errors allow, else −1. Weights are finite and ≥ 0, with Σ > 0.
 */
export const fastDraw = (w: ArrayLike<number>, n: number, m: number): number => {
  let total = 0
  for (let i = 0; i < n; i++) total += w[i] as number
  const e = total * scanCoefficient(n) + TINY
  const g = total * WORD_SCALE
  let x = m * WORD_SCALE * total
  for (let j = 0; j < n; j++) {
    const xp = x
    x = xp - (w[j] as number)
    if (x < 0) return xp >= e && x <= -(e + g) ? j : -1
  }
  return -1
}

const view = new DataView(new ArrayBuffer(8))

/** A finite double x ≥ 0 as mantissa · 2^exponent with an integer mantissa < 2^53. */
const decompose = (x: number): { mantissa: number; exponent: number } => {
  view.setFloat64(0, x)
  const hi = view.getUint32(0)
  const lo = view.getUint32(4)
  const biased = (hi >>> 20) & 0x7ff
  const frac = (hi & 0xfffff) * 4294967296 + lo
  return biased === 0 ? { mantissa: frac, exponent: -1074 } : { mantissa: frac + 4503599627370496, exponent: biased - 1075 }
}

/**
 * The exact cumulative sums of `w[0..n)` as integers in units of 2^e, e the smallest exponent of
 * the weights' last bits (each double is mantissa·2^exponent, so every partial sum is exact).
 */
export const exactCumulative = (w: ArrayLike<number>, n: number): bigint[] => {
  const parts = new Array<{ mantissa: number; exponent: number }>(n)
  let low = Number.POSITIVE_INFINITY
  for (let i = 0; i < n; i++) {
    const x = w[i] as number
    if (!(x >= 0 && x < Number.POSITIVE_INFINITY)) throw new RangeError(`weights must be finite and ≥ 0, got ${x} at ${i}`)
    const p = decompose(x)
    parts[i] = p
    if (p.mantissa !== 0 && p.exponent < low) low = p.exponent
  }
  if (low === Number.POSITIVE_INFINITY) throw new RangeError('weights must not all be zero')
  const out = new Array<bigint>(n)
  let s = 0n
  for (let i = 0; i < n; i++) {
    const p = parts[i] as { mantissa: number; exponent: number }
    if (p.mantissa !== 0) s += BigInt(p.mantissa) << BigInt(p.exponent - low)
    out[i] = s
  }
  return out
}

/**
 * Entry j of `w[0..n)` with probability exactly w_j / Σw: U's first 32 bits are `first`, each call
 * of `next` gives the next 32 (uniform words). With U's prefix A of L bits, U ∈ [A, A + 1)·2^-L;
 * j is the first entry with A·W < P_j·2^L, and it is the answer once (A + 1)·W ≤ P_j·2^L —
 * otherwise the interval straddles P_j and one more word is read (probability ≤ 2^-32 each time,
 * a boundary being a single point).
 */
export const exactDraw = (w: ArrayLike<number>, n: number, first: number, next: () => number): number => {
  const P = exactCumulative(w, n)
  const W = P[n - 1] as bigint
  let a = BigInt(first >>> 0)
  let shift = 32n
  for (;;) {
    const aw = a * W
    // first j with a·W < P_j·2^L (exists: a < 2^L and P_{n−1} = W); binary search, P is nondecreasing
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (aw < (P[mid] as bigint) << shift) hi = mid
      else lo = mid + 1
    }
    if (aw + W <= (P[lo] as bigint) << shift) return lo
    a = (a << 32n) | BigInt(next() >>> 0)
    shift += 32n
  }
}
