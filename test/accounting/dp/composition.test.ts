import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import {
  advancedCompositionDeltaPrime,
  advancedCompositionEpsilon,
  basicComposition,
  kovDelta,
  kovEpsilon,
  kovHeterogeneousEpsilon,
  kovLogDeltaPure,
  stepCount,
  type StepGuarantee,
} from '../../../src/accounting/dp/composition.js'
import { log1mExp, logSumExp } from '../../../src/core/numeric.js'

interface KovFixture {
  readonly provenance: { readonly script: string }
  readonly bruteForce: ReadonlyArray<{ epsilon0: number; delta0: number; k: number; epsilonG: number; delta: number }>
  readonly delta: ReadonlyArray<{ epsilon0: number; delta0: number; k: number; epsilonG: number; delta: number }>
  readonly epsilon: ReadonlyArray<{ epsilon0: number; delta0: number; k: number; delta: number; epsilon: number }>
}

const kov = JSON.parse(readFileSync(new URL('../../fixtures/kov.json', import.meta.url), 'utf8')) as KovFixture
const SEED = 4_242_017
const relErr = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300)

describe('basic composition (Dwork & Roth 2014, Thm 3.16)', () => {
  it('sums ε and δ with multiplicities', () => {
    const steps: StepGuarantee[] = [
      { epsilon: 0.5, delta: 1e-6, count: 3 },
      { epsilon: 0.1, delta: 0, count: 10 },
    ]
    const r = basicComposition(steps)
    expect(r.epsilon).toBeCloseTo(2.5, 14)
    expect(r.delta).toBeCloseTo(3e-6, 20)
    expect(stepCount(steps)).toBe(13)
  })
})

describe('advanced composition (DRV 2010; Dwork & Roth 2014, Thm 3.20)', () => {
  it('matches the homogeneous closed form √(2k ln(1/δ′))ε + kε(e^ε − 1)', () => {
    // mpmath (40 digits): k = 10^4, ε = 10^-3, δ′ = 10^-6 → 0.53565717864277661454
    const eps = advancedCompositionEpsilon([{ epsilon: 1e-3, delta: 0, count: 10_000 }], 1e-6)
    expect(relErr(eps, 0.53565717864277661454)).toBeLessThan(1e-14)
  })

  it('the heterogeneous form reduces to a sum over distinct steps', () => {
    const a = advancedCompositionEpsilon(
      [
        { epsilon: 0.2, delta: 0, count: 5 },
        { epsilon: 0.05, delta: 0, count: 40 },
      ],
      1e-5,
    )
    const want = 5 * 0.2 * Math.expm1(0.2) + 40 * 0.05 * Math.expm1(0.05) + Math.sqrt(2 * Math.log(1e5) * (5 * 0.04 + 40 * 0.0025))
    expect(relErr(a, want)).toBeLessThan(1e-14)
  })

  it('stays finite and sub-linear for 10,000 (and 10^9) small steps', () => {
    const at = (k: number) => advancedCompositionEpsilon([{ epsilon: 1e-3, delta: 0, count: k }], 1e-6)
    expect(Number.isFinite(at(1e9))).toBe(true)
    expect(at(10_000)).toBeLessThan(0.01 * 10_000 * 1e-3 * 100) // ≪ kε = 10
    // √k growth while the quadratic term is small: quadrupling k about doubles ε
    expect(at(40_000) / at(10_000)).toBeLessThan(2.1)
    expect(at(40_000) / at(10_000)).toBeGreaterThan(1.9)
  })

  it('δ′ inverts ε′', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-4, max: 1, noNaN: true }), fc.integer({ min: 1, max: 5000 }), fc.double({ min: -40, max: -1, noNaN: true }), (e, k, ld) => {
        const steps = [{ epsilon: e, delta: 0, count: k }]
        const eps = advancedCompositionEpsilon(steps, Math.exp(ld))
        const back = advancedCompositionDeltaPrime(steps, eps)
        return Math.abs(Math.log(back) - ld) < 1e-8 * Math.max(1, Math.abs(ld))
      }),
      { seed: SEED, numRuns: 200 },
    )
  })
})

describe('optimal homogeneous composition (KOV 2015, Thm 3.3) against mpmath', () => {
  it('has provenance', () => {
    expect(kov.provenance.script).toBe('scripts/fixtures/kov.py')
  })

  it('δ(ε_g) matches brute-force enumeration of the k-fold dominating pair (k ≤ 5)', () => {
    for (const c of kov.bruteForce) {
      const got = kovDelta(c.epsilon0, c.delta0, c.k, c.epsilonG)
      const tag = `ε₀=${c.epsilon0} δ₀=${c.delta0} k=${c.k} ε_g=${c.epsilonG}`
      expect(Math.abs(got - c.delta), tag).toBeLessThanOrEqual(1e-12 * c.delta + 1e-17)
    }
  })

  it('δ(ε_g) matches the exact-binomial closed form for k up to 10,000', () => {
    for (const c of kov.delta) {
      const got = kovDelta(c.epsilon0, c.delta0, c.k, c.epsilonG)
      expect(relErr(got, c.delta), `ε₀=${c.epsilon0} δ₀=${c.delta0} k=${c.k} ε_g=${c.epsilonG}`).toBeLessThan(1e-9)
    }
  })

  it('ε(δ) is never below the exact optimum and within 1e-9 of it', () => {
    for (const c of kov.epsilon) {
      const got = kovEpsilon(c.epsilon0, c.delta0, c.k, c.delta)
      const tag = `ε₀=${c.epsilon0} δ₀=${c.delta0} k=${c.k} δ=${c.delta}`
      if (c.epsilon === 0) {
        expect(got, tag).toBe(0)
        continue
      }
      expect(got, tag).toBeGreaterThanOrEqual(c.epsilon * (1 - 1e-12))
      expect(relErr(got, c.epsilon), tag).toBeLessThan(1e-9)
    }
  })

  it('k = 1: an ε-DP step is (log(e^ε − δ(1 + e^ε)), δ)-DP — mpmath: ε = 1, δ = 10^-3 → 0.99863118415772581351', () => {
    expect(relErr(kovEpsilon(1, 0, 1, 1e-3), 0.99863118415772581351)).toBeLessThan(1e-11)
  })

  it('the windowed log-space sum equals the full sum and never understates it', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 3, noNaN: true }), fc.integer({ min: 1, max: 3000 }), fc.double({ min: 0, max: 1, noNaN: true }), (e0, k, frac) => {
        const eg = frac * k * e0
        const terms: number[] = []
        for (let l = 0; (k - 2 * l) * e0 > eg; l++)
          terms.push(binomcoefln(k, l) - l * e0 - k * Math.log1p(Math.exp(-e0)) + log1mExp(eg - (k - 2 * l) * e0))
        const full = Math.min(0, logSumExp(terms))
        const got = kovLogDeltaPure(e0, k, eg)
        if (full === -Infinity) return got === -Infinity
        return got >= full - 1e-12 * Math.max(1, Math.abs(full)) && got - full <= 1e-10 * Math.max(1, Math.abs(full))
      }),
      { seed: SEED, numRuns: 150 },
    )
  })
})

describe('relations between composition theorems that are theorems', () => {
  const arb = fc.record({
    e0: fc.double({ min: 1e-3, max: 2, noNaN: true }),
    d0: fc.constantFrom(0, 1e-9, 1e-7),
    k: fc.integer({ min: 1, max: 2000 }),
    slack: fc.constantFrom(1e-3, 1e-6, 1e-10),
  })

  it('KOV ≤ advanced and KOV ≤ basic at the same total δ (KOV is the optimum)', () => {
    fc.assert(
      fc.property(arb, ({ e0, d0, k, slack }) => {
        const steps = [{ epsilon: e0, delta: d0, count: k }]
        const total = k * d0 + slack
        const opt = kovEpsilon(e0, d0, k, total)
        return opt <= k * e0 * (1 + 1e-12) && opt <= advancedCompositionEpsilon(steps, slack) * (1 + 1e-12)
      }),
      { seed: SEED, numRuns: 150 },
    )
  })

  it('Thm 3.3 (exact) ≤ Thm 3.5 (heterogeneous bound) ≤ advanced composition, at equal δ', () => {
    fc.assert(
      fc.property(arb, ({ e0, d0, k, slack }) => {
        const steps = [{ epsilon: e0, delta: d0, count: k }]
        // Thm 3.5 at δ̃: total δ = 1 − (1 − δ̃)(1 − δ₀)^k.
        const total = -Math.expm1(Math.log1p(-slack) + k * Math.log1p(-d0))
        const het = kovHeterogeneousEpsilon(steps, slack)
        return kovEpsilon(e0, d0, k, total) <= het * (1 + 1e-12) && het <= advancedCompositionEpsilon(steps, slack) * (1 + 1e-12)
      }),
      { seed: SEED, numRuns: 150 },
    )
  })

  it('KOV tends to basic as δ → 0 for pure steps (nothing beats kε at δ = 0)', () => {
    // top segment: δ_pure(ε_g) = (e^{kε} − e^{ε_g})/(1 + e^ε)^k, so kε − ε_g ≈ δ(1+e^ε)^k e^{−kε}
    const k = 3
    const e = 0.7
    const eg = kovEpsilon(e, 0, k, 1e-300)
    expect(eg).toBeLessThanOrEqual(k * e)
    expect(k * e - eg).toBeLessThan(1e-12)
  })

  it('KOV δ(ε) is monotone in ε_g, in k and in δ₀', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 2, noNaN: true }), fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true }), (e0, k, frac) => {
        const eg = frac * k * e0
        const d = kovDelta(e0, 0, k, eg)
        const tol = 1e-12 * d
        return kovDelta(e0, 0, k, eg * 1.1 + 1e-6) <= d + tol && kovDelta(e0, 0, k + 1, eg) >= d - tol && kovDelta(e0, 1e-6, k, eg) >= d - tol
      }),
      { seed: SEED, numRuns: 150 },
    )
  })

  it('survives extreme per-step ε (denormal, huge) without looping or NaN', () => {
    expect(kovEpsilon(Number.MIN_VALUE, 0, 1000, 1e-5)).toBe(0)
    expect(kovLogDeltaPure(Number.MIN_VALUE, 1000, 0)).toBeLessThan(-600)
    expect(kovEpsilon(700, 0, 3, 1e-5)).toBeLessThanOrEqual(2100)
    expect(kovEpsilon(700, 0, 3, 1e-5)).toBeGreaterThan(2099)
    expect(kovEpsilon(Infinity, 0, 3, 1e-5)).toBe(Infinity)
    expect(Number.isNaN(kovLogDeltaPure(1, 10, -1))).toBe(true)
  })

  it('KOV ε is infinite exactly when the per-step δ₀ alone exceed δ', () => {
    expect(kovEpsilon(0.5, 1e-3, 10, 5e-3)).toBe(Infinity)
    expect(Number.isFinite(kovEpsilon(0.5, 1e-4, 10, 5e-3))).toBe(true)
  })
})
