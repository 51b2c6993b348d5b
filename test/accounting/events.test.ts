/**
 * New events (issue 26): each accounted in every accountant that can take it, with its paper; the
 * others refuse naming it.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import { decodeEvent, encodeEvent } from '../../src/mechanisms/codec.js'
import * as ev from '../../src/mechanisms/event.js'
import { epsAt } from './eps-at.js'
import { addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const SEED = 20261127


describe('PermuteAndFlip (McKenna & Sheldon 2020)', () => {
  it('round-trips through the codec and refuses ε ≤ 0 naming the field', () => {
    const e = ev.permuteAndFlip(0.7, 1, AR)
    expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
    const bad = decodeEvent({ ...e, epsilon: 0 })
    expect(E.isLeft(bad) && JSON.stringify(bad.left)).toMatch(/epsilon/)
  })

  it.each(ACCOUNTANT_NAMES)('%s: accounts it exactly as the stated ε-DP guarantee (never below ε at δ = 0)', (name) => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 5, noNaN: true }), fc.integer({ min: 1, max: 20 }), (eps, k) => {
        for (const relation of [AR, RO]) {
          const pf = epsAt(name, ev.selfCompose(ev.permuteAndFlip(eps, 1, AR), k), 1e-6, relation)
          const pure = epsAt(name, ev.selfCompose(ev.pureDP(eps, AR), k), 1e-6, relation)
          expect(pf).toBe(pure)
        }
        const at0 = epsAt(name, ev.permuteAndFlip(eps, 1, AR), 0)
        if (at0 !== undefined) expect(at0).toBeGreaterThanOrEqual(eps)
      }),
      { seed: SEED, numRuns: name === 'pld' ? 5 : 25 },
    )
  })
})
