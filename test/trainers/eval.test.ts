import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { cgs, fromDocuments, generateLda, heldOutPerplexity, topicRecoveryError } from '../../src/trainers/index.js'
import { hungarian } from '../../src/trainers/eval/recovery.js'

describe('held-out perplexity', () => {
  it('is V for uniform topics', () => {
    const V = 7
    const c = fromDocuments(Array.from({ length: V }, (_, i) => `w${i}`), [Int32Array.from([0, 1, 2]), Int32Array.from([3, 4])])
    const phi = new Float64Array(2 * V).fill(1 / V)
    const p = heldOutPerplexity(phi, 2, c, c)
    if (E.isLeft(p)) throw new Error('failed')
    expect(p.right.perplexity).toBeCloseTo(V, 10)
  })
  it('rejects a φ whose rows do not sum to 1', () => {
    const c = fromDocuments(['a', 'b'], [Int32Array.from([0, 1])])
    expect(E.isLeft(heldOutPerplexity(new Float64Array(4).fill(0.3), 2, c, c))).toBe(true)
  })
})

describe('topic recovery', () => {
  it('the Hungarian algorithm finds the optimal assignment', () => {
    const cost = Float64Array.from([4, 1, 3, 2, 0, 5, 3, 2, 2])
    expect(Array.from(hungarian(cost, 3))).toEqual([1, 0, 2])
  })
  it('is 0 for a permutation of the truth', () => {
    const truth = Float64Array.from([0.5, 0.5, 0, 0, 0, 1, 1, 0, 0])
    const est = Float64Array.from([1, 0, 0, 0.5, 0.5, 0, 0, 0, 1])
    const r = topicRecoveryError(est, truth, 3, 3)
    if (E.isLeft(r)) throw new Error('failed')
    expect(r.right.meanL1).toBe(0)
    expect(Array.from(r.right.matching)).toEqual([2, 0, 1])
  })
  it('CGS recovers synthetic topics (K = 5, V = 100, 400 documents)', () => {
    const s = generateLda({ topics: 5, vocabulary: 100, documents: 400, alpha: 0.1, beta: 0.1, meanDocumentLength: 60 }, seeded(3))
    if (E.isLeft(s)) throw new Error('generate failed')
    const f = cgs.fit(s.right.corpus, { topics: 5, iterations: 100, alpha: 0.1, beta: 0.01 }, seeded(4), { logLikelihoodEvery: 10 })
    if (E.isLeft(f)) throw new Error('fit failed')
    const r = topicRecoveryError(f.right.model.phi, s.right.phi, 5, 100)
    if (E.isLeft(r)) throw new Error('failed')
    expect(r.right.meanL1).toBeLessThan(0.3)
    // the training log-likelihood rises
    const t = f.right.trace.filter((x) => !Number.isNaN(x.logLikelihood))
    expect((t[t.length - 1] as { logLikelihood: number }).logLikelihood).toBeGreaterThan((t[0] as { logLikelihood: number }).logLikelihood)
  })
})
