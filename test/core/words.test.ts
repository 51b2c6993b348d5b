import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { type Rng, seeded, secure } from '../../src/core/rng.js'
import { type RandomWords, secureWords, seededWords, WordStream, wordsFromRng } from '../../src/core/words.js'
import { FastUniform } from '../../src/trainers/lda/random.js'
import { chiSquareCritical } from '../mechanisms/noise/stats.js'

const words = (source: RandomWords, n: number): number[] => {
  const out = new Uint32Array(n)
  source.fill(out)
  return [...out]
}

const bump = (counts: Float64Array, i: number): void => {
  counts[i] = (counts[i] as number) + 1
}

/** Level of every chi-square test here (fixed seeds, so each test is deterministic). */
const ALPHA = 1e-4

describe('random word sources', () => {
  it('seeded words repeat exactly from the same seed, differ across seeds, and are labelled not secret', () => {
    const a = seededWords(42)
    expect(a.kind).toBe('seeded:42')
    expect(a.secret).toBe(false)
    expect(words(a, 1000)).toEqual(words(seededWords(42), 1000))
    expect(words(seededWords('42'), 10)).toEqual(words(seededWords(42), 10))
    expect(words(seededWords(43), 10)).not.toEqual(words(seededWords(42), 10))
  })

  it("are the trainer's xoshiro128** stream for the same seed (FastUniform), and wordsFromRng of seeded(seed)", () => {
    const fast = new FastUniform(seeded('x'))
    const expected = Array.from({ length: 500 }, () => fast.nextUint32())
    expect(words(seededWords('x'), 500)).toEqual(expected)
    const fromRng = wordsFromRng(seeded('x'))
    expect(fromRng.kind).toBe('seeded:x')
    expect(words(fromRng, 500)).toEqual(expected)
  })

  it('wordsFromRng: node:crypto for a secure Rng; otherwise a seeded stream labelled seeded:<kind>', () => {
    const s = wordsFromRng(secure())
    expect([s.kind, s.secret]).toEqual(['secure', true])
    let i = 0
    const custom: Rng = { kind: 'fixture', next: () => (i++ * 0.1234567) % 1 }
    const c = wordsFromRng(custom)
    expect([c.kind, c.secret]).toEqual(['seeded:fixture', false])
  })

  it('secure words are secret and differ between two instances', () => {
    const a = secureWords()
    expect([a.kind, a.secret]).toEqual(['secure', true])
    expect(words(a, 64)).not.toEqual(words(secureWords(), 64))
  })
})

describe('WordStream', () => {
  it('reads the source in order whatever the chunk size, and fillWords continues the same sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }), (chunk, runs) => {
        const total = runs.reduce((a, b) => a + b + 1, 0)
        const expected = words(seededWords('order'), total)
        const s = new WordStream(seededWords('order'), chunk)
        const got: number[] = []
        for (const r of runs) {
          got.push(s.nextUint32())
          const block = new Uint32Array(r)
          s.fillWords(block)
          got.push(...block)
        }
        expect(got).toEqual(expected)
      }),
      { seed: 3, numRuns: 200 },
    )
  })

  it('restart(source) reads as a new stream over source would, whatever was read or buffered before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.array(fc.tuple(fc.integer(), fc.integer({ min: 0, max: 120 })), { maxLength: 6 }), (chunk, runs) => {
        const s = new WordStream(seededWords('before'), chunk)
        s.nextUint32()
        for (const [seed, n] of runs) {
          const source = seededWords(seed)
          expect(s.restart(source).source).toBe(source)
          const got = Array.from({ length: n }, () => s.nextUint32())
          expect(got).toEqual(words(seededWords(seed), n))
        }
      }),
      { seed: 4, numRuns: 200 },
    )
  })

  it('nextDouble is in [0, 1) with 53 random bits', () => {
    const s = new WordStream(seededWords(5))
    let bad = 0
    for (let i = 0; i < 20000; i++) {
      const u = s.nextDouble()
      if (!(u >= 0 && u < 1 && Number.isInteger(u * 2 ** 53))) bad++
    }
    expect(bad).toBe(0)
    // All-ones words give the largest value, 1 − 2^-53; all-zero words give 0.
    const ones = new WordStream({ kind: 'ones', secret: false, fill: (o) => o.fill(0xffffffff) })
    expect(ones.nextDouble()).toBe(1 - 2 ** -53)
    expect(new WordStream({ kind: 'zeros', secret: false, fill: (o) => o.fill(0) }).nextDouble()).toBe(0)
  })

  /** Pearson's statistic of counts against expected counts. */
  const pearson = (counts: ArrayLike<number>, expected: ArrayLike<number>): number => {
    let x = 0
    for (let i = 0; i < counts.length; i++) x += ((counts[i] as number) - (expected[i] as number)) ** 2 / (expected[i] as number)
    return x
  }

  it.each([3, 7, 1000, 2 ** 31 + 1])('uniformBelow(%d) is uniform: chi-square at level 1e-4 over residue classes', (n) => {
    const s = new WordStream(seededWords(`below-${n}`))
    const draws = 120000
    const cells = Math.min(n, 10)
    const counts = new Float64Array(cells)
    let outside = 0
    for (let i = 0; i < draws; i++) {
      const x = s.uniformBelow(n)
      if (!(x >= 0 && x < n && Number.isInteger(x))) outside++
      bump(counts, x % cells)
    }
    expect(outside).toBe(0)
    // Exact cell probabilities: how many of 0 … n−1 fall in each residue class.
    const expected = Array.from({ length: cells }, (_, r) => (draws * (Math.floor((n - 1 - r) / cells) + 1)) / n)
    expect(pearson(counts, expected)).toBeLessThan(chiSquareCritical(cells - 1, ALPHA))
  })

  it('uniformBelow(2^32 + 3) is uniform: chi-square at level 1e-4 by residue mod 7 and by range', () => {
    const n = 2 ** 32 + 3
    const s = new WordStream(seededWords('wide'))
    const draws = 120000
    const residues = new Float64Array(7)
    const ranges = new Float64Array(8)
    let outside = 0
    for (let i = 0; i < draws; i++) {
      const x = s.uniformBelow(n)
      if (!(x >= 0 && x < n && Number.isInteger(x))) outside++
      bump(residues, x % 7)
      bump(ranges, Math.min(7, Math.floor(x / 2 ** 29))) // the 3 values ≥ 2^32 pooled into the top range
    }
    expect(outside).toBe(0)
    const byResidue = Array.from({ length: 7 }, (_, r) => (draws * (Math.floor((n - 1 - r) / 7) + 1)) / n)
    const byRange = Array.from({ length: 8 }, (_, k) => (draws * (k === 7 ? 2 ** 29 + 3 : 2 ** 29)) / n)
    expect(pearson(residues, byResidue)).toBeLessThan(chiSquareCritical(6, ALPHA))
    expect(pearson(ranges, byRange)).toBeLessThan(chiSquareCritical(7, ALPHA))
  })

  it('uniformBelow covers its edge cases and rejects what it cannot draw exactly', () => {
    const s = new WordStream(seededWords(9))
    expect(s.uniformBelow(1)).toBe(0)
    let bad = 0
    let top = 0
    for (let i = 0; i < 1000; i++) {
      const x = s.uniformBelow(2 ** 53)
      if (!(Number.isInteger(x) && x >= 0 && x < 2 ** 53)) bad++
      if (x >= 2 ** 52) top++
      if (!(s.uniformBelow(2 ** 32) < 2 ** 32)) bad++
      if (![0, 1].includes(s.uniformBelow(2))) bad++
    }
    expect(bad).toBe(0)
    expect(top).toBeGreaterThan(400) // the top bit is drawn: about half of the draws below 2^53 are ≥ 2^52
    for (const bad of [0, -1, 1.5, 2 ** 53 + 2, Number.NaN, Infinity]) expect(() => s.uniformBelow(bad)).toThrow(RangeError)
    expect(() => new WordStream(seededWords(1), 0)).toThrow(RangeError)
  })
})
