/**
 * Stated RDP curves and stated privacy profiles (issue 26 item 3): read only upward between stated
 * points (van Erven & Harremoës 2014: monotone, (α − 1)D_α convex), the profile by its inverse.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../../src/accounting/registry.js'
import { makeRdpAccountant } from '../../../src/accounting/rdp/accountant.js'
import { rdpEpsilonAtOrder } from '../../../src/accounting/conversions.js'
import { analyticGaussianDelta, analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import { laplaceRdp } from '../../../src/accounting/rdp/closed-forms.js'
import { sortedCurve, statedRdpAt } from '../../../src/accounting/stated.js'
import { calibrate, decodeTemplate } from '../../../src/accounting/calibrate.js'
import { decodeEvent, encodeEvent } from '../../../src/mechanisms/codec.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { epsAt } from '../eps-at.js'
import { profilePair } from '../../../src/accounting/pld/profile-pair.js'
import type { DiscretePair } from '../../../src/accounting/pld/pairs.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const SEED = 26_003
const EPS = Number.EPSILON

const gaussCurve = (sigma: number, orders: ReadonlyArray<number>) => ev.statedRdp(orders, orders.map((a) => a / (2 * sigma * sigma)), AR)
const msg = (u: unknown): string => {
  const r = decodeEvent(u)
  return E.isLeft(r) ? JSON.stringify(r.left) : 'decoded'
}

describe('StatedRdp: reading between orders', () => {
  it('closed forms: the stated value at a stated order, the convex chord between, monotone below, ∞ above', () => {
    // Gaussian σ = 2: r(α) = α/8 stated at 4 and 8. At α = 6 the chord of (α − 1)r is
    // (2·3·0.5 + 2·7·1)/(4·5) = 0.85 (true value 0.75, the monotone bound 1).
    const c = sortedCurve([8, 4], [1, 0.5])
    expect(statedRdpAt(c, 4)).toEqual({ value: 0.5, rule: 'stated' })
    const mid = statedRdpAt(c, 6)
    expect(mid.rule).toBe('convex')
    expect(mid.value).toBeGreaterThanOrEqual(0.85)
    expect(mid.value / 0.85 - 1).toBeLessThan(1e-14)
    expect(statedRdpAt(c, 2)).toEqual({ value: 0.5, rule: 'monotone' })
    expect(statedRdpAt(c, 8.5)).toEqual({ value: Infinity, rule: 'beyond' })
    // A non-monotone statement: the larger order's smaller bound holds below it too.
    expect(statedRdpAt(sortedCurve([2, 3], [1, 0.2]), 2).value).toBe(0.2)
  })

  it('never below the true curve of a mechanism that meets the statement (Gaussian, Laplace), at any order', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.3, max: 20, noNaN: true }),
        fc.uniqueArray(fc.double({ min: 1.01, max: 200, noNaN: true }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 1.001, max: 250, noNaN: true }),
        (s, orders, alpha) => {
          const g = statedRdpAt(sortedCurve(orders, orders.map((a) => a / (2 * s * s))), alpha).value
          expect(g).toBeGreaterThanOrEqual((alpha / (2 * s * s)) * (1 - 4 * EPS))
          const l = statedRdpAt(sortedCurve(orders, orders.map((a) => laplaceRdp(s, a))), alpha).value
          expect(l).toBeGreaterThanOrEqual(laplaceRdp(s, alpha) * (1 - 1e-12))
        },
      ),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('more stated orders never raise the bound; a larger stated value never lowers it', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.double({ min: 1.01, max: 100, noNaN: true }), { minLength: 2, maxLength: 6 }),
        fc.double({ min: 1.01, max: 100, noNaN: true }),
        fc.double({ min: 1.001, max: 100, noNaN: true }),
        (orders, extra, alpha) => {
          const r = orders.map((a) => Math.sqrt(a))
          const base = statedRdpAt(sortedCurve(orders, r), alpha).value
          expect(statedRdpAt(sortedCurve([...orders, extra], [...r, Math.sqrt(extra)]), alpha).value).toBeLessThanOrEqual(base)
          expect(statedRdpAt(sortedCurve(orders, r.map((x, i) => (i === 0 ? x * 2 : x))), alpha).value).toBeGreaterThanOrEqual(base)
        },
      ),
      { seed: SEED, numRuns: 300 },
    )
  })
})

describe('StatedRdp in the accountants', () => {
  it('codec: round-trips; names the field and value of a bad order, a negative value, mismatched lists', () => {
    const e = ev.statedRdp([2, 4, 'Infinity' as unknown as number].slice(0, 2), [0.1, 0.3], AR)
    expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
    expect(msg({ _tag: 'StatedRdp', orders: [2, 1], rdp: [0.1, 0.1], relation: AR })).toMatch(/\$\.orders\[1\]/)
    expect(msg({ _tag: 'StatedRdp', orders: [2, 3], rdp: [0.1, -0.5], relation: AR })).toMatch(/\$\.rdp\[1\].*-0\.5|-0\.5.*\$\.rdp\[1\]/)
    expect(msg({ _tag: 'StatedRdp', orders: [2, 3], rdp: [0.1], relation: AR })).toMatch(/\$\.rdp/)
    expect(msg({ _tag: 'StatedRdp', orders: [], rdp: [], relation: AR })).toMatch(/\$\.orders/)
  })

  it('rdp at a stated order is exactly the CKS conversion of the stated value (continuous search off)', () => {
    const acct = makeRdpAccountant({ relation: AR, orders: [6], continuous: false })
    const s = acct.compose(ev.statedRdp([2, 6, 30], [0.2, 0.9, 4], AR))(acct.empty)
    const a = E.isRight(s) ? acct.epsilon(1e-5)(s.right) : s
    expect(E.isRight(a)).toBe(true)
    if (E.isRight(a)) expect(a.right.epsilon / rdpEpsilonAtOrder(6, 0.9, 1e-5) - 1).toBeLessThan(1e-12)
  })

  it('SelfCompose multiplies the stated curve (RDP composition, Mironov 2017, Prop. 1)', () => {
    const acct = makeRdpAccountant({ relation: AR, orders: [2, 6, 30], continuous: false })
    const k = acct.compose(ev.selfCompose(ev.statedRdp([2, 6, 30], [0.2, 0.9, 4], AR), 7))(acct.empty)
    const once = acct.compose(ev.statedRdp([2, 6, 30], [1.4, 6.3, 28], AR))(acct.empty)
    expect(E.isRight(k) && E.isRight(once)).toBe(true)
    if (E.isRight(k) && E.isRight(once)) {
      const ek = acct.epsilon(1e-6)(k.right)
      const e1 = acct.epsilon(1e-6)(once.right)
      expect(E.isRight(ek) && E.isRight(e1) && Math.abs(ek.right.epsilon / e1.right.epsilon - 1)).toBeLessThan(1e-12)
    }
  })

  it.each(['rdp', 'basic', 'advanced', 'optimal'] as const)('%s: never below the exact ε of the Gaussian whose curve is stated; zcdp and pld refuse', (name) => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 10, noNaN: true }), fc.integer({ min: 1, max: 50 }), fc.constantFrom(1e-4, 1e-7), (sigma, k, delta) => {
        const orders = [1.5, 2, 3, 5, 8, 12, 20, 32, 64, 128, 256]
        const eps = epsAt(name, ev.selfCompose(gaussCurve(sigma, orders), k), delta) as number
        // k Gaussians of multiplier σ are one of multiplier σ/√k (exact, Balle & Wang 2018).
        expect(eps).toBeGreaterThanOrEqual(analyticGaussianEpsilon(sigma / Math.sqrt(k), delta) * (1 - 1e-9))
      }),
      { seed: SEED, numRuns: 25 },
    )
    for (const refusing of ['zcdp', 'pld'] as const) expect(epsAt(refusing, gaussCurve(2, [2, 4]), 1e-5)).toBeUndefined()
  })

  it('a stated curve under add/remove is not converted to replace-one (refused with the path)', () => {
    const run = ACCOUNTANTS.rdp({ relation: RO }).run(ev.labeled('x', gaussCurve(2, [2, 4])))
    expect(E.isLeft(run) && JSON.stringify(run.left)).toMatch(/\$\.event.*stated RDP curve/)
  })

  it('calibrate finds the largest number of repetitions of a stated curve within budget', () => {
    const t = decodeTemplate({ schemaVersion: 1, event: { _tag: 'SelfCompose', count: '$param', event: { _tag: 'StatedRdp', orders: [2, 8, 32], rdp: [0.01, 0.04, 0.16], relation: AR } } })
    expect(E.isRight(t)).toBe(true)
    if (E.isLeft(t)) return
    const c = calibrate(t.right, { epsilon: 2, delta: 1e-6, accountant: 'rdp' })
    expect(E.isRight(c)).toBe(true)
    if (E.isLeft(c)) return
    expect(epsAt('rdp', ev.selfCompose(ev.statedRdp([2, 8, 32], [0.01, 0.04, 0.16], AR), c.right.value), 1e-6)).toBeLessThanOrEqual(2)
    expect(epsAt('rdp', ev.selfCompose(ev.statedRdp([2, 8, 32], [0.01, 0.04, 0.16], AR), c.right.value + 1), 1e-6)).toBeGreaterThan(2)
  })
})

describe('StatedProfile', () => {
  const prof = ev.statedProfile([1, 2, 3], [1e-3, 1e-6, 1e-9], AR)

  it('codec: round-trips; names δ > 1 and mismatched lists', () => {
    expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(prof))))).toEqual(E.right(prof))
    expect(msg({ _tag: 'StatedProfile', epsilons: [1], deltas: [1.5], relation: AR })).toMatch(/\$\.deltas\[0\].*1\.5|1\.5.*\$\.deltas\[0\]/)
    expect(msg({ _tag: 'StatedProfile', epsilons: [1, 2], deltas: [0.1], relation: AR })).toMatch(/\$\.deltas/)
  })

  it('ε at δ is the profile inverse: the least ε_i with δ_i ≤ δ (on the boundary too), ∞ below every δ_i', () => {
    for (const name of ['basic', 'advanced', 'optimal'] as const) {
      // (The accountants round their answers up by a relative 1e-12.)
      for (const [d, e] of [[1e-5, 2], [1e-6, 2], [1e-9, 3]] as const) {
        expect(epsAt(name, prof, d)).toBeGreaterThanOrEqual(e)
        expect(epsAt(name, prof, d)).toBeCloseTo(e, 10)
      }
      expect(epsAt(name, prof, 1e-10)).toBe(Infinity)
      const d = ACCOUNTANTS[name]({ relation: AR }).run(prof)
      const at2 = E.isRight(d) ? d.right.delta(2) : d
      expect(E.isRight(at2) && at2.right.delta).toBeLessThanOrEqual(1e-6 * (1 + 1e-9))
    }
  })

  it('rdp, zcdp refuse without a point at δ = 0 and take the pure point when there is one; pld takes several points', () => {
    for (const name of ['rdp', 'zcdp'] as const) expect(epsAt(name, prof, 1e-5), name).toBeUndefined()
    const withPure = ev.statedProfile([1, 5], [1e-3, 0], AR)
    // At δ = 0 each answers as it answers the stated PureDP(5) (zcdp: ∞, ρ-zCDP keeps no pure ε).
    for (const name of ACCOUNTANT_NAMES)
      if (name !== 'pld') expect(epsAt(name, withPure, 0), name).toBe(epsAt(name, ev.pureDP(5, AR), 0))
    // The PLD of the envelope keeps the pure point's largest loss (its log-slope, read back from masses),
    // up to the PLD's pessimistic loss grid.
    expect(epsAt('pld', withPure, 0) as number).toBeGreaterThanOrEqual(5)
    expect(epsAt('pld', withPure, 0) as number).toBeLessThanOrEqual(5 * (1 + 1e-4))
    expect(epsAt('rdp', withPure, 0)).toBe(5)
    for (const name of ACCOUNTANT_NAMES) expect(epsAt(name, ev.statedProfile([1], [1e-6], AR), 1e-5)).toBe(epsAt(name, ev.approxDP(1, 1e-6, AR), 1e-5))
  })

  it('under replace-one every point gets group privacy for 2, as a stated (ε, δ) does', () => {
    for (const name of ['basic', 'pld'] as const)
      expect(epsAt(name, ev.statedProfile([1], [1e-7], AR), 1e-5, RO)).toBe(epsAt(name, ev.approxDP(1, 1e-7, AR), 1e-5, RO))
  })

  it.each(['basic', 'advanced', 'optimal'] as const)('%s: never below the exact ε of a Gaussian whose profile points are stated, and composition never lowers ε', (name) => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 5, noNaN: true }), fc.constantFrom(1e-3, 1e-6), (m, delta) => {
        const eps = [0.25, 0.5, 1, 2, 4, 8]
        const p = ev.statedProfile(eps, eps.map((e) => Math.min(1, analyticGaussianDelta(m, e) * (1 + 1e-9))), AR)
        const one = epsAt(name, p, delta) as number
        expect(one).toBeGreaterThanOrEqual(analyticGaussianEpsilon(m, delta) * (1 - 1e-9))
        expect(epsAt(name, ev.selfCompose(p, 3), delta) as number).toBeGreaterThanOrEqual(one)
      }),
      { seed: SEED, numRuns: 25 },
    )
  })
})

/** The pair's own hockey stick H_{e^ε} = Σ p(1 − e^{ε − L})₊ (its exact δ(ε)). */
const pairDelta = (pair: DiscretePair, eps: number): number =>
  pair.atoms.reduce((acc, a) => acc + (a.loss === Infinity ? a.p : a.loss > eps ? a.p * -Math.expm1(eps - a.loss) : 0), 0)

/**
 * The largest δ(ε) of any mechanism with this profile, independently of the module: f = max_i f_i
 * (f_{ε,δ} of Dong, Roth & Su 2022, Prop. 2.5), δ(ε) = sup_α 1 − f(α) − e^ε α, the sup of a concave
 * piecewise-linear function, attained at a kink: every pairwise intersection of the lines is tried.
 */
const envelopeDelta = (epsilons: ReadonlyArray<number>, deltas: ReadonlyArray<number>, eps: number): number => {
  const lines: Array<[number, number]> = [[0, 0]]
  epsilons.forEach((e, i) => {
    const d = deltas[i] as number
    lines.push([1 - d, Math.exp(e)], [Math.exp(-e) * (1 - d), Math.exp(-e)])
  })
  const f = (x: number): number => Math.max(...lines.map(([a, sl]) => a - sl * x))
  const xs = [0, 1]
  for (const [a1, s1] of lines) for (const [a2, s2] of lines) if (s1 !== s2) xs.push((a1 - a2) / (s1 - s2))
  return Math.max(0, ...xs.filter((x) => x >= 0 && x <= 1).map((x) => 1 - f(x) - Math.exp(eps) * x))
}

describe('StatedProfile in the PLD accountant: the pair of the f-DP envelope (src/accounting/pld/profile-pair.ts)', () => {
  const profiles = fc
    .array(fc.tuple(fc.double({ min: 0, max: 5, noNaN: true }), fc.double({ min: 1e-9, max: 0.2, noNaN: true })), { minLength: 2, maxLength: 6 })
    .map((pts) => ({ epsilons: pts.map((p) => p[0]), deltas: pts.map((p) => p[1]) }))

  it('one point is Kairouz–Oh–Viswanath\'s pair: the same δ(ε) as ApproxDP', () => {
    const pair = profilePair([1, 1], [1e-6, 1e-6]) as DiscretePair
    for (const e of [0, 0.5, 1, 2]) expect(pairDelta(pair, e)).toBeCloseTo(envelopeDelta([1], [1e-6], e), 12)
    expect(pairDelta(pair, 1)).toBeLessThanOrEqual(1e-6 * (1 + 1e-9) + 1e-13)
  })

  it('sound and exact: never below the worst mechanism with the profile, and (ε_i, δ_i)-DP at each stated point (fast-check)', () => {
    fc.assert(
      fc.property(profiles, fc.double({ min: 0, max: 6, noNaN: true }), ({ epsilons, deltas }, eps) => {
        const pair = profilePair(epsilons, deltas) as DiscretePair
        expect(pair.atoms.reduce((a, x) => a + x.p, 0)).toBeCloseTo(1, 12)
        expect(pairDelta(pair, eps)).toBeGreaterThanOrEqual(envelopeDelta(epsilons, deltas, eps) - 1e-15)
        epsilons.forEach((e, i) => expect(pairDelta(pair, e), `point ${i}`).toBeLessThanOrEqual((deltas[i] as number) * (1 + 1e-9) + 1e-13))
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('the PLD accountant: ε(δ_i) ≤ ε_i, a redundant point changes nothing, and k-fold composition is never above any point alone composed k-fold', () => {
    const p3 = ev.statedProfile([1, 2, 3], [1e-3, 1e-6, 1e-9], AR)
    for (const [d, e] of [[1e-3, 1], [1e-6, 2], [1e-9, 3]] as const) expect(epsAt('pld', p3, d * (1 + 1e-4)) as number).toBeLessThanOrEqual(e * (1 + 1e-3))
    // (1, 1e-6) implies (2, 1e-6) and (1, 1e-5): the envelope is the one point's.
    const redundant = ev.statedProfile([1, 2, 1], [1e-6, 1e-6, 1e-5], AR)
    expect(epsAt('pld', ev.selfCompose(redundant, 10), 1e-5) as number).toBeCloseTo(epsAt('pld', ev.selfCompose(ev.approxDP(1, 1e-6, AR), 10), 1e-5) as number, 3)
    for (const k of [1, 10, 100]) {
      const multi = epsAt('pld', ev.selfCompose(p3, k), 1e-4) as number
      for (const [e, d] of [[1, 1e-3], [2, 1e-6], [3, 1e-9]] as const)
        expect(multi, `k=${k} (${e}, ${d})`).toBeLessThanOrEqual((epsAt('pld', ev.selfCompose(ev.approxDP(e, d, AR), k), 1e-4) as number) * (1 + 1e-3))
    }
  })

  it('never below the exact ε of a Gaussian whose profile points are stated, alone or composed (the Gaussian has the profile)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 5, noNaN: true }), fc.constantFrom(1, 4), fc.constantFrom(1e-3, 1e-6), (m, k, delta) => {
        const eps = [0.25, 0.5, 1, 2, 4, 8]
        const p = ev.statedProfile(eps, eps.map((e) => Math.min(1, analyticGaussianDelta(m, e) * (1 + 1e-9))), AR)
        expect(epsAt('pld', ev.selfCompose(p, k), delta) as number).toBeGreaterThanOrEqual(analyticGaussianEpsilon(m / Math.sqrt(k), delta) * (1 - 1e-9))
      }),
      { seed: SEED, numRuns: 20 },
    )
  })
})
