import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { rdpDeltaAtOrder, rdpEpsilonAtOrder } from '../../../src/accounting/conversions.js'
import {
  zcdpDelta,
  zcdpDeltaClassic,
  zcdpEpsilonClassic,
  zcdpEpsilonTight,
  zcdpEpsilonTightAt,
  zcdpToDelta,
  zcdpToEpsilon,
} from '../../../src/accounting/zcdp/conversion.js'

interface ZcdpFixture {
  readonly provenance: { readonly script: string }
  readonly epsilon: ReadonlyArray<{ rho: number; delta: number; tight: number; order: number | null; classic: number }>
  readonly delta: ReadonlyArray<{ rho: number; epsilon: number; tight: number; logTight: number; order: number | null }>
}

const fx = JSON.parse(readFileSync(new URL('../../fixtures/zcdp.json', import.meta.url), 'utf8')) as ZcdpFixture
const SEED = 90_210
const relErr = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300)

describe('zCDP → (ε, δ) against mpmath (stationarity conditions solved at 60 digits)', () => {
  it('has provenance', () => {
    expect(fx.provenance.script).toBe('scripts/fixtures/zcdp.py')
  })

  it('classic ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3)', () => {
    for (const c of fx.epsilon) expect(relErr(zcdpEpsilonClassic(c.rho, c.delta), c.classic)).toBeLessThan(1e-13)
  })

  it('tight ε (CKS 2020, Prop. 12, continuous order) is never below the exact optimum and within 1e-10', () => {
    for (const c of fx.epsilon) {
      const got = zcdpEpsilonTightAt(c.rho, c.delta)
      const tag = `ρ=${c.rho} δ=${c.delta}`
      if (c.tight === 0) {
        expect(got.epsilon, tag).toBe(0)
        continue
      }
      expect(got.epsilon, tag).toBeGreaterThanOrEqual(c.tight * (1 - 1e-13))
      expect(relErr(got.epsilon, c.tight), tag).toBeLessThan(1e-10)
      expect(relErr(got.order, c.order as number), tag).toBeLessThan(1e-3) // the optimum is flat in α
    }
  })

  it('tight δ is never below the exact optimum and within 1e-9 where representable', () => {
    for (const c of fx.delta) {
      const got = zcdpDelta(c.rho, c.epsilon)
      const tag = `ρ=${c.rho} ε=${c.epsilon}`
      expect(got, tag).toBeGreaterThanOrEqual(c.tight * (1 - 1e-12))
      if (c.logTight > -700) expect(relErr(got, c.tight), tag).toBeLessThan(1e-8)
      else expect(got, tag).toBe(Number.MIN_VALUE) // underflow reports the least positive double, not 0
    }
  })
})

describe('zCDP conversion properties', () => {
  const rho = fc.double({ min: 1e-8, max: 50, noNaN: true })
  const logDelta = fc.double({ min: -600, max: -0.5, noNaN: true })

  it('tight ≤ classic, and the reported method names the winner', () => {
    fc.assert(
      fc.property(rho, logDelta, (r, ld) => {
        const d = Math.exp(ld)
        const best = zcdpToEpsilon(r, d)
        return zcdpEpsilonTight(r, d) <= zcdpEpsilonClassic(r, d) && best.method.includes('Canonne')
      }),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('the continuous optimum is at least as good as any order on a dense grid (the golden-section search finds it)', () => {
    const grid: number[] = []
    for (let u = -8; u <= 16; u += 0.05) grid.push(1 + Math.exp(u))
    fc.assert(
      fc.property(rho, logDelta, (r, ld) => {
        const d = Math.exp(ld)
        const gridMin = Math.min(...grid.map((a) => rdpEpsilonAtOrder(a, a * r, d)))
        return zcdpEpsilonTight(r, d) <= gridMin * (1 + 1e-12)
      }),
      { seed: SEED, numRuns: 100 },
    )
  })

  it('any order is valid: the result equals the kernel at the reported order', () => {
    fc.assert(
      fc.property(rho, logDelta, (r, ld) => {
        const d = Math.exp(ld)
        const t = zcdpEpsilonTightAt(r, d)
        return t.epsilon === 0 || t.epsilon === rdpEpsilonAtOrder(t.order, t.order * r, d)
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('δ(ε(δ)) ≤ δ: the two conversions are inverse', () => {
    fc.assert(
      fc.property(rho, fc.double({ min: -300, max: -1, noNaN: true }), (r, ld) => {
        const d = Math.exp(ld)
        const e = zcdpEpsilonTight(r, d)
        if (e === 0) return true
        const back = zcdpToDelta(r, e)
        return back.delta <= d * (1 + 1e-9) && back.delta >= d * (1 - 1e-4)
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('tight δ ≤ classic δ, and δ at any single order is no better', () => {
    fc.assert(
      fc.property(rho, fc.double({ min: 0, max: 30, noNaN: true }), fc.double({ min: 1.001, max: 1e4, noNaN: true }), (r, e, a) => {
        const t = zcdpDelta(r, e)
        // (an underflowed δ is reported as the least positive double, never 0)
        return t <= Math.max(zcdpDeltaClassic(r, e), Number.MIN_VALUE) && t <= Math.max(rdpDeltaAtOrder(a, a * r, e), Number.MIN_VALUE) * (1 + 1e-9)
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('ε is monotone: increasing in ρ, non-increasing in δ', () => {
    fc.assert(
      fc.property(rho, logDelta, fc.double({ min: 1, max: 4, noNaN: true }), (r, ld, f) => {
        const d = Math.exp(ld)
        const e = zcdpEpsilonTight(r, d)
        return zcdpEpsilonTight(r * f, d) >= e * (1 - 1e-12) && zcdpEpsilonTight(r, Math.min(0.99, d * f)) <= e * (1 + 1e-12)
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('edge values', () => {
    expect(zcdpEpsilonTight(0, 1e-5)).toBe(0)
    expect(zcdpEpsilonTight(Infinity, 1e-5)).toBe(Infinity)
    expect(zcdpDelta(0, 0.1)).toBe(0)
    expect(zcdpDelta(1, Infinity)).toBe(0)
    expect(Number.isNaN(zcdpEpsilonClassic(-1, 0.1))).toBe(true)
    expect(Number.isNaN(zcdpEpsilonTight(1, 0))).toBe(true)
    // a denormal ρ puts the classic optimum at α = ∞: the search must stay bounded
    expect(zcdpEpsilonTight(Number.MIN_VALUE, 1e-5)).toBe(0)
    expect(zcdpDelta(Number.MIN_VALUE, 0.1)).toBe(Number.MIN_VALUE)
  })
})
