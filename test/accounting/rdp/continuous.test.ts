import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import { rdpEpsilonAtOrder } from '../../../src/accounting/conversions.js'
import {
  DEFAULT_ORDERS,
  MAX_TERMS,
  makeRdpAccountant,
  rdpCurveAtOrders,
  refineOrder,
} from '../../../src/accounting/rdp/index.js'
import { formatError } from '../../../src/core/error.js'
import { goldenMin } from '../../../src/core/numeric.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove } from '../../../src/mechanisms/neighbouring.js'
import { loadFixture, num } from './fixtures.js'

const AR = addRemove('record')
const SEED = 2026_1123
const grid = makeRdpAccountant({ relation: AR, continuous: false })
const cont = makeRdpAccountant({ relation: AR })

const answer = (a: typeof cont, e: ev.PrivacyEvent, delta: number) => {
  const s = a.compose(e)(a.empty)
  if (E.isLeft(s)) throw new Error(formatError(s.left))
  const r = a.epsilon(delta)(s.right)
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}

const event = (w: { q: string; sigma: string; steps: number }): ev.PrivacyEvent => {
  const g = ev.gaussian(num(w.sigma), 1, AR)
  return ev.selfCompose(num(w.q) >= 1 ? g : ev.poissonSample(num(w.q), g), w.steps)
}

describe('continuous RDP orders against mpmath optima (scripts/fixtures/rdp_continuous.py)', () => {
  const fx = loadFixture<{
    workloads: ReadonlyArray<{ name: string; q: string; sigma: string; steps: number; delta: string; epsilon: string; order: string }>
  }>('rdp_continuous.json').workloads

  for (const w of fx)
    it(`${w.name} at δ = ${w.delta}: within 0.1 % of the continuous optimum, never below it, never above the grid`, () => {
      const c = answer(cont, event(w), num(w.delta))
      const g = answer(grid, event(w), num(w.delta))
      const opt = num(w.epsilon)
      expect(c.epsilon).toBeGreaterThanOrEqual(opt * (1 - 1e-9))
      expect(c.epsilon).toBeLessThanOrEqual(opt * 1.001)
      expect(c.epsilon).toBeLessThanOrEqual(g.epsilon)
      expect(Math.abs((c.order as number) - num(w.order))).toBeLessThan(0.05 * num(w.order))
    })

  it('the issue’s example: PoissonSample(0.01, Gaussian σ 1.1) × 100 at δ = 1e-5 reports α ≈ 10.7, ε ≤ dp_accounting’s 0.95609', () => {
    const c = answer(cont, ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 100), 1e-5)
    expect(c.epsilon).toBeLessThanOrEqual(0.95609)
    expect(c.order as number).toBeGreaterThan(10.5)
    expect(c.order as number).toBeLessThan(10.9)
    expect(c.method).toMatch(/real order α = 10\.\d+ \(continuous search from the grid's best α = 11 of 125\)/)
    // The grid alone answered 0.98100 at α = 11.
    expect(answer(grid, ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 100), 1e-5).epsilon).toBeCloseTo(0.981, 4)
  })
})

describe('continuous RDP orders: soundness', () => {
  it('the reported order reproduces the answer as a one-order grid (the answer is a valid bound at that α)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.2, noNaN: true }),
        fc.double({ min: 0.6, max: 4, noNaN: true }),
        fc.integer({ min: 1, max: 5000 }),
        fc.constantFrom(1e-5, 1e-6, 1e-8),
        (q, sigma, T, delta) => {
          const e = ev.selfCompose(ev.poissonSample(q, ev.gaussian(sigma, 1, AR)), T)
          const c = answer(cont, e, delta)
          if (c.order === undefined) return
          const curve = rdpCurveAtOrders(e, AR, [c.order])
          if (E.isLeft(curve)) throw new Error(formatError(curve.left))
          expect(c.epsilon).toBe(rdpEpsilonAtOrder(c.order, curve.right[0] as number, delta))
          expect(c.epsilon).toBeLessThanOrEqual(answer(grid, e, delta).epsilon)
        },
      ),
      { numRuns: 25, seed: SEED },
    )
  })

  it('the search (Brent) is one of its evaluated orders’ bounds: ≤ the grid, ≥ the optimum of its bracket, and within 1e-9 of it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.3, noNaN: true }),
        fc.double({ min: 0.6, max: 6, noNaN: true }),
        fc.integer({ min: 1, max: 20000 }),
        fc.constantFrom(1e-5, 1e-7, 1e-10),
        fc.constantFrom('gaussian', 'laplace'),
        (q, scale, T, delta, noise) => {
          const leaf = noise === 'gaussian' ? ev.gaussian(scale, 1, AR) : ev.laplace(scale, 1, AR)
          const e = ev.selfCompose(ev.poissonSample(q, leaf), T)
          const c = answer(cont, e, delta)
          const g = answer(grid, e, delta)
          expect(c.epsilon).toBeLessThanOrEqual(g.epsilon)
          if (c.order === undefined || g.order === undefined) return
          const at = (a: number) => {
            const r = rdpCurveAtOrders(e, AR, [a])
            if (E.isLeft(r)) throw new Error(formatError(r.left))
            return rdpEpsilonAtOrder(a, r.right[0] as number, delta)
          }
          // A valid bound: the conversion at the order it reports.
          expect(c.epsilon).toBe(at(c.order))
          // The optimum over the grid neighbours of the reported order, by golden section to 1e-12.
          const i = DEFAULT_ORDERS.findIndex((a) => a >= c.order!)
          const lo = DEFAULT_ORDERS[Math.max(0, i - 1)] as number
          const hi = DEFAULT_ORDERS[Math.min(DEFAULT_ORDERS.length - 1, i + 1)] as number
          const ref = goldenMin((u) => at(1 + Math.exp(u)), Math.log(lo - 1), Math.log(hi - 1), 1e-12, 200).value
          expect(c.epsilon).toBeLessThanOrEqual(Math.max(ref, g.epsilon) * (1 + 1e-9))
        },
      ),
      { numRuns: 30, seed: SEED + 3 },
    )
  })

  it('plain Gaussian compositions: never below the exact analytic-Gaussian ε, never above the grid', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.3, max: 20, noNaN: true }),
        fc.integer({ min: 1, max: 2000 }),
        fc.constantFrom(1e-3, 1e-5, 1e-9),
        (sigma, T, delta) => {
          const e = ev.selfCompose(ev.gaussian(sigma, 1, AR), T)
          const c = answer(cont, e, delta).epsilon
          // T Gaussians of multiplier σ are exactly one Gaussian of multiplier σ/√T.
          const exact = analyticGaussianEpsilon(sigma / Math.sqrt(T), delta)
          expect(c).toBeGreaterThanOrEqual(exact * (1 - 1e-12))
          expect(c).toBeLessThanOrEqual(answer(grid, e, delta).epsilon)
        },
      ),
      { numRuns: 40, seed: SEED + 1 },
    )
  })

  it('δ queries: never above the grid, and the reported order reproduces the answer', () => {
    const e = ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 100)
    const sc = cont.compose(e)(cont.empty)
    const sg = grid.compose(e)(grid.empty)
    if (E.isLeft(sc) || E.isLeft(sg)) throw new Error('fold')
    const dc = cont.delta(1)(sc.right)
    const dg = grid.delta(1)(sg.right)
    if (E.isLeft(dc) || E.isLeft(dg)) throw new Error('query')
    expect(dc.right.delta).toBeLessThanOrEqual(dg.right.delta)
    expect(dc.right.delta).toBeLessThan(dg.right.delta * 0.9)
  })

  it('many distinct events: the search is skipped past MAX_TERMS, the answer stays the grid’s', () => {
    let s = cont.empty
    for (let i = 0; i <= MAX_TERMS; i++) {
      const r = cont.compose(ev.gaussian(5 + i / 100, 1, AR))(s)
      if (E.isLeft(r)) throw new Error('fold')
      s = r.right
    }
    expect(s.terms).toBeNull()
    const a = cont.epsilon(1e-5)(s)
    expect(E.isRight(a) && a.right.method).toMatch(/optimal order α = [\d.]+ of 125$/)
  })

  it('refineOrder never returns worse than the grid, even for a non-unimodal bound', () => {
    const orders = DEFAULT_ORDERS
    const bumpy = (a: number, r: number) => r + Math.sin(7 * a)
    const curve = (a: number) => 1 / a
    let best = 0
    orders.forEach((a, i) => {
      if (bumpy(a, curve(a)) < bumpy(orders[best] as number, curve(orders[best] as number))) best = i
    })
    const g = bumpy(orders[best] as number, curve(orders[best] as number))
    const r = refineOrder(orders, orders[best] as number, g, bumpy, curve)
    expect(r.value).toBeLessThanOrEqual(g)
    expect(r.value).toBe(bumpy(r.order, curve(r.order)))
    // With the grid's values known (the accountant's call) the same guarantee holds.
    const known = refineOrder(orders, orders[best] as number, g, bumpy, curve, (i) => bumpy(orders[i] as number, curve(orders[i] as number)))
    expect(known.value).toBeLessThanOrEqual(g)
    expect(known.value).toBe(bumpy(known.order, curve(known.order)))
  })

  it('with the grid values known: a smooth minimum as close as without them, a kink at an integer grid order in 2 evaluations', () => {
    const orders = DEFAULT_ORDERS
    fc.assert(
      fc.property(fc.double({ min: 1.2, max: 900, noNaN: true }), fc.double({ min: 0.1, max: 10, noNaN: true }), fc.boolean(), (m, scale, kinked) => {
        // Convex in u = log(α − 1) either way: smooth (a parabola) or a V at the integer nearest m.
        const k = Math.max(2, Math.round(m))
        const c = kinked ? Math.log(k - 1) : Math.log(m - 1)
        const f = (a: number, r: number) => r + scale * (kinked ? Math.abs(Math.log(a - 1) - c) : (Math.log(a - 1) - c) ** 2)
        const curve = () => 1
        const v = orders.map((a) => f(a, 1))
        let best = 0
        v.forEach((x, i) => {
          if (x < (v[best] as number)) best = i
        })
        const plain = refineOrder(orders, orders[best] as number, v[best] as number, f, curve)
        const seeded = refineOrder(orders, orders[best] as number, v[best] as number, f, curve, (i) => v[i] as number)
        expect(seeded.value).toBeLessThanOrEqual(v[best] as number)
        expect(seeded.value).toBe(f(seeded.order, 1))
        expect(seeded.value).toBeLessThanOrEqual(plain.value + 1e-12 * (1 + plain.value))
        if (kinked && orders.includes(k) && orders[best] === k) expect(seeded.evaluations).toBe(2)
      }),
      { numRuns: 300, seed: SEED },
    )
  })
})
