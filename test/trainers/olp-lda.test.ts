// O-LDA and OLP-LDA (paper 001 §VI, issue 13): the O-LDA prior update (eq. 10–13), Bayesian
// denoising (eq. 19–21, Theorems 6–7) by simulation, privacy as one release with D0 public,
// plan ≡ ledger, bad input, and the issue-11 rule that train refuses flags a trainer does not take.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrain, runTrainCli, TRAIN_USAGE } from '../../src/cli/commands/train.js'
import { trainerNamed } from '../../src/trainers/registry.js'
import { seeded } from '../../src/core/rng.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { compositionAtoms, corpusStats, declarePublic, fromDocuments, generateLda, olpLda, type OlpConfig, privacyStatement, sameComposition, TRAINER_NAMES, TRAINERS, planOf } from '../../src/trainers/index.js'
import { bayesEstimate, bayesVariance, nextPrior, theoremSixOmega } from '../../src/trainers/olp/bayes.js'
import { estimateVariance, onesPerWord } from '../../src/trainers/lp/estimate.js'
import { flatPrior, onlineLda, phiWithPrior, presenceDocuments, updatePrior } from '../../src/trainers/olp/online.js'
import { perturbDocuments } from '../../src/trainers/lp/perturb.js'
import { splitPrior } from '../../src/trainers/olp/olp-lda.js'
import { FastUniform } from '../../src/trainers/lda/random.js'
import type { ReleaseRecord } from '../../src/mechanisms/gate.js'

const synth = generateLda({ topics: 3, vocabulary: 40, documents: 60, alpha: 0.2, beta: 0.1, meanDocumentLength: 25 }, seeded(17))
if (E.isLeft(synth)) throw new Error('generate failed')
const corpus = synth.right.corpus
const stats = corpusStats(corpus)
const config = (patch: Partial<OlpConfig> = {}): OlpConfig => ({ topics: 3, iterations: 2, alpha: 0.1, beta: 0.1, flip: 0.5, prior: 0.25, batch: 12, lambda: 0.5, denoise: { omega: 0.4 }, ...patch })
const stream = (seed: number): WordStream => new WordStream(seededWords(seed))

describe('O-LDA (eq. 10–13)', () => {
  it('β^l = β^{l−1} + λN^{l−1}, row sums carried, φ rows sum to 1', () => {
    const p = flatPrior(2, 3, 0.1)
    const nwk = Int32Array.from([1, 0, 2, 3, 0, 4]) // word-major V×K
    const q = updatePrior(p, nwk, 0.5)
    expect(Array.from(q.beta)).toEqual([0.6, 0.1, 1.1, 1.6, 0.1, 2.1])
    expect(q.sum[0]).toBeCloseTo(0.6 + 1.1 + 0.1, 12)
    expect(q.sum[1]).toBeCloseTo(0.1 + 1.6 + 2.1, 12)
    expect(Array.from(p.beta)).toEqual(Array(6).fill(0.1)) // the previous prior is untouched
    const phi = phiWithPrior(nwk, q)
    for (let k = 0; k < 2; k++) expect((phi[k * 3] as number) + (phi[k * 3 + 1] as number) + (phi[k * 3 + 2] as number)).toBeCloseTo(1, 12)
  })
  it('λ = 0: the last batch is trained afresh, as if the earlier batches had not been seen', () => {
    const docs = presenceDocuments(corpus)
    const { prior, stream: rest } = splitPrior(docs, 0.5)
    const c = { topics: 3, iterations: 3, alpha: 0.1, beta: 0.1, lambda: 0 }
    const fresh = () => {
      const r = seeded(5)
      return () => new FastUniform(r)
    }
    // each batch's sampler stream is the next from one seeded source: the last batch gets the second
    const both = onlineLda([prior, rest], c, fresh())
    const skipOne = fresh()
    skipOne()
    const alone = onlineLda([rest], c, skipOne)
    expect(Array.from(both.phi)).toEqual(Array.from(alone.phi))
    expect(Array.from(both.prior.beta).every((b) => b === 0.1)).toBe(true)
  })
  it('presence documents hold each distinct word once', () => {
    const p = presenceDocuments(fromDocuments(['a', 'b', 'c'], [[2, 0, 2, 2], [1]]))
    expect(Array.from(p.tokens)).toEqual([0, 2, 1])
    expect(Array.from(p.docStart)).toEqual([0, 2, 3])
  })
})

describe('Bayesian denoising (Theorem 6, eq. 21)', () => {
  it('ω of Theorem 6 is Lemma 1’s σ_p²/(σ_p² + (1 − f)²σ²) with σ_p² = M(f/2)(1 − f/2), and moves from 1 to 0 as σ grows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }), fc.double({ min: 0.01, max: 1000, noNaN: true }), (M, f, s) => {
        const sp2 = M * (f / 2) * (1 - f / 2)
        return Math.abs(theoremSixOmega(M, f, s) - sp2 / (sp2 + (1 - f) ** 2 * s * s)) < 1e-12
      }),
    )
    expect(theoremSixOmega(100, 0.5, 1e-6)).toBeCloseTo(1, 9)
    expect(theoremSixOmega(100, 0.5, 1e6)).toBeCloseTo(0, 9)
  })
  it('eq. 21: μ^l = (μ^{l−1} + η^{l−1})/2 · M_l/M_{l−1}; B without a prior is N̂', () => {
    expect(Array.from(nextPrior([10, 4], [20, 0], 50, 100))).toEqual([7.5, 1])
    const n = [30, 70]
    expect(Array.from(bayesEstimate(n, 100, 0.5, undefined, 0.4))).toEqual([(60 - 50) / 1, (140 - 50) / 1])
    expect(Array.from(bayesEstimate(n, 100, 0.5, [0, 100], 0.25))).toEqual([0.75 * 10, 25 + 0.75 * 90])
  })
})

describe('Theorem 7 by simulation', () => {
  // M reports over V = 32 words; word t is present in N_t = round(t·M/31) of them; μ_t fixed (a
  // prior off by +20 % and 5, so the bias shows). R replicates. Intervals as in lp-lda.test.ts: the
  // mean within z·√(Var/R), S²/σ² within 1 ± z·√(2/(R − 1)) (normal approximation; B is affine in a
  // binomial sum). z = 4.5: each check ≈ 7e-6, family-wise ≤ 1e-3 over the ≤ 130 checks. Seeded.
  const M = 200
  const V = 32
  const f = 0.5
  const R = 1500
  const Z = 4.5
  const omega = theoremSixOmega(M, f, 10) // σ = 10: ω ≈ 0.6
  const N = Array.from({ length: V }, (_, t) => Math.round((t * M) / (V - 1)))
  const mu = N.map((x) => 1.2 * x + 5)
  const presence = (w: WordStream, fresh: boolean, m: number, counts: number[]) => {
    const docs: number[][] = Array.from({ length: m }, () => [])
    for (let t = 0; t < V; t++) for (let d = 0; d < m; d++) if (fresh ? w.nextDouble() < (counts[t] as number) / m : d < (counts[t] as number)) docs[d]?.push(t)
    const docStart = new Int32Array(m + 1)
    docs.forEach((d, i) => (docStart[i + 1] = (docStart[i] as number) + d.length))
    return { V, docStart, tokens: Int32Array.from(docs.flat()) }
  }
  const estimate = (w: WordStream, fresh: boolean, prior: ArrayLike<number>, om: number, m = M, counts = N): Float64Array =>
    bayesEstimate(onesPerWord(perturbDocuments(presence(w, fresh, m, counts), f, w)), m, f, prior, om)
  const moments = (xs: number[]) => {
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length
    return { mean, variance: xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1) }
  }
  const check = (samples: number[][], center: (t: number) => number, sigma2: (t: number) => number, what: string) =>
    samples.forEach((xs, t) => {
      const { mean, variance } = moments(xs)
      expect(Math.abs(mean - center(t)), `t = ${t}: mean`).toBeLessThan(Z * Math.sqrt(sigma2(t) / R))
      expect(Math.abs(variance / sigma2(t) - 1), `t = ${t}: S² = ${variance}, ${what} = ${sigma2(t)}`).toBeLessThanOrEqual(Z * Math.sqrt(2 / (R - 1)))
    })
  const collect = (draw: () => Float64Array): number[][] => {
    const out: number[][] = Array.from({ length: V }, () => [])
    for (let r = 0; r < R; r++) draw().forEach((x, t) => out[t]?.push(x))
    return out
  }
  const biased = (t: number) => omega * (mu[t] as number) + (1 - omega) * (N[t] as number)
  it('μ fixed, the batch fixed: E[B] = ωμ + (1 − ω)N (biased), Var = (1 − ω)²(2 − f)fM/(4(1 − f)²)', () => {
    const w = stream(31)
    check(collect(() => estimate(w, false, mu, omega)), biased, (t) => bayesVariance(M, f, N[t] as number, omega).givenCorpus, 'σ²')
  })
  it('μ fixed, batches drawn with presence probability N/M: Var = eq. (20) = (1 − ω)²·eq. (9)', () => {
    const w = stream(32)
    check(collect(() => estimate(w, true, mu, omega)), biased, (t) => bayesVariance(M, f, N[t] as number, omega).eq20, 'eq. 20')
  })
  it('in the stream μ² comes from batch 1’s estimate, and Var(η²) = (1 − ω)²Var(N̂²) + ω²Var(μ²) exceeds eq. (20)’s constant-μ figure', () => {
    // batch 1 (M1 = 100, fixed, prior μ¹ fixed) → μ² = (μ¹ + η¹)/2 · M/M1 → η² on batch 2 (M, fixed)
    const M1 = 100
    const N1 = N.map((x) => Math.round(x / 2))
    const mu1 = N1.map((x) => x + 3)
    const w = stream(33)
    const samples = collect(() => {
      const eta1 = estimate(w, false, mu1, omega, M1, N1)
      return estimate(w, false, nextPrior(mu1, eta1, M, M1), omega)
    })
    const varMu2 = (t: number) => (1 / 4) * (M / M1) ** 2 * bayesVariance(M1, f, N1[t] as number, omega).givenCorpus
    const sigma2 = (t: number) => bayesVariance(M, f, N[t] as number, omega).givenCorpus + omega * omega * varMu2(t)
    const center = (t: number) => omega * (((mu1[t] as number) + omega * (mu1[t] as number) + (1 - omega) * (N1[t] as number)) / 2) * (M / M1) + (1 - omega) * (N[t] as number)
    check(samples, center, sigma2, 'σ² with Var(μ²)')
    // the constant-μ figure is below it by ω²Var(μ²), a factor > 1.1 for every word here
    for (let t = 0; t < V; t++) expect(sigma2(t) / bayesVariance(M, f, N[t] as number, omega).givenCorpus).toBeGreaterThan(1.1)
    expect(estimateVariance(M, f, 0).givenCorpus).toBeGreaterThan(0)
  })
})

describe('privacy: one release for the stream, D0 public', () => {
  it('plan ≡ ledger for random configurations: one randomized-response atom, whatever the number of batches', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.integer({ min: 1, max: 70 }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        fc.integer(),
        (flip, batch, prior, lambda, theorem6, seed) => {
          const c = config({ flip, batch, prior, lambda, iterations: 1, denoise: theorem6 ? { priorSd: 5 } : { omega: lambda } })
          const plan = planOf(olpLda, c, stats)
          const fit = olpLda.fit(corpus, c, seeded(seed))
          if (E.isLeft(plan) || E.isLeft(fit)) return false
          // one randomized-response atom, plus a NonPrivate one when the prior is split off the private documents
          const atoms = compositionAtoms(fit.right.ledger)
          const split = prior > 0
          const rr = [...atoms.entries()].filter(([k]) => !k.includes('NonPrivate'))
          return sameComposition(plan.right, fit.right.ledger) && rr.length === 1 && rr[0]?.[1] === 1 && atoms.size === (split ? 2 : 1)
        },
      ),
      { numRuns: 15 },
    )
  })
  it('a prior split off the private documents is released without protection (NonPrivate): the run is not private, ε = ∞', () => {
    const released: ReleaseRecord[] = []
    const fit = olpLda.fit(corpus, config(), seeded(3), { onRelease: (r) => released.push(r) })
    if (E.isLeft(fit)) throw new Error('fit')
    expect(released[0]?.label).toMatch(/^public prior: prior corpus D0 split off the private training documents/)
    expect(released[0]?.event._tag).toBe('NonPrivate')
    expect(fit.right.release.notPrivateBecause.join(' ')).toMatch(/prior corpus D0 split off .* without protection/)
    const plan = planOf(olpLda, config(), stats)
    const s = privacyStatement(olpLda, config(), stats, [1e-5])
    if (E.isLeft(plan) || E.isLeft(s)) throw new Error('plan')
    expect(s.right.guarantee[0]?.epsilon).toBe(Number.POSITIVE_INFINITY)
  })
  it('the gate releases the prior step (public), the users’ reports once, then post-processing per batch', () => {
    const released: ReleaseRecord[] = []
    const prior = splitPrior(corpus, 0.25)
    // a prior PATH is an extra input: fit takes the loaded public corpus in options.inputs
    const fit = olpLda.fit(prior.stream, config({ prior: 'prior.jsonl' }), seeded(3), { onRelease: (r) => released.push(r), inputs: { prior: declarePublic(prior.prior) } })
    if (E.isLeft(fit)) throw new Error('fit')
    expect(released[0]?.label).toMatch(/^public prior: public prior corpus D0/)
    expect(released[1]?.label).toMatch(/^users: randomized response/)
    expect(Object.keys(released[1]?.value as object).sort()).toEqual(['M', 'V', 'bits', 'stride'])
    const batches = Math.ceil((60 - 15) / 12)
    expect(released.filter((r) => /^batch \d+: server/.test(r.label))).toHaveLength(batches)
    expect(released.filter((r) => r.label.startsWith('users')).length).toBe(1)
    expect(released.filter((r) => r !== released[1]).every((r) => r.event._tag === 'NoOp')).toBe(true) // a public prior corpus: no event
    expect(fit.right.release.private).toBe(false) // seeded
    expect(fit.right.model.theta).toBeUndefined()
  })
  it('the statement says what the parallel composition and the public D0 rest on; ε per document is 2ε_b', () => {
    const s = privacyStatement(olpLda, config({ prior: 'public-prior.jsonl' }), stats, [1e-5])
    if (E.isLeft(s)) throw new Error('statement')
    const a = s.right.assumptions.join('\n')
    expect(a).toMatch(/one document per user/)
    expect(a).toMatch(/users in different mini-batches are disjoint/)
    expect(a).toMatch(/prior corpus D0 \(public-prior\.jsonl\) is public data, asserted by the user/)
    expect(s.right.guarantee[0]?.epsilon).toBeLessThanOrEqual(2 * Math.log(3) + 1e-9)
    expect(s.right.guarantee[0]?.epsilon).toBeGreaterThan(2 * Math.log(3) - 1e-3)
  })
})

describe('bad input: a clear error naming the field, nothing written', () => {
  const invalid = (c: OlpConfig, path: string) => {
    const v = olpLda.validate(c, stats)
    expect(E.isLeft(v) && v.left._tag === 'InvalidParameter' ? v.left.path : 'accepted').toBe(path)
  }
  it.each([0, 1, -0.2, Number.NaN])('flip = %s', (flip) => invalid(config({ flip }), 'flip'))
  it.each([-0.1, 1.01, Number.NaN])('lambda = %s', (lambda) => invalid(config({ lambda }), 'lambda'))
  it.each([0, -3, 2.5])('batch = %s (an empty mini-batch)', (batch) => invalid(config({ batch }), 'batch'))
  it.each([1, -0.1])('prior = %s', (prior) => invalid(config({ prior }), 'prior'))
  it('omega outside [0, 1], σ ≤ 0', () => {
    invalid(config({ denoise: { omega: 1.5 } }), 'omega')
    invalid(config({ denoise: { priorSd: 0 } }), 'priorSd')
  })
  it('a stream with no documents, a prior with another vocabulary', () => {
    const empty = fromDocuments(corpus.vocab, [])
    const r = olpLda.fit(empty, config({ prior: 'prior.jsonl' }), seeded(1), { inputs: { prior: declarePublic(splitPrior(corpus, 0.25).prior) } })
    expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path === 'batch').toBe(true)
    const other = fromDocuments([...corpus.vocab.slice(0, 39), 'zzz'], [[0, 1]])
    const p = olpLda.fit(corpus, config({ prior: 'other.jsonl' }), seeded(1), { inputs: { prior: declarePublic(other) } })
    expect(E.isLeft(p) && p.left._tag === 'InvalidParameter' && p.left.path === 'prior' && /another vocabulary.*word 40 is "zzz"/.test(p.left.message)).toBe(true)
  })

  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-olp-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const jsonl = join(dir, 'c.jsonl')
  writeFileSync(jsonl, Array.from({ length: 40 }, (_, i) => JSON.stringify({ text: `alpha beta gamma delta ${i % 2 === 0 ? 'epsilon' : 'zeta'} alpha beta` })).join('\n'))
  const otherJsonl = join(dir, 'other.jsonl')
  writeFileSync(otherJsonl, Array.from({ length: 10 }, () => JSON.stringify({ text: 'omega kappa sigma alpha' })).join('\n'))
  const vocabFile = join(dir, 'vocab.txt')
  writeFileSync(vocabFile, 'alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n')
  const priorJsonl = join(dir, 'prior.jsonl')
  writeFileSync(priorJsonl, Array.from({ length: 10 }, (_, i) => JSON.stringify({ text: `alpha gamma ${i % 2 === 0 ? 'beta' : 'delta'}` })).join('\n'))
  const base = ['olp-lda', '--corpus', jsonl, '--topics', '2', '--iterations', '2']
  it.each([
    [['--flip', '1'], /^olp-lda: flip: .*must be in \(0, 1\).*\(got 1\)$/],
    [['--flip', '0'], /^olp-lda: flip: .*\(got 0\)$/],
    [['--lambda', '1.5'], /^olp-lda: lambda: the correlation factor λ .*\(got 1\.5\)$/],
    [['--lambda=-1'], /^olp-lda: lambda: .*\(got -1\)$/],
    [['--batch', '0'], /^olp-lda: batch: the mini-batch size must be an integer ≥ 1 .*\(got 0\)$/],
    [['--prior', '1'], /^olp-lda: prior: .*\(got 1\)$/],
    [['--prior', otherJsonl], /^olp-lda: prior: the prior corpus has another vocabulary than the corpus .*--vocabulary FILE/],
    [['--prior', join(dir, 'missing.jsonl')], /^olp-lda: prior: expected brown, spam, or an existing file or directory/],
    [['--omega', '0.5', '--prior-sd', '3'], /--omega and --prior-sd are alternatives/],
    [['--omega', '2'], /^olp-lda: omega: .*\(got 2\)$/],
  ])('dpaudit train olp-lda %j: one message, exit 1, nothing written', (extra, re) => {
    const out = join(dir, 'm.json')
    const r = runTrainCli([...base, ...extra, '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(re)
    expect(existsSync(out)).toBe(false)
  })
  it('good runs: a split of the training documents, and a separate prior corpus on the same public vocabulary', () => {
    const out = join(dir, 'ok.json')
    const r = runTrainCli([...base, '--vocabulary', vocabFile, '--prior', '0.25', '--batch', '8', '--lambda', '0.5', '--flip', '0.5', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/assumes: the prior corpus D0 is the first ⌊0\.25·D⌋ documents .* of the private training documents, trained on without noise: NOT protected/)
    expect(r.stdout).toMatch(/NOT A PRIVATE RELEASE: .*prior corpus D0 split off the private training documents/)
    const f = JSON.parse(readFileSync(out, 'utf8')) as { release: { private: boolean }; config: OlpConfig }
    expect(f.release.private).toBe(false)
    // and --private refuses it before any work
    const refused = runTrainCli([...base, '--vocabulary', vocabFile, '--prior', '0.25', '--private', '--out', join(dir, 'refused.json')])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/--private: the plan has no finite ε/)
    expect(existsSync(join(dir, 'refused.json'))).toBe(false)
    // no prior (the default): a private release
    const none = runTrainCli([...base, '--vocabulary', vocabFile, '--private', '--out', join(dir, 'none.json')])
    expect(none.code, none.stderr).toBe(0)
    expect(none.stdout).toMatch(/note: per document, replace-one word \(the accounted plan\): 2 bits/)
    expect(f.config).toMatchObject({ prior: 0.25, batch: 8, lambda: 0.5, denoise: { omega: 0.4 } })
    const out2 = join(dir, 'ok2.json')
    const p = runTrainCli([...base, '--vocabulary', vocabFile, '--prior', priorJsonl, '--prior-sd', '4', '--out', out2])
    expect(p.code, p.stderr).toBe(0)
    expect(p.stdout).toMatch(new RegExp(`prior corpus D0 \\(${priorJsonl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\) is public data`))
    expect((JSON.parse(readFileSync(out2, 'utf8')) as { config: OlpConfig }).config.denoise).toEqual({ priorSd: 4 })
  })
  it('--vocabulary dp with --prior PATH: the vocabulary is selected once (one charged release), and the prior is read with it', () => {
    const released: string[] = []
    // the selection's threshold needs counts: a bigger corpus of the same words
    const big = join(dir, 'big.jsonl')
    writeFileSync(big, Array.from({ length: 400 }, (_, i) => JSON.stringify({ text: `alpha beta gamma delta ${i % 2 === 0 ? 'epsilon' : 'zeta'} alpha beta` })).join('\n'))
    const r = runTrain({
      trainer: 'olp-lda',
      values: { corpus: big, topics: '2', iterations: '1', vocabulary: 'dp', prior: priorJsonl, out: join(dir, 'dp-prior.json'), private: true },
      onRelease: (x) => released.push(x.label),
    })
    expect(r.code, r.stderr).toBe(0)
    expect(released.filter((l) => l.startsWith('vocabulary'))).toHaveLength(1)
  })
  it('a prior corpus is only trained on, not split: one document is enough (issue 13), and a prior with no usable document says so', () => {
    const one = join(dir, 'prior-one.jsonl')
    writeFileSync(one, `${JSON.stringify({ text: 'alpha gamma beta delta epsilon zeta alpha' })}\n`)
    const out = join(dir, 'one.json')
    const r = runTrainCli([...base, '--vocabulary', vocabFile, '--prior', one, '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr ?? '').not.toMatch(/split/)
    expect(r.stdout).toMatch(/prior corpus D0 \(.*prior-one\.jsonl\) is public data/)
    expect((JSON.parse(readFileSync(out, 'utf8')) as { release: { private: boolean } }).release.private).toBe(true)
    // one word of the vocabulary is too few to train on (documents under two words are dropped, as for the corpus)
    const thin = join(dir, 'prior-thin.jsonl')
    writeFileSync(thin, `${JSON.stringify({ text: 'alpha omega' })}\n`)
    const bad = runTrainCli([...base, '--vocabulary', vocabFile, '--prior', thin, '--out', join(dir, 'thin.json')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^olp-lda: .*prior-thin\.jsonl: no training document has at least 2 words of the vocabulary .*\(got 1\)$/)
    expect(existsSync(join(dir, 'thin.json'))).toBe(false)
  })
})

describe('train refuses flags that do not apply (issue 11), and shows every default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-flags-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const jsonl = join(dir, 'c.jsonl')
  writeFileSync(jsonl, Array.from({ length: 20 }, (_, i) => JSON.stringify({ text: `alpha beta gamma ${i % 2 === 0 ? 'delta' : 'zeta'}` })).join('\n'))
  it.each([
    ['sub-lda', '--epsilon', '0.1'],
    ['cdp-lda', '--epsilon-l', '0.1'],
    ['cdp-lda+', '--clip', '5'],
    ['hdp-lda', '--gamma', '0.1'],
    ['hdp-lda', '--flip', '0.5'],
    ['cgs', '--epsilon', '1'],
    ['lp-lda', '--batch', '10'],
    ['lp-lda', '--prior', '0.2'],
    ['olp-lda', '--shuffler'],
    ['olp-lda', '--epsilon', '1'],
    ['sub-lda', '--noise', 'fresh'],
  ])('train %s %s: refused naming the flag and the trainer, nothing written', (trainer, ...flag) => {
    const out = join(dir, 'x.json')
    const r = runTrainCli([trainer, '--corpus', jsonl, '--topics', '2', '--iterations', '1', ...flag, '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(new RegExp(`^${flag[0]} does not apply to ${trainer.replace('+', '\\+')} \\(`))
    expect(existsSync(out)).toBe(false)
  })
  it('every trainer-specific default in the usage line is the trainer’s own default', () => {
    for (const name of TRAINER_NAMES)
      for (const f of trainerNamed(name)?.flags ?? []) {
        if (f.field === undefined || f.required === true || f.type === 'switch') continue
        // a field the trainer leaves unset by default (an option such as svi's clipNorm) reads "off"
        const d = (TRAINERS[name].defaults as Record<string, unknown>)[f.field]
        expect(TRAIN_USAGE, `${name} --${f.flag}`).toContain(`--${f.flag} ${f.meta} (default ${d === undefined ? 'off' : String(d)})`)
      }
    expect(TRAIN_USAGE).toMatch(/hdp-lda: .*\[--epsilon-l E \(default 1\)\] \[--clip C \(default 100\)\]/)
  })
  it('hdp-lda without --epsilon-l/--clip runs at the defaults the usage shows, and the file says so', () => {
    const out = join(dir, 'hdp.json')
    const r = runTrainCli(['hdp-lda', '--corpus', jsonl, '--topics', '2', '--iterations', '1', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(readFileSync(out, 'utf8')) as { config: Record<string, unknown> }).config).toMatchObject({ epsilonL: 1, clip: 100 })
  })
})
