import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { calibrate, decodeTemplate } from '../../src/accounting/calibrate.js'
import { ACCOUNTANTS } from '../../src/accounting/registry.js'
import { decodeEvent } from '../../src/mechanisms/codec.js'
import { formatError } from '../../src/core/error.js'
import { analyticGaussianNoiseMultiplier } from '../../src/accounting/analytic-gaussian.js'

const rel = { kind: 'add-remove', unit: 'record' }
const template = (event: unknown) => {
  const t = decodeTemplate({ schemaVersion: 1, event })
  if (E.isLeft(t)) throw new Error(formatError(t.left))
  return t.right
}
const rdpEps = (event: unknown, delta: number): number => {
  const ev = decodeEvent(event)
  if (E.isLeft(ev)) throw new Error(formatError(ev.left))
  const run = ACCOUNTANTS.rdp({ relation: { kind: 'add-remove', unit: 'record' } }).run(ev.right)
  const a = E.isRight(run) ? run.right.epsilon(delta) : run
  if (E.isLeft(a)) throw new Error(formatError(a.left))
  return a.right.epsilon
}

describe('calibration', () => {
  it('finds the largest Poisson rate within budget, and the next rate up breaks it', () => {
    const ev = (q: unknown) => ({ _tag: 'SelfCompose', count: 1000, event: { _tag: 'PoissonSample', q, event: { _tag: 'Gaussian', sigma: 1, sensitivity: 1, relation: rel } } })
    const c = calibrate(template(ev('$param')), { epsilon: 2, delta: 1e-5, accountant: 'rdp', tolerance: 1e-5 })
    expect(E.isRight(c)).toBe(true)
    if (E.isLeft(c)) return
    expect(c.right.direction).toBe('largest')
    expect(c.right.epsilon).toBeLessThanOrEqual(2)
    expect(rdpEps(ev(c.right.value), 1e-5)).toBeLessThanOrEqual(2)
    expect(rdpEps(ev(c.right.infeasibleNeighbour), 1e-5)).toBeGreaterThan(2)
    expect((c.right.infeasibleNeighbour as number) - c.right.value).toBeLessThanOrEqual(1e-5 * (c.right.infeasibleNeighbour as number))
  })

  it('returns q = 1 when even no subsampling meets the target', () => {
    const c = calibrate(template({ _tag: 'PoissonSample', q: '$param', event: { _tag: 'Gaussian', sigma: 20, sensitivity: 1, relation: rel } }), { epsilon: 1, delta: 1e-5 })
    expect(E.isRight(c) && c.right.value).toBe(1)
  })

  it('agrees with the exact analytic-Gaussian calibration to the tolerance, from above', () => {
    for (const [eps, delta] of [[0.5, 1e-6], [1, 1e-5], [4, 1e-8]] as const) {
      const c = calibrate(template({ _tag: 'Gaussian', sigma: '$param', sensitivity: 1, relation: rel }), { epsilon: eps, delta, tolerance: 1e-7 })
      expect(E.isRight(c)).toBe(true)
      if (E.isLeft(c)) return
      const exact = analyticGaussianNoiseMultiplier(eps, delta)
      // The tightest accountant for one Gaussian is exact (PLD answers it in closed form), so
      // the calibrated σ sits just above the exact one.
      expect(c.right.value).toBeGreaterThanOrEqual(exact * (1 - 1e-9))
      expect(c.right.value).toBeLessThanOrEqual(exact * (1 + 1e-5))
    }
  })

  it('refuses a template with placeholders in fields of different names, or in a field that cannot be searched', () => {
    const mixed = calibrate(template({ _tag: 'Gaussian', sigma: '$param', sensitivity: '$param', relation: rel }), { epsilon: 1, delta: 1e-5 })
    expect(E.isLeft(mixed) && formatError(mixed.left)).toMatch(/must sit in fields of one name/)
    const bad = calibrate(template({ _tag: 'RandomizedResponse', epsilon: 1, k: '$param', relation: rel }), { epsilon: 1, delta: 1e-5 })
    expect(E.isLeft(bad) && formatError(bad.left)).toMatch(/cannot calibrate the field "k"/)
  })
})
