import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countAtMost, edgeCounter } from '../../src/attacks/score.js'
import { adaptiveEdges, adaptiveEdgesOf, projectedBound, projectedObjective } from '../../src/attacks/select.js'
import { mergeSorted, radixSortedCopy, sortedCopy, valuesAtRanks } from '../../src/attacks/sorted.js'

/** Element-wise identity, −0 and +0 told apart, NaN equal to NaN. */
const identical = (a: Float64Array, b: Float64Array): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]))

// Values from a small pool (the counting path) or anywhere (the comparison sort), with ±0, ±∞ and NaN.
const fewValues = fc.array(fc.constantFrom(-0, 0, 1.5, -2, Infinity, -Infinity, Number.NaN, 1e-300, 3), { maxLength: 300 })
const anyValues = fc.array(fc.double(), { maxLength: 3000 })

describe('sortedCopy and mergeSorted (the fits’ sorts, issue 23)', () => {
  it('sortedCopy equals Float64Array#sort element for element, by counting or not', () => {
    for (const values of [fewValues, anyValues])
      fc.assert(
        fc.property(values, (xs) => {
          const a = Float64Array.from(xs)
          const copy = Float64Array.from(a)
          const out = sortedCopy(a)
          return identical(out, Float64Array.from(a).sort()) && identical(a, copy)
        }),
        { seed: 23, numRuns: 300 },
      )
    // more distinct values than the counting path takes, and exactly as many
    const many = Float64Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 5000) - 2500)
    expect(identical(sortedCopy(many), Float64Array.from(many).sort())).toBe(true)
    const edge = Float64Array.from({ length: 4096 }, (_, i) => i % 1024)
    expect(identical(sortedCopy(edge), Float64Array.from(edge).sort())).toBe(true)
  })
  it('radixSortedCopy equals Float64Array#sort element for element on arrays long enough for the radix path', () => {
    // any double (±0, ±∞, NaN, subnormals), a few repeated, 4096 to 6000 of them
    const special = fc.constantFrom(-0, 0, Infinity, -Infinity, Number.NaN, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE)
    const long = fc.array(fc.oneof(fc.double(), special), { minLength: 4096, maxLength: 6000 })
    fc.assert(
      fc.property(long, (xs) => {
        const a = Float64Array.from(xs)
        const copy = Float64Array.from(a)
        return identical(radixSortedCopy(a), Float64Array.from(a).sort()) && identical(sortedCopy(a), Float64Array.from(a).sort()) && identical(a, copy)
      }),
      { seed: 25, numRuns: 40 },
    )
    // keys that share their high digits (passes skipped), and all equal
    const narrow = Float64Array.from({ length: 10_000 }, (_, i) => 1 + ((i * 7919) % 10_000) * 2 ** -52)
    expect(identical(radixSortedCopy(narrow), Float64Array.from(narrow).sort())).toBe(true)
    const equal = new Float64Array(5000).fill(-2.5)
    expect(identical(radixSortedCopy(equal), equal)).toBe(true)
  })
  it('mergeSorted of two sorted arrays (no NaN) equals sorting them together', () => {
    const noNaN = fc.array(fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(-0, 0)), { maxLength: 400 })
    fc.assert(
      fc.property(noNaN, noNaN, (xs, ys) => {
        const a = Float64Array.from(xs).sort()
        const b = Float64Array.from(ys).sort()
        return identical(mergeSorted(a, b), Float64Array.from([...xs, ...ys]).sort())
      }),
      { seed: 24, numRuns: 300 },
    )
  })
})

describe('projectedObjective (the sweep’s memoised projection)', () => {
  it('is projectedBound, the same number, at every count, for pure and approximate claims', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(0, 1e-6, 0.05),
        fc.integer({ min: 1, max: 50_000_000 }),
        fc.boolean(),
        (n0, n1, points, delta, N, withRatio) => {
          const p = { n: N, z: 2.24, ...(withRatio ? { zRatio: 1.96 } : {}) }
          const f = projectedObjective(n0, n1, delta, p)
          // twice each, so that memoised counts are read back as well as computed
          for (const [a, b] of [...points, ...points]) {
            const tp = Math.round(a * n0)
            const fp = Math.round(b * n1)
            if (!Object.is(f(tp, fp), projectedBound(tp, n0, fp, n1, delta, p))) return false
          }
          return true
        },
      ),
      { seed: 25, numRuns: 400 },
    )
  })
})

describe('valuesAtRanks and adaptiveEdgesOf (order statistics without a sort)', () => {
  it('valuesAtRanks gives what the sorted copy holds at each rank, −0 and +0 apart', () => {
    const pools = [fewValues, anyValues, fc.array(fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(-0, 0, 0, -0)), { minLength: 1, maxLength: 3000 })]
    for (const values of pools)
      fc.assert(
        fc.property(values, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 60 }), (xs, ps) => {
          const a = Float64Array.from(xs)
          if (a.length === 0) return true
          const copy = Float64Array.from(a)
          const ranks = ps.map((p) => Math.min(a.length - 1, Math.floor(p * a.length))).sort((x, y) => x - y)
          const sorted = Float64Array.from(a).sort()
          const got = valuesAtRanks(a, ranks)
          return ranks.every((r, k) => Object.is(got[k], sorted[r])) && identical(a, copy)
        }),
        { seed: 26, numRuns: 300 },
      )
  })
  it('adaptiveEdgesOf an unsorted pool equals adaptiveEdges of it sorted', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.constantFrom(-0, 0, 1, 2)), { minLength: 1, maxLength: 5000 }), fc.integer({ min: 2, max: 40 }), (xs, bins) => {
        const a = Float64Array.from(xs)
        const want = adaptiveEdges(Float64Array.from(a).sort(), bins)
        const got = adaptiveEdgesOf(a, bins)
        return got.length === want.length && got.every((e, i) => Object.is(e, want[i]))
      }),
      { seed: 27, numRuns: 200 },
    )
  })
})

describe('edgeCounter (the histogram fits’ bin lookup, issue 23)', () => {
  it('is countAtMost, the same count, for any ascending edges and any value', () => {
    const special = fc.constantFrom(-0, 0, Infinity, -Infinity, Number.NaN, 5e-324, -5e-324, 1, -1, 1 + 2 ** -52)
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ noNaN: true }), special.filter((x) => x === x)), { minLength: 0, maxLength: 80 }),
        fc.array(fc.oneof(fc.double(), special), { maxLength: 200 }),
        (raw, xs) => {
          // strictly increasing, as adaptiveEdges makes them; values near the edges too
          const edges = Float64Array.from(raw).sort().filter((e, i, a) => i === 0 || e > (a[i - 1] as number))
          const count = edgeCounter(edges)
          const probes = [...xs, ...Array.from(edges, (e) => e), ...Array.from(edges, (e) => e * (1 + 2 ** -52)), ...Array.from(edges, (e) => e / 2)]
          return probes.every((x) => count(x) === countAtMost(edges, x))
        },
      ),
      { seed: 26, numRuns: 300 },
    )
  })
})
