import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { auditMechanism, auditZoo } from '../../src/attacks/audit.js'
import type { BlackBox } from '../../src/attacks/output.js'
import { vectorPairs } from '../../src/attacks/pairs.js'
import { boundFromCounts } from '../../src/attacks/ratio-bound.js'
import { compileScorer } from '../../src/attacks/score.js'
import { evaluateFamily } from '../../src/attacks/search.js'
import { halvingShare, type PairSamples, resolutionCount, selectionFraction, zFor } from '../../src/attacks/select.js'
import { TrialRng } from '../../src/attacks/stream.js'
import { laplaceNoise, snapped } from '../../src/attacks/zoo/noise.js'
import { zooEntry } from '../../src/attacks/zoo/index.js'

/**
 * Selection at small claims (issue 23): the budget rule, a small-claim violation certified at a
 * modest seeded budget, and small-claim controls not flagged. Full-budget figures: bench/audit-zoo.mjs.
 */
describe('the selection budget rule', () => {
  it('is the old rule at ε ≥ 1 and grows monotonically as the claim shrinks, within its caps', () => {
    expect(selectionFraction(1)).toBe(0.2)
    expect(selectionFraction(5)).toBe(0.2)
    expect(selectionFraction(0.1)).toBeCloseTo(0.35, 2)
    expect(halvingShare(400_000, 2, 4, 1)).toBe(Math.floor(400_000 / 2 / 2 / 8))
    expect(resolutionCount(1)).toBe(50)
    expect(resolutionCount(0.1)).toBe(3200)
    const eps = fc.double({ min: 1e-3, max: 20, noNaN: true })
    fc.assert(
      fc.property(eps, eps, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        return (
          selectionFraction(lo) >= selectionFraction(hi) &&
          selectionFraction(lo) <= 0.35 &&
          halvingShare(1e6, 3, 8, lo) >= halvingShare(1e6, 3, 8, hi) &&
          halvingShare(1e6, 3, 8, lo) * 3 * 2 * 8 <= 1e6 &&
          resolutionCount(lo) >= resolutionCount(hi)
        )
      }),
      { seed: 23, numRuns: 500 },
    )
  })
})

/** The seed of the Alg. 3 selection check (one of those measured in docs/auditing.md). */
const SEED = 3

describe('selection at small claims (seeded, 95 %)', () => {
  it('certifies report noisy max returning the noisy value (Laplace(2/ε), ε = 0.1, true 0.25) at 400,000 trials', () => {
    const epsilon = 0.1
    const mechanism: BlackBox<ReadonlyArray<number>> = (q, rng) => {
      let best = -Infinity
      for (const x of q) best = Math.max(best, x + snapped(laplaceNoise(rng, 2 / epsilon)))
      return best
    }
    const r = auditMechanism({
      mechanism,
      pairs: vectorPairs([1, 1, 1, 1, 1], { patterns: ['one-up', 'all-up', 'one-up-rest-down'] }),
      claim: { epsilon, delta: 0 },
      trials: 400_000,
      seed: 'issue-23-rnm3',
    })
    expect(E.isRight(r)).toBe(true)
    if (E.isLeft(r)) return
    expect(r.right.verdict).toBe('violation')
    expect(r.right.epsilonLowerBound).toBeGreaterThan(epsilon)
    expect(r.right.epsilonLowerBound).toBeLessThanOrEqual(0.25)
    expect(r.right.attack?.pairLabel).toBe('all-up')
  })
  it('certifies the exponential-noise noisy maximum (ε = 0.1, true ∞) from the zoo at 300,000 trials, without a support oracle', () => {
    const r = auditZoo('noisy-max-exponential-value-small-epsilon', { trials: 300_000, seed: 'issue-23-rnm4' })
    expect(E.isRight(r)).toBe(true)
    if (E.isLeft(r)) return
    expect(r.right.support).toBeNull()
    expect(r.right.verdict).toBe('violation')
  })
  it('the joint family finds Lyu et al.\'s Alg. 3 violation at ε = 0.1 on one pair: chosen on 51,000 outputs per side, certified on fresh 325,000', () => {
    // What the audit gives its final pair at the CLI default of 10⁶ trials (bench/audit-zoo.mjs), on the
    // pair an oracle rates best (docs/auditing.md: oracle event 0.131 at this estimation size).
    const e = zooEntry('sparse-vector-noisy-value-small-epsilon')
    if (e === undefined) throw new Error('zoo entry missing')
    const m = e.make(e.defaultClaim) as unknown as BlackBox<ReadonlyArray<number>>
    const pair = e.pairs().find((p) => p.label === 'half-up-half-down') as { input: ReadonlyArray<number>; neighbour: ReadonlyArray<number> }
    const outputs = (x: ReadonlyArray<number>, n: number, key: readonly [number, number]): Float64Array => {
      const rng = new TrialRng(key)
      const v = new Float64Array(n * 5)
      for (let i = 0; i < n; i++) {
        rng.reset(i)
        v.set(m(x, rng) as ReadonlyArray<number>, i * 5)
      }
      return v
    }
    const [n, N] = [51_000, 325_000]
    const projection = { n: N, z: zFor(0.025), zRatio: zFor(0.05) }
    const s: PairSamples = { shape: { kind: 'vector', dim: 5 }, n: [n, n], values: [outputs(pair.input, n, [SEED, 1]), outputs(pair.neighbour, n, [SEED, 2])], codes: [new Int32Array(0), new Int32Array(0)], categories: [] }
    const job = { pair: 0, samples: s, family: 'joint', delta: 0, z: projection.z, projection } as const
    const model = evaluateFamily({ ...job, part: 'model' })
    const event = evaluateFamily({ ...job, part: 'event' })
    if (model?.part !== 'model' || event?.part !== 'event') throw new Error('the joint family applies to these outputs')
    const score = compileScorer(model.model, s.shape)
    if (score.kind !== 'vector') throw new Error('vector scorer expected')
    const { orientation, threshold } = event.event.result
    const inEvent = [0, 0]
    for (const side of [0, 1] as const) {
      const v = outputs(side === 0 ? pair.input : pair.neighbour, N, [SEED, 3 + side])
      for (let i = 0; i < N; i++) if (orientation * score.score(v, i * 5) >= threshold) inEvent[side]!++
    }
    const bound = boundFromCounts(event.event.form, inEvent[1] as number, N, N - (inEvent[0] as number), N, 0, 0.05)
    expect(bound).toBeGreaterThan(0.1)
    expect(bound).toBeLessThanOrEqual(e.trueEpsilon(e.defaultClaim))
  })
  for (const name of ['laplace-clamped-small-epsilon', 'report-noisy-max-fresh-value-small-epsilon', 'report-noisy-max-exponential-small-epsilon', 'sparse-vector-fresh-value-small-epsilon']) {
    it(`does not flag the control ${name} (300,000 trials)`, () => {
      const r = auditZoo(name, { trials: 300_000, seed: `issue-23-${name}` })
      expect(E.isRight(r)).toBe(true)
      if (E.isLeft(r)) return
      expect(r.right.status).toBe('complete')
      expect(r.right.verdict).not.toBe('violation')
      expect(r.right.epsilonLowerBound).toBeLessThanOrEqual(zooEntry(name)?.trueEpsilon(r.right.claim) ?? 0)
    })
  }
})
