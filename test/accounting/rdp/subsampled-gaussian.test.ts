import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  MAX_QUADRATURE_POINTS,
  gaussianRdp,
  makeSampledGaussian,
  subsampledGaussianCurve,
  subsampledGaussianRdp,
  subsampledGaussianRdpWithMethod,
} from '../../../src/accounting/rdp/index.js'
import { sampledGaussianFor } from '../../../src/accounting/rdp/subsampled-gaussian.js'
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import { loadFixture, num, relDiff } from './fixtures.js'

const SEED = 2019_0830

interface Fixture {
  readonly grid: ReadonlyArray<{ alpha: string; q: string; sigma: string; rdp: string }>
  readonly subLda: ReadonlyArray<{ alpha: string; q: string; sigmaSquared: string; rdp: string }>
}
const fx = loadFixture<Fixture>('rdp_subsampled_gaussian.json')

describe('exact Poisson-subsampled Gaussian against mpmath (Mironov, Talwar & Zhang 2019)', () => {
  it('covers q ∈ {0.001 … 1}, σ ∈ {0.5 … 5}, α ∈ {1.1 … 256}: error ≤ 1e-9 relative, never below by > 1e-12', () => {
    expect(fx.grid.length).toBe(300)
    let worst = 0
    for (const r of fx.grid) {
      const ref = num(r.rdp)
      const d = relDiff(subsampledGaussianRdp(num(r.q), num(r.sigma), num(r.alpha)), ref)
      worst = Math.max(worst, Math.abs(d))
      expect(d, `α=${r.alpha} q=${r.q} σ=${r.sigma}`).toBeGreaterThanOrEqual(-1e-12)
    }
    expect(worst).toBeLessThanOrEqual(1e-9)
    // The added margin is 1e-11; the raw error is far below it (measured < 3e-15).
    expect(worst).toBeLessThan(2e-11)
  })

  it('uses the binomial sum at integer orders and the quadrature at fractional ones', () => {
    expect(subsampledGaussianRdpWithMethod(0.1, 1.1, 8).method).toBe('binomial')
    expect(subsampledGaussianRdpWithMethod(0.1, 1.1, 2.5).method).toBe('quadrature')
    expect(subsampledGaussianRdpWithMethod(1, 1.1, 2.5)).toEqual({ rdp: gaussianRdp(1.1, 2.5), method: 'no sampling' })
  })

  it('SUB-LDA setting: σ² = 3.5 (so the unsubsampled ε(14) = 2), α = 14', () => {
    expect(fx.subLda.map((r) => r.q)).toEqual(['0.1', '0.3', '0.5', '0.7', '0.9', '1'])
    for (const r of fx.subLda) {
      const d = relDiff(subsampledGaussianRdp(num(r.q), Math.sqrt(num(r.sigmaSquared)), 14), num(r.rdp))
      expect(d).toBeGreaterThanOrEqual(-1e-12)
      expect(d).toBeLessThanOrEqual(1e-9)
    }
    expect(subsampledGaussianRdp(1, Math.sqrt(3.5), 14)).toBeCloseTo(2, 14)
  })
})

describe('the quadrature', () => {
  it('agrees with the exact binomial sum at integer orders (to 1e-12), with a negligible error bound', () => {
    for (const [q, sigma] of [
      [0.001, 0.7],
      [0.01, 1.1],
      [0.2, 2],
      [0.7, 0.6],
      [0.99, 4],
      [1e-6, 1],
    ] as const) {
      const sg = makeSampledGaussian(q, sigma)
      for (const alpha of [2, 3, 5, 12, 33]) {
        const quad = sg.quadrature(alpha)
        expect(quad).toBeDefined()
        if (quad === undefined) continue
        const exact = sg.logAMinus1Binomial(alpha)
        // log(A − 1) agrees to 1e-12 absolute, i.e. A − 1 to 1e-12 relative.
        expect(Math.abs(quad.logSum - exact), `q=${q} σ=${sigma} α=${alpha}`).toBeLessThan(1e-12)
        expect(quad.logMargin - quad.logSum).toBeLessThan(Math.log(1e-15))
        expect(quad.logUpper).toBeGreaterThanOrEqual(quad.logSum)
      }
    }
  })

  it('the integer-order sum stops once its tail is provably below e^-60 of the largest term: the full sum to 1e-14', () => {
    // Reference: every term k = 2..α of the MTZ 2019 §3.3 expansion, summed in log space without
    // pruning. The truncated sum may only drop a tail bounded by e^{k(k−1)/(2σ²)} − 1 < e^{−60}·max.
    fc.assert(
      fc.property(
        fc.double({ min: -6, max: Math.log10(0.999), noNaN: true }),
        fc.double({ min: -3, max: 2, noNaN: true }),
        fc.integer({ min: 2, max: 1500 }),
        (lq10, ls10, alpha) => {
          const q = 10 ** lq10
          const sigma = 10 ** ls10
          const inv2s2 = 1 / (2 * sigma * sigma)
          const terms: number[] = []
          for (let k = 2; k <= alpha; k++) {
            const x = k * (k - 1) * inv2s2
            const lm = x > 40 ? x + Math.log1p(-Math.exp(-x)) : Math.log(Math.expm1(x))
            terms.push(binomcoefln(alpha, k) + (alpha - k) * Math.log1p(-q) + k * Math.log(q) + lm)
          }
          const m = Math.max(...terms)
          const full = m + Math.log(terms.reduce((s, t) => s + Math.exp(t - m), 0))
          const got = makeSampledGaussian(q, sigma).logAMinus1Binomial(alpha)
          // Log-space differences are relative differences of A − 1 (ε moves by at most that over
          // α − 1): summation rounding plus the dropped tail, far inside the 1e-11 margin.
          expect(Math.abs(got - full), `q=${q} σ=${sigma} α=${alpha}`).toBeLessThanOrEqual(1e-14 * Math.max(1, Math.abs(m)) + alpha * Math.exp(-60))
        },
      ),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('quadrature (linear- or log-space trapezoid sum) against the exact binomial sum, random (q, σ, α): ≤ 1e-12, its upper bound never below; fractional α never below ε(⌊α⌋)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -6, max: Math.log10(0.99), noNaN: true }),
        fc.double({ min: Math.log10(0.3), max: Math.log10(20), noNaN: true }),
        fc.integer({ min: 2, max: 60 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (lq10, ls10, k, frac) => {
          const q = 10 ** lq10
          const sigma = 10 ** ls10
          const sg = makeSampledGaussian(q, sigma)
          const exact = sg.logAMinus1Binomial(k)
          const quad = sg.quadrature(k)
          if (quad === undefined) return
          // Log-space gaps relative to |log(A − 1)|: what ε = log A/(α − 1) sees.
          const scale = Math.max(1, Math.abs(exact))
          expect(Math.abs(quad.logSum - exact), `q=${q} σ=${sigma} α=${k}`).toBeLessThan(1e-12 * scale)
          // Both sums round (~1e-14 here before and after the linear-space sum); the 1e-11 margin on ε covers it.
          expect(quad.logUpper).toBeGreaterThanOrEqual(exact - 1e-13 * scale)
          // Rényi divergence is non-decreasing in α (van Erven & Harremoës 2014, Thm 3).
          const atK = (exact > 0 ? exact + Math.log1p(Math.exp(-exact)) : Math.log1p(Math.exp(exact))) / (k - 1)
          expect(sg.rdp(k + frac).rdp, `q=${q} σ=${sigma} α=${k + frac}`).toBeGreaterThanOrEqual(atK * (1 - 1e-13))
        },
      ),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('picks its step from σ alone (exponential convergence) and stays small', () => {
    const a = makeSampledGaussian(0.01, 0.5).quadrature(3.5)
    const b = makeSampledGaussian(0.01, 5).quadrature(3.5)
    expect(a && b && a.step < b.step).toBe(true)
    expect(a && a.points).toBeLessThan(400)
    expect(b && b.points).toBeLessThan(100)
  })

  it('tiny q: ε(α) → α(e^{1/σ²} − 1)q²/2 as q → 0 (leading term of the binomial expansion)', () => {
    for (const alpha of [1.5, 2.5, 7.25]) {
      const q = 1e-7
      const sigma = 1.3
      const lead = (alpha * Math.expm1(1 / (sigma * sigma)) * q * q) / 2
      // Next order is O(q): relative gap ≲ α²q·e^{3/σ²}.
      expect(Math.abs(relDiff(subsampledGaussianRdp(q, sigma, alpha), lead))).toBeLessThan(1e-4)
    }
  })

  it('gives up past MAX_QUADRATURE_POINTS, and the interpolated fallback is sound and close', () => {
    const sg = makeSampledGaussian(0.05, 0.02)
    expect(sg.quadrature(600.5)).toBeUndefined()
    const r = sg.rdp(600.5)
    expect(r.method).toBe('interpolated')
    // Between the neighbouring integer values (monotone in α) and never above the plain Gaussian.
    expect(r.rdp).toBeGreaterThanOrEqual(sg.rdp(600).rdp)
    expect(r.rdp).toBeLessThanOrEqual(sg.rdp(601).rdp)
    expect(r.rdp).toBeLessThanOrEqual(gaussianRdp(0.02, 600.5))
    expect(MAX_QUADRATURE_POINTS).toBe(200_000)
  })
})

describe('exact sampled Gaussian: properties', () => {
  const q = fc.double({ min: 1e-4, max: 1, noNaN: true })
  const sigma = fc.double({ min: 0.3, max: 20, noNaN: true })
  const alpha = fc.oneof(fc.integer({ min: 2, max: 128 }), fc.double({ min: 1.02, max: 40, noNaN: true }))

  it('ε is non-decreasing in q and in 1/σ, and never above the unsubsampled Gaussian', () => {
    fc.assert(
      fc.property(q, q, sigma, alpha, (q1, q2, s, a) => {
        const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1]
        const eLo = subsampledGaussianRdp(lo, s, a)
        const eHi = subsampledGaussianRdp(hi, s, a)
        const lessNoise = subsampledGaussianRdp(hi, s / 1.3, a)
        const slack = 1e-10
        return eLo <= eHi * (1 + slack) && eHi <= lessNoise * (1 + slack) && eHi <= gaussianRdp(s, a)
      }),
      { seed: SEED, numRuns: 150 },
    )
  })

  it('fractional orders are consistent with integer ones: monotone in α, cumulant below the chord', () => {
    fc.assert(
      fc.property(q, sigma, fc.integer({ min: 2, max: 30 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }), (qq, s, n, t) => {
        const a = n + t
        const [eN, eA, eN1] = [n, a, n + 1].map((x) => subsampledGaussianRdp(qq, s, x)) as [number, number, number]
        const slack = 1e-10
        const chord = (1 - t) * (n - 1) * eN + t * n * eN1
        return eN <= eA * (1 + slack) && eA <= eN1 * (1 + slack) && (a - 1) * eA <= chord * (1 + slack)
      }),
      { seed: SEED, numRuns: 150 },
    )
  })

  it('special cases: q = 0 and σ = ∞ give 0; q = 1 is α/(2σ²); α below 1.01 reuses 1.01 (monotone)', () => {
    expect(subsampledGaussianRdp(0, 1, 3)).toBe(0)
    expect(subsampledGaussianRdp(0.1, Infinity, 3)).toBe(0)
    expect(subsampledGaussianRdp(1, 2, 3)).toBe(3 / 8)
    expect(subsampledGaussianRdp(0.3, 1, 1.001)).toBe(subsampledGaussianRdp(0.3, 1, 1.01))
  })

  it('extreme parameters stay finite and ordered: σ = 0.1 at α = 1024, q = 0.999', () => {
    const big = subsampledGaussianRdp(0.01, 0.1, 1024)
    expect(Number.isFinite(big)).toBe(true)
    expect(big).toBeLessThanOrEqual(gaussianRdp(0.1, 1024))
    // For α(α−1)/(2σ²) huge the k = α term dominates: ε ≈ α/(2σ²) + α·log(q)/(α−1).
    expect(Math.abs(big - (gaussianRdp(0.1, 1024) + (1024 * Math.log(0.01)) / 1023))).toBeLessThan(1e-6)
    const nearOne = subsampledGaussianRdp(0.999, 1.1, 3.5)
    expect(nearOne).toBeLessThan(gaussianRdp(1.1, 3.5))
    expect(nearOne).toBeGreaterThan(0.99 * gaussianRdp(1.1, 3.5))
  })

  it('a curve evaluates every order of a grid with one shared setup', () => {
    const orders = [1.5, 2, 2.5, 3, 64]
    const c = subsampledGaussianCurve(0.02, 0.9, orders)
    expect(c.interpolated).toBe(false)
    expect(Array.from(c.curve)).toEqual(orders.map((a) => subsampledGaussianRdp(0.02, 0.9, a)))
  })
})

describe('the kept SampledGaussian of (q, σ) (shared across curves and searches)', () => {
  it('gives the same bits as a fresh instance, at integer and fractional orders, in any order of asking', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 0.9, noNaN: true }),
        fc.double({ min: 0.3, max: 20, noNaN: true }),
        fc.array(fc.oneof(fc.integer({ min: 2, max: 300 }), fc.double({ min: 1.001, max: 300, noNaN: true })), { minLength: 1, maxLength: 12 }),
        (q, sigma, alphas) => {
          const fresh = makeSampledGaussian(q, sigma)
          const kept = sampledGaussianFor(q, sigma)
          for (const a of alphas) {
            expect(kept.rdp(a)).toEqual(fresh.rdp(a))
            expect(kept.rdp(a)).toEqual(makeSampledGaussian(q, sigma).rdp(a))
          }
        },
      ),
      { seed: SEED, numRuns: 60 },
    )
  })
})
