// LP-LDA (paper 001 §V, issue 13): the user side (exact bitwise randomized response), the server
// side (n_t, N̂_t, reconstruction) on the reports alone, the privacy per unit, plan ≡ ledger, and
// bad input.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { secure, seeded } from '../../src/core/rng.js'
import { type RandomWords, seededWords, WordStream } from '../../src/core/words.js'
import { corpusStats, fromDocuments, generateLda, lpLda, type LpConfig, privacyStatement, sameComposition, planOf } from '../../src/trainers/index.js'
import { bernoulliWord, binaryDigits, type LocalReports, perturbDocuments, strideOf, type UserDocuments } from '../../src/trainers/lp/perturb.js'
import { estimateCounts, estimateVariance, onesPerWord, presenceCorpus, reconstruct } from '../../src/trainers/lp/estimate.js'
import { unitGuarantees } from '../../src/trainers/lp/lp-lda.js'
import type { ReleaseRecord } from '../../src/mechanisms/gate.js'

const synth = generateLda({ topics: 3, vocabulary: 40, documents: 40, alpha: 0.2, beta: 0.1, meanDocumentLength: 25 }, seeded(13))
if (E.isLeft(synth)) throw new Error('generate failed')
const corpus = synth.right.corpus
const stats = corpusStats(corpus)
const config = (patch: Partial<LpConfig> = {}): LpConfig => ({ topics: 3, iterations: 3, alpha: 0.1, beta: 0.1, flip: 0.5, shuffler: false, ...patch })
const stream = (seed: number): WordStream => new WordStream(seededWords(seed))
const docsOf = (c: typeof corpus): UserDocuments => ({ V: c.vocab.length, docStart: c.docStart, tokens: c.tokens })

/** A word source that replays the given words (then zeros). */
const replay = (words: ReadonlyArray<number>): WordStream => {
  let i = 0
  const source: RandomWords = { kind: 'replay', secret: false, fill: (out) => { for (let j = 0; j < out.length; j++) out[j] = words[i++] ?? 0 } }
  return new WordStream(source, 1)
}

describe('user side: exact Bernoulli(f/2) flips, 32 at a time', () => {
  it('binaryDigits is the exact expansion of a double', () => {
    expect(Array.from(binaryDigits(0.25))).toEqual([0, 1])
    expect(Array.from(binaryDigits(0.375))).toEqual([0, 1, 1])
    const d = binaryDigits(0.1 / 2)
    expect(d.reduce((s, b, i) => s + b * 2 ** -(i + 1), 0)).toBe(0.05)
  })
  it('lane j of bernoulliWord is exactly [U_j < p], U_j read from bit j of the successive words', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 0.5, noNaN: true, maxExcluded: true }), fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { minLength: 80, maxLength: 80 }), (p, words) => {
        const digits = binaryDigits(p)
        const got = bernoulliWord(digits, replay(words))
        // reference: compare U_j's first L digits (exact rationals as BigInt) with p = Σ digits·2^-i
        const L = digits.length
        const pNum = digits.reduce((s, b) => s * 2n + BigInt(b), 0n)
        for (let j = 0; j < 32; j++) {
          let u = 0n
          for (let i = 0; i < L; i++) u = u * 2n + BigInt(((words[i] ?? 0) >>> j) & 1)
          // U < p ⟺ U's first L digits < p's (equal prefixes leave U ≥ p)
          if ((((got >>> j) & 1) === 1) !== u < pNum) return false
        }
        return true
      }),
      { numRuns: 200 },
    )
  })
  it('flips each bit with probability f/2 and leaves the bits beyond V at 0 (simulation)', () => {
    const V = 70
    const docs: UserDocuments = { V, docStart: Int32Array.from({ length: 2001 }, (_, i) => i), tokens: new Int32Array(2000).fill(3) }
    const f = 0.3
    const r = perturbDocuments(docs, f, stream(1))
    const n = onesPerWord(r)
    const trials = 2000
    // bit 3 is set in every document: kept with 1 − f/2; every other bit is 0: set with f/2
    const z = 4.5 * Math.sqrt((f / 2) * (1 - f / 2) / trials)
    expect(Math.abs((n[3] as number) / trials - (1 - f / 2))).toBeLessThan(z)
    const others = Array.from(n).filter((_, t) => t !== 3)
    const rate = others.reduce((s, x) => s + x, 0) / (others.length * trials)
    expect(Math.abs(rate - f / 2)).toBeLessThan(4.5 * Math.sqrt((f / 2) * (1 - f / 2) / (others.length * trials)))
    const stride = strideOf(V)
    for (let m = 0; m < trials; m++) expect((r.bits[m * stride + stride - 1] as number) >>> (V & 31)).toBe(0)
  })
})

describe('only the perturbed bits cross from user to server', () => {
  it('the released value is the reports alone, and the server functions take nothing else', () => {
    const released: ReleaseRecord[] = []
    const fit = lpLda.fit(corpus, config(), secure(), { onRelease: (r) => released.push(r) })
    if (E.isLeft(fit)) throw new Error('fit')
    const first = released[0]
    expect(first?.label).toMatch(/^users: randomized response/)
    expect(Object.keys(first?.value as object).sort()).toEqual(['M', 'V', 'bits', 'stride'])
    const reports = first?.value as LocalReports
    expect(reports.bits).toBeInstanceOf(Uint32Array)
    // the server side, from the reports only: estimates, reconstruction, a corpus
    const rebuilt = reconstruct(reports, 0.5, stream(2))
    const data = presenceCorpus(rebuilt, corpus.vocab)
    expect(data.tokens.length).toBe(rebuilt.docs.length)
    // every later release is post-processing: NoOp
    expect(released.slice(1).every((r) => r.event._tag === 'NoOp')).toBe(true)
  })
  it('two corpora with the same word-presence sets give the same reports and the same model (same seed)', () => {
    // duplicate and reverse each document's tokens: counts and order change, presence does not
    const docs: number[][] = []
    for (let d = 0; d + 1 < corpus.docStart.length; d++) docs.push(Array.from(corpus.tokens.subarray(corpus.docStart[d], corpus.docStart[d + 1])))
    const other = fromDocuments(corpus.vocab, docs.map((ts) => [...ts, ...ts].reverse()))
    const a = lpLda.fit(corpus, config(), seeded(9))
    const b = lpLda.fit(other, config(), seeded(9))
    if (E.isLeft(a) || E.isLeft(b)) throw new Error('fit')
    expect(Array.from(b.right.model.phi)).toEqual(Array.from(a.right.model.phi))
  })
})

describe('server side: N̂_t (Theorem 5) by simulation', () => {
  // M documents, V = 32 words; word t is present in N_t = round(t·M/31) of them. R replicates.
  // Intervals: mean within z·√(Var/R); sample variance S² within σ²(1 ± z·√(2/(R − 1))) (normal
  // approximation; the estimate is an affine binomial sum, excess kurtosis < 1/(M f/2 (1 − f/2)) ≈ 0).
  // z = 4.5: per check level ≈ 7e-6, family-wise ≤ 1e-3 over the ≤ 130 checks (Bonferroni). Seeded.
  const M = 200
  const V = 32
  const f = 0.5
  const R = 1500
  const Z = 4.5
  const N = Array.from({ length: V }, (_, t) => Math.round((t * M) / (V - 1)))
  const simulate = (fresh: boolean, seed: number): number[][] => {
    const w = stream(seed)
    const samples: number[][] = Array.from({ length: V }, () => [])
    for (let r = 0; r < R; r++) {
      const docs: number[][] = Array.from({ length: M }, () => [])
      for (let t = 0; t < V; t++)
        for (let m = 0; m < M; m++) if (fresh ? w.nextDouble() < (N[t] as number) / M : m < (N[t] as number)) docs[m]?.push(t)
      const docStart = new Int32Array(M + 1)
      docs.forEach((d, m) => (docStart[m + 1] = (docStart[m] as number) + d.length))
      const est = estimateCounts(onesPerWord(perturbDocuments({ V, docStart, tokens: Int32Array.from(docs.flat()) }, f, w)), M, f)
      for (let t = 0; t < V; t++) samples[t]?.push(est[t] as number)
    }
    return samples
  }
  const moments = (xs: number[]): { mean: number; variance: number } => {
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length
    return { mean, variance: xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1) }
  }
  const within = (s2: number, sigma2: number): boolean => Math.abs(s2 / sigma2 - 1) <= Z * Math.sqrt(2 / (R - 1))
  /** Every word's estimates centred on N_t with variance σ²_t (within the intervals); returns the sample variances. */
  const centredWithVariance = (samples: number[][], sigma2: (t: number) => number, what: string): number[] =>
    samples.map((xs, t) => {
      const { mean, variance } = moments(xs)
      expect(Math.abs(mean - (N[t] as number)), `t = ${t}`).toBeLessThan(Z * Math.sqrt(sigma2(t) / R))
      expect(within(variance, sigma2(t)), `t = ${t}: S² = ${variance}, ${what} = ${sigma2(t)}`).toBe(true)
      return variance
    })
  const variance = (t: number) => estimateVariance(M, f, N[t] as number)
  it('given the corpus: unbiased, Var = (2 − f)fM/(4(1 − f)²); eq. (9) is rejected where (M − N)N/M is large', () => {
    const s2 = centredWithVariance(simulate(false, 21), (t) => variance(t).givenCorpus, 'σ²')
    for (let t = 0; t < V; t++) if ((N[t] as number) >= M / 3 && (N[t] as number) <= (2 * M) / 3) expect(within(s2[t] as number, variance(t).eq9), `t = ${t}`).toBe(false)
  })
  it('over corpora drawn with presence probability N_t/M: Var(N̂_t) around N_t is eq. (9)', () => {
    centredWithVariance(simulate(true, 22), (t) => variance(t).eq9, 'eq. 9')
  })
})

describe('server side: reconstruction (Step 4)', () => {
  it('each column is the received one with randomly chosen bits flipped to the rounded, clamped N̂_t', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 0.95, noNaN: true }), fc.integer(), (f, seed) => {
        const reports = perturbDocuments(docsOf(corpus), f, stream(seed))
        const n = onesPerWord(reports)
        const est = estimateCounts(n, reports.M, f)
        const rebuilt = reconstruct(reports, f, stream(seed + 1))
        const stride = reports.stride
        for (let t = 0; t < reports.V; t++) {
          const col = Array.from(rebuilt.docs.subarray(rebuilt.start[t], rebuilt.start[t + 1]))
          const target = Math.min(reports.M, Math.max(0, est[t] as number))
          if (!(Math.abs(col.length - target) < 1)) return false
          if (new Set(col).size !== col.length) return false
          const had = (m: number): boolean => (((reports.bits[m * stride + (t >>> 5)] as number) >>> (t & 31)) & 1) === 1
          // only flips in the direction of δ_t: a subset of the ones, or a superset
          if (col.length <= (n[t] as number) ? !col.every(had) : col.filter(had).length !== n[t]) return false
        }
        return true
      }),
      { numRuns: 25 },
    )
  })
})

describe('privacy as events, the unit explicit', () => {
  it('plan ≡ ledger for random configurations: one randomized-response release, post-processing NoOp', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 0.99, noNaN: true }), fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.integer(), (flip, iterations, shuffler, seed) => {
        const c = config({ flip, iterations, shuffler })
        const plan = planOf(lpLda, c, stats)
        const fit = lpLda.fit(corpus, c, seeded(seed), { logLikelihoodEvery: 0 })
        if (E.isLeft(plan) || E.isLeft(fit)) return false
        return sameComposition(plan.right, fit.right.ledger)
      }),
      { numRuns: 15 },
    )
  })
  it('f = 0.5: per bit ln 3; per document 2 ln 3 under word replacement (accounted), V ln 3 under document replacement; the claim is the per-bit figure', () => {
    const c = config()
    const s = privacyStatement(lpLda, c, stats, [1e-5])
    if (E.isLeft(s)) throw new Error('statement')
    // (ε, δ) at δ = 1e-5 is a hair below the pure 2 ln 3 (the largest loss has probability (1 − f/2)²)
    const accounted = s.right.guarantee[0]?.epsilon as number
    expect(accounted).toBeLessThanOrEqual(2 * Math.log(3) + 1e-9)
    expect(accounted).toBeGreaterThan(2 * Math.log(3) - 1e-3)
    expect(s.right.claim.atDelta[0]?.epsilon).toBeCloseTo(Math.log(3), 12)
    const u = unitGuarantees(c, stats, [1e-5])
    if (E.isLeft(u)) throw new Error('units')
    expect(u.right.perBit).toBeCloseTo(Math.log(3), 12)
    expect(u.right.word.pureEpsilon).toBeCloseTo(2 * Math.log(3), 12)
    expect(u.right.document.pureEpsilon).toBeCloseTo(stats.vocabulary * Math.log(3), 9)
    const docAtDelta = u.right.document.atDelta[0]?.epsilon as number
    expect(docAtDelta).toBeLessThanOrEqual(u.right.document.pureEpsilon + 1e-9)
    expect(docAtDelta).toBeGreaterThan(u.right.word.pureEpsilon)
    expect(u.right.shuffled).toBeUndefined()
  })
  it('a shuffler is stated only when asked, as an assumption, and refused outside Theorem 3.1’s condition', () => {
    const s = privacyStatement(lpLda, config({ shuffler: true }), stats, [1e-5])
    if (E.isLeft(s)) throw new Error('statement')
    expect(s.right.assumptions.join(' ')).toMatch(/shuffler/)
    const u = unitGuarantees(config({ shuffler: true }), stats, [1e-5])
    if (E.isLeft(u)) throw new Error('units')
    expect(u.right.shuffled?.[0]).toHaveProperty('refused')
    // f near 1 with many users: ε0 = V·ε_b small enough, and the central ε is below it
    const big = unitGuarantees(config({ shuffler: true, flip: 1 - 1e-6 }), { ...stats, documents: 100000 }, [1e-5])
    if (E.isLeft(big)) throw new Error('units')
    const sh = big.right.shuffled?.[0]
    expect(sh !== undefined && 'epsilon' in sh && sh.epsilon < big.right.document.pureEpsilon).toBe(true)
  })
  it('secure by default: a private release; seeded: reproducible and labelled not private', () => {
    const a = lpLda.fit(corpus, config(), secure())
    const b = lpLda.fit(corpus, config(), seeded(4))
    const c = lpLda.fit(corpus, config(), seeded(4))
    if (E.isLeft(a) || E.isLeft(b) || E.isLeft(c)) throw new Error('fit')
    expect(a.right.release.private).toBe(true)
    expect(a.right.model.theta).toBeUndefined()
    expect(b.right.release.private).toBe(false)
    expect(Array.from(b.right.model.phi)).toEqual(Array.from(c.right.model.phi))
  })
})

describe('bad input', () => {
  it.each([0, 1, -0.1, 1.5, Number.NaN])('f = %s is refused naming the field', (flip) => {
    const v = lpLda.validate(config({ flip }))
    expect(E.isLeft(v) && v.left._tag === 'InvalidParameter' && v.left.path === 'flip').toBe(true)
  })
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-lp-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const jsonl = join(dir, 'c.jsonl')
  writeFileSync(jsonl, Array.from({ length: 30 }, (_, i) => JSON.stringify({ text: `alpha beta gamma delta ${i % 2 === 0 ? 'epsilon' : 'zeta'} alpha beta` })).join('\n'))
  const vocabulary = join(dir, 'vocabulary.txt')
  writeFileSync(vocabulary, 'alpha\nbeta\ndelta\nepsilon\ngamma\nzeta\n')
  // a public word list: a vocabulary chosen from the corpus would make the run not private
  const base = ['lp-lda', '--corpus', jsonl, '--topics', '2', '--iterations', '2', '--vocabulary', vocabulary]
  it.each([
    [['--flip', '1'], /^lp-lda: flip: .*must be in \(0, 1\).*\(got 1\)$/],
    [['--flip', '0'], /^lp-lda: flip: .*\(got 0\)$/],
    [['--flip', 'x'], /--flip: "x" is not a number/],
  ])('dpaudit train %j: one message, nothing written', (extra, re) => {
    const out = join(dir, 'm.json')
    const r = runTrainCli([...base, ...extra, '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(re)
    expect(existsSync(out)).toBe(false)
  })
  it('a good run writes φ, the per-unit notes, and the shuffler only when asked', () => {
    const out = join(dir, 'ok.json')
    const r = runTrainCli([...base, '--flip', '0.5', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/note: per bit: ε_b = .*1\.099/)
    expect(r.stdout).toMatch(/note: per document, replace-one document .* pure ε = V·ε_b/)
    expect(r.stdout).not.toMatch(/shuffler/)
    const f = JSON.parse(readFileSync(out, 'utf8')) as { release: { private: boolean }; theta?: unknown }
    expect(f.release.private).toBe(true)
    expect(f.theta).toBeUndefined()
    const sh = runTrainCli([...base, '--flip', '0.5', '--shuffler', '--out', join(dir, 'sh.json')])
    expect(sh.stdout).toMatch(/with a shuffler, replace-one document .*no amplified guarantee/)
  })
})
