import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import {
  MAX_ORDER,
  REPLACE_ONE_ORDERS,
  gaussianRdp,
  rdpCurve,
  replaceOneCurve,
  replaceOneFromAddRemove,
  replaceOneInnerOrders,
  subsampledGaussianRdp,
} from '../../../src/accounting/rdp/index.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'

const AR = addRemove('word')
const SEED = 20_170_211
const order = fc.double({ min: 1.01, max: MAX_ORDER / 2, noNaN: true })
const sigma = fc.double({ min: 0.3, max: 30, noNaN: true })

const roCurve = (e: ev.PrivacyEvent, orders?: ReadonlyArray<number>) => {
  const r = replaceOneCurve(e, AR, orders)
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}

/**
 * D_α(P‖Q) for the per-step replace-one pair of one count table under Poisson sampling:
 * P = (1−q)N(0, σ²I₂) + qN(e₁, σ²I₂), Q = (1−q)N(0, σ²I₂) + qN(e₂, σ²I₂), by the tensor trapezoid
 * rule on a box wide enough that the integrand P^α Q^{1−α} is negligible outside (log space).
 */
const replaceOnePairRdp = (q: number, s: number, alpha: number, h = 0.025): number => {
  const lo = -10 * s
  const hi = 10 * s + alpha + 1
  const n = Math.ceil((hi - lo) / h)
  const c = -Math.log(2 * Math.PI * s * s)
  const k = 1 / (2 * s * s)
  const mix = (a: number, b: number): number => {
    const m = Math.max(a, b)
    return m + Math.log((1 - q) * Math.exp(a - m) + q * Math.exp(b - m))
  }
  let sum = 0
  for (let i = 0; i <= n; i++) {
    const x = lo + i * h
    const wi = i === 0 || i === n ? 0.5 : 1
    for (let j = 0; j <= n; j++) {
      const y = lo + j * h
      const l0 = -(x * x + y * y) * k
      const lp = c + mix(l0, -((x - 1) * (x - 1) + y * y) * k)
      const lq = c + mix(l0, -(x * x + (y - 1) * (y - 1)) * k)
      sum += wi * (j === 0 || j === n ? 0.5 : 1) * Math.exp(alpha * lp + (1 - alpha) * lq)
    }
  }
  return Math.log(sum * h * h) / (alpha - 1)
}

describe('replace-one RDP from add/remove by the weak triangle inequality (Mironov 2017 Prop. 11)', () => {
  it('Gaussian: never below the exact group-of-2 value 2α/σ² (sensitivity 2), and within 1 + 1/(4α(α−1)) of it', () => {
    fc.assert(
      fc.property(order, sigma, (a, s) => {
        const bound = replaceOneFromAddRemove([a], (b) => gaussianRdp(s, b))[0] as number
        const exact = (2 * a) / (s * s)
        expect(bound).toBeGreaterThanOrEqual(exact * (1 - 1e-12))
        expect(bound / exact).toBeLessThanOrEqual(1 + 1 / (4 * a * (a - 1)) + 1e-9)
        if (a >= 2) expect(bound / exact).toBeLessThanOrEqual(1.125 + 1e-9)
      }),
      { seed: SEED, numRuns: 500 },
    )
  })

  it('the event route (composed curve of T Gaussians) equals the formula on T·α/(2σ²) and stays above T·2α/σ²', () => {
    fc.assert(
      fc.property(sigma, fc.integer({ min: 1, max: 1000 }), (s, T) => {
        const c = roCurve(ev.selfCompose(ev.gaussian(s, 1, AR), T))
        c.orders.forEach((a, i) => {
          const v = c.curve[i] as number
          expect(v).toBeGreaterThanOrEqual(((T * 2 * a) / (s * s)) * (1 - 1e-12))
          const f = replaceOneFromAddRemove([a], (b) => T * gaussianRdp(s, b))[0] as number
          expect(Math.abs(v - f)).toBeLessThanOrEqual(1e-10 * f)
        })
      }),
      { seed: SEED, numRuns: 30 },
    )
  })

  it('is monotone in the inner curve: a pointwise larger add/remove curve gives a larger bound', () => {
    const curve = fc.func(fc.double({ min: 0, max: 1e3, noNaN: true }))
    fc.assert(
      fc.property(fc.array(order, { minLength: 1, maxLength: 8 }), curve, curve, (orders, f, d) => {
        const small = (b: number) => f(b)
        const large = (b: number) => f(b) + d(b)
        const lo = replaceOneFromAddRemove(orders, small)
        const hi = replaceOneFromAddRemove(orders, large)
        lo.forEach((x, i) => expect(hi[i] as number).toBeGreaterThanOrEqual(x))
      }),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('is monotone through the accountant: less noise (smaller σ) or a higher rate gives a larger curve', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.9, noNaN: true }),
        fc.double({ min: 0.5, max: 5, noNaN: true }),
        fc.double({ min: 1, max: 2, noNaN: true }),
        (q, s, k) => {
          const orders = [1.5, 2, 3, 4.5, 8, 16, 64]
          const base = roCurve(ev.poissonSample(q, ev.gaussian(s, 1, AR)), orders).curve
          const noisier = roCurve(ev.poissonSample(q, ev.gaussian(s * k, 1, AR)), orders).curve
          const denser = roCurve(ev.poissonSample(Math.min(1, q * k), ev.gaussian(s, 1, AR)), orders).curve
          base.forEach((x, i) => {
            expect(noisier[i] as number).toBeLessThanOrEqual(x * (1 + 1e-9))
            expect(denser[i] as number).toBeGreaterThanOrEqual(x * (1 - 1e-9))
          })
        },
      ),
      { seed: SEED, numRuns: 25 },
    )
  })

  it('is at least the add/remove curve at the same order (replace-one is at least as hard)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 1, noNaN: true }), fc.double({ min: 0.5, max: 5, noNaN: true }), (q, s) => {
        const e = ev.poissonSample(q, ev.compose([ev.gaussian(s, 1, AR), ev.exponential(1, 1, AR)]))
        const ro = roCurve(e)
        const ar = rdpCurve(e, AR, ro.orders)
        if (E.isLeft(ar)) throw new Error(formatError(ar.left))
        ro.curve.forEach((x, i) => expect(x).toBeGreaterThanOrEqual(ar.right[i] as number))
      }),
      { seed: SEED, numRuns: 15 },
    )
  })

  it('brute force: bounds the replace-one divergence of one Poisson-sampled count table (2-D quadrature)', () => {
    // The quadrature reproduces the unsampled pair exactly: D_α(N(e₁)‖N(e₂)) = α/σ² (‖e₁ − e₂‖² = 2).
    expect(replaceOnePairRdp(1, 1, 2)).toBeCloseTo(2, 8)
    for (const [q, s] of [
      [0.5, 1],
      [0.1, 1],
      [0.2, 0.8],
    ] as const)
      for (const a of [2, 3]) {
        const truth = replaceOnePairRdp(q, s, a)
        const bound = replaceOneFromAddRemove([a], (b) => subsampledGaussianRdp(q, s, b))[0] as number
        expect(truth).toBeGreaterThan(0)
        expect(bound).toBeGreaterThanOrEqual(truth)
      }
  })

  it('caps at twice the composed pure ε (max-divergence obeys the plain triangle inequality)', () => {
    const c = roCurve(ev.selfCompose(ev.laplace(1, 1, AR), 3))
    expect(c.addRemovePureEpsilon).toBeCloseTo(3, 9)
    for (const x of c.curve) expect(x).toBeLessThanOrEqual(6)
    // At α = 1.05 the weighted sum 11·ε(2.1) + ε(1.1) exceeds 6: the cap binds.
    expect(c.orders[0]).toBe(1.05)
    expect(c.curve[0]).toBe(6)
  })

  it('reads the add/remove curve at 2α and 2α − 1 only; the default grid keeps 2α within MAX_ORDER', () => {
    expect(replaceOneInnerOrders([1.5, 2, 4.5])).toEqual([2, 3, 4, 8, 9])
    expect(REPLACE_ONE_ORDERS.every((a) => 2 * a <= MAX_ORDER)).toBe(true)
    expect(REPLACE_ONE_ORDERS.length).toBeGreaterThan(100)
  })

  it('refuses a replace-one curve, orders above MAX_ORDER/2 and order 1, naming them', () => {
    const g = ev.gaussian(1, 1, AR)
    const rel = replaceOneCurve(g, replaceOne('word'))
    expect(E.isLeft(rel) && formatError(rel.left)).toMatch(/relation.*add\/remove.*replace-one one word/)
    const big = replaceOneCurve(g, AR, [2, MAX_ORDER])
    expect(E.isLeft(big) && formatError(big.left)).toMatch(/orders\[1\].*10000/)
    const one = replaceOneCurve(g, AR, [1])
    expect(E.isLeft(one) && formatError(one.left)).toMatch(/orders\[0\]/)
    expect(Number.isNaN(replaceOneFromAddRemove([1], () => 0)[0])).toBe(true)
  })
})
