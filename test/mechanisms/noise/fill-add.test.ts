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
const wordsWith = (special: readonly number[], script: readonly number[], seed: number): RandomWords => {
  const free = new Uint32Array(script.length)
  seededWords(seed).fill(free)
  return scripted(
    script.map((k, i) => (k < 0 ? (free[i] as number) : (special[k % special.length] as number) >>> 0)),
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
      { seed: 2702, numRuns: 300 },
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

  it('Bernoulli-block Laplace, discrete Gaussian and the continuous Gaussian: fill over the cells, then the counts added', () => {
    const samplers = fc.oneof(
      fc.double({ min: 0.1, max: 1e7, noNaN: true }).map((t) => new BlockLaplace(t)),
      fc.double({ min: 0.2, max: 50, noNaN: true }).map((sigma) => new DiscreteGaussian(sigma)),
      fc.double({ min: 5000, max: 1e6, noNaN: true }).map((sigma) => new DiscreteGaussian(sigma)),
      fc.double({ min: 0.1, max: 30, noNaN: true }).map((sigma) => tableNoiseSampler({ kind: 'gaussian', sigma })),
    )
    fc.assert(
      fc.property(samplers, countsArb, fc.nat(), fc.nat(), fc.integer(), fc.integer({ min: 1, max: 70 }), (sampler, counts, a, b, seed, chunk) => {
        const [from, to] = cellsOf(counts.length, a, b)
        expectSame(sampler.fillAdd.bind(sampler), (s, out) => sampler.fill(s, out), () => seededWords(seed), chunk, counts, from, to)
      }),
      { seed: 2705, numRuns: 150 },
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
