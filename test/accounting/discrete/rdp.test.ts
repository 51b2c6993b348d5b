/**
 * Rényi and zCDP accounting of the discrete mechanisms: the discrete Laplace's closed-form curve
 * against direct summation over the integers, the discrete Gaussian's curve against the continuous
 * Gaussian's and against direct summation, the vector-query reading, and the accountants' answers.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { rdpCurve } from '../../../src/accounting/rdp/index.js'
import { discreteGaussianRdp, discreteLaplaceRdp, gaussianRdp, laplaceRdp } from '../../../src/accounting/rdp/closed-forms.js'
import { discreteGaussianLogNormalizer } from '../../../src/accounting/discrete-noise.js'
import * as ev from '../../../src/mechanisms/event.js'
import { replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { epsOf, REL, SEED } from './helpers.js'
import { dlLogPmf, renyiShift } from './reference.js'


const pos = (min: number, max: number): fc.Arbitrary<number> => fc.double({ min, max, noNaN: true, noDefaultInfinity: true })

/** Direct summation of D_α for the discrete Laplace: every x where a term exceeds e^{−745} of the largest. */
const dlRenyiByHand = (t: number, d: number, alpha: number): number => {
  const w = Math.ceil(760 * t) + 5
  return renyiShift(dlLogPmf(t), d, alpha, -w, d + w)
}

/** The sum's rounding (log space, up to ~5·10⁵ terms): ~1e-13 absolute in log S, divided by α − 1. */
const byHandSlack = (alpha: number, value: number): number => 1e-10 * value + 1e-13 / (alpha - 1)

describe('discrete Laplace RDP (closed form from geometric series)', () => {
  it('matches direct summation over the integers on a grid of scales, shifts and orders', () => {
    let worst = 0
    for (const t of [0.05, 0.3, 1, 3, 20, 150])
      for (const d of [1, 2, 3, 7, 20])
        for (const alpha of [1.01, 1.1, 1.5, 2, 3.7, 10, 64, 1000]) {
          const want = dlRenyiByHand(t, d, alpha)
          const got = discreteLaplaceRdp(t, d, alpha)
          expect(Math.abs(got - want), `t=${t} Δ=${d} α=${alpha}`).toBeLessThanOrEqual(byHandSlack(alpha, want))
          // Where the summed reference is itself accurate (log S ≫ its rounding), agreement is much closer.
          if (want * (alpha - 1) > 1e-2) worst = Math.max(worst, Math.abs(got - want) / want)
        }
    expect(worst).toBeLessThan(1e-11)
  })

  it('matches direct summation on random parameters, and never exceeds the pure bound Δ/t', () => {
    fc.assert(
      fc.property(pos(0.1, 10), fc.integer({ min: 1, max: 12 }), pos(1.05, 200), (t, d, alpha) => {
        const got = discreteLaplaceRdp(t, d, alpha)
        expect(Math.abs(got - dlRenyiByHand(t, d, alpha))).toBeLessThanOrEqual(byHandSlack(alpha, got))
        expect(got).toBeLessThanOrEqual(d / t)
      }),
      { seed: SEED, numRuns: 60 },
    )
  })

  it('stays finite and ordered at extreme parameters (tiny and huge losses)', () => {
    for (const [t, d, alpha] of [
      [1e6, 5, 1.5],
      [1e3, 1000, 1e4],
      [0.01, 3, 1e4],
      [1e-3, 2, 2],
    ] as const) {
      const v = discreteLaplaceRdp(t, d, alpha)
      expect(Number.isFinite(v) && v > 0, `t=${t} Δ=${d} α=${alpha}`).toBe(true)
      expect(v).toBeLessThanOrEqual(d / t)
    }
    // Small a·Δ: D_α ≈ α(Δ/t)²/2 (the continuous Laplace's leading term).
    const v = discreteLaplaceRdp(1e4, 3, 2)
    expect(Math.abs(v / ((2 * (3e-4) ** 2) / 2) - 1)).toBeLessThan(1e-3)
  })

  it('a vector difference of L1 norm ≤ Δ has no larger divergence than the scalar shift by Δ (curve superadditive in Δ)', () => {
    for (const t of [0.2, 1, 5])
      for (const alpha of [1.5, 4, 40])
        for (const [parts, d] of [
          [[1, 1], 2],
          [[1, 2], 3],
          [[1, 1, 1], 3],
          [[2, 2], 4],
          [[1, 1, 1, 1, 1], 5],
          [[3, 4], 7],
        ] as const) {
          const vector = parts.reduce((s, k) => s + discreteLaplaceRdp(t, k, alpha), 0)
          expect(vector, `t=${t} α=${alpha} ${JSON.stringify(parts)}`).toBeLessThanOrEqual(discreteLaplaceRdp(t, d, alpha) * (1 + 1e-12))
        }
  })

  it('is the continuous Laplace curve in the limit of large t (same Δ/t)', () => {
    const d = 4
    for (const alpha of [2, 8]) {
      const t = 4e3
      expect(Math.abs(discreteLaplaceRdp(t, d, alpha) / laplaceRdp(t / d, alpha) - 1)).toBeLessThan(1e-3)
    }
  })
})

describe('discrete Gaussian RDP', () => {
  it('equals the continuous Gaussian curve at the same σ and Δ (property over σ, Δ, α)', () => {
    fc.assert(
      fc.property(pos(0.2, 200), fc.integer({ min: 1, max: 50 }), pos(1.01, 500), (sigma, d, alpha) => {
        const orders = [alpha]
        const discrete = rdpCurve(ev.discreteGaussian(sigma, d, REL), REL, orders)
        const continuous = rdpCurve(ev.gaussian(sigma, d, REL), REL, orders)
        expect(discrete).toEqual(continuous)
        expect(discreteGaussianRdp(sigma, d, alpha)).toBe(gaussianRdp(sigma / d, alpha))
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('bounds the divergence found by direct summation, with equality when αΔ is an integer', () => {
    for (const sigma of [0.4, 1, 2.5])
      for (const d of [1, 2, 3])
        for (const alpha of [1.5, 2, 3, 7.25, 20]) {
          const logZ = discreteGaussianLogNormalizer(sigma)
          const logPmf = (x: number): number => -(x * x) / (2 * sigma * sigma) - logZ
          const w = Math.ceil(40 * sigma) + 5
          const centre = Math.round(alpha * d)
          const byHand = renyiShift(logPmf, d, alpha, Math.min(-w, centre - w), Math.max(d + w, centre + w))
          const curve = discreteGaussianRdp(sigma, d, alpha)
          expect(byHand, `σ=${sigma} Δ=${d} α=${alpha}`).toBeLessThanOrEqual(curve + byHandSlack(alpha, curve))
          if (Number.isInteger(alpha * d)) expect(Math.abs(byHand - curve)).toBeLessThanOrEqual(byHandSlack(alpha, curve))
        }
  })
})

describe('RDP and zCDP accountants on the discrete mechanisms', () => {
  const rdpEps = (e: ev.PrivacyEvent, delta: number, relation = REL): number => epsOf('rdp', e, delta, relation).epsilon
  const zcdpEps = (e: ev.PrivacyEvent, delta: number, relation = REL): number => epsOf('zcdp', e, delta, relation).epsilon

  it('zCDP: the discrete Gaussian answers as the Gaussian (ρ = Δ²/(2σ²)), the discrete Laplace as the Laplace (ρ = (Δ/t)²/2)', () => {
    fc.assert(
      fc.property(pos(0.3, 100), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 500 }), (s, d, k) => {
        // Equal up to the rounding of σ/Δ versus Δ/σ.
        const same = (a: number, b: number): void => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-14 * b)
        same(zcdpEps(ev.selfCompose(ev.discreteGaussian(s, d, REL), k), 1e-6), zcdpEps(ev.selfCompose(ev.gaussian(s, d, REL), k), 1e-6))
        same(zcdpEps(ev.selfCompose(ev.discreteLaplace(s, d, REL), k), 1e-6), zcdpEps(ev.selfCompose(ev.laplace(s, d, REL), k), 1e-6))
      }),
      { seed: SEED, numRuns: 50 },
    )
  })

  it('RDP: the pure ε of a discrete Laplace is Δ/t, and is reported when it is the smaller answer', () => {
    expect(rdpEps(ev.discreteLaplace(2, 3, REL), 1e-9)).toBeLessThanOrEqual(1.5 * (1 + 1e-12))
    expect(rdpEps(ev.discreteLaplace(2, 3, REL), 1e-9)).toBeGreaterThan(1.49)
  })

  it('ε(δ) falls as σ or t grows and rises with Δ and with the number of steps', () => {
    for (const make of [ev.discreteGaussian, ev.discreteLaplace] as const)
      for (const eps of [rdpEps, zcdpEps]) {
        const at = (s: number, d: number, k: number): number => eps(ev.selfCompose(make(s, d, REL), k), 1e-6)
        expect(at(4, 2, 10)).toBeGreaterThan(at(5, 2, 10))
        expect(at(4, 2, 10)).toBeLessThan(at(4, 3, 10))
        expect(at(4, 2, 10)).toBeLessThan(at(4, 2, 11))
      }
  })

  it('converts add/remove leaves for a replace-one guarantee by doubling Δ', () => {
    const r = replaceOne('record')
    expect(rdpEps(ev.discreteGaussian(3, 1, REL), 1e-6, r)).toBe(rdpEps(ev.discreteGaussian(3, 2, r), 1e-6, r))
    expect(zcdpEps(ev.discreteLaplace(3, 2, REL), 1e-6, r)).toBe(zcdpEps(ev.discreteLaplace(3, 4, r), 1e-6, r))
  })
})
