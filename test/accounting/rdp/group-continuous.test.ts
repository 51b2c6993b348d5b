import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { replaceOneCurve, replaceOneEvaluator, replaceOneToEpsilon } from '../../../src/accounting/rdp/index.js'
import { rdpEpsilonAtOrder } from '../../../src/accounting/conversions.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'

// The weak-triangle replace-one bound (Mironov 2017 Prop. 11) at real orders, and its (ε, δ)
// conversion searched over real α as the RDP accountant does (./continuous.ts).
const AR = addRemove('word')
const SEED = 20_261_123

const right = <A>(x: E.Either<{ readonly _tag: string }, A>): A => {
  if (E.isLeft(x)) throw new Error(formatError(x.left as never))
  return x.right
}

const sampledGaussian = fc.record({
  q: fc.double({ min: 0.001, max: 0.5, noNaN: true }),
  sigma: fc.double({ min: 0.6, max: 5, noNaN: true }),
  steps: fc.integer({ min: 1, max: 300 }),
})
const planOf = (r: { q: number; sigma: number; steps: number }) => ev.selfCompose(ev.poissonSample(r.q, ev.gaussian(r.sigma, 1, AR)), r.steps)

describe('replace-one RDP by the weak triangle at real orders', () => {
  it('Gaussian σ (Δ = 1): the evaluator is the closed form (2α − 1)²/(2σ²(α − 1)) at every real order', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.3, max: 30, noNaN: true }), fc.double({ min: 1.001, max: 4000, noNaN: true }), (sigma, alpha) => {
        const at = right(replaceOneEvaluator(ev.gaussian(sigma, 1, AR), AR, Infinity))
        const want = (2 * alpha - 1) ** 2 / (2 * sigma * sigma * (alpha - 1))
        expect(at(alpha)).toBeCloseTo(want, 9 - Math.max(0, Math.ceil(Math.log10(want))))
      }),
      { seed: SEED, numRuns: 50 },
    )
  })

  it('agrees with the grid curve at the grid orders (the same add/remove curve is read)', () => {
    fc.assert(
      fc.property(sampledGaussian, (r) => {
        const c = right(replaceOneCurve(planOf(r), AR))
        const at = right(replaceOneEvaluator(planOf(r), AR, c.addRemovePureEpsilon))
        for (const i of [0, 10, 40, 80, c.orders.length - 1]) {
          const a = c.orders[i] as number
          const v = at(a) as number
          const g = c.curve[i] as number
          expect(Math.abs(v - g)).toBeLessThanOrEqual(1e-9 * Math.max(1, g))
        }
      }),
      { seed: SEED, numRuns: 10 },
    )
  })

  it('caps by twice the add/remove pure ε (Laplace b: 2/b at every order) and refuses a replace-one relation', () => {
    const lap = ev.laplace(2, 1, AR)
    const c = right(replaceOneCurve(lap, AR))
    expect(c.addRemovePureEpsilon).toBe(0.5)
    const at = right(replaceOneEvaluator(lap, AR, c.addRemovePureEpsilon))
    for (const a of [1.5, 37.3, 4999]) expect(at(a)).toBeLessThanOrEqual(1)
    expect(at(5000.5)).toBeUndefined()
    const bad = replaceOneEvaluator(lap, replaceOne('word'), 0.5)
    expect(E.isLeft(bad) && bad.left.path).toBe('relation')
  })

  it('Poisson-subsampled Gaussians: the continuous ε is never above the grid ε and is the conversion at the order it reports', () => {
    fc.assert(
      fc.property(sampledGaussian, fc.constantFrom(1e-5, 1e-8, 1e-3), (r, delta) => {
        const p = planOf(r)
        const c = right(replaceOneCurve(p, AR))
        const at = right(replaceOneEvaluator(p, AR, c.addRemovePureEpsilon))
        const x = right(replaceOneToEpsilon(c, delta, at))
        const grid = right(replaceOneToEpsilon(c, delta))
        expect(grid.epsilon).toBe(grid.gridEpsilon)
        expect(x.gridEpsilon).toBe(grid.epsilon)
        expect(x.epsilon).toBeLessThanOrEqual(grid.epsilon)
        expect(x.epsilon).toBe(rdpEpsilonAtOrder(x.order, at(x.order) as number, delta))
      }),
      { seed: SEED, numRuns: 12 },
    )
  })

  it('composed Gaussians: at the order it reports, never below the conversion of the exact replace-one curve T·2α/σ² (sensitivity 2)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 50, noNaN: true }), fc.integer({ min: 1, max: 500 }), fc.constantFrom(1e-5, 1e-10), (sigma, steps, delta) => {
        const p = ev.selfCompose(ev.gaussian(sigma, 1, AR), steps)
        const c = right(replaceOneCurve(p, AR))
        const x = right(replaceOneToEpsilon(c, delta, right(replaceOneEvaluator(p, AR, c.addRemovePureEpsilon))))
        expect(x.epsilon).toBeLessThanOrEqual(x.gridEpsilon)
        expect(x.epsilon).toBeGreaterThanOrEqual(rdpEpsilonAtOrder(x.order, (steps * 2 * x.order) / (sigma * sigma), delta))
      }),
      { seed: SEED, numRuns: 30 },
    )
  })

  it('Gaussian σ = 5: the continuous order beats the grid and sits at the minimiser of the closed form', () => {
    const g = ev.gaussian(5, 1, AR)
    const c = right(replaceOneCurve(g, AR))
    const x = right(replaceOneToEpsilon(c, 1e-5, right(replaceOneEvaluator(g, AR, Infinity))))
    // Independent minimisation of the closed form over a fine grid of real orders (step 1e-4).
    let best = Infinity
    for (let a = 1.01; a < 100; a += 1e-4) best = Math.min(best, rdpEpsilonAtOrder(a, (2 * a - 1) ** 2 / (50 * (a - 1)), 1e-5))
    expect(x.epsilon).toBeLessThan(x.gridEpsilon)
    expect(x.order).not.toBe(x.gridOrder)
    // A fine grid's minimum is at or above the real minimum, and within 1e-6 of it here.
    expect(Math.abs(x.epsilon / best - 1)).toBeLessThan(1e-6)
  })
})
