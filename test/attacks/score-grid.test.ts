import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { gridOfAscending, scoreGrid } from '../../src/attacks/select.js'

/** Values with the awkward cases in them: ties, ±0, ±∞, NaN, and runs already in order. */
const values = fc.oneof(
  fc.array(fc.double(), { maxLength: 300 }),
  fc.array(fc.constantFrom(-0, 0, 1, -1, Number.NaN, Infinity, -Infinity, 0.5), { maxLength: 300 }),
  fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 2000 }),
  fc.integer({ min: 0, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => i % 7 === 0 ? -i : i)),
)

const sameValues = (a: ArrayLike<number>, b: ArrayLike<number>): boolean => a.length === b.length && Array.from(a).every((v, i) => Object.is(v, b[i]))

/** The grid by its definition: the pooled oriented scores sorted here, then their quantiles. */
const scoreGridBySort = (o0: Float64Array, o1: Float64Array, threshold: number): number[] => gridOfAscending(Float64Array.from([...o0, ...o1]).sort(), threshold)

describe('scoreGrid', () => {
  const sigmas = fc.constantFrom<1 | -1>(1, -1)
  const thresholds = fc.oneof(fc.double(), fc.constantFrom(0, -0))
  const orient = (x: Float64Array, sigma: number): Float64Array => x.map((v) => sigma * v)
  it('is the grid of the pooled oriented scores, value for value (±0 included)', () => {
    fc.assert(
      fc.property(values, values, sigmas, thresholds, (a, b, sigma, t) => {
        const t0 = Float64Array.from(a)
        const t1 = Float64Array.from(b)
        return sameValues(scoreGrid(t0, t1, t, sigma), scoreGridBySort(orient(t0, sigma), orient(t1, sigma), t))
      }),
      { numRuns: 500 },
    )
  })
  it("from the model job's ascending scores (no sort in the calling thread), the same grid, NaN and ±0 included", () => {
    fc.assert(
      fc.property(values, values, sigmas, thresholds, (a, b, sigma, t) => {
        const t0 = Float64Array.from(a)
        const t1 = Float64Array.from(b)
        const sorted = Float64Array.from([...a, ...b]).sort()
        return sameValues(scoreGrid(t0, t1, t, sigma, sorted), scoreGridBySort(orient(t0, sigma), orient(t1, sigma), t))
      }),
      { numRuns: 500 },
    )
  })
})
