/**
 * The randomness private SVI draws from the release gate's words: standard normals for the noise,
 * exact Bernoulli(q) coins for Poisson sampling, exactly uniform fixed-size batches, and the
 * random N-token truncation of long documents.
 *
 * Floating point (normals). The statistic is real-valued, so the noise is the continuous Gaussian,
 * and a double cannot be one exactly. What is done here, as carefully as plain doubles allow:
 * - the radius uniform u₁ ∈ (0, 1) has every exponent down to 2^-1022 (the leading zero bits of
 *   the words set the exponent, 52 fresh bits the significand: u₁ is a true uniform rounded down
 *   to 53 significant bits), so −2 ln u₁ never overflows and the tail reaches 37.7σ instead of the
 *   8.6σ of a 53-bit grid (beyond it the density is < e^-700: the missing tail is far below any δ);
 * - the angle uses a 53-bit uniform, Box–Muller gives two normals per pair.
 * What is NOT achieved: Math.log/sin/cos/sqrt are not correctly rounded in V8 (errors < 1 ulp), and
 * the released s + σZ lies on the floating-point grid around s, so its low-order bits may depend
 * on s (Mironov 2012 for Laplace; Jin et al. 2022 for Gaussian samplers). The plan declares the
 * continuous Gaussian's event; this gap is listed among the trainer's assumptions.
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

/**
 * The document tokens[from..to) truncated to at most N tokens: all of them if it is that short,
 * else N positions chosen uniformly without replacement (the private-SVI paper, §3: "randomly selecting N words").
 * Writes the kept word ids to `out` and returns how many; `scratch` holds at least to − from slots.
 */
export const truncate = (words: WordStream, tokens: Int32Array, from: number, to: number, N: number, out: Int32Array, scratch: Int32Array): number => {
  const len = to - from
  if (len <= N) {
    out.set(tokens.subarray(from, to))
    return len
  }
  for (let i = 0; i < len; i++) scratch[i] = i
  for (let i = 0; i < N; i++) {
    const j = i + words.uniformBelow(len - i)
    const t = scratch[j] as number
    scratch[j] = scratch[i] as number
    scratch[i] = t
    out[i] = tokens[from + t] as number
  }
  return N
}

/**
 * Gamma(shape, 1) for shape ≥ 1 by Marsaglia & Tsang (2000), on the normals and uniforms above; used
 * only for the data-independent initial λ (Gamma(100, 1/100) per entry, as Hoffman's onlineldavb).
 */
export const gammaVariate = (words: WordStream, shape: number): number => {
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  const z = new Float64Array(1)
  for (;;) {
    const x = fillNormal(words, 1, z)[0] as number
    const t = 1 + c * x
    if (t <= 0) continue
    const v = t * t * t
    if (Math.log(openUniform(words)) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v
  }
}
