/**
 * Private SVI for LDA (paper 002, issue 14): the digamma, online VB on a synthetic corpus, the
 * noised statistic's sensitivity by brute force, the samplers, ledger ≡ plan, bad input, and the
 * calibrated noise against the paper's chain.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { type Corpus, fromDocuments, corpusStats, selectDocuments } from '../../src/trainers/corpus/corpus.js'
import { completionHalves } from '../../src/trainers/corpus/dataset.js'
import { generateLda } from '../../src/trainers/corpus/synthetic.js'
import { heldOutPerplexity } from '../../src/trainers/eval/perplexity.js'
import { sameComposition, planOf } from '../../src/trainers/trainer.js'
import { privacyStatement } from '../../src/trainers/statement.js'
import { formatError } from '../../src/core/error.js'
import { digamma } from '../../src/trainers/svi/digamma.js'
import { bagOf, emptyBag, learningRate, OnlineLda } from '../../src/trainers/svi/ovb.js'
import { fillNormal, openUniform } from '../../src/mechanisms/noise/normal.js'
import { bernoulli, fixedSubset } from '../../src/mechanisms/noise/subsets.js'
import { truncate } from '../../src/trainers/svi/random.js'
import { SVI_DEFAULTS, type SviConfig, sviLda, sviLdaWithoutReplacement, sviTrainerFor, statisticSensitivity, noiseSigma } from '../../src/trainers/svi/trainer.js'
import { accountedEpsilon, calibrateMultiplier } from '../../src/trainers/svi/accounting.js'
import { zcdpChain } from '../../src/trainers/svi/chain.js'
import { multisets } from './multisets.js'

const words = (seed: number): WordStream => new WordStream(seededWords(seed))

const synthetic = (documents: number, seed = 7): { train: Corpus; test: Corpus; phi: Float64Array } => {
  const g = generateLda({ topics: 5, vocabulary: 60, documents, alpha: 0.2, beta: 0.1, meanDocumentLength: 50 }, seeded(seed))
  if (E.isLeft(g)) throw new Error(formatError(g.left))
  const c = g.right.corpus
  const ids = (from: number, to: number): Int32Array => Int32Array.from({ length: to - from }, (_, i) => from + i)
  return { train: selectDocuments(c, ids(0, documents - 40)), test: selectDocuments(c, ids(documents - 40, documents)), phi: g.right.phi }
}

const perplexity = (phi: Float64Array, K: number, test: Corpus): number => {
  const { observed, heldOut } = completionHalves(test)
  const r = heldOutPerplexity(phi, K, observed, heldOut)
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right.perplexity
}

const config = (over: Partial<SviConfig> = {}): SviConfig => ({ ...SVI_DEFAULTS, topics: 5, iterations: 20, sampling: 'poisson', ...over }) as SviConfig

describe('digamma (@stdlib/math-base-special-digamma, NaN for x ≤ 0)', () => {
  it('matches known values to 1e-13', () => {
    const euler = 0.5772156649015329
    const cases: Array<[number, number]> = [
      [1, -euler],
      [0.5, -euler - 2 * Math.LN2],
      [2, 1 - euler],
      [10, 2.251752589066721],
      [100, 4.600161852738087],
      [0.01, -100.56088545786867],
      [3.5, 1.1031566406452432],
    ]
    for (const [x, want] of cases) expect(Math.abs(digamma(x) - want)).toBeLessThan(1e-13 * Math.max(1, Math.abs(want)))
    expect(digamma(0)).toBeNaN()
  })
  it('satisfies ψ(x + 1) = ψ(x) + 1/x', () => {
    for (const x of [0.003, 0.7, 5.9, 6.1, 42, 1e6]) expect(Math.abs(digamma(x + 1) - digamma(x) - 1 / x)).toBeLessThan(1e-12 * Math.max(1, 1 / x))
  })
})

describe('online variational Bayes', () => {
  it('held-out perplexity falls on a synthetic corpus (non-private OVB, 3 passes)', () => {
    const { train, test } = synthetic(440)
    const { documents: D, vocabulary: V } = corpusStats(train)
    const K = 5
    const ovb = new OnlineLda(K, V, 0.2, 0.1)
    const w = words(1)
    for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = 0.5 + w.nextDouble()
    ovb.refresh()
    const before = perplexity(ovb.topics(), K, test)
    const S = 20
    const stats = new Float64Array(V * K)
    const seen = new Int32Array(V)
    const bag = emptyBag(1000)
    let t = 0
    for (let pass = 0; pass < 3; pass++)
      for (let b = 0; b + S <= D; b += S) {
        stats.fill(0)
        ovb.beginBatch()
        for (let d = b; d < b + S; d++) ovb.eStep(bagOf(train.tokens, train.docStart[d] as number, train.docStart[d + 1] as number, bag, seen), stats)
        ovb.update(ovb.endBatch(stats), learningRate(1, 0.7, ++t), D / S)
      }
    const after = perplexity(ovb.topics(), K, test)
    expect(after).toBeLessThan(0.8 * before)
  })

  it('the E-step contribution of a document has mass equal to its length and γ = α + Σ c φ', () => {
    const ovb = new OnlineLda(3, 4, 0.5, 0.1)
    const w = words(2)
    for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = 0.2 + 3 * w.nextDouble()
    ovb.refresh()
    const stats = new Float64Array(12)
    const gamma = new Float64Array(3)
    const bag = bagOf([0, 1, 1, 3, 3, 3], 0, 6, emptyBag(6), new Int32Array(4))
    ovb.documentStatistic(bag, stats, gamma)
    expect(stats.reduce((a, b) => a + b, 0)).toBeCloseTo(6, 12)
    const perTopic = [0, 1, 2].map((k) => stats[k]! + stats[3 + k]! + stats[6 + k]! + stats[9 + k]!)
    // γ was computed one half-step before the final φ: equal within the E-step tolerance
    for (let k = 0; k < 3; k++) expect(Math.abs(gamma[k]! - 0.5 - perTopic[k]!)).toBeLessThan(0.01)
  })
  it('a batch statistic (e^{E ln β} applied once at the end) equals the sum of the documents\' c·φ, computed directly', () => {
    const K = 4
    const V = 30
    const ovb = new OnlineLda(K, V, 0.1, 0.01)
    const w = words(4)
    for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = 0.05 + 5 * w.nextDouble()
    ovb.refresh()
    // documents of 1–40 tokens, so the eight-word blocks and the remainder loop are both exercised
    const docs = Array.from({ length: 6 }, (_, d) => Array.from({ length: 1 + ((d * 7 + 3) % 40) }, () => Math.floor(w.nextDouble() * V)))
    const batch = new Float64Array(V * K)
    ovb.beginBatch()
    const gammas: Float64Array[] = []
    for (const doc of docs) {
      const g = new Float64Array(K)
      ovb.eStep(bagOf(doc, 0, doc.length, emptyBag(doc.length), new Int32Array(V)), batch, g)
      gammas.push(g)
    }
    ovb.endBatch(batch)
    // directly: φ_wk ∝ e^{E ln θ_k} e^{E ln β_kw} from each document's γ (the E-step's final φ)
    const eb = ovb.expectedLogBetaExp()
    const direct = new Float64Array(V * K)
    docs.forEach((doc, d) => {
      const g = gammas[d]!
      const sg = digamma(g.reduce((a, b) => a + b, 0))
      const et = Array.from(g, (x) => Math.exp(digamma(x) - sg))
      for (const v of doc) {
        let norm = 1e-100
        for (let k = 0; k < K; k++) norm += et[k]! * eb[k * V + v]!
        for (let k = 0; k < K; k++) direct[v * K + k] = direct[v * K + k]! + (et[k]! * eb[k * V + v]!) / norm
      }
    })
    for (let i = 0; i < batch.length; i++) expect(Math.abs(batch[i]! - direct[i]!)).toBeLessThan(1e-12)
    expect(batch.reduce((a, b) => a + b, 0)).toBeCloseTo(docs.reduce((a, d) => a + d.length, 0), 10)
  })
})

describe('the noised statistic: declared sensitivity ≥ the brute-force maximum', () => {
  const documents = multisets
  const contribution = (ovb: OnlineLda, doc: ReadonlyArray<number>, V: number): Float64Array => {
    const s = new Float64Array(V * ovb.K)
    ovb.documentStatistic(bagOf(doc, 0, doc.length, emptyBag(doc.length), new Int32Array(V)), s)
    return s
  }
  const norm = (a: Float64Array, b?: Float64Array): number => Math.sqrt(a.reduce((s, x, i) => s + (x - (b?.[i] ?? 0)) ** 2, 0))

  it('over every document of ≤ N = 3 words on V = 3 (K = 2, several λ): add/remove ≤ N/S, replace-one ≤ √2·N/S', () => {
    const V = 3
    const N = 3
    const S = 4
    const docs = documents(V, N)
    expect(docs).toHaveLength(19)
    const w = words(3)
    for (let trial = 0; trial < 5; trial++) {
      const ovb = new OnlineLda(2, V, 0.1, 0.01)
      // include extreme λ: one topic owning a word almost entirely
      for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = trial === 0 ? (i % 2 === 0 ? 1e3 : 1e-3) : 0.01 + 10 * w.nextDouble()
      ovb.refresh()
      const cs = docs.map((d) => contribution(ovb, d, V))
      // the batch statistic (1/S)Σ: the other S − 1 documents' terms are identical under both corpora, so the difference is the one document's term over S
      const addRemove = Math.max(...cs.map((c) => norm(c))) / S
      let replace = 0
      for (const a of cs) for (const b of cs) replace = Math.max(replace, norm(a, b) / S)
      expect(addRemove).toBeLessThanOrEqual(statisticSensitivity({ truncation: N, batchSize: S, sampling: 'poisson' }) * (1 + 1e-12))
      expect(replace).toBeLessThanOrEqual(statisticSensitivity({ truncation: N, batchSize: S, sampling: 'without-replacement' }) * (1 + 1e-12))
      // and the bound is nearly attained (a word repeated N times, one dominant topic) in the extreme trial
      if (trial === 0) expect(addRemove).toBeGreaterThan(0.99 * (N / S))
    }
  })

  it('through the trainer: two corpora differing in one document, same batch and words, differ by ≤ Δ before noise', () => {
    const base = [
      [0, 1, 2, 2],
      [1, 1],
      [2, 0, 0, 1, 2, 2, 2],
    ]
    const V = 3
    const N = 3
    for (const other of [[0, 0, 0, 0, 0], [2], [1, 2, 1, 2, 1]]) {
      const seen: Float64Array[] = []
      for (const doc of [base[2]!, other]) {
        const corpus = fromDocuments(['a', 'b', 'c'], [base[0]!, base[1]!, doc])
        const c = config({ topics: 2, iterations: 1, batchSize: 3, truncation: N, sampling: 'without-replacement', noise: 'multiplier', multiplier: 1e-300 })
        const fit = sviLdaWithoutReplacement.fit(corpus, c, seeded(11), { onRelease: (r) => seen.push(r.value as Float64Array) })
        expect(E.isRight(fit)).toBe(true)
      }
      const d = Math.sqrt(seen[0]!.reduce((s, x, i) => s + (x - seen[1]![i]!) ** 2, 0))
      expect(d).toBeLessThanOrEqual(statisticSensitivity({ truncation: N, batchSize: 3, sampling: 'without-replacement' }))
      void V
    }
  })
})

describe('randomness from the gate', () => {
  it('openUniform is in (0, 1) and reaches deep exponents when the words are zero', () => {
    const w = words(4)
    for (let i = 0; i < 1000; i++) {
      const u = openUniform(w)
      expect(u > 0 && u < 1).toBe(true)
    }
    const zeros = new WordStream({ secret: false, label: 'zeros', fill: (b: Uint32Array) => b.fill(0) } as never)
    expect(openUniform(zeros)).toBe(2 ** -1022)
  })
  it('normals have mean 0 and variance σ²', () => {
    const z = fillNormal(words(5), 2, new Float64Array(200_001))
    const mean = z.reduce((a, b) => a + b, 0) / z.length
    const v = z.reduce((a, b) => a + (b - mean) ** 2, 0) / z.length
    expect(Math.abs(mean)).toBeLessThan(0.02)
    expect(Math.abs(v / 4 - 1)).toBeLessThan(0.02)
  })
  it('Bernoulli(q) is exact on q\'s binary expansion: q = 1/2 reads one word, and frequencies match', () => {
    const one = (x: number): WordStream => new WordStream({ secret: false, label: 'fixed', fill: (b: Uint32Array) => b.fill(x) } as never)
    expect(bernoulli(one(2 ** 31 - 1), 0.5)).toBe(true)
    expect(bernoulli(one(2 ** 31), 0.5)).toBe(false)
    const w = words(6)
    let k = 0
    for (let i = 0; i < 100_000; i++) if (bernoulli(w, 0.003)) k++
    expect(Math.abs(k - 300)).toBeLessThan(5 * Math.sqrt(300))
  })
  it('fixed-size subsets are uniform (all C(5,2) pairs appear about equally) and truncation keeps N distinct positions', () => {
    const w = words(7)
    const perm = Int32Array.from([0, 1, 2, 3, 4])
    const counts = new Map<string, number>()
    for (let i = 0; i < 20_000; i++) {
      fixedSubset(w, perm, 2)
      const key = [perm[0]!, perm[1]!].sort().join()
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    expect(counts.size).toBe(10)
    for (const n of counts.values()) expect(Math.abs(n - 2000)).toBeLessThan(250)
    const tokens = Int32Array.from([10, 11, 12, 13, 14, 15, 16])
    const out = new Int32Array(7)
    expect(truncate(w, tokens, 1, 7, 4, out, new Int32Array(7))).toBe(4)
    expect(new Set(out.subarray(0, 4)).size).toBe(4)
    for (const x of out.subarray(0, 4)) expect(x >= 11 && x <= 16).toBe(true)
  })
})

describe('the private trainer', () => {
  const { train, test } = synthetic(240)
  const stats = corpusStats(train)

  it('ledger ≡ plan for random configurations (both sampling models, every noise reading)', () => {
    fc.assert(
      fc.property(
        fc.record({
          iterations: fc.integer({ min: 1, max: 4 }),
          batchSize: fc.integer({ min: 1, max: 30 }),
          truncation: fc.integer({ min: 1, max: 80 }),
          sampling: fc.constantFrom('poisson' as const, 'without-replacement' as const),
          noise: fc.constantFrom('chain' as const, 'as-written' as const, 'multiplier' as const),
          seed: fc.integer({ min: 0, max: 1000 }),
        }),
        ({ seed, ...over }) => {
          const c = config({ ...over, topics: 3 })
          const tr = sviTrainerFor(c)
          const plan = planOf(tr, c, stats)
          const fit = tr.fit(train, c, seeded(seed))
          if (E.isLeft(plan) || E.isLeft(fit)) return false
          return sameComposition(plan.right, fit.right.ledger) && !fit.right.release.private
        },
      ),
      { numRuns: 12 },
    )
  })

  it('trains: private φ at large ε improves on the initial topics; every release leaves through the gate', () => {
    const releases: string[] = []
    const c = config({ iterations: 60, batchSize: 20, tau0: 1, noise: 'multiplier', multiplier: 0.05 })
    const fit = sviLda.fit(train, c, seeded(3), { onRelease: (r) => releases.push(r.label) })
    if (E.isLeft(fit)) throw new Error(formatError(fit.left))
    expect(releases).toHaveLength(60)
    const zero = sviLda.fit(train, { ...c, iterations: 1, multiplier: 1e6 }, seeded(3))
    if (E.isLeft(zero)) throw new Error(formatError(zero.left))
    expect(perplexity(fit.right.model.phi, 5, test)).toBeLessThan(perplexity(zero.right.model.phi, 5, test))
    expect(fit.right.model.theta).toBeUndefined()
  })

  it('bad input names the field: S > D, κ ∉ (0.5, 1], N < 1, τ0 < 0, mismatched sampling', () => {
    const field = (c: SviConfig): string => {
      const r = sviTrainerFor(c).validate(c, stats)
      return E.isLeft(r) && r.left._tag === 'InvalidParameter' ? r.left.path : 'none'
    }
    expect(field(config({ batchSize: stats.documents + 1 }))).toBe('batchSize')
    expect(field(config({ kappa: 0.5 }))).toBe('kappa')
    expect(field(config({ kappa: 1.01 }))).toBe('kappa')
    expect(field(config({ truncation: 0 }))).toBe('truncation')
    expect(field(config({ truncation: 2.5 }))).toBe('truncation')
    expect(field(config({ tau0: -1 }))).toBe('tau0')
    expect(field(config({ deltaTotal: 1 }))).toBe('deltaTotal')
    expect(field(config({ kappa: 1 }))).toBe('none')
    const wrong = sviLda.validate(config({ sampling: 'without-replacement' }), stats)
    expect(E.isLeft(wrong) && formatError(wrong.left)).toMatch(/sampling/)
    const fit = sviLda.fit(train, config({ batchSize: stats.documents + 1 }), seeded(1))
    expect(E.isLeft(fit) && formatError(fit.left)).toMatch(/batchSize.*exceeds the number of documents/)
  })

  it('the statement: as designed ε is small; as written (σ for N/D on a statistic of sensitivity N/S) it is huge', () => {
    const D = 400_000
    const big = { documents: D, vocabulary: 8000, tokens: 1e8, maxDocumentLength: 500 }
    const c = config({ topics: 100, batchSize: 400, iterations: 400 })
    const designed = privacyStatement(sviLda, c, big, [1e-4])
    const written = privacyStatement(sviLda, config({ topics: 100, batchSize: 400, iterations: 400, noise: 'as-written' }), big, [1e-4])
    if (E.isLeft(designed) || E.isLeft(written)) throw new Error('statement failed')
    expect(designed.right.guarantee[0]!.epsilon).toBeLessThan(1)
    expect(written.right.guarantee[0]!.epsilon).toBeGreaterThan(1e3)
    expect(designed.right.claim.atDelta[0]!.epsilon).toBe(1)
    const sigma = noiseSigma(c, D)
    const z = zcdpChain({ epsilonTotal: 1, deltaTotal: 1e-4, iterations: 400, rate: 400 / D, deltaReading: 'total-over-J', deltaIteration: 1e-6 })
    if (E.isLeft(sigma) || E.isLeft(z)) throw new Error('chain failed')
    expect(sigma.right).toBeCloseTo(z.right.z * (500 / 400), 12)
  })
})

describe('calibrated noise against the paper\'s chain (D = 400,000, S = 100, J = 1,600, (ε, δ) = (1, 1e-4))', () => {
  const s = { documents: 400_000, batchSize: 100, iterations: 1600, epsilonTotal: 1, deltaTotal: 1e-4, chain: { deltaReading: 'total-over-J' as const, deltaIteration: 1e-6 } }
  it('the chain prescribes z = 0.8416; RDP calibration meets the target with less noise under both sampling models', () => {
    const chain = zcdpChain({ ...s.chain, epsilonTotal: 1, deltaTotal: 1e-4, iterations: 1600, rate: 100 / 400_000 })
    if (E.isLeft(chain)) throw new Error('chain')
    expect(chain.right.z).toBeCloseTo(0.8416354, 6)
    for (const sampling of ['poisson', 'without-replacement'] as const) {
      const cal = calibrateMultiplier(sampling, s, 'rdp')
      if (E.isLeft(cal)) throw new Error(formatError(cal.left))
      expect(cal.right.epsilon).toBeLessThanOrEqual(1)
      expect(cal.right.z).toBeLessThan(chain.right.z)
      const check = accountedEpsilon(sampling, s, cal.right.z, ['rdp'])
      expect(E.isRight(check) && check.right.epsilon).toBeLessThanOrEqual(1)
    }
  })
})
