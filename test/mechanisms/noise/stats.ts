/**
 * Goodness-of-fit helpers for the noise tests: Pearson's chi-square against exact probabilities
 * with pooled tails, and scripted word sources that steer a sampler onto its rare exact paths.
 */
import quantile from '@stdlib/stats-base-dists-normal-quantile'
import fc from 'fast-check'
import { expect } from 'vitest'
import { type RandomWords, seededWords, WordStream } from '../../../src/core/words.js'

/**
 * The chi-square critical value at upper-tail level alpha by the Wilson–Hilferty cube-root normal
 * approximation (relative error well under 1 % for df ≥ 3 at the levels used here).
 */
export const chiSquareCritical = (df: number, alpha: number): number => {
  const z = quantile(1 - alpha, 0, 1)
  const a = 2 / (9 * df)
  return df * (1 - a + z * Math.sqrt(a)) ** 3
}

export interface Fit {
  readonly statistic: number
  readonly df: number
  readonly critical: number
}

/**
 * Pearson's statistic of integer draws against pmf(x) (normalised), over the cells x with expected
 * count ≥ 5 around 0 and two pooled tails (everything below / above); significance level alpha.
 */
export const chiSquareFit = (draws: ArrayLike<number>, pmf: (x: number) => number, alpha: number): Fit => {
  const n = draws.length
  let lo = 0
  let hi = 0
  while (n * pmf(lo - 1) >= 5) lo--
  while (n * pmf(hi + 1) >= 5) hi++
  const inner = new Float64Array(hi - lo + 1)
  let below = 0
  let above = 0
  for (let i = 0; i < n; i++) {
    const x = draws[i] as number
    if (x < lo) below++
    else if (x > hi) above++
    else inner[x - lo] = (inner[x - lo] as number) + 1
  }
  let mass = 0
  const cells: Array<[number, number]> = []
  for (let x = lo; x <= hi; x++) {
    const p = pmf(x)
    mass += p
    cells.push([inner[x - lo] as number, n * p])
  }
  // The tails split the remaining mass by symmetry when the pmf is symmetric; compute each exactly otherwise.
  let pBelow = 0
  for (let x = lo - 1; pmf(x) > 0 && x > lo - 100000; x--) pBelow += pmf(x)
  const pAbove = Math.max(0, 1 - mass - pBelow)
  const tails: Array<[number, number]> = [[below, n * pBelow], [above, n * pAbove]]
  // Pool the two tails into one cell when either is small.
  if (n * pBelow >= 5 && n * pAbove >= 5) cells.push(...tails)
  else cells.push([below + above, n * (pBelow + pAbove)])
  let statistic = 0
  for (const [o, e] of cells) statistic += e > 0 ? ((o - e) * (o - e)) / e : o > 0 ? Infinity : 0
  const df = cells.length - 1
  return { statistic, df, critical: chiSquareCritical(df, alpha) }
}

/** Mean, variance and fourth central moment of a symmetric pmf on ℤ (summed until negligible). */
export const moments = (pmf: (x: number) => number): { variance: number; fourth: number } => {
  let variance = 0
  let fourth = 0
  for (let x = 1; ; x++) {
    const p = pmf(x)
    variance += 2 * p * x * x
    fourth += 2 * p * x ** 4
    if (p * x ** 4 < 1e-18 && x > 10) return { variance, fourth }
  }
}

/** A symmetric pmf ∝ weight(|x|) on ℤ, normalised by summation. */
export const normalise = (weight: (x: number) => number): ((x: number) => number) => {
  let z = weight(0)
  for (let x = 1; ; x++) {
    const w = weight(x)
    z += 2 * w
    if (w < 1e-20 * z) break
  }
  return (x) => weight(Math.abs(x)) / z
}

/** A source that hands out `script` first, then the words of `then`, counting every word it gives. */
export const scripted = (script: ReadonlyArray<number>, then: RandomWords): RandomWords & { readonly used: () => number } => {
  let pos = 0
  let used = 0
  return {
    kind: `scripted+${then.kind}`,
    secret: false,
    used: () => used,
    fill: (out) => {
      let i = 0
      for (; i < out.length && pos < script.length; i++) out[i] = script[pos++] as number
      if (i < out.length) then.fill(out.subarray(i))
      used += out.length
    },
  }
}

/** Level of every goodness-of-fit test (fixed seeds, so each test is deterministic). */
export const ALPHA = 1e-4

/**
 * Checks integer draws against the symmetric law ∝ weight(|x|) on ℤ: every draw an integer (never
 * −0); Pearson's chi-square at level ALPHA with pooled tails; symmetry (positives among the
 * non-zero draws within 5 binomial standard deviations of half); mean within 5 standard errors of
 * 0; sample variance within 5 standard errors of the exact variance.
 */
export const expectLaw = (draws: Float64Array, weight: (y: number) => number): void => {
  const pmf = normalise(weight)
  const n = draws.length
  let bad = 0
  let positive = 0
  let nonZero = 0
  let sum = 0
  let squares = 0
  for (const x of draws) {
    if (!Number.isInteger(x) || Object.is(x, -0)) bad++
    if (x !== 0) nonZero++
    if (x > 0) positive++
    sum += x
    squares += x * x
  }
  expect(bad).toBe(0)
  const fit = chiSquareFit(draws, pmf, ALPHA)
  expect(fit.statistic).toBeLessThan(fit.critical)
  expect(Math.abs(positive - nonZero / 2)).toBeLessThanOrEqual(5 * Math.sqrt(nonZero / 4))
  const { variance, fourth } = moments(pmf)
  const mean = sum / n
  expect(Math.abs(mean)).toBeLessThanOrEqual(5 * Math.sqrt(variance / n))
  const sampleVariance = (squares - n * mean * mean) / (n - 1)
  expect(Math.abs(sampleVariance - variance)).toBeLessThanOrEqual(5 * Math.sqrt((fourth - variance * variance) / n))
}

/** An integer sampler as the noise modules export them. */
interface IntegerSampler {
  sample(s: WordStream): number
  fill(s: WordStream, out: Float64Array): Float64Array
}

/**
 * Property: for any seed, parameter, length and chunk size, `fill` gives the draws that repeated
 * `sample` gives from the same seed, and leaves the stream at the same word.
 */
export const expectFillMatchesSample = (make: (parameter: number) => IntegerSampler, parameters: ReadonlyArray<number>, seed: number): void => {
  fc.assert(
    fc.property(fc.integer(), fc.constantFrom(...parameters), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 64 }), (wordSeed, parameter, n, chunk) => {
      const sampler = make(parameter)
      const a = new WordStream(seededWords(wordSeed), chunk)
      const b = new WordStream(seededWords(wordSeed))
      const filled = sampler.fill(a, new Float64Array(n))
      const sampled = Float64Array.from({ length: n }, () => sampler.sample(b))
      expect(filled).toEqual(sampled)
      expect(a.nextUint32()).toBe(b.nextUint32())
    }),
    { seed, numRuns: 150 },
  )
}
