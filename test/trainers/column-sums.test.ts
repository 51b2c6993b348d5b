// A release's column sums by row blocks (src/trainers/lda/parallel/release-work.ts columnSums), which the
// totals n̂_k + Vβ and so every q_wk are built from: summed four rows a step, they must be the very
// doubles of adding one row at a time (the seeded models, and the ε_I of hdp.ts, rest on q as it was).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blockCount, columnSums, ROW_BLOCK } from '../../src/trainers/lda/parallel/release-work.js'

/** The definition: each column's sum over a block's rows, one row at a time, in row order. */
const definition = (K: number, V: number, release: Float64Array, scale: number, colBlocks: Float64Array, rb0: number, rb1: number): void => {
  for (let rb = rb0; rb < rb1; rb++)
    for (let k = 0; k < K; k++) {
      let x = 0
      for (let w = rb * ROW_BLOCK; w < Math.min(V, (rb + 1) * ROW_BLOCK); w++) x = x + (release[w * K + k] as number) * scale
      colBlocks[rb * K + k] = x
    }
}

const sameDoubles = (a: Float64Array, b: Float64Array): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]))

describe('column sums of a release', () => {
  it('four rows a step give the same doubles as one row at a time, for any K, V (blocks cut anywhere), scale and values', () => {
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
      fc.integer({ min: -40, max: 5000 }).map((n) => n),
      fc.constantFrom(0, -0, 0.1, 1e-300, 2 ** 53 + 2),
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 3 * ROW_BLOCK + 7 }),
        fc.constantFrom(1, 0.5, 1 / 3, 1e-3),
        fc.array(value, { minLength: 1, maxLength: 64 }),
        (K, V, scale, pool) => {
          const release = Float64Array.from({ length: V * K }, (_, i) => pool[(i * 7919) % pool.length] as number)
          const blocks = blockCount(V, ROW_BLOCK)
          const got = new Float64Array(blocks * K).fill(Number.NaN)
          const want = new Float64Array(blocks * K)
          // every block on its own and all of them at once
          for (let rb = 0; rb < blocks; rb++) columnSums(K, V, release, scale, got, rb, rb + 1)
          definition(K, V, release, scale, want, 0, blocks)
          expect(sameDoubles(got, want)).toBe(true)
          got.fill(Number.NaN)
          columnSums(K, V, release, scale, got, 0, blocks)
          expect(sameDoubles(got, want)).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('a sum whose order matters (1 + 2^53 + …) comes out as the row order gives it', () => {
    // rows 2^53, 1, 1, 1, −2^53: in row order 2^53 + 1 rounds back to 2^53 each time, so the sum is 0, not 3
    const release = Float64Array.of(2 ** 53, 1, 1, 1, -(2 ** 53))
    const got = new Float64Array(1)
    columnSums(1, 5, release, 1, got, 0, 1)
    expect(got[0]).toBe(0)
  })
})
