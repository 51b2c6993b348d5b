/**
 * The discrete Laplace distribution, pmf ∝ exp(−|x|/t) on ℤ, sampled exactly for any positive
 * double t up to 2^46: a double is a dyadic rational num/den, and every random choice below is an
 * exact comparison of uniform words with a rational or with exp(−rational).
 *
 * Both samplers follow Canonne, Kamath & Steinke 2020 ("The Discrete Gaussian for Differential
 * Privacy"), Algorithm 2's outer step: draw a magnitude Y, geometric with P(Y ≥ y) = exp(−y/t),
 * and a fair sign bit B; output (1 − 2B)·Y, rejecting B = 1, Y = 0 and starting over (which gives
 * 0 and each ±y the weights 1 and exp(−y/t) of the target). They differ in how Y is drawn:
 * - t ≤ 4096 (`TableLaplace`, the common case): one word gives B (its low bit) and the 31-bit
 *   prefix of a uniform inverted against exact thresholds ⌊2^31·exp(−y/t)⌋ (./geometric.ts) —
 *   about 1.25 words a draw at t = 2, with an exact BigInt continuation when the prefix ties.
 * - larger t (`BlockLaplace`, tables would be too big): Algorithm 2 draws Y as ⌊(U + num·V)/den⌋
 *   with U uniform below num — a 53-bit integer for a non-dyadic t — which would put BigInt on the
 *   common path. We split the geometric by a block length M = ⌊t⌋ instead: Y = M·Q + R, where
 *   the remainder R ∈ [0, M) has P(R = r) ∝ exp(−r/t) and the block count Q is geometric with
 *   ratio exp(−M/t), independently (the geometric law factorises over y = M·q + r).
 *   R: u uniform below 2M; R = ⌊u/2⌋ is accepted with probability exp(−R/t) (R/t < 1: one call of
 *   Algorithm 1, ./bernoulli.ts, with γ = R·den/num), else u is redrawn; B = u mod 2 rides along
 *   (the acceptance looks at R only, so B stays a fair coin independent of R).
 *   Q: the number of successes of Bernoulli(exp(−M/t)) before the first failure (M/t ∈ (1/2, 1]:
 *   about 2 trials whatever t is). About 7 words a draw.
 *
 * Draws are exact integers while |x| < 2^53; at the largest scale allowed, 2^46, a larger draw has
 * probability below exp(−128) (it would be rounded to a double).
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { ExpNeg, type ExactRatio, expNegUnit } from './bernoulli.js'
import { type GeometricTable, geometricTable } from './geometric.js'
import { approxRatio, dyadic } from './rational.js'

/** Discrete Laplace, pmf ∝ exp(−|x|/t) on ℤ, for any positive finite double t (a double is a dyadic rational, so the sampler is exact for the value given). */
export interface DiscreteLaplaceSampler {
  readonly scale: number
  sample(s: WordStream): number
  /** Fills `out` with successive draws (the words `sample` would read, in the same order) and returns it. */
  fill<A extends Float64Array>(s: WordStream, out: A): A
  /**
   * out[i] = counts[i] + the next draw, for i = from … to − 1 in order: the words and sums of `fill`
   * over those cells followed by the addition, without the noise ever stored on its own.
   */
  fillAdd(s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void
}

/** The largest scale accepted: beyond it, draws of 2^53 or more (not exact as doubles) stop being negligible. */
export const MAX_DISCRETE_LAPLACE_SCALE = 2 ** 46

/** Fills `out` with successive `sample`s: the same words in the same order as calling it out.length times. */
export const fillSamples = <A extends Float64Array>(sampler: { sample(s: WordStream): number }, s: WordStream, out: A): A => {
  for (let i = 0; i < out.length; i++) out[i] = sampler.sample(s)
  return out
}

/** Throws a RangeError unless [from, to) is a range of cells of both `counts` and `out` (a `fillAdd` past either end would write nothing, or NaN). */
export const checkCells = (counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void => {
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from <= to && to <= out.length && to <= counts.length))
    throw new RangeError(`fillAdd: cells [${from}, ${to}) outside the counts (${counts.length}) or the output (${out.length})`)
}

/** `fillAdd` by successive `sample`s: out[i] = counts[i] + sample(s) for i = from … to − 1, the words of `fillSamples`. */
export const fillAddSamples = (sampler: { sample(s: WordStream): number }, s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void => {
  checkCells(counts, out, from, to)
  for (let i = from; i < to; i++) out[i] = (counts[i] as number) + sampler.sample(s)
}

/** The largest scale drawn from threshold tables (about 21.5·t entries of 8 bytes, built in milliseconds). */
export const TABLE_MAX_SCALE = 4096

/** Y by inversion against exact threshold tables; one word gives the sign bit and Y's 31-bit prefix. */
export class TableLaplace implements DiscreteLaplaceSampler {
  readonly scale: number
  /** The magnitude Y's threshold table (read in place by the discrete Gaussian's fillAdd, ./discrete-gaussian.ts). */
  readonly magnitude: GeometricTable
  constructor(scale: number) {
    this.scale = scale
    const { num, den } = dyadic(scale)
    this.magnitude = geometricTable(den, num)
  }
  sample(s: WordStream): number {
    for (;;) {
      const w = s.nextUint32()
      const y = this.magnitude.fromPrefix(s, w >>> 1)
      if ((w & 1) === 0) return y
      if (y !== 0) return -y
    }
  }
  /** `sample` out.length times, the same words in the same order (`fillAdd` onto zeros: 0 + a draw is the draw, never −0). */
  fill<A extends Float64Array>(s: WordStream, out: A): A {
    out.fill(0)
    this.fillAdd(s, out, out, 0, out.length)
    return out
  }

  /**
   * out[i] = counts[i] + `sample(s)` for i = from … to − 1, the same words in the same order, without a
   * call or an unpredictable branch per draw in the common case: the word w's cell of the guide,
   * w >>> (guideShift + 1), holds its prefix's count Y when that count is sure for every prefix of the
   * cell (`GeometricTable.sureGuide`: all but at most `last` of the 2^12 or more cells); otherwise
   * (a cell holding a threshold, a tie, the tail) `fromPrefix` decides from the same prefix after
   * the exact test F_{g+1} < v, reading further words from the stream, as `sample` does. The sign is
   * the word's low bit B, (1 − 2B)·Y = (Y xor −B) + B; B = 1, Y = 0 is rejected: the cell is written
   * counts[i] + 0 and written again by the next word, as `sample` starts over (so `out` may be
   * `counts` itself). The words are read from the stream's chunk in place (`peekChunk`); each word
   * fills at most one cell, so the inner loop runs to one bound, the chunk's end or to − i words on.
   * Measured at t = 2 (node bench/noise-table-ab.mjs, pinned to one core): see docs/trainers.md.
   */
  fillAdd(s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void {
    const m = this.magnitude
    const { floors, sureGuide } = m
    const cellShift = m.guideShift + 1 // the cell of prefix w >>> 1
    checkCells(counts, out, from, to)
    let i = from
    while (i < to) {
      const chunk = s.peekChunk()
      const words = chunk.words
      let p = chunk.next
      const end = Math.min(words.length, p + (to - i))
      while (p < end) {
        const w = words[p] as number
        const y = sureGuide[w >>> cellShift] as number
        if (y < 0) break
        p++
        const b = w & 1
        out[i] = (counts[i] as number) + ((y ^ -b) + b)
        i += 1 - (b & ((y - 1) >>> 31))
      }
      if (p === end) {
        s.skipTo(p)
        continue
      }
      // the word at p falls in a cell holding a threshold: Y = g if F_{g+1} < v, else from the prefix and further words
      const w = words[p++] as number
      const v = w >>> 1
      let y = -1 - (sureGuide[w >>> cellShift] as number)
      s.skipTo(p)
      if (!((floors[y + 1] as number) < v)) y = m.fromPrefix(s, v)
      const b = w & 1
      out[i] = (counts[i] as number) + (y - 2 * b * y)
      if (!(b === 1 && y === 0)) i++
    }
  }
}

/** Y = M·Q + R by Bernoulli trials (Algorithm 1), for scales too large for tables; exact for every t. */
export class BlockLaplace implements DiscreteLaplaceSampler {
  readonly scale: number
  /** t = num/den exactly. */
  private readonly num: bigint
  private readonly den: bigint
  /** M, the block length, and 2M, the range of u (R and the sign). */
  private readonly block: number
  private readonly twoBlock: number
  /** 1/t within relative 2^-52 (used only when t ≥ 1, so R/t < 1 is approximated within 2^-51). */
  private readonly inverse: number
  /** Bernoulli(exp(−M/t)). */
  private readonly step: ExpNeg
  /** The R under test, read by `rOverT` on the exact slow path. */
  private r = 0
  private readonly rOverT: ExactRatio = () => [BigInt(this.r) * this.den, this.num]

  constructor(scale: number) {
    this.scale = scale
    const { num, den } = dyadic(scale)
    this.num = num
    this.den = den
    this.block = Math.max(1, Math.floor(scale))
    this.twoBlock = 2 * this.block
    this.inverse = approxRatio(den, num)
    this.step = new ExpNeg(BigInt(this.block) * den, num)
  }

  sample(s: WordStream): number {
    for (;;) {
      let u: number
      let r: number
      do {
        u = s.uniformBelow(this.twoBlock)
        r = (u - (u & 1)) / 2
        // R = 0 is always accepted (exp(0) = 1); otherwise Bernoulli(exp(−R/t)), R/t < 1.
        this.r = r
      } while (r !== 0 && !expNegUnit(s, r * this.inverse, this.rOverT))
      let q = 0
      while (this.step.sample(s)) q++
      const y = q * this.block + r
      if ((u & 1) === 0) return y
      if (y !== 0) return -y // else B = 1, Y = 0: start over
    }
  }

  fill<A extends Float64Array>(s: WordStream, out: A): A {
    return fillSamples(this, s, out)
  }

  fillAdd(s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void {
    fillAddSamples(this, s, counts, out, from, to)
  }
}

/** Throws a RangeError unless 0 < x ≤ max (finite). */
export const checkScale = (name: string, x: number, max: number): void => {
  if (!(typeof x === 'number' && x > 0 && x <= max)) throw new RangeError(`${name} must be a positive finite number at most ${max}, got ${x}`)
}

/** An exact discrete Laplace sampler of scale t; throws RangeError unless 0 < t ≤ 2^46 (callers validate first). */
export const discreteLaplaceSampler = (scale: number): DiscreteLaplaceSampler => {
  checkScale('discrete Laplace scale', scale, MAX_DISCRETE_LAPLACE_SCALE)
  return scale <= TABLE_MAX_SCALE ? new TableLaplace(scale) : new BlockLaplace(scale)
}
