import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatError } from '../../src/core/error.js'
import { compose, gaussian, labeled, poissonSample, type PrivacyEvent, selfCompose } from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { type CorpusStats, type LdaTrainer, planOf as trainerPlan, privacyStatement, subLda, type SubConfig } from '../../src/trainers/index.js'
import { subLdaSigma } from '../../src/trainers/sub-analysis.js'
import { topicDrawEvent } from '../../src/trainers/hdp.js'
import { replaceOneByApproxGroup, replaceOneByRdpGroup } from '../../src/trainers/statement.js'

// SUB-LDA's trainer now accounts directly under replace-one (its sample is shared with the draws,
// so nothing is amplified). The group-privacy routes of statement.ts serve a trainer whose plan is
// accounted under add/remove; they are tested on SUB-LDA as the paper analyses it: Poisson-subsampled
// Gaussians (σ² = α/(2ε(α)), Δ₂ = 1) and draws under add/remove one word.
const AR = addRemove('word')
/** A schedule whose plan is `event` run once. */
const oneStep = (event: PrivacyEvent) => ({ each: [{ label: 'the paper’s SUB-LDA', event }], iterations: 1 })
const paperSubLda: LdaTrainer<SubConfig> = {
  ...subLda,
  accountingRelation: AR,
  schedule: (c: SubConfig) =>
    E.right(oneStep(selfCompose(poissonSample(c.gamma, compose([gaussian(subLdaSigma(c.order, c.rdpEpsilon), 1, AR), labeled('draws', topicDrawEvent(c.clip, c.beta, AR))])), c.iterations))),
}

const stats: CorpusStats = { documents: 50, vocabulary: 100, tokens: 5_000, maxDocumentLength: 300 }
const SEED = 1702
const DELTA = 1e-5

const config = (over: Partial<SubConfig>): SubConfig => ({ ...(subLda.defaults as unknown as SubConfig), topics: 20, iterations: 100, ...over })

const statement = (c: SubConfig, deltas: ReadonlyArray<number> = [DELTA]) => {
  const s = privacyStatement(paperSubLda, c, stats, deltas)
  if (E.isLeft(s)) throw new Error(formatError(s.left))
  return s.right
}

const planOf = (c: SubConfig) => {
  const p = trainerPlan(paperSubLda, c, stats)
  if (E.isLeft(p)) throw new Error(formatError(p.left))
  return p.right
}

describe('replace-one by group privacy from an add/remove plan (SUB-LDA as the paper analyses it): the smaller of (ε, δ) and RDP group privacy', () => {
  it('at the defaults (γ = 0.1, α = 14, ε(α) = 2, C = 100, T = 100) the (ε, δ) route gives ∞ and the RDP route a finite ε', () => {
    const c = config({})
    expect([c.gamma, c.order, c.rdpEpsilon, c.clip]).toEqual([0.1, 14, 2, 100])
    const approx = replaceOneByApproxGroup(planOf(c), AR, DELTA)
    const rdp = replaceOneByRdpGroup(planOf(c), AR, [DELTA])
    if (E.isLeft(approx) || E.isLeft(rdp)) throw new Error('route failed')
    expect(approx.right.epsilon).toBe(Number.POSITIVE_INFINITY)
    const viaRdp = rdp.right[0]?.epsilon as number
    expect(Number.isFinite(viaRdp)).toBe(true)

    const s = statement(c)
    const g = s.guarantee[0]
    expect(g?.epsilon).toBe(viaRdp)
    expect(g?.method).toMatch(/RDP group privacy \(Mironov 2017 Prop\. 11, weak triangle\)/)
    expect(s.notes.join('\n')).toMatch(/RDP route ε = [0-9.]+, \(ε, δ\) route ε = ∞/)
  })

  it('reports the (ε, δ) route where it is the smaller (one iteration, tiny ε)', () => {
    const s = statement(config({ iterations: 1, clip: 0.001, beta: 1, gamma: 0.01, rdpEpsilon: 0.1 }))
    expect(s.guarantee[0]?.method).toMatch(/^group privacy \(k = 2\)/)
  })

  it('never reports less than the add/remove-accounted ε, and reports the smaller route', () => {
    const arb = fc.record({
      gamma: fc.double({ min: 0.001, max: 0.5, noNaN: true }),
      iterations: fc.integer({ min: 1, max: 300 }),
      clip: fc.double({ min: 0.001, max: 100, noNaN: true }),
      beta: fc.double({ min: 0.01, max: 1, noNaN: true }),
      order: fc.integer({ min: 2, max: 32 }),
      rdpEpsilon: fc.double({ min: 0.05, max: 4, noNaN: true }),
    })
    fc.assert(
      fc.property(arb, (r) => {
        const c = config(r)
        const deltas = [1e-5, 1e-8]
        const s = statement(c, deltas)
        const rdp = replaceOneByRdpGroup(planOf(c), AR, deltas)
        if (E.isLeft(rdp)) throw new Error(formatError(rdp.left))
        deltas.forEach((d, i) => {
          const g = s.guarantee[i]?.epsilon as number
          expect(g).toBeGreaterThanOrEqual(s.accounted[i]?.epsilon as number)
          const approx = replaceOneByApproxGroup(planOf(c), AR, d)
          if (E.isLeft(approx)) throw new Error(formatError(approx.left))
          expect(g).toBe(Math.min(approx.right.epsilon, rdp.right[i]?.epsilon as number))
        })
      }),
      { seed: SEED, numRuns: 12 },
    )
  })
})
