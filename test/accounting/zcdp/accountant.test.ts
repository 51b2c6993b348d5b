import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { erase } from '../../../src/accounting/accountant.js'
import { analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import { makeZcdpAccountant, type ZcdpState } from '../../../src/accounting/zcdp/accountant.js'
import { zcdpEpsilonClassic, zcdpToDelta, zcdpToEpsilon } from '../../../src/accounting/zcdp/conversion.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const SEED = 27_182_818
const relErr = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300)

const fold = (e: ev.PrivacyEvent, relation = AR): E.Either<string, ZcdpState> => {
  const a = makeZcdpAccountant({ relation })
  const r = a.compose(e)(a.empty)
  return E.isLeft(r) ? E.left(formatError(r.left)) : E.right(r.right)
}
const rhoOf = (e: ev.PrivacyEvent, relation = AR): number => {
  const r = fold(e, relation)
  if (E.isLeft(r)) throw new Error(r.left)
  return r.right.rho
}
const epsOf = (e: ev.PrivacyEvent, delta: number): number => {
  const run = erase(makeZcdpAccountant({ relation: AR })).run(e)
  if (E.isLeft(run)) throw new Error(formatError(run.left))
  const a = run.right.epsilon(delta)
  if (E.isLeft(a)) throw new Error(formatError(a.left))
  return a.right.epsilon
}

describe('zCDP of each leaf (Bun & Steinke 2016; Cesar & Rogers 2021)', () => {
  it('Gaussian: ρ = Δ²/(2σ²) (Prop. 1.6)', () => {
    expect(rhoOf(ev.gaussian(4, 2, AR))).toBeCloseTo(0.125, 15)
    expect(rhoOf(ev.gaussian(Infinity, 1, AR))).toBe(0)
  })

  it('pure ε: ε²/2 (Prop. 1.4) for Laplace, k-ary RR, PureDP and ApproxDP with δ = 0', () => {
    expect(rhoOf(ev.laplace(2, 1, AR))).toBeCloseTo(0.125, 15)
    expect(rhoOf(ev.randomizedResponse(0.5, 4, AR))).toBeCloseTo(0.125, 15)
    expect(rhoOf(ev.pureDP(0.5, AR))).toBeCloseTo(0.125, 15)
    expect(rhoOf(ev.approxDP(0.5, 0, AR))).toBeCloseTo(0.125, 15)
  })

  it('bitwise RR: bits × ε_bit²/2, the composition of the differing bits', () => {
    const eb = Math.log(0.8 / 0.2)
    expect(relErr(rhoOf(ev.bitwiseRandomizedResponse(0.2, 3, AR)), (3 * eb * eb) / 2)).toBeLessThan(1e-15)
  })

  it('exponential mechanism: ε²/8 (ε-bounded range)', () => {
    expect(rhoOf(ev.exponential(2, 1, AR))).toBeCloseTo(0.5, 15)
  })

  it('stated ZCDP as is; add/remove leaves under replace-one become 4ρ with a note (group privacy, k = 2)', () => {
    expect(rhoOf(ev.zcdp(0.3, AR))).toBeCloseTo(0.3, 15)
    expect(rhoOf(ev.zcdp(0.3, AR), RO)).toBeCloseTo(1.2, 15)
    expect(rhoOf(ev.gaussian(1, 1, AR), RO)).toBeCloseTo(2, 15)
    const s = fold(ev.zcdp(0.3, AR), RO)
    expect(E.isRight(s) && s.right.notes.join(' ')).toMatch(/converted to replace-one/)
  })
})

describe('the zCDP accountant', () => {
  it('adds ρ under composition and multiplies it under SelfCompose (Lemma 1.7)', () => {
    const tree = ev.compose([ev.selfCompose(ev.gaussian(2, 1, AR), 100), ev.labeled('tail', ev.pureDP(0.1, AR)), ev.noOp])
    expect(relErr(rhoOf(tree), 100 / 8 + 0.005)).toBeLessThan(1e-14)
    expect(rhoOf(ev.selfCompose(ev.nonPrivate, 0))).toBe(0)
  })

  it('zCDP of a k-fold Gaussian is the Gaussian ρ k/(2m²), and its ε never undercuts the analytic Gaussian', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.2, max: 50, noNaN: true }), fc.integer({ min: 1, max: 5000 }), fc.constantFrom(1e-3, 1e-6, 1e-12), (sigma, k, d) => {
        const e = ev.selfCompose(ev.gaussian(sigma, 1, AR), k)
        const rho = rhoOf(e)
        const eps = epsOf(e, d)
        return relErr(rho, k / (2 * sigma * sigma)) < 1e-14 && eps >= analyticGaussianEpsilon(sigma / Math.sqrt(k), d) && eps <= zcdpEpsilonClassic(rho, d)
      }),
      { seed: SEED, numRuns: 100 },
    )
  })

  it('answers with the tighter conversion, names it, and reports the order', () => {
    const run = erase(makeZcdpAccountant({ relation: AR })).run(ev.zcdp(0.5, AR))
    expect(E.isRight(run)).toBe(true)
    if (E.isLeft(run)) return
    const a = run.right.epsilon(1e-6)
    expect(E.isRight(a)).toBe(true)
    if (E.isRight(a)) {
      expect(relErr(a.right.epsilon, zcdpToEpsilon(0.5, 1e-6).epsilon)).toBeLessThan(2e-12)
      expect(a.right.epsilon).toBeLessThan(zcdpEpsilonClassic(0.5, 1e-6))
      expect(a.right.method).toMatch(/Canonne, Kamath & Steinke 2020, Prop\. 12/)
      expect(a.right.order).toBeGreaterThan(1)
    }
    const d = run.right.delta(3)
    expect(E.isRight(d) && relErr(d.right.delta, zcdpToDelta(0.5, 3).delta)).toBeLessThan(2e-12)
  })

  it('ε is non-decreasing in the count and non-increasing in δ', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-4, max: 2, noNaN: true }), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 100 }), (r, k, extra) => {
        const a = epsOf(ev.selfCompose(ev.zcdp(r, AR), k), 1e-6)
        return a <= epsOf(ev.selfCompose(ev.zcdp(r, AR), k + extra), 1e-6) && epsOf(ev.selfCompose(ev.zcdp(r, AR), k), 1e-3) <= a
      }),
      { seed: SEED, numRuns: 100 },
    )
  })

  it('keeps the unsampled ρ under subsampling and says why (no amplification theorem)', () => {
    const s = fold(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, AR)), 10))
    expect(E.isRight(s)).toBe(true)
    if (E.isRight(s)) {
      expect(s.right.rho).toBeCloseTo(5, 14)
      expect(s.right.notes.join(' ')).toMatch(/no amplification-by-subsampling theorem.*quasi-convex/)
    }
    expect(rhoOf(ev.sampleWithoutReplacement(5, 50, ev.pureDP(1, RO)), RO)).toBeCloseTo(0.5, 15)
  })

  it('NonPrivate: ε = ∞, δ = 1 at finite ε; NoOp: ε = 0', () => {
    const run = erase(makeZcdpAccountant({ relation: AR })).run(ev.compose([ev.zcdp(1, AR), ev.nonPrivate]))
    expect(E.isRight(run)).toBe(true)
    if (E.isRight(run)) {
      expect(E.isRight(run.right.epsilon(1e-5)) && (run.right.epsilon(1e-5) as E.Right<{ epsilon: number }>).right.epsilon).toBe(Infinity)
      const d = run.right.delta(10)
      expect(E.isRight(d) && d.right.delta).toBe(1)
    }
    expect(epsOf(ev.noOp, 1e-5)).toBe(0)
  })

  it('refuses ApproxDP with δ > 0 naming its path, sampling under the wrong relation, and bad queries', () => {
    const bad = fold(ev.compose([ev.zcdp(1, AR), ev.selfCompose(ev.labeled('x', ev.approxDP(1, 1e-6, AR)), 3)]))
    expect(E.isLeft(bad) && bad.left).toMatch(/^\$\.events\[1\]\.event\.event: the zcdp accountant cannot handle ApproxDP/)
    const wrong = fold(ev.poissonSample(0.5, ev.zcdp(1, RO)), RO)
    expect(E.isLeft(wrong) && wrong.left).toMatch(/^\$: Poisson subsampling is amplified under add\/remove/)
    const a = makeZcdpAccountant({ relation: AR })
    for (const d of [1, Number.NaN, -1]) {
      const r = a.epsilon(d)(a.empty)
      expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path === 'delta').toBe(true)
    }
    for (const e of [-0.1, Number.NaN]) {
      const r = a.delta(e)(a.empty)
      expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path === 'epsilon').toBe(true)
    }
    const c = a.compose(ev.zcdp(1, AR), -1)(a.empty)
    expect(E.isLeft(c) && c.left._tag === 'InvalidParameter' && c.left.path === '$.count').toBe(true)
  })
})
