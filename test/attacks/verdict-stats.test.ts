import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clopperPearson, clopperPearsonUpper } from '../../src/attacks/bounds.js'
import { gdpJobs, runStat, statsInline } from '../../src/attacks/engine/verdict-stats.js'
import { aboveCount } from '../../src/attacks/engine/merge.js'

/** Estimation counts of one side over a grid of G thresholds (G + 1 bins). */
const arbCounts = (G: number) => fc.array(fc.integer({ min: 0, max: 50_000 }), { minLength: G + 1, maxLength: G + 1 }).map((xs) => Float64Array.from(xs))

const mu = (answers: ReturnType<typeof statsInline>): number => answers.reduce((m, a) => (a.kind === 'gdp' ? Math.max(m, a.mu) : m), 0)

describe('the verdict statistics as jobs (issue 23)', () => {
  it("clopperPearsonUpper is clopperPearson's upper end, bit for bit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 1e-6, max: 0.5, noNaN: true }), (n, f, a) => {
        const k = Math.round(f * n)
        expect(clopperPearsonUpper(k, n, a)).toBe(clopperPearson(k, n, a).hi)
      }),
      { numRuns: 200 },
    )
  })
  it('the μ-GDP test gives the same μ however the grid is sliced into jobs, and in any order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }).chain((G) => fc.tuple(fc.constant(G), arbCounts(G), arbCounts(G), fc.integer({ min: 1, max: 40 }))),
        ([G, c0, c1, parts]) => {
          fc.pre(c0.some((x) => x > 0) && c1.some((x) => x > 0))
          const a = 0.05 / (2 * G)
          const whole = mu(statsInline(gdpJobs(c0, c1, a, 1)))
          const jobs = gdpJobs(c0, c1, a, parts)
          expect(jobs.reduce((s, j) => s + (j.kind === 'gdp' ? j.to - j.from : 0), 0)).toBe(G)
          expect(mu(statsInline(jobs))).toBe(whole)
          expect(mu(statsInline([...jobs].reverse()))).toBe(whole)
        },
      ),
      { numRuns: 60 },
    )
  })
  it('the μ-GDP test skips no corner that matters: its μ is the maximum over every corner, computed one by one', () => {
    // Every threshold, both orientations, each corner's Clopper–Pearson ends computed (the walk
    // computes only the corners whose cap at the observed rates can beat the largest μ so far).
    const everyCorner = (c0: Float64Array, c1: Float64Array, a: number): number => {
      const n0 = c0.reduce((s, x) => s + x, 0)
      const n1 = c1.reduce((s, x) => s + x, 0)
      let mu = 0
      for (let k = 0; k < c0.length - 1; k++) {
        const tp = aboveCount(c0, k)
        const fp = aboveCount(c1, k)
        for (const [x, y] of [[clopperPearsonUpper(fp, n1, a), clopperPearsonUpper(n0 - tp, n0, a)], [clopperPearsonUpper(tp, n0, a), clopperPearsonUpper(n1 - fp, n1, a)]] as const)
          if (x < 1 && y < 1) mu = Math.max(mu, normalQuantile(1 - x, 0, 1) - normalQuantile(y, 0, 1))
      }
      return mu
    }
    // Counts from a few to millions per bin, and sides that differ by little (near-ties between corners) or much.
    const arbSides = fc.integer({ min: 1, max: 40 }).chain((G) =>
      fc.tuple(
        fc.constant(G),
        fc.array(fc.integer({ min: 0, max: 3_000_000 }), { minLength: G + 1, maxLength: G + 1 }),
        fc.array(fc.integer({ min: -3, max: 3 }), { minLength: G + 1, maxLength: G + 1 }),
        fc.boolean(),
      ),
    )
    fc.assert(
      fc.property(arbSides, ([G, base, shift, near]) => {
        const c0 = Float64Array.from(base)
        const c1 = Float64Array.from(base, (x, k) => (near ? Math.max(0, x + (shift[k] as number)) : (base[G - k] as number)))
        fc.pre(c0.some((x) => x > 0) && c1.some((x) => x > 0))
        const a = 0.05 / (2 * G)
        expect(mu(statsInline(gdpJobs(c0, c1, a, 1)))).toBe(everyCorner(c0, c1, a))
      }),
      { numRuns: 80 },
    )
  })
  it("a bound job's rates are the Clopper–Pearson upper ends at α/2", () => {
    const b = runStat({ kind: 'bound', form: 'rates', fp: 120, negatives: 10_000, fn: 300, positives: 10_000, delta: 0, alpha: 0.05 })
    expect(b.kind === 'bound' && [b.fprUpper, b.fnrUpper]).toEqual([clopperPearson(120, 10_000, 0.025).hi, clopperPearson(300, 10_000, 0.025).hi])
    expect(b.kind === 'bound' && b.lb).toBeGreaterThan(0)
  })
})
