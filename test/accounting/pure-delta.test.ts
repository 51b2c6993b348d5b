/**
 * ε at δ = 0 (issue 26): pure ε-DP where the event has it, ∞ where it has none, in every accountant;
 * calibration to δ = 0.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import { account } from '../../src/accounting/account.js'
import { calibrate } from '../../src/accounting/calibrate.js'
import * as ev from '../../src/mechanisms/event.js'
import { epsAt } from './eps-at.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { arbEvent } from '../../src/testing/arbitraries.js'

const REL = addRemove('record')
const SEED = 20261127


describe('ε at δ = 0', () => {
  it.each(ACCOUNTANT_NAMES)('%s: pure events give their pure ε (never below it), others ∞', (name) => {
    const pure = ev.compose([ev.laplace(1, 1, REL), ev.selfCompose(ev.pureDP(0.5, REL), 3)]) // 2.5-DP exactly
    const e = epsAt(name, pure, 0)
    if (e !== undefined) {
      expect(e).toBeGreaterThanOrEqual(2.5)
      // PLD reads δ = 0 past the top of its composed window (sound, looser: the window is sized by
      // a Chernoff bound, not by the largest loss); zCDP has no pure ε (∞).
      if (name !== 'zcdp' && name !== 'pld') expect(e).toBeLessThanOrEqual(2.5 * (1 + 1e-3))
      if (name === 'pld') expect(e).toBeLessThan(Infinity)
    }
    expect(epsAt(name, ev.gaussian(1, 1, REL), 0) ?? Infinity).toBe(Infinity)
    expect(epsAt(name, ev.approxDP(1, 1e-6, REL), 0) ?? Infinity).toBe(Infinity)
    expect(epsAt(name, ev.noOp, 0)).toBe(0)
  })

  it.each(ACCOUNTANT_NAMES)('%s: ε(0) ≥ ε(δ) for every δ > 0 (monotone), and a sound answer', (name) => {
    fc.assert(
      fc.property(arbEvent({ relation: REL, maxDepth: 3 }), fc.double({ min: 1e-9, max: 0.5, noNaN: true }), (e, d) => {
        const at0 = epsAt(name, e, 0)
        if (at0 === undefined) return
        const atD = epsAt(name, e, d) as number
        expect(at0).toBeGreaterThanOrEqual(atD * (1 - 1e-9))
      }),
      { seed: SEED, numRuns: name === 'pld' ? 25 : 100 },
    )
  })

  it('account reports δ = 0 and the tightest is the pure ε', () => {
    const r = account({ event: ev.selfCompose(ev.laplace(2, 1, REL), 4) } as never, { deltas: [0, 1e-6] })
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const t0 = r.right.tightest.find((t) => t.delta === 0)
    expect(t0?.epsilon).toBeCloseTo(2, 9)
  })

  it('calibrates a Laplace scale to (ε = 1, δ = 0)', () => {
    const c = calibrate({ event: { _tag: 'Laplace', scale: '$param', sensitivity: 1, relation: REL } } as never, { epsilon: 1, delta: 0, accountant: 'rdp' } as never)
    if (E.isLeft(c)) throw new Error(JSON.stringify(c.left))
    expect((c.right as { value: number }).value).toBeCloseTo(1, 5)
  })
})
