/**
 * One-run auditing (Steinke, Nasr & Jagielski 2023, "Privacy auditing with one (1) training run"):
 * for trainers too costly to run thousands of times. m canary documents are each included in the
 * training corpus independently with probability ½; ONE training run; the auditor scores every
 * canary, guesses "included" for the r/2 highest scores and "excluded" for the r/2 lowest
 * (abstaining on the rest), and counts v correct guesses. If the trainer is (ε, δ)-DP with respect
 * to adding or removing one canary, v is stochastically dominated as in their main theorem
 * (Steinke, Nasr & Jagielski 2023, Theorem 5.2):
 *
 *   q = e^ε/(1 + e^ε),  β(ε) = P[Binomial(r, q) ≥ v],
 *   α(ε) = max_{i=1..v} (1/i)·P[v > Binomial(r, q) ≥ v − i],
 *   p(ε, δ) = min(1, β(ε) + α(ε)·δ·2m)   (δ = 0 ⇒ p = β),
 *
 * and ε_LB = sup{ε : p(ε, δ) < 1 − confidence}, computed by ../one-run.ts (`oneRunEpsilonLowerBound`,
 * the mechanism-level one-run audit's bound: one copy of the formula). The bound is valid at
 * the stated confidence for any (ε, δ)-DP trainer, but it saturates: r = 100 guesses all right
 * certify 3.49 at 95 % and δ = 0, r = 1 000 certify 5.81 (test/attacks/one-run.test.ts), so one run is tight
 * only for small ε.
 *
 * Canaries: canary i is `canaryLength` tokens of its own word, a word added to the vocabulary and
 * used nowhere else, so its score is that word's mass — in φ (black-box) or in the released
 * topic-word tables (white-box). The unit is add/remove one canary document; compare the bound with
 * the trainer's guarantee for that unit (group privacy over its tokens for a replace-one-word
 * trainer), not with a per-word ε.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { seeded } from '../../core/rng.js'
import { fromDocuments } from '../../trainers/corpus/corpus.js'
import { TRAINERS, isTrainerName } from '../../trainers/registry.js'
import type { LdaConfigBase, LdaTrainer, TrainerName } from '../../trainers/trainer.js'
import { type AuditClaim, validateClaim } from '../claim.js'
import { oneRunEpsilonLowerBound } from '../one-run.js'
import { hashSeed, streamKey, TrialRng } from '../stream.js'
import { type CorpusJson, decodeTrainerConfig, type View } from './game.js'
import { collector } from './observe.js'

export interface TrainerOneRunSpec {
  readonly trainer: TrainerName
  readonly config: Readonly<Record<string, unknown>>
  /** The corpus without canaries. */
  readonly corpus: CorpusJson
  /** m: canary documents (each its own new word). */
  readonly canaries: number
  /** Tokens per canary document (default 4). */
  readonly canaryLength?: number
  /** r: guesses, half "in" and half "out" (default m, no abstention). */
  readonly guesses?: number
  readonly view: View
  readonly claim: AuditClaim
  readonly seed: string | number
  readonly confidence?: number
  /** A trainer object instead of the registry's (tests). */
  readonly trainerOverride?: LdaTrainer<LdaConfigBase>
}

export interface TrainerOneRunResult {
  readonly trainer: string
  readonly view: View
  readonly claim: AuditClaim
  readonly confidence: number
  readonly canaries: number
  readonly guesses: number
  readonly correct: number
  readonly included: number
  readonly epsilonLowerBound: number
  /** The most this run could certify: all r guesses right. */
  readonly ceiling: number
  readonly verdict: 'violation' | 'consistent' | 'inconclusive'
  readonly method: string
  readonly release: string
}

export const auditTrainerOneRun = (spec: TrainerOneRunSpec): E.Either<DpError, TrainerOneRunResult> => {
  const claim = validateClaim(spec.claim)
  if (E.isLeft(claim)) return claim
  const confidence = spec.confidence ?? 0.95
  if (!(confidence > 0 && confidence < 1)) return E.left(invalidParameter('$.confidence', spec.confidence, 'the confidence must be in (0, 1)'))
  const m = spec.canaries
  if (!(Number.isInteger(m) && m >= 2)) return E.left(invalidParameter('$.canaries', m, 'the number of canaries: an integer ≥ 2'))
  const L = spec.canaryLength ?? 4
  if (!(Number.isInteger(L) && L >= 1)) return E.left(invalidParameter('$.canaryLength', spec.canaryLength, 'tokens per canary: an integer ≥ 1'))
  const r = spec.guesses ?? m
  if (!(Number.isInteger(r) && r >= 2 && r <= m && r % 2 === 0)) return E.left(invalidParameter('$.guesses', spec.guesses, `an even integer in [2, ${m}]`))
  if (spec.trainerOverride === undefined && !isTrainerName(spec.trainer)) return E.left(invalidParameter('$.trainer', spec.trainer, `one of ${Object.keys(TRAINERS).join(', ')}`))
  const trainer = spec.trainerOverride ?? TRAINERS[spec.trainer]
  const V0 = spec.corpus.vocab.length
  // inclusion bits from the audit seed; canary i is word V0 + i
  const coin = seeded(`${String(spec.seed)}:one-run-inclusion`)
  const included = Array.from({ length: m }, () => coin.next() < 0.5)
  const vocab = [...spec.corpus.vocab, ...Array.from({ length: m }, (_, i) => `one-run-canary-${i}`)]
  const docs: number[][] = spec.corpus.documents.map((d) => [...d])
  for (let i = 0; i < m; i++) if (included[i] === true) docs.push(Array.from({ length: L }, () => V0 + i))
  const corpus = fromDocuments(vocab, docs.map((d) => Int32Array.from(d)))
  const decoded = decodeTrainerConfig(trainer, spec.config, corpus)
  if (E.isLeft(decoded)) return decoded
  const config = decoded.right as LdaConfigBase // the trainer is an LDA trainer (its type says so)
  const K = config.topics
  const V = vocab.length
  const col = collector(V, K)
  const rng = new TrialRng(streamKey(hashSeed(String(spec.seed)), 'estimate', 0, 0), 'one-run')
  rng.reset(0)
  const fit = trainer.fit(corpus, config, rng, spec.view === 'white-box' ? { onRelease: col.onRelease, logLikelihoodEvery: 0 } : { logLikelihoodEvery: 0 })
  if (E.isLeft(fit)) return fit
  const phi = fit.right.model.phi
  const score = (w: number): number => {
    let s = 0
    if (spec.view === 'white-box' && col.tables.length > 0) for (const t of col.tables) for (let k = 0; k < K; k++) s += t[w * K + k] as number
    else for (let k = 0; k < K; k++) s += phi[k * V + w] as number
    return s
  }
  // rank by score (ties by index: deterministic), guess the top r/2 in and the bottom r/2 out
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => score(V0 + b) - score(V0 + a) || a - b)
  let correct = 0
  for (let j = 0; j < r / 2; j++) {
    if (included[order[j] as number] === true) correct++
    if (included[order[m - 1 - j] as number] === false) correct++
  }
  const pTarget = 1 - confidence
  const lb = oneRunEpsilonLowerBound(m, r, correct, claim.right.delta, pTarget)
  const ceiling = oneRunEpsilonLowerBound(m, r, r, claim.right.delta, pTarget)
  return E.right({
    trainer: trainer.name,
    view: spec.view,
    claim: claim.right,
    confidence,
    canaries: m,
    guesses: r,
    correct,
    included: included.filter(Boolean).length,
    epsilonLowerBound: lb,
    ceiling,
    verdict: lb > claim.right.epsilon ? 'violation' : ceiling > claim.right.epsilon ? 'consistent' : 'inconclusive',
    method: 'one training run, canaries included with probability ½, top/bottom-score guesses; Steinke, Nasr & Jagielski 2023 (p(ε, δ) = β(ε) + α(ε)·δ·2m, their Theorem 5.2)',
    release: 'the run is seeded from the audit seed: not a private release',
  })
}
