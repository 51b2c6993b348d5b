/**
 * Membership inference on an LDA-based classifier (paper 001 Fig. 7) as a calibrated game:
 * the classifier's pieces against hand-checked values, the statistic separating members on
 * non-private CGS, and HDP-LDA's bound staying at or below its accounted ε.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { planOf } from '../../src/trainers/trainer.js'
import { describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { seeded } from '../../src/core/rng.js'
import {
  auditClassifierMembership,
  centroidClassifier,
  foldInTheta,
  labelLogProbability,
  type LabelledCorpusJson,
  predictLabel,
} from '../../src/attacks/trainers/classifier-membership.js'
import { hdpLda } from '../../src/trainers/hdp.js'

/** Two labels over a 20-word vocabulary: label a draws 85 % of its words from 0..9, label b from 10..19. */
const labelled = (documents: number, length: number, seed: string): LabelledCorpusJson => {
  const rng = seeded(seed)
  const docs: number[][] = []
  const labels: string[] = []
  for (let d = 0; d < documents; d++) {
    const a = d % 2 === 0
    docs.push(Array.from({ length }, () => (rng.next() < 0.85 === a ? 0 : 10) + Math.floor(rng.next() * 10)))
    labels.push(a ? 'a' : 'b')
  }
  return { vocab: Array.from({ length: 20 }, (_, i) => `w${i}`), documents: docs, labels }
}

describe('LDA-based classifier', () => {
  it('fold-in recovers the topic of a one-topic document and θ sums to 1', () => {
    // φ: topic 0 on words 0–1, topic 1 on words 2–3 (K = 2, V = 4)
    const phi = Float64Array.from([0.5, 0.5, 0, 0, 0, 0, 0.5, 0.5])
    const theta = foldInTheta(phi, 2, 4, [0, 1, 0, 1], 0.01, 50, new Float64Array(2), new Float64Array(2))
    expect(theta[0]! + theta[1]!).toBeCloseTo(1, 12)
    // MAP fixed point: θ_0 = (α + 4)/(4 + 2α)
    expect(theta[0]).toBeCloseTo(4.01 / 4.02, 9)
  })

  it('the centroid classifier predicts the nearer class and its probabilities sum to 1', () => {
    const theta = Float64Array.from([0.9, 0.1, 0.8, 0.2, 0.1, 0.9, 0.2, 0.8])
    const c = centroidClassifier(theta, 2, ['x', 'x', 'y', 'y'])
    expect(predictLabel(c, [0.85, 0.15])).toBe('x')
    expect(predictLabel(c, [0.15, 0.85])).toBe('y')
    const p = Math.exp(labelLogProbability(c, [0.5, 0.5], 'x')) + Math.exp(labelLogProbability(c, [0.5, 0.5], 'y'))
    expect(p).toBeCloseTo(1, 12)
    // equidistant from both centroids with equal priors: 1/2 each
    expect(labelLogProbability(c, [0.5, 0.5], 'x')).toBeCloseTo(Math.log(0.5), 12)
  })

  it('property: θ is a distribution and the label probabilities sum to 1, for any φ, document and labels', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }),
        fc.integer({ min: 2, max: 8 }),
        fc.array(fc.double({ min: 0.01, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom('x', 'y', 'z'), { minLength: 3, maxLength: 6 }),
        (K, V, raw, words, labels) => {
          // φ rows normalised from positive weights
          const phi = new Float64Array(K * V)
          for (let k = 0; k < K; k++) {
            let z = 0
            for (let w = 0; w < V; w++) z += raw[(k * V + w) % raw.length]!
            for (let w = 0; w < V; w++) phi[k * V + w] = raw[(k * V + w) % raw.length]! / z
          }
          const doc = words.map((w) => w % V)
          const theta = foldInTheta(phi, K, V, doc, 0.1, 10, new Float64Array(K), new Float64Array(K))
          expect(theta.reduce((a, x) => a + x, 0)).toBeCloseTo(1, 10)
          expect(theta.every((x) => x > 0)).toBe(true)
          const rows = new Float64Array(labels.length * K)
          for (let d = 0; d < labels.length; d++) foldInTheta(phi, K, V, doc.slice(d % doc.length), 0.1, 5, rows.subarray(d * K, (d + 1) * K), new Float64Array(K))
          const c = centroidClassifier(rows, K, labels)
          const total = c.labels.reduce((a, l) => a + Math.exp(labelLogProbability(c, theta, l)), 0)
          expect(total).toBeCloseTo(1, 10)
          expect(c.labels).toContain(predictLabel(c, theta))
        },
      ),
      { seed: 16, numRuns: 200 },
    )
  })

  it('refuses a target word outside the vocabulary, naming the field', () => {
    const corpus = labelled(10, 10, 'lbl')
    const r = auditClassifierMembership({ trainer: 'cgs', config: { topics: 2, iterations: 5 }, corpus, target: { words: [0, 99], label: 'a' }, claim: { epsilon: 1, delta: 0 }, runs: 40, seed: 's' })
    expect(E.isLeft(r) && r.left.path).toBe('$.target.words[1]')
  })

  it('refuses a target label the corpus does not have, naming the field', () => {
    const corpus = labelled(10, 10, 'lbl')
    const r = auditClassifierMembership({ trainer: 'cgs', config: { topics: 2, iterations: 5 }, corpus, target: { words: [0, 1], label: 'z' }, claim: { epsilon: 1, delta: 0 }, runs: 40, seed: 's' })
    expect(E.isLeft(r) && r.left.path).toBe('$.target.label')
  })
})

describe('membership inference on the classifier (add/remove one document)', () => {
  const corpus = labelled(12, 12, 'cm-corpus')
  // an atypical target: a label-a document written in label b's words, so membership moves its class
  const target = { words: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 10, 11], label: 'a' }

  it('non-private CGS: the statistic separates members from non-members and certifies a positive ε', () => {
    const r = auditClassifierMembership({ trainer: 'cgs', config: { topics: 2, iterations: 15, alpha: 0.5, beta: 0.1 }, corpus, target, claim: { epsilon: 0.1, delta: 0 }, runs: 200, seed: 'cm-cgs' })
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(r.right.meanStatistic.member).toBeGreaterThan(r.right.meanStatistic.nonMember)
    expect(r.right.epsilonLowerBound).toBeGreaterThan(0.1)
    expect(r.right.verdict).toBe('violation')
    expect(r.right.release).toMatch(/none is a private release/)
    // seeded: the same seed repeats exactly
    const again = auditClassifierMembership({ trainer: 'cgs', config: { topics: 2, iterations: 15, alpha: 0.5, beta: 0.1 }, corpus, target, claim: { epsilon: 0.1, delta: 0 }, runs: 200, seed: 'cm-cgs' })
    expect(again).toEqual(r)
  })

  it('HDP-LDA: the bound does not exceed the accounted ε', () => {
    const config = { topics: 2, iterations: 3, epsilonL: 0.2, clip: 0.1, beta: 1, alpha: 0.5, noise: 'fresh' }
    const plan = planOf(hdpLda, config as never, undefined as never)
    if (E.isLeft(plan)) throw new Error('plan')
    const acc = account({ schemaVersion: 1, relation: hdpLda.relation, event: plan.right }, { deltas: [1e-5] })
    if (E.isLeft(acc)) throw new Error('account')
    const accounted = (acc.right.tightest[0] as { epsilon: number }).epsilon
    const r = auditClassifierMembership({ trainer: 'hdp-lda', config, corpus, target, claim: { epsilon: accounted, delta: 1e-5 }, runs: 200, seed: 'cm-hdp' })
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    // HDP-LDA accounts per replaced word; an added document is a wider step, so this per-word ε is the stricter claim
    expect(r.right.epsilonLowerBound).toBeLessThanOrEqual(accounted)
    expect(r.right.verdict).not.toBe('violation')
  })
})
