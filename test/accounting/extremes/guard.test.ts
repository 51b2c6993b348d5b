/**
 * The soundness guard at the boundary of every accountant (issue 30): an answer that is not a
 * number ≥ 0 (∞ included: "no finite guarantee") for the query asked is a refusal with a reason,
 * never an ε; `tightest` and calibration only ever see answers that passed; filters never spend a
 * price that is not a number ≥ 0, and a positive price always raises the spend.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { type AccountedState, type AnyAccountant, erase } from '../../../src/accounting/accountant.js'
import { calibrate } from '../../../src/accounting/calibrate.js'
import { advancedFilter, basicFilter } from '../../../src/accounting/filter/index.js'
import { checkEpsilonAnswer } from '../../../src/accounting/guards.js'
import { makeRdpAccountant } from '../../../src/accounting/rdp/accountant.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove } from '../../../src/mechanisms/neighbouring.js'
import { epsilonViolation } from './lower-bound.js'

const AR = addRemove('record')

describe('the soundness guard', () => {
  it('an answer that is NaN or negative is refused with a reason at the accountant boundary', () => {
    const liar = (epsilon: number): AnyAccountant =>
      erase({
        ...makeRdpAccountant({ relation: AR }),
        epsilon: (delta) => () => E.right({ epsilon, delta, method: 'a broken method' }),
        delta: (eps) => () => E.right({ epsilon: eps, delta: epsilon, method: 'a broken method' }),
      })
    for (const bad of [Number.NaN, -1, -Number.MIN_VALUE]) {
      const run = liar(bad).run(ev.gaussian(1, 1, AR)) as E.Right<AccountedState>
      const a = run.right.epsilon(1e-5)
      expect(E.isLeft(a) && formatError(a.left)).toMatch(/is not a number ≥ 0.*a broken method.*refused/)
      const d = run.right.delta(1)
      expect(E.isLeft(d) && formatError(d.left)).toMatch(/is not a number in \[0, 1\]/)
    }
    // ∞ is a sound answer ("no finite guarantee") and passes.
    const inf = liar(Infinity).run(ev.gaussian(1, 1, AR)) as E.Right<AccountedState>
    expect(E.isRight(inf.right.epsilon(1e-5))).toBe(true)
    expect(E.isLeft(checkEpsilonAnswer('x', 1e-5, { epsilon: 1, delta: 1e-5, method: 'm', lower: 2 }))).toBe(true)
    expect(E.isLeft(checkEpsilonAnswer('x', 1e-5, { epsilon: 1, delta: 1e-6, method: 'm' }))).toBe(true)
  })

  it('filters: a cost too small to register in the sum still raises the spend; ε² never underflows to a free step', () => {
    const f0 = basicFilter({ relation: AR, epsilon: 1, delta: 0 })
    if (E.isLeft(f0)) throw new Error(formatError(f0.left))
    const f1 = f0.right.admit(ev.pureDP(0.5, AR))
    if (E.isLeft(f1)) throw new Error(f1.left.message)
    const f2 = f1.right.admit(ev.pureDP(1e-30, AR))
    if (E.isLeft(f2)) throw new Error(f2.left.message)
    expect(f2.right.spent._tag === 'basic' && f2.right.spent.epsilon).toBeGreaterThan(0.5)
    const a0 = advancedFilter({ relation: AR, epsilon: 1, delta: 1e-6 })
    if (E.isLeft(a0)) throw new Error(formatError(a0.left))
    const a1 = a0.right.admit(ev.pureDP(1e-200, AR), 2 ** 40)
    expect(E.isRight(a1) && a1.right.spent._tag === 'advanced' && a1.right.spent.sumOfSquares).toBeGreaterThan(0)
  })

  it('calibration answers only a value that itself meets the target (the collapse once made rdp and tightest answer σ = 1e-12 with ε = 0)', () => {
    // Target ε = 1e13: the noise search halves σ from 1 until ε exceeds the target; the RDP collapse
    // (ε = 0 at σ ≤ 1e-7) kept every probe "feasible" down to the domain's edge, σ = 1e-12.
    const template = {
      schemaVersion: 1 as const,
      event: { _tag: 'SelfCompose', count: 5, event: { _tag: 'PoissonSample', q: 0.111, event: { _tag: 'Gaussian', sigma: '$param', sensitivity: 1, relation: { kind: 'add-remove', unit: 'record' } } } },
    }
    for (const accountant of ['rdp', 'zcdp'] as const) {
      const c = calibrate(template, { epsilon: 1e13, delta: 1e-5, accountant, tolerance: 1e-4 })
      if (E.isLeft(c)) throw new Error(formatError(c.left))
      expect(c.right.value).toBeGreaterThan(4e-7) // about 5e-7
      expect(c.right.epsilon).toBeLessThanOrEqual(1e13)
      expect(c.right.epsilon).toBeGreaterThan(9e12)
      const event = ev.selfCompose(ev.poissonSample(0.111, ev.gaussian(c.right.value, 1, AR)), 5)
      expect(epsilonViolation(event, 1e-5, c.right.epsilon)).toBeUndefined()
    }
  })
})
