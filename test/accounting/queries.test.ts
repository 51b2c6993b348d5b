/**
 * Queries once refused where an answer exists (issue 26): a Poisson rate q = 0.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import { validateEvent } from '../../src/mechanisms/codec.js'
import { rdpAtOrder } from '../../src/accounting/rdp/extreme-orders.js'
import * as ev from '../../src/mechanisms/event.js'
import { epsAt } from './eps-at.js'
import { addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const RO = replaceOne('record')


describe('Poisson rate q = 0', () => {
  it('is a valid event', () => {
    expect(E.isRight(validateEvent(ev.poissonSample(0, ev.gaussian(1, 1, AR))))).toBe(true)
    expect(E.isLeft(validateEvent(ev.poissonSample(-0.1, ev.gaussian(1, 1, AR))))).toBe(true)
  })

  it.each(ACCOUNTANT_NAMES)('%s: releases nothing (ε = 0), under either relation, nested or composed', (name) => {
    for (const relation of [AR, RO]) {
      const inner = ev.gaussian(1, 1, AR)
      expect(epsAt(name, ev.poissonSample(0, inner), 1e-5, relation)).toBe(0)
      // (an outer q = 0.5 sample is amplified under add/remove only, so the nesting is asked there)
      if (relation === AR) expect(epsAt(name, ev.selfCompose(ev.poissonSample(0.5, ev.poissonSample(0, ev.laplace(1, 1, AR))), 10), 1e-5, relation)).toBe(0)
      const other = ev.laplace(2, 1, AR)
      const alone = epsAt(name, other, 1e-5, relation)
      const withZero = epsAt(name, ev.compose([other, ev.poissonSample(0, inner)]), 1e-5, relation)
      expect(withZero).toBe(alone)
    }
  })
})

describe('the PLD method names the interval the user gave and the one used (issue 29, item 7)', () => {
  it('a coarsened grid says both', () => {
    const run = ACCOUNTANTS.pld({ relation: AR, interval: 1e-4 }).run(ev.randomizedResponse(700, 2, AR))
    if (E.isLeft(run)) throw new Error('pld')
    const a = run.right.epsilon(1e-5)
    if (E.isLeft(a)) throw new Error('pld ε')
    expect(a.right.method).toMatch(/interval 0\.000100000 requested/)
    expect(a.right.method).not.toMatch(/e\+\d{3}/)
  })
})

describe('RDP at order 1 (KL) and ∞', () => {
  const kl = (e: ev.PrivacyEvent): number => {
    const r = rdpAtOrder(e, 1, AR)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    return r.right.value
  }
  it('KL of Gaussians is μ²/2 (from above, within 1e-6), of Laplace ε + e^{−ε} − 1, of RR ε·tanh(ε/2)', () => {
    const g = ev.selfCompose(ev.gaussian(2, 1, AR), 3) // μ² = 3/4
    expect(kl(g)).toBeGreaterThanOrEqual(0.375)
    expect(kl(g)).toBeLessThanOrEqual(0.375 * (1 + 1e-6))
    // Closed forms (KL of Laplace(0, b) vs Laplace(Δ, b) with ε = Δ/b; of binary RR ε).
    for (const eps of [0.1, 1, 3]) {
      const lap = eps + Math.exp(-eps) - 1
      expect(kl(ev.laplace(1 / eps, 1, AR))).toBeGreaterThanOrEqual(lap * (1 - 1e-12))
      expect(kl(ev.laplace(1 / eps, 1, AR))).toBeLessThanOrEqual(lap * (1 + 1e-5) + 1e-12)
      const rr = eps * Math.tanh(eps / 2)
      expect(kl(ev.randomizedResponse(eps, 2, AR))).toBeGreaterThanOrEqual(rr * (1 - 1e-12))
      expect(kl(ev.randomizedResponse(eps, 2, AR))).toBeLessThanOrEqual(rr * (1 + 1e-5) + 1e-12)
    }
  })
  it('D_∞ is the pure ε (∞ for a Gaussian); orders outside [1, max] ∪ {∞} are refused', () => {
    const r = rdpAtOrder(ev.compose([ev.laplace(1, 1, AR), ev.pureDP(0.5, AR)]), Infinity, AR)
    expect(E.isRight(r) && r.right.value).toBeCloseTo(1.5, 12)
    const g = rdpAtOrder(ev.gaussian(1, 1, AR), Infinity, AR)
    expect(E.isRight(g) && g.right.value).toBe(Infinity)
    for (const a of [0.5, Number.NaN, -1]) expect(E.isLeft(rdpAtOrder(ev.gaussian(1, 1, AR), a, AR))).toBe(true)
  })
  it('is monotone: KL ≤ D_2 ≤ D_∞ on subsampled events', () => {
    const e = ev.selfCompose(ev.poissonSample(0.1, ev.laplace(1, 1, AR)), 5)
    const at = (a: number): number => {
      const r = rdpAtOrder(e, a, AR)
      if (E.isLeft(r)) throw new Error('rdp')
      return r.right.value
    }
    expect(at(1)).toBeLessThanOrEqual(at(2))
    expect(at(2)).toBeLessThanOrEqual(at(Infinity))
  })
})
