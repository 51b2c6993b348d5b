/**
 * The PLD grid-size refusal names an interval that would fit (issue 11: the hint contradicted
 * itself — it named the interval fitting 2^22 points while refusing against a pass's smaller work
 * budget). The hint must hold for the limit the same sentence states.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_GRID_POINTS, checkGridSize } from '../../src/accounting/pld/limits.js'
import { formatError } from '../../src/core/error.js'

/** "2^18" or "1,000,000" as printed, back to a number. */
const points = (s: string): number => (s.startsWith('2^') ? 2 ** Number(s.slice(2)) : Number(s.replace(/,/g, '')))
const nextPowerOfTwo = (n: number): number => 2 ** Math.ceil(Math.log2(n))

describe('the PLD "interval would fit" hint', () => {
  it('names an interval that fits the limit the message states, and says so consistently', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e4, noNaN: true }),
        fc.constantFrom(MAX_GRID_POINTS, 2 ** 20, 2 ** 18, 1_000_000, 3 * 2 ** 16),
        (span, limit) => {
          const interval = span / (limit * 4) // a grid four times over the limit
          const r = checkGridSize(span / interval, interval, span, '$.event', 'the composition window', limit)
          expect(E.isLeft(r)).toBe(true)
          if (E.isRight(r)) return
          const text = formatError(r.left)
          const stated = /over the limit of ([\d,]+) /.exec(text)
          const hint = /an interval of about (\S+) or more would fit \(it keeps the span within (\S+) points, which stays within (\S+) after rounding up to a power of two\)/.exec(text)
          expect(stated, text).not.toBeNull()
          expect(hint, text).not.toBeNull()
          if (stated === null || hint === null) return
          const limitStated = Number((stated[1] as string).replace(/,/g, ''))
          expect(limitStated).toBe(limit)
          // the hint's own numbers: within half the stated limit, staying within the stated limit
          expect(points(hint[3] as string)).toBe(limit)
          expect(points(hint[2] as string)).toBe(Math.floor(limit / 2))
          // and the interval it names does what the sentence says: the span fits in half the limit,
          // so its window, rounded up to a power of two, fits in the limit
          const fitting = Number(hint[1])
          const width = span / fitting
          expect(width).toBeLessThanOrEqual(limit / 2 + 1e-9)
          expect(nextPowerOfTwo(Math.ceil(width))).toBeLessThanOrEqual(limit)
          // not needlessly coarse: three significant digits, rounded up
          expect(width).toBeGreaterThan((limit / 2) * 0.99)
        },
      ),
      { numRuns: 200, seed: 11 },
    )
  })
})
