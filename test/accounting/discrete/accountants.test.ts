/**
 * The discrete mechanisms through every accountant: the pure ε of the discrete Laplace, the exact
 * (ε, δ) curve of the scalar discrete Gaussian (CKS 2020 Thm 7) against direct summation, the
 * (ε, δ) accountants, and the `account` entry point on a decoded spec.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../../../src/accounting/account.js'
import { ACCOUNTANT_NAMES } from '../../../src/accounting/registry.js'
import { discreteGaussianDelta, discreteGaussianEpsilon } from '../../../src/accounting/discrete-noise.js'
import { zcdpEpsilonTight } from '../../../src/accounting/zcdp/conversion.js'
import { formatError } from '../../../src/core/error.js'
import { decodeSpec } from '../../../src/mechanisms/codec.js'
import * as ev from '../../../src/mechanisms/event.js'
import { replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { epsOf, REL, SEED } from './helpers.js'
import { dgShiftPld, discreteGaussianLaw, pldDeltaAt } from './reference.js'


describe('discrete Gaussian: exact (ε, δ) of the scalar mechanism (CKS 2020, Thm 7)', () => {
  it('δ(ε) is never below direct summation and within 1e-10 relative of it (its rounding bound)', () => {
    for (const [s, d] of [
      [0.3, 1],
      [1, 1],
      [1, 3],
      [4, 2],
      [30, 1],
      [200, 7],
    ] as const) {
      const ref = dgShiftPld(discreteGaussianLaw(s), s, d)
      for (const eps of [0, 0.01, 0.2, 1, 3, 8]) {
        const want = pldDeltaAt(ref, eps)
        const got = discreteGaussianDelta(s, d, eps)
        expect(got, `σ=${s} Δ=${d} ε=${eps}`).toBeGreaterThanOrEqual(want * (1 - 1e-14))
        expect(got - want, `σ=${s} Δ=${d} ε=${eps}`).toBeLessThanOrEqual(1e-10 * want + 1e-300)
      }
    }
  })

  it('ε(δ) is the upper end of a tight bracket: δ(ε) ≤ δ there, and > δ just below', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.3, max: 50, noNaN: true }), fc.integer({ min: 1, max: 6 }), fc.double({ min: -12, max: -1, noNaN: true }), (s, d, logd) => {
        const delta = 10 ** logd
        const eps = discreteGaussianEpsilon(s, d, delta)
        expect(discreteGaussianDelta(s, d, eps)).toBeLessThanOrEqual(delta)
        if (eps > 0) expect(discreteGaussianDelta(s, d, eps * (1 - 1e-9))).toBeGreaterThan(delta)
        // Never above the zCDP conversion the mechanism also satisfies (ρ = Δ²/(2σ²)).
        expect(eps).toBeLessThanOrEqual(zcdpEpsilonTight((d * d) / (2 * s * s), delta) * (1 + 1e-9))
      }),
      { seed: SEED, numRuns: 60 },
    )
  })

  it('the (ε, δ) accountants answer one scalar step with its exact ε(δ), a vector step (Δ ≥ 2) through zCDP', () => {
    for (const name of ['basic', 'advanced', 'optimal'] as const) {
      const one = epsOf(name, ev.discreteGaussian(2, 3, REL, { scalar: true }), 1e-6)
      expect(one.epsilon).toBeGreaterThanOrEqual(discreteGaussianEpsilon(2, 3, 1e-6))
      expect(one.epsilon).toBeLessThanOrEqual(discreteGaussianEpsilon(2, 3, 1e-6) * (1 + 1e-11))
      const vector = epsOf(name, ev.discreteGaussian(2, 3, REL), 1e-6).epsilon
      expect(vector).toBeGreaterThanOrEqual(zcdpEpsilonTight(9 / 8, 1e-6) * (1 - 1e-12))
      expect(vector).toBeGreaterThan(one.epsilon)
    }
  })
})

describe('discrete Laplace: pure (Δ/t)-DP', () => {
  it('every (ε, δ) accountant reports ε = Δ/t for one step and kΔ/t under basic composition', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 100, noNaN: true }), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 20 }), (t, d, k) => {
        for (const name of ['basic', 'advanced', 'optimal'] as const) {
          const one = epsOf(name, ev.discreteLaplace(t, d, REL), 1e-6).epsilon
          // The optimal accountant reads one ε₀-DP step at δ exactly: ε₀ + log(1 − δ(1 + e^{−ε₀}))
          // (the worst ε₀-DP pair is binary randomized response; KOV 2015, Thm 3.3 with k = 1).
          const e0 = d / t
          const want = name === 'optimal' ? e0 + Math.log1p(-1e-6 * (1 + Math.exp(-e0))) : e0
          expect(Math.abs(one - want)).toBeLessThanOrEqual(1e-11 * want)
        }
        const many = epsOf('basic', ev.selfCompose(ev.discreteLaplace(t, d, REL), k), 1e-6).epsilon
        expect(Math.abs(many - (k * d) / t)).toBeLessThanOrEqual(1e-11 * ((k * d) / t))
      }),
      { seed: SEED, numRuns: 40 },
    )
  })

  it('add/remove Δ becomes 2Δ under replace-one', () => {
    expect(epsOf('basic', ev.discreteLaplace(2, 3, REL), 1e-6, replaceOne('record')).epsilon).toBeCloseTo(3, 10)
  })

  it('ε(δ) falls as t grows and rises with Δ under every accountant', () => {
    for (const name of ACCOUNTANT_NAMES) {
      const at = (t: number, d: number): number => epsOf(name, ev.selfCompose(ev.discreteLaplace(t, d, REL), 5), 1e-6).epsilon
      expect(at(3, 2), name).toBeGreaterThan(at(4, 2))
      expect(at(3, 2), name).toBeLessThan(at(3, 3))
    }
  })
})

describe('the account entry point on a spec with discrete releases', () => {
  const spec = (scalar: boolean): unknown => ({
    schemaVersion: 1,
    name: 'integer count tables',
    event: {
      _tag: 'Compose',
      events: [
        { _tag: 'SelfCompose', count: 20, event: { _tag: 'DiscreteGaussian', sigma: 6, sensitivity: 2, relation: REL, ...(scalar ? { scalar: true } : {}) } },
        { _tag: 'PoissonSample', q: 0.1, event: { _tag: 'DiscreteLaplace', scale: 2, sensitivity: 1, relation: REL } },
      ],
    },
  })

  it('every accountant answers a scalar spec; the tightest is the PLD and is no larger than any other', () => {
    const s = decodeSpec(spec(true))
    expect(E.isRight(s)).toBe(true)
    if (E.isLeft(s)) return
    const r = account(s.right, { deltas: [1e-6] })
    expect(E.isRight(r)).toBe(true)
    if (E.isLeft(r)) return
    for (const res of r.right.results) expect(res.ok, res.accountant).toBe(true)
    const tight = r.right.tightest[0]!
    expect(tight.accountant).toBe('pld')
    for (const res of r.right.results) if (res.ok) expect(tight.epsilon).toBeLessThanOrEqual(res.answers[0]!.epsilon)
  })

  it('a vector spec is refused by the PLD accountant only, with the leaf path; the others still answer', () => {
    const s = decodeSpec(spec(false))
    if (E.isLeft(s)) throw new Error(formatError(s.left))
    const r = account(s.right, { deltas: [1e-6] })
    if (E.isLeft(r)) throw new Error(formatError(r.left))
    const pld = r.right.results.find((x) => x.accountant === 'pld')
    expect(pld?.ok).toBe(false)
    if (pld !== undefined && !pld.ok) expect(pld.message).toMatch(/^\$\.event\.events\[0\]\.event: .*vector query/)
    expect(r.right.results.filter((x) => x.ok).length).toBe(ACCOUNTANT_NAMES.length - 1)
    expect(r.right.tightest.length).toBe(1)
  })
})
