/**
 * Private selection by repetition (issue 26 item 1): Papernot & Steinke 2022 (RDP, Thms 2 and 6) in
 * the RDP accountant, Liu & Talwar 2019 ((2 + η)ε, 3ε for a geometric number of runs) for pure runs and
 * ((2 + η)ε, μδ) for (ε, δ) runs (src/accounting/dp/selection.ts) in the (ε, δ) accountants; zcdp and
 * pld refuse.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANTS } from '../../../src/accounting/registry.js'
import { makeRdpAccountant } from '../../../src/accounting/rdp/accountant.js'
import { rdpCurve } from '../../../src/accounting/rdp/curve.js'
import { runDelta, tnbGamma, tnbMean } from '../../../src/accounting/rdp/repeat-select.js'
import { runDeltaFor, selectionDelta } from '../../../src/accounting/dp/selection.js'
import { rdpDeltaAtOrder } from '../../../src/accounting/conversions.js'
import { rdpAtOrder } from '../../../src/accounting/rdp/extreme-orders.js'
import { analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import { calibrate, decodeTemplate } from '../../../src/accounting/calibrate.js'
import { decodeEvent, encodeEvent } from '../../../src/mechanisms/codec.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addOnly, addRemove, removeOnly } from '../../../src/mechanisms/neighbouring.js'
import { epsAt } from '../eps-at.js'

const AR = addRemove('record')
const SEED = 26_004

interface Fixture {
  readonly provenance: { readonly script: string }
  readonly cases: ReadonlyArray<{ m: number; mean: number; shape: number | 'Infinity'; order: number; rdp: number }>
  readonly gammas: ReadonlyArray<{ shape: number; mean: number; gamma: number }>
}
const fx = JSON.parse(readFileSync(new URL('../../fixtures/repeat-select.json', import.meta.url), 'utf8')) as Fixture
interface BranchFixture {
  readonly provenance: { readonly script: string }
  readonly cases: ReadonlyArray<{ shape: number | 'Infinity'; mean: number; delta: number; branch: number }>
  readonly poissonPure: ReadonlyArray<{ epsilon: number; mean: number; divergence: number; bound: number }>
}
const bx = JSON.parse(readFileSync(new URL('../../fixtures/selection-delta.json', import.meta.url), 'utf8')) as BranchFixture
const msg = (u: unknown): string => {
  const r = decodeEvent(u)
  return E.isLeft(r) ? JSON.stringify(r.left) : 'decoded'
}

describe('RepeatAndSelect: codec and the number of runs', () => {
  it('round-trips (a Poisson shape as "Infinity"); names mean < 1 and shape < 0 with their values', () => {
    for (const e of [ev.repeatAndSelect(ev.gaussian(2, 1, AR), 10, 1), ev.repeatAndSelect(ev.laplace(1, 1, AR), 3.5, Infinity)])
      expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
    const inner = { _tag: 'Laplace', scale: 1, sensitivity: 1, relation: AR }
    expect(msg({ _tag: 'RepeatAndSelect', event: inner, mean: 0.5, shape: 1 })).toMatch(/\$\.mean.*0\.5|0\.5.*\$\.mean/)
    expect(msg({ _tag: 'RepeatAndSelect', event: inner, mean: 5, shape: -1 })).toMatch(/\$\.shape/)
    expect(msg({ _tag: 'RepeatAndSelect', event: { ...inner, scale: -1 }, mean: 5, shape: 1 })).toMatch(/\$\.event\.scale/)
  })

  it('γ of the truncated negative binomial from its mean: 1/μ for the geometric, the 60-digit mpmath root otherwise, on the small side', () => {
    expect(fx.provenance.script).toBe('scripts/fixtures/repeat_select.py')
    for (const g of fx.gammas) {
      const got = tnbGamma(g.shape, g.mean)
      expect(got, `η=${g.shape} μ=${g.mean}`).toBeLessThanOrEqual(g.gamma)
      expect(got / g.gamma).toBeGreaterThan(1 - 1e-8)
      expect(tnbMean(got, g.shape)).toBeGreaterThanOrEqual(g.mean * (1 - 1e-12))
    }
  })
})

describe('RepeatAndSelect in the RDP accountant (Papernot & Steinke 2022)', () => {
  it('never below, and for the truncated negative binomial within 3 % of, the mpmath bound of a Gaussian run (Thm 2 at the real optimum λ̂; Thm 6 with the exact δ̂)', () => {
    for (const c of fx.cases) {
      const shape = c.shape === 'Infinity' ? Infinity : c.shape
      const r = rdpCurve(ev.repeatAndSelect(ev.gaussian(c.m, 1, AR), c.mean, shape), AR, [c.order])
      expect(E.isRight(r)).toBe(true)
      if (E.isLeft(r)) continue
      const got = r.right[0] as number
      const tag = `m=${c.m} μ=${c.mean} η=${c.shape} λ=${c.order}`
      expect(got, tag).toBeGreaterThanOrEqual(c.rdp * (1 - 1e-4))
      if (shape !== Infinity) expect(got / c.rdp - 1, tag).toBeLessThan(0.03)
    }
  })

  it('pure runs: ε at δ = 0 is (2 + η)ε — 3ε for a geometric number of runs (Liu & Talwar 2019) — in rdp and the (ε, δ) accountants; zcdp and pld refuse', () => {
    for (const [shape, factor] of [[1, 3], [0, 2], [2.5, 4.5]] as const)
      for (const name of ['rdp', 'basic', 'advanced', 'optimal'] as const) {
        const e = epsAt(name, ev.repeatAndSelect(ev.laplace(2, 1, AR), 20, shape), 0) as number
        expect(e, `${name} η=${shape}`).toBeGreaterThanOrEqual(factor * 0.5)
        expect(e).toBeCloseTo(factor * 0.5, 9)
      }
    for (const name of ['zcdp', 'pld'] as const) {
      const run = ACCOUNTANTS[name]({ relation: AR }).run(ev.labeled('tune', ev.repeatAndSelect(ev.laplace(2, 1, AR), 20, 1)))
      expect(E.isLeft(run) && JSON.stringify(run.left), name).toMatch(/\$\.event.*RepeatAndSelect|RepeatAndSelect.*\$\.event/)
    }
    // A Poisson number of runs: ε + μ·tanh(ε/2) (Thm 6 as λ → ∞), in rdp and the (ε, δ) accountants.
    for (const name of ['rdp', 'basic', 'advanced', 'optimal'] as const) {
      const e = epsAt(name, ev.repeatAndSelect(ev.laplace(2, 1, AR), 20, Infinity), 0) as number
      expect(e, name).toBeGreaterThanOrEqual(0.5 + 20 * Math.tanh(0.25))
      expect(e / (0.5 + 20 * Math.tanh(0.25))).toBeCloseTo(1, 11)
    }
  })

  it('one run for sure (TNB with mean 1) is never accounted below the run itself (exact analytic Gaussian)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 20, noNaN: true }), fc.constantFrom(0, 1, 3), fc.constantFrom(1e-3, 1e-6), (m, shape, delta) => {
        expect(epsAt('rdp', ev.repeatAndSelect(ev.gaussian(m, 1, AR), 1, shape), delta) as number).toBeGreaterThanOrEqual(
          analyticGaussianEpsilon(m, delta) * (1 - 1e-9),
        )
      }),
      { seed: SEED, numRuns: 40 },
    )
  })

  it('monotone: more runs on average or less noise per run never lower ε', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.7, max: 20, noNaN: true }),
        fc.double({ min: 1, max: 1000, noNaN: true }),
        fc.double({ min: 1.01, max: 3, noNaN: true }),
        fc.constantFrom(0, 0.5, 1, 4, Infinity),
        (m, mean, f, shape) => {
          const e = (mm: number, mu: number): number => epsAt('rdp', ev.repeatAndSelect(ev.gaussian(mm, 1, AR), mu, shape), 1e-6) as number
          const base = e(m, mean)
          expect(e(m, mean * f)).toBeGreaterThanOrEqual(base * (1 - 1e-12))
          expect(e(m / f, mean)).toBeGreaterThanOrEqual(base * (1 - 1e-12))
        },
      ),
      { seed: SEED, numRuns: 40 },
    )
  })

  it('composition: two selections compose like SelfCompose(·, 2), and k of them multiply the curve (fixed grid)', () => {
    const acct = makeRdpAccountant({ relation: AR, orders: [2, 4, 8, 16, 32], continuous: false })
    const sel = ev.repeatAndSelect(ev.poissonSample(0.01, ev.gaussian(1, 1, AR)), 10, 1)
    const run = (e: ev.PrivacyEvent): number => {
      const s = acct.compose(e)(acct.empty)
      const a = E.isRight(s) ? acct.epsilon(1e-6)(s.right) : s
      if (E.isLeft(a)) throw new Error(JSON.stringify(a.left))
      return a.right.epsilon
    }
    expect(run(ev.compose([sel, sel]))).toBeCloseTo(run(ev.selfCompose(sel, 2)), 12)
    const c1 = rdpCurve(sel, AR, [2, 4, 8])
    const c5 = rdpCurve(ev.selfCompose(sel, 5), AR, [2, 4, 8])
    if (E.isRight(c1) && E.isRight(c5)) for (let i = 0; i < 3; i++) expect((c5.right[i] as number) / (5 * (c1.right[i] as number))).toBeCloseTo(1, 9)
  })

  it('calibrate: the largest mean number of runs with ε ≤ 4 at δ = 1e-6', () => {
    const t = decodeTemplate({
      schemaVersion: 1,
      event: { _tag: 'RepeatAndSelect', mean: '$param', shape: 1, event: { _tag: 'Gaussian', sigma: 3, sensitivity: 1, relation: AR } },
    })
    expect(E.isRight(t)).toBe(true)
    if (E.isLeft(t)) return
    const c = calibrate(t.right, { epsilon: 4, delta: 1e-6, accountant: 'rdp', tolerance: 1e-6 })
    expect(E.isRight(c)).toBe(true)
    if (E.isLeft(c)) return
    expect(c.right.direction).toBe('largest')
    expect(epsAt('rdp', ev.repeatAndSelect(ev.gaussian(3, 1, AR), c.right.value, 1), 1e-6)).toBeLessThanOrEqual(4)
    expect(epsAt('rdp', ev.repeatAndSelect(ev.gaussian(3, 1, AR), (c.right.infeasibleNeighbour as number), 1), 1e-6)).toBeGreaterThan(4)
  })
})

describe("Thm 6's δ̂ of one run (runDelta, computed once per curve)", () => {
  it('is the least rdpDeltaAtOrder over the grid, never below it and at most 1e-12 above, for random curves (∞, 0 and NaN values included) and ε', () => {
    const value = fc.oneof(
      { weight: 8, arbitrary: fc.double({ min: 0, max: 50, noNaN: true }) },
      fc.constant(Infinity),
      fc.constant(0),
      fc.constant(Number.NaN),
      fc.double({ min: 1e-300, max: 1e-10, noNaN: true }),
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 1.0001, max: 2000, noNaN: true }), value), { minLength: 1, maxLength: 160 }),
        fc.array(fc.oneof(fc.double({ min: 0, max: 60, noNaN: true }), fc.constant(Infinity)), { minLength: 1, maxLength: 8 }),
        (pairs, epsilons) => {
          const orders = pairs.map((p) => p[0]).sort((a, b) => a - b)
          const values = pairs.map((p) => p[1])
          const read = runDelta({ orders, values, pureEpsilon: Infinity })
          for (const eps of epsilons) {
            let d = 1
            for (let j = 0; j < orders.length; j++) {
              const v = rdpDeltaAtOrder(orders[j] as number, values[j] as number, eps)
              if (v < d) d = v
            }
            // The envelope reads a subset of the orders (each a valid bound): never below the loop.
            const got = read(eps)
            expect(got).toBeGreaterThanOrEqual(d)
            expect(got).toBeLessThanOrEqual(d * (1 + 1e-12))
          }
        },
      ),
      { seed: SEED, numRuns: 1000 },
    )
  })
})

/**
 * The exact privacy profile of one concrete selection, a lower bound for any accountant: the run is
 * Kairouz–Oh–Viswanath's (ε, δ) mechanism V itself (outputs 0..3: δ, (1 − δ)e^ε/(1 + e^ε),
 * (1 − δ)/(1 + e^ε), 0 on x and the reverse on x′), its outputs ranked by a score order, K geometric
 * with mean μ (pgf G(z) = γz/(1 − (1 − γ)z)). The best of K runs is at most rank j with probability
 * G(F_j), F_j the run's CDF at rank j; δ(ε′) = Σ_j (P_x(j) − e^{ε′}P_x′(j))₊, the worst over all 24
 * rankings and both directions.
 */
const exactSelectionDelta = (eps: number, delta: number, mean: number, epsOut: number, poisson = false): number => {
  const g = 1 / mean
  // A Poisson K may be 0 (nothing released, equally likely on both sides): G(F) − G(0) is then "best ≤ rank j, K ≥ 1".
  const G = (z: number): number => (poisson ? Math.exp(-mean * (1 - z)) : (g * z) / (1 - (1 - g) * z))
  const a = ((1 - delta) * Math.exp(eps)) / (1 + Math.exp(eps))
  const b = (1 - delta) / (1 + Math.exp(eps))
  const px = [delta, a, b, 0]
  const py = [0, b, a, delta]
  const perms = (xs: number[]): number[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])))
  let worst = 0
  for (const order of perms([0, 1, 2, 3]))
    for (const [p, q] of [[px, py], [py, px]] as const) {
      let fp = 0
      let fq = 0
      let d = 0
      for (const o of order) {
        const outP = G(fp + (p[o] as number)) - G(fp)
        const outQ = G(fq + (q[o] as number)) - G(fq)
        fp += p[o] as number
        fq += q[o] as number
        d += Math.max(0, outP - Math.exp(epsOut) * outQ)
      }
      worst = Math.max(worst, d)
    }
  return worst
}

describe('RepeatAndSelect of an (ε, δ) run in the (ε, δ) accountants (src/accounting/dp/selection.ts)', () => {
  const DP = ['basic', 'advanced', 'optimal'] as const

  it('exact at the stated point: ApproxDP(ε, δ) selected with a geometric mean μ is (3ε, δ/(γ + (1 − γ)δ)), and ∞ below that δ′ (basic)', () => {
    const sel = ev.repeatAndSelect(ev.approxDP(0.5, 1e-7, AR), 10, 1)
    const branch = 1e-7 / (0.1 + 0.9 * 1e-7) // 1 − E[(1 − δ)^K] for the geometric K of mean 10: 9.99999100e-7 < μδ
    for (const name of DP) {
      expect(epsAt(name, sel, branch * (1 + 1e-9)), name).toBeGreaterThanOrEqual(1.5)
      expect(epsAt(name, sel, branch * (1 + 1e-9)), name).toBeCloseTo(1.5, 9)
    }
    expect(epsAt('basic', sel, branch * (1 - 1e-9))).toBe(Infinity)
    // η = 0 (logarithmic) and η = 2.5: (2 + η)ε.
    expect(epsAt('basic', ev.repeatAndSelect(ev.approxDP(0.5, 1e-7, AR), 10, 0), 1e-6)).toBeCloseTo(1, 9)
    expect(epsAt('basic', ev.repeatAndSelect(ev.approxDP(0.5, 1e-7, AR), 10, 2.5), 1e-6)).toBeCloseTo(2.25, 9)
  })

  it('sound: never below the exact selection of the worst (ε, δ) run (all score orders), for every (ε, δ) accountant', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 2, noNaN: true }),
        fc.double({ min: 1e-8, max: 1e-3, noNaN: true }),
        fc.double({ min: 1.5, max: 200, noNaN: true }),
        fc.double({ min: 1, max: 50, noNaN: true }),
        (eps, delta, mean, slack) => {
          const target = Math.min(0.5, mean * delta * slack)
          for (const name of DP)
            for (const poisson of [false, true]) {
              const got = epsAt(name, ev.repeatAndSelect(ev.approxDP(eps, delta, AR), mean, poisson ? Infinity : 1), target) as number
              // 1e-14: the rounding of the pgf differences in the exact computation.
              expect(exactSelectionDelta(eps, delta, mean, got, poisson), `${name} ε=${eps} δ=${delta} μ=${mean} Poisson ${poisson}`).toBeLessThanOrEqual(
                target * (1 + 1e-9) + 1e-14,
              )
            }
        },
      ),
      { seed: SEED, numRuns: 60 },
    )
  })

  it('never below the pure case, and monotone in the run\'s ε, its δ and the mean number of runs', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 2, noNaN: true }),
        fc.double({ min: 1e-9, max: 1e-5, noNaN: true }),
        fc.double({ min: 1, max: 100, noNaN: true }),
        fc.double({ min: 1.01, max: 3, noNaN: true }),
        fc.constantFrom(0, 1, 2),
        fc.constantFrom(...DP),
        (eps, delta, mean, f, shape, name) => {
          const e = (ee: number, dd: number, mu: number): number => epsAt(name, ev.repeatAndSelect(ev.approxDP(ee, dd, AR), mu, shape), 1e-3) as number
          const base = e(eps, delta, mean)
          expect(base).toBeGreaterThanOrEqual((epsAt(name, ev.repeatAndSelect(ev.pureDP(eps, AR), mean, shape), 1e-3) as number) * (1 - 1e-12))
          expect(e(eps * f, delta, mean)).toBeGreaterThanOrEqual(base * (1 - 1e-12))
          expect(e(eps, delta * f, mean)).toBeGreaterThanOrEqual(base * (1 - 1e-12))
          expect(e(eps, delta, mean * f)).toBeGreaterThanOrEqual(base * (1 - 1e-12))
        },
      ),
      { seed: SEED, numRuns: 60 },
    )
  })

  it('a Gaussian run: (3ε(δ_run), δ) from its exact curve, δ_run the run δ whose branch costs δ (just above δ/μ); never below the analytic Gaussian run alone; monotone in σ and μ', () => {
    const g = ev.repeatAndSelect(ev.gaussian(4, 1, AR), 10, 1)
    const dRun = runDeltaFor(10, 1, 1e-5)
    expect(dRun).toBeGreaterThan(1e-6)
    expect(epsAt('basic', g, 1e-5)).toBeCloseTo(3 * analyticGaussianEpsilon(4, dRun), 9)
    fc.assert(
      fc.property(fc.double({ min: 0.7, max: 20, noNaN: true }), fc.double({ min: 1, max: 1000, noNaN: true }), fc.double({ min: 1.01, max: 3, noNaN: true }), (m, mean, f) => {
        const e = (mm: number, mu: number): number => epsAt('optimal', ev.repeatAndSelect(ev.gaussian(mm, 1, AR), mu, 1), 1e-5) as number
        const base = e(m, mean)
        expect(base).toBeGreaterThanOrEqual(analyticGaussianEpsilon(m, 1e-5) * (1 - 1e-12))
        expect(e(m, mean * f)).toBeGreaterThanOrEqual(base * (1 - 1e-12))
        expect(e(m / f, mean)).toBeGreaterThanOrEqual(base * (1 - 1e-12))
      }),
      { seed: SEED, numRuns: 30 },
    )
  })

  it('composes: a selection of a composed run, and several selections, through the (ε, δ) composition theorems', () => {
    const sel = ev.repeatAndSelect(ev.selfCompose(ev.gaussian(8, 1, AR), 4), 5, 1)
    const one = epsAt('optimal', sel, 1e-5) as number
    const two = epsAt('optimal', ev.selfCompose(sel, 2), 2e-5) as number
    expect(one).toBeLessThan(Infinity)
    expect(two).toBeGreaterThanOrEqual(one)
    expect(two).toBeLessThanOrEqual(2 * one * (1 + 1e-9))
  })

  it('one-directional relations read each run under add/remove (the theorems need both directions); a run stated one way only is refused', () => {
    for (const rel of [addOnly('record'), removeOnly('record')]) {
      // Leaves stated under add/remove: the same answer as under add/remove.
      const sel = ev.repeatAndSelect(ev.laplace(2, 1, AR), 20, 1)
      expect(epsAt('basic', sel, 0, rel)).toBeCloseTo(1.5, 9)
      expect(epsAt('rdp', sel, 0, rel)).toBeCloseTo(1.5, 9)
      // A run ε-DP in one direction only can select far above 3ε (src/accounting/dp/selection.ts): refused.
      for (const name of ['basic', 'rdp'] as const) {
        const r = ACCOUNTANTS[name]({ relation: rel }).run(ev.repeatAndSelect(ev.pureDP(1, rel), 100, 1))
        expect(E.isLeft(r) && JSON.stringify(r.left), `${name} ${rel.kind}`).toMatch(/add-remove|add\/remove/)
      }
    }
  })
})

describe("the selection's δ branch and the Poisson pure bound (src/accounting/dp/selection.ts)", () => {
  it('δ′ = 1 − E[(1 − δ)^K] in closed form equals the 50-digit series over the pmf (every law), never below it, never above μδ', () => {
    expect(bx.provenance.script).toBe('scripts/fixtures/selection_delta.py')
    for (const c of bx.cases) {
      const shape = c.shape === 'Infinity' ? Infinity : c.shape
      const got = selectionDelta(c.mean, shape, c.delta)
      const tag = `η=${c.shape} μ=${c.mean} δ=${c.delta}`
      expect(got, tag).toBeGreaterThanOrEqual(c.branch)
      expect(got / c.branch - 1, tag).toBeLessThan(1e-7)
      expect(got, tag).toBeLessThanOrEqual(Math.min(1, c.mean * c.delta))
    }
  })

  it('runDeltaFor inverts it: the run δ it returns keeps δ′ within the budget, at least budget/μ, and close to the largest such δ', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1000, noNaN: true }),
        fc.constantFrom(0, 0.5, 1, 3, Infinity),
        fc.double({ min: 1e-12, max: 0.9, noNaN: true }),
        (mean, shape, budget) => {
          const d = runDeltaFor(mean, shape, budget)
          expect(selectionDelta(mean, shape, d)).toBeLessThanOrEqual(budget)
          expect(d).toBeGreaterThanOrEqual((budget / mean) * (1 - 1e-14))
          if (d < 1) expect(selectionDelta(mean, shape, Math.min(1, d * (1 + 1e-6)))).toBeGreaterThan(budget * (1 - 1e-6))
        },
      ),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('Poisson: ε + μ·tanh(ε/2) is never below the exact max-divergence of the selection of binary randomized-response runs (50 digits)', () => {
    for (const c of bx.poissonPure) {
      const got = epsAt('basic', ev.repeatAndSelect(ev.pureDP(c.epsilon, AR), c.mean, Infinity), 0) as number
      expect(got, `ε=${c.epsilon} μ=${c.mean}`).toBeGreaterThanOrEqual(c.divergence)
      expect(got / c.bound).toBeCloseTo(1, 11)
      expect(epsAt('rdp', ev.repeatAndSelect(ev.pureDP(c.epsilon, AR), c.mean, Infinity), 0) as number).toBeGreaterThanOrEqual(c.divergence)
    }
  })

  it('Poisson: monotone in the run\'s ε and in μ, and composes through the (ε, δ) theorems', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 3, noNaN: true }), fc.double({ min: 1, max: 500, noNaN: true }), fc.double({ min: 1.01, max: 3, noNaN: true }), (eps, mean, f) => {
        const e = (ee: number, mu: number): number => epsAt('basic', ev.repeatAndSelect(ev.approxDP(ee, 1e-8, AR), mu, Infinity), 1e-5) as number
        const base = e(eps, mean)
        expect(e(eps * f, mean)).toBeGreaterThanOrEqual(base)
        expect(e(eps, mean * f)).toBeGreaterThanOrEqual(base)
        const two = epsAt('basic', ev.selfCompose(ev.repeatAndSelect(ev.approxDP(eps, 1e-8, AR), mean, Infinity), 2), 2e-5) as number
        expect(two).toBeCloseTo(2 * base, 9)
      }),
      { seed: SEED, numRuns: 60 },
    )
  })
})

describe('a mean of one run (truncated negative binomial): the run itself', () => {
  it("every accountant and every order answer exactly the inner event (dp_accounting's test_repeat_select_trivial)", () => {
    const g = ev.gaussian(1, 1, addRemove('record'))
    for (const shape of [0, 0.5, 1, 2]) {
      const sel = ev.repeatAndSelect(g, 1, shape)
      for (const alpha of [2, 3, 32, 1024]) {
        const r = rdpAtOrder(sel, alpha, addRemove('record'))
        const inner = rdpAtOrder(g, alpha, addRemove('record'))
        expect(E.isRight(r) && E.isRight(inner) && r.right.value === inner.right.value).toBe(true)
      }
      for (const name of ['pld', 'rdp', 'zcdp', 'optimal'] as const) {
        const a = ACCOUNTANTS[name]({ relation: addRemove('record') }).run(sel)
        const b = ACCOUNTANTS[name]({ relation: addRemove('record') }).run(g)
        if (E.isLeft(a) || E.isLeft(b)) throw new Error(`${name} refused`)
        const ea = a.right.epsilon(1e-5)
        const eb = b.right.epsilon(1e-5)
        expect(E.isRight(ea) && E.isRight(eb) && ea.right.epsilon === eb.right.epsilon).toBe(true)
      }
    }
    // A Poisson count with mean 1 is not one run (K = 0 or K ≥ 2 with positive probability): not rewritten.
    const poisson = rdpAtOrder(ev.repeatAndSelect(g, 1, Infinity), 2, addRemove('record'))
    expect(E.isRight(poisson) && poisson.right.value > 1).toBe(true)
  })
})
