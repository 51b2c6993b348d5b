/**
 * The reported failure (issue 30): the RDP accountant answered ε = 0 — and `tightest` took it — for
 * every Poisson-subsampled Gaussian with σ ≤ 1e-7. The log-sum-exp of the sampled Gaussian's
 * binomial sums tested each term against m − 60, which rounds to m once |m| > 2⁶⁰ (at σ ≤ 1e-7 and
 * high orders), so every term, the largest too, was skipped and log 0 = −∞ became an RDP value of 0.
 * The no-NaN fuzzing could not see it: 0 is a number. These tests compare with an independent lower
 * bound on the true ε (./lower-bound.ts) instead, and fail on that code.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../../../src/accounting/account.js'
import type { EpsilonAnswer } from '../../../src/accounting/accountant.js'
import { logSumExpPruned } from '../../../src/accounting/rdp/log-space.js'
import { makeSampledGaussian, sampledGaussianFloor } from '../../../src/accounting/rdp/subsampled-gaussian.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import type { PrivacyEvent } from '../../../src/mechanisms/event.js'
import { addRemove } from '../../../src/mechanisms/neighbouring.js'
import { epsilonLower, epsilonViolation } from './lower-bound.js'

const AR = addRemove('record')

/** Every accountant's answer on `event` at each δ (refusals skipped), and `tightest`. */
const answersOf = (event: PrivacyEvent, deltas: ReadonlyArray<number>) => {
  const r = account({ schemaVersion: 1, relation: AR, event }, { deltas })
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
}

describe('the reported scan: Gaussian σ × Poisson rate q × count, through account() at δ = 1e-5', () => {
  const sigmas = [1e-12, 1e-10, 1e-8, 1e-7, 1e-6, 1e-5, 1e-3]
  const rates = [1, 0.5, 0.111, 0.001]
  const counts = [1, 5, 1000]
  it('no accountant, and not tightest, answers below the lower bound (84 specs)', () => {
    const bad: string[] = []
    for (const sigma of sigmas)
      for (const q of rates)
        for (const count of counts) {
          const g = ev.gaussian(sigma, 1, AR)
          const event = ev.selfCompose(q === 1 ? g : ev.poissonSample(q, g), count)
          const r = answersOf(event, [1e-5])
          const tag = `σ = ${sigma}, q = ${q}, count = ${count}`
          for (const x of r.results) {
            if (!x.ok) continue
            const v = epsilonViolation(event, 1e-5, (x.answers[0] as EpsilonAnswer).epsilon)
            if (v !== undefined) bad.push(`${tag}, ${x.accountant}: ${v}`)
          }
          const t = r.tightest[0]
          if (t === undefined) bad.push(`${tag}: no tightest`)
          else {
            const v = epsilonViolation(event, 1e-5, t.epsilon)
            if (v !== undefined) bad.push(`${tag}, tightest (${t.accountant}): ${v}`)
          }
        }
    expect(bad).toEqual([])
  })

  it('the reported spec (count 5, q = 0.111, σ = 1e-8): RDP says about 2.6e16, not 0, and so does tightest', () => {
    const event = ev.selfCompose(ev.poissonSample(0.111, ev.gaussian(1e-8, 1, AR)), 5)
    const r = answersOf(event, [1e-5])
    const rdp = r.results.find((x) => x.accountant === 'rdp')
    expect(rdp?.ok).toBe(true)
    const eps = rdp?.ok === true ? (rdp.answers[0] as EpsilonAnswer).epsilon : 0
    expect(eps).toBeGreaterThan(2e16)
    expect(r.tightest[0]?.epsilon).toBeGreaterThan(2e16)
    expect(epsilonLower(event, 1e-5)).toBeGreaterThan(4e15)
  })
})

describe('the cause', () => {
  it('logSumExpPruned keeps its largest term when |x| > 2⁶⁰ (m − 60 rounds to m there)', () => {
    for (const m of [2 ** 61, 2e19, 1e300, -(2 ** 61)]) {
      expect(logSumExpPruned([m, m - 1e3, m])).toBeGreaterThanOrEqual(m)
      expect(logSumExpPruned([m])).toBe(m)
    }
    expect(logSumExpPruned([0, Math.log(3)])).toBeCloseTo(Math.log(4), 15)
  })

  it('the sampled Gaussian RDP is never below its independent floor, nor 0, for σ down to 1e-300', () => {
    for (const sigma of [1e-300, 1e-100, 1e-12, 1e-8, 1e-7, 1e-6, 1e-3, 1, 1e3, 1e150])
      for (const q of [1e-12, 1e-3, 0.111, 0.5, 1 - 1e-12]) {
        const sg = makeSampledGaussian(q, sigma)
        for (const alpha of [1.05, 1.5, 2, 3, 10.5, 64, 256, 1024]) {
          const r = sg.rdp(alpha)
          const tag = `σ = ${sigma}, q = ${q}, α = ${alpha}`
          expect(r.rdp, tag).toBeGreaterThan(0)
          expect(r.rdp, tag).toBeGreaterThanOrEqual(sampledGaussianFloor(q, sigma, alpha) * (1 - 1e-9))
          expect(r.method, tag).not.toBe('unsampled') // the computation itself passes its check
        }
      }
  })

  it('the floor is a lower bound: never above the computed value where the sums are well conditioned', () => {
    const sg = makeSampledGaussian(0.01, 1.1)
    for (const alpha of [2, 3, 8, 32, 64]) expect(sampledGaussianFloor(0.01, 1.1, alpha)).toBeLessThanOrEqual(sg.rdp(alpha).rdp)
  })
})
