import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { thresholdForCount, thresholdForCountSorted } from '../../src/attacks/search.js'

/**
 * Scores with many ties, both zeros and infinities: what the move to the whole-sample model must
 * handle. NaN separately below: fitted models never score NaN, but a score that does is in no event.
 */
const score = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -5, max: 5 }).map((k) => k / 2) },
  { weight: 2, arbitrary: fc.constantFrom(0, -0, Infinity, -Infinity) },
  { weight: 4, arbitrary: fc.double({ noNaN: true }) },
)

describe("the model job's sorted scores (issue 23: the event job no longer refits the whole-sample model)", () => {
  it('thresholdForCountSorted gives thresholdForCount bit for bit, ±0 included', () => {
    fc.assert(
      fc.property(fc.array(score, { maxLength: 40 }), fc.array(score, { maxLength: 40 }), fc.constantFrom(1 as const, -1 as const), fc.nat(90), (a, b, sigma, target) => {
        const w0 = Float64Array.from(a)
        const w1 = Float64Array.from(b)
        const sorted = Float64Array.from([...a, ...b]).sort()
        expect(Object.is(thresholdForCountSorted({ w0, w1, sorted }, sigma, target), thresholdForCount(w0, w1, sigma, target))).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it('a NaN score is in no event, and the walk ends (it once looped forever on one)', () => {
    fc.assert(
      fc.property(fc.array(score, { maxLength: 30 }), fc.integer({ min: 1, max: 5 }), fc.constantFrom(1 as const, -1 as const), fc.nat(60), (a, nans, sigma, target) => {
        const w0 = Float64Array.from([...a, ...new Array<number>(nans).fill(NaN)])
        const w1 = Float64Array.from(a)
        const sorted = Float64Array.from([...w0, ...w1]).sort()
        const t = thresholdForCount(w0, w1, sigma, target)
        expect(Number.isNaN(t)).toBe(false)
        // the same threshold as without the NaN scores, whose event it never contains
        expect(Object.is(t, thresholdForCount(Float64Array.from(a), w1, sigma, target))).toBe(true)
        expect(Object.is(thresholdForCountSorted({ w0, w1, sorted }, sigma, target), t)).toBe(true)
      }),
      { numRuns: 1000 },
    )
  })
})
