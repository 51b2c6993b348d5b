/**
 * k-ary randomized response under replace-special (issue 26): ⊥ is answered uniformly, so the pair
 * is (RR(v), uniform) in both orders (normalize.ts `RandomizedResponseToUniform`), not the
 * replace-one pair (RR(v), RR(v′)) that bounds it. Checked: the RDP curve against dp_accounting's
 * replace-special values (the same pair, its closed form) and a direct sum over the k outcomes;
 * pure ε exactly the larger loss magnitude; every accountant never above its replace-one answer and
 * never below the pair's exact δ(ε) (fast-check); monotone in α.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import { rdpAtOrder } from '../../src/accounting/rdp/extreme-orders.js'
import { formatError } from '../../src/core/error.js'
import * as ev from '../../src/mechanisms/event.js'
import { replaceOne, replaceSpecial } from '../../src/mechanisms/neighbouring.js'

const RS = replaceSpecial('record')
const rr = (epsilon: number, k: number): ev.PrivacyEvent => ev.randomizedResponse(epsilon, k, RS)

const rdp = (e: ev.PrivacyEvent, alpha: number): number => {
  const r = rdpAtOrder(e, alpha, RS)
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right.value
}

/** The pair's masses: P = RR(v), U uniform. */
const pair = (epsilon: number, k: number): { readonly p: ReadonlyArray<number>; readonly u: ReadonlyArray<number> } => {
  const z = Math.exp(epsilon) + k - 1
  return { p: [Math.exp(epsilon) / z, ...Array.from({ length: k - 1 }, () => 1 / z)], u: Array.from({ length: k }, () => 1 / k) }
}

/** max over both orders of Σ max(0, A − e^ε B): the pair's exact δ(ε) for one step. */
const exactDelta = (epsilon: number, k: number, at: number): number => {
  const { p, u } = pair(epsilon, k)
  const hs = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => a.reduce((s, x, i) => s + Math.max(0, x - Math.exp(at) * (b[i] as number)), 0)
  return Math.max(hs(p, u), hs(u, p))
}

const answer = (name: (typeof ACCOUNTANT_NAMES)[number], e: ev.PrivacyEvent, relation = RS): { eps: (d: number) => number; delta: (x: number) => number } => {
  const run = ACCOUNTANTS[name]({ relation }).run(e)
  if (E.isLeft(run)) throw new Error(formatError(run.left))
  const s = run.right
  return {
    eps: (d) => {
      const a = s.epsilon(d)
      if (E.isLeft(a)) throw new Error(formatError(a.left))
      return a.right.epsilon
    },
    delta: (x) => {
      const a = s.delta(x)
      if (E.isLeft(a)) throw new Error(formatError(a.left))
      return a.right.delta
    },
  }
}

describe('randomized response under replace-special: the pair (RR(v), uniform)', () => {
  it("RDP equals dp_accounting's replace-special values (rdp_privacy_accountant_test) to 1e-11", () => {
    const cases: ReadonlyArray<readonly [number, number, number, number]> = [
      [3.1918471524802814, 10, 1.5, 1.5030552584146895],
      [3.1918471524802814, 10, 50, 1.9814516798923107],
      [5.942799375126701, 20, 2.5, 2.961541462051407],
      [5.697093486505405, 3, 1.5, 3.8513453435264653],
      [5.697093486505405, 3, 100, 4.601074578835483],
    ]
    for (const [eps, k, alpha, want] of cases) {
      const got = rdp(rr(eps, k), alpha)
      expect(got).toBeGreaterThanOrEqual(want)
      expect(got).toBeLessThanOrEqual(want * (1 + 1e-11))
    }
  })

  it('RDP is the larger order of the direct sum over the k outcomes, and monotone in α (fast-check)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 8, noNaN: true }), fc.integer({ min: 2, max: 50 }), fc.double({ min: 1.05, max: 60, noNaN: true }), (eps, k, alpha) => {
        const { p, u } = pair(eps, k)
        const d = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number =>
          Math.log(a.reduce((s, x, i) => s + x ** alpha * (b[i] as number) ** (1 - alpha), 0)) / (alpha - 1)
        const want = Math.max(d(p, u), d(u, p))
        const got = rdp(rr(eps, k), alpha)
        return got >= want * (1 - 1e-9) - 1e-12 && got <= want * (1 + 1e-8) + 1e-12 && rdp(rr(eps, k), alpha * 1.5) >= got * (1 - 1e-12)
      }),
      { numRuns: 60 },
    )
  })

  it("pure ε is the larger loss magnitude: dp_accounting's test_randomized_response gives exactly 1", () => {
    // k = 4, ε = 1.8504…: ln(k e^ε/(e^ε + 3)) = 1; k = 2, ε = 1.4899…: ln((e^ε + 1)/2) = 1.
    for (const [eps, k] of [
      [1.8504107893283401, 4],
      [1.4898801256447498, 2],
    ] as const)
      for (const name of ACCOUNTANT_NAMES) {
        const got = answer(name, rr(eps, k)).eps(0)
        if (name === 'zcdp') {
          expect(got).toBe(Infinity) // zCDP keeps no pure ε
          continue
        }
        expect(got).toBeGreaterThanOrEqual(1)
        expect(got).toBeLessThanOrEqual(1 + 1e-10)
      }
  })

  it('every accountant: never above the replace-one answer, never below the exact δ(ε) (fast-check)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 6, noNaN: true }), fc.integer({ min: 2, max: 30 }), fc.double({ min: 0, max: 4, noNaN: true }), (eps, k, at) => {
        for (const name of ['pld', 'rdp', 'optimal', 'zcdp'] as const) {
          const mine = answer(name, rr(eps, k))
          // Under replace-one the same event is accounted with its replace-one pair, a bound on this one.
          const other = answer(name, ev.randomizedResponse(eps, k, replaceOne('record')), replaceOne('record'))
          if (mine.delta(at) < exactDelta(eps, k, at) * (1 - 1e-9) - 1e-12) return false
          if (mine.eps(1e-6) > other.eps(1e-6) * (1 + 1e-9) + 1e-12) return false
        }
        return true
      }),
      { numRuns: 25 },
    )
  })
})
