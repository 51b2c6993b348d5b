/**
 * OLP-LDA (Zhao et al., arXiv:2010.04391, §VI, Algorithm 2): LP-LDA's randomized response by the users,
 * then online training at the server, mini-batch by mini-batch, from an initial model on a public prior
 * corpus D0 (./online.ts: O-LDA, eq. 10–13), each batch reconstructed toward the Bayesian estimate
 * B(n_t) = ω·μ_t + (1 − ω)·N̂_t (./bayes.ts: eq. 19–21, Theorems 6–7) by LP-LDA's Step 4
 * (../lp/estimate.ts `reconstructToward`).
 *
 * Per batch l (Algorithm 2 lines 6–14, in the order ./bayes.ts explains): n^l_t from the batch's
 * reports; μ^l by eq. (21); ω fixed (Algorithm 2's input) or from σ by Theorem 6 for this batch's
 * M_l; η^l = B(n^l); the batch reconstructed toward η^l; β^l = β^{l−1} + λN^{l−1} (eq. 10); T
 * sweeps of eq. (12). The model is φ^L of the last batch (eq. 13).
 *
 * Privacy. Every stream user's document is perturbed once, by its user, with LP-LDA's randomized
 * response; users in different mini-batches are disjoint and each holds one document, so the whole
 * stream is ONE release whose event is the per-report randomized response — parallel composition
 * over disjoint users: the L mini-batches do not compose one user's ε. The gate releases the
 * perturbation of all stream users at once (each user's report does not depend on when it is
 * consumed) and the server consumes the reports batch by batch. Everything after it reads the
 * reports and public data only: μ, ω, the reconstruction, the sweeps are NoOp post-processing. The
 * prior corpus D0 is public data — the user asserts it (a split of the training documents is
 * treated as public by that assertion; ε covers only the stream's documents) — so training on it
 * carries no event; the ledger shows it as NoOp. Under replace-one word the accounted event is
 * BitwiseRandomizedResponse(f/2, 2), as for LP-LDA; per document (any change) V·ε_b.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import { wordsFromRng, type WordStream } from '../../core/words.js'
import { nonPrivate, noOp } from '../../mechanisms/event.js'
import { declared, type Schedule } from '../../mechanisms/schedule.js'
import { replaceOne } from '../../mechanisms/neighbouring.js'
import { LDA_ASSUMPTIONS } from '../assumptions.js'
import { BASE_DEFAULTS, BaseConfig, checkBase } from '../config.js'
import { type Corpus, type CorpusStats, corpusStats, documentCount, type PublicCorpus, selectDocuments, validateCorpus } from '../corpus/corpus.js'
import { numpyPermutation } from '../corpus/mt19937.js'
import { privateFitResult, runIterations } from '../lda/loop.js'
import { FastUniform } from '../lda/random.js'
import type { GibbsState } from '../lda/state.js'
import { ReleaseGate } from '../../mechanisms/gate.js'
import { randomizedStep } from '../../mechanisms/measurement.js'
import { postProcessing } from '../release/post-processing.js'
import { type FitOptions, type FitResult, type LdaTrainer, pureClaim } from '../trainer.js'
import { onesPerWord, presenceCorpus, reconstructToward } from '../lp/estimate.js'
import { bitEpsilon, perturbation, presenceEvent, WORD_BITS } from '../lp/lp-lda.js'
import { checkFlip, flipProbability, type LocalReports } from '../lp/perturb.js'
import { bayesEstimate, nextPrior, theoremSixOmega } from './bayes.js'
import { batchState, flatPrior, phiWithPrior, presenceDocuments, sweepWithPrior, type TopicWordPrior, updatePrior, wordTotals } from './online.js'
import { LDA_DP, LDA_DP_PAPER } from '../papers.js'
import { flagNumber, numericFlag } from '../flags.js'
import { ldaFlags, ldaSurface } from '../lda-surface.js'
import { FLIP_FLAG, unitGuarantees, unitNotes } from '../lp/lp-lda.js'
import type { FlagValues } from '../trainer.js'

/** ω given (Algorithm 2's "reconstruction factor"), or σ, the prior's standard deviation, with ω from Theorem 6 per batch. */
export const Denoise = t.union([t.type({ omega: t.number }), t.type({ priorSd: t.number })])
export type Denoise = t.TypeOf<typeof Denoise>

export const OlpConfig = t.intersection([
  BaseConfig,
  t.type({
    flip: t.number,
    /** A fraction in [0, 1) of the training documents split off as the public prior D0, or the path of a public prior corpus (an extra input: the caller loads it and `fit` takes it as `options.inputs.prior`). */
    prior: t.union([t.number, t.string]),
    /** Reports per mini-batch (the last batch holds the rest). */
    batch: t.number,
    /** O-LDA's correlation factor λ ∈ [0, 1] (eq. 10). */
    lambda: t.number,
    denoise: Denoise,
  }),
])
export type OlpConfig = t.TypeOf<typeof OlpConfig>

const WORD = replaceOne('word')

/** The public seed of the deterministic prior/stream split (numpy's permutation, like the train/test split). */
export const PRIOR_SPLIT_SEED = 20241113

const PRIOR = 'public prior corpus D0: LDA on its word-presence documents (public data, no event)'
/**
 * A prior split off the private training documents is private data trained on without noise: the
 * step is recorded as NonPrivate (ε = ∞), so such a run is never a private release (issue 22, item 2).
 */
const PRIOR_SPLIT = 'prior corpus D0 split off the private training documents: LDA on them without noise (not protected)'

/** Whether the prior is a fraction of the private training documents (and not empty). */
const priorIsSplit = (c: Pick<OlpConfig, 'prior'>): boolean => typeof c.prior === 'number' && c.prior > 0
const DENOISE = 'server: n_t, prior μ_t (eq. 21), Bayesian estimate B(n_t) (eq. 19), reconstruction — post-processing of the reports'
const SWEEP = 'O-LDA sweep (eq. 12) on the reconstructed batch — post-processing of the reports'

/** The number of stream documents once the prior is split off (a path prior splits nothing). */
export const streamSize = (c: Pick<OlpConfig, 'prior'>, documents: number): number => (typeof c.prior === 'number' ? documents - Math.floor(c.prior * documents) : documents)

export const batchCount = (streamDocuments: number, batch: number): number => Math.ceil(streamDocuments / batch)

/**
 * The deterministic split of `corpus` into the public prior D0 and the private stream: a fixed
 * public permutation (seed PRIOR_SPLIT_SEED), its first ⌊fraction·D⌋ documents D0, the rest the
 * stream in permuted order (the paper draws both at random from the training set, §VII-A).
 */
export const splitPrior = (corpus: Corpus, fraction: number): { readonly prior: Corpus; readonly stream: Corpus } => {
  const D = documentCount(corpus)
  const perm = numpyPermutation(PRIOR_SPLIT_SEED, D)
  const P = Math.floor(fraction * D)
  return { prior: selectDocuments(corpus, perm.subarray(0, P)), stream: selectDocuments(corpus, perm.subarray(P)) }
}

const packs = (c: OlpConfig, reports: number, V: number): boolean => {
  let bits = 1
  while (1 << bits < c.topics) bits++
  return reports < 2 ** (31 - bits) && reports * V < 2 ** 31
}

const validate = (c: OlpConfig, stats?: CorpusStats): E.Either<DpError, OlpConfig> => {
  const b = checkBase(c)
  if (E.isLeft(b)) return b
  const f = checkFlip(c.flip)
  if (E.isLeft(f)) return f
  if (!(c.lambda >= 0 && c.lambda <= 1)) return E.left(invalidParameter('lambda', c.lambda, `the correlation factor λ of O-LDA must be in [0, 1] (${LDA_DP}, eq. 10)`))
  if (!(Number.isInteger(c.batch) && c.batch >= 1)) return E.left(invalidParameter('batch', c.batch, 'the mini-batch size must be an integer ≥ 1 (an empty mini-batch has no reports to estimate from)'))
  if (typeof c.prior === 'number' ? !(c.prior >= 0 && c.prior < 1) : c.prior.length === 0)
    return E.left(invalidParameter('prior', c.prior, 'the prior is a fraction in [0, 1) of the training documents treated as the public prior corpus, or the path of a public corpus'))
  if ('omega' in c.denoise && !(c.denoise.omega >= 0 && c.denoise.omega <= 1)) return E.left(invalidParameter('omega', c.denoise.omega, `the weight ω of the prior must be in [0, 1] (${LDA_DP}, eq. 19)`))
  if ('priorSd' in c.denoise && !(c.denoise.priorSd > 0 && Number.isFinite(c.denoise.priorSd)))
    return E.left(invalidParameter('priorSd', c.denoise.priorSd, `the prior standard deviation σ must be a finite number > 0 (${LDA_DP}, Theorem 6)`))
  if (stats !== undefined) {
    const M = streamSize(c, stats.documents)
    if (M < 1) return E.left(invalidParameter('batch', 0, `mini-batch 1 holds no documents: the prior split ${String(c.prior)} leaves none of the ${stats.documents} documents to the stream`))
    if (!packs(c, Math.min(M, c.batch), stats.vocabulary)) return E.left(invalidParameter('batch', c.batch, `too many reports per mini-batch over V = ${stats.vocabulary} to pack counts for K = ${c.topics}`))
  }
  return E.right(c)
}

/**
 * Before the batches: the prior (no event when public; NonPrivate when split off the private documents)
 * and the stream users' randomized response (one release); every batch: the denoising and T sweeps,
 * post-processing (NoOp).
 */
const olpSchedule = (c: OlpConfig, streamDocuments: number): Schedule => ({
  before: [priorIsSplit(c) ? { label: PRIOR_SPLIT, event: nonPrivate } : { label: PRIOR, event: noOp }, declared(perturbation({ ...c, shuffler: false }))],
  each: [{ label: DENOISE, event: noOp }, { label: SWEEP, event: noOp, times: c.iterations }],
  iterations: batchCount(streamDocuments, c.batch),
})

/** The reports of users [from, to): a view, no copy. */
const slice = (r: LocalReports, from: number, to: number): LocalReports => ({ V: r.V, M: to - from, stride: r.stride, bits: r.bits.subarray(from * r.stride, to * r.stride) })

/** An Rng over the gate's words, to seed a sampler's stream from them. */
const gateRng = (words: WordStream): Rng => ({ kind: 'release gate', next: () => words.nextDouble() })

/**
 * OLP-LDA's prior corpus D0: a corpus the user declared public, or documents split off the private
 * training documents (`{ split }`), which the gate releases without protection.
 */
export type PriorCorpus = PublicCorpus | { readonly split: Corpus }

/** The prior's vocabulary must be the stream's, word for word (the bit positions are public and shared). */
export const checkSameVocabulary = (prior: Corpus, stream: Corpus): E.Either<DpError, Corpus> => {
  const a = prior.vocab
  const b = stream.vocab
  const i = a.findIndex((w, j) => w !== b[j])
  if (a.length === b.length && i < 0) return E.right(prior)
  const where = i < 0 || i >= b.length ? `V = ${a.length} against ${b.length}` : `word ${i + 1} is "${a[i]}" against "${b[i]}"`
  return E.left(invalidParameter('prior', `V = ${a.length}`, `the prior corpus has another vocabulary than the corpus (${where}); both must use one public word list (--vocabulary FILE)`))
}

/** What a batch's server step carries forward: the estimate η^l (for μ^{l+1}) and the reconstruction. */
interface Denoised {
  readonly eta: Float64Array
  readonly mu: Float64Array
  readonly data: Corpus
}

/**
 * The body of `fit`, its only caller: OLP-LDA on a public prior corpus (undefined: none) and a
 * private stream. A prior given by path reaches it through fit's extra inputs (`options.inputs.prior`,
 * loaded by the CLI as a declared public corpus); there is no other entry point. The prior's
 * vocabulary must equal the stream's.
 */
const fitPriorThenStream = (prior: PriorCorpus | undefined, stream: Corpus, c: OlpConfig, rng: Rng, options: FitOptions = {}): E.Either<DpError, FitResult> => {
  if (documentCount(stream) === 0) return E.left(invalidParameter('batch', 0, 'mini-batch 1 holds no documents: the stream is empty'))
  const ok = validateCorpus(stream)
  if (E.isLeft(ok)) return ok
  if (prior !== undefined) {
    const d0 = 'split' in prior ? prior.split : prior
    // an empty split (⌊f·D⌋ = 0) trains on nothing, but is still recorded: the plan charges the split
    if (documentCount(d0) > 0) {
      const same = checkSameVocabulary(d0, stream)
      if (E.isLeft(same)) return same
      const p = validateCorpus(d0, 'prior')
      if (E.isLeft(p)) return p
    }
  }
  const stats = corpusStats(stream)
  const v = validate({ ...c, prior: typeof c.prior === 'string' ? c.prior : 0 }, stats)
  if (E.isLeft(v)) return v
  const { topics: K, alpha, flip: f } = c
  const V = stream.vocab.length
  const gate = new ReleaseGate(wordsFromRng(rng), { ...options, schedule: olpSchedule(c, documentCount(stream)) })
  const init = (data: Corpus, words: WordStream): GibbsState => {
    const u = new FastUniform(gateRng(words))
    return batchState(data, K, () => u.next())
  }
  const sweep = (s: GibbsState, beta: TopicWordPrior) => postProcessing(SWEEP, (_: undefined, words: WordStream) => sweepWithPrior(s, beta, alpha, new FastUniform(gateRng(words))))
  // the prior: LDA(D0) on its presence documents; μ⁰ = η⁰ = Σ_k N⁰_{k,t} (Algorithm 2 lines 1–3). A public
  // D0 is a no-cost step; a D0 split off the private documents is released without protection (NonPrivate)
  let beta = flatPrior(K, V, c.beta)
  const trainPrior = (data: Corpus | undefined, words: WordStream) => {
    if (data === undefined || documentCount(data) === 0) return undefined
    const s = init(presenceDocuments(data), words)
    const u = new FastUniform(gateRng(words))
    for (let it = 0; it < c.iterations; it++) sweepWithPrior(s, beta, alpha, u)
    return { counts: s.nwk, mu: wordTotals(s.nwk, K, V), M: documentCount(data) }
  }
  const d0 =
    'split' in (prior ?? {})
      ? gate.release(randomizedStep(PRIOR_SPLIT, nonPrivate, trainPrior), (prior as { readonly split: Corpus }).split, 'public prior')
      : gate.release(postProcessing(PRIOR, (data: PublicCorpus | undefined, words: WordStream) => trainPrior(data, words)), prior as PublicCorpus | undefined, 'public prior')
  let counts = d0?.counts
  let mu = d0?.mu
  let eta = d0?.mu
  let previousM = d0?.M ?? 0
  // the user side: every stream user perturbs their document once (one release)
  const reports = gate.release(perturbation({ ...c, shuffler: false }), { V, docStart: stream.docStart, tokens: stream.tokens }, 'users')
  // the server side, batch by batch, on the reports and public data only
  const denoise = postProcessing(DENOISE, (r: LocalReports, words: WordStream): Denoised => {
    const n = onesPerWord(r)
    const muL = mu === undefined || eta === undefined ? undefined : nextPrior(mu, eta, r.M, previousM)
    const omega = 'omega' in c.denoise ? c.denoise.omega : theoremSixOmega(r.M, f, c.denoise.priorSd)
    const etaL = bayesEstimate(n, r.M, f, muL, omega)
    return { eta: etaL, mu: muL ?? etaL, data: presenceCorpus(reconstructToward(r, n, etaL, words), stream.vocab) }
  })
  let last: GibbsState | undefined
  const run = runIterations(
    batchCount(reports.M, c.batch),
    options,
    (l) => {
      const from = (l - 1) * c.batch
      const r = slice(reports, from, Math.min(reports.M, from + c.batch))
      const d = gate.release(denoise, r, `batch ${l}`)
      mu = d.mu
      eta = d.eta
      previousM = r.M
      if (counts !== undefined) beta = updatePrior(beta, counts, c.lambda)
      const s = gate.independent((w) => init(d.data, w))
      for (let it = 1; it <= c.iterations; it++) gate.release(sweep(s, beta), undefined, `batch ${l}, iteration ${it}`)
      counts = s.nwk
      last = s
      return d.data.tokens.length * c.iterations
    },
    () => undefined,
  )
  const phi = phiWithPrior(last?.nwk ?? new Int32Array(V * K), beta)
  return E.right(privateFitResult(gate, c, V, phi, run))
}

/**
 * olp-lda's flags into the config: --prior as a fraction (a number) or a path; --omega or --prior-sd
 * (not both) as `denoise`. Returns an error message, or undefined.
 */
const onlineFlags = (v: FlagValues, config: Record<string, unknown>): string | undefined => {
  const prior = v['prior']
  if (typeof prior === 'string') {
    const x = flagNumber('prior', prior)
    config['prior'] = E.isRight(x) && x.right !== undefined ? x.right : prior
  }
  const omega = flagNumber('omega', v['omega'])
  const sd = flagNumber('prior-sd', v['prior-sd'])
  if (E.isLeft(omega)) return omega.left
  if (E.isLeft(sd)) return sd.left
  if (omega.right !== undefined && sd.right !== undefined) return '--omega and --prior-sd are alternatives: ω is given, or derived from σ by Theorem 6'
  if (omega.right !== undefined) config['denoise'] = { omega: omega.right }
  if (sd.right !== undefined) config['denoise'] = { priorSd: sd.right }
  return undefined
}

export const olpLda: LdaTrainer<OlpConfig> = {
  name: 'olp-lda',
  description: `OLP-LDA (${LDA_DP_PAPER}, §VI): randomized response by each user; online LDA (O-LDA) over mini-batches from a public prior corpus, Bayesian denoising`,
  config: OlpConfig,
  // no prior by default: a prior split off the training documents is not public (issue 22)
  defaults: { ...BASE_DEFAULTS, flip: 0.5, prior: 0, batch: 50, lambda: 0.5, denoise: { omega: 0.4 } },
  flags: [
    ...ldaFlags(),
    FLIP_FLAG,
    { flag: 'prior', meta: 'FRACTION|PATH', shown: (d) => String(d['prior']), note: 'public prior corpus: a fraction of the training documents split off, or a corpus with the same vocabulary' },
    numericFlag('batch', 'batch', 'B', 'reports per mini-batch'),
    numericFlag('lambda', 'lambda', 'L', 'O-LDA correlation factor, eq. 10'),
    { flag: 'omega', meta: 'W', shown: () => '0.4', note: 'weight of the prior μ_t in B(n_t), eq. 19' },
    { flag: 'prior-sd', meta: 'S', note: 'instead of --omega: prior σ, ω per batch by Theorem 6' },
  ],
  fromFlags: onlineFlags,
  inputs: [{ name: 'prior', flag: 'prior', path: (c) => (typeof c.prior === 'string' ? c.prior : undefined) }],
  ...ldaSurface,
  // its reports are released batch by batch in the stream's permuted order, not one per corpus document in
  // corpus order as the report-bits statistic reads them (LP-LDA's): only φ is declared for the audit
  releases: ['phi'],
  statementNotes: (c, stats, deltas) => E.map(unitNotes)(unitGuarantees({ ...c, shuffler: false }, stats, deltas)),
  validate,
  relation: WORD,
  accountingRelation: WORD,
  schedule: (c, stats) => E.map((v: OlpConfig) => olpSchedule(v, streamSize(v, stats.documents)))(validate(c, stats)),
  claimed: (c, stats) => {
    const eb = bitEpsilon(c.flip)
    return pureClaim(
      `${LDA_DP_PAPER}, §VI via Theorem 4 (OLP-LDA perturbs with LP-LDA’s randomized response; no separate theorem)`,
      `ε = ${eb.toPrecision(6)} "for each word" (a per-bit figure) and V·ε = ${(stats.vocabulary * eb).toPrecision(6)} for each document`,
      eb,
      WORD,
    )
  },
  assumptions: (c) => [
    ...LDA_ASSUMPTIONS.slice(0, 1),
    'one document per user, perturbed once; users in different mini-batches are disjoint, so the stream is one release (parallel composition over disjoint users), not one per mini-batch composed',
    typeof c.prior === 'number'
      ? c.prior > 0
        ? `the prior corpus D0 is the first ⌊${c.prior}·D⌋ documents of a fixed public permutation (seed ${PRIOR_SPLIT_SEED}) of the private training documents, trained on without noise: NOT protected (ε = ∞); pass --prior PATH with a corpus that is public, or no prior`
        : 'no prior corpus: the online training starts from the flat prior β'
      : `the prior corpus D0 (${c.prior}) is public data, asserted by the user: training on it carries no event`,
    `a replaced word changes at most ${WORD_BITS} presence bits of its document's report: BitwiseRandomizedResponse(f/2, ${WORD_BITS}) under replace-one word, f/2 = ${flipProbability(c.flip)}`,
    'the vocabulary, the mini-batch size and order, λ and ω (or σ) are public and fixed before any user reports; μ, B(n_t), the reconstruction and the sweeps read only the reports and D0 (post-processing, no cost)',
    LDA_ASSUMPTIONS[1] as string,
  ],
  fit: (corpus, c, rng, options = {}) => {
    if (typeof c.prior === 'string') {
      const prior = options.inputs?.['prior']
      return prior === undefined ? E.left(invalidParameter('prior', c.prior, 'a prior corpus path is an extra input: load it as a public corpus and pass it as options.inputs.prior')) : fitPriorThenStream(prior, corpus, c, rng, options)
    }
    const ok = validateCorpus(corpus)
    if (E.isLeft(ok)) return ok
    const v = validate(c, corpusStats(corpus))
    if (E.isLeft(v)) return v
    const { prior, stream } = splitPrior(corpus, c.prior)
    return fitPriorThenStream(priorIsSplit(c) ? { split: prior } : undefined, stream, c, rng, options)
  },
}
