/**
 * Private SVI's optional per-document projection (`clipNorm`, the authors' code's clippingProportion):
 * the projected term's norm, the sensitivity the plan declares for it (brute force and through the
 * trainer), the statistic unchanged when nothing is projected, ledger ≡ plan, and bad values.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { formatError } from '../../src/core/error.js'
import { corpusStats, fromDocuments } from '../../src/trainers/corpus/corpus.js'
import { generateLda } from '../../src/trainers/corpus/synthetic.js'
import { sameComposition, planOf } from '../../src/trainers/trainer.js'
import { bagOf, emptyBag, OnlineLda } from '../../src/trainers/svi/ovb.js'
import { BatchStatistic } from '../../src/trainers/svi/statistic.js'
import { documentNormBound, noiseSigma, SVI_DEFAULTS, type SviConfig, sviTrainerFor, statisticSensitivity } from '../../src/trainers/svi/trainer.js'
import { multisets } from './multisets.js'

const config = (over: Partial<SviConfig> = {}): SviConfig => ({ ...SVI_DEFAULTS, topics: 2, iterations: 3, sampling: 'poisson', ...over }) as SviConfig
const norm = (a: ArrayLike<number>, b?: ArrayLike<number>): number => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += ((a[i] as number) - (b?.[i] ?? 0)) ** 2
  return Math.sqrt(s)
}

const documents = multisets

/** One document's term through BatchStatistic (S = 1, so the statistic is the term itself). */
const term = (ovb: OnlineLda, clipNorm: number | undefined, doc: ReadonlyArray<number>): Float64Array => {
  const s = new BatchStatistic(ovb, clipNorm)
  s.begin()
  s.add(bagOf(doc, 0, doc.length, emptyBag(doc.length), new Int32Array(ovb.V)))
  return Float64Array.from(s.finish(1))
}

describe('per-document projection to L2 norm ≤ C', () => {
  it('brute force over every document of ≤ 3 words on V = 3 (several λ): ‖term‖ ≤ min(C, N); add/remove ≤ min(C, N)/S, replace-one ≤ √2·min(C, N)/S', () => {
    const V = 3
    const N = 3
    const S = 4
    const docs = documents(V, N)
    const w = new WordStream(seededWords(5))
    for (const C of [0.5, 1.2, 2.5, 10]) {
      for (let trial = 0; trial < 4; trial++) {
        const ovb = new OnlineLda(2, V, 0.1, 0.01)
        for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = trial === 0 ? (i % 2 === 0 ? 1e3 : 1e-3) : 0.01 + 10 * w.nextDouble()
        ovb.refresh()
        const ts = docs.map((d) => term(ovb, C, d))
        const r = documentNormBound({ truncation: N, clipNorm: C })
        for (const t of ts) expect(norm(t)).toBeLessThanOrEqual(r * (1 + 1e-12))
        const addRemove = Math.max(...ts.map((t) => norm(t))) / S
        let replace = 0
        for (const a of ts) for (const b of ts) replace = Math.max(replace, norm(a, b) / S)
        expect(addRemove).toBeLessThanOrEqual(statisticSensitivity({ truncation: N, batchSize: S, sampling: 'poisson', clipNorm: C }) * (1 + 1e-12))
        expect(replace).toBeLessThanOrEqual(statisticSensitivity({ truncation: N, batchSize: S, sampling: 'without-replacement', clipNorm: C }) * (1 + 1e-12))
        // the bound binds: a word repeated N times under a dominant topic has norm ≈ N > C for C < N
        if (trial === 0 && C < N) expect(addRemove).toBeGreaterThan(0.99 * (C / S))
      }
    }
  })

  it('leaves terms of norm ≤ C unchanged: with C above every norm the batch statistic equals the unprojected one', () => {
    const g = generateLda({ topics: 3, vocabulary: 40, documents: 30, alpha: 0.2, beta: 0.1, meanDocumentLength: 30 }, seeded(2))
    if (E.isLeft(g)) throw new Error(formatError(g.left))
    const c = g.right.corpus
    const ovb = new OnlineLda(3, 40, 0.1, 0.01)
    const w = new WordStream(seededWords(9))
    for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = 0.5 + w.nextDouble()
    ovb.refresh()
    const run = (clip: number | undefined): { stats: Float64Array; projected: number } => {
      const s = new BatchStatistic(ovb, clip)
      const bag = emptyBag(500)
      const seen = new Int32Array(40)
      s.begin()
      for (let d = 0; d < 30; d++) s.add(bagOf(c.tokens, c.docStart[d] as number, c.docStart[d + 1] as number, bag, seen))
      return { stats: Float64Array.from(s.finish(30)), projected: s.projected }
    }
    const plain = run(undefined)
    const wide = run(1e9)
    expect(wide.projected).toBe(0)
    for (let i = 0; i < plain.stats.length; i++) expect(wide.stats[i]).toBeCloseTo(plain.stats[i] as number, 12)
    const tight = run(2)
    expect(tight.projected).toBeGreaterThan(0)
    expect(norm(tight.stats)).toBeLessThan(norm(plain.stats))
  })

  it('through the trainer: neighbouring corpora (one document replaced) release statistics ≤ √2·C/S apart; without the projection they are further apart', () => {
    const base = [
      [0, 1, 2, 2],
      [1, 1],
    ]
    const C = 1.5
    const S = 3
    // two long, repetitive documents: each term has norm ≈ its length (8) ≫ C
    const pair = [
      [0, 0, 0, 0, 0, 0, 0, 0],
      [2, 2, 2, 2, 2, 2, 2, 2],
    ]
    const distance = (clipNorm: number | undefined): number => {
      const seen: Float64Array[] = []
      for (const doc of pair) {
        const corpus = fromDocuments(['a', 'b', 'c'], [base[0]!, base[1]!, doc])
        const c = config({ batchSize: S, iterations: 1, truncation: 10, sampling: 'without-replacement', noise: 'multiplier', multiplier: 1e-300, ...(clipNorm === undefined ? {} : { clipNorm }) })
        const fit = sviTrainerFor(c).fit(corpus, c, seeded(11), { onRelease: (r) => seen.push(r.value as Float64Array) })
        if (E.isLeft(fit)) throw new Error(formatError(fit.left))
      }
      return norm(seen[0]!, seen[1]!)
    }
    const bound = statisticSensitivity({ truncation: 10, batchSize: S, sampling: 'without-replacement', clipNorm: C })
    expect(bound).toBeCloseTo((Math.SQRT2 * C) / S, 12)
    expect(distance(C)).toBeLessThanOrEqual(bound * (1 + 1e-12))
    expect(distance(undefined)).toBeGreaterThan(bound)
  })

  it('the plan declares the projected sensitivity: σ = z·min(C, N)/S, and ledger ≡ plan', () => {
    const g = generateLda({ topics: 3, vocabulary: 40, documents: 120, alpha: 0.2, beta: 0.1, meanDocumentLength: 30 }, seeded(4))
    if (E.isLeft(g)) throw new Error(formatError(g.left))
    const corpus = g.right.corpus
    const stats = corpusStats(corpus)
    fc.assert(
      fc.property(
        fc.record({
          clipNorm: fc.double({ min: 0.1, max: 60, noNaN: true }),
          truncation: fc.integer({ min: 1, max: 50 }),
          batchSize: fc.integer({ min: 1, max: 20 }),
          sampling: fc.constantFrom('poisson' as const, 'without-replacement' as const),
          noise: fc.constantFrom('chain' as const, 'multiplier' as const),
          seed: fc.integer({ min: 0, max: 100 }),
        }),
        ({ seed, ...over }) => {
          const c = config({ ...over, multiplier: 2 })
          const sigma = noiseSigma(c, stats.documents)
          if (E.isLeft(sigma)) return false
          const r = Math.min(over.clipNorm, over.truncation)
          if (c.noise === 'multiplier' && Math.abs(sigma.right - (2 * (over.sampling === 'poisson' ? 1 : Math.SQRT2) * r) / over.batchSize) > 1e-12 * sigma.right) return false
          const tr = sviTrainerFor(c)
          const plan = planOf(tr, c, stats)
          const fit = tr.fit(corpus, c, seeded(seed))
          if (E.isLeft(plan) || E.isLeft(fit)) return false
          const inner = JSON.stringify(plan.right)
          return sameComposition(plan.right, fit.right.ledger) && inner.includes(`"sensitivity":${statisticSensitivity(c)}`)
        },
      ),
      { numRuns: 10 },
    )
  })

  it('bad clipNorm names the field: 0, negative, NaN, ∞', () => {
    const stats = { documents: 100, vocabulary: 10, tokens: 1000, maxDocumentLength: 20 }
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const r = sviTrainerFor(config()).validate(config({ clipNorm: bad }), stats)
      expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' ? r.left.path : 'none').toBe('clipNorm')
      expect(E.isLeft(r) && formatError(r.left)).toMatch(/projection radius/)
    }
    expect(E.isRight(sviTrainerFor(config()).validate(config({ clipNorm: 50 }), stats))).toBe(true)
  })
})
