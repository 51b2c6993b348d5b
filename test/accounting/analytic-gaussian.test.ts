import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import {
  analyticGaussianDelta,
  analyticGaussianDeltaE,
  analyticGaussianEpsilon,
  analyticGaussianEpsilonE,
  analyticGaussianLogDelta,
  analyticGaussianNoiseMultiplier,
  analyticGaussianNoiseMultiplierE,
  composedNoiseMultiplier,
  composeNoiseMultipliers,
} from '../../src/accounting/analytic-gaussian.js'

interface Fixture {
  readonly provenance: { readonly script: string; readonly paper: string }
  readonly delta: ReadonlyArray<{ noiseMultiplier: number; epsilon: number; delta: number; logDelta: number | string }>
  readonly epsilon: ReadonlyArray<{ noiseMultiplier: number; delta: number; epsilon: number }>
  readonly noiseMultiplier: ReadonlyArray<{ epsilon: number; delta: number; noiseMultiplier: number }>
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/analytic-gaussian.json', import.meta.url), 'utf8')) as Fixture
const SEED = 7_340_118

describe('analytic Gaussian δ(ε) against mpmath (Balle & Wang 2018, Thm 8)', () => {
  it('has provenance', () => {
    expect(fixture.provenance.script).toBe('scripts/fixtures/analytic_gaussian.py')
    expect(fixture.delta.length).toBeGreaterThan(100)
  })

  it('matches log δ to 1e-9 relative, including δ far below the double range (ε = 50, m = 100)', () => {
    let worst = 0
    for (const c of fixture.delta) {
      const got = analyticGaussianLogDelta(c.noiseMultiplier, c.epsilon)
      const want = typeof c.logDelta === 'string' ? -Infinity : c.logDelta
      const err = Math.abs(got - want) / Math.max(1, Math.abs(want))
      worst = Math.max(worst, err)
      expect(err, `m=${c.noiseMultiplier} ε=${c.epsilon}: ${got} vs ${want}`).toBeLessThan(1e-9)
      // δ itself, where representable: relative agreement.
      expect(Math.abs(analyticGaussianDelta(c.noiseMultiplier, c.epsilon) - c.delta)).toBeLessThanOrEqual(1e-9 * c.delta + 1e-300)
    }
    expect(worst).toBeLessThan(1e-9)
  })

  it('covers the extremes the kernel must survive', () => {
    const big = fixture.delta.find((c) => c.noiseMultiplier === 100 && c.epsilon === 50)
    expect(big?.delta).toBe(0) // underflows in double …
    expect(analyticGaussianLogDelta(100, 50)).toBeCloseTo(-1.25e7, -4) // … but log δ is exact
  })
})

describe('analytic Gaussian ε(δ) and σ/Δ calibration against mpmath', () => {
  it('ε(δ) is never below the exact value and within 1e-11 relative of it (δ down to 1e-300)', () => {
    for (const c of fixture.epsilon) {
      const got = analyticGaussianEpsilon(c.noiseMultiplier, c.delta)
      const tag = `m=${c.noiseMultiplier} δ=${c.delta}`
      if (c.epsilon === 0) {
        expect(got, tag).toBe(0)
        continue
      }
      expect(got, tag).toBeGreaterThanOrEqual(c.epsilon * (1 - 1e-14))
      expect((got - c.epsilon) / c.epsilon, tag).toBeLessThan(1e-11)
    }
  })

  it('the calibrated noise multiplier is never below the exact one and within 1e-11 relative', () => {
    for (const c of fixture.noiseMultiplier) {
      const got = analyticGaussianNoiseMultiplier(c.epsilon, c.delta)
      const tag = `ε=${c.epsilon} δ=${c.delta}`
      expect(got, tag).toBeGreaterThanOrEqual(c.noiseMultiplier * (1 - 1e-14))
      expect((got - c.noiseMultiplier) / c.noiseMultiplier, tag).toBeLessThan(1e-11)
      // and it meets the target
      expect(analyticGaussianDelta(got, c.epsilon)).toBeLessThanOrEqual(c.delta)
    }
  })
})

describe('analytic Gaussian closed forms', () => {
  it('δ(0) = 2Φ(1/(2m)) − 1 = erf(1/(2√2 m)); m = 1: 0.38292492254802624', () => {
    // erf(1/(2√2)) from mpmath: 0.382924922548026...
    expect(analyticGaussianDelta(1, 0)).toBeCloseTo(0.38292492254802624, 14)
  })

  it('composition: k-fold Gaussian(m) is Gaussian(m/√k); heterogeneous multipliers add in 1/m²', () => {
    expect(composedNoiseMultiplier(4, 16)).toBe(1)
    expect(composedNoiseMultiplier(4, 0)).toBe(Infinity)
    expect(composeNoiseMultipliers([1, 1, 1, 1])).toBeCloseTo(0.5, 15)
    expect(composeNoiseMultipliers([3, 4])).toBeCloseTo(12 / 5, 14) // 1/9 + 1/16 = 25/144
    expect(composeNoiseMultipliers([])).toBe(Infinity)
  })

  it('infinite noise releases nothing; ε = ∞ costs no δ', () => {
    expect(analyticGaussianDelta(Infinity, 0)).toBe(0)
    expect(analyticGaussianDelta(1, Infinity)).toBe(0)
    expect(analyticGaussianEpsilon(Infinity, 1e-9)).toBe(0)
  })
})

describe('analytic Gaussian properties', () => {
  const m = fc.double({ min: 0.05, max: 100, noNaN: true })
  const logDelta = fc.double({ min: -690, max: -0.1, noNaN: true })

  it('δ(ε(δ)) ≤ δ and δ just below ε(δ) exceeds δ (inverse within tolerance)', () => {
    fc.assert(
      fc.property(m, logDelta, (mm, ld) => {
        const d = Math.exp(ld)
        const eps = analyticGaussianEpsilon(mm, d)
        if (eps === 0) return analyticGaussianLogDelta(mm, 0) <= ld
        return analyticGaussianLogDelta(mm, eps) <= ld && analyticGaussianLogDelta(mm, eps * (1 - 1e-9)) > ld
      }),
      { seed: SEED, numRuns: 300 },
    )
  })

  // Away from δ ≈ 1, where δ(ε) is flat and a double cannot resolve 1 − δ.
  it('ε(δ) inverts δ(ε): ε(δ(ε)) ≈ ε for δ ≤ 1/2', () => {
    fc.assert(
      fc.property(m, fc.double({ min: 0.01, max: 50, noNaN: true }), (mm, eps) => {
        const d = analyticGaussianDelta(mm, eps)
        if (!(d > 1e-300) || d > 0.5 || d >= analyticGaussianDelta(mm, 0) * (1 - 1e-9)) return true
        const back = analyticGaussianEpsilon(mm, d)
        return back >= eps * (1 - 1e-9) && back <= eps * (1 + 1e-8)
      }),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('δ(ε) is non-increasing in ε and in m; ε(δ) is non-increasing in δ and in m', () => {
    fc.assert(
      fc.property(m, fc.double({ min: 0, max: 40, noNaN: true }), fc.double({ min: 1, max: 3, noNaN: true }), (mm, eps, f) => {
        const d = analyticGaussianLogDelta(mm, eps)
        return (
          analyticGaussianLogDelta(mm, eps * f + 1e-3) <= d &&
          analyticGaussianLogDelta(mm * f, eps) <= d + 1e-12 &&
          analyticGaussianEpsilon(mm, 1e-6 * f) <= analyticGaussianEpsilon(mm, 1e-6) &&
          analyticGaussianEpsilon(mm * f, 1e-6) <= analyticGaussianEpsilon(mm, 1e-6)
        )
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('never returns NaN inside the domain', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e8, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true }), (mm, eps) => {
        const d = analyticGaussianLogDelta(mm, eps)
        return !Number.isNaN(d) && d <= 0
      }),
      { seed: SEED, numRuns: 300 },
    )
  })
})

describe('analytic Gaussian checked wrappers', () => {
  it('refuse out-of-domain arguments with the field path', () => {
    const bad = (r: E.Either<{ path: string }, number>) => (E.isLeft(r) ? r.left.path : 'right')
    expect(bad(analyticGaussianDeltaE(0, 1))).toBe('$.noiseMultiplier')
    expect(bad(analyticGaussianDeltaE(1, -1))).toBe('$.epsilon')
    expect(bad(analyticGaussianEpsilonE(1, 0, '$.q'))).toBe('$.q.delta')
    expect(bad(analyticGaussianEpsilonE(1, Number.NaN))).toBe('$.delta')
    expect(bad(analyticGaussianNoiseMultiplierE(Infinity, 1e-5))).toBe('$.epsilon')
    expect(bad(analyticGaussianNoiseMultiplierE(1, 1))).toBe('$.delta')
  })

  it('pass values through', () => {
    expect(analyticGaussianEpsilonE(2, 1e-5)).toEqual(E.right(analyticGaussianEpsilon(2, 1e-5)))
    expect(analyticGaussianNoiseMultiplierE(1, 1e-5)).toEqual(E.right(analyticGaussianNoiseMultiplier(1, 1e-5)))
  })
})
