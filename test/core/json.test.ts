import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ExtendedNumber, jsonDepth, parseJson, stringifyJson } from '../../src/core/json.js'
import { logAddExp, logSubExp, log1mExp, logSumExp, goldenMin, bisectPredicate, roundUpLoss } from '../../src/core/numeric.js'

describe('honest JSON numbers', () => {
  it('encodes every double, finite or not, and decodes it back', () => {
    fc.assert(
      fc.property(fc.double(), (x) => {
        const parsed = parseJson(stringifyJson({ x }))
        const back = E.isRight(parsed) ? ExtendedNumber.decode((parsed.right as { x: unknown }).x) : parsed
        // -0 becomes 0 in JSON, as for any JSON writer; every other value survives exactly.
        return E.isRight(back) && (Number.isNaN(x) ? Number.isNaN(back.right) : back.right === x)
      }),
      { seed: 7, numRuns: 500 },
    )
    expect(stringifyJson([Infinity, -Infinity, NaN])).toBe('["Infinity","-Infinity","NaN"]')
  })
  it('measures depth iteratively', () => {
    let v: unknown = 1
    for (let i = 0; i < 100000; i++) v = [v]
    expect(jsonDepth(v, 10)).toBe(11)
  })
  it('reports JSON syntax errors as values', () => {
    expect(E.isLeft(parseJson('{"a":'))).toBe(true)
  })
})

describe('log-space kernels', () => {
  it('logAddExp and logSubExp agree with direct computation where it is safe', () => {
    fc.assert(
      fc.property(fc.double({ min: -30, max: 30, noNaN: true }), fc.double({ min: -30, max: 30, noNaN: true }), (a, b) => {
        expect(logAddExp(a, b)).toBeCloseTo(Math.log(Math.exp(a) + Math.exp(b)), 10)
        const [hi, lo] = a >= b ? [a, b] : [b, a]
        if (hi - lo > 1e-6) expect(logSubExp(hi, lo)).toBeCloseTo(Math.log(Math.exp(hi) - Math.exp(lo)), 8)
      }),
      { seed: 11, numRuns: 300 },
    )
    expect(logAddExp(1000, 1000)).toBeCloseTo(1000 + Math.LN2, 12)
    expect(logSubExp(-Infinity, -Infinity)).toBe(-Infinity)
    expect(log1mExp(-1e-20)).toBeCloseTo(Math.log(1e-20), 10)
    expect(logSumExp([1000, 1000, 1000])).toBeCloseTo(1000 + Math.log(3), 10)
  })
  it('goldenMin finds the minimum of a convex function; bisection brackets a boundary', () => {
    const m = goldenMin((x) => (x - 3.25) ** 2 + 1, 0, 10)
    expect(m.x).toBeCloseTo(3.25, 6)
    const b = bisectPredicate((x) => x * x >= 2, 0, 2, 1e-12)
    expect(b.lo * b.lo).toBeLessThan(2)
    expect(b.hi * b.hi).toBeGreaterThanOrEqual(2)
    expect(b.hi - b.lo).toBeLessThanOrEqual(1e-12)
  })
  it('roundUpLoss never rounds a loss down', () => {
    fc.assert(fc.property(fc.double({ min: 0, max: 1e300, noNaN: true }), (x) => roundUpLoss(x) >= x), { seed: 3 })
  })
})
