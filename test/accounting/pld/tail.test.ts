/**
 * The tail mass of a query with the option unset (./limits.ts queryTailMass): 1e-11 where the
 * query's δ — given, or answered — is at least 1e-6, else the default 1e-15; the truncated mass is
 * added to δ in the guarantee either way, and the tail stays below 1e-5·δ.
 */
import { describe, expect, it } from 'vitest'
import { AUTO_TAIL_MASS, AUTO_TAIL_MIN_DELTA, DEFAULT_TAIL_MASS, queryTailMass } from '../../../src/accounting/pld/limits.js'
import { poissonSample, selfCompose, gaussian, discreteGaussian } from '../../../src/mechanisms/event.js'
import { pldDelta, pldEpsilon, REL } from './helpers.js'

describe('tail mass with the option unset', () => {
  it('is at most 1e-5·δ: 1e-11 from δ = 1e-6 up, 1e-15 below and at δ = 0', () => {
    expect(queryTailMass(1e-5)).toBe(AUTO_TAIL_MASS)
    expect(queryTailMass(AUTO_TAIL_MIN_DELTA)).toBe(AUTO_TAIL_MASS)
    expect(queryTailMass(0.5)).toBe(AUTO_TAIL_MASS)
    expect(queryTailMass(9.99e-7)).toBe(DEFAULT_TAIL_MASS)
    expect(queryTailMass(0)).toBe(DEFAULT_TAIL_MASS)
    expect(AUTO_TAIL_MASS).toBeLessThanOrEqual(1e-5 * AUTO_TAIL_MIN_DELTA)
  })

  const events = [
    ['Poisson q 0.01 Gaussian σ 1.1 × 300', selfCompose(poissonSample(0.01, gaussian(1.1, 1, REL)), 300)],
    ['Poisson q 0.01 discrete Gaussian σ 1.1 × 300', selfCompose(poissonSample(0.01, discreteGaussian(1.1, 1, REL)), 300)],
  ] as const

  it.each(events)('%s: ε(δ) is the answer with that tail set explicitly', (_, e) => {
    for (const delta of [1e-3, 1e-5, 1e-6, 1e-8]) {
      const auto = pldEpsilon(e, delta)
      const set = pldEpsilon(e, delta, { tailMass: queryTailMass(delta) })
      expect(auto.epsilon).toBe(set.epsilon)
      expect(auto.lower).toBe(set.lower)
      // Never below the answer at the smallest tail by more than the tail's share of δ moves it.
      const fine = pldEpsilon(e, delta, { tailMass: DEFAULT_TAIL_MASS })
      expect(auto.epsilon).toBeGreaterThanOrEqual(fine.lower as number)
      expect(Math.abs(auto.epsilon - fine.epsilon)).toBeLessThanOrEqual(1e-5 * fine.epsilon)
    }
  })

  it.each(events)('%s: δ(ε) at 1e-11, recomposed at 1e-15 when the answer is below 1e-6', (_, e) => {
    for (const eps of [0.5, 1, 2, 4]) {
      const auto = pldDelta(e, eps)
      const coarse = pldDelta(e, eps, { tailMass: AUTO_TAIL_MASS })
      const fine = pldDelta(e, eps, { tailMass: DEFAULT_TAIL_MASS })
      expect(auto.delta).toBe(coarse.delta >= AUTO_TAIL_MIN_DELTA ? coarse.delta : fine.delta)
      expect(auto.delta).toBeGreaterThanOrEqual(fine.lower as number)
    }
  })
})
