/**
 * Samplers on top of the injected `Rng`: a fast xoshiro128** stream for Gibbs topic draws
 * (seeded from the Rng, so a run is reproducible from its seed; one call per token must cost a
 * few nanoseconds, which seedrandom's ARC4 cannot; the non-private CGS and the post-processing
 * sweeps use it), Gamma, Dirichlet and Poisson variates drawn from the Rng itself (synthetic corpora),
 * and continuous Laplace/Gaussian fills over a `NoiseSource` (benchmarks; the trainers' noise is
 * exact and discrete, drawn through their release gate).
 *
 * @module
 */
import type { Rng } from '../../core/rng.js'
import { WordStream, wordsFromRng } from '../../core/words.js'

/** xoshiro128** (Blackman & Vigna 2018): 32-bit state words, period 2^128 − 1. */
export class FastUniform {
  private a: number
  private b: number
  private c: number
  private d: number
  constructor(rng: Rng) {
    const word = (): number => Math.floor(rng.next() * 4294967296) >>> 0
    this.a = word()
    this.b = word()
    this.c = word()
    this.d = word() | 1
  }
  /** Uniform in [0, 1) with 32 random bits. (The step is written out here and in `nextUint32`
   * on purpose: delegating measured 0–5 % slower in the HDP sweep.) */
  next(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9)
    const t = this.b << 9
    this.c ^= this.a
    this.d ^= this.b
    this.b ^= this.c
    this.a ^= this.d
    this.c ^= t
    this.d = rotl(this.d, 11)
    return (r >>> 0) * 2.3283064365386963e-10
  }
  /** The next 32-bit output as an unsigned integer (the same stream as `next`). */
  nextUint32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9)
    const t = this.b << 9
    this.c ^= this.a
    this.d ^= this.b
    this.b ^= this.c
    this.a ^= this.d
    this.c ^= t
    this.d = rotl(this.d, 11)
    return r >>> 0
  }
}
const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k))

/** Standard normal by the polar Box–Muller method (one value per call; the spare is cached). */
export const makeGaussian = (rng: Rng): ((sigma: number) => number) => {
  let spare = Number.NaN
  return (sigma) => {
    if (!Number.isNaN(spare)) {
      const s = spare
      spare = Number.NaN
      return s * sigma
    }
    let u: number
    let v: number
    let s: number
    do {
      u = 2 * rng.next() - 1
      v = 2 * rng.next() - 1
      s = u * u + v * v
    } while (s >= 1 || s === 0)
    const f = Math.sqrt((-2 * Math.log(s)) / s)
    spare = v * f
    return u * f * sigma
  }
}

/** Gamma(shape, 1) by Marsaglia & Tsang (2000), with the shape < 1 boost. */
export const gamma = (rng: Rng, shape: number, normal: (s: number) => number): number => {
  if (shape < 1) {
    let u = rng.next()
    while (u === 0) u = rng.next()
    return gamma(rng, shape + 1, normal) * Math.pow(u, 1 / shape)
  }
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x: number
    let v: number
    do {
      x = normal(1)
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    const u = rng.next()
    if (u < 1 - 0.0331 * x * x * x * x) return d * v
    if (u > 0 && Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
  }
}

/** A Dirichlet(α) draw into `out`. */
export const dirichlet = (rng: Rng, alpha: ArrayLike<number>, out: Float64Array, normal: (s: number) => number): Float64Array => {
  let s = 0
  for (let k = 0; k < alpha.length; k++) {
    const g = gamma(rng, alpha[k] as number, normal)
    out[k] = g
    s += g
  }
  if (s === 0) {
    // Every component underflowed (tiny α): the draw is a vertex; pick one uniformly.
    out.fill(0)
    out[Math.min(alpha.length - 1, Math.floor(rng.next() * alpha.length))] = 1
    return out
  }
  for (let k = 0; k < alpha.length; k++) out[k] = (out[k] as number) / s
  return out
}

/** Poisson(λ): inversion for λ < 30, otherwise the PTRS transformed rejection (Hörmann 1993). */
export const poisson = (rng: Rng, lambda: number): number => {
  if (lambda < 30) {
    const l = Math.exp(-lambda)
    let k = 0
    let p = rng.next()
    while (p > l) {
      k++
      p *= rng.next()
    }
    return k
  }
  const slam = Math.sqrt(lambda)
  const loglam = Math.log(lambda)
  const b = 0.931 + 2.53 * slam
  const a = -0.059 + 0.02483 * b
  const invalpha = 1.1239 + 1.1328 / (b - 3.4)
  const vr = 0.9277 - 3.6224 / (b - 2)
  for (;;) {
    const u = rng.next() - 0.5
    const v = rng.next()
    const us = 0.5 - Math.abs(u)
    const k = Math.floor(((2 * a) / us + b) * u + lambda + 0.43)
    if (us >= 0.07 && v <= vr) return k
    if (k < 0 || (us < 0.013 && v > us)) continue
    if (Math.log(v) + Math.log(invalpha) - Math.log(a / (us * us) + b) <= -lambda + k * loglam - lgammaInt(k + 1)) return k
  }
}

/** ln Γ(n) for a positive integer n (exact sum for small n, Stirling series otherwise). */
const lgammaInt = (n: number): number => {
  if (n < 20) {
    let s = 0
    for (let i = 2; i < n; i++) s += Math.log(i)
    return s
  }
  const x = n
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x * x * x)
}

/**
 * The uniform source of the continuous Laplace/Gaussian samplers below — kept for benchmarks and for
 * describing other systems; the trainers release integer tables with exact discrete noise through
 * their release gate. Its words come from `wordsFromRng` (node:crypto for a `secure()` Rng, the
 * seeded xoshiro128** stream otherwise), one 53-bit uniform per two words.
 */
export class NoiseSource {
  private readonly words: WordStream
  constructor(rng: Rng) {
    this.words = new WordStream(wordsFromRng(rng))
  }
  /** True when the noise can be regenerated from a seed (reproducible runs). */
  get reproducible(): boolean {
    return !this.words.source.secret
  }
  /** One uniform in [0, 1) with 53 random bits. */
  next(): number {
    return this.words.nextDouble()
  }
  /** Fills `out[0..n)` with uniforms in [0, 1) carrying 53 random bits. */
  uniforms(out: Float64Array, n: number): void {
    const w = this.words
    for (let i = 0; i < n; i++) out[i] = w.nextDouble()
  }
}

const NOISE_CHUNK = 4096

/** Fills `out` with independent Laplace(0, b) draws (inversion, as `laplace`), from `src`. */
export const fillLaplace = (src: NoiseSource, b: number, out: Float64Array): Float64Array => {
  const buf = new Float64Array(NOISE_CHUNK)
  const n = out.length
  for (let start = 0; start < n; start += NOISE_CHUNK) {
    const m = Math.min(NOISE_CHUNK, n - start)
    src.uniforms(buf, m)
    for (let j = 0; j < m; j++) {
      let u = (buf[j] as number) - 0.5
      // u = −½ (a uniform of exactly 0) would give ln 0: redraw it, as `laplace` does.
      while (u === -0.5) u = src.next() - 0.5
      out[start + j] = u < 0 ? b * Math.log(1 + 2 * u) : -b * Math.log(1 - 2 * u)
    }
  }
  return out
}

/**
 * Fills `out` with independent N(0, σ²) draws by the polar Box–Muller method (as `makeGaussian`:
 * both values of a pair are used; an odd last cell discards the spare), from `src`.
 */
export const fillGaussian = (src: NoiseSource, sigma: number, out: Float64Array): Float64Array => {
  const buf = new Float64Array(NOISE_CHUNK)
  const n = out.length
  let i = 0
  let j = NOISE_CHUNK
  let m = NOISE_CHUNK
  while (i < n) {
    if (j + 2 > m) {
      m = NOISE_CHUNK
      src.uniforms(buf, m)
      j = 0
    }
    const u = 2 * (buf[j] as number) - 1
    const v = 2 * (buf[j + 1] as number) - 1
    j += 2
    const s = u * u + v * v
    if (s >= 1 || s === 0) continue
    const f = Math.sqrt((-2 * Math.log(s)) / s) * sigma
    out[i++] = u * f
    if (i < n) out[i++] = v * f
  }
  return out
}
