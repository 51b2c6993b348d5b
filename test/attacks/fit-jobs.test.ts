import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import seedrandom from 'seedrandom'
import { evaluateFamily, joinEvents, pairJobs } from '../../src/attacks/search.js'
import { thresholdForCount, thresholdForCountSorted } from '../../src/attacks/search.js'
import { type PairSamples, zFor } from '../../src/attacks/select.js'

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

/** Typed arrays element by element (−0 and +0 apart), so that two events compare as the same bits. */
const show = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array, (e) => (Object.is(e, -0) ? '-0' : String(e))) : v))

describe('the threshold event split by orientation (issue 23: the longest fit job halved)', () => {
  it('pairJobs gives the threshold family one event job per orientation, other families one', () => {
    const s: PairSamples = { shape: { kind: 'number', dim: 1 }, n: [0, 0], values: [new Float64Array(0), new Float64Array(0)], codes: [new Int32Array(0), new Int32Array(0)], categories: [] }
    const jobs = pairJobs(0, s, ['threshold', 'histogram'], 0, 2, { n: 100, z: 2 })
    expect(jobs.map((j) => `${j.family}/${j.part}${j.orientation ?? ''}`)).toEqual(['threshold/model', 'threshold/event1', 'threshold/event-1', 'histogram/model', 'histogram/event'])
  })

  it("the two orientations' jobs joined give the one job's event, the same bits (Gaussian tail or not, pure or approximate claims)", () => {
    const rng = seedrandom('fit-jobs split')
    const laplace = (b: number): number => -b * Math.sign(rng() - 0.5) * Math.log(1 - rng())
    const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng())
    const cases: Array<[string, number, () => number, () => number]> = [
      ['Laplace shift', 20_000, () => laplace(1), () => 1 + laplace(1)],
      ['Gaussian shift (the tail can win)', 20_000, gauss, () => 0.3 + gauss()],
      ['Gaussian, wider on side 1', 5_000, gauss, () => 1.5 * gauss()],
      ['few outputs (no tail)', 300, () => laplace(1), () => -0.5 + laplace(1)],
      ['many ties and zeros', 4_000, () => Math.round(laplace(2)) || -0, () => Math.round(0.5 + laplace(2))],
    ]
    for (const [label, n, side0, side1] of cases)
      for (const [delta, zRatio] of [[0, zFor(0.05)], [1e-6, undefined]] as const) {
        const s: PairSamples = { shape: { kind: 'number', dim: 1 }, n: [n, n], values: [Float64Array.from({ length: n }, side0), Float64Array.from({ length: n }, side1)], codes: [new Int32Array(0), new Int32Array(0)], categories: [] }
        const projection = { n: 1_000_000, z: zFor(0.025), ...(zRatio === undefined ? {} : { zRatio }) }
        const job = { pair: 0, samples: s, family: 'threshold', part: 'event', delta, z: projection.z, projection } as const
        const whole = evaluateFamily(job)
        const joined = joinEvents([evaluateFamily({ ...job, orientation: 1 }), evaluateFamily({ ...job, orientation: -1 })])
        expect(whole?.part === 'event' ? show(whole.event) : null, label).toBe(show(joined))
      }
  })
})
