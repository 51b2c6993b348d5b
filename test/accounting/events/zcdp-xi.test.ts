/**
 * (ξ, ρ)-zCDP (Bun & Steinke 2016, Def. 1.1: D_α ≤ ξ + ρα), issue 26: the optional `xi` of a ZCDP
 * event, in the zcdp, rdp and (ε, δ) accountants; the PLD accountant refuses it when ρ > 0 and takes
 * (ξ, 0) as the pure ξ-DP guarantee it is.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../../src/accounting/registry.js'
import { zcdpFilter } from '../../../src/accounting/filter/filter.js'
import { zcdpEpsilonClassic, zcdpEpsilonTightAt, zcdpToDelta, zcdpToEpsilon } from '../../../src/accounting/zcdp/conversion.js'
import { makeZcdpAccountant } from '../../../src/accounting/zcdp/accountant.js'
import { rdpCurve } from '../../../src/accounting/rdp/curve.js'
import { decodeEvent, encodeEvent } from '../../../src/mechanisms/codec.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { epsAt } from '../eps-at.js'
import { calibrate, decodeTemplate } from '../../../src/accounting/calibrate.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const SEED = 26_001

interface ZcdpFixture {
  readonly epsilon: ReadonlyArray<{ rho: number; delta: number; tight: number; order: number | null; classic: number }>
}
// 60-digit mpmath optimum of the CKS conversion of ρ-zCDP (scripts/fixtures/zcdp.py).
const fx = JSON.parse(readFileSync(new URL('../../fixtures/zcdp.json', import.meta.url), 'utf8')) as ZcdpFixture

describe('(ξ, ρ)-zCDP: codec', () => {
  it('round-trips with and without ξ, and refuses ξ < 0 or NaN naming the field and value', () => {
    for (const e of [ev.zcdp(0.3, AR), ev.zcdp(0.3, AR, { xi: 0.1 })])
      expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
    const bad = decodeEvent({ _tag: 'ZCDP', rho: 0.3, xi: -1, relation: AR })
    expect(E.isLeft(bad) && JSON.stringify(bad.left)).toMatch(/\$\.xi.*-1|-1.*\$\.xi/)
    const str = decodeEvent({ _tag: 'ZCDP', rho: 0.3, xi: 'a', relation: AR })
    expect(E.isLeft(str) && JSON.stringify(str.left)).toMatch(/xi/)
  })
})

describe('(ξ, ρ)-zCDP → (ε, δ) (Bun & Steinke 2016, Prop. 1.3; CKS 2020, Prop. 12)', () => {
  it('classic is ξ + ρ + 2√(ρ log(1/δ))', () => {
    expect(zcdpEpsilonClassic(0.5, 1e-5, 0.2)).toBeCloseTo(0.2 + 0.5 + 2 * Math.sqrt(0.5 * Math.log(1e5)), 14)
  })

  it('tight ε is ξ plus the mpmath optimum for ρ alone (ξ does not move the optimal order), never below it', () => {
    for (const c of fx.epsilon) {
      if (c.order === null || c.tight === 0) continue // Bretagnolle–Huber cases depend on ξ + αρ, not on the optimum
      for (const xi of [0.01, 0.5, 3]) {
        const got = zcdpEpsilonTightAt(c.rho, c.delta, xi).epsilon
        expect(got, `ρ=${c.rho} δ=${c.delta} ξ=${xi}`).toBeGreaterThanOrEqual((xi + c.tight) * (1 - 1e-15))
        expect(Math.abs(got - (xi + c.tight)) / (xi + c.tight)).toBeLessThan(1e-10)
      }
    }
  })

  it('ρ = 0 is pure ξ-DP: ε = ξ at every δ, δ = 0 at ε ≥ ξ', () => {
    expect(zcdpToEpsilon(0, 1e-9, 0.7).epsilon).toBe(0.7)
    expect(zcdpToDelta(0, 0.7, 0.7).delta).toBe(0)
    expect(zcdpToDelta(0, 0.5, 0.7).delta).toBeGreaterThan(0)
  })

  it('δ(ε) with ξ is δ(ε − ξ) without it (the same conversion shifted), for ε > ξ', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 5, noNaN: true }), fc.double({ min: 0, max: 2, noNaN: true }), fc.double({ min: 0.1, max: 20, noNaN: true }), (rho, xi, gap) => {
        const shifted = zcdpToDelta(rho, xi + gap, xi).delta
        const plain = zcdpToDelta(rho, gap).delta
        // The Bretagnolle–Huber cap (on ξ + αρ) can only be larger with ξ: never below the shifted δ.
        expect(shifted).toBeGreaterThanOrEqual(plain * (1 - 1e-9))
      }),
      { seed: SEED, numRuns: 100 },
    )
  })
})

describe('(ξ, ρ)-zCDP in the accountants', () => {
  it('zcdp: (ξ, ρ) compose by adding both (Lemma 1.7), SelfCompose multiplies both', () => {
    const acct = makeZcdpAccountant({ relation: AR })
    const s = acct.compose(ev.compose([ev.zcdp(0.1, AR, { xi: 0.2 }), ev.selfCompose(ev.zcdp(0.05, AR, { xi: 0.01 }), 4), ev.gaussian(2, 1, AR)]))(acct.empty)
    expect(E.isRight(s) && s.right.xi).toBeCloseTo(0.2 + 4 * 0.01, 15)
    expect(E.isRight(s) && s.right.rho).toBeCloseTo(0.1 + 4 * 0.05 + 1 / 8, 15)
  })

  it('rdp: the curve is ξ + ρα (rounded up by the closed-form margin)', () => {
    const c = rdpCurve(ev.zcdp(0.25, AR, { xi: 0.3 }), AR, [1.5, 2, 10, 100])
    expect(E.isRight(c)).toBe(true)
    if (E.isRight(c)) [1.5, 2, 10, 100].forEach((a, i) => expect((c.right[i] as number) / (0.3 + 0.25 * a) - 1).toBeLessThan(2e-13))
  })

  it('pld refuses ρ > 0 naming the path; every other accountant answers', () => {
    for (const name of ACCOUNTANT_NAMES) {
      const run = ACCOUNTANTS[name]({ relation: AR }).run(ev.labeled('tuning', ev.zcdp(0.2, AR, { xi: 0.1 })))
      if (name === 'pld') expect(E.isLeft(run) && JSON.stringify(run.left)).toMatch(/\$\.event.*zCDP|zCDP.*\$\.event/)
      else expect(E.isRight(run), name).toBe(true)
    }
  })

  it.each(ACCOUNTANT_NAMES)('%s: (ξ, 0)-zCDP is answered as pure ξ-DP (ε = ξ at δ = 0 and at δ > 0)', (name) => {
    expect(epsAt(name, ev.zcdp(0, AR, { xi: 0.8 }), 0)).toBeCloseTo(0.8, 9)
    // At δ > 0 the exact ε of ε-DP's dominating pair, RR(ξ), is log(e^ξ − δ(1 + e^ξ)), just under ξ.
    expect(epsAt(name, ev.zcdp(0, AR, { xi: 0.8 }), 1e-6)).toBeGreaterThanOrEqual(Math.log(Math.exp(0.8) - 1e-6 * (1 + Math.exp(0.8))) - 1e-9)
    expect(epsAt(name, ev.zcdp(0, AR, { xi: 0.8 }), 1e-6)).toBeLessThanOrEqual(0.8 + 1e-6)
  })

  it('a (ξ, ρ) guarantee with ξ > 0 is not converted from add/remove to replace-one (refused naming the path)', () => {
    const run = ACCOUNTANTS.zcdp({ relation: RO }).run(ev.zcdp(0.2, AR, { xi: 0.1 }))
    expect(E.isLeft(run) && JSON.stringify(run.left)).toMatch(/ξ = 0\.1/)
    expect(E.isRight(ACCOUNTANTS.zcdp({ relation: RO }).run(ev.zcdp(0.2, AR)))).toBe(true)
  })

  it('the zCDP filter (which budgets ρ only) refuses ξ > 0', () => {
    const f = zcdpFilter({ relation: AR, epsilon: 5, delta: 1e-6 })
    expect(E.isRight(f)).toBe(true)
    if (E.isRight(f)) {
      const r = f.right.admit(ev.zcdp(0.01, AR, { xi: 0.1 }))
      expect(E.isLeft(r) && r.left.message).toMatch(/ξ = 0\.1/)
      expect(E.isRight(f.right.admit(ev.zcdp(0.01, AR)))).toBe(true)
    }
  })

  const answering = ACCOUNTANT_NAMES.filter((n) => n !== 'pld')
  it.each(answering)('%s: monotone in ξ and ρ, never below a mechanism that meets the guarantee', (name) => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 2, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(1e-3, 1e-6, 1e-9),
        (rho, xi, dxi, delta) => {
          const e0 = epsAt(name, ev.zcdp(rho, AR, { xi }), delta) as number
          const e1 = epsAt(name, ev.zcdp(rho, AR, { xi: xi + dxi }), delta) as number
          const e2 = epsAt(name, ev.zcdp(rho * 1.5, AR, { xi }), delta) as number
          expect(e1).toBeGreaterThanOrEqual(e0 * (1 - 1e-12))
          expect(e2).toBeGreaterThanOrEqual(e0 * (1 - 1e-12))
          // A mechanism that meets (ξ, ρ)-zCDP: the Gaussian with ρ = 1/(2σ²) composed with binary
          // randomized response RR(ξ) (D_α ≤ ρα + ξ). Its PLD lower estimate is below its true ε, so a sound
          // answer for the stated guarantee is never below it.
          const pld = ACCOUNTANTS.pld({ relation: AR }).run(ev.compose([ev.gaussian(1 / Math.sqrt(2 * rho), 1, AR), ev.randomizedResponse(xi, 2, AR)]))
          if (xi > 0 && E.isRight(pld)) {
            const a = pld.right.epsilon(delta)
            if (E.isRight(a)) expect(e0).toBeGreaterThanOrEqual(a.right.lower ?? 0)
          }
        },
      ),
      { seed: SEED, numRuns: 10 },
    )
  })
})

describe('(ξ, ρ)-zCDP through calibrate', () => {
  it('finds the largest ξ with ε ≤ 3 at δ = 1e-6 for ρ = 0.1: ξ = 3 minus the ρ-alone ε', () => {
    const t = decodeTemplate({ schemaVersion: 1, event: { _tag: 'ZCDP', rho: 0.1, xi: '$param', relation: AR } })
    expect(E.isRight(t)).toBe(true)
    if (E.isLeft(t)) return
    const c = calibrate(t.right, { epsilon: 3, delta: 1e-6, accountant: 'zcdp', tolerance: 1e-9 })
    expect(E.isRight(c)).toBe(true)
    if (E.isLeft(c)) return
    expect(c.right.direction).toBe('largest')
    expect(c.right.value).toBeCloseTo(3 - zcdpToEpsilon(0.1, 1e-6).epsilon, 6)
  })
})
