import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type RandomWords, seededWords, WordStream } from '../../../src/core/words.js'
import { tableNoiseSampler } from '../../../src/mechanisms/measurement.js'
import { BlockLaplace, fillSamples, TableLaplace } from '../../../src/mechanisms/noise/discrete-laplace.js'
import { DiscreteGaussian } from '../../../src/mechanisms/noise/discrete-gaussian.js'
import type { GeometricTable } from '../../../src/mechanisms/noise/geometric.js'
import { scripted } from './stats.js'

/**
 * The table path as it was before `fillAdd` (TableLaplace.fill of bdeac9a, kept verbatim as the reference),
 * followed by the addition release-work.ts's addNoiseBlock made: out[c] = counts[c] + out[c].
 */
const referenceFill = (m: GeometricTable, s: WordStream, out: Float64Array): Float64Array => {
  const { floors, guide, guideShift } = m
  const n = out.length
  let i = 0
  while (i < n) {
    const chunk = s.peekChunk()
    const words = chunk.words
    const end = words.length
    let p = chunk.next
    let moved = false
    while (i < n && p < end) {
      const w = words[p++] as number
      const v = w >>> 1
      let y = guide[v >>> guideShift] as number
      if (!((floors[y + 1] as number) < v)) {
        s.skipTo(p)
        y = m.fromPrefix(s, v)
        moved = true
      }
      const b = w & 1
      out[i] = y - 2 * b * y
      i += 1 - (b & ((y - 1) >>> 31))
      if (moved) break
    }
    if (!moved) s.skipTo(p)
  }
  return out
}
const magnitudeOf = (t: TableLaplace): GeometricTable => (t as unknown as { magnitude: GeometricTable }).magnitude
const referenceAdd = (fill: (s: WordStream, out: Float64Array) => Float64Array, s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void => {
  fill(s, out.subarray(from, to))
  for (let c = from; c < to; c++) out[c] = (counts[c] as number) + (out[c] as number)
}

/** Bit-for-bit equality of two double arrays (−0, NaN payloads and all). */
const sameBits = (a: Float64Array, b: Float64Array): boolean => {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
  return x.length === y.length && x.every((v, i) => v === y[i])
}

/** Counts as the releases meet them: Int32Array tables, or doubles (fractions, −0, large values) in a Float64Array. */
const countsArb = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 320 }).map((xs) => Int32Array.from(xs)),
  fc.array(fc.oneof(fc.integer({ min: -3, max: 40 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constant(-0)), { maxLength: 320 }).map((xs) => Float64Array.from(xs)),
)
/** Cells [from, to) of counts of length n. */
const cellsOf = (n: number, a: number, b: number): [number, number] => {
  const x = n === 0 ? 0 : a % (n + 1)
  const y = n === 0 ? 0 : b % (n + 1)
  return [Math.min(x, y), Math.max(x, y)]
}

/** Words of the seeded stream, with words at a threshold (ties), of prefix 0 (the tail) and of Y = 0 with B = 1 (rejected) mixed in. */
const wordsWith = (special: readonly number[], script: readonly number[], seed: number): RandomWords =>
  givenWords(
    script.map((k) => (k < 0 ? -1 : (special[k % special.length] as number))),
    seed,
  )
/** `script`'s words (each −1 a word of the seeded stream), then the seeded stream seed + 1. */
const givenWords = (script: readonly number[], seed: number): RandomWords => {
  const free = new Uint32Array(script.length)
  seededWords(seed).fill(free)
  return scripted(
    script.map((w, i) => (w < 0 ? (free[i] as number) : w >>> 0)),
    seededWords(seed + 1),
  )
}
const specialWords = (m: GeometricTable): number[] => [...m.floors].flatMap((x) => [2 * x, 2 * x + 1, 2 * x + 2, 2 * x - 1]).concat([0, 1, 0xffffffff, 0xfffffffe])

/** fillAdd against the reference path from the same words: the same doubles bit for bit, the cells outside untouched, the same next words. */
const expectSame = (
  fillAdd: (s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number) => void,
  reference: (s: WordStream, out: Float64Array) => Float64Array,
  source: () => RandomWords,
  chunk: number,
  counts: ArrayLike<number>,
  from: number,
  to: number,
): void => {
  const a = new WordStream(source(), chunk)
  const b = new WordStream(source())
  const out = new Float64Array(counts.length).fill(Number.NaN)
  const expected = new Float64Array(counts.length).fill(Number.NaN)
  fillAdd(a, counts, out, from, to)
  referenceAdd(reference, b, counts, expected, from, to)
  expect(sameBits(out, expected)).toBe(true)
  for (let k = 0; k < 3; k++) expect(a.nextUint32()).toBe(b.nextUint32())
}

describe('fillAdd: counts plus exact noise, the draws and words of the reference path', () => {
  // table scales: small, dyadic, non-dyadic, and up to the largest tabled scale
  const tableScale = fc.oneof(fc.constantFrom(2, 2 / 0.7, 0.3, 1, 7.5, 4096, 0.05), fc.double({ min: 0.02, max: 60, noNaN: true }))

  it('table samplers (t ≤ 4096): bit for bit the previous fill plus the counts, over random scales, cells, chunks and seeds', () => {
    fc.assert(
      fc.property(tableScale, countsArb, fc.nat(), fc.nat(), fc.integer(), fc.integer({ min: 1, max: 70 }), (t, counts, a, b, seed, chunk) => {
        const sampler = new TableLaplace(t)
        const [from, to] = cellsOf(counts.length, a, b)
        expectSame(sampler.fillAdd.bind(sampler), (s, out) => referenceFill(magnitudeOf(sampler), s, out), () => seededWords(seed), chunk, counts, from, to)
      }),
      { seed: 2701, numRuns: 300 },
    )
  })

  it('table samplers: ties, the tail and rejected draws settled as before, at any scale and chunk', () => {
    fc.assert(
      fc.property(tableScale, fc.array(fc.integer({ min: -1, max: 400 }), { maxLength: 60 }), fc.integer(), fc.integer({ min: 1, max: 16 }), (t, script, seed, chunk) => {
        const sampler = new TableLaplace(t)
        const special = specialWords(magnitudeOf(sampler))
        const counts = Int32Array.from({ length: script.length + 5 }, (_, i) => i % 3)
        expectSame(sampler.fillAdd.bind(sampler), (s, out) => referenceFill(magnitudeOf(sampler), s, out), () => wordsWith(special, script, seed), chunk, counts, 0, counts.length)
        // and against repeated `sample` (the sampler's definition)
        expectSame(sampler.fillAdd.bind(sampler), (s, out) => fillSamples(sampler, s, out), () => wordsWith(special, script, seed), chunk, counts, 0, counts.length)
      }),
      { seed: 2702, numRuns: 200 },
    )
  })

  it('fill is fillAdd onto zeros: the previous fill, bit for bit (no −0), whatever the chunk', () => {
    fc.assert(
      fc.property(tableScale, fc.integer({ min: 0, max: 400 }), fc.integer(), fc.integer({ min: 1, max: 70 }), (t, n, seed, chunk) => {
        const sampler = new TableLaplace(t)
        const a = new WordStream(seededWords(seed), chunk)
        const b = new WordStream(seededWords(seed))
        expect(sameBits(sampler.fill(a, new Float64Array(n)), referenceFill(magnitudeOf(sampler), b, new Float64Array(n)))).toBe(true)
        expect(a.nextUint32()).toBe(b.nextUint32())
      }),
      { seed: 2703, numRuns: 200 },
    )
  })

  it('in place (out = counts): the same table as into a separate output', () => {
    fc.assert(
      fc.property(tableScale, countsArb, fc.integer(), (t, counts, seed) => {
        const sampler = new TableLaplace(t)
        const apart = new Float64Array(counts.length)
        sampler.fillAdd(new WordStream(seededWords(seed)), counts, apart, 0, counts.length)
        const inPlace = Float64Array.from(counts)
        sampler.fillAdd(new WordStream(seededWords(seed)), inPlace, inPlace, 0, counts.length)
        expect(sameBits(inPlace, apart)).toBe(true)
      }),
      { seed: 2704, numRuns: 100 },
    )
  })

  it('Bernoulli-block Laplace and discrete Gaussian: repeated sample plus the counts; the continuous Gaussian: fill over the cells, then the counts', () => {
    const discrete = fc.oneof(
      fc.double({ min: 0.1, max: 1e7, noNaN: true }).map((t) => new BlockLaplace(t)),
      fc.double({ min: 0.2, max: 50, noNaN: true }).map((sigma) => new DiscreteGaussian(sigma)),
      fc.double({ min: 0.2, max: 50, noNaN: true }).map((sigma) => new DiscreteGaussian(sigma, false)),
      fc.double({ min: 5000, max: 1e6, noNaN: true }).map((sigma) => new DiscreteGaussian(sigma)),
      fc.constantFrom(1e-3, 2 ** -600).map((sigma) => new DiscreteGaussian(sigma)),
    )
    fc.assert(
      fc.property(discrete, countsArb, fc.nat(), fc.nat(), fc.integer(), fc.integer({ min: 1, max: 70 }), (sampler, counts, a, b, seed, chunk) => {
        const [from, to] = cellsOf(counts.length, a, b)
        expectSame(sampler.fillAdd.bind(sampler), (s, out) => fillSamples(sampler, s, out), () => seededWords(seed), chunk, counts, from, to)
      }),
      { seed: 2705, numRuns: 150 },
    )
    fc.assert(
      fc.property(fc.double({ min: 0.1, max: 30, noNaN: true }), countsArb, fc.nat(), fc.nat(), fc.integer(), fc.integer({ min: 1, max: 70 }), (sigma, counts, a, b, seed, chunk) => {
        const sampler = tableNoiseSampler({ kind: 'gaussian', sigma })
        const [from, to] = cellsOf(counts.length, a, b)
        expectSame(sampler.fillAdd.bind(sampler), (s, out) => sampler.fill(s, out), () => seededWords(seed), chunk, counts, from, to)
      }),
      { seed: 2707, numRuns: 100 },
    )
  })

  it('discrete Gaussian with tables: proposal ties and tails, rejected proposals, acceptance words equal to A_y, first uses of A_y and chunk ends decided as repeated sample', () => {
    const sigmas = fc.oneof(fc.constantFrom(1, Math.sqrt(14 / 4), 5, 0.4, 20, 37.5), fc.double({ min: 0.05, max: 40, noNaN: true }))
    fc.assert(
      fc.property(sigmas, fc.array(fc.integer({ min: -1, max: 600 }), { maxLength: 80 }), fc.integer(), fc.integer({ min: 1, max: 16 }), fc.boolean(), (sigma, script, seed, chunk, warm) => {
        const make = (): DiscreteGaussian => {
          const g = new DiscreteGaussian(sigma)
          // A_y computed before the fill (or left to be computed on first use)
          if (warm) for (let y = 0; y < Math.min(60, Math.ceil(9 * sigma)); y++) (g as unknown as { threshold(y: number): number }).threshold(y)
          return g
        }
        const probe = make()
        const laplace = (probe as unknown as { proposal: TableLaplace }).proposal
        const acceptWords = Array.from({ length: Math.min(60, Math.ceil(9 * sigma)) }, (_, y) => (probe as unknown as { threshold(y: number): number }).threshold(y))
        // pairs: a proposal word of magnitude y (mid-cell) and either sign, then an acceptance word A_y − 1, A_y or A_y + 1;
        // y over the first magnitudes and around ⌈9σ⌉, where the stored A_y end (beyond: Algorithm 1's trials)
        const floors = magnitudeOf(laplace).floors
        const end = Math.ceil(9 * sigma)
        const ys = [...Array.from({ length: 30 }, (_, y) => y), ...Array.from({ length: 16 }, (_, j) => end - 4 + j)].filter((y) => y >= 0 && y < floors.length - 1)
        const pairs = ys.flatMap((y) => {
          const v = Math.floor(((floors[y] as number) + (floors[y + 1] as number)) / 2)
          const a = acceptWords[y] ?? 0x9e3779b9
          return [0, 1].flatMap((sign) => [-1, 0, 1].map((d) => [2 * v + sign, (a + d) >>> 0]))
        })
        const special = specialWords(magnitudeOf(laplace)).concat(acceptWords, acceptWords.map((a) => a + 1), acceptWords.map((a) => a - 1))
        // even k: a pair; odd k: a special word (a proposal's threshold, tail or rejection, or an A_y ± 1); −1: a seeded word
        const scriptWords = script.flatMap((k) => (k < 0 ? [-1] : k % 2 === 0 ? (pairs[(k >> 1) % pairs.length] as number[]) : [special[(k >> 1) % special.length] as number]))
        const counts = Int32Array.from({ length: script.length + 5 }, (_, i) => i % 4)
        const a = make()
        const b = make()
        expectSame(a.fillAdd.bind(a), (s, out) => fillSamples(b, s, out), () => givenWords(scriptWords, seed), chunk, counts, 0, counts.length)
      }),
      { seed: 2708, numRuns: 200 },
    )
  })

  it('refuses cells outside the counts or the output', () => {
    const s = new WordStream(seededWords(1))
    for (const sampler of [new TableLaplace(2), new BlockLaplace(5000), new DiscreteGaussian(3), tableNoiseSampler({ kind: 'gaussian', sigma: 1 })])
      for (const [counts, out, from, to] of [
        [new Int32Array(4), new Float64Array(4), 0, 5],
        [new Int32Array(3), new Float64Array(4), 0, 4],
        [new Int32Array(4), new Float64Array(4), 3, 2],
        [new Int32Array(4), new Float64Array(4), -1, 2],
        [new Int32Array(4), new Float64Array(4), 0.5, 2],
      ] as const)
        expect(() => sampler.fillAdd(s, counts, out, from, to)).toThrow(RangeError)
  })
})
