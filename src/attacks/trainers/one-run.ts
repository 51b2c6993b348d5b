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
 * used nowhere else (labelled `canaryLabel` in a labelled corpus), so its score is read at that
 * word, from what the trainer declares it releases (`releases`, as the many-run audit's statistics
 * are; any trainer, built in or a plug-in): its mass in φ (`phi-mass`, black-box) or in the
 * released topic-word tables (`release-mass`, white-box); for a trainer releasing vectors of one
 * number per vocabulary word, the canary word's entry of each release summed, or the largest or
 * smallest (`word-release-sum`/`-max`/`-min`, white-box: DP-SGD's noisy gradient sums, where a
 * canary in the lot moves its own coordinate), or its entry of the model file's vectors
 * (`weights-mass`, black-box). `orientation` says whether an included canary scores higher (the
 * default) or lower — fixed before the run, as the theorem requires. The unit is add/remove one
 * canary document; compare the bound with the trainer's guarantee for that unit (group privacy
 * over its tokens for a replace-one-word trainer), not with a per-word ε; `{ accounted: true,
 * delta }` claims the accountant's ε for an add/remove-one-document trainer's plan.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { seeded } from '../../core/rng.js'
import { fromDocuments } from '../../trainers/corpus/corpus.js'
import { TRAINERS, isTrainerName } from '../../trainers/registry.js'
import type { ReleaseRecord } from '../../mechanisms/gate.js'
import type { ReleaseKind, TrainerName } from '../../trainers/trainer.js'
import { type AuditClaim, validateClaim } from '../claim.js'
import { oneRunEpsilonLowerBound } from '../one-run.js'
import { hashSeed, streamKey, TrialRng } from '../stream.js'
import { type AccountedClaim, accountedClaimFor, isAccountedClaim } from './accounted.js'
import { type CorpusJson, decodeTrainerConfig, type GameTrainer, type View } from './game.js'
import { collector, ldaModel } from './observe.js'

/** How a one-run audit scores a canary (see the module comment). */
export type OneRunStatistic = 'phi-mass' | 'release-mass' | 'weights-mass' | 'word-release-sum' | 'word-release-max' | 'word-release-min'

export interface TrainerOneRunSpec {
  /** A built-in trainer's name (or, with `trainerOverride`, the plug-in's name). */
  readonly trainer: TrainerName | string
  readonly config: Readonly<Record<string, unknown>>
  /** The corpus without canaries. */
  readonly corpus: CorpusJson
  /** m: canary documents (each its own new word). */
  readonly canaries: number
  /** Tokens per canary document (default 4). */
  readonly canaryLength?: number
  /** Every canary's label, for a labelled corpus (a trainer that reads labels: a spam canary). */
  readonly canaryLabel?: string
  /** r: guesses, half "in" and half "out" (default m, no abstention). */
  readonly guesses?: number
  readonly view: View
  /** The claim to test, or `{ accounted: true, delta }`: the accountant's ε at δ for the trainer's plan (add/remove one document). */
  readonly claim: AuditClaim | AccountedClaim
  readonly seed: string | number
  readonly confidence?: number
  /** The canary score (default: from the view and the trainer's releases, see `defaultStatistic`). */
  readonly statistic?: OneRunStatistic
  /** Whether an included canary scores higher (default) or lower. */
  readonly orientation?: 'higher-in' | 'lower-in'
  /** A trainer object instead of the registry's: a plug-in (its `Trainer`), a test-only variant. */
  readonly trainerOverride?: GameTrainer
}

/** The statistic a one-run audit uses when none is given: what the view sees of what the trainer declares. */
export const defaultStatistic = (releases: ReadonlyArray<ReleaseKind>, view: View): OneRunStatistic | null => {
  const white = view === 'white-box'
  if (white && releases.includes('word-vectors')) return 'word-release-sum'
  if (releases.includes('word-weights')) return 'weights-mass'
  if (releases.includes('phi')) return white && releases.includes('count-tables') ? 'release-mass' : 'phi-mass'
  return null
}

const NEEDS: Readonly<Record<OneRunStatistic, { release: ReleaseKind; white: boolean }>> = {
  'phi-mass': { release: 'phi', white: false },
  'release-mass': { release: 'phi', white: true },
  'weights-mass': { release: 'word-weights', white: false },
  'word-release-sum': { release: 'word-vectors', white: true },
  'word-release-max': { release: 'word-vectors', white: true },
  'word-release-min': { release: 'word-vectors', white: true },
}

export interface TrainerOneRunResult {
  readonly trainer: string
  readonly view: View
  /** The canary score used. */
  readonly statistic: OneRunStatistic
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

/** A one-run audit's spec, checked: the game's numbers, the trainer and the canary score it can give. */
interface OneRunPlan {
  readonly confidence: number
  /** Canaries m, tokens per canary L, guesses r. */
  readonly m: number
  readonly L: number
  readonly r: number
  readonly trainer: GameTrainer
  readonly statistic: OneRunStatistic
  readonly need: { readonly release: ReleaseKind; readonly white: boolean }
}

const planOneRun = (spec: TrainerOneRunSpec): E.Either<DpError, OneRunPlan> => {
  const confidence = spec.confidence ?? 0.95
  if (!(confidence > 0 && confidence < 1)) return E.left(invalidParameter('$.confidence', spec.confidence, 'the confidence must be in (0, 1)'))
  const m = spec.canaries
  if (!(Number.isInteger(m) && m >= 2)) return E.left(invalidParameter('$.canaries', m, 'the number of canaries: an integer ≥ 2'))
  const L = spec.canaryLength ?? 4
  if (!(Number.isInteger(L) && L >= 1)) return E.left(invalidParameter('$.canaryLength', spec.canaryLength, 'tokens per canary: an integer ≥ 1'))
  const r = spec.guesses ?? m
  if (!(Number.isInteger(r) && r >= 2 && r <= m && r % 2 === 0)) return E.left(invalidParameter('$.guesses', spec.guesses, `an even integer in [2, ${m}]`))
  if (spec.trainerOverride === undefined && !isTrainerName(spec.trainer)) return E.left(invalidParameter('$.trainer', spec.trainer, `one of ${Object.keys(TRAINERS).join(', ')}`))
  const trainer: GameTrainer = spec.trainerOverride ?? TRAINERS[spec.trainer as TrainerName]
  const statistic = spec.statistic ?? defaultStatistic(trainer.releases, spec.view)
  if (statistic === null || NEEDS[statistic] === undefined)
    return E.left(invalidParameter('$.statistic', spec.statistic ?? null, `a canary score the trainer's releases [${trainer.releases.join(', ')}] give: ${Object.keys(NEEDS).join(', ')}`))
  const need = NEEDS[statistic]
  if (!trainer.releases.includes(need.release) || (need.white && spec.view !== 'white-box'))
    return E.left(invalidParameter('$.statistic', statistic, `needs a trainer that declares '${need.release}'${need.white ? ' and a white-box view' : ''} (releases: [${trainer.releases.join(', ')}], view ${spec.view})`))
  if (spec.corpus.labels !== undefined && typeof spec.canaryLabel !== 'string') return E.left(invalidParameter('$.canaryLabel', spec.canaryLabel, "the canaries' label (a string): the corpus is labelled"))
  return E.right({ confidence, m, L, r, trainer, statistic, need })
}

/** The corpus with the included canaries added (canary i is word V0 + i, L times; included with probability ½ from the audit seed). */
const withCanaries = (spec: TrainerOneRunSpec, p: OneRunPlan): { readonly corpus: ReturnType<typeof fromDocuments>; readonly included: boolean[]; readonly V0: number } => {
  const V0 = spec.corpus.vocab.length
  const coin = seeded(`${String(spec.seed)}:one-run-inclusion`)
  const included = Array.from({ length: p.m }, () => coin.next() < 0.5)
  const vocab = [...spec.corpus.vocab, ...Array.from({ length: p.m }, (_, i) => `one-run-canary-${i}`)]
  const docs: number[][] = spec.corpus.documents.map((d) => [...d])
  const docLabels = spec.corpus.labels === undefined ? undefined : [...spec.corpus.labels]
  for (let i = 0; i < p.m; i++)
    if (included[i] === true) {
      docs.push(Array.from({ length: p.L }, () => V0 + i))
      docLabels?.push(spec.canaryLabel as string)
    }
  return { corpus: fromDocuments(vocab, docs.map((d) => Int32Array.from(d)), undefined, docLabels), included, V0 }
}

/**
 * Trains once on `corpus` (seeded from the audit seed) and returns each canary's score, from what the
 * statistic reads: the released tables or word vectors it saw (white box), φ, or the model's word weights.
 */
const canaryScores = (spec: TrainerOneRunSpec, p: OneRunPlan, corpus: ReturnType<typeof fromDocuments>, config: unknown, V0: number): E.Either<DpError, (w: number) => number> => {
  const { trainer, need, statistic, m } = p
  const K = typeof (config as { topics?: unknown }).topics === 'number' ? ((config as { topics: number }).topics as number) : 0
  const V = corpus.vocab.length
  const col = collector(V, K)
  // word-vector releases: each canary word's entry, summed, largest and smallest over the releases
  const words = { sum: new Float64Array(m), max: new Float64Array(m).fill(Number.NEGATIVE_INFINITY), min: new Float64Array(m).fill(Number.POSITIVE_INFINITY) }
  const onRelease = (rec: ReleaseRecord): void => {
    if (!need.white) return
    if (need.release !== 'word-vectors') return col.onRelease(rec)
    const v = rec.value
    if (!(ArrayBuffer.isView(v) || Array.isArray(v)) || (v as ArrayLike<unknown>).length !== V) return
    for (let i = 0; i < m; i++) {
      const x = Number((v as ArrayLike<number>)[V0 + i])
      words.sum[i] = (words.sum[i] as number) + x
      if (x > (words.max[i] as number)) words.max[i] = x
      if (x < (words.min[i] as number)) words.min[i] = x
    }
  }
  const rng = new TrialRng(streamKey(hashSeed(String(spec.seed)), 'estimate', 0, 0), 'one-run')
  rng.reset(0)
  const fit = trainer.fit(corpus, config, rng, spec.view === 'white-box' ? { onRelease, logLikelihoodEvery: 0 } : { logLikelihoodEvery: 0 })
  if (E.isLeft(fit)) return fit
  const model = fit.right.model
  const phi = ldaModel(model)?.phi
  const weights = need.release === 'word-weights' ? Object.values(trainer.model.fields(model)).filter((f): f is ArrayLike<number> => (ArrayBuffer.isView(f) || Array.isArray(f)) && (f as ArrayLike<unknown>).length === V) : []
  if (need.release === 'phi' && phi === undefined) return E.left(invalidParameter('$.trainer', trainer.name, "the trainer declares that it releases φ ('phi') but its model carries none"))
  if (need.release === 'word-weights' && weights.length === 0) return E.left(invalidParameter('$.trainer', trainer.name, `the trainer declares 'word-weights' but its model file has no field of ${V} numbers`))
  if (need.release === 'word-vectors' && m > 0 && words.min[0] === Number.POSITIVE_INFINITY) return E.left(invalidParameter('$.trainer', trainer.name, `the trainer declares 'word-vectors' but released no vector of ${V} numbers`))
  return E.right((w: number): number => {
    let s = 0
    switch (statistic) {
      case 'word-release-sum':
        return words.sum[w - V0] as number
      case 'word-release-max':
        return words.max[w - V0] as number
      case 'word-release-min':
        return words.min[w - V0] as number
      case 'weights-mass':
        for (const f of weights) s += Number(f[w])
        return s
      default:
        // release-mass reads the released tables when the run released any, φ otherwise
        if (statistic === 'release-mass' && col.tables.length > 0) for (const t of col.tables) for (let k = 0; k < K; k++) s += t[w * K + k] as number
        else for (let k = 0; k < K; k++) s += (phi as Float64Array)[k * V + w] as number
        return s
    }
  })
}

export const auditTrainerOneRun = (spec: TrainerOneRunSpec): E.Either<DpError, TrainerOneRunResult> => {
  const plan = planOneRun(spec)
  if (E.isLeft(plan)) return plan
  const p = plan.right
  const { m, r, confidence } = p
  const { corpus, included, V0 } = withCanaries(spec, p)
  const decoded = decodeTrainerConfig(p.trainer, spec.config, corpus)
  if (E.isLeft(decoded)) return decoded
  const config = decoded.right
  const claim = isAccountedClaim(spec.claim) ? accountedClaimFor(p.trainer, config, corpus, 'add-document', spec.claim.delta) : validateClaim(spec.claim)
  if (E.isLeft(claim)) return claim
  const scored = canaryScores(spec, p, corpus, config, V0)
  if (E.isLeft(scored)) return scored
  const score = scored.right
  const sign = spec.orientation === 'lower-in' ? -1 : 1
  // rank by score (ties by index: deterministic), guess the top r/2 in and the bottom r/2 out
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => sign * (score(V0 + b) - score(V0 + a)) || a - b)
  let correct = 0
  for (let j = 0; j < r / 2; j++) {
    if (included[order[j] as number] === true) correct++
    if (included[order[m - 1 - j] as number] === false) correct++
  }
  const pTarget = 1 - confidence
  const lb = oneRunEpsilonLowerBound(m, r, correct, claim.right.delta, pTarget)
  const ceiling = oneRunEpsilonLowerBound(m, r, r, claim.right.delta, pTarget)
  return E.right({
    trainer: p.trainer.name,
    view: spec.view,
    statistic: p.statistic,
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
