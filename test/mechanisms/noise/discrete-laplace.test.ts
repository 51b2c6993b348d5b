import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededWords, WordStream } from '../../../src/core/words.js'
import { discreteLaplaceSampler, MAX_DISCRETE_LAPLACE_SCALE } from '../../../src/mechanisms/noise/index.js'
import { BlockLaplace, TableLaplace } from '../../../src/mechanisms/noise/discrete-laplace.js'
import { GeometricTable, geometricTable } from '../../../src/mechanisms/noise/geometric.js'
import { expectFillMatchesSample, expectLaw, scripted } from './stats.js'

const DRAWS = 200000

const draws = (sampler: { fill(s: WordStream, out: Float64Array): Float64Array }, seed: string): Float64Array =>
  sampler.fill(new WordStream(seededWords(seed)), new Float64Array(DRAWS))

describe('discrete Laplace: the exact law ∝ exp(−|x|/t)', () => {
  // 2/0.7 and 0.3 are not dyadic: their exact values have 51- and 54-bit denominators' numerators.
  it.each([0.3, 1, 2, 2 / 0.7, 7.5, 40])('tables, t = %d: chi-square, symmetry, mean and variance over 200k draws', (t) => {
    const sampler = discreteLaplaceSampler(t)
    expect(sampler).toBeInstanceOf(TableLaplace)
    expectLaw(draws(sampler, `table-${t}`), (y) => Math.exp(-y / t))
  })

  it.each([0.4, 2, 2 / 0.7, 5.5])('Bernoulli blocks (the sampler beyond t = 4096), t = %d: the same checks', (t) => {
    expectLaw(draws(new BlockLaplace(t), `block-${t}`), (y) => Math.exp(-y / t))
  })

  it('large scales use Bernoulli blocks, with the right spread', () => {
    const t = 5000.25
    const sampler = discreteLaplaceSampler(t)
    expect(sampler).toBeInstanceOf(BlockLaplace)
    const out = sampler.fill(new WordStream(seededWords('large')), new Float64Array(40000))
    let squares = 0
    for (const x of out) squares += x * x
    const p = Math.exp(-1 / t)
    const variance = (2 * p) / (1 - p) ** 2
    // The sample second moment has relative standard error √(E x⁴/σ⁴ − 1)/√n ≈ √5/200 for a Laplace.
    expect(Math.abs(squares / out.length / variance - 1)).toBeLessThan(5 * (Math.sqrt(5) / 200))
    expect(out.every(Number.isInteger)).toBe(true)
  })

  it('fill gives the words and draws that repeated sample gives, from the same seed, whatever the chunk size', () => {
    expectFillMatchesSample(discreteLaplaceSampler, [0.2, 1, 2, 2 / 0.7, 13.3, 4097.5], 11)
  })

  it('rejects scales it cannot sample', () => {
    for (const t of [0, -1, Number.NaN, Infinity, MAX_DISCRETE_LAPLACE_SCALE * 2]) expect(() => discreteLaplaceSampler(t)).toThrow(RangeError)
    expect(discreteLaplaceSampler(MAX_DISCRETE_LAPLACE_SCALE).scale).toBe(MAX_DISCRETE_LAPLACE_SCALE)
    const s = new WordStream(seededWords(1))
    expect(discreteLaplaceSampler(Number.MIN_VALUE).sample(s)).toBe(0)
    // exp(−1/t) with ⌊1/t⌋ beyond 2^53 (Bernoulli blocks count its integer part in two pieces).
    for (const t of [1e-20, Number.MIN_VALUE]) expect(new BlockLaplace(t).fill(s, new Float64Array(50)).every((x) => x === 0)).toBe(true)
  })
})

describe('the geometric threshold table', () => {
  const table = new GeometricTable(1n, 2n) // P(Y ≥ y) = exp(−y/2)
  const zeros = { kind: 'zeros', secret: false, fill: (o: Uint32Array) => o.fill(0) }
  const ones = { kind: 'ones', secret: false, fill: (o: Uint32Array) => o.fill(0xffffffff) }

  it('holds ⌊2^31·exp(−y/2)⌋ exactly, ending at the first 0', () => {
    const f = table.floors
    expect(f[0]).toBe(2 ** 31)
    expect(f[f.length - 1]).toBe(0)
    expect(f[f.length - 2]).toBeGreaterThan(0)
    for (let y = 1; y < f.length; y++) {
      const x = 2 ** 31 * Math.exp(-y / 2)
      // The double is within 1e-6 of the true value: it settles every floor not that close to an integer.
      if (Math.abs(x - Math.round(x)) > 1e-6) expect(f[y]).toBe(Math.floor(x))
    }
  })

  it('geometricTable builds a λ once while it is among the last 16 asked for, and its table is a fresh one', () => {
    const a = geometricTable(1n, 2n)
    expect(geometricTable(1n, 2n)).toBe(a)
    expect(a.floors).toEqual(table.floors)
    expect(a.sureGuide).toEqual(table.sureGuide)
    expect(geometricTable(2n, 4n)).not.toBe(a) // the same λ under another name is another table (keys are n/d as given)
    // 16 other λ push it out; it is then built again
    for (let k = 1; k <= 16; k++) geometricTable(BigInt(k), 1000n)
    expect(geometricTable(1n, 2n)).not.toBe(a)
    // samplers of one scale share it
    expect(new TableLaplace(3).magnitude).toBe(new TableLaplace(3).magnitude)
  })

  it('a prefix equal to a threshold is settled by the following words', () => {
    const f3 = table.floors[3] as number
    expect(table.fromPrefix(new WordStream(zeros), f3)).toBe(3) // U just above F_3/2^31 < exp(−3/2)
    expect(table.fromPrefix(new WordStream(ones), f3)).toBe(2) // U just below (F_3 + 1)/2^31 > exp(−3/2)
    expect(table.fromPrefix(new WordStream(zeros), f3 + 1)).toBe(2)
    expect(table.fromPrefix(new WordStream(zeros), f3 - 1)).toBe(3)
    // Through the sampler: the word's low bit is the sign, its top 31 bits the prefix.
    const sampler = new TableLaplace(2)
    const minus = scripted([f3 * 2 + 1], zeros)
    expect(sampler.sample(new WordStream(minus, 1))).toBe(-3)
    expect(minus.used()).toBe(2)
  })

  it('fill settles ties, the tail and rejected draws as repeated sample does (the same words, whatever the chunk)', () => {
    // words whose prefix is a threshold (a tie), 0 (the tail) or lands in Y = 0 with B = 1 (rejected), either sign
    const f = new TableLaplace(2) as unknown as { magnitude: GeometricTable }
    const special = [...f.magnitude.floors].flatMap((x) => [2 * x, 2 * x + 1]).concat([0, 1, 0xffffffff, 0xfffffffe])
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...special, -1), { maxLength: 40 }), fc.integer(), fc.integer({ min: 1, max: 16 }), (script, seed, chunk) => {
        // −1: a word of the seeded stream
        const rest = seededWords(seed)
        const words = (): Uint32Array => {
          const free = new Uint32Array(script.length)
          rest.fill(free)
          return Uint32Array.from(script, (w, i) => (w < 0 ? (free[i] as number) : w >>> 0))
        }
        const w = words()
        const a = new WordStream(scripted([...w], seededWords(seed + 1)), chunk)
        const b = new WordStream(scripted([...w], seededWords(seed + 1)))
        const sampler = new TableLaplace(2)
        const n = script.length + 5
        expect(sampler.fill(a, new Float64Array(n))).toEqual(Float64Array.from({ length: n }, () => sampler.sample(b)))
        expect(a.nextUint32()).toBe(b.nextUint32())
      }),
      { seed: 27, numRuns: 300 },
    )
  })

  it('a prefix of 0 runs into the memoryless tail', () => {
    const last = table.floors.length - 1
    const s = new WordStream(scripted([0], seededWords('tail')), 1)
    expect(table.fromPrefix(s, 0)).toBeGreaterThanOrEqual(last)
  })
})
