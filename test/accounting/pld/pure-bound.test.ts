/**
 * The PLD accountant's pure ε from the pairs' largest losses (src/accounting/pld/pure-bound.ts):
 * the add direction of a Poisson-subsampled event has loss at most −log(1 − q + q·e^{min loss}), so
 * an add-only composition has a finite ε at δ = 0 (issue 26), as the RDP accountant has.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as ev from '../../../src/mechanisms/event.js'
import { addOnly, addRemove, removeOnly } from '../../../src/mechanisms/neighbouring.js'
import { ACCOUNTANTS } from '../../../src/accounting/registry.js'
import * as E from 'fp-ts/lib/Either.js'
import { epsAt } from '../eps-at.js'

const AR = addRemove('record')
const AO = addOnly('record')
const SEED = 26_030

/** −log(1 − q + q·e^{−b}): the add direction's largest loss (b = ∞: −log(1 − q)). */
const addSup = (q: number, b: number): number => -Math.log1p(q * Math.expm1(-b))

const deltaAt = (e: ev.PrivacyEvent, eps: number): number => {
  const r = ACCOUNTANTS.pld({ relation: AO }).run(e)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const d = r.right.delta(eps)
  if (E.isLeft(d)) throw new Error(JSON.stringify(d.left))
  return d.right.delta
}

describe('PLD pure ε in the add direction of Poisson-subsampled events', () => {
  it('exact: k steps of a sampled Gaussian give k·(−log(1 − q)), of a sampled Laplace k·(−log(1 − q + q·e^{−Δ/b})), as RDP; remove-only and add/remove stay ∞', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 0.9, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0.3, max: 5, noNaN: true }),
        (q, k, s) => {
          for (const [inner, b] of [[ev.gaussian(s, 1, AR), Infinity], [ev.laplace(s, 1, AR), 1 / s]] as const) {
            const e = ev.selfCompose(ev.poissonSample(q, inner), k)
            const want = k * addSup(q, b)
            const got = epsAt('pld', e, 0, AO) as number
            expect(got, `q=${q} k=${k} s=${s}`).toBeGreaterThanOrEqual(want)
            expect(got / want - 1).toBeLessThan(1e-9)
            expect(got / (epsAt('rdp', e, 0, AO) as number) - 1).toBeLessThan(1e-9)
          }
          const g = ev.selfCompose(ev.poissonSample(q, ev.gaussian(s, 1, AR)), k)
          expect(epsAt('pld', g, 0, removeOnly('record'))).toBe(Infinity)
          expect(epsAt('pld', g, 0, AR)).toBe(Infinity)
        },
      ),
      { seed: SEED, numRuns: 25 },
    )
  })

  it('δ(ε) = 0 from the bound on, and δ > 0 just below it where the loss reaches its supremum (a Laplace atom): not over-claimed', () => {
    const e = ev.selfCompose(ev.poissonSample(0.2, ev.laplace(1, 1, AR)), 5)
    const pure = 5 * addSup(0.2, 1)
    expect(deltaAt(e, pure * (1 + 1e-9))).toBe(0)
    expect(deltaAt(e, pure * (1 - 1e-2))).toBeGreaterThan(0)
  })

  it('stated guarantees: an (ε, δ) or profile inner (B-only mass) gives −log(1 − q) per step, a pure one −log(1 − q + q·e^{−ε})', () => {
    expect(epsAt('pld', ev.selfCompose(ev.poissonSample(0.1, ev.approxDP(1, 1e-6, AR)), 3), 0, AO) as number).toBeCloseTo(3 * addSup(0.1, Infinity), 9)
    expect(epsAt('pld', ev.poissonSample(0.1, ev.statedProfile([1, 2], [1e-3, 1e-6], AR)), 0, AO) as number).toBeCloseTo(addSup(0.1, Infinity), 9)
    expect(epsAt('pld', ev.selfCompose(ev.poissonSample(0.1, ev.pureDP(2, AR)), 4), 0, AO) as number).toBeCloseTo(4 * addSup(0.1, 2), 9)
  })

  it('monotone in q and the number of steps', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 0.5, noNaN: true }), fc.integer({ min: 1, max: 50 }), fc.double({ min: 1.01, max: 1.9, noNaN: true }), (q, k, f) => {
        const e = (qq: number, kk: number): number => epsAt('pld', ev.selfCompose(ev.poissonSample(qq, ev.gaussian(1, 1, AR)), kk), 0, AO) as number
        const base = e(q, k)
        expect(e(q * f, k)).toBeGreaterThanOrEqual(base)
        expect(e(q, k + 1)).toBeGreaterThanOrEqual(base)
      }),
      { seed: SEED, numRuns: 15 },
    )
  })
})
