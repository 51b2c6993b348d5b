import { describe, expect, it } from 'vitest'
import { seededWords, WordStream } from '../../../src/core/words.js'
import { discreteGaussianSampler, MAX_DISCRETE_GAUSSIAN_SIGMA } from '../../../src/mechanisms/noise/index.js'
import { DiscreteGaussian } from '../../../src/mechanisms/noise/discrete-gaussian.js'
import { expectFillMatchesSample, expectLaw, scripted } from './stats.js'

const DRAWS = 200000

const draws = (sampler: { fill(s: WordStream, out: Float64Array): Float64Array }, seed: string): Float64Array =>
  sampler.fill(new WordStream(seededWords(seed)), new Float64Array(DRAWS))

const gaussian = (sigma: number) => (y: number) => Math.exp(-(y * y) / (2 * sigma * sigma))

describe('discrete Gaussian: the exact law ∝ exp(−x²/(2σ²))', () => {
  // 1.7 and 0.3 are not dyadic: σ² is a rational with a 2^104-ish denominator.
  it.each([0.3, 0.5, 1, 1.7, 5, 50])('tables, σ = %d: chi-square, symmetry, mean and variance over 200k draws', (sigma) => {
    expectLaw(draws(discreteGaussianSampler(sigma), `gauss-${sigma}`), gaussian(sigma))
  })

  it.each([0.5, 1.7, 5])('table-free paths (Bernoulli-block proposals, Algorithm 1 acceptance: σ > 4096), σ = %d: the same checks', (sigma) => {
    expectLaw(draws(new DiscreteGaussian(sigma, false), `gauss-free-${sigma}`), gaussian(sigma))
  })

  it('large σ leaves the tables, with the right spread', () => {
    const sigma = 6000.5
    const out = discreteGaussianSampler(sigma).fill(new WordStream(seededWords('wide')), new Float64Array(40000))
    let squares = 0
    for (const x of out) squares += x * x
    // The sample second moment of a Gaussian has relative standard error √2/√n.
    expect(Math.abs(squares / out.length / sigma ** 2 - 1)).toBeLessThan(5 * Math.sqrt(2 / out.length))
    expect(out.every(Number.isInteger)).toBe(true)
  })

  it('fill gives the words and draws that repeated sample gives, from the same seed, whatever the chunk size', () => {
    expectFillMatchesSample(discreteGaussianSampler, [0.3, 1, 1.7, 5, 50, 5000.5], 13)
  })

  it('an acceptance word equal to its threshold is settled by the following words', () => {
    // σ = 1: the word 2^32 − 2 (sign +, prefix 2^31 − 1) proposes Y = 0, accepted with probability exp(−1/2).
    const a0 = Math.floor(2 ** 32 * Math.exp(-0.5))
    expect(Math.abs(2 ** 32 * Math.exp(-0.5) - a0 - 0.5)).toBeLessThan(0.49) // the double settles this floor
    const accepted = scripted([2 ** 32 - 2, a0, 0], seededWords('after'))
    expect(discreteGaussianSampler(1).sample(new WordStream(accepted, 1))).toBe(0)
    expect(accepted.used()).toBe(3)
    const rejected = scripted([2 ** 32 - 2, a0, 2 ** 32 - 1], seededWords('after'))
    discreteGaussianSampler(1).sample(new WordStream(rejected, 1))
    expect(rejected.used()).toBeGreaterThan(3) // rejected: another proposal was drawn
  })

  it('rejects σ it cannot sample; tiny σ gives 0', () => {
    for (const sigma of [0, -1, Number.NaN, Infinity, MAX_DISCRETE_GAUSSIAN_SIGMA * 2]) expect(() => discreteGaussianSampler(sigma)).toThrow(RangeError)
    expect(discreteGaussianSampler(MAX_DISCRETE_GAUSSIAN_SIGMA).sigma).toBe(MAX_DISCRETE_GAUSSIAN_SIGMA)
    const s = new WordStream(seededWords(2))
    for (const sigma of [1e-3, 2 ** -600]) expect(discreteGaussianSampler(sigma).fill(s, new Float64Array(100)).every((x) => x === 0)).toBe(true)
  })
})
