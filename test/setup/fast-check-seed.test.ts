import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SUITE_SEED } from './fast-check-seed.js'

describe('the suite runs its properties from one fixed seed', () => {
  it('fast-check is configured with SUITE_SEED (or FC_SEED), so two runs draw the same cases', () => {
    const requested = process.env.FC_SEED
    if (requested === 'random') return
    const expected = requested === undefined || requested === '' ? SUITE_SEED : Number(requested)
    expect(fc.readConfigureGlobal().seed).toBe(expected)
    const draw = () => fc.sample(fc.double({ min: 0, max: 1, noNaN: true }), 5)
    expect(draw()).toEqual(draw())
  })
})
