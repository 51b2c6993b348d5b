/**
 * Stated (ε, δ) steps in the RDP and zCDP accountants (src/accounting/approx-split.ts, issue 26):
 * accounted as ε-DP with δ kept aside, δ(ε) = 1 − (1 − η)(1 − δ_pure(ε)). Checked against the PLD
 * accountant's lower end (a lower bound on the true ε of the worst pairs, which for ApproxDP are
 * Kairouz–Oh–Viswanath's and for a Gaussian exact), the revealing mass η, and monotonicity.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANTS } from '../../src/accounting/registry.js'
import { formatError } from '../../src/core/error.js'
import * as ev from '../../src/mechanisms/event.js'
import { addOnly, addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const SEED = 20261128

const run = (name: 'rdp' | 'zcdp' | 'pld', e: ev.PrivacyEvent, relation = AR) => {
  const r = ACCOUNTANTS[name]({ relation }).run(e)
  if (E.isLeft(r)) throw new Error(`${name} refused: ${JSON.stringify(r.left)}`)
  return r.right
}
const eps = (name: 'rdp' | 'zcdp' | 'pld', e: ev.PrivacyEvent, d: number, relation = AR): number => {
  const a = run(name, e, relation).epsilon(d)
  if (E.isLeft(a)) throw new Error('query refused')
  return a.right.epsilon
}

const arbCase = fc.record({
  sigma: fc.double({ min: 0.5, max: 8, noNaN: true }),
  k: fc.integer({ min: 1, max: 20 }),
  e0: fc.double({ min: 0, max: 2, noNaN: true }),
  d0: fc.double({ min: 1e-9, max: 1e-3, noNaN: true }),
  reps: fc.integer({ min: 1, max: 5 }),
})
const eventOf = (c: { sigma: number; k: number; e0: number; d0: number; reps: number }) =>
  ev.compose([ev.selfCompose(ev.gaussian(c.sigma, 1, AR), c.k), ev.selfCompose(ev.approxDP(c.e0, c.d0, AR), c.reps)])

describe('ApproxDP in the RDP and zCDP accountants', () => {
  it('never below the PLD lower end (fast-check)', () => {
    fc.assert(
      fc.property(arbCase, fc.constantFrom(1e-2, 1e-3), (c, d) => {
        const e = eventOf(c)
        const p = run('pld', e).epsilon(d)
        if (E.isLeft(p) || p.right.lower === undefined) return true
        for (const name of ['rdp', 'zcdp'] as const) expect(eps(name, e, d), name).toBeGreaterThanOrEqual(p.right.lower * (1 - 1e-9) - 1e-12)
        return true
      }),
      { seed: SEED, numRuns: 15 },
    )
  })

  it('δ(ε) ≥ η = 1 − (1 − δ₀)^reps at every ε, and ε = ∞ below η (fast-check)', () => {
    fc.assert(
      fc.property(arbCase, fc.double({ min: 0, max: 30, noNaN: true }), (c, x) => {
        const eta = -Math.expm1(c.reps * Math.log1p(-c.d0))
        for (const name of ['rdp', 'zcdp'] as const) {
          const s = run(name, eventOf(c))
          const d = s.delta(x)
          expect(E.isRight(d) && d.right.delta >= eta * (1 - 1e-12)).toBe(true)
          const below = s.epsilon(eta * 0.999)
          expect(E.isRight(below) && below.right.epsilon).toBe(Infinity)
        }
        return true
      }),
      { seed: SEED, numRuns: 40 },
    )
  })

  it('monotone: a larger stated δ₀ or ε₀ never lowers ε (fast-check)', () => {
    fc.assert(
      fc.property(arbCase, fc.double({ min: 1, max: 3, noNaN: true }), (c, f) => {
        const d = 0.05
        for (const name of ['rdp', 'zcdp'] as const) {
          const base = eps(name, eventOf(c), d)
          expect(eps(name, eventOf({ ...c, d0: Math.min(1e-2, c.d0 * f) }), d)).toBeGreaterThanOrEqual(base)
          expect(eps(name, eventOf({ ...c, e0: c.e0 * f }), d)).toBeGreaterThanOrEqual(base)
        }
        return true
      }),
      { seed: SEED, numRuns: 25 },
    )
  })

  it('matches dp_accounting: Gaussian(1) ∘ (0, 0.01) at δ = 0.02 is the Gaussian alone at 1 − 0.98/0.99', () => {
    const e = ev.compose([ev.gaussian(1, 1, AR), ev.approxDP(0, 0.01, AR)])
    const alone = eps('rdp', ev.gaussian(1, 1, AR), 1 - 0.98 / 0.99)
    // Equal up to the rounding of δ′ (which is taken down, the safe side).
    expect(Math.abs(eps('rdp', e, 0.02) / alone - 1)).toBeLessThan(1e-12)
    expect(eps('rdp', e, 0.005)).toBe(Infinity)
  })

  it('splits only under composition and an unchanged relation: sampled or group-converted steps stay refused', () => {
    expect(E.isLeft(ACCOUNTANTS.rdp({ relation: AR }).run(ev.poissonSample(0.1, ev.approxDP(1, 1e-6, AR))))).toBe(true)
    expect(E.isLeft(ACCOUNTANTS.rdp({ relation: replaceOne('record') }).run(ev.approxDP(1, 1e-6, AR)))).toBe(true)
    expect(E.isRight(ACCOUNTANTS.rdp({ relation: addOnly('record') }).run(ev.approxDP(1, 1e-6, AR)))).toBe(true)
    // A profile of one point is an (ε, δ) guarantee; several points stay refused.
    expect(E.isRight(ACCOUNTANTS.zcdp({ relation: AR }).run(ev.statedProfile([1], [1e-6], AR)))).toBe(true)
    expect(E.isLeft(ACCOUNTANTS.zcdp({ relation: AR }).run(ev.statedProfile([1, 2], [1e-3, 1e-6], AR)))).toBe(true)
  })
})

describe('a stated (ε, δ) step under sampling: the refusal names the step, the sampling and the ways out', () => {
  it.each(['rdp', 'zcdp'] as const)('%s', (name) => {
    const e = ev.compose([ev.gaussian(1, 1, AR), ev.selfCompose(ev.poissonSample(0.1, ev.labeled('step', ev.approxDP(1, 1e-6, AR))), 3)])
    const r = ACCOUNTANTS[name]({ relation: AR }).run(e)
    const msg = E.isLeft(r) ? formatError(r.left) : 'answered'
    expect(msg).toMatch(/^\$\.events\[1\]\.event\.event\.event: /)
    expect(msg).toContain('ApproxDP(ε = 1, δ = 0.000001) under PoissonSample (q = 0.1) at $.events[1].event')
    expect(msg).toMatch(name === 'rdp' ? /RDP of a sampled or selected \(ε, δ\) step is not defined/ : /zCDP of a sampled or selected \(ε, δ\) step is not defined/)
    expect(msg).toMatch(/pld accountant/)
    expect(msg).toMatch(/approx-split/)
    // The same step outside the sampling is answered (δ kept aside).
    expect(E.isRight(ACCOUNTANTS[name]({ relation: AR }).run(ev.compose([ev.gaussian(1, 1, AR), ev.approxDP(1, 1e-6, AR)])))).toBe(true)
    // A sampled profile without a pure point is named too.
    const p = ACCOUNTANTS[name]({ relation: AR }).run(ev.poissonSample(0.1, ev.statedProfile([1, 2], [1e-3, 1e-6], AR)))
    expect(E.isLeft(p) && formatError(p.left)).toContain('StatedProfile(2 points, no δ = 0) under PoissonSample (q = 0.1) at $')
  })
})
