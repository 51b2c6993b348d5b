import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import normalCdf from '@stdlib/stats-base-dists-normal-cdf'
import normalLogCdf from '@stdlib/stats-base-dists-normal-logcdf'
import { erase } from '../../../src/accounting/accountant.js'
import {
  DEFAULT_ORDERS,
  ZHU_WANG_NOTE,
  makeRdpAccountant,
  rdpAt,
  rdpCurveAtOrders,
  rdpToDelta,
  rdpToEpsilon,
  type RdpState,
} from '../../../src/accounting/rdp/index.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove } from '../../../src/mechanisms/neighbouring.js'
import { loadFixture, num } from './fixtures.js'

const AR = addRemove('record')
const SEED = 2020_1212
const acct = makeRdpAccountant({ relation: AR })

const fold = (e: ev.PrivacyEvent, a = acct): RdpState => {
  const r = a.compose(e)(a.empty)
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}
const epsOf = (e: ev.PrivacyEvent, delta: number, a = acct): number => {
  const r = a.epsilon(delta)(fold(e, a))
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right.epsilon
}

/**
 * The exact (ε, δ) of a Gaussian with noise multiplier σ (Balle & Wang 2018, Thm 8):
 * δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ), solved for ε by bisection. The oracle no sound
 * accountant may undercut.
 */
const analyticGaussianEpsilon = (sigma: number, delta: number): number => {
  const d = (eps: number) =>
    normalCdf(1 / (2 * sigma) - eps * sigma, 0, 1) - Math.exp(eps + normalLogCdf(-1 / (2 * sigma) - eps * sigma, 0, 1))
  if (d(0) <= delta) return 0
  let lo = 0
  let hi = 1
  while (d(hi) > delta) hi *= 2
  for (let i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
    const m = (lo + hi) / 2
    if (d(m) > delta) lo = m
    else hi = m
  }
  return lo
}

describe('the analytic-Gaussian oracle used below', () => {
  it('matches mpmath (40 digits, bisection on Balle & Wang 2018, Thm 8)', () => {
    expect(analyticGaussianEpsilon(1, 1e-5)).toBeCloseTo(4.3771780956812246, 9)
    expect(analyticGaussianEpsilon(0.5, 1e-6)).toBeCloseTo(10.997151214220651, 9)
    expect(analyticGaussianEpsilon(5, 1e-5)).toBeCloseTo(0.7255217508577958, 9)
  })
})

describe('RDP accountant: published values', () => {
  const fx = loadFixture<{
    dpsgdMnist: { epsilonCks: string; epsilonClassical: string; orderCks: string }
  }>('rdp_subsampled_gaussian.json').dpsgdMnist
  const dpsgd = ev.selfCompose(ev.poissonSample(256 / 60000, ev.gaussian(1.1, 1, AR)), 14063)

  it('DP-SGD on MNIST (Abadi et al. 2016; TF-Privacy tutorial: q = 256/60000, σ = 1.1, 60 epochs, δ = 1e-5)', () => {
    const s = fold(dpsgd)
    const answer = acct.epsilon(1e-5)(s)
    expect(E.isRight(answer)).toBe(true)
    if (E.isLeft(answer)) return
    const eps = answer.right.epsilon
    // The tutorial's classical conversion gives ε ≈ 3.0 (mpmath, continuous α: 3.008); CKS is
    // smaller. The continuous order search vs mpmath's continuous CKS optimum (2.5966 at
    // α ≈ 8.12): never below, and within 0.1 % (the grid alone, at α = 8, lost < 0.3 %).
    expect(num(fx.epsilonClassical)).toBeGreaterThan(2.9)
    expect(num(fx.epsilonClassical)).toBeLessThan(3.1)
    expect(eps).toBeGreaterThanOrEqual(num(fx.epsilonCks) * (1 - 1e-9))
    expect(eps).toBeLessThan(num(fx.epsilonCks) * 1.001)
    expect(eps).toBeGreaterThan(2.5)
    expect(eps).toBeLessThan(2.7)
    expect(Math.abs((answer.right.order as number) - num(fx.orderCks))).toBeLessThan(0.01)
    expect(answer.right.method).toMatch(
      new RegExp(`at the real order α = 8\\.12\\d* \\(continuous search from the grid's best α = 8 of ${DEFAULT_ORDERS.length}\\)$`),
    )
    // The classical conversion r + log(1/δ)/(α − 1) on the same curve reproduces the tutorial.
    const classical = Math.min(...rdpAt(s).map(({ order, rdp }) => rdp + Math.log(1e5) / (order - 1)))
    expect(classical).toBeGreaterThanOrEqual(num(fx.epsilonClassical) * (1 - 1e-9))
    expect(classical).toBeLessThan(3.02)
  })
})

describe('RDP accountant: soundness and monotonicity', () => {
  it('never undercuts the exact analytic Gaussian on a k-fold Gaussian', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        fc.constantFrom(1e-3, 1e-5, 1e-8, 1e-10),
        (sigma, k, delta) => {
          const eps = epsOf(ev.selfCompose(ev.gaussian(sigma, 1, AR), k), delta)
          const exact = analyticGaussianEpsilon(sigma / Math.sqrt(k), delta)
          return eps >= exact * (1 - 1e-9) && eps <= 1.5 * exact + 0.1
        },
      ),
      { seed: SEED, numRuns: 80 },
    )
  })

  it('ε is monotone in T, q and 1/σ, and non-increasing in δ (sampled Gaussian)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 0.5, noNaN: true }),
        fc.double({ min: 0.6, max: 5, noNaN: true }),
        fc.integer({ min: 1, max: 5000 }),
        fc.double({ min: 1e-10, max: 0.1, noNaN: true }),
        (q, sigma, T, delta) => {
          const e = (qq: number, s: number, t: number, d = delta) => epsOf(ev.selfCompose(ev.poissonSample(qq, ev.gaussian(s, 1, AR)), t), d)
          const base = e(q, sigma, T)
          const slack = 1 + 1e-9
          return (
            e(q, sigma, Math.ceil(T / 2)) <= base * slack &&
            e(q / 2, sigma, T) <= base * slack &&
            e(q, sigma * 1.2, T) <= base * slack &&
            e(q, sigma, T, Math.min(0.5, delta * 10)) <= base * slack &&
            base <= e(1, sigma, T) * slack
          )
        },
      ),
      { seed: SEED, numRuns: 40 },
    )
  })

  it('δ(ε) and ε(δ) are consistent: δ(ε(δ)) ≤ δ, and δ is non-increasing in ε', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 10, noNaN: true }), fc.integer({ min: 1, max: 100 }), fc.double({ min: 1e-9, max: 0.1, noNaN: true }), (sigma, k, delta) => {
        const s = fold(ev.selfCompose(ev.poissonSample(0.05, ev.gaussian(sigma, 1, AR)), k))
        const a = acct.epsilon(delta)(s)
        if (E.isLeft(a)) return false
        const d1 = acct.delta(a.right.epsilon)(s)
        const d2 = acct.delta(a.right.epsilon * 1.5 + 0.01)(s)
        return E.isRight(d1) && E.isRight(d2) && d1.right.delta <= delta * (1 + 1e-9) && d2.right.delta <= d1.right.delta
      }),
      { seed: SEED, numRuns: 60 },
    )
  })

  it('composition in steps equals composition at once; states are not mutated', () => {
    const step = ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR))
    const s0 = acct.empty
    const s1 = acct.compose(step, 600)(s0)
    const s2 = E.isRight(s1) ? acct.compose(step, 400)(s1.right) : s1
    const once = fold(ev.selfCompose(step, 1000))
    expect(E.isRight(s2)).toBe(true)
    if (E.isRight(s2)) expect(Array.from(s2.right.curve).every((x, i) => Math.abs(x - (once.curve[i] as number)) <= 1e-12 * x)).toBe(true)
    expect(Array.from(s0.curve).every((x) => x === 0)).toBe(true)
  })
})

describe('RDP accountant: answers and notes', () => {
  it('pure DP events: the composed pure ε answers when it beats the RDP conversion', () => {
    const s = fold(ev.selfCompose(ev.randomizedResponse(0.2, 2, AR), 2))
    const a = acct.epsilon(1e-5)(s)
    expect(E.isRight(a) && a.right.epsilon).toBeCloseTo(0.4, 12)
    expect(E.isRight(a) && a.right.method).toMatch(/^pure ε-DP/)
    const d = acct.delta(0.4)(s)
    expect(E.isRight(d) && d.right.delta).toBe(0)
    // Many pure steps: RDP wins by far over the 200·0.2 = 40 of basic composition. Its KL is
    // 200·ε·tanh(ε/2) ≈ 3.99, so ε(1e-5) ≈ 4 + 2√(4·log(1e5)) ≈ 17.6 by the zCDP-style estimate;
    // the exact RR curve does a bit better.
    const many = acct.epsilon(1e-5)(fold(ev.selfCompose(ev.randomizedResponse(0.2, 2, AR), 200)))
    expect(E.isRight(many) && many.right.epsilon).toBeLessThan(17.6)
    expect(E.isRight(many) && many.right.epsilon).toBeGreaterThan(14)
    expect(E.isRight(many) && many.right.method).toMatch(/^RDP \(Mironov 2017\)/)
  })

  it('NoOp gives 0, NonPrivate ∞; the Zhu–Wang note travels with the state', () => {
    expect(epsOf(ev.noOp, 1e-5)).toBe(0)
    const inf = acct.epsilon(1e-5)(fold(ev.nonPrivate))
    expect(E.isRight(inf) && inf.right.epsilon).toBe(Infinity)
    expect(E.isRight(inf) && inf.right.method).toMatch(/infinite at every order/)
    const s = fold(ev.selfCompose(ev.poissonSample(0.01, ev.randomizedResponse(1, 2, AR)), 100))
    expect(acct.notes(s).some((n) => n.startsWith(ZHU_WANG_NOTE))).toBe(true)
  })

  it('refuses invalid queries, counts and grids, naming the parameter', () => {
    const s = fold(ev.gaussian(1, 1, AR))
    for (const d of [1, -1, 2, Number.NaN, Infinity]) {
      const r = acct.epsilon(d)(s)
      expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path).toBe('delta')
    }
    for (const e of [-1, Number.NaN, Infinity]) {
      const r = acct.delta(e)(s)
      expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path).toBe('epsilon')
    }
    const c = acct.compose(ev.noOp, 1.5)(s)
    expect(E.isLeft(c) && c.left.path).toBe('$.count')
    const bad = makeRdpAccountant({ relation: AR, orders: [2, 0.5] })
    const b = bad.compose(ev.noOp)(bad.empty)
    expect(E.isLeft(b) && b.left.path).toBe('orders[1]')
    const other = makeRdpAccountant({ relation: AR, orders: [2, 3] })
    expect(E.isLeft(other.epsilon(1e-5)(s))).toBe(true)
  })

  it('a user grid is used as given (sorted) and reported; it brackets the continuous search only when asked', () => {
    const a = makeRdpAccountant({ relation: AR, orders: [32, 2, 8] })
    const s = fold(ev.gaussian(2, 1, AR), a)
    expect(rdpAt(s).map((p) => p.order)).toEqual([2, 8, 32])
    const ans = a.epsilon(1e-5)(s)
    expect(E.isRight(ans) && ans.right.method).toMatch(/optimal order α = 8 of 3$/)
    const searched = makeRdpAccountant({ relation: AR, orders: [32, 2, 8], continuous: true })
    const ans2 = searched.epsilon(1e-5)(fold(ev.gaussian(2, 1, AR), searched))
    expect(E.isRight(ans2) && ans2.right.method).toMatch(/continuous search from the grid's best α = 8 of 3\)$/)
    const order = E.isRight(ans2) ? (ans2.right.order as number) : 0
    expect(order).toBeGreaterThan(2)
    expect(order).toBeLessThan(32)
    // The default grid extended by extra orders (the CLI's --orders) is still searched.
    const extended = makeRdpAccountant({ relation: AR, orders: [...DEFAULT_ORDERS, 10.7] })
    const ans4 = extended.epsilon(1e-5)(fold(ev.gaussian(2, 1, AR), extended))
    expect(E.isRight(ans4) && ans4.right.method).toMatch(/continuous search from the grid's best α = [\d.]+ of 126\)$/)
    const single = makeRdpAccountant({ relation: AR, orders: [10.7] })
    const ans3 = single.epsilon(1e-5)(fold(ev.gaussian(2, 1, AR), single))
    expect(E.isRight(ans3) && ans3.right.order).toBe(10.7)
    const c = rdpCurveAtOrders(ev.gaussian(2, 1, AR), AR, [8, 2])
    expect(E.isRight(c) && Array.from(c.right).map((x) => Number(x.toPrecision(12)))).toEqual([1, 0.25])
  })

  it('erases to the registry shape', () => {
    const run = erase(acct).run(ev.selfCompose(ev.gaussian(3, 1, AR), 10))
    expect(E.isRight(run)).toBe(true)
    if (E.isRight(run)) {
      const e = run.right.epsilon(1e-5)
      expect(E.isRight(e) && e.right.epsilon).toBeGreaterThan(analyticGaussianEpsilon(3 / Math.sqrt(10), 1e-5))
    }
  })
})

describe('conversion over the grid', () => {
  it('picks the best order and validates its inputs', () => {
    const orders = [2, 4, 8]
    const curve = [0.1, 0.2, 0.4]
    const r = rdpToEpsilon(orders, curve, 1e-3)
    expect(E.isRight(r)).toBe(true)
    if (E.isRight(r)) {
      const byHand = orders.map((a, i) => (curve[i] as number) + Math.log1p(-1 / a) - (Math.log(1e-3) + Math.log(a)) / (a - 1))
      expect(r.right.epsilon).toBe(Math.min(...byHand))
      expect(r.right.order).toBe(orders[byHand.indexOf(Math.min(...byHand))])
    }
    expect(E.isLeft(rdpToEpsilon(orders, [0.1], 1e-3))).toBe(true)
    expect(E.isLeft(rdpToEpsilon([0.5], [0.1], 1e-3))).toBe(true)
    const d = rdpToDelta(orders, curve, 1)
    expect(E.isRight(d) && d.right.delta).toBeGreaterThan(0)
    expect(E.isLeft(rdpToDelta(orders, curve, -0.1))).toBe(true)
  })
})
