import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import {
  exponentialRdp,
  fromIntegerOrders,
  gaussianRdp,
  laplaceRdp,
  poissonGeneralCurve,
  pureDpRdp,
  randomizedResponseRdp,
  subsampledGaussianRdp,
  wbkBound,
  withoutReplacementCurve,
  zhuWangBound,
  zhuWangPoissonRdp,
} from '../../../src/accounting/rdp/index.js'
import { loadFixture, num, relDiff } from './fixtures.js'

const SEED = 2019_0609

interface Row {
  readonly base: 'gaussian' | 'laplace' | 'binaryRR'
  readonly param: string
  readonly alpha: number
  readonly rdp: string
}
interface Fixture {
  readonly zhuWang: ReadonlyArray<Row & { readonly q: string }>
  readonly wbk: ReadonlyArray<Row & { readonly gamma: string; readonly pureEpsilon: string }>
}
const fx = loadFixture<Fixture>('rdp_subsampling_bounds.json')

const baseCurve = (base: Row['base'], p: number) => (a: number) =>
  base === 'gaussian' ? gaussianRdp(p, a) : base === 'laplace' ? laplaceRdp(p, a) : pureDpRdp(p, a)

describe('general subsampling bounds against mpmath (formulas as printed in the papers)', () => {
  it('Zhu & Wang 2019, Thm 6 (Poisson, add/remove)', () => {
    expect(fx.zhuWang.length).toBe(140)
    for (const r of fx.zhuWang) {
      const d = relDiff(zhuWangBound(num(r.q), baseCurve(r.base, num(r.param)), r.alpha), num(r.rdp))
      expect(d, `${r.base}(${r.param}) q=${r.q} α=${r.alpha}`).toBeGreaterThanOrEqual(-1e-13)
      expect(d).toBeLessThan(1e-11)
    }
  })

  it('Wang, Balle & Kasiviswanathan 2019, Thm 9 (without replacement, replace-one)', () => {
    expect(fx.wbk.length).toBe(140)
    for (const r of fx.wbk) {
      const d = relDiff(wbkBound(num(r.gamma), baseCurve(r.base, num(r.param)), num(r.pureEpsilon), r.alpha), num(r.rdp))
      expect(d, `${r.base}(${r.param}) γ=${r.gamma} α=${r.alpha}`).toBeGreaterThanOrEqual(-1e-13)
      expect(d).toBeLessThan(1e-11)
    }
  })
})

describe('Zhu–Wang is an upper bound: on the Gaussian base curve it never undercuts the exact sampled Gaussian', () => {
  it('at every integer order 2..64, equal at α = 2 (the factor 3 starts at l = 3)', () => {
    for (const [q, sigma] of [
      [0.001, 0.8],
      [0.01, 1.1],
      [0.1, 2],
      [0.5, 0.9],
      [0.9, 5],
    ] as const) {
      const base = (a: number) => gaussianRdp(sigma, a)
      for (let a = 2; a <= 64; a++) {
        const zw = zhuWangBound(q, base, a)
        const exact = subsampledGaussianRdp(q, sigma, a)
        expect(zw, `q=${q} σ=${sigma} α=${a}`).toBeGreaterThanOrEqual(exact * (1 - 1e-10))
        if (a === 2) expect(Math.abs(relDiff(zw, exact))).toBeLessThan(1e-10)
      }
    }
  })

  it('as a property over q, σ and α', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 0.999, noNaN: true }),
        fc.double({ min: 0.4, max: 10, noNaN: true }),
        fc.integer({ min: 2, max: 100 }),
        (q, s, a) => zhuWangBound(q, (x) => gaussianRdp(s, x), a) >= subsampledGaussianRdp(q, s, a) * (1 - 1e-10),
      ),
      { seed: SEED, numRuns: 200 },
    )
  })
})

describe('extending integer-order bounds to all orders', () => {
  it('interpolates the cumulant (α−1)ε linearly between integers and uses ε(2) below 2', () => {
    const at = (n: number) => n * n // any values
    const c = fromIntegerOrders([1.5, 2, 2.25, 3], at)
    expect(c[0]).toBe(4)
    expect(c[1]).toBe(4)
    expect(c[2]).toBeCloseTo((0.75 * 1 * 4 + 0.25 * 2 * 9) / 1.25, 14)
    expect(c[3]).toBe(9)
    expect(fromIntegerOrders([2.5], (n) => (n === 3 ? Infinity : 1))[0]).toBe(Infinity)
  })

  it('the chord is an upper bound for a convex cumulant (checked on exact sampled-Gaussian values)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 0.9, noNaN: true }),
        fc.double({ min: 0.5, max: 5, noNaN: true }),
        fc.double({ min: 1.05, max: 30, noNaN: true }),
        (q, s, a) => {
          const chord = fromIntegerOrders([a], (n) => subsampledGaussianRdp(q, s, n))[0] as number
          return chord >= subsampledGaussianRdp(q, s, a) * (1 - 1e-10)
        },
      ),
      { seed: SEED, numRuns: 100 },
    )
  })

  it('Zhu–Wang at any order (the comparison helper) matches Thm 6 at integers and is the chord between', () => {
    const base = (a: number) => laplaceRdp(1, a)
    expect(zhuWangPoissonRdp(0.1, base, 5)).toBe(zhuWangBound(0.1, base, 5))
    const mid = zhuWangPoissonRdp(0.1, base, 5.5)
    expect(mid).toBeGreaterThan(zhuWangBound(0.1, base, 5))
    expect(mid).toBeLessThan(zhuWangBound(0.1, base, 6))
    expect(zhuWangPoissonRdp(1, base, 5.5)).toBe(base(5.5))
  })
})

describe('subsampled curves never exceed the unsubsampled one and amplify', () => {
  const orders = [1.25, 2, 3.5, 8, 20]

  it('Poisson (Zhu–Wang) and without replacement (WBK), Laplace base', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 5, noNaN: true }), fc.double({ min: 1e-3, max: 0.99, noNaN: true }), (b, q) => {
        const base = (a: number) => laplaceRdp(b, a)
        const pois = poissonGeneralCurve(orders, q, base)
        const wor = withoutReplacementCurve(orders, q, base, 1 / b)
        return orders.every((a, i) => (pois[i] as number) <= base(a) && (wor[i] as number) <= base(a))
      }),
      { seed: SEED, numRuns: 100 },
    )
  })

  it('small rates amplify quadratically: Laplace(b = 1), q = 0.01 at α = 2 is O(q²)', () => {
    const base = (a: number) => laplaceRdp(1, a)
    const v = poissonGeneralCurve([2], 0.01, base)[0] as number
    // Thm 6 at α = 2: log(1 + q²(e^{ε(2)} − 1)).
    expect(v).toBeCloseTo(Math.log1p(1e-4 * Math.expm1(base(2))), 14)
    expect(v).toBeLessThan(base(2) * 1e-3)
  })

  it('WBK: a 0-DP base gives 0, and the pure ε(∞) tightens the bound', () => {
    expect(wbkBound(0.1, () => 0, 0, 5)).toBe(0)
    const base = (a: number) => pureDpRdp(0.1, a)
    expect(wbkBound(0.1, base, 0.1, 10)).toBeLessThan(wbkBound(0.1, base, Infinity, 10))
  })
})

describe('Zhu–Wang on a curve reuses the per-order parts of its terms', () => {
  it('gives, at every integer order, the same bits as the bound computed alone (random base curves)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 0.9, noNaN: true }),
        fc.array(fc.oneof({ weight: 9, arbitrary: fc.double({ min: 0, max: 30, noNaN: true }) }, fc.constant(Infinity)), { minLength: 80, maxLength: 80 }),
        fc.array(fc.integer({ min: 2, max: 80 }), { minLength: 1, maxLength: 10 }),
        (q, raw, picks) => {
          // A non-decreasing base curve on 2..81 (any values would do for the identity).
          let run = 0
          const values = raw.map((v) => (run = Math.max(run, v)))
          const base = (l: number): number => values[Math.min(values.length - 1, Math.max(0, Math.round(l) - 2))] as number
          const orders = [...new Set(picks)].sort((a, b) => a - b)
          const curve = poissonGeneralCurve(orders, q, base)
          orders.forEach((n, i) => expect(curve[i]).toBe(Math.min(zhuWangBound(q, base, n), base(n))))
        },
      ),
      { seed: 2026_1127, numRuns: 100 },
    )
  })
})

describe('Zhu–Wang against the whole binomial sum evaluated naively (no recurrence, no truncation)', () => {
  /** Thm 6's braces − 1 at integer α, every term from its definition: C(α,l) by products, q^l (1 − q)^{α−l} by pow. */
  const linearNaive = (q: number, eps: (l: number) => number, alpha: number): number => {
    let sum = 0
    let c = 1
    for (let l = 1; l <= alpha; l++) {
      c = (c * (alpha - l + 1)) / l
      if (l < 2) continue
      const w = l === 2 ? Math.expm1(eps(2)) : 3 * Math.exp((l - 1) * eps(l)) - 1
      sum += c * q ** l * Math.exp((alpha - l) * Math.log1p(-q)) * w
    }
    return Math.log1p(sum) / (alpha - 1)
  }
  /** The same sum term by term in log space (@stdlib's binomcoefln), every term exponentiated: for large α. */
  const logNaive = (q: number, eps: (l: number) => number, alpha: number): number => {
    const logs: number[] = []
    for (let l = 2; l <= alpha; l++) {
      const x = (l - 1) * eps(l)
      const w = l === 2 ? Math.log(Math.expm1(eps(2))) : x + Math.log(3 - Math.exp(-x))
      logs.push(binomcoefln(alpha, l) + l * Math.log(q) + (alpha - l) * Math.log1p(-q) + w)
    }
    const m = Math.max(...logs)
    if (m === -Infinity) return 0
    const l = m + Math.log(logs.reduce((acc, v) => acc + Math.exp(v - m), 0))
    return (l > 0 ? l + Math.log1p(Math.exp(-l)) : Math.log1p(Math.exp(l))) / (alpha - 1)
  }
  // Pure-ε inner curves (RR, pure DP, Laplace, the exponential mechanism: the sum stops once the
  // rest is bounded) and the Gaussian (terms may fall and grow back: the log-space sum takes over).
  const base = (maxEps: number, minSigma: number) =>
    fc.oneof(
      fc.tuple(fc.double({ min: 0.01, max: maxEps, noNaN: true }), fc.integer({ min: 2, max: 10_000 })).map(([e, k]) => (l: number) => randomizedResponseRdp(e, k, l)),
      fc.double({ min: 0.01, max: maxEps, noNaN: true }).map((e) => (l: number) => pureDpRdp(e, l)),
      fc.double({ min: 1 / maxEps, max: 100, noNaN: true }).map((b) => (l: number) => laplaceRdp(b, l)),
      fc.double({ min: 0.01, max: maxEps, noNaN: true }).map((e) => (l: number) => exponentialRdp(e, l)),
      fc.double({ min: minSigma, max: 100, noNaN: true }).map((s) => (l: number) => gaussianRdp(s, l)),
      // An inner event that releases nothing: ε(2) = 0 makes the first term 0 (log −∞).
      fc.constant(() => 0),
    )
  const rate = fc.double({ min: Math.log(1e-8), max: Math.log(0.95), noNaN: true }).map(Math.exp)
  // The bound carries roundUpLoss's relative 1e-12; without it, it is within (−1e-13, +2e-13) of the naive sum.
  const within = (zw: number, naive: number): boolean => {
    if (naive === 0) return zw === 0
    const r = zw / (1 + 1e-12) / naive - 1
    return r >= -1e-13 && r <= 2e-13
  }

  it('integer α ≤ 60, in linear space', () => {
    fc.assert(
      fc.property(rate, base(5, 2), fc.integer({ min: 2, max: 60 }), (q, eps, a) => within(zhuWangBound(q, eps, a), linearNaive(q, eps, a))),
      { seed: SEED, numRuns: 1000 },
    )
  })

  it('integer α ≤ 1024, in log space (the curve sums stop near the binomial mode)', () => {
    fc.assert(
      fc.property(rate, base(5, 0.3), fc.integer({ min: 2, max: 1024 }), (q, eps, a) => within(zhuWangBound(q, eps, a), logNaive(q, eps, a))),
      { seed: SEED, numRuns: 300 },
    )
  })
})
