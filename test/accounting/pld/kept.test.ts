/**
 * Compositions kept across states by value (src/accounting/pld/build.ts): a query's answer is the
 * same whether nothing was kept or other queries (other intervals, window limits, events) came first.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { makePldAccountant } from '../../../src/accounting/pld/accountant.js'
import { forgetKeptCompositions } from '../../../src/accounting/pld/build.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const RO = replaceOne('record')

describe('kept PLD compositions', () => {
  it('answers (ε triple, δ, method) do not depend on what was asked before', () => {
    const leaf = fc.constantFrom('g', 'l', 'dg', 'rr')
    fc.assert(
      fc.property(
        leaf,
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        fc.double({ min: 0.005, max: 0.2, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        fc.boolean(),
        fc.constantFrom(undefined, 1e-3, 3e-4),
        (kind, s, q, T, ro, interval) => {
          const rel = ro ? RO : AR
          const base = kind === 'g' ? ev.gaussian(s, 1, rel) : kind === 'l' ? ev.laplace(s, 1, rel) : kind === 'dg' ? ev.discreteGaussian(s, 1, rel) : ev.randomizedResponse(s, 2, rel)
          const event = ev.selfCompose(ev.poissonSample(q, base), T)
          const answer = (opts: { interval?: number; workBudget?: number }): unknown => {
            const acct = makePldAccountant({ relation: rel, ...opts })
            const st = acct.compose(event)(acct.empty)
            if (E.isLeft(st)) return st.left.message
            const a = acct.epsilon(1e-6)(st.right)
            const d = acct.delta(1)(st.right)
            return [E.isRight(a) ? a.right : a.left.message, E.isRight(d) ? d.right : d.left.message]
          }
          const opts = interval === undefined ? {} : { interval }
          forgetKeptCompositions()
          const fresh = answer(opts)
          // Others first: a finer fixed interval, a tight work budget, the default policy.
          answer({ interval: 1e-4 })
          answer({ workBudget: 2 ** 12 })
          answer({})
          expect(answer(opts)).toEqual(fresh)
          expect(answer(opts)).toEqual(fresh)
        },
      ),
      { seed: 2026_1127, numRuns: 12 },
    )
  })
})
