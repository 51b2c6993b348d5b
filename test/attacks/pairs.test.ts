import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { histogramPairs, isIdenticalPair, materializePairs, VECTOR_PATTERNS, vectorPairs } from '../../src/attacks/pairs.js'

const linf = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => Math.max(...a.map((x, i) => Math.abs(x - (b[i] as number))))
const l1 = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => a.reduce((s, x, i) => s + Math.abs(x - (b[i] as number)), 0)

describe('neighbour-pair generators', () => {
  it('vectorPairs: every StatDP pattern, each entry moved by at most Δ, none identical', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 3, maxLength: 10 }), fc.constantFrom(1, 2, 0.5), (base, change) => {
        const ps = vectorPairs(base, { change })
        expect(ps.map((p) => p.label)).toEqual(VECTOR_PATTERNS)
        for (const p of ps) {
          expect(linf(p.input as number[], p.neighbour as number[])).toBe(change)
          expect(isIdenticalPair(p)).toBe(false)
        }
      }),
      { seed: 11, numRuns: 100 },
    )
    expect(vectorPairs([3]).length).toBe(2) // one up, one down: the other patterns coincide for d = 1
    expect(vectorPairs([3, 3]).length).toBe(6) // for d = 2 the half patterns are the one-vs-rest ones
    expect(vectorPairs([1, 1, 1, 1]).find((p) => p.label === 'one-up-rest-down')?.neighbour).toEqual([2, 0, 0, 0])
  })
  it('histogramPairs: add/remove changes one count by one; replace-one moves one record', () => {
    const ar = histogramPairs([2, 0, 1], 'add-remove')
    expect(ar.length).toBe(5) // bin 1 is empty: nothing to remove
    for (const p of ar) expect(l1(p.input, p.neighbour)).toBe(1)
    const ro = histogramPairs([2, 0, 1], 'replace-one')
    for (const p of ro) {
      expect(l1(p.input, p.neighbour)).toBe(2)
      expect(p.neighbour.reduce((s, c) => s + c, 0)).toBe(3)
    }
  })
  it('materializes one pair, a list, or a generator', () => {
    expect(materializePairs({ input: 1, neighbour: 2 })).toHaveLength(1)
    expect(materializePairs([{ input: 1, neighbour: 2 }, { input: 2, neighbour: 3 }])).toHaveLength(2)
    expect(
      materializePairs(function* () {
        for (let i = 0; i < 3; i++) yield { input: i, neighbour: i + 1 }
      }),
    ).toHaveLength(3)
  })
})
