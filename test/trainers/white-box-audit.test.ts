// White-box distinguishing tests (issue 9): each private trainer runs on a tiny corpus and on its
// neighbour under the trainer's own relation (one word replaced), and dpaudit's auditor attacks the
// per-iteration counts that leave the release gate. The certified lower bound must never exceed
// the accounted ε; a mis-declared claim (sensitivity halved, amplification without subsampling,
// the CDP-LDA paper's per-table ε) must be flagged. Seeded, so each verdict repeats exactly.
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { auditMechanism } from '../../src/attacks/audit.js'
import type { Rng } from '../../src/core/rng.js'
import { discreteGaussian, poissonSample, type PrivacyEvent, selfCompose } from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { fromDocuments, type LdaConfigBase, type LdaTrainer, TRAINERS } from '../../src/trainers/index.js'
import { privacyStatement } from '../../src/trainers/statement.js'
import { corpusStats, type Corpus } from '../../src/trainers/corpus/corpus.js'

const VOCAB = ['a', 'b', 'c']
const docs = (first: number): Corpus =>
  fromDocuments(VOCAB, [Int32Array.from([first, 0, 1, 2]), Int32Array.from([1, 2, 2, 0])], ['d1', 'd2'], ['', ''])
const D = docs(0)
const D2 = docs(1) // the first token's word replaced: a → b
const DELTA = 1e-5
const TRIALS = 30_000
// Trials for a soundness check (bound ≤ accounted ε) whose bound has levelled off: the seeded
// HDP-LDA honest audit certifies ε ≥ 2.312 at 10,000 trials and 2.290 at 30,000 (accounted 4.02),
// so the extra trials only cost time. A violation check keeps TRIALS unless its margin is stated.
const SOUNDNESS_TRIALS = 10_000

/** The mechanism an auditor sees: the trainer's released counts of every iteration, concatenated. */
const releasedCounts = (trainer: LdaTrainer<LdaConfigBase>, config: LdaConfigBase) => (corpus: Corpus, rng: Rng): Float64Array => {
  const parts: Float64Array[] = []
  const fit = trainer.fit(corpus, config, rng, {
    logLikelihoodEvery: 0,
    onRelease: (r) => {
      const v = r.value as Float64Array | { released: Float64Array }
      if (v instanceof Float64Array) {
        if (/topic-word/.test(r.label)) parts.push(v.slice())
      } else if (v !== undefined && v.released instanceof Float64Array) parts.push(v.released.slice())
    },
  })
  if (E.isLeft(fit)) throw new Error('fit failed')
  const out = new Float64Array(parts.reduce((s, p) => s + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

const config = (name: keyof typeof TRAINERS, patch: Record<string, unknown>): LdaConfigBase => {
  const t = TRAINERS[name]
  const c = t.config.decode({ ...t.defaults, topics: 2, iterations: 1, alpha: 0.5, beta: 1, ...patch })
  if (E.isLeft(c)) throw new Error('config')
  return c.right
}

const accounted = (name: keyof typeof TRAINERS, c: LdaConfigBase): number => {
  const s = privacyStatement(TRAINERS[name], c, corpusStats(D), [DELTA])
  if (E.isLeft(s)) throw new Error('statement')
  return s.right.guarantee[0]?.epsilon as number
}

const epsilonOf = (event: PrivacyEvent, relation = addRemove('word')): number => {
  const r = account({ schemaVersion: 1, relation, event }, { deltas: [DELTA] })
  if (E.isLeft(r)) throw new Error('account')
  return r.right.tightest[0]?.epsilon as number
}

const audit = (name: keyof typeof TRAINERS, c: LdaConfigBase, claimEpsilon: number, seed: string, trials = TRIALS) => {
  const r = auditMechanism<Corpus>({
    mechanism: releasedCounts(TRAINERS[name], c),
    pairs: { input: D, neighbour: D2 },
    claim: { epsilon: claimEpsilon, delta: DELTA },
    trials,
    seed,
    confidence: 0.99,
    name: `${name} released counts`,
  })
  if (E.isLeft(r)) throw new Error('audit')
  return r.right
}

describe('white-box audits of the released counts (tiny corpus, K = 2, neighbours by word replacement)', () => {
  it('HDP-LDA: the lower bound stays below the accounted ε; the claim with the sensitivity halved is flagged', () => {
    const c = config('hdp-lda', { epsilonL: 4, clip: 0.01 })
    const eps = accounted('hdp-lda', c)
    // pure: ε_L + ε_I; at δ = 1e-5 the tightest accountant may give slightly less
    expect(eps).toBeLessThanOrEqual(4 + 2 * Math.log1p(0.01) + 1e-9)
    expect(eps).toBeGreaterThan(3.9)
    expect(audit('hdp-lda', c, eps, 'hdp-honest', SOUNDNESS_TRIALS).epsilonLowerBound).toBeLessThanOrEqual(eps)
    // Sensitivity halved (30,000 trials: at 15,000 the seeded bound is 2.45, at 10,000 1.87 < 2): one cell moves instead of two, ε_L/2 declared for the counts.
    const r = audit('hdp-lda', c, 2, 'hdp-halved')
    expect(r.verdict).toBe('violation')
    expect(r.epsilonLowerBound).toBeGreaterThan(2)
  }, 120_000)

  it('SUB-LDA: the lower bound stays below the accounted ε; amplification claimed without subsampling is flagged', () => {
    // γ = 1: every token is sampled; σ² = α/(2ε(α)) = 14/(2·28) = 0.25
    const c = config('sub-lda', { gamma: 1, order: 14, rdpEpsilon: 28, clip: 0.01 })
    const eps = accounted('sub-lda', c)
    // (The accounted ε ≈ 15.8 is above what 30,000 trials per side could ever certify, 8.64 at 99 %,
    // so this bound is below it at any affordable trial count; 10,000 trials, as for HDP-LDA.)
    expect(audit('sub-lda', c, eps, 'sub-honest', SOUNDNESS_TRIALS).epsilonLowerBound).toBeLessThanOrEqual(eps)
    // What the counts would cost if amplification at γ = 0.001 applied (add/remove, one cell).
    const amplified = epsilonOf(selfCompose(poissonSample(0.001, discreteGaussian(0.5, 1, addRemove('word'))), 1))
    expect(amplified).toBeLessThan(2)
    // 3,000 trials: the seeded bound is 2.95 against the amplified claim of 0.31 (3.68 at 10,000)
    const r = audit('sub-lda', c, amplified, 'sub-amplified', 3_000)
    expect(r.verdict).toBe('violation')
  }, 120_000)

  it('CDP-LDA: the paper’s ε = 2 for Lap(1/ε) on counts of sensitivity 2 is flagged (accounted: ∞, from the unclipped draws)', () => {
    const c = config('cdp-lda', { epsilon: 2 })
    expect(accounted('cdp-lda', c)).toBe(Number.POSITIVE_INFINITY)
    const r = audit('cdp-lda', c, 2, 'cdp-claim')
    expect(r.verdict).toBe('violation')
  }, 120_000)

  it('CDP-LDA+: the paper’s per-iteration ε = 2 is flagged on one iteration’s counts', () => {
    const c = config('cdp-lda+', { epsilon: 2 })
    expect(accounted('cdp-lda+', c)).toBe(Number.POSITIVE_INFINITY)
    expect(audit('cdp-lda+', c, 2, 'cdp-plus-claim').verdict).toBe('violation')
  }, 120_000)
})

describe('white-box audits over several iterations, and SUB-LDA with real subsampling', () => {
  // 10,000 trials each (a third of the one-iteration cases above): a T-iteration fit costs about T
  // times as much per trial, and the bound is a 99 %-confidence lower bound at any trial count, so
  // fewer trials only loosen it. These cases check soundness (bound ≤ accounted ε) where the
  // releases compose over iterations and the sample is random.
  const FEW = 10_000
  it('HDP-LDA, T = 3: the lower bound on three iterations’ released counts stays below the accounted ε (3 iterations composed)', () => {
    const c = config('hdp-lda', { iterations: 3, epsilonL: 2, clip: 0.01 })
    const eps = accounted('hdp-lda', c)
    expect(eps).toBeLessThanOrEqual(3 * (2 + 2 * Math.log1p(0.01)) + 1e-9)
    const r = audit('hdp-lda', c, eps, 'hdp-honest-t3', FEW)
    expect(r.epsilonLowerBound).toBeLessThanOrEqual(eps)
    // not vacuous: the seeded audit certifies ε ≥ 1.69 of the accounted 6.05
    expect(r.epsilonLowerBound).toBeGreaterThan(1)
  }, 120_000)

  it('SUB-LDA, γ = 0.5, T = 2: the lower bound stays below the accounted ε, which is not amplified (docs/trainers.md)', () => {
    // σ² = α/(2ε(α)) = 14/(2·28) = 0.25; the sample is random, so the replaced token is released in some runs' iterations only.
    // (A mis-declared amplified figure is not checked here: at γ = 0.5 Poisson amplification of σ = 0.5 would still claim
    // ε ≈ 13.4, above what 10,000 trials can certify; the γ = 1 case above flags amplification claimed at γ = 0.001.)
    const c = config('sub-lda', { gamma: 0.5, iterations: 2, order: 14, rdpEpsilon: 28, clip: 0.01 })
    const eps = accounted('sub-lda', c)
    const r = audit('sub-lda', c, eps, 'sub-honest-gamma', FEW)
    expect(r.epsilonLowerBound).toBeLessThanOrEqual(eps)
    // not vacuous: the seeded audit certifies ε ≥ 1.54 (accounted 23.9: σ = 0.5 on two cells that move by 1, twice)
    expect(r.epsilonLowerBound).toBeGreaterThan(1)
  }, 120_000)
})
