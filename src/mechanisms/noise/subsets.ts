/**
 * Sampling coins from uniform 32-bit words (src/core/words.ts): exact Bernoulli(q) coins, Poisson
 * subsets (each index kept independently with probability q) and uniform fixed-size subsets — the
 * batches of the sampled measurements (`miniBatchRelease` in ../measurement.ts).
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'

/**
 * Exactly Bernoulli(q) for a double q ∈ [0, 1]: U < q decided digit by digit (32 bits at a time) on
 * q's finite binary expansion, U's digits read lazily from the words — one word per coin except
 * with probability 2^-32.
 */
export const bernoulli = (words: WordStream, q: number): boolean => {
  if (q >= 1) return true
  let x = q
  while (x > 0) {
    x *= 4294967296 // exact: a power of two
    const digit = Math.floor(x)
    x -= digit // exact: the fractional part of a double is a double
    const w = words.nextUint32()
    if (w !== digit) return w < digit
  }
  return false // U's digits so far equal q's, and q's remaining digits are 0: U ≥ q
}

/** Poisson sampling: the indices i < n, each included independently with probability q (exact coins). */
export const poissonSubset = (words: WordStream, n: number, q: number, out: Int32Array): number => {
  let m = 0
  for (let i = 0; i < n; i++) if (bernoulli(words, q)) out[m++] = i
  return m
}

/**
 * A uniformly random m-subset of [0, n) by a partial Fisher–Yates shuffle of `perm` (a permutation
 * of [0, n), kept between calls: a partial shuffle of any arrangement is uniform). The subset is
 * perm[0..m).
 */
export const fixedSubset = (words: WordStream, perm: Int32Array, m: number): void => {
  const n = perm.length
  for (let i = 0; i < m; i++) {
    const j = i + words.uniformBelow(n - i)
    const t = perm[i] as number
    perm[i] = perm[j] as number
    perm[j] = t
  }
}
