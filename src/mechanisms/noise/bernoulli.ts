/**
 * Exact Bernoulli trials from uniform 32-bit words: Bernoulli(n/d) by lazy comparison of a uniform
 * real with the binary expansion of n/d, and Bernoulli(exp(−γ)) for rational γ by Canonne, Kamath &
 * Steinke 2020 ("The Discrete Gaussian for Differential Privacy"), Algorithm 1 (von Neumann's):
 * for γ ∈ [0, 1], K ← 1; while Bernoulli(γ/K): K ← K + 1; output [K odd]; for γ > 1, the product
 * of ⌊γ⌋ trials of Bernoulli(exp(−1)) and one of Bernoulli(exp(−(γ − ⌊γ⌋))).
 *
 * Fast path (no BigInt, no allocation): each Bernoulli(γ/K) reads one word w, the first 32 bits of
 * the uniform U = (w + U′)/2^32 it compares with γ/K, and decides from a double a with
 * |a − 2^32·γ/K| < 1 whenever the word settles the comparison for every continuation U′. Only
 * when w lies within 2 of a (probability ≤ 3·2^-32 per trial) is the exact BigInt comparison run —
 * from the same w, so the outcome is the exact comparison's in every case (proof at `expNegUnit`).
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { approxRatio } from './rational.js'

/** γ = n/d exactly, built only when the fast path cannot decide (so the common path allocates nothing). */
export type ExactRatio = () => readonly [bigint, bigint]

const TWO_32 = 4294967296
const TWO_32N = 1n << 32n
const TWO_53N = 1n << 53n

/**
 * Bernoulli(n/d), n ≥ 0, d > 0, exactly, given w, the first word of the uniform U compared with
 * n/d. With T = ⌊2^32·r/d⌋ and U = (w + U′)/2^32: w < T means U < r/d whatever U′ is, w > T means
 * U ≥ r/d, and w = T leaves U′ < r′/d with r′ = 2^32·r − T·d ∈ [0, d) — the same question one word
 * on (r′ = 0 settles it: U′ ≥ 0). Ends after each word with probability ≥ 1 − 2^-32.
 */
export const bernoulliRatioFrom = (s: WordStream, w: number, n: bigint, d: bigint): boolean => {
  let r = n
  let word = w
  for (;;) {
    const scaled = r << 32n
    const t = scaled / d
    if (t >= TWO_32N) return true
    const tn = Number(t)
    if (word !== tn) return word < tn
    r = scaled - t * d
    if (r === 0n) return false
    word = s.nextUint32()
  }
}

/**
 * Bernoulli(exp(−γ)) for a rational γ ∈ [0, 1] (Algorithm 1), where `g` is a double with
 * |g − γ| ≤ 2^-34 and `exact()` returns γ = n/d. `from` is the first K: 2 when the caller knows
 * γ = 1 exactly (Bernoulli(1/1) is certain and needs no word).
 *
 * Proof that each trial Bernoulli(γ/K) is exact. Let X = 2^32·γ/K ≤ 2^32 and a = (g/K)·2^32 as
 * computed: the division rounds once (relative 2^-53), the product by 2^32 is exact, so
 * |a − X| ≤ 2^32·(2^-34/K + 2^-53·(γ + 2^-34)/K) < 1/4 + 2^-20 < 1. The trial is U < γ/K with
 * U ∈ [w, w + 1)/2^32. If w + 2 ≤ a then w + 1 ≤ a − 1 < X, so U < γ/K for every continuation:
 * true. If w − 1 ≥ a then w ≥ a + 1 > X, so U ≥ γ/K: false. Both tests are exact in doubles (w + 2,
 * w − 1 are integers below 2^33). Otherwise `bernoulliRatioFrom` compares exactly from the same w.
 */
export const expNegUnit = (s: WordStream, g: number, exact: ExactRatio, from = 1): boolean => {
  let k = from
  for (;;) {
    const a = (g / k) * TWO_32
    const w = s.nextUint32()
    let hit: boolean
    if (w + 2 <= a) hit = true
    else if (w - 1 >= a) hit = false
    else {
      const [n, d] = exact()
      hit = bernoulliRatioFrom(s, w, n, d * BigInt(k))
    }
    if (!hit) return (k & 1) === 1
    k++
  }
}

const ONE: ExactRatio = () => [1n, 1n]

/** Bernoulli(exp(−1)). */
export const expNegOne = (s: WordStream): boolean => expNegUnit(s, 1, ONE, 2)

/** Bernoulli(exp(−γ)) for a fixed rational γ = n/d ≥ 0, its integer and fractional parts split once. */
export class ExpNeg {
  /** ⌊γ⌋, or 2^53 when larger (the rest is in `wholeRest`). */
  private readonly whole: number
  /** ⌊γ⌋ − 2^53 when positive: γ that large is never reached in practice, but is kept exact. */
  private readonly wholeRest: bigint
  /** γ − ⌊γ⌋ as a double (relative error ≤ 2^-52, so within 2^-52 of it), and exactly; undefined when 0. */
  private readonly frac: number
  private readonly fracExact: ExactRatio | undefined
  constructor(n: bigint, d: bigint) {
    const whole = n / d
    const rest = n % d
    this.whole = Number(whole < TWO_53N ? whole : TWO_53N)
    this.wholeRest = whole > TWO_53N ? whole - TWO_53N : 0n
    this.frac = approxRatio(rest, d)
    this.fracExact = rest === 0n ? undefined : () => [rest, d]
  }
  sample(s: WordStream): boolean {
    for (let i = 0; i < this.whole; i++) if (!expNegOne(s)) return false
    if (this.wholeRest !== 0n) for (let i = 0n; i < this.wholeRest; i++) if (!expNegOne(s)) return false
    return this.fracExact === undefined || expNegUnit(s, this.frac, this.fracExact)
  }
}

const nonNegativeInteger = (x: bigint | number, name: string): bigint => {
  if (typeof x === 'bigint') {
    if (x < 0n) throw new RangeError(`${name} must be non-negative, got ${x}`)
    return x
  }
  if (!(Number.isSafeInteger(x) && x >= 0)) throw new RangeError(`${name} must be a non-negative safe integer, got ${x}`)
  return BigInt(x)
}

/** Exact Bernoulli(exp(−n/d)) for non-negative integers n, d > 0 (bigint or safe-integer number). */
export const bernoulliExpNeg = (s: WordStream, n: bigint | number, d: bigint | number): boolean => {
  const den = nonNegativeInteger(d, 'd')
  if (den === 0n) throw new RangeError('d must be positive')
  return new ExpNeg(nonNegativeInteger(n, 'n'), den).sample(s)
}
