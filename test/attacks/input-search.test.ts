import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import type { BlackBox } from '../../src/attacks/output.js'
import { coordinatePairs } from '../../src/attacks/pairs.js'
import { searchInputs } from '../../src/attacks/input-search.js'
import { laplaceNoise, snapped } from '../../src/attacks/zoo/noise.js'

describe('adaptive input search', () => {
  it('climbs to the inputs where a mechanism leaks and certifies it on fresh trials', () => {
    // Correct (Lap(1) per entry, one-coordinate change) except when the first entry is ≥ 2, where
    // the noise drops to Lap(0.2): a 5-DP leak no listed pair (base all zeros) shows.
    const leaky: BlackBox<ReadonlyArray<number>> = (x, rng) => x.map((v) => v + snapped(laplaceNoise(rng, (x[0] as number) >= 2 ? 0.2 : 1)))
    const spec = { mechanism: leaky, pairs: coordinatePairs([0, 0], { positions: [0] }), claim: { epsilon: 1.5, delta: 0, relation: 'one-coordinate' as const }, trials: 40_000, seed: 'climb' }
    const r = searchInputs(spec, { searchTrials: 200_000, steps: 60 })
    if (E.isLeft(r)) throw new Error(r.left.message)
    expect(Math.max(r.right.chosen.input[0] as number, r.right.chosen.neighbour[0] as number)).toBeGreaterThanOrEqual(2)
    expect(r.right.result.verdict).toBe('violation')
    expect(r.right.result.seed).toBe('climb/final')
    expect(r.right.tried.length).toBeGreaterThan(10)
    expect(r.right.statement).toMatch(/fresh trials/)
  })
})
