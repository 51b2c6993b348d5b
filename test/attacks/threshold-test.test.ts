/**
 * `chooseTestAndBound` (src/attacks/trainers/threshold-test.ts), the choose / estimate / bound step
 * shared by the trainer audit and the classifier-membership audit: the bound is the Clopper–Pearson
 * bound of the chosen event's own counts on the estimation runs (recounted here independently),
 * never above the point estimate or the ceiling, monotone in those counts, and the choice does not
 * look at the estimation runs.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { epsilonLowerBound } from '../../src/attacks/bounds.js'
import { liraScore } from '../../src/attacks/trainers/lira.js'
import { chooseTestAndBound, type ThresholdTestInput, type ThresholdTestResult } from '../../src/attacks/trainers/threshold-test.js'

const run = (input: ThresholdTestInput): ThresholdTestResult => {
  const r = chooseTestAndBound(input)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

/** Whether a raw statistic x of column `statistic` falls in the chosen event. */
const inEvent = (r: ThresholdTestResult, x: number): boolean => {
  const score = r.test.lira === undefined ? x : liraScore(r.test.lira, x)
  return r.test.orientation * score >= r.test.threshold
}

const statisticOf = (r: ThresholdTestResult, names: ReadonlyArray<string>): number => names.indexOf(r.test.name.replace(/^lira:/, ''))

const claim = { epsilon: 1, delta: 1e-5 }
const values = (n: number) => fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: n, maxLength: n })
/** Two statistics per run: runs × 2 row-major, per side; selection and estimation sizes drawn. */
const game = fc
  .record({ sel: fc.integer({ min: 4, max: 24 }), est: fc.integer({ min: 1, max: 30 }), shift: fc.double({ min: 0, max: 3, noNaN: true }) })
  .chain(({ sel, est, shift }) =>
    fc.record({
      shift: fc.constant(shift),
      sel0: values(2 * sel),
      sel1: values(2 * sel),
      est0: values(2 * est),
      est1: values(2 * est),
      est1b: values(2 * est),
    }),
  )
const shifted = (xs: number[], s: number): Float64Array => Float64Array.from(xs, (x) => x + s)
const NAMES = ['a', 'b']

describe('chooseTestAndBound', () => {
  it('property: the bound is the chosen event’s own Clopper–Pearson bound, at most the point estimate and the ceiling; the choice ignores the estimation runs', () => {
    fc.assert(
      fc.property(game, ({ shift, sel0, sel1, est0, est1, est1b }) => {
        const selection = [shifted(sel0, shift), Float64Array.from(sel1)] as const
        const r = run({ statistics: NAMES, selection, estimation: [shifted(est0, shift), Float64Array.from(est1)], claim, confidence: 0.9 })
        // recount the chosen event on the estimation runs, independently of the module
        const j = statisticOf(r, NAMES)
        let tp = 0
        let fp = 0
        for (let i = 0; i < est0.length / 2; i++) if (inEvent(r, (est0[2 * i + j] as number) + shift)) tp++
        for (let i = 0; i < est1.length / 2; i++) if (inEvent(r, est1[2 * i + j] as number)) fp++
        const n = est0.length / 2
        expect(r.counts).toEqual({ falsePositives: fp, negatives: n, falseNegatives: n - tp, positives: n })
        expect(r.epsilonLowerBound).toBe(epsilonLowerBound(fp, n, n - tp, n, claim.delta, 1 - 0.9)) // α as the module computes it
        expect(r.epsilonLowerBound).toBeGreaterThanOrEqual(0)
        expect(r.epsilonLowerBound).toBeLessThanOrEqual(r.pointEstimate)
        expect(r.epsilonLowerBound).toBeLessThanOrEqual(r.ceiling)
        expect(r.candidates.map((c) => c.test)).toEqual(['a', 'lira:a', 'b', 'lira:b'])
        // other estimation runs: the same test, chosen on the selection runs alone
        const other = run({ statistics: NAMES, selection, estimation: [shifted(est0, shift), Float64Array.from(est1b)], claim, confidence: 0.9 })
        expect(other.test).toEqual(r.test)
        expect(other.candidates).toEqual(r.candidates)
      }),
      { numRuns: 150, seed: 16 },
    )
  })

  it('property: monotone in the counts — one more true positive or one fewer false positive never lowers the bound', () => {
    fc.assert(
      fc.property(
        values(16),
        values(16),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        (sel0, sel1, n, a, b) => {
          const selection = [shifted(sel0, 1), Float64Array.from(sel1)] as const
          const probe = run({ statistics: ['x'], selection, estimation: [new Float64Array(1), new Float64Array(1)], claim, confidence: 0.95 })
          // a value inside and one outside the chosen event (from the selection runs and a wide grid)
          const pool = [...sel0.map((x) => x + 1), ...sel1, ...Array.from({ length: 401 }, (_, i) => -100 + i / 2)]
          const xin = pool.find((x) => inEvent(probe, x))
          const xout = pool.find((x) => !inEvent(probe, x))
          fc.pre(xin !== undefined && xout !== undefined)
          const estimation = (tp: number, fp: number) =>
            [Float64Array.from({ length: n }, (_, i) => (i < tp ? xin! : xout!)), Float64Array.from({ length: n }, (_, i) => (i < fp ? xin! : xout!))] as const
          const tp = a % (n + 1)
          const fp = b % (n + 1)
          const bound = (t: number, f: number): number => {
            const r = run({ statistics: ['x'], selection, estimation: estimation(t, f), claim, confidence: 0.95 })
            expect(r.counts.falsePositives).toBe(f)
            expect(r.counts.falseNegatives).toBe(n - t)
            return r.epsilonLowerBound
          }
          const here = bound(tp, fp)
          if (tp < n) expect(bound(tp + 1, fp)).toBeGreaterThanOrEqual(here)
          if (fp > 0) expect(bound(tp, fp - 1)).toBeGreaterThanOrEqual(here)
        },
      ),
      { numRuns: 100, seed: 61 },
    )
  })

  it('perfectly separated runs reach the ceiling', () => {
    const n = 40
    const side = (base: number) => Float64Array.from({ length: n }, (_, i) => base + (i % 2) * 0.5)
    const r = run({ statistics: ['x'], selection: [side(10), side(0)], estimation: [side(10), side(0)], claim, confidence: 0.95 })
    expect(r.counts).toEqual({ falsePositives: 0, negatives: n, falseNegatives: 0, positives: n })
    expect(r.epsilonLowerBound).toBe(r.ceiling)
    expect(r.verdict).toBe('violation')
  })

  it('no statistic, or unequal selection sides: one error naming the field', () => {
    const none = chooseTestAndBound({ statistics: [], selection: [new Float64Array(0), new Float64Array(0)], estimation: [new Float64Array(0), new Float64Array(0)], claim, confidence: 0.95 })
    expect(E.isLeft(none) && none.left.path).toBe('$.statistics')
    const uneven = chooseTestAndBound({ statistics: ['x'], selection: [new Float64Array(4), new Float64Array(6)], estimation: [new Float64Array(2), new Float64Array(2)], claim, confidence: 0.95 })
    expect(E.isLeft(uneven) && uneven.left.path).toBe('$.selection')
  })
})
