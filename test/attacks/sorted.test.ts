import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countAtMost, edgeCounter } from '../../src/attacks/score.js'
import { epsilonFromRates, wilsonUpper } from '../../src/attacks/bounds.js'
import { adaptiveEdges, adaptiveEdgesOf, betterOrientation, exactBins, exactBinsByMap, jointSymbols, jointSymbolsByMap, type Projection, projectedBound, projectedObjective, sweepSorted, type SweepResult } from '../../src/attacks/select.js'
import { countBelow, mergeSorted, nthOfMerged, radixSortedCopy, sortedCopy, sortInPlace, valuesAtRanks } from '../../src/attacks/sorted.js'

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
  it('sortInPlace sorts its own array as Float64Array#sort does, by counting or by the radix passes, also twice in a row', () => {
    const long = fc.array(fc.oneof(fc.double(), fc.constantFrom(-0, 0, Number.NaN)), { minLength: 4096, maxLength: 6000 })
    for (const values of [fewValues, anyValues, long])
      fc.assert(
        fc.property(values, (xs) => {
          const a = Float64Array.from(xs)
          const want = Float64Array.from(a).sort()
          // its working memory is kept between calls: a second sort of other values must not see the first's
          const b = Float64Array.from(xs.map((x) => -x))
          return sortInPlace(a) === a && identical(a, want) && identical(sortInPlace(b), Float64Array.from(xs.map((x) => -x)).sort())
        }),
        { seed: 28, numRuns: 60 },
      )
    // longer than the second buffer the thread keeps (2^19 doubles), then short again
    const huge = Float64Array.from({ length: 600_000 }, (_, i) => Math.sin(i * 0.7) * 1e6)
    expect(identical(sortInPlace(Float64Array.from(huge)), Float64Array.from(huge).sort())).toBe(true)
    const small = Float64Array.from({ length: 5000 }, (_, i) => Math.cos(i) * 1e3)
    expect(identical(sortInPlace(Float64Array.from(small)), Float64Array.from(small).sort())).toBe(true)
    // a subarray is sorted where it lies, the rest of its buffer untouched
    const whole = Float64Array.from({ length: 9000 }, (_, i) => Math.sin(i) * 1e3)
    const before = Float64Array.from(whole)
    sortInPlace(whole.subarray(1000, 8000))
    expect(identical(whole.subarray(1000, 8000), before.slice(1000, 8000).sort())).toBe(true)
    expect(identical(whole.subarray(0, 1000), before.subarray(0, 1000)) && identical(whole.subarray(8000), before.subarray(8000))).toBe(true)
  })
  it('nthOfMerged is what mergeSorted holds at each index, −0 and +0 apart; countBelow counts the entries below a value', () => {
    const noNaN = fc.array(fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(-0, 0, 1, 1)), { maxLength: 300 })
    fc.assert(
      fc.property(noNaN, noNaN, fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(-0, 0, 1)), (xs, ys, x) => {
        const a = Float64Array.from(xs).sort()
        const b = Float64Array.from(ys).sort()
        const merged = mergeSorted(a, b)
        return merged.every((v, k) => Object.is(nthOfMerged(a, b, k), v)) && countBelow(a, x) === xs.filter((y) => y < x).length
      }),
      { seed: 29, numRuns: 300 },
    )
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

describe('projectedObjective (the sweep’s projection, kept per count)', () => {
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
          // twice each, in any order: the kept terms are read back as well as recomputed
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

describe('sweepSorted (the event walk, issue 23)', () => {
  it('walks orientation −1 on the ascending scores read backwards and negated: the result of orientation 1 on the negated scores', () => {
    const side = fc.array(fc.oneof(fc.double({ noNaN: true, min: -50, max: 50 }), fc.constantFrom(-0, 0, 1, -Infinity)), { minLength: 1, maxLength: 400 })
    fc.assert(
      fc.property(side, side, fc.constantFrom(0, 0.05), fc.boolean(), (xs, ys, delta, projected) => {
        const up0 = Float64Array.from(xs).sort()
        const up1 = Float64Array.from(ys).sort()
        const neg = (u: Float64Array): Float64Array => Float64Array.from(u, (_, i) => -(u[u.length - 1 - i] as number))
        const p = projected ? { n: 100_000, z: 2.24, zRatio: 1.96 } : undefined
        const got = sweepSorted(up0, up1, delta, 2.24, p, -1)
        const want = { ...sweepSorted(neg(up0), neg(up1), delta, 2.24, p, 1), orientation: -1 as const }
        const plus = sweepSorted(up0, up1, delta, 2.24, p, 1)
        const same = (r: SweepResult, q: SweepResult): boolean =>
          r.orientation === q.orientation && Object.is(r.threshold, q.threshold) && Object.is(r.objective, q.objective) && Object.is(r.advantage, q.advantage)
        // and both orientations at once give the better of the two
        return same(got, want) && same(sweepSorted(up0, up1, delta, 2.24, p), betterOrientation({ result: plus }, { result: got }).result)
      }),
      { seed: 30, numRuns: 300 },
    )
  })
})

/**
 * The sweep as it was before blocks were passed over (dpaudit 781121f, select.ts `sweepSorted`, with
 * `projectedBound` per threshold and the Wilson tables): the reference the block walk must equal.
 */
const referenceSweep = (up0: Float64Array, up1: Float64Array, delta: number, z: number, projection: Projection | undefined, sigma: 1 | -1): SweepResult => {
  const n0 = up0.length
  const n1 = up1.length
  const neg = (u: Float64Array): Float64Array => Float64Array.from(u, (_, i) => -(u[u.length - 1 - i] as number))
  const a = sigma === 1 ? up0 : neg(up0)
  const b = sigma === 1 ? up1 : neg(up1)
  let bestObjective = -1
  let bestAdvantage = -Infinity
  let bestT = Infinity
  let i = n0 - 1
  let j = n1 - 1
  while (i >= 0 || j >= 0) {
    const ai = i >= 0 ? (a[i] as number) : -Infinity
    const bj = j >= 0 ? (b[j] as number) : -Infinity
    const t = ai > bj ? ai : bj
    while (i >= 0 && (a[i] as number) >= t) i--
    while (j >= 0 && (b[j] as number) >= t) j--
    const tp = n0 - 1 - i
    const fp = n1 - 1 - j
    const objective = projection === undefined ? epsilonFromRates(wilsonUpper(fp, n1, z), wilsonUpper(n0 - tp, n0, z), delta) : projectedBound(tp, n0, fp, n1, delta, projection)
    const advantage = tp / n0 - fp / n1
    if (objective > bestObjective + 1e-12 || (Math.abs(objective - bestObjective) <= 1e-12 && advantage > bestAdvantage + 1e-12)) {
      bestObjective = objective
      bestAdvantage = advantage
      bestT = t
    }
  }
  return { objective: Math.max(0, bestObjective), advantage: bestAdvantage, orientation: sigma, threshold: bestT }
}

describe('sweepSorted passes over blocks that cannot change its event (issue 23)', () => {
  it('keeps the event, objective and advantage of the walk over every threshold, ties, plateaus and small counts included', () => {
    // shifted, scaled samples, some from a few values (plateaus, ties across sides), up to 3000 a side
    const sample = fc.record({
      n: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 500, max: 3000 })),
      shift: fc.double({ min: -2, max: 2, noNaN: true }),
      scale: fc.double({ min: 0.1, max: 3, noNaN: true }),
      levels: fc.constantFrom(0, 0, 3, 40),
      seed: fc.integer(),
    })
    const draw = (x: { n: number; shift: number; scale: number; levels: number; seed: number }): Float64Array => {
      let h = x.seed | 1
      return Float64Array.from({ length: x.n }, () => {
        h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ Math.imul(h ^ (h >>> 12), 0x297a2d39)
        const u = ((h >>> 0) + 0.5) / 2 ** 32
        const v = x.shift + x.scale * Math.log(u / (1 - u))
        return x.levels === 0 ? v : Math.round(v * (x.levels / 10)) / (x.levels / 10)
      }).sort()
    }
    fc.assert(
      fc.property(
        sample,
        sample,
        fc.constantFrom(0, 1e-6, 0.05),
        fc.constantFrom('none', 'rates', 'ratio'),
        fc.constantFrom(1000, 100_000, 5_000_000),
        (s0, s1, delta, kind, N) => {
          const up0 = draw(s0)
          const up1 = draw(s1)
          const projection = kind === 'none' ? undefined : { n: N, z: 2.24, ...(kind === 'ratio' ? { zRatio: 1.96 } : {}) }
          for (const sigma of [1, -1] as const) {
            const got = sweepSorted(up0, up1, delta, 2.24, projection, sigma)
            const want = referenceSweep(up0, up1, delta, 2.24, projection, sigma)
            if (!(got.orientation === want.orientation && Object.is(got.threshold, want.threshold) && Object.is(got.objective, want.objective) && Object.is(got.advantage, want.advantage)))
              return false
          }
          return true
        },
      ),
      { seed: 31, numRuns: 300 },
    )
  })
})

describe('jointSymbols (the joint family’s recurring values, issue 23)', () => {
  it('equals counting every value in a map: the same symbols, entries and total, −0, NaN and the stop after side 0 included', () => {
    const entry = fc.oneof(fc.constantFrom(0, -0, 1, -1, 2.5, Number.NaN), fc.double({ noNaN: true, min: -1e3, max: 1e3 }))
    const side = fc.oneof(fc.array(entry, { maxLength: 300 }), fc.array(fc.double({ noNaN: true }), { minLength: 2100, maxLength: 2600 }), fc.array(fc.constantFrom(0, -0, 3, 7), { maxLength: 3000 }))
    fc.assert(
      fc.property(side, side, (xs, ys) => {
        const v0 = Float64Array.from(xs)
        const v1 = Float64Array.from(ys)
        const got = jointSymbols(v0, v1)
        const want = jointSymbolsByMap(v0, v1)
        return got.total === want.total && got.recurring === want.recurring && got.discrete.length === want.discrete.length && got.discrete.every((x, i) => Object.is(x, want.discrete[i]))
      }),
      { seed: 32, numRuns: 300 },
    )
  })
})

describe('exactBins (exact bins by a typed table, issue 23)', () => {
  it('equals the Set and Map it replaced: the same values in the same order, the same counts, null alike', () => {
    const pool = fc.oneof(
      fc.array(fc.constantFrom(0, -0, 1, -1, 2.5, Infinity, -Infinity, 1e-300), { maxLength: 400 }),
      fc.array(fc.constantFrom(0, -0, 3, Number.NaN), { maxLength: 50 }),
      fc.array(fc.integer({ min: -1100, max: 1100 }).map((k) => k / 7), { maxLength: 3000 }),
    )
    fc.assert(
      fc.property(pool, pool, fc.constantFrom(16, 64, 2200), (xs, ys, max) => {
        const x0 = Float64Array.from(xs)
        const x1 = Float64Array.from(ys)
        const got = exactBins(x0, x1, max)
        const want = exactBinsByMap(x0, x1, max)
        if (got === null || want === null) return got === want
        return got.exact.length === want.exact.length && got.exact.every((v, i) => Object.is(v, want.exact[i])) && identical(got.c0, want.c0) && identical(got.c1, want.c1)
      }),
      { seed: 33, numRuns: 300 },
    )
  })
})
