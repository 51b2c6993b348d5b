/**
 * The private spectral trainer (paper 004): plan ≡ ledger for the four configurations and a user
 * cut, the calibrated composite from the accountant, the exact sampling of M̂3's whitened noise,
 * the release verdicts, and bad input (k > V, unknown edge, non-cut, a failed PTR test).
 */
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { writeTinyUci } from './tiny-uci.js'
import { account } from '../../src/accounting/account.js'
import { formatError } from '../../src/core/error.js'
import { secure, seeded } from '../../src/core/rng.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { type Corpus, corpusStats, selectDocuments } from '../../src/trainers/corpus/corpus.js'
import { generateLda } from '../../src/trainers/corpus/synthetic.js'
import { privacyStatement } from '../../src/trainers/statement.js'
import { sameComposition, planOf } from '../../src/trainers/trainer.js'
import { whitenedNoise, runPrivate } from '../../src/trainers/spectral/private.js'
import { spendingAt } from '../../src/trainers/spectral/budget.js'
import { parseConfiguration } from '../../src/trainers/spectral/graph.js'
import { countDocuments } from '../../src/trainers/spectral/moments.js'
import { spectralLda } from '../../src/trainers/spectral/pipeline.js'
import { ReleaseGate } from '../../src/mechanisms/gate.js'
import { wordsFromRng } from '../../src/core/words.js'
import { SPECTRAL_DEFAULTS, type SpectralConfig, spectralLdaTrainer } from '../../src/trainers/spectral/trainer.js'

const corpus = ((): Corpus => {
  const g = generateLda({ topics: 3, vocabulary: 30, documents: 3000, alpha: 0.3, beta: 0.05, meanDocumentLength: 30 }, seeded(9))
  if (E.isLeft(g)) throw new Error(formatError(g.left))
  const keep: number[] = []
  for (let d = 0; d + 1 < g.right.corpus.docStart.length; d++) if (g.right.corpus.docStart[d + 1]! - g.right.corpus.docStart[d]! >= 3) keep.push(d)
  return selectDocuments(g.right.corpus, keep)
})()
const stats = corpusStats(corpus)

const TEST_WEIGHTS: Readonly<Record<string, Record<string, number>>> = { '2': { sigmaK: 10 }, '3': { sigmaK: 10, gammaS: 10 }, '4': { sigmaK: 10, sigma1: 10, gammaS: 10 } }

const config = (over: Partial<SpectralConfig>): SpectralConfig => ({ ...SPECTRAL_DEFAULTS, topics: 3, alpha: 0.3, beta: 0.05, iterations: 20, restarts: 5, weights: {}, ...over }) as SpectralConfig

describe('plan ≡ ledger and the composite from the accountant', () => {
  for (const [configuration, epsilon] of [
    ['1', 20],
    ['2', 20],
    ['3', 20],
    ['4', 20],
    ['e2,e3,e5', 20],
  ] as const)
    it(`configuration ${configuration}: the ledger composes the plan's events; the accountant's ε at δ meets the target`, () => {
      const c = config({ configuration, epsilon, weights: configuration === '1' || configuration === 'e2,e3,e5' ? {} : TEST_WEIGHTS[configuration] ?? {} })
      const plan = planOf(spectralLdaTrainer, c, stats)
      if (E.isLeft(plan)) throw new Error(formatError(plan.left))
      const fit = spectralLdaTrainer.fit(corpus, c, seeded(2))
      if (E.isLeft(fit)) throw new Error(formatError(fit.left))
      expect(sameComposition(fit.right.ledger, plan.right)).toBe(true)
      const st = privacyStatement(spectralLdaTrainer, c, stats, [c.delta])
      if (E.isLeft(st)) throw new Error(formatError(st.left))
      const eps = st.right.guarantee[0]!.epsilon
      expect(eps).toBeLessThanOrEqual(epsilon * (1 + 1e-9))
      expect(eps).toBeGreaterThan(epsilon * 0.95)
      // seeded: never a private release
      expect(fit.right.release.private).toBe(false)
      expect(fit.right.release.notPrivateBecause.join(' ')).toMatch(/seeded/)
      // the graph is in the statement
      expect(st.right.assumptions.join('\n')).toMatch(/\[NOISE\]/)
    })

  it('a PTR plan is answered by PLD and the (ε, δ) accountants, and by RDP and zCDP with the test’s δ kept aside (never below PLD)', () => {
    const plan = planOf(spectralLdaTrainer, config({ configuration: '2', epsilon: 5 }), stats)
    if (E.isLeft(plan)) throw new Error(formatError(plan.left))
    const r = account({ schemaVersion: 1, relation: spectralLdaTrainer.relation, event: plan.right }, { deltas: [1e-5] })
    if (E.isLeft(r)) throw new Error(formatError(r.left))
    const epsOf = (name: string): number | undefined => {
      const x = r.right.results.find((y) => y.accountant === name)
      return x?.ok === true ? x.answers[0]?.epsilon : undefined
    }
    const pld = epsOf('pld')
    expect(pld).toBeDefined()
    // the PTR test is a stated (ε, δ) step: RDP and zCDP account it as ε-DP with its δ aside,
    // δ = 1 − (1 − η)(1 − δ_pure) (src/accounting/approx-split.ts), and say so in the method
    for (const name of ['rdp', 'zcdp', 'basic']) {
      const e = epsOf(name)
      expect(e, name).toBeDefined()
      expect(e as number, name).toBeGreaterThanOrEqual(pld as number)
    }
    const rdp = r.right.results.find((x) => x.accountant === 'rdp')
    expect(rdp?.ok === true ? rdp.answers[0]?.method : '').toMatch(/kept aside/)
  })

  it('the paper’s simple composition is stated beside the accounted ε, and is larger', () => {
    const c = config({ configuration: '1', epsilon: 2 })
    const st = privacyStatement(spectralLdaTrainer, c, stats, [c.delta])
    if (E.isLeft(st)) throw new Error(formatError(st.left))
    expect(st.right.claim.atDelta[0]!.epsilon).toBeGreaterThan(st.right.guarantee[0]!.epsilon)
  })
})

describe('release verdicts', () => {
  it('configuration 1 with node:crypto noise is a private release; configuration 2 is not, and says why', () => {
    const one = spectralLdaTrainer.fit(corpus, config({ configuration: '1', epsilon: 20 }), secure())
    if (E.isLeft(one)) throw new Error(formatError(one.left))
    expect(one.right.release.private).toBe(true)
    expect(one.right.model.phi.length).toBe(3 * stats.vocabulary)
    const two = spectralLdaTrainer.fit(corpus, config({ configuration: '2', epsilon: 20, weights: { sigmaK: 10 } }), secure())
    if (E.isLeft(two)) throw new Error(formatError(two.left))
    expect(two.right.release.private).toBe(false)
    expect(two.right.release.notPrivateBecause.join(' ')).toMatch(/Theorem 5.*do not hold as stated/)
  })
})

describe('the private pipeline without noise is the spectral algorithm', () => {
  it('with every noise multiplier at 10⁻¹⁴, configurations 1–3 and a user cut give the un-noised topics (W and W† from different releases stay in one basis)', () => {
    const docs = countDocuments(corpus)
    if (E.isLeft(docs)) throw new Error('corpus')
    const ref = spectralLda(docs.right, 3, 0.9, seeded(1).next)
    if (E.isLeft(ref)) throw new Error(formatError(ref.left))
    for (const c of ['1', '2', '3', 'e2,e3,e5']) {
      const conf = parseConfiguration(c)
      if (E.isLeft(conf)) throw new Error('parse')
      const b = { configuration: conf.right, documents: docs.right.documents, alpha0: 0.9, epsilon: 1, delta: 1e-5, split: { weights: { sigmaK: 1e9, gammaS: 1e9 }, failureShare: 0.5 }, relation: spectralLdaTrainer.relation }
      const run = runPrivate(
        { docs: docs.right, topics: 3, alpha0: 0.9, configuration: conf.right, calibration: { scale: 1e-14, ...spendingAt(b, 1e-14) }, relation: spectralLdaTrainer.relation, rangeFinder: { oversampling: 10, iterations: 2 }, power: { restarts: 5, iterations: 20 } },
        new ReleaseGate(wordsFromRng(seeded(4))),
      )
      if (E.isLeft(run)) throw new Error(`${c}: ${formatError(run.left)}`)
      // same topics up to their order: every private topic is within 10⁻³ (L1) of one un-noised topic
      for (let i = 0; i < 3; i++) {
        let best = Number.POSITIVE_INFINITY
        for (let j = 0; j < 3; j++) {
          let d = 0
          for (let v = 0; v < stats.vocabulary; v++) d += Math.abs(run.right.phi[i * stats.vocabulary + v]! - ref.right.phi[j * stats.vocabulary + v]!)
          best = Math.min(best, d)
        }
        expect(best, `${c}, topic ${i}`).toBeLessThan(1e-3)
      }
    }
  })
})

describe('M̂3 noise sampled through its whitening', () => {
  it('E3(W, W, W) by Z(L, L, L) has the covariance of the materialised V³ noise (σ²(WᵀW)_aa(WᵀW)_bb(WᵀW)_cc on the diagonal)', () => {
    const V = 6
    const k = 2
    const r = seeded(4)
    const W = Float64Array.from({ length: V * k }, () => r.next() - 0.5)
    const gram = [0, 0, 0, 0]
    for (let v = 0; v < V; v++) for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) gram[a * k + b]! += W[v * k + a]! * W[v * k + b]!
    const words = new WordStream(seededWords(8))
    const n = 20000
    const sum = new Float64Array(k * k * k)
    const cross = { v: 0 } // Cov(G_000, G_111) = σ²(WᵀW)_01³
    for (let i = 0; i < n; i++) {
      const g = whitenedNoise(words, W, V, k, 1)
      for (let j = 0; j < g.length; j++) sum[j]! += g[j]! * g[j]!
      cross.v += g[0]! * g[7]!
    }
    for (let a = 0; a < k; a++)
      for (let b = 0; b < k; b++)
        for (let c = 0; c < k; c++) {
          const expected = gram[a * k + a]! * gram[b * k + b]! * gram[c * k + c]!
          expect(Math.abs(sum[(a * k + b) * k + c]! / n - expected)).toBeLessThan(0.06 * expected)
        }
    const expectedCross = gram[1]! ** 3
    expect(Math.abs(cross.v / n - expectedCross)).toBeLessThan(0.06 * Math.sqrt(gram[0]! ** 3 * gram[3]! ** 3))
  })
})

describe('bad input', () => {
  it('k > V', () => {
    const v = spectralLdaTrainer.validate(config({ topics: 31 }), stats)
    expect(E.isLeft(v) && formatError(v.left)).toMatch(/topics.*k = 31 exceeds the vocabulary size V = 30/)
  })
  it('an unknown edge, a repeated edge', () => {
    const v = spectralLdaTrainer.validate(config({ configuration: 'e3,e12' }), stats)
    expect(E.isLeft(v) && formatError(v.left)).toMatch(/configuration.*unknown edge "e12"/)
  })
  it('a non-cut, naming the unprotected path', () => {
    const v = spectralLdaTrainer.validate(config({ configuration: 'e6' }), stats)
    expect(E.isLeft(v) && formatError(v.left)).toMatch(/not a cut: the path data —e0→ M2 —e5→ Wdagger —e8→ unwhitened —e9→ output/)
  })
  it('a weight for an edge the configuration does not noise', () => {
    const v = spectralLdaTrainer.validate(config({ configuration: '1', weights: { e6: 2 } }), stats)
    expect(E.isLeft(v) && formatError(v.left)).toMatch(/weights\.e6/)
  })
  it('a PTR test that fails releases nothing and says so', () => {
    const fit = spectralLdaTrainer.fit(corpus, config({ configuration: '2', epsilon: 0.05 }), seeded(3))
    expect(E.isLeft(fit) && formatError(fit.left)).toMatch(/propose-test-release test failed.*nothing was released beyond the test results/)
  })
})

describe('train spectral on the command line: bad input is refused before any work, nothing written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-spectral-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const uci = writeTinyUci(dir)
  const out = join(dir, 'm.json')
  const train = (...extra: string[]) => runTrainCli(['spectral', '--corpus', uci, '--topics', '2', '--seed', '1', '--quiet', '--out', out, ...extra])
  it.each([
    [['--config', 'e6'], /not a cut: the path data —e0→ M2/],
    [['--config', 'e3,e10'], /unknown edge "e10"/],
    [['--topics', '7'], /k = 7 exceeds the vocabulary size V = 6/],
    [['--weights', 'e3'], /--weights: "e3" is not KEY=NUMBER/],
    [['--config', '1', '--weights', 'e9=2'], /weights\.e9.*not a noised edge/],
    [['--epsilon-l', '1'], /--epsilon-l does not apply to spectral/],
  ])('%s', (extra, message) => {
    const r = train(...extra)
    // bad input is exit 1, k > V too (found when the plan is accounted against the corpus)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(message)
    expect(existsSync(out)).toBe(false)
  })
  it('--private with a configuration that rests on the paper’s unverified theorems is refused before any work', () => {
    const r = runTrainCli(['spectral', '--corpus', uci, '--topics', '2', '--config', '2', '--private', '--quiet', '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--private: the noise on e6 is calibrated to the local-sensitivity theorems/)
    expect(existsSync(out)).toBe(false)
  })
})
