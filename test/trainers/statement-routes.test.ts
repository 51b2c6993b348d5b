import normalCdf from '@stdlib/stats-base-dists-normal-cdf'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { formatError } from '../../src/core/error.js'
import { compose, gaussian, laplace, type PrivacyEvent, poissonSample, selfCompose } from '../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'
import { type CorpusStats, type LdaTrainer, privacyStatement, subLda, type SubConfig } from '../../src/trainers/index.js'
import { replaceOneByApproxGroup, replaceOneByRdpGroup, replaceOneDirect } from '../../src/trainers/statement.js'

// A trainer that protects replace-one words but whose plan is stated and accounted under add/remove
// (the shape SUB-LDA has in its paper's analysis): the statement's replace-one ε is the smallest of
// the direct replace-one accounting, RDP group privacy at the best real order, and (ε, δ) group privacy.
const AR = addRemove('word')
const RO = replaceOne('word')
const trainerOf = (event: PrivacyEvent): LdaTrainer<SubConfig> => ({ ...subLda, relation: RO, accountingRelation: AR, schedule: () => E.right({ each: [{ label: 'plan', event }], iterations: 1 }) })
const config = { ...(subLda.defaults as unknown as SubConfig), topics: 20, iterations: 10 }
const stats: CorpusStats = { documents: 50, vocabulary: 100, tokens: 5_000, maxDocumentLength: 300 }
const SEED = 20_261_124

const right = <A>(x: E.Either<{ readonly _tag: string }, A>): A => {
  if (E.isLeft(x)) throw new Error(formatError(x.left as never))
  return x.right
}
const statement = (event: PrivacyEvent, deltas: ReadonlyArray<number>) => right(privacyStatement(trainerOf(event), config, stats, deltas))

/**
 * The exact (ε, δ) curve of the Gaussian mechanism with sensitivity d and noise σ (Balle & Wang
 * 2018, Thm 8): δ(ε) = Φ(d/2σ − εσ/d) − e^ε Φ(−d/2σ − εσ/d), inverted for ε by bisection.
 */
const gaussianExactDelta = (sigma: number, d: number, eps: number): number =>
  normalCdf(d / (2 * sigma) - (eps * sigma) / d, 0, 1) - Math.exp(eps) * normalCdf(-d / (2 * sigma) - (eps * sigma) / d, 0, 1)
const gaussianExactEpsilon = (sigma: number, d: number, delta: number): number => {
  let lo = 0
  let hi = 1
  while (gaussianExactDelta(sigma, d, hi) > delta) hi *= 2
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2
    if (gaussianExactDelta(sigma, d, mid) > delta) lo = mid
    else hi = mid
  }
  return hi
}

describe('replace-one statements from an add/remove plan', () => {
  it('exact case: one Gaussian of add/remove sensitivity Δ is accounted directly as a Gaussian of sensitivity 2Δ (closed form of Balle & Wang 2018)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 20, noNaN: true }), fc.double({ min: 0.1, max: 3, noNaN: true }), fc.constantFrom(1e-5, 1e-8), (sigma, d, delta) => {
        const direct = right(replaceOneDirect(gaussian(sigma, d, AR), RO, [delta]))[0]
        const asTwice = right(account({ schemaVersion: 1, relation: AR, event: gaussian(sigma, 2 * d, AR) }, { deltas: [delta] })).tightest[0]
        const exact = gaussianExactEpsilon(sigma, 2 * d, delta)
        expect(direct?.method).toMatch(/^accounted directly under replace-one one word: /)
        expect(direct?.epsilon).toBeCloseTo(asTwice?.epsilon as number, 9)
        expect(Math.abs((direct?.epsilon as number) / exact - 1)).toBeLessThan(1e-6)
        // Sound: the reported ε admits no more than δ under the exact curve.
        expect(gaussianExactDelta(sigma, 2 * d, direct?.epsilon as number)).toBeLessThanOrEqual(delta * (1 + 1e-6))
        const s = statement(gaussian(sigma, d, AR), [delta])
        expect(s.guarantee[0]?.epsilon).toBe(direct?.epsilon)
      }),
      { seed: SEED, numRuns: 8 },
    )
  })

  it('Poisson-subsampled Gaussians: the smallest route, never below a lower bound on the add/remove ε, RDP route never above its grid answer', () => {
    // Direction: a Gaussian sum query whose records contribute vectors of norm ≤ Δ admits a record
    // contributing 0, and replacing x by it is, in distribution, removing x; so the true replace-one
    // ε is at least the true add/remove ε, which is at least the PLD accountant's optimistic estimate.
    const arb = fc.record({
      q: fc.double({ min: 0.002, max: 0.3, noNaN: true }),
      sigma: fc.double({ min: 0.7, max: 4, noNaN: true }),
      steps: fc.integer({ min: 1, max: 100 }),
    })
    const deltas = [1e-5, 1e-8]
    fc.assert(
      fc.property(arb, ({ q, sigma, steps }) => {
        const plan = selfCompose(poissonSample(q, gaussian(sigma, 1, AR)), steps)
        const s = statement(plan, deltas)
        const grid = right(replaceOneByRdpGroup(plan, AR, deltas, { continuous: false }))
        const rdp = right(replaceOneByRdpGroup(plan, AR, deltas))
        const direct = right(replaceOneDirect(plan, RO, deltas))
        const pld = right(account({ schemaVersion: 1, relation: AR, event: plan }, { deltas, accountants: ['pld'] })).results[0]
        if (pld === undefined || !pld.ok) throw new Error('the add/remove PLD did not answer')
        deltas.forEach((d, i) => {
          const approx = right(replaceOneByApproxGroup(plan, AR, d))
          const g = s.guarantee[i]?.epsilon as number
          const r = rdp[i]?.epsilon as number
          const x = direct[i]?.epsilon as number
          expect(r).toBeLessThanOrEqual(grid[i]?.epsilon as number)
          expect(g).toBe(Math.min(approx.epsilon, r, x))
          const lower = pld.answers[i]?.lower as number
          expect(lower).toBeGreaterThan(0)
          for (const v of [g, r, x, approx.epsilon]) expect(v).toBeGreaterThanOrEqual(lower)
        })
        expect(s.notes.join('\n')).toMatch(/δ = 1e-5: direct ε = [0-9.]+, RDP route ε = [0-9.]+, \(ε, δ\) route ε = [0-9.∞]+/)
      }),
      { seed: SEED, numRuns: 6 },
    )
  })

  it('names the direct route where it answers, and falls back to group privacy where the direct accountants refuse', () => {
    const sampled = selfCompose(poissonSample(0.01, gaussian(1.1, 1, AR)), 100)
    const s = statement(sampled, [1e-5])
    expect(s.guarantee[0]?.method).toMatch(/^accounted directly under replace-one one word: route: direct replace-one pairs under Poisson subsampling/)
    // A sampled composition of a Gaussian and a Laplace has no direct replace-one pair.
    const mixed = selfCompose(poissonSample(0.01, compose([gaussian(1.1, 1, AR), laplace(20, 1, AR)])), 100)
    const direct = right(replaceOneDirect(mixed, RO, [1e-5]))[0]
    expect(direct?.epsilon).toBe(Number.POSITIVE_INFINITY)
    const m = statement(mixed, [1e-5])
    expect(Number.isFinite(m.guarantee[0]?.epsilon)).toBe(true)
    expect(m.guarantee[0]?.method).toMatch(/^(RDP group privacy|group privacy \(k = 2\))/)
    expect(m.notes.join('\n')).toMatch(/direct ε = ∞/)
  })

  it('the RDP route reports the real order it used and the grid order it started from', () => {
    const r = right(replaceOneByRdpGroup(selfCompose(poissonSample(0.01, gaussian(1.1, 1, AR)), 100), AR, [1e-5]))[0]
    const g = right(replaceOneByRdpGroup(selfCompose(poissonSample(0.01, gaussian(1.1, 1, AR)), 100), AR, [1e-5], { continuous: false }))[0]
    expect(r?.method).toMatch(/at the real order α = [0-9.]+ \(continuous search from the grid's best α = [0-9.]+ of 125\)/)
    expect(g?.method).toMatch(/at α = [0-9.]+ of 125 →/)
    expect(r?.epsilon).toBeLessThan(g?.epsilon as number)
  })
})
