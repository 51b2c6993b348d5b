/**
 * The f-DP trade-off curve (issue 26): exact for Gaussians against Φ(Φ⁻¹(1 − α) − μ), sound (never
 * above the true curve) from the privacy profile, and a μ-GDP bound that is never below the truth.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import {
  gaussianTradeOff,
  gdpMu,
  profileTradeOff,
  tprAtFpr,
  tradeOffAt,
  tradeOffCurve,
} from '../../src/accounting/tradeoff.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'

const REL = addRemove('record')
const SEED = 20261127
const right = <A>(x: E.Either<unknown, A>): A => {
  if (E.isLeft(x)) throw new Error(JSON.stringify(x.left))
  return x.right
}

/** Φ by a 60-term-accurate route independent of erfc: Simpson on the density, 20k panels. */
const phi = (x: number): number => {
  // Φ(x) = ½ + ∫_0^x φ; accurate to ~1e-12 for |x| ≤ 8 with this many panels.
  const n = 20000
  const h = x / n
  let s = 0
  for (let i = 0; i <= n; i++) {
    const t = i * h
    const w = i === 0 || i === n ? 1 : i % 2 === 1 ? 4 : 2
    s += w * Math.exp(-0.5 * t * t)
  }
  return 0.5 + (s * h) / 3 / Math.sqrt(2 * Math.PI)
}

/** Φ⁻¹ by bisection on `phi`. */
const phiInv = (p: number): number => {
  let lo = -9
  let hi = 9
  for (let i = 0; i < 80; i++) {
    const m = (lo + hi) / 2
    if (phi(m) < p) lo = m
    else hi = m
  }
  return (lo + hi) / 2
}

describe('Gaussian: the closed form', () => {
  it('equals Φ(Φ⁻¹(1 − α) − μ) within 1e-6 (independent quadrature)', () => {
    for (const [sigma, k] of [
      [1, 1],
      [2, 4],
      [0.7, 3],
      [5, 100],
    ] as const) {
      const mu = Math.sqrt(k) / sigma
      const c = right(tradeOffCurve(ev.selfCompose(ev.gaussian(sigma, 1, REL), k), { alphas: [0.001, 0.01, 0.1, 0.3, 0.5, 0.9] }))
      expect(c.method).toBe('gaussian-closed-form')
      expect(c.mu).toBeCloseTo(mu, 12)
      c.alpha.forEach((a, i) => {
        const want = phi(phiInv(1 - a) - mu)
        expect(Math.abs((c.beta[i] as number) - want)).toBeLessThan(1e-6)
      })
    }
  })

  it('TPR at FPR is 1 − β, and a composition of Gaussians of different σ is one μ', () => {
    const e = ev.compose([ev.gaussian(1, 1, REL), ev.gaussian(2, 1, REL)])
    const t = right(tprAtFpr(e, 0.01))
    expect(t.tpr).toBeCloseTo(1 - gaussianTradeOff(Math.sqrt(1.25), 0.01), 12)
    expect(t.method).toBe('gaussian-closed-form')
  })

  it('under replace-one an add/remove Gaussian doubles μ', () => {
    const m = right(gdpMu(ev.gaussian(2, 1, REL), { relation: { kind: 'replace-one', unit: 'record' } }))
    expect(m.mu).toBeCloseTo(1, 12)
  })
})

describe('privacy profile: sound', () => {
  it('never above the Gaussian closed form, and within 0.01 of it (Gaussian through the profile)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 10, noNaN: true }), fc.integer({ min: 1, max: 20 }), (sigma, k) => {
        const e = ev.selfCompose(ev.gaussian(sigma, 1, REL), k)
        const c = right(tradeOffCurve(e, { method: 'privacy-profile', accountants: ['pld', 'rdp'] }))
        const mu = Math.sqrt(k) / sigma
        c.alpha.forEach((a, i) => {
          const exact = gaussianTradeOff(mu, a) / (1 - 1e-12)
          expect(c.beta[i] as number).toBeLessThanOrEqual(exact + 1e-12)
          expect(c.beta[i] as number).toBeGreaterThanOrEqual(exact - 0.01)
        })
      }),
      { seed: SEED, numRuns: 10 },
    )
  })

  it('pure ε-DP (Laplace) gives exactly f_{ε,0} = max(0, 1 − e^ε α, e^{−ε}(1 − α))', () => {
    const eps = 1.3
    const c = right(tradeOffCurve(ev.laplace(1 / eps, 1, REL), { alphas: [0, 0.05, 0.2, 0.5, 0.9, 1] }))
    c.alpha.forEach((a, i) => {
      const f = Math.max(0, 1 - Math.exp(eps) * a, Math.exp(-eps) * (1 - a))
      // The Laplace pair itself lies above f_{ε,0}; the profile gives at least f_{ε,0} (the
      // pure-ε point of its grid) and never more than the Laplace pair's exact curve.
      expect(c.beta[i] as number).toBeGreaterThanOrEqual(f - 1e-9)
    })
  })

  it('randomized response: never above its exact trade-off, which it attains at its corner', () => {
    // Binary RR with ε: the exact trade-off is f_{ε,0} (Kairouz, Oh & Viswanath 2015).
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 4, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (eps, a) => {
        const c = right(tradeOffCurve(ev.randomizedResponse(eps, 2, REL), { alphas: [a] }))
        const exact = Math.max(0, 1 - Math.exp(eps) * a, Math.exp(-eps) * (1 - a))
        expect(c.beta[0] as number).toBeLessThanOrEqual(exact + 1e-12)
        expect(c.beta[0] as number).toBeGreaterThanOrEqual(exact - 1e-6)
      }),
      { seed: SEED, numRuns: 30 },
    )
  })

  it('is a trade-off function: in [0, 1 − α], non-increasing in α; more composition never raises it', () => {
    const e = ev.poissonSample(0.1, ev.gaussian(1, 1, REL))
    const one = right(tradeOffCurve(ev.selfCompose(e, 10)))
    const more = right(tradeOffCurve(ev.selfCompose(e, 40)))
    expect(one.method).toBe('privacy-profile')
    for (let i = 0; i < one.alpha.length; i++) {
      const b = one.beta[i] as number
      expect(b).toBeGreaterThanOrEqual(0)
      expect(b).toBeLessThanOrEqual(1 - (one.alpha[i] as number) + 1e-15)
      if (i > 0) expect(b).toBeLessThanOrEqual((one.beta[i - 1] as number) + 1e-15)
      expect(more.beta[i] as number).toBeLessThanOrEqual(b + 1e-12)
      expect(tradeOffAt(one, one.alpha[i] as number)).toBe(b)
    }
  })

  it('subsampled Gaussian: the curve lies above the sound μ-GDP bound of the unsampled Gaussian', () => {
    const e = ev.selfCompose(ev.poissonSample(0.05, ev.gaussian(1.2, 1, REL)), 20)
    const m = right(gdpMu(e))
    expect(m.exact).toBe(false)
    expect(m.mu).toBeCloseTo(Math.sqrt(20) / 1.2, 10)
    const c = right(tradeOffCurve(e))
    c.alpha.forEach((a, i) => expect(c.beta[i] as number).toBeGreaterThanOrEqual(gaussianTradeOff(m.mu, a) - 1e-9))
  })

  it('refuses bad α and a μ for a non-Gaussian leaf, naming them', () => {
    const bad = tradeOffCurve(ev.gaussian(1, 1, REL), { alphas: [0.1, 1.5] })
    expect(E.isLeft(bad) && JSON.stringify(bad.left)).toMatch(/alphas\[1\]/)
    const lap = gdpMu(ev.compose([ev.gaussian(1, 1, REL), ev.laplace(1, 1, REL)]))
    expect(E.isLeft(lap) && JSON.stringify(lap.left)).toMatch(/events\[1\]/)
    expect(E.isLeft(tprAtFpr(ev.gaussian(1, 1, REL), Number.NaN))).toBe(true)
  })

  it('profileTradeOff at α = 0 is 1 − δ(∞)', () => {
    const p = { epsilon: Float64Array.of(0, 1, Infinity), delta: Float64Array.of(0.5, 0.2, 0.1), source: [] }
    expect(profileTradeOff(p, 0)).toBeCloseTo(0.9, 12)
  })
})
