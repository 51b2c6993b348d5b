/**
 * Cross-accountant soundness: the PLD accountant's optimistic estimate is a lower bound on the
 * true ε(δ), so no sound accountant may ever report less than it. Random event trees over every
 * event the PLD accountant supports; a failure here names an accountant that understates ε.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'

const REL = addRemove('record')
const dbl = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true })

// Leaves whose PLD is supported, with parameters that keep the PLD grid small.
const leaf: fc.Arbitrary<ev.PrivacyEvent> = fc.oneof(
  dbl(0.5, 5).map((s) => ev.gaussian(s, 1, REL)),
  dbl(0.5, 5).map((b) => ev.laplace(b, 1, REL)),
  fc.tuple(dbl(0.05, 2), fc.integer({ min: 2, max: 6 })).map(([e, k]) => ev.randomizedResponse(e, k, REL)),
  dbl(0.05, 2).map((e) => ev.pureDP(e, REL)),
  fc.tuple(dbl(0.05, 2), dbl(0, 1e-6)).map(([e, d]) => ev.approxDP(e, d, REL)),
)
const step: fc.Arbitrary<ev.PrivacyEvent> = fc.oneof(
  leaf,
  fc.tuple(dbl(0.01, 0.9), leaf).map(([q, l]) => ev.poissonSample(q, l)),
)
const tree: fc.Arbitrary<ev.PrivacyEvent> = fc
  .array(fc.tuple(step, fc.integer({ min: 1, max: 30 })), { minLength: 1, maxLength: 3 })
  .map((parts) => ev.compose(parts.map(([e, k]) => ev.selfCompose(e, k))))

describe('no accountant reports less than the PLD lower estimate', () => {
  it('holds on random compositions of supported events', () => {
    let checked = 0
    fc.assert(
      fc.property(tree, fc.constantFrom(1e-3, 1e-6), (e, delta) => {
        const pld = ACCOUNTANTS.pld({ relation: REL }).run(e)
        const p = E.isRight(pld) ? pld.right.epsilon(delta) : pld
        if (E.isLeft(p) || p.right.lower === undefined || !Number.isFinite(p.right.lower)) return true
        const lower = p.right.lower
        checked++
        for (const name of ACCOUNTANT_NAMES) {
          const run = ACCOUNTANTS[name]({ relation: REL }).run(e)
          const a = E.isRight(run) ? run.right.epsilon(delta) : run
          if (E.isLeft(a)) continue
          if (a.right.epsilon < lower * (1 - 1e-9) - 1e-9) return false
        }
        return true
      }),
      { seed: 424242, numRuns: 16 },
    )
    expect(checked).toBeGreaterThan(8)
  })
})
