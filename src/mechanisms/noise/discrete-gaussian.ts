/**
 * The discrete Gaussian, pmf ∝ exp(−x²/(2σ²)) on ℤ, sampled exactly by Canonne, Kamath & Steinke
 * 2020 ("The Discrete Gaussian for Differential Privacy"), Algorithm 3: draw Y from the discrete
 * Laplace of scale t (./discrete-laplace.ts) and accept it with probability
 * exp(−(|Y| − σ²/t)²/(2σ²)), else draw again. The target over the proposal is
 * exp(−y²/(2σ²) + |y|/t) = exp(−(|y| − σ²/t)²/(2σ²))·exp(σ²/(2t²)), so this is exact for every
 * t > 0. CKS take t = ⌊σ⌋ + 1 to keep t an integer for their Algorithm 2; our Laplace sampler is
 * exact for any double, so we take t = σ, which maximises the acceptance rate for large σ
 * (→ √(2π)·e^(-1/2)/2 ≈ 0.76) and lifts it from 0.54 to 0.70 at σ = 1. The exponent is then
 * γ(y) = (y − σ)²/(2σ²) = (y·b − a)²/(2a²), σ = a/b the double's exact value (b a power of two);
 * its BigInt form is built only off the common path. The acceptance:
 * - table (σ ≤ 4096, σ ≥ 2^-500, y < 9σ): one word w against A_y = ⌊2^32·exp(−γ(y))⌋, computed
 *   exactly on first use (./real.ts) — w < A_y accepts, w > A_y rejects, w = A_y continues with an
 *   exact BigInt comparison (the argument of ./geometric.ts). A_y = 0 without BigInt when the
 *   double γ̃ > 23: then γ > 23/(1 + 2^-50) > 32·ln 2, so exp(−γ) < 2^-32.
 * - otherwise (y ≥ 9σ, probability below e^-8, or σ beyond the tables): γ̃ is split into
 *   n = ⌈γ̃·(1 + 2^-40) + 2^-40⌉ equal parts and n trials of Bernoulli(exp(−γ/n)) run by Algorithm 1
 *   (./bernoulli.ts): exactly Bernoulli(exp(−γ)) for any integer n ≥ γ. γ̃ > 2^40 or σ < 2^-500
 *   take exact BigInt instead.
 *
 * The double γ̃ (σ ≥ 2^-500, so 1/(2σ²) is a normal double): d̃ = fl(y − σ) and
 * γ̃ = fl(fl(d̃²)·k̃), k̃ within relative 2^-52 of 1/(2σ²). The relative errors add up to
 * 2·2^-53 (d̃ squared) + 2^-53 (the square) + 2^-52 (k̃) + 2^-53 (the product) = 6·2^-53 to first
 * order, so |γ̃ − γ| ≤ 2^-50·γ. Hence n ≥ γ (γ ≤ γ̃/(1 − 2^-50) < γ̃·(1 + 2^-40) + 2^-40 ≤ n),
 * and the part g = fl(γ̃/n) is within 2^-50·γ/n + 2^-53 ≤ 2^-34 of γ/n, as Algorithm 1's fast
 * path requires (`expNegUnit`).
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { bernoulliExpNeg, type ExactRatio, expNegUnit } from './bernoulli.js'
import { BlockLaplace, checkCells, checkScale, type DiscreteLaplaceSampler, discreteLaplaceSampler, fillAddSamples, TABLE_MAX_SCALE, TableLaplace } from './discrete-laplace.js'
import { approxRatio, dyadic } from './rational.js'
import { exactFloor, expNegBounds, LazyUniform } from './real.js'

/** Discrete Gaussian, pmf ∝ exp(−x²/(2σ²)) on ℤ, exact for any positive finite double σ (σ² computed exactly as a rational from the double σ). */
export interface DiscreteGaussianSampler {
  readonly sigma: number
  sample(s: WordStream): number
  /** Fills `out` with successive draws (the words `sample` would read, in the same order) and returns it. */
  fill<A extends Float64Array>(s: WordStream, out: A): A
  /** out[i] = counts[i] + the next draw, for i = from … to − 1 in order (the words of `fill` over those cells). */
  fillAdd(s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void
}

/** The largest σ accepted (the scale of its Laplace proposal). */
export const MAX_DISCRETE_GAUSSIAN_SIGMA = 2 ** 46

/** Below this σ the double γ could underflow; such σ always take the exact path (every draw is 0 but with probability exp(−2^999)). */
const MIN_FAST_SIGMA = 2 ** -500
const MAX_FAST_GAMMA = 2 ** 40
/** γ̃ above this proves exp(−γ) < 2^-32 (γ > 22.9 > 32·ln 2 = 22.18…). */
const NEGLIGIBLE_GAMMA = 23

/** The sampler; `tables: false` forces the table-free paths (Block Laplace proposals, Algorithm 1 acceptance) that σ > 4096 takes. */
export class DiscreteGaussian implements DiscreteGaussianSampler {
  readonly sigma: number
  private readonly proposal: DiscreteLaplaceSampler
  /** σ = a/b: b and a, and 2a² (the exponent's denominator). */
  private readonly b: bigint
  private readonly a: bigint
  private readonly den: bigint
  /** 1/(2σ²) within relative 2^-52. */
  private readonly halfPrecision: number
  private readonly fast: boolean
  /** A_y = ⌊2^32·exp(−γ(y))⌋ for y below its length, NaN until first needed; empty when σ is beyond the tables. */
  private readonly thresholds: Float64Array
  /** |Y| and n of the trial under way, read by `part` on the exact slow path. */
  private y = 0
  private parts = 1
  private readonly part: ExactRatio = () => {
    const [n, d] = this.exponent(this.y)
    return [n, d * BigInt(this.parts)]
  }

  constructor(sigma: number, tables = true) {
    this.sigma = sigma
    const { num: a, den: b } = dyadic(sigma)
    this.proposal = tables ? discreteLaplaceSampler(sigma) : new BlockLaplace(sigma)
    this.a = a
    this.b = b
    this.den = 2n * a * a
    this.halfPrecision = approxRatio(b * b, this.den)
    this.fast = sigma >= MIN_FAST_SIGMA
    const tabled = tables && this.fast && sigma <= TABLE_MAX_SCALE
    this.thresholds = new Float64Array(tabled ? Math.ceil(9 * sigma) : 0).fill(Number.NaN)
  }

  /** γ(y) = (y·b − a)²/(2a²) = (y − σ)²/(2σ²), exactly. */
  private exponent(y: number): readonly [bigint, bigint] {
    const e = BigInt(y) * this.b - this.a
    return [e * e, this.den]
  }

  /** The double γ̃(y), within 2^-50·γ(y) when σ ≥ 2^-500 (module comment). */
  private approxExponent(y: number): number {
    const dev = y - this.sigma
    return dev * dev * this.halfPrecision
  }

  /**
   * Bernoulli(exp(−γ(y))) for y = |Y|. The common case — a stored threshold the word differs from —
   * is kept this small so that it inlines (an out-of-line call returning a word above 2^31 would
   * box it: an allocation per draw); first uses, ties and rare y go to the methods below.
   */
  private accept(s: WordStream, y: number): boolean {
    const thresholds = this.thresholds
    if (y >= thresholds.length) return this.acceptByTrials(s, y)
    const a = thresholds[y] as number
    const w = s.nextUint32()
    if (w !== a && a === a) return w < a
    return this.acceptByThreshold(s, y, w)
  }

  /** The table path when A_y is not yet computed (NaN) or the word w equals it (exact continuation). */
  private acceptByThreshold(s: WordStream, y: number, w: number): boolean {
    let a = this.thresholds[y] as number
    if (a !== a) a = this.threshold(y)
    if (w !== a) return w < a
    const [n, d] = this.exponent(y)
    return new LazyUniform(w, 32).below(s, (bits) => expNegBounds(n, d, bits))
  }

  /** Algorithm 1 on n equal parts of the double γ̃ (module comment), or exact BigInt when γ̃ is out of its range. */
  private acceptByTrials(s: WordStream, y: number): boolean {
    const gamma = this.approxExponent(y)
    if (!(this.fast && gamma <= MAX_FAST_GAMMA)) {
      const [n, d] = this.exponent(y)
      return bernoulliExpNeg(s, n, d)
    }
    const parts = Math.ceil(gamma * (1 + 2 ** -40) + 2 ** -40)
    const g = gamma / parts
    this.y = y
    this.parts = parts
    for (let i = 0; i < parts; i++) if (!expNegUnit(s, g, this.part)) return false
    return true
  }

  /** A_y, computed exactly and stored. */
  private threshold(y: number): number {
    let a = 0
    if (!(this.approxExponent(y) > NEGLIGIBLE_GAMMA)) {
      const [n, d] = this.exponent(y)
      a = exactFloor((bits) => expNegBounds(n, d, bits), 32)
    }
    this.thresholds[y] = a
    return a
  }

  sample(s: WordStream): number {
    for (;;) {
      const y = this.proposal.sample(s)
      if (this.accept(s, Math.abs(y))) return y
    }
  }

  /** `sample` out.length times, the same words in the same order (`fillAdd` onto zeros: 0 + a draw is the draw, never −0). */
  fill<A extends Float64Array>(s: WordStream, out: A): A {
    out.fill(0)
    this.fillAdd(s, out, out, 0, out.length)
    return out
  }

  /**
   * out[i] = counts[i] + `sample(s)` for i = from … to − 1, the same words in the same order. With
   * tables, the common attempt is read from the stream's chunk in place (`peekChunk`): the proposal
   * word's Y from the Laplace's `sureGuide` (./discrete-laplace.ts `fillAdd`), B = 1, Y = 0 rejected,
   * then the next word against a stored A_Y it differs from — accepted below it, rejected above (the
   * proposal drawn again), as `accept` decides. Anything else (a cell holding a threshold, A_Y not
   * yet computed or equal to the word, Y beyond the table, a chunk's last word) is left, before its
   * proposal word, to one whole `sample`: every attempt starts afresh from the stream (Algorithms 2
   * and 3 loop back to a new proposal), so stopping between attempts reads exactly the same words.
   */
  fillAdd(s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void {
    const proposal = this.proposal
    const thresholds = this.thresholds
    if (!(proposal instanceof TableLaplace) || thresholds.length === 0) {
      fillAddSamples(this, s, counts, out, from, to)
      return
    }
    checkCells(counts, out, from, to)
    const sureGuide = proposal.magnitude.sureGuide
    const cellShift = proposal.magnitude.guideShift + 1
    const tabled = thresholds.length
    let i = from
    while (i < to) {
      const chunk = s.peekChunk()
      const words = chunk.words
      const last = words.length - 1 // an attempt in place needs its acceptance word in the chunk too
      let p = chunk.next
      while (i < to && p < last) {
        const w = words[p] as number
        const y = sureGuide[w >>> cellShift] as number
        if (y < 0 || y >= tabled) break
        const a = thresholds[y] as number
        const u = words[p + 1] as number
        if (u === a || a !== a) break
        const b = w & 1
        const restart = b & ((y - 1) >>> 31) // B = 1, Y = 0: the proposal starts over (one word read)
        const kept = (1 - restart) & +(u < a) // else the acceptance word: below A_Y keeps the draw
        // branch-free: a draw not kept writes counts[i] + 0 (so `out` may be `counts`), and the cell is written again
        out[i] = (counts[i] as number) + (((y ^ -b) + b) & -kept)
        i += kept
        p += 2 - restart
      }
      s.skipTo(p)
      if (i < to) {
        // the word at p starts an attempt not decided in place (or the chunk's last word): one whole draw
        out[i] = (counts[i] as number) + this.sample(s)
        i++
      }
    }
  }
}

/** An exact discrete Gaussian sampler of scale σ; throws RangeError unless 0 < σ ≤ 2^46 (callers validate first). */
export const discreteGaussianSampler = (sigma: number): DiscreteGaussianSampler => {
  checkScale('discrete Gaussian sigma', sigma, MAX_DISCRETE_GAUSSIAN_SIGMA)
  return new DiscreteGaussian(sigma)
}
