// The DP-SGD logistic-regression trainer, written only against dpaudit's public API (see
// docs/plugins.md): a plug-in in the shape of dpaudit's trainer contract — a config codec and its
// defaults, range checks naming the field, the relation it protects, the releases it will make (its
// schedule, from which dpaudit derives its plan), what it assumes, and `fit`, whose every
// data-dependent output leaves through a release gate given that schedule.
//
// Algorithm (Abadi et al. 2016, Algorithm 1, with Poisson-sampled lots): w₀ = 0; for t = 1..T,
// release s_t = Σ_{i ∈ lot_t} clip_C(∇ℓ(w_{t−1}; x_i, y_i)) + N(0, σ²C²·I) (./step.mjs) and set
// w_t = w_{t−1} − η·s_t/(q·n̂), n̂ the declared number of training e-mails, q = B/n̂ the sampling
// rate for an expected lot size B. The model is w_T: post-processing of the releases.
//
// Privacy: T compositions of PoissonSample(q, Gaussian(σC, C)) under add/remove one document, the
// event dp_accounting builds for DP-SGD (SelfComposedDpEvent(PoissonSampledDpEvent(q,
// GaussianDpEvent(σ)), T)) and Opacus accounts with its RDP or PRV accountant; dpaudit's RDP
// accountant (Mironov, Talwar & Zhang 2019 for the sampled Gaussian) and PLD accountant answer on it.
// n̂ is public: under add/remove the exact n differs between neighbours, so q and the step size use
// the declared one (config `documents`; absent, the corpus's own n is used and treated as public,
// which the assumptions say).
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { invalidParameter } from 'dpaudit'
import { Relations, ReleaseGate, wordsFromRng } from 'dpaudit/mechanisms'
import { Claims, validateCorpus } from 'dpaudit/trainers'
import { accuracy, presenceRows } from './features.mjs'
import { dpSgdStep, STEP_LABEL } from './step.mjs'

export const DpSgdConfig = t.intersection([
  t.type({ steps: t.number, batchSize: t.number, noiseMultiplier: t.number, clip: t.number, learningRate: t.number }),
  t.partial({ documents: t.number }),
])

/**
 * Defaults: an expected lot of 256 (q ≈ 0.047 on SpamAssassin's 5,434 training e-mails), σ = 2,
 * T = 300 (about 14 passes): ε ≈ 1.8 at δ = 1e-5. C and η were picked from a handful of settings
 * by held-out accuracy (bench/dp-sgd.bench.mjs prints it), so that accuracy is slightly optimistic.
 */
export const DP_SGD_DEFAULTS = { steps: 300, batchSize: 256, noiseMultiplier: 2, clip: 0.5, learningRate: 4 }

/** One e-mail, with its label, is the unit added or removed. */
export const RELATION = Relations.addRemove('document')

const positive = (field, x, what) => (Number.isFinite(x) && x > 0 ? E.right(x) : E.left(invalidParameter(field, x, `${what} must be a finite number > 0`)))
const integerAtLeast = (field, x, min, what) => (Number.isInteger(x) && x >= min ? E.right(x) : E.left(invalidParameter(field, x, `${what} must be an integer ≥ ${min}`)))

/** The n̂ of the module comment. */
export const publicDocuments = (c, stats) => c.documents ?? stats.documents

export const validate = (c, stats) => {
  const checks = [
    () => integerAtLeast('steps', c.steps, 1, 'the number of steps T'),
    () => integerAtLeast('batchSize', c.batchSize, 1, 'the expected lot size B'),
    () => (c.documents === undefined ? E.right(c) : integerAtLeast('documents', c.documents, 1, 'the declared number of training e-mails n̂')),
    () => (stats !== undefined && c.batchSize > publicDocuments(c, stats) ? E.left(invalidParameter('batchSize', c.batchSize, `the expected lot size B exceeds the number of e-mails n̂ = ${publicDocuments(c, stats)}`)) : E.right(c)),
    () => positive('noiseMultiplier', c.noiseMultiplier, 'the noise multiplier σ'),
    () => positive('clip', c.clip, 'the clipping norm C'),
    () => positive('learningRate', c.learningRate, 'the learning rate η'),
  ]
  for (const check of checks) {
    const r = check()
    if (E.isLeft(r)) return r
  }
  return E.right(c)
}

/** One step's event: Poisson sampling at q = B/n̂ around the Gaussian of the clipped sum. */
export const stepEvent = (c, documents) => dpSgdStep({ x: { rows: 0, columns: 0 }, batchSize: c.batchSize, documents, clip: c.clip, noiseMultiplier: c.noiseMultiplier, relation: RELATION }).event

/** T steps, each the same release; the plan is derived from it (planOf), and fit's gate checks every release against it. */
const stepSchedule = (c, documents) => ({ each: [{ label: STEP_LABEL, event: stepEvent(c, documents) }], iterations: c.steps })

const schedule = (c, stats) => E.map((v) => stepSchedule(v, publicDocuments(v, stats)))(validate(c, stats))

/**
 * Why a run without a declared n̂ is not a private release: q = B/n and the plan then use the exact
 * number of e-mails, which differs between neighbours under add/remove (`dpaudit train --private`
 * refuses it before any work; otherwise the run is labelled not private).
 */
export const EXACT_N = 'the trainer protects add/remove one e-mail, and without a declared n̂ (--documents, or config.documents) the exact number of e-mails sets the sampling rate q = B/n and so the plan, though it differs between neighbours (declare the public n̂ with --documents)'

const assumptions = (c) => [
  'neighbouring training sets differ by adding or removing one e-mail with its label; every step includes each e-mail independently with probability q = B/n̂ (Poisson sampling, the model dp_accounting and Opacus account DP-SGD under)',
  `n̂ (${c.documents === undefined ? "the corpus's own number of training e-mails, treated as public" : `declared: ${c.documents}`}), B, T, C, σ, η, the vocabulary and the initial weights w₀ = 0 are public`,
  'features are the L2-normalised presence of vocabulary words (‖x‖₂ = 1), so an unclipped per-example gradient has norm ≤ 1; each is clipped to C before the sum (Δ = C)',
  'the noise is the continuous Gaussian computed in double precision: the declared event is the exact Gaussian\'s; floating-point effects (Mironov 2012) are not covered',
]

// the rows of a corpus, built once per corpus object (an audit trains thousands of times on two corpora)
const rowsOf = new WeakMap()
const presence = (corpus) => {
  let x = rowsOf.get(corpus)
  if (x === undefined) rowsOf.set(corpus, (x = presenceRows(corpus)))
  return x
}

const fit = ({ clipping }) => (corpus, c, rng, options = {}) => {
  const ok = validateCorpus(corpus)
  if (E.isLeft(ok)) return ok
  // the message names no e-mail: which ones lack a label is a fact about the private data
  if (!corpus.labels.every((l) => l === 'spam' || l === 'ham')) return E.left(invalidParameter('corpus.labels', '(not shown)', 'every e-mail must be labelled "spam" or "ham" (the built-in spam corpus is)'))
  const stats = { documents: corpus.docStart.length - 1, vocabulary: corpus.vocab.length, tokens: corpus.tokens.length }
  const v = validate(c, stats)
  if (E.isLeft(v)) return v
  const x = presence(corpus)
  const n = publicDocuments(c, stats)
  const step = dpSgdStep({ x, batchSize: c.batchSize, documents: n, clip: c.clip, noiseMultiplier: c.noiseMultiplier, relation: RELATION, clipping })
  const gate = new ReleaseGate(wordsFromRng(rng), {
    ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }),
    ...(options.onRelease === undefined ? {} : { onRelease: options.onRelease }),
    schedule: stepSchedule(c, n),
  })
  const w = new Float64Array(x.columns) // w₀ = 0: data-independent
  const eta = c.learningRate / c.batchSize // η/(q·n̂) = η/B
  const trace = []
  const t0 = performance.now()
  for (let it = 1; it <= c.steps; it++) {
    const s = gate.release(step, w, `step ${it}`)
    for (let j = 0; j < w.length; j++) w[j] -= eta * s[j]
    const elapsedMs = performance.now() - t0
    const log = { iteration: it, logLikelihood: Number.NaN, elapsedMs, tokensPerSecond: Number.NaN }
    trace.push(log)
    options.onIteration?.(log)
  }
  return E.right({
    model: { vocabulary: x.columns, weights: w },
    trace,
    ledger: gate.ledger(),
    tokensSampled: 0, // not counted: the lot sizes reveal the private n under add/remove
    release: { private: gate.isPrivate, randomness: gate.randomness, notPrivateBecause: gate.notPrivateBecause() },
  })
}

/** Its command-line flags (`dpaudit train ./examples/dp-sgd-logreg.mjs --steps 300 …`); --documents, common to every trainer, declares n̂. */
export const FLAGS = [
  { flag: 'steps', field: 'steps', meta: 'T', note: 'DP-SGD steps' },
  { flag: 'batch-size', field: 'batchSize', meta: 'B', note: 'expected lot size: each e-mail joins a lot with probability B/n̂' },
  { flag: 'noise-multiplier', field: 'noiseMultiplier', meta: 'Z', note: 'noise σ = Z·C on the clipped sum' },
  { flag: 'clip', field: 'clip', meta: 'C', note: 'per-example gradient clipping norm' },
  { flag: 'learning-rate', field: 'learningRate', meta: 'H', note: 'step size η, on the lot average' },
]

/**
 * The model file holds the weights; the evaluation is held-out accuracy beside the majority class's
 * (a model that only learned the class balance scores the latter).
 */
export const MODEL_OUTPUT = {
  kind: 'dpaudit-dp-sgd-logreg-model',
  fields: (m) => ({ weights: Array.from(m.weights) }),
  metric: 'held-out accuracy',
  evaluate: (m, test) => {
    if (test.vocab.length !== m.vocabulary) return E.left(invalidParameter('test.vocabulary', test.vocab.length, `the model has ${m.vocabulary} weights`))
    const a = accuracy(presenceRows(test), m.weights)
    return E.right({
      values: { accuracy: a.accuracy, majorityClass: a.majority },
      shown: a.accuracy.toFixed(4),
      detail: `${a.documents} held-out e-mails; always the majority class: ${a.majority.toFixed(4)}`,
      protocol: 'share of e-mails whose sign of w·x (spam when > 0) matches the label; features as in training',
    })
  },
}

/** The trainer; `clipping: false` is the deliberately broken variant (same declared schedule, no clipping). */
export const makeDpSgdTrainer = ({ name, clipping }) => ({
  name,
  description: clipping
    ? 'DP-SGD logistic regression (Abadi et al. 2016): Poisson-sampled lots, per-example clipping to C, Gaussian noise σC on the sum (add/remove one e-mail)'
    : 'BROKEN DP-SGD logistic regression: declares clipping to C but does not clip (its real sensitivity is up to 1/C times the declared one)',
  config: DpSgdConfig,
  defaults: DP_SGD_DEFAULTS,
  validate,
  relation: RELATION,
  accountingRelation: RELATION,
  schedule,
  claimed: () => Claims.noClaim('Abadi et al. 2016, Algorithm 1', 'no guarantee of its own: the accountant answers for the plan', RELATION),
  assumptions,
  fit: fit({ clipping }),
  flags: FLAGS,
  model: MODEL_OUTPUT,
  iterations: (c) => c.steps,
  // what `dpaudit audit` may observe: each step's noisy gradient sum (one number per vocabulary word) and the weights in the model file
  releases: ['word-vectors', 'word-weights'],
  summary: (c) => `T = ${c.steps}, B = ${c.batchSize}, σ = ${c.noiseMultiplier}, C = ${c.clip}, η = ${c.learningRate}`,
  withDeclared: (c, declared) => (declared.documents === undefined ? c : { ...c, documents: declared.documents }),
  refusals: (c) => (c.documents === undefined ? [EXACT_N] : []),
})
