import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { brentMin, goldenMin, nextUp } from '../../src/core/numeric.js'

/** The reference: one step of the IEEE-754 bit pattern, by BigInt. */
const nextUpReference = (x: number): number => {
  if (Number.isNaN(x) || x === Infinity) return x
  if (x === 0) return Number.MIN_VALUE
  const buf = new DataView(new ArrayBuffer(8))
  buf.setFloat64(0, x)
  const bits = buf.getBigInt64(0)
  buf.setBigInt64(0, x > 0 ? bits + 1n : bits - 1n)
  return buf.getFloat64(0)
}

describe('nextUp', () => {
  it('is the next double above x, as the bit-pattern reference says', () => {
    fc.assert(fc.property(fc.double(), (x) => Object.is(nextUp(x), nextUpReference(x))), { numRuns: 2000 })
  })
  it('handles the edges: word carries, ±0, subnormals, the largest double, −∞', () => {
    for (const x of [0, -0, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, -Infinity, Infinity, 1, -1, 2 ** -1022, 1 + 2 ** -52, 4294967296.0000005])
      expect(Object.is(nextUp(x), nextUpReference(x))).toBe(true)
    expect(nextUp(Number.MAX_VALUE)).toBe(Infinity)
    expect(Number.isNaN(nextUp(Number.NaN))).toBe(true)
    expect(nextUp(1)).toBeGreaterThan(1)
  })
})

describe('brentMin', () => {
  it('on smooth unimodal functions: as close to the minimum as golden section with 30 steps, in far fewer evaluations', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (x0, width, scale, at) => {
          // A convex, non-quadratic shape (cosh) with its minimum at x0, bracketed at a random place.
          const f = (x: number) => scale * (Math.cosh(x - x0) - 1) + 0.1 * Math.abs(x - x0) ** 3
          const lo = x0 - at * width
          const hi = x0 + (1 - at) * width
          let evals = 0
          const counted = (x: number) => {
            evals++
            return f(x)
          }
          const b = brentMin(counted, lo, hi, 1e-9, 30)
          const g = goldenMin(f, lo, hi, 1e-7, 30)
          expect(b.evaluations).toBe(evals)
          expect(b.value).toBe(f(b.x))
          expect(Math.abs(b.x - x0)).toBeLessThan(1e-6)
          expect(b.value).toBeLessThanOrEqual(g.value + 1e-15 * scale)
          expect(evals).toBeLessThanOrEqual(24)
        },
      ),
      { numRuns: 200, seed: 35 },
    )
  })
  it('never evaluates outside the bracket, caps its evaluations, and survives ∞ values', () => {
    const xs: number[] = []
    const r = brentMin(
      (x) => {
        xs.push(x)
        return x < 0.3 ? Infinity : Math.abs(x - 0.7)
      },
      0,
      1,
      1e-12,
      25,
    )
    expect(xs.length).toBeLessThanOrEqual(25)
    for (const x of xs) {
      expect(x).toBeGreaterThanOrEqual(0)
      expect(x).toBeLessThanOrEqual(1)
    }
    expect(Math.abs(r.x - 0.7)).toBeLessThan(1e-3)
  })
})
