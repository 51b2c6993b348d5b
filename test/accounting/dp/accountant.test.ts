import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import type { Accountant, DeltaAnswer, EpsilonAnswer } from '../../../src/accounting/accountant.js'
import { analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import {
  advancedCompositionEpsilon,
  amplifiedEpsilon,
  type DpState,
  kovEpsilon,
  makeAdvancedAccountant,
  makeBasicAccountant,
  makeOptimalAccountant,
} from '../../../src/accounting/dp/index.js'
import { zcdpEpsilonTight } from '../../../src/accounting/zcdp/conversion.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const SEED = 31_415_926
const relErr = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300)

type Maker = (o: { relation: typeof AR }) => Accountant<DpState>
const MAKERS: ReadonlyArray<readonly [string, Maker]> = [
  ['basic', makeBasicAccountant],
  ['advanced', makeAdvancedAccountant],
  ['optimal', makeOptimalAccountant],
]

const state = (mk: Maker, e: ev.PrivacyEvent, relation = AR): DpState => {
  const a = mk({ relation })
  const r = a.compose(e)(a.empty)
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}
const epsilon = (mk: Maker, e: ev.PrivacyEvent, delta: number, relation = AR): EpsilonAnswer => {
  const r = mk({ relation }).epsilon(delta)(state(mk, e, relation))
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}
const delta = (mk: Maker, e: ev.PrivacyEvent, eps: number, relation = AR): DeltaAnswer => {
  const r = mk({ relation }).delta(eps)(state(mk, e, relation))
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}
/**
 * What one ε₀-DP step answers at δ: ε₀, except under the optimal accountant, which reads the step at
 * δ exactly — the worst ε₀-DP pair is binary randomized response, ε(δ) = ε₀ + log(1 − δ(1 + e^{−ε₀}))
 * (Kairouz, Oh & Viswanath 2015, Thm 3.3 with k = 1).
 */
const singleStep = (name: string, eps0: number, d: number): number => (name === 'optimal' ? eps0 + Math.log1p(-d * (1 + Math.exp(-eps0))) : eps0)
const errorOf = (mk: Maker, e: ev.PrivacyEvent, relation = AR): string => {
  const a = mk({ relation })
  const r = a.compose(e)(a.empty)
  return E.isLeft(r) ? formatError(r.left) : 'no error'
}

describe.each(MAKERS)('the %s accountant', (_name, mk) => {
  it('NoOp and empty compositions cost nothing; NonPrivate costs ε = ∞', () => {
    expect(epsilon(mk, ev.noOp, 1e-5).epsilon).toBe(0)
    expect(epsilon(mk, ev.selfCompose(ev.pureDP(1, AR), 0), 1e-5).epsilon).toBe(0)
    expect(epsilon(mk, ev.compose([ev.pureDP(1, AR), ev.nonPrivate]), 1e-5).epsilon).toBe(Infinity)
    expect(delta(mk, ev.nonPrivate, 5).delta).toBe(1)
    expect(delta(mk, ev.noOp, 0).delta).toBe(0)
  })

  it('one pure step is exactly its ε (the optimal accountant: the exact ε at δ of ε-DP); SelfCompose multiplies a count instead of expanding', () => {
    const exact = singleStep(_name, 0.5, 1e-5)
    expect(epsilon(mk, ev.laplace(2, 1, AR), 1e-5).epsilon).toBeCloseTo(exact, 11)
    expect(epsilon(mk, ev.laplace(2, 1, AR), 1e-5).epsilon).toBeGreaterThanOrEqual(exact)
    const s = state(mk, ev.selfCompose(ev.labeled('step', ev.pureDP(0.01, AR)), 10_000))
    expect(s.entries).toHaveLength(1)
    expect(s.entries[0]?.count).toBe(10_000)
  })

  it('never undercuts the analytic Gaussian on SelfCompose(Gaussian(σ), k)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.3, max: 30, noNaN: true }), fc.integer({ min: 1, max: 400 }), fc.constantFrom(1e-3, 1e-6, 1e-10), (sigma, k, d) => {
        const eps = epsilon(mk, ev.selfCompose(ev.gaussian(sigma, 1, AR), k), d).epsilon
        return eps >= analyticGaussianEpsilon(sigma / Math.sqrt(k), d)
      }),
      { seed: SEED, numRuns: 25 },
    )
  })

  it('ε is non-decreasing in the count and non-increasing in δ', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: 0.5, max: 10, noNaN: true }).map((s) => ev.gaussian(s, 1, AR)),
          fc.double({ min: 0.01, max: 1, noNaN: true }).map((e) => ev.pureDP(e, AR)),
          fc.double({ min: 0.01, max: 1, noNaN: true }).map((e) => ev.approxDP(e, 1e-9, AR)),
        ),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 50 }),
        (leaf, k, extra) => {
          const e1 = epsilon(mk, ev.selfCompose(leaf, k), 1e-5).epsilon
          const e2 = epsilon(mk, ev.selfCompose(leaf, k + extra), 1e-5).epsilon
          const e3 = epsilon(mk, ev.selfCompose(leaf, k), 1e-3).epsilon
          return e1 <= e2 * (1 + 1e-12) && e3 <= e1 * (1 + 1e-12)
        },
      ),
      { seed: SEED, numRuns: 20 },
    )
  })

  it('δ(ε) and ε(δ) read the same curve: δ(ε(δ)) ≤ δ, and barely below it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 10, noNaN: true }),
        fc.integer({ min: 2, max: 60 }),
        fc.double({ min: 0.05, max: 0.5, noNaN: true }),
        fc.constantFrom(1e-3, 1e-6),
        (sigma, k, e0, d) => {
          const tree = ev.compose([ev.selfCompose(ev.gaussian(sigma, 1, AR), k), ev.selfCompose(ev.pureDP(e0, AR), k)])
          const eps = epsilon(mk, tree, d).epsilon
          const back = delta(mk, tree, eps).delta
          return back <= d * (1 + 1e-9) && back >= d * (1 - 1e-3)
        },
      ),
      { seed: SEED, numRuns: 12 },
    )
  })

  it('subsampling never increases ε, and amplifies a single pure step exactly', () => {
    const q = 0.01
    const e = epsilon(mk, ev.selfCompose(ev.poissonSample(q, ev.pureDP(1, AR)), 7), 1e-5).epsilon
    expect(e).toBeLessThanOrEqual(epsilon(mk, ev.selfCompose(ev.pureDP(1, AR), 7), 1e-5).epsilon)
    const amplified = singleStep(_name, 0.017036863236176549786, 1e-5)
    expect(epsilon(mk, ev.poissonSample(q, ev.pureDP(1, AR)), 1e-5).epsilon).toBeCloseTo(amplified, 12)
    // m of n without replacement under replace-one: rate m/n (Balle, Barthe & Gaboardi 2018, Thm 9)
    expect(epsilon(mk, ev.sampleWithoutReplacement(10, 1000, ev.pureDP(1, RO)), 1e-5, RO).epsilon).toBeCloseTo(amplified, 12)
  })

  it('a subsampled composition is composed first, then amplified (basic: log(1 + q(e^{Σε} − 1)))', () => {
    const inner = ev.compose([ev.pureDP(0.3, AR), ev.pureDP(0.2, AR)])
    const got = epsilon(mk, ev.poissonSample(0.1, inner), 1e-5).epsilon
    expect(got).toBeLessThanOrEqual(amplifiedEpsilon(0.1, 0.5) * (1 + 1e-11)) // answers are rounded up by 1e-12
    expect(epsilon(makeBasicAccountant, ev.poissonSample(0.1, inner), 1e-5).epsilon).toBeCloseTo(amplifiedEpsilon(0.1, 0.5), 12)
    // stated δ inside are scaled by q and committed exactly (no rounding may make them infeasible)
    const approx = ev.compose([ev.approxDP(0.3, 1e-7, AR), ev.approxDP(0.2, 3e-7, AR)])
    const b = epsilon(makeBasicAccountant, ev.selfCompose(ev.poissonSample(0.1, approx), 3), 1.3e-7)
    expect(b.epsilon).toBeCloseTo(3 * amplifiedEpsilon(0.1, 0.5), 11)
    expect(delta(makeBasicAccountant, ev.selfCompose(ev.poissonSample(0.1, approx), 3), 3 * amplifiedEpsilon(0.1, 0.5) * 1.001).delta).toBeCloseTo(1.2e-7, 16)
  })

  it('stated δ are committed first: a δ below their sum gives ε = ∞, and says why', () => {
    const a = epsilon(mk, ev.selfCompose(ev.approxDP(0.1, 1e-4, AR), 20), 1e-3)
    expect(a.epsilon).toBe(Infinity)
    expect(a.method).toMatch(/already sum to/)
  })

  it('refuses invalid queries with the field name, and invalid events with their path', () => {
    const a = mk({ relation: AR })
    const s = state(mk, ev.pureDP(1, AR))
    for (const d of [1, -0.5, 2, Number.NaN]) {
      const r = a.epsilon(d)(s)
      expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path === 'delta').toBe(true)
    }
    for (const e of [-1, Number.NaN]) {
      const r = a.delta(e)(s)
      expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path === 'epsilon').toBe(true)
    }
    expect(errorOf(mk, ev.compose([ev.noOp, ev.selfCompose(ev.gaussian(-1, 1, AR), 2)]))).toMatch(/^\$\.events\[1\]\.event\.sigma: /)
    expect(errorOf(mk, ev.poissonSample(0.1, ev.pureDP(1, RO)), RO)).toMatch(/^\$: Poisson subsampling is amplified under add\/remove/)
    expect(errorOf(mk, ev.labeled('x', ev.sampleWithoutReplacement(1, 10, ev.pureDP(1, AR))))).toMatch(/^\$\.event: sampling without replacement/)
    expect(errorOf(mk, ev.compose([ev.gaussian(1, 1, RO)]))).toMatch(/^\$\.events\[0\]: /)
    const bad = a.compose(ev.pureDP(1, AR), 1.5)(a.empty)
    expect(E.isLeft(bad) && bad.left._tag === 'InvalidParameter' && bad.left.path === '$.count').toBe(true)
  })

  it('converts add/remove leaves under a replace-one accountant and notes it', () => {
    const a = mk({ relation: RO })
    const r = a.compose(ev.laplace(4, 1, AR))(a.empty)
    expect(E.isRight(r)).toBe(true)
    if (E.isRight(r)) {
      expect(a.notes(r.right).join('\n')).toMatch(/converted to replace-one/)
      const q = a.epsilon(1e-5)(r.right)
      expect(E.isRight(q) && q.right.epsilon).toBeCloseTo(singleStep(_name, 0.5, 1e-5), 11) // sensitivity doubled: 2/4
    }
  })
})

describe('closed forms and the relations that are theorems', () => {
  it('basic: Σε for pure steps; Σδ is the δ at ε = Σε, and δ = 1 below it', () => {
    const tree = ev.compose([ev.selfCompose(ev.pureDP(0.1, AR), 30), ev.selfCompose(ev.approxDP(0.5, 1e-7, AR), 4)])
    expect(epsilon(makeBasicAccountant, tree, 1e-5).epsilon).toBeCloseTo(5, 10)
    expect(delta(makeBasicAccountant, tree, 5.0000001).delta).toBeCloseTo(4e-7, 18)
    expect(delta(makeBasicAccountant, tree, 4.9).delta).toBe(1)
  })

  it('advanced on identical pure steps is min(DRV, kε), and says which', () => {
    const a = epsilon(makeAdvancedAccountant, ev.selfCompose(ev.pureDP(0.01, AR), 10_000), 1e-6)
    expect(relErr(a.epsilon, advancedCompositionEpsilon([{ epsilon: 0.01, delta: 0, count: 10_000 }], 1e-6))).toBeLessThan(1e-11)
    expect(a.method).toMatch(/best of advanced and basic composition: advanced composition/)
    const b = epsilon(makeAdvancedAccountant, ev.selfCompose(ev.pureDP(2, AR), 3), 1e-6)
    expect(b.epsilon).toBeCloseTo(6, 10)
    expect(b.method).toMatch(/: basic composition/)
  })

  it('optimal on identical pure steps is the exact KOV optimum and says so', () => {
    const a = epsilon(makeOptimalAccountant, ev.selfCompose(ev.randomizedResponse(0.1, 2, AR), 100), 1e-5)
    expect(relErr(a.epsilon, kovEpsilon(0.1, 0, 100, 1e-5))).toBeLessThan(1e-11)
    expect(a.method).toMatch(/optimal composition of 100 identical .* Thm 3\.3/)
    expect(a.method).not.toMatch(/heuristic/)
  })

  it('optimal on heterogeneous steps says the exact optimum was not computed', () => {
    const tree = ev.compose([ev.selfCompose(ev.pureDP(0.1, AR), 50), ev.selfCompose(ev.pureDP(0.2, AR), 50)])
    const a = epsilon(makeOptimalAccountant, tree, 1e-5)
    expect(a.method).toMatch(/heterogeneous, so the exact optimal composition .* was not computed/)
    expect(a.epsilon).toBeLessThan(15)
  })

  it('beyond KOV_MAX_STEPS identical steps, the method says the exact sum was skipped (not "heterogeneous")', () => {
    const a = epsilon(makeOptimalAccountant, ev.selfCompose(ev.pureDP(1e-4, AR), 2 ** 40), 1e-6)
    expect(a.method).toMatch(/identical steps, but KOV's exact sum was not evaluated/)
    expect(a.method).not.toMatch(/heterogeneous, so/)
    expect(Number.isFinite(a.epsilon)).toBe(true)
  })

  it('Gaussian and zCDP steps are converted at a heuristic δ split, and the method says so', () => {
    const g = epsilon(makeBasicAccountant, ev.selfCompose(ev.gaussian(4, 1, AR), 10), 1e-5)
    expect(relErr(g.epsilon, 10 * analyticGaussianEpsilon(4, 1e-6))).toBeLessThan(1e-11) // δ/N each
    expect(g.method).toMatch(/heuristic even split/)
    const z = epsilon(makeBasicAccountant, ev.selfCompose(ev.zcdp(0.01, AR), 4), 1e-4)
    expect(relErr(z.epsilon, 4 * zcdpEpsilonTight(0.01, 2.5e-5))).toBeLessThan(1e-11)
  })

  it('optimal ≤ advanced ≤ basic on any mix of leaves, sampling and repetition', () => {
    const leaf = fc.oneof(
      fc.double({ min: 0.5, max: 20, noNaN: true }).map((s) => ev.gaussian(s, 1, AR)),
      fc.double({ min: 0.01, max: 2, noNaN: true }).map((e) => ev.pureDP(e, AR)),
      fc.double({ min: 0.01, max: 2, noNaN: true }).map((e) => ev.approxDP(e, 1e-8, AR)),
      fc.double({ min: 1e-4, max: 0.5, noNaN: true }).map((r) => ev.zcdp(r, AR)),
    )
    const tree = fc.tuple(fc.array(fc.tuple(leaf, fc.integer({ min: 1, max: 60 }), fc.option(fc.double({ min: 0.01, max: 1, noNaN: true }))), { minLength: 1, maxLength: 3 }))
      .map(([parts]) => ev.compose(parts.map(([l, k, q]) => ev.selfCompose(q === null ? l : ev.poissonSample(q, l), k))))
    fc.assert(
      fc.property(tree, fc.constantFrom(1e-3, 1e-6), (t, d) => {
        const b = epsilon(makeBasicAccountant, t, d).epsilon
        const a = epsilon(makeAdvancedAccountant, t, d).epsilon
        const o = epsilon(makeOptimalAccountant, t, d).epsilon
        return o <= a * (1 + 1e-12) && a <= b * (1 + 1e-12)
      }),
      { seed: SEED, numRuns: 25 },
    )
  })

  it('optimal tends to basic for pure steps as δ → 0 (no composition theorem beats Σε at δ = 0)', () => {
    const tree = ev.selfCompose(ev.pureDP(0.5, AR), 4)
    const o = epsilon(makeOptimalAccountant, tree, 1e-15).epsilon
    expect(o).toBeLessThanOrEqual(2 * (1 + 1e-11)) // answers are rounded up by 1e-12
    expect(Math.abs(2 - o)).toBeLessThan(1e-10)
  })
})
