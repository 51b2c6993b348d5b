import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { nextUp } from '../../src/core/numeric.js'

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
