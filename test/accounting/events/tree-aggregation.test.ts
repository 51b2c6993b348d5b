/**
 * Tree aggregation / DP-FTRL (Kairouz et al. 2021), issue 26: the node vector is a Gaussian mechanism
 * of L2 sensitivity Δ·k·√⌈log₂(T + 1)⌉, so every accountant that takes a Gaussian takes it, and answers
 * exactly what it answers for that Gaussian.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES } from '../../../src/accounting/registry.js'
import { treeLevels } from '../../../src/accounting/normalize.js'
import { decodeEvent, encodeEvent } from '../../../src/mechanisms/codec.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { epsAt } from '../eps-at.js'
import { calibrate, decodeTemplate } from '../../../src/accounting/calibrate.js'
import { analyticGaussianNoiseMultiplier } from '../../../src/accounting/analytic-gaussian.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const SEED = 26_002

describe('TreeAggregation: levels and codec', () => {
  it('a tree over T steps has ⌈log₂(T + 1)⌉ levels (the nodes complete within T steps)', () => {
    const cases: ReadonlyArray<readonly [number, number]> = [[0, 0], [1, 1], [2, 2], [3, 2], [4, 3], [7, 3], [8, 4], [1600, 11], [2 ** 40, 41], [2 ** 40 - 1, 40]]
    for (const [t, l] of cases) expect(treeLevels(t), `T = ${t}`).toBe(l)
  })

  it('round-trips, and refuses an empty tree list, a fractional step count or participations < 1 naming the field', () => {
    for (const e of [ev.treeAggregation(1.2, 1, [400, 400], AR), ev.treeAggregation(1.2, 1, [100], AR, { participations: 3 })])
      expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
    const base = { _tag: 'TreeAggregation', sigma: 1, sensitivity: 1, relation: AR }
    const msg = (u: unknown): string => {
      const r = decodeEvent(u)
      return E.isLeft(r) ? JSON.stringify(r.left) : 'decoded'
    }
    expect(msg({ ...base, stepCounts: [] })).toMatch(/\$\.stepCounts/)
    expect(msg({ ...base, stepCounts: [10, 2.5] })).toMatch(/\$\.stepCounts\[1\].*2\.5|2\.5.*\$\.stepCounts\[1\]/)
    expect(msg({ ...base, stepCounts: [10], participations: 0 })).toMatch(/\$\.participations/)
    expect(msg({ ...base, stepCounts: 10 })).toMatch(/stepCounts/)
    // A long list of trees (one restart per step, say) is read without spreading it into arguments.
    const many = decodeEvent({ ...base, stepCounts: Array.from({ length: 300_000 }, (_, i) => (i === 7 ? 1600 : 1)) })
    expect(E.isRight(many)).toBe(true)
    if (E.isRight(many)) expect(epsAt('rdp', many.right, 1e-6)).toBe(epsAt('rdp', ev.gaussian(1, Math.sqrt(11), AR), 1e-6))
  })
})

describe('TreeAggregation in every accountant: the Gaussian of sensitivity Δk√levels', () => {
  it.each(ACCOUNTANT_NAMES)('%s: equals Gaussian(σ, Δk√levels) under add/remove and replace-one, at δ > 0 and δ = 0', (name) => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom(1e-5, 1e-9, 0),
        (sigma, steps, k, delta) => {
          const levels = treeLevels(Math.max(...steps))
          const tree = ev.treeAggregation(sigma, 0.7, steps, AR, { participations: k })
          const gauss = levels === 0 ? ev.noOp : ev.gaussian(sigma, 0.7 * k * Math.sqrt(levels), AR)
          for (const relation of [AR, RO]) expect(epsAt(name, tree, delta, relation)).toBe(epsAt(name, gauss, delta, relation))
        },
      ),
      { seed: SEED, numRuns: name === 'pld' ? 4 : 20 },
    )
  })

  it('the StackOverflow setting of Kairouz et al. 2021 (T = 1600, δ = 1e-6) is below the values dp_accounting tests (19.74 at σ = 1.13, 2.04 at σ = 8.83)', () => {
    for (const [sigma, bound] of [[1.13, 19.74], [8.83, 2.04]] as const)
      for (const name of ['rdp', 'pld', 'zcdp'] as const) {
        const eps = epsAt(name, ev.treeAggregation(sigma, 1, [1600], AR), 1e-6) as number
        expect(eps, `${name} σ = ${sigma}`).toBeLessThan(bound)
        expect(eps).toBeGreaterThan(0)
      }
  })

  it('composition: restarted trees each holding the record compose (Compose of trees = sum), one epoch over several trees is the tallest', () => {
    for (const name of ['rdp', 'zcdp', 'pld'] as const) {
      const restarts = epsAt(name, ev.compose([400, 400, 400, 400].map((t) => ev.treeAggregation(2, 1, [t], AR))), 1e-6)
      const selfComposed = epsAt(name, ev.selfCompose(ev.treeAggregation(2, 1, [400], AR), 4), 1e-6)
      expect(restarts).toBe(selfComposed)
      const oneEpoch = epsAt(name, ev.treeAggregation(2, 1, [10, 40, 30, 20], AR), 1e-6)
      expect(oneEpoch).toBe(epsAt(name, ev.treeAggregation(2, 1, [40], AR), 1e-6))
    }
  })

  it.each(ACCOUNTANT_NAMES)('%s: monotone — more noise lowers ε, more steps or participations raise it', (name) => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 10, noNaN: true }), fc.integer({ min: 1, max: 4000 }), fc.integer({ min: 1, max: 4000 }), (sigma, t, dt) => {
        const e = (s: number, steps: number, k = 1): number => epsAt(name, ev.treeAggregation(s, 1, [steps], AR, { participations: k }), 1e-6) as number
        const base = e(sigma, t)
        expect(e(sigma * 1.3, t)).toBeLessThanOrEqual(base)
        expect(e(sigma, t + dt)).toBeGreaterThanOrEqual(base)
        expect(e(sigma, t, 2)).toBeGreaterThanOrEqual(base)
      }),
      { seed: SEED, numRuns: name === 'pld' ? 3 : 15 },
    )
  })
})

describe('TreeAggregation through calibrate', () => {
  it('finds the smallest σ meeting ε ≤ 2 at δ = 1e-6 over 1600 steps, and the Gaussian closed form agrees', () => {
    const t = decodeTemplate({ schemaVersion: 1, event: { _tag: 'TreeAggregation', sigma: '$param', sensitivity: 1, stepCounts: [1600], relation: AR } })
    expect(E.isRight(t)).toBe(true)
    if (E.isLeft(t)) return
    const c = calibrate(t.right, { epsilon: 2, delta: 1e-6, accountant: 'pld', tolerance: 1e-6 })
    expect(E.isRight(c)).toBe(true)
    if (E.isLeft(c)) return
    expect(c.right.direction).toBe('smallest')
    expect(epsAt('pld', ev.treeAggregation(c.right.value, 1, [1600], AR), 1e-6)).toBeLessThanOrEqual(2)
    // 11 levels: the Gaussian with noise multiplier σ/√11 meets ε = 2 exactly (analytic Gaussian, Balle & Wang 2018).
    expect(c.right.value / Math.sqrt(11)).toBeCloseTo(analyticGaussianNoiseMultiplier(2, 1e-6), 4)
  })
})
