// Amplification by shuffling (Feldman, McMillan & Talwar 2021, Thm 3.1): the closed form against
// the theorem's formula written out independently, its monotonicity, never above ε0, and refusal
// outside the validity condition.
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Shuffle } from '../../src/accounting/index.js'

const { fmt21ShuffledEpsilon, shuffleAmplification, shuffleLocalEpsilonLimit } = Shuffle

/** Thm 3.1 as printed: ln(1 + (e^ε0 − 1)/(e^ε0 + 1)·(8√(e^ε0 ln(4/δ))/√n + 8e^ε0/n)). */
const theorem = (e0: number, n: number, delta: number): number =>
  Math.log(1 + ((Math.exp(e0) - 1) / (Math.exp(e0) + 1)) * ((8 * Math.sqrt(Math.exp(e0) * Math.log(4 / delta))) / Math.sqrt(n) + (8 * Math.exp(e0)) / n))

const eps = (e0: number, n: number, delta: number): number => {
  const r = shuffleAmplification(e0, n, delta)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right.epsilon
}

/** (ε0, n, δ) inside the condition ε0 ≤ ln(n/(16 ln(4/δ))). */
const inside = fc
  .record({ n: fc.integer({ min: 1000, max: 10_000_000 }), delta: fc.double({ min: 1e-12, max: 0.1, noNaN: true }), u: fc.double({ min: 0.001, max: 1, noNaN: true }) })
  .filter(({ n, delta }) => shuffleLocalEpsilonLimit(n, delta) > 0.01)
  .map(({ n, delta, u }) => ({ n, delta, e0: u * shuffleLocalEpsilonLimit(n, delta) }))

describe('FMT 2021 Theorem 3.1', () => {
  it('matches the theorem’s formula at fixed points', () => {
    for (const [e0, n, delta] of [
      [1, 10_000, 1e-6],
      [0.5, 1_000, 1e-5],
      [3, 100_000, 1e-8],
      [0.1, 5_000, 1e-3],
    ] as const) {
      expect(fmt21ShuffledEpsilon(e0, n, delta)).toBeCloseTo(theorem(e0, n, delta), 12)
      expect(eps(e0, n, delta)).toBeCloseTo(Math.min(e0, theorem(e0, n, delta)), 12)
    }
    // by hand, ε0 = 1, n = 10^4, δ = 1e-6: tanh(1/2) = 0.46212; 8·√(e·ln(4·10^6))/100 = 0.51426;
    // 8e/10^4 = 0.00217; ln(1 + 0.46212 × 0.51650) = 0.21403
    expect(eps(1, 10_000, 1e-6)).toBeCloseTo(0.21403, 4)
  })
  it('matches the formula and never exceeds ε0 inside the condition', () => {
    fc.assert(
      fc.property(inside, ({ e0, n, delta }) => {
        const r = shuffleAmplification(e0, n, delta)
        if (E.isLeft(r)) return false
        return r.right.epsilon <= e0 && Math.abs(r.right.epsilon - Math.min(e0, theorem(e0, n, delta))) <= 1e-12 * Math.max(1, e0)
      }),
    )
  })
  it('is non-decreasing in ε0, non-increasing in n and in δ', () => {
    fc.assert(
      fc.property(inside, fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 1_000_000 }), fc.double({ min: 1, max: 1000, noNaN: true }), ({ e0, n, delta }, shrink, more, looser) => {
        const smallerE0 = Math.max(1e-9, e0 * shrink)
        const biggerDelta = Math.min(0.5, delta * looser)
        return eps(smallerE0, n, delta) <= eps(e0, n, delta) + 1e-15 && eps(e0, n + more, delta) <= eps(e0, n, delta) + 1e-15 && eps(e0, n, biggerDelta) <= eps(e0, n, delta) + 1e-15
      }),
    )
  })
  it('amplifies: far below ε0 with many users', () => {
    expect(eps(1, 1_000_000, 1e-6)).toBeLessThan(0.03)
  })
  it('refuses outside ε0 ≤ ln(n/(16 ln(4/δ))), naming the limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.double({ min: 1e-12, max: 0.5, noNaN: true }), fc.double({ min: 1.0001, max: 100, noNaN: true }), (n, delta, over) => {
        const limit = shuffleLocalEpsilonLimit(n, delta)
        const e0 = limit > 0 ? limit * over : 1
        const r = shuffleAmplification(e0, n, delta)
        return E.isLeft(r) && r.left._tag === 'Infeasible' && /needs ε0 ≤ ln\(n\/\(16·ln\(4\/δ\)\)\)/.test(r.left.message)
      }),
    )
  })
  it.each([
    [0, 100, 1e-5, 'localEpsilon'],
    [Number.POSITIVE_INFINITY, 100, 1e-5, 'localEpsilon'],
    [1, 0, 1e-5, 'users'],
    [1, 10.5, 1e-5, 'users'],
    [1, 100, 0, 'delta'],
    [1, 100, 1, 'delta'],
  ])('bad input ε0 = %s, n = %s, δ = %s names %s', (e0, n, delta, field) => {
    const r = shuffleAmplification(e0, n, delta)
    expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path === field).toBe(true)
  })
})
