import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { floatsKey, valueKey } from '../../src/accounting/value-key.js'

// Object.is on every leaf number (NaN equals NaN, but −0 is printed as 0 by JSON, so compare 0 and −0 as equal)
const sameValue = (a: unknown, b: unknown): boolean => {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b))
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]))
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a).sort()
    const kb = Object.keys(b).sort()
    return sameValue(ka, kb) && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  }
  return a === b
}

describe('valueKey: the accountants’ memo key', () => {
  it('keeps +∞, −∞ and NaN apart (plain JSON prints all three as null)', () => {
    const keys = [Infinity, -Infinity, NaN, null].map((v) => valueKey({ _tag: 'Gaussian', sigma: v }))
    expect(new Set(keys).size).toBe(4)
    expect(valueKey([1e-300, 0.1 + 0.2])).toBe('[1e-300,0.30000000000000004]')
  })

  it('two leaves share a key only when they are equal field by field', () => {
    const num = fc.oneof(fc.double(), fc.constantFrom(Infinity, -Infinity, NaN, 0, 1))
    const leaf = fc.record({ _tag: fc.constantFrom('A', 'B'), x: num, curve: fc.record({ orders: fc.array(num, { maxLength: 3 }), values: fc.array(num, { maxLength: 3 }) }) })
    fc.assert(
      fc.property(leaf, leaf, (a, b) => {
        expect(valueKey(a) === valueKey(b)).toBe(sameValue(a, b))
      }),
      { numRuns: 500 },
    )
  })
})

describe('floatsKey: arrays of doubles by their bits', () => {
  it('two arrays share a key only when they hold the same doubles in the same order (Object.is)', () => {
    const num = fc.oneof(fc.double(), fc.constantFrom(Infinity, -Infinity, NaN, 0, -0, 1, 2))
    const arr = fc.array(num, { maxLength: 6 })
    fc.assert(
      fc.property(arr, arr, (a, b) => {
        const same = a.length === b.length && a.every((x, i) => Object.is(x, b[i]))
        expect(floatsKey(a) === floatsKey(b)).toBe(same)
        expect(floatsKey(Float64Array.from(a))).toBe(floatsKey(a))
      }),
      { numRuns: 1000, seed: 35 },
    )
    // A prefix never collides with a longer array: four code units per number.
    expect(floatsKey([1, 2]).length).toBe(8)
  })
})
