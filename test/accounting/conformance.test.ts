/**
 * Laws every registered accountant must satisfy (dp_accounting's shared conformance suite, in
 * property form). Each accountant is a sound upper bound, so the exact analytic Gaussian is an
 * oracle no accountant may undercut.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS, type RegisteredAccountant } from '../../src/accounting/registry.js'
import { analyticGaussianEpsilon } from '../../src/accounting/analytic-gaussian.js'
import { formatError } from '../../src/core/error.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'
import { arbNoiseLeaf, arbStatedLeaf } from '../../src/testing/arbitraries.js'

const REL = addRemove('record')
const SEED = 20261121

/** ε at δ, or undefined when the accountant cannot handle the event. */
const epsOf = (name: RegisteredAccountant, e: ev.PrivacyEvent, delta: number, relation = REL): number | undefined => {
  const run = ACCOUNTANTS[name]({ relation }).run(e)
  if (E.isLeft(run)) return undefined
  const a = run.right.epsilon(delta)
  return E.isRight(a) ? a.right.epsilon : undefined
}
const errorOf = (name: RegisteredAccountant, e: ev.PrivacyEvent, relation = REL): string | undefined => {
  const run = ACCOUNTANTS[name]({ relation }).run(e)
  return E.isLeft(run) ? formatError(run.left) : undefined
}

// Slack for comparing two computations of the same quantity by different routes.
const close = (a: number, b: number, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b))

describe.each(ACCOUNTANT_NAMES)('accountant %s', (name) => {
  it('gives ε = 0 for NoOp and for an empty composition, ∞ for NonPrivate', () => {
    expect(epsOf(name, ev.noOp, 1e-5)).toBe(0)
    expect(epsOf(name, ev.compose([]), 1e-5)).toBe(0)
    expect(epsOf(name, ev.selfCompose(ev.gaussian(1, 1, REL), 0), 1e-5)).toBe(0)
    expect(epsOf(name, ev.compose([ev.gaussian(1, 1, REL), ev.nonPrivate]), 1e-5)).toBe(Infinity)
  })

  it('blames a relation mismatch on the offending leaf, however deeply nested', () => {
    const bad = ev.gaussian(1, 1, replaceOne('record'))
    const tree = ev.compose([ev.noOp, ev.selfCompose(ev.labeled('step', bad), 3)])
    expect(errorOf(name, tree)).toMatch(/^\$\.events\[1\]\.event\.event: /)
  })

  it('refuses invalid queries with a message naming δ, answers δ = 1 with ε = 0', () => {
    const run = ACCOUNTANTS[name]({ relation: REL }).run(ev.gaussian(1, 1, REL))
    expect(E.isRight(run)).toBe(true)
    if (E.isRight(run)) {
      for (const d of [-1, Number.NaN, 2]) expect(E.isLeft(run.right.epsilon(d))).toBe(true)
      // δ = 1 bounds nothing: every mechanism is (0, 1)-DP (the peers answer 0; issue 26).
      const at1 = run.right.epsilon(1)
      expect(E.isRight(at1) && at1.right.epsilon).toBe(0)
      // δ = 0 asks for pure ε-DP (issue 26): answered, ∞ for a Gaussian.
      const at0 = run.right.epsilon(0)
      expect(E.isRight(at0) && at0.right.epsilon).toBe(Infinity)
    }
  })

  it('never undercuts the exact analytic Gaussian on a k-fold Gaussian (soundness oracle)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        fc.constantFrom(1e-3, 1e-5, 1e-8),
        (sigma, k, delta) => {
          const eps = epsOf(name, ev.selfCompose(ev.gaussian(sigma, 1, REL), k), delta)
          if (eps === undefined) return true
          return eps >= analyticGaussianEpsilon(sigma / Math.sqrt(k), delta) * (1 - 1e-9) - 1e-12
        },
      ),
      { seed: SEED, numRuns: 40 },
    )
  })

  it("issue 26's leaves (arbStatedLeaf): answered, never NaN, or refused with a reason; SelfCompose(e, k) equals Compose of k copies", () => {
    fc.assert(
      fc.property(arbStatedLeaf({ relation: REL }), fc.integer({ min: 1, max: 4 }), (leaf, k) => {
        const err = errorOf(name, leaf)
        if (err !== undefined) {
          expect(err).toMatch(/^\$: .{20,}/)
          return
        }
        const a = epsOf(name, ev.selfCompose(leaf, k), 1e-5)
        const b = epsOf(name, ev.compose(Array.from({ length: k }, () => leaf)), 1e-5)
        expect(a === undefined || !Number.isNaN(a)).toBe(true)
        expect(a === b || (a !== undefined && b !== undefined && close(a, b, 1e-6))).toBe(true)
      }),
      { seed: SEED, numRuns: 20 },
    )
  })

  it('SelfCompose(e, k) equals Compose of k copies', () => {
    fc.assert(
      fc.property(arbNoiseLeaf({ relation: REL }), fc.integer({ min: 1, max: 5 }), (leaf, k) => {
        const a = epsOf(name, ev.selfCompose(leaf, k), 1e-5)
        const b = epsOf(name, ev.compose(Array.from({ length: k }, () => leaf)), 1e-5)
        return a === b || (a !== undefined && b !== undefined && close(a, b, 1e-6))
      }),
      { seed: SEED, numRuns: 60 },
    )
  })

  it('is monotone: more steps and less noise never lower ε; larger δ never raises it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.6, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 300 }),
        (sigma, k1, k2) => {
          const [lo, hi] = k1 <= k2 ? [k1, k2] : [k2, k1]
          const g = (s: number, k: number, d = 1e-5) => epsOf(name, ev.selfCompose(ev.gaussian(s, 1, REL), k), d)
          const a = g(sigma, lo)
          const b = g(sigma, hi)
          const c = g(sigma * 1.25, hi)
          const d = g(sigma, hi, 1e-3)
          if (a === undefined || b === undefined || c === undefined || d === undefined) return true
          return a <= b * (1 + 1e-9) && c <= b * (1 + 1e-9) && d <= b * (1 + 1e-9)
        },
      ),
      { seed: SEED, numRuns: 40 },
    )
  })

  it('never gains from subsampling the wrong way: ε(PoissonSample(q, e)) ≤ ε(e), monotone in q', () => {
    fc.assert(
      fc.property(arbNoiseLeaf({ relation: REL }), fc.double({ min: 0.001, max: 1, noNaN: true }), fc.integer({ min: 1, max: 50 }), (leaf, q, k) => {
        const full = epsOf(name, ev.selfCompose(leaf, k), 1e-5)
        const sub = epsOf(name, ev.selfCompose(ev.poissonSample(q, leaf), k), 1e-5)
        const half = epsOf(name, ev.selfCompose(ev.poissonSample(q / 2, leaf), k), 1e-5)
        if (full === undefined || sub === undefined) return true
        return sub <= full * (1 + 1e-9) + 1e-12 && (half === undefined || half <= sub * (1 + 1e-9) + 1e-12)
      }),
      { seed: SEED, numRuns: 60 },
    )
  })
})

describe('accountants agree where theory says they must', () => {
  it('RDP and zCDP agree on Gaussians: the RDP grid optimum is within 2% above the continuous zCDP optimum', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 30, noNaN: true }), fc.integer({ min: 1, max: 1000 }), (sigma, k) => {
        const e = ev.selfCompose(ev.gaussian(sigma, 1, REL), k)
        const rdp = epsOf('rdp', e, 1e-5) as number
        const zc = epsOf('zcdp', e, 1e-5) as number
        return zc <= rdp * (1 + 1e-9) && rdp <= zc * 1.02 + 1e-9
      }),
      { seed: SEED, numRuns: 60 },
    )
  })
})
