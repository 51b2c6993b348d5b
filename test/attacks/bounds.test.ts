import betaincinv from '@stdlib/math-base-special-betaincinv'
import { describe, expect, it } from 'vitest'
import {
  certifiableCeiling,
  clopperPearson,
  epsilonFromRates,
  epsilonLowerBound,
  projectedTrials,
  trialsForCeiling,
  wilsonUpper,
} from '../../src/attacks/bounds.js'
import { boundFromCounts, logOddsRatioLower, logRatioLowerBound } from '../../src/attacks/ratio-bound.js'
import { zFor } from '../../src/attacks/select.js'
import { seeded } from '../../src/core/rng.js'

describe('Clopper–Pearson (design/AUDITING.md §3.2)', () => {
  it('has the closed forms at the ends', () => {
    // k = 0: p_hi = 1 − a^(1/n); k = n: p_lo = a^(1/n).
    expect(clopperPearson(0, 100, 0.025).hi).toBeCloseTo(1 - 0.025 ** (1 / 100), 12)
    expect(clopperPearson(100, 100, 0.025).lo).toBeCloseTo(0.025 ** (1 / 100), 12)
    // …and agree with the general Beta quantile they replace.
    expect(clopperPearson(0, 1000, 0.025).hi).toBeCloseTo(betaincinv(0.975, 1, 1000), 13)
    expect(clopperPearson(1000, 1000, 0.025).lo).toBeCloseTo(betaincinv(0.025, 1000, 1), 13)
    expect(clopperPearson(0, 100, 0.025).lo).toBe(0)
    expect(clopperPearson(100, 100, 0.025).hi).toBe(1)
  })
  it('matches a textbook interval: 5 of 20 at 95% two-sided is [0.0866, 0.4910]', () => {
    const { lo, hi } = clopperPearson(5, 20, 0.025)
    expect(lo).toBeCloseTo(0.0866, 4)
    expect(hi).toBeCloseTo(0.491, 3)
  })
  it('reproduces the ceiling table of §3.2 (95%, a = 0.025 per rate)', () => {
    const table: ReadonlyArray<[number, number]> = [[100, 3.28], [1e3, 5.6], [1e4, 7.91], [1e5, 10.21], [1e6, 12.51], [1e7, 14.81]]
    // The table rounds to two decimals (the n = 1e4 entry, 7.91, rounds the approximation
    // ln(n / ln 40) = 7.9050; the exact value is 7.9048), hence the 0.006 tolerance.
    for (const [n, eps] of table) expect(Math.abs(certifiableCeiling(n, 0, 0.05) - eps)).toBeLessThan(0.006)
    // JUO20: 99 % two-sided with 500 runs per side.
    expect(certifiableCeiling(500, 0, 0.01)).toBeCloseTo(4.54, 2)
  })
})

describe('ε from rates (§3.1)', () => {
  it('inverts the hypothesis-testing region of an exactly ε-DP test', () => {
    // Randomized response at ε: FPR = FNR = 1/(1 + e^ε), on the boundary FPR + e^ε FNR = 1.
    for (const eps of [0.1, 1, 3]) {
      const r = 1 / (1 + Math.exp(eps))
      expect(epsilonFromRates(r, r, 0)).toBeCloseTo(eps, 12)
    }
    expect(epsilonFromRates(0.5, 0.5, 0)).toBe(0)
    expect(epsilonFromRates(0, 0.5, 0)).toBe(Infinity)
    expect(epsilonFromRates(0.2, 0.3, 0.1)).toBeCloseTo(Math.max(Math.log(0.7 / 0.3), Math.log(0.6 / 0.2)), 12)
  })
  it('uses the upper bounds of both rates with α/2 each', () => {
    const lb = epsilonLowerBound(30, 1000, 200, 1000, 0, 0.05)
    const fprHi = clopperPearson(30, 1000, 0.025).hi
    const fnrHi = clopperPearson(200, 1000, 0.025).hi
    expect(lb).toBeCloseTo(epsilonFromRates(fprHi, fnrHi, 0), 12)
    expect(lb).toBeLessThan(epsilonFromRates(0.03, 0.2, 0))
  })
  it('covers: an exactly 1-DP test is over-estimated in at most α of repetitions', () => {
    // Randomized response at ε = 1 with n = 1000 per side, α = 0.1: simulate the counts directly.
    // P[ε_LB > 1] ≤ α = 0.1 by the union bound; the observed frequency over 1000 seeded repetitions
    // must stay below 0.1 + 4·sd (sd = √(0.1·0.9/1000) ≈ 0.0095): false-failure probability < 1e-4.
    const rng = seeded('coverage')
    const n = 1000
    const p = 1 / (1 + Math.E)
    const binom = (): number => {
      let k = 0
      for (let i = 0; i < n; i++) if (rng.next() < p) k++
      return k
    }
    let over = 0
    const reps = 1000
    for (let r = 0; r < reps; r++) if (epsilonLowerBound(binom(), n, binom(), n, 0, 0.1) > 1) over++
    expect(over / reps).toBeLessThan(0.1 + 4 * Math.sqrt(0.09 / reps))
  })
})

describe('trials needed', () => {
  it('trialsForCeiling is the smallest n whose ceiling exceeds ε', () => {
    for (const eps of [0.5, 2, 5, 9]) {
      const n = trialsForCeiling(eps, 0, 0.05)
      expect(certifiableCeiling(n, 0, 0.05)).toBeGreaterThan(eps)
      expect(certifiableCeiling(n - 1, 0, 0.05)).toBeLessThanOrEqual(eps)
      // ≈ ln(40)·e^ε (§3.2).
      expect(n / (Math.log(40) * Math.exp(eps))).toBeGreaterThan(0.5)
      expect(n / (Math.log(40) * Math.exp(eps))).toBeLessThan(2)
    }
  })
  it('projects the trials at which observed rates would refute a claim, or null', () => {
    const r = 1 / (1 + Math.exp(2))
    const n = projectedTrials(r, r, 1.5, 0, 0.05)
    expect(n).not.toBeNull()
    // A Wilson-based projection: the exact bound at n is within a hair of the target either way.
    const m = n as number
    expect(epsilonLowerBound(r * m * 1.05, m * 1.05, r * m * 1.05, m * 1.05, 0, 0.05)).toBeGreaterThan(1.5)
    expect(epsilonLowerBound(r * m * 0.95, m * 0.95, r * m * 0.95, m * 0.95, 0, 0.05)).toBeLessThan(1.5)
    expect(projectedTrials(r, r, 2.5, 0, 0.05)).toBeNull()
  })
})

describe('Wilson upper bound (selection only)', () => {
  it('lies above the rate and near the Clopper–Pearson bound', () => {
    const z = zFor(0.025)
    for (const [k, n] of [[0, 100], [5, 100], [50, 100], [300, 10000]] as const) {
      const w = wilsonUpper(k, n, z)
      expect(w).toBeGreaterThan(k / n)
      expect(Math.abs(w - clopperPearson(k, n, 0.025).hi)).toBeLessThan(0.02)
    }
  })
})

describe('the ratio bound (issue 23: pure claims at small ε)', () => {
  it('its odds-ratio step is the exact conditional (Cornfield) bound: scipy.stats.contingency.odds_ratio(kind="conditional") one-sided 95 %', () => {
    // ln of confidence_interval(0.95, alternative='greater').low, scipy 1.x.
    expect(logOddsRatioLower(50, 1000, 30, 1000, 0.05)).toBeCloseTo(0.12150697058209356, 9)
    expect(logOddsRatioLower(5428, 325000, 4475, 325000, 0.05)).toBeCloseTo(0.16238072368468187, 8)
    expect(logOddsRatioLower(7, 10, 2, 10, 0.05)).toBeCloseTo(0.14439940547373675, 9)
  })
  it('is never above the log ratio of an event at the boundary p₀ = e^ε·p₁ more often than α (simulation)', () => {
    const rng = seeded('ratio-coverage')
    const binom = (n: number, p: number): number => {
      let k = 0
      for (let i = 0; i < n; i++) if (rng.next() < p) k++
      return k
    }
    for (const [p1, eps, n] of [[0.05, 0.1, 2000], [0.3, 0.5, 400], [0.01, 1, 3000]] as const) {
      const p0 = Math.exp(eps) * p1
      let over = 0
      const reps = 400
      for (let r = 0; r < reps; r++) if (logRatioLowerBound(binom(n, p0), n, binom(n, p1), n, 0.1) > eps) over++
      // α = 0.1: at most 40 expected; 58 is 3 standard deviations above.
      expect(over, `p1 ${p1}, ε ${eps}`).toBeLessThanOrEqual(58)
    }
  })
  it('is tighter than the rates bound for a rare event seen about equally often on both sides, and no looser than needed at the extremes', () => {
    const N = 325_000
    // The best event of sparse vector without cutoff (Lyu et al.'s Alg. 6) at ε = 0.1: mass 1/60, log ratio 0.193.
    const k0 = Math.round(N / 60)
    const k1 = Math.round((N / 60) * Math.exp(-0.193))
    const ratio = logRatioLowerBound(k0, N, k1, N, 0.05)
    const rates = epsilonLowerBound(k1, N, N - k0, N, 0, 0.05)
    expect(ratio).toBeGreaterThan(rates + 0.015)
    expect(ratio).toBeLessThan(0.193)
    // Perfect separation carries no odds-ratio information a bound can turn into a ratio: 0, so selection keeps `rates` there.
    expect(logRatioLowerBound(N, N, 0, N, 0.05)).toBe(0)
  })
  it('boundFromCounts: rates for δ > 0 whatever the form; ratio-out is ratio-in of the complement with the sides swapped', () => {
    expect(boundFromCounts('ratio-in', 300, 10_000, 9_000, 10_000, 1e-5, 0.05)).toBe(epsilonLowerBound(300, 10_000, 9_000, 10_000, 1e-5, 0.05))
    expect(boundFromCounts('ratio-in', 300, 10_000, 9_600, 10_000, 0, 0.05)).toBe(logRatioLowerBound(400, 10_000, 300, 10_000, 0.05))
    expect(boundFromCounts('ratio-out', 9_600, 10_000, 9_700, 10_000, 0, 0.05)).toBe(logRatioLowerBound(400, 10_000, 9_700, 10_000, 0.05))
  })
})
