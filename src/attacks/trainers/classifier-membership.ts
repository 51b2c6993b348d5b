/**
 * Membership inference on an LDA-based classifier (Zhao et al., §VI-C.2 and Fig. 7): a topic model
 * is trained on labelled documents, each document is represented by its topic proportions θ, and a
 * classifier on θ predicts the label (Brown genre, ham/spam). The attacker asks whether one target
 * document was in the training set from the classifier's confidence on it.
 *
 * Here it is a calibrated distinguishing game under the add/remove-one-document relation:
 * D = D′ ∪ {target} (game.ts `add-document`), seeded training runs on each side, and
 * - classifier: θ of every training document folded in from the trained φ (`foldInTheta`), then a
 *   nearest-centroid rule with class priors and a shared isotropic variance (a linear discriminant
 *   on θ, `centroidClassifier`), fitted on the training documents' labels;
 * - statistic: the classifier's log-probability of the target's true label, ln p(y | θ_target) — the
 *   negative cross-entropy loss, the statistic of loss-based membership inference (Yeom et al. 2018);
 * - calibration: LiRA (Carlini et al. 2022, ./lira.ts) Gaussians fitted on shadow runs IN (D) and
 *   OUT (D′); threshold and orientation chosen on a separate split, rates on fresh runs,
 *   Clopper–Pearson upper bounds, ε_LB: `chooseTestAndBound` (./threshold-test.ts), as `auditTrainer` does.
 *
 * Our reading of Fig. 7: the paper reports attack accuracy over many documents (a shadow-model
 * attack in the style of Shokri et al. 2017) without a calibrated bound; here one target document is
 * attacked and the answer is an ε lower bound for that document, valid at the stated confidence.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { seeded } from '../../core/rng.js'
import type { Corpus } from '../../trainers/corpus/corpus.js'
import type { LdaConfigBase, LdaTrainer, TrainerName } from '../../trainers/trainer.js'
import { type AuditClaim, validateClaim } from '../claim.js'
import { buildGame, type CorpusJson, ldaConfigOf } from './game.js'
import { ldaModel } from './observe.js'
import type { LiraModel } from './lira.js'
import { chooseTestAndBound } from './threshold-test.js'

/**
 * θ of one document from a trained φ (K×V row-major) by fold-in EM with φ fixed: responsibilities
 * r_ik ∝ θ_k φ_{k,w_i}, then θ_k = (α + Σ_i r_ik)/(N + Kα) (the MAP update of θ under Dirichlet(α),
 * the usual "fold-in" of held-out documents, e.g. Wallach et al. 2009 §4). `r` is scratch (length K).
 */
export const foldInTheta = (phi: Float64Array, K: number, V: number, words: ArrayLike<number>, alpha: number, iterations: number, out: Float64Array, r: Float64Array): Float64Array => {
  const N = words.length
  out.fill(1 / K)
  for (let it = 0; it < iterations; it++) {
    r.fill(0)
    const next = r
    for (let i = 0; i < N; i++) {
      const w = words[i] as number
      let z = 0
      for (let k = 0; k < K; k++) z += (out[k] as number) * (phi[k * V + w] as number)
      if (!(z > 0)) continue // a word φ gives no mass (cannot happen with β > 0): it carries no evidence
      for (let k = 0; k < K; k++) next[k] = (next[k] as number) + ((out[k] as number) * (phi[k * V + w] as number)) / z
    }
    for (let k = 0; k < K; k++) out[k] = (alpha + (next[k] as number)) / (N + K * alpha)
  }
  return out
}

/** A nearest-centroid classifier on θ: per-label mean, class prior, one shared isotropic variance. */
export interface CentroidClassifier {
  readonly labels: ReadonlyArray<string>
  /** L×K, row-major. */
  readonly centroids: Float64Array
  readonly logPrior: Float64Array
  readonly variance: number
}

/** Fits the classifier on θ rows (D×K) and their labels. */
export const centroidClassifier = (theta: Float64Array, K: number, labels: ReadonlyArray<string>): CentroidClassifier => {
  const names = [...new Set(labels)].sort()
  const L = names.length
  const index = new Map(names.map((l, i) => [l, i]))
  const centroids = new Float64Array(L * K)
  const n = new Float64Array(L)
  for (let d = 0; d < labels.length; d++) {
    const l = index.get(labels[d] as string) as number
    n[l] = (n[l] as number) + 1
    for (let k = 0; k < K; k++) centroids[l * K + k] = (centroids[l * K + k] as number) + (theta[d * K + k] as number)
  }
  for (let l = 0; l < L; l++) for (let k = 0; k < K; k++) centroids[l * K + k] = (centroids[l * K + k] as number) / (n[l] as number)
  let ss = 0
  for (let d = 0; d < labels.length; d++) {
    const l = index.get(labels[d] as string) as number
    for (let k = 0; k < K; k++) ss += ((theta[d * K + k] as number) - (centroids[l * K + k] as number)) ** 2
  }
  // pooled within-class variance per coordinate, floored so a perfectly clustered θ still scores
  const variance = Math.max(1e-6, ss / Math.max(1, (labels.length - L) * K))
  const logPrior = Float64Array.from(n, (c) => Math.log(c / labels.length))
  return { labels: names, centroids, logPrior, variance }
}

/** ln p(label | θ) under the classifier: softmax over ln π_l − ‖θ − μ_l‖²/(2s²); −∞ for an unseen label. */
export const labelLogProbability = (c: CentroidClassifier, theta: ArrayLike<number>, label: string): number => {
  const K = theta.length
  const L = c.labels.length
  let target = -Infinity
  let max = -Infinity
  const scores = new Float64Array(L)
  for (let l = 0; l < L; l++) {
    let d2 = 0
    for (let k = 0; k < K; k++) d2 += ((theta[k] as number) - (c.centroids[l * K + k] as number)) ** 2
    const s = (c.logPrior[l] as number) - d2 / (2 * c.variance)
    scores[l] = s
    if (s > max) max = s
    if (c.labels[l] === label) target = s
  }
  let sum = 0
  for (let l = 0; l < L; l++) sum += Math.exp((scores[l] as number) - max)
  return target - max - Math.log(sum)
}

/** The most probable label (ties: the first in sorted order). */
export const predictLabel = (c: CentroidClassifier, theta: ArrayLike<number>): string => {
  let best = -Infinity
  let arg = c.labels[0] as string
  for (const l of c.labels) {
    const s = labelLogProbability(c, theta, l)
    if (s > best) [best, arg] = [s, l]
  }
  return arg
}

/** A labelled corpus as JSON: `labels[d]` is document d's label. */
export interface LabelledCorpusJson extends CorpusJson {
  readonly labels: ReadonlyArray<string>
}

export interface ClassifierMembershipSpec {
  readonly trainer: TrainerName
  readonly config: Readonly<Record<string, unknown>>
  /** D′: the training documents without the target. */
  readonly corpus: LabelledCorpusJson
  /** The target document; D = D′ plus it. */
  readonly target: { readonly words: ReadonlyArray<number>; readonly label: string }
  /** The ε to test, for the add/remove-one-document relation. */
  readonly claim: AuditClaim
  readonly runs: number
  readonly seed: string
  readonly confidence?: number
  /** Share of runs that choose the test (default 0.3; half of it fits LiRA's shadow models). */
  readonly selectionFraction?: number
  /** Fold-in iterations for θ (default 20). */
  readonly foldInIterations?: number
  /** A trainer object instead of the registry's (test-only variants). */
  readonly trainerObject?: LdaTrainer<LdaConfigBase>
}

export interface ClassifierMembershipResult {
  readonly trainer: string
  readonly game: string
  readonly claim: AuditClaim
  readonly confidence: number
  readonly verdict: 'violation' | 'consistent' | 'inconclusive'
  readonly epsilonLowerBound: number
  readonly ceiling: number
  readonly pointEstimate: number
  readonly test: { readonly name: 'loss' | 'lira:loss'; readonly orientation: 1 | -1; readonly threshold: number; readonly selectionEpsilon: number; readonly lira: LiraModel }
  readonly counts: { readonly falsePositives: number; readonly negatives: number; readonly falseNegatives: number; readonly positives: number }
  /** Mean statistic ln p(y | θ_target) over the estimation runs, IN (member) and OUT. */
  readonly meanStatistic: { readonly member: number; readonly nonMember: number }
  /** Mean training accuracy of the classifier over the estimation runs with the target (utility, Fig. 7b). */
  readonly trainingAccuracy: number
  readonly runs: { readonly selectionPerSide: number; readonly estimationPerSide: number }
  readonly release: string
  /** The chosen test's oriented scores on the estimation runs, per side. */
  readonly scores: { readonly statistic: string; readonly withTarget: ReadonlyArray<number>; readonly withoutTarget: ReadonlyArray<number> }
}

const RELEASE = 'every run is seeded from the audit seed (reproducible), so none is a private release: the audit measures what the trainer computes'

/** The spec's numbers, checked (each refusal names its field). */
const checkMembershipSpec = (
  spec: ClassifierMembershipSpec,
): E.Either<DpError, { readonly claim: AuditClaim; readonly confidence: number; readonly fraction: number; readonly iters: number; readonly labels: ReadonlyArray<string> }> => {
  const claim = validateClaim(spec.claim)
  if (E.isLeft(claim)) return claim
  const confidence = spec.confidence ?? 0.95
  if (!(confidence > 0 && confidence < 1)) return E.left(invalidParameter('$.confidence', spec.confidence, 'the confidence must be in (0, 1), e.g. 0.95'))
  if (!(Number.isInteger(spec.runs) && spec.runs >= 40)) return E.left(invalidParameter('$.runs', spec.runs, 'the number of training runs must be an integer ≥ 40'))
  const fraction = spec.selectionFraction ?? 0.3
  if (!(fraction > 0 && fraction < 1)) return E.left(invalidParameter('$.selectionFraction', spec.selectionFraction, 'the selection fraction must be in (0, 1)'))
  const iters = spec.foldInIterations ?? 20
  if (!(Number.isInteger(iters) && iters >= 1)) return E.left(invalidParameter('$.foldInIterations', spec.foldInIterations, 'a positive integer'))
  const labels = spec.corpus?.labels
  if (!Array.isArray(labels) || labels.length !== spec.corpus.documents.length || !labels.every((l) => typeof l === 'string'))
    return E.left(invalidParameter('$.corpus.labels', labels, 'one string label per document'))
  if (typeof spec.target?.label !== 'string' || !labels.includes(spec.target.label))
    return E.left(invalidParameter('$.target.label', spec.target?.label, 'the target label must be one of the corpus labels (the classifier can only predict labels it saw)'))
  return E.right({ claim: claim.right, confidence, fraction, iters, labels })
}

/** What every run of one audit shares: the game, the fold-in's settings, each side's labels, and scratch. */
interface MembershipRuns {
  readonly spec: ClassifierMembershipSpec
  readonly game: Extract<ReturnType<typeof buildGame>, { _tag: 'Right' }>['right']
  readonly K: number
  readonly alpha: number
  readonly iters: number
  readonly sideLabels: readonly [ReadonlyArray<string>, ReadonlyArray<string>]
  readonly targetWords: Int32Array
  readonly theta: Float64Array
  readonly scratch: Float64Array
}

/** One seeded run: the statistic (the target label's log-probability for the target document), and the classifier's accuracy on its own training documents. */
const membershipRun = (c: MembershipRuns, phase: 'select' | 'estimate', side: 0 | 1, i: number): E.Either<DpError, { stat: number; accuracy: number }> => {
  const { game, K, alpha, iters, scratch } = c
  const corpus: Corpus = game.corpora[side]
  const fit = game.trainer.fit(corpus, game.config, seeded(`${c.spec.seed}|classifier-membership|${phase}|${side}|${i}`), { logLikelihoodEvery: 0 })
  if (E.isLeft(fit)) return fit
  const model = ldaModel(fit.right.model)
  if (model === null) return E.left(invalidParameter('$.trainer', game.trainer.name, 'the classifier-membership audit reads φ: the trainer\'s model carries none'))
  const { phi, vocabulary: V } = model
  const D = corpus.docStart.length - 1
  const thetas = new Float64Array(D * K)
  for (let d = 0; d < D; d++)
    foldInTheta(phi, K, V, corpus.tokens.subarray(corpus.docStart[d] as number, corpus.docStart[d + 1] as number), alpha, iters, thetas.subarray(d * K, (d + 1) * K), scratch)
  const classifier = centroidClassifier(thetas, K, c.sideLabels[side])
  let correct = 0
  for (let d = 0; d < D; d++) if (predictLabel(classifier, thetas.subarray(d * K, (d + 1) * K)) === c.sideLabels[side][d]) correct++
  foldInTheta(phi, K, V, c.targetWords, alpha, iters, c.theta, scratch)
  return E.right({ stat: labelLogProbability(classifier, c.theta, c.spec.target.label), accuracy: correct / D })
}

/** n runs of one phase and side: their statistics and mean accuracy. */
const membershipRuns = (c: MembershipRuns, phase: 'select' | 'estimate', side: 0 | 1, n: number): E.Either<DpError, { stats: Float64Array; accuracy: number }> => {
  const stats = new Float64Array(n)
  let acc = 0
  for (let i = 0; i < n; i++) {
    const r = membershipRun(c, phase, side, i)
    if (E.isLeft(r)) return r
    stats[i] = r.right.stat
    acc += r.right.accuracy
  }
  return E.right({ stats, accuracy: acc / n })
}

/** Audits a trainer through membership inference on its LDA-based classifier; see the module comment. */
export const auditClassifierMembership = (spec: ClassifierMembershipSpec): E.Either<DpError, ClassifierMembershipResult> => {
  const checked = checkMembershipSpec(spec)
  if (E.isLeft(checked)) return checked
  const { claim, confidence, fraction, iters, labels } = checked.right
  const g = buildGame(
    { trainer: spec.trainer, config: spec.config, corpus: { vocab: spec.corpus.vocab, documents: spec.corpus.documents }, neighbour: { kind: 'add-document', words: spec.target.words }, view: 'black-box' },
    spec.trainerObject,
  )
  if (E.isLeft(g)) return E.left({ ...g.left, path: g.left.path.replace(/^\$\.neighbour\.words/, '$.target.words') } as DpError)
  const game = g.right
  const lda = ldaConfigOf(game, 'the classifier-membership audit')
  if (E.isLeft(lda)) return lda
  const { topics: K, alpha } = lda.right
  const c: MembershipRuns = { spec, game, K, alpha, iters, sideLabels: [[...labels, spec.target.label], labels], targetWords: Int32Array.from(spec.target.words), theta: new Float64Array(K), scratch: new Float64Array(K) }
  const selPerSide = Math.max(10, Math.floor((spec.runs * fraction) / 2))
  const estPerSide = Math.max(10, Math.floor((spec.runs - 2 * selPerSide) / 2))
  const sel0 = membershipRuns(c, 'select', 0, selPerSide)
  if (E.isLeft(sel0)) return sel0
  const sel1 = membershipRuns(c, 'select', 1, selPerSide)
  if (E.isLeft(sel1)) return sel1
  const est0 = membershipRuns(c, 'estimate', 0, estPerSide)
  if (E.isLeft(est0)) return est0
  const est1 = membershipRuns(c, 'estimate', 1, estPerSide)
  if (E.isLeft(est1)) return est1
  // one statistic, the loss: raw or LiRA-calibrated, chosen on the selection runs, bounded on fresh ones
  const t = chooseTestAndBound({ statistics: ['loss'], selection: [sel0.right.stats, sel1.right.stats], estimation: [est0.right.stats, est1.right.stats], claim, confidence })
  if (E.isLeft(t)) return t
  const { test, liras } = t.right
  const mean = (xs: Float64Array): number => xs.reduce((a, x) => a + x, 0) / xs.length
  return E.right({
    trainer: game.trainer.name,
    game: `membership of one ${spec.target.label} document (${spec.target.words.length} tokens) in the LDA-based classifier's training set: ${game.description}`,
    claim,
    confidence,
    verdict: t.right.verdict,
    epsilonLowerBound: t.right.epsilonLowerBound,
    ceiling: t.right.ceiling,
    pointEstimate: t.right.pointEstimate,
    test: { name: test.name as 'loss' | 'lira:loss', orientation: test.orientation, threshold: test.threshold, selectionEpsilon: test.selectionEpsilon, lira: liras[0] as LiraModel },
    counts: t.right.counts,
    meanStatistic: { member: mean(est0.right.stats), nonMember: mean(est1.right.stats) },
    trainingAccuracy: est0.right.accuracy,
    runs: { selectionPerSide: selPerSide, estimationPerSide: estPerSide },
    release: RELEASE,
    scores: t.right.scores,
  })
}
