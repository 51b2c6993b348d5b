/**
 * Queries once refused where an answer exists (issue 26): a Poisson rate q = 0.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import { validateEvent } from '../../src/mechanisms/codec.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const RO = replaceOne('record')

const epsAt = (name: (typeof ACCOUNTANT_NAMES)[number], e: ev.PrivacyEvent, delta: number, relation = AR): number | undefined => {
  const run = ACCOUNTANTS[name]({ relation }).run(e)
  if (E.isLeft(run)) return undefined
  const a = run.right.epsilon(delta)
  if (E.isLeft(a)) throw new Error(`${name}: ${JSON.stringify(a.left)}`)
  return a.right.epsilon
}

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
