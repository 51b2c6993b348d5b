import { describe, expect, it } from 'vitest'
import { seededWords, WordStream } from '../../../src/core/words.js'
import { bernoulliExpNeg } from '../../../src/mechanisms/noise/index.js'
import { bernoulliRatioFrom, expNegOne, expNegUnit } from '../../../src/mechanisms/noise/bernoulli.js'
import { exactFloor, expNegBounds, LazyUniform } from '../../../src/mechanisms/noise/real.js'
import { approxRatio, dyadic } from '../../../src/mechanisms/noise/rational.js'
import { scripted } from './stats.js'

/** A stream handing out `script`, then seeded words; chunk 1, so `used()` counts the words read. */
const streamOf = (script: ReadonlyArray<number>): { s: WordStream; used: () => number } => {
  const src = scripted(script, seededWords('after-script'))
  return { s: new WordStream(src, 1), used: src.used }
}

/** Frequency of `trial` over n runs is within 5 binomial standard deviations of p. */
const expectFrequency = (trial: () => boolean, p: number, n: number): void => {
  let hits = 0
  for (let i = 0; i < n; i++) if (trial()) hits++
  expect(Math.abs(hits - n * p)).toBeLessThanOrEqual(5 * Math.sqrt(n * p * (1 - p)) + 1e-9)
}

describe('bernoulliExpNeg', () => {
  it.each([
    [0, 1],
    [1, 3],
    [1, 1],
    [5, 2],
    [20, 1],
    [7, 10],
  ])('Bernoulli(exp(−%d/%d)) hits within 5 sigma of its probability over 200k trials', (n, d) => {
    const s = new WordStream(seededWords(`bern-${n}/${d}`))
    expectFrequency(() => bernoulliExpNeg(s, n, d), Math.exp(-n / d), 200000)
  })

  it('takes bigint arguments (including a 60-bit denominator) and rejects non-integers or d = 0', () => {
    const s = new WordStream(seededWords('big'))
    const d = (1n << 60n) + 1n
    expectFrequency(() => bernoulliExpNeg(s, d / 2n, d), Math.exp(-0.5), 50000)
    expect(bernoulliExpNeg(s, 0n, 5n)).toBe(true)
    for (const [n, dd] of [[1, 0], [-1, 2], [1.5, 2], [1, 2.5], [2 ** 60, 1]] as const) expect(() => bernoulliExpNeg(s, n, dd)).toThrow(RangeError)
    expect(() => bernoulliExpNeg(s, -1n, 2n)).toThrow(RangeError)
  })

  it('Bernoulli(exp(−1)) by Algorithm 1 from K = 2', () => {
    const s = new WordStream(seededWords('one'))
    expectFrequency(() => expNegOne(s), Math.exp(-1), 200000)
  })
})

describe('the exact slow paths', () => {
  it('bernoulliRatioFrom continues a tie word by word and settles dyadic ends', () => {
    const third = Math.floor(2 ** 32 / 3) // 2^32/3 = 1431655765.33…: the expansion of 1/3 repeats this word
    expect(bernoulliRatioFrom(streamOf([]).s, third - 1, 1n, 3n)).toBe(true)
    expect(bernoulliRatioFrom(streamOf([]).s, third + 1, 1n, 3n)).toBe(false)
    const tieThenBelow = streamOf([third, 0])
    expect(bernoulliRatioFrom(tieThenBelow.s, third, 1n, 3n)).toBe(true)
    expect(tieThenBelow.used()).toBe(2)
    expect(bernoulliRatioFrom(streamOf([third, third + 1]).s, third, 1n, 3n)).toBe(false)
    // U ≥ 1/2 exactly when its first word is 2^31: no further word is needed.
    const half = streamOf([])
    expect(bernoulliRatioFrom(half.s, 2 ** 31, 1n, 2n)).toBe(false)
    expect(half.used()).toBe(0)
    expect(bernoulliRatioFrom(half.s, 2 ** 32 - 1, 3n, 2n)).toBe(true) // n/d ≥ 1
  })

  it('Algorithm 1 sends words near its double threshold to the exact comparison, which decides as the exact rule', () => {
    // γ = 1/3: the first trial is Bernoulli(1/3), threshold 2^32/3 = 1431655765.33…; the second Bernoulli(1/6).
    const exact = (): readonly [bigint, bigint] => [1n, 3n]
    const t1 = Math.floor(2 ** 32 / 3)
    const cases: Array<[number[], boolean]> = [
      [[t1 - 1, 2 ** 32 - 1], false], // true, then false: K = 2 (even)
      [[t1 + 1], true], // false at once: K = 1 (odd)
      [[t1, 0, 2 ** 32 - 1], false], // tie, settled below by the next word (true), then false
      [[t1, 2 ** 32 - 1], true], // tie settled above: false
      [[t1 - 1, 0, 2 ** 32 - 1], true], // true, true, false: K = 3
    ]
    for (const [script, outcome] of cases) {
      const { s, used } = streamOf(script)
      expect(expNegUnit(s, 1 / 3, exact)).toBe(outcome)
      expect(used()).toBe(script.length)
    }
  })

  it('expNegBounds brackets exp(−x) within 4 units at any precision', () => {
    // exp(−1) = 0.36787944117144232159552377016146086744581113103176… (50 digits)
    const digits = 36787944117144232159552377016146086744581113103176n
    const ten50 = 10n ** 50n
    const [lo, hi] = expNegBounds(1n, 1n, 160)
    expect(hi - lo <= 4n).toBe(true)
    expect(lo <= ((digits + 1n) << 160n) / ten50 + 1n).toBe(true)
    expect(hi >= (digits << 160n) / ten50).toBe(true)
    expect(expNegBounds(0n, 7n, 40)).toEqual([1n << 40n, 1n << 40n])
    for (const [n, d] of [[1n, 3n], [5n, 2n], [30n, 1n], [123456789n, 1000n], [(1n << 70n) + 3n, 1n << 71n]] as const) {
      const x = Number(n) / Number(d)
      for (const bits of [20, 64, 130]) {
        const [l, h] = expNegBounds(n, d, bits)
        expect(h - l <= 4n && l <= h).toBe(true)
        // Consistent across precisions: the 40-bit-finer interval lies within this one.
        const [fl, fh] = expNegBounds(n, d, bits + 40)
        expect(fl <= h << 40n && fh >= l << 40n).toBe(true)
        if (bits === 64 && x < 40) expect(Math.abs(Number(l) / 2 ** 64 - Math.exp(-x))).toBeLessThan(1e-15 + 1e-12 * Math.exp(-x))
      }
    }
  })

  it('exactFloor and LazyUniform compare exactly', () => {
    expect(exactFloor((b) => expNegBounds(1n, 2n, b), 32)).toBe(Math.floor(2 ** 32 * Math.exp(-0.5)))
    const a = Math.floor(2 ** 32 * Math.exp(-0.5))
    const below = streamOf([0])
    expect(new LazyUniform(a, 32).below(below.s, (b) => expNegBounds(1n, 2n, b))).toBe(true)
    expect(below.used()).toBe(1)
    expect(new LazyUniform(a + 1, 32).below(streamOf([]).s, (b) => expNegBounds(1n, 2n, b))).toBe(false)
    expect(new LazyUniform(a, 32).below(streamOf([2 ** 32 - 1]).s, (b) => expNegBounds(1n, 2n, b))).toBe(false)
  })
})

describe('exact rationals', () => {
  it('dyadic gives every double exactly; approxRatio is within 2^-52', () => {
    expect(dyadic(2 / 0.7)).toEqual({ num: 6433713753386423n, den: 2n ** 51n })
    expect(dyadic(0.5)).toEqual({ num: 1n, den: 2n })
    expect(dyadic(6)).toEqual({ num: 6n, den: 1n })
    expect(dyadic(Number.MIN_VALUE)).toEqual({ num: 1n, den: 2n ** 1074n })
    expect(dyadic(2 ** 80)).toEqual({ num: 2n ** 80n, den: 1n })
    for (const x of [2 / 0.7, 1e-300, 1e300, 0.1, 3]) {
      const { num, den } = dyadic(x)
      expect(approxRatio(num, den)).toBe(x)
      expect(Math.abs(approxRatio(den, num) * x - 1)).toBeLessThan(2 ** -51)
    }
    expect(approxRatio(0n, 3n)).toBe(0)
    expect(() => dyadic(-1)).toThrow(RangeError)
  })
})
