import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { amplifiedEpsilon, amplifyPoisson, amplifyWithoutReplacement } from '../../../src/accounting/dp/amplification.js'

const SEED = 1_812_018
const relErr = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b)

describe('amplification by subsampling (Balle, Barthe & Gaboardi 2018, Thms 8/9)', () => {
  // log(1 + q(e^ε − 1)) in mpmath at 40 digits.
  const cases: ReadonlyArray<readonly [number, number, number]> = [
    [0.01, 1, 0.017036863236176549786],
    [0.5, 0.001, 0.00050012499999479166701],
    [1e-3, 800, 793.09224472101786295], // e^800 overflows a double; the log-space branch does not
    [0.2, 30, 28.39056208756627393],
    [1e-6, 1e-8, 1.0000000049999950167e-14], // expm1/log1p keep the digits
  ]

  it('matches mpmath values of log(1 + q(e^ε − 1)), including ε = 800 and ε = 10⁻⁸', () => {
    for (const [q, e, want] of cases) expect(relErr(amplifiedEpsilon(q, e), want), `q=${q} ε=${e}`).toBeLessThan(1e-14)
  })

  it('scales δ by the sampling rate', () => {
    expect(amplifyPoisson(0.01, { epsilon: 1, delta: 1e-5 }).delta).toBeCloseTo(1e-7, 20)
    const w = amplifyWithoutReplacement(10, 1000, { epsilon: 1, delta: 1e-5 })
    expect(w.delta).toBeCloseTo(1e-7, 20)
    expect(relErr(w.epsilon, 0.017036863236176549786)).toBeLessThan(1e-14)
  })

  it('edge rates: q = 1 changes nothing, q = 0 releases nothing, ε = ∞ stays ∞', () => {
    expect(amplifiedEpsilon(1, 0.7)).toBe(0.7)
    expect(amplifiedEpsilon(0, 5)).toBe(0)
    expect(amplifiedEpsilon(0.5, Infinity)).toBe(Infinity)
    expect(Number.isNaN(amplifiedEpsilon(1.5, 1))).toBe(true)
  })

  it('never increases ε or δ, and is monotone in the rate and in ε', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1000, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (q1, q2, e, d) => {
          const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1]
          const a = amplifyPoisson(lo, { epsilon: e, delta: d })
          const b = amplifyPoisson(hi, { epsilon: e, delta: d })
          return a.epsilon <= b.epsilon && b.epsilon <= e && a.delta <= b.delta && b.delta <= d && amplifiedEpsilon(hi, e * 1.5) >= b.epsilon
        },
      ),
      { seed: SEED, numRuns: 500 },
    )
  })

  it('for small ε, log(1 + q(e^ε − 1)) ≈ qε', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1, noNaN: true }), fc.double({ min: 1e-12, max: 1e-6, noNaN: true }), (q, e) => {
        return relErr(amplifiedEpsilon(q, e), q * e) < 1e-5
      }),
      { seed: SEED, numRuns: 200 },
    )
  })
})
