/**
 * Continuous normals from uniform 32-bit words (src/core/words.ts), for the Gaussian mechanism on a
 * real vector (`gaussianVector` in ../measurement.ts).
 *
 * Floating point. A double cannot be a continuous normal exactly. What is done here, as carefully as
 * plain doubles allow:
 * - the radius uniform u₁ ∈ (0, 1) has every exponent down to 2^-1022 (the leading zero bits of
 *   the words set the exponent, 52 fresh bits the significand: u₁ is a true uniform rounded down
 *   to 53 significant bits), so −2 ln u₁ never overflows and the tail reaches 37.7σ instead of the
 *   8.6σ of a 53-bit grid (beyond it the density is < e^-700: the missing tail is far below any δ);
 * - the angle uses a 53-bit uniform, Box–Muller gives two normals per pair.
 * What is NOT achieved: Math.log/sin/cos/sqrt are not correctly rounded in V8 (errors < 1 ulp), and
 * the released s + σZ lies on the floating-point grid around s, so its low-order bits may depend
 * on s (Mironov 2012 for Laplace; Jin et al. 2022 for Gaussian samplers). A measurement using them
 * declares the continuous Gaussian's event; a trainer lists this gap among its assumptions.
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'

const TWO_M52 = 2 ** -52

/** Uniform in (0, 1), a true uniform rounded down to 53 significant bits, exponents down to 2^-1022. */
export const openUniform = (words: WordStream): number => {
  let e = 0
  for (;;) {
    const w = words.nextUint32()
    if (w !== 0) {
      e += Math.clz32(w)
      break
    }
    e += 32
    if (e >= 1021) return 2 ** -1022 // probability 2^-1021: the smallest normal
  }
  // u ∈ [2^-(e+1), 2^-e): leading one at position e + 1, then 52 fresh bits
  const hi = words.nextUint32() >>> 12 // 20 bits
  const lo = words.nextUint32() // 32 bits
  const m = hi * 4294967296 + lo
  return (1 + m * TWO_M52) * 2 ** -(e + 1)
}

/** Fills `out` with σ·N(0, 1) by Box–Muller on `openUniform` radii and 53-bit angles. */
export const fillNormal = (words: WordStream, sigma: number, out: Float64Array): Float64Array => {
  const n = out.length
  for (let i = 0; i < n; i += 2) {
    const r = sigma * Math.sqrt(-2 * Math.log(openUniform(words)))
    const a = 2 * Math.PI * words.nextDouble()
    out[i] = r * Math.cos(a)
    if (i + 1 < n) out[i + 1] = r * Math.sin(a)
  }
  return out
}
