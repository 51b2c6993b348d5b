/**
 * Private SVI for LDA (the private-SVI paper, Algorithm 1): online variational Bayes (./ovb.ts) whose
 * mini-batch expected sufficient statistic is released with Gaussian noise on every coordinate
 * (eq. 3), negatives mapped to 0, then λ ← (1 − ρ_t)λ + ρ_t(η + D·s̃), ρ_t = (τ0 + t)^−κ.
 *
 * Sensitivity (derived for the statistic the noise is added to). Algorithm 1 noises
 * s̄ = (1/S)·Σ_{d ∈ batch} Σ_n φ_dn w_dn (and so does the authors' code). One document's term is a
 * non-negative V×K matrix of total mass N_d ≤ N (each φ_dn sums to 1; truncation to N words), so its
 * L2 norm is at most N: adding or removing one document moves s̄ by ≤ N/S, replacing one by
 * ≤ √2·N/S (two non-negative matrices of norm ≤ N are at most √(N² + N²) apart). The other
 * documents' terms do not move: each document's E-step reads only itself and λ, which is computed
 * from earlier releases. Eq. (4)'s N/D bounds the (1/D)-normalised full-data statistic, not this one.
 * With `clipNorm` C each document's term is first projected to L2 norm ≤ C (the authors' code;
 * ./statistic.ts), and N becomes min(C, N) in both bounds.
 *
 * Sampling is real and declared: 'poisson' includes each document independently with probability
 * ν = S/D (exact coins; PoissonSample, amplified under add/remove one document, the paper's
 * |D − D̃| = 1); 'without-replacement' draws a uniform S-subset (the authors' code;
 * SampleWithoutReplacement, amplified under replace-one document, so Δ = √2·N/S).
 *
 * Noise (config `noise`), σ = z·Δ for the declared Δ:
 * - 'chain' (default): z from the paper's zCDP chain (./chain.ts) — the paper as designed, its noise
 *   multiplier applied to the true sensitivity of the noised statistic;
 * - 'as-written': σ = z·N/D (eq. 3 with eq. 4's Δ) added to the (1/S) statistic — Algorithm 1
 *   literally; the plan declares the true Δ, so the accounted ε shows it is effectively non-private;
 * - 'multiplier': z given (e.g. from `calibrateMultiplier`, ./accounting.ts).
 *
 * Every release goes through the gate: the batch coins, the truncation and the noise are drawn from
 * its words (the noise from node:crypto or from streams keyed by its words, see Threads) inside one
 * measurement per iteration (./measurement.ts). The initial λ is
 * data-independent (gate.independent). φ = λ normalised (post-processing); γ is not released.
 *
 * Threads (`workers`, `--workers W`): the mini-batch E-step — e^{E ln β} for the batch's words, the
 * documents' γ/φ iterations and the statistic's sum — runs on W threads of ../lda/parallel/pool.ts
 * (./e-step-part.ts) inside the release's measurement, and the statistic comes out the same vector,
 * bit for bit, with any W (each cell summed in batch order), so a seeded run writes the same model
 * file. The release's Gaussian noise is drawn on the same threads inside the measurement, in fixed
 * blocks of cells (node:crypto on each thread, or streams keyed by block from the gate's words, as the
 * private Gibbs trainers' releases), so a seeded run's noise does not depend on W either. The batch,
 * the truncation, the M-step and the gate stay on the calling thread.
 *
 * @module
 */
import { availableParallelism } from 'node:os'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import { wordsFromRng, type WordStream } from '../../core/words.js'
import { approxDP } from '../../mechanisms/event.js'
import { type Declared, declared, type Schedule } from '../../mechanisms/schedule.js'
import { addRemove, type NeighbouringRelation, replaceOne } from '../../mechanisms/neighbouring.js'
import { type Corpus, type CorpusStats, corpusStats, validateCorpus } from '../corpus/corpus.js'
import { BASE_DEFAULTS, BaseConfig, checkBase, positive } from '../config.js'
import { privateFitResult, runIterations } from '../lda/loop.js'
import { ReleaseGate } from '../../mechanisms/gate.js'
import type { ClaimedGuarantee, FitOptions, FitResult, LdaTrainer, TrainerName } from '../trainer.js'
import { type ChainInput, zcdpChain } from './chain.js'
import { gaussianVector, miniBatchRelease, type Sampling } from '../../mechanisms/measurement.js'
import { bagOf, emptyBag, learningRate, OnlineLda } from './ovb.js'
import { gammaVariate, truncate } from './random.js'
import { BatchStatistic } from './statistic.js'
import { PRIVATE_SVI_PAPER } from '../papers.js'
import { numericFlag } from '../flags.js'
import { ldaFlags, ldaSurface } from '../lda-surface.js'
import type { DeclaredSizes, TrainerFlag } from '../trainer.js'

export const SviConfig = t.intersection([
  BaseConfig,
  t.type({
    batchSize: t.number,
    truncation: t.number,
    tau0: t.number,
    kappa: t.number,
    sampling: t.union([t.literal('poisson'), t.literal('without-replacement')]),
    epsilonTotal: t.number,
    deltaTotal: t.number,
    deltaReading: t.union([t.literal('total-over-J'), t.literal('per-iteration')]),
    deltaIteration: t.number,
    noise: t.union([t.literal('chain'), t.literal('as-written'), t.literal('multiplier')]),
    multiplier: t.number,
    eStepIterations: t.number,
    eStepTolerance: t.number,
  }),
  // C: project each document's term to L2 norm ≤ C (the authors' code, ./statistic.ts); absent: no projection
  // D: the number of documents declared public (--documents). Under add/remove one document the exact D
  // differs between neighbours, so ν = S/D, σ and the M-step's scale use this one; absent: the corpus's
  // D, which the caller then treats as public (the CLI labels such a svi-lda run not private)
  t.partial({ clipNorm: t.number, documents: t.number }),
])
export type SviConfig = t.TypeOf<typeof SviConfig>

/** Defaults: Hoffman et al.'s τ0 = 1024, κ = 0.7; the authors' maxLen N = 500; the paper's (ε_tot, δ_tot) = (1, 10⁻⁴). */
export const SVI_DEFAULTS = {
  ...BASE_DEFAULTS,
  batchSize: 20,
  truncation: 500,
  tau0: 1024,
  kappa: 0.7,
  epsilonTotal: 1,
  deltaTotal: 1e-4,
  deltaReading: 'total-over-J',
  deltaIteration: 1e-6,
  noise: 'chain',
  multiplier: 1,
  eStepIterations: 100,
  eStepTolerance: 0.001,
} as const

export const SVI_LABEL = 'mini-batch expected sufficient statistic (1/S)·Σ c·φ, Gaussian noise on every coordinate'

/** The relation a sampling model is accounted (and protected) under. */
export const samplingRelation = (s: Sampling): NeighbouringRelation => (s === 'poisson' ? addRemove('document') : replaceOne('document'))

/** The bound on one document's term ‖t_d‖₂: N (its mass after truncation), or min(C, N) with the projection to norm C. */
export const documentNormBound = (c: Pick<SviConfig, 'truncation' | 'clipNorm'>): number => (c.clipNorm === undefined ? c.truncation : Math.min(c.clipNorm, c.truncation))

/** L2 sensitivity of the noised (1/S) statistic: r/S under add/remove, √2·r/S under replace-one, r = `documentNormBound`. */
export const statisticSensitivity = (c: Pick<SviConfig, 'truncation' | 'batchSize' | 'sampling' | 'clipNorm'>): number =>
  ((c.sampling === 'poisson' ? 1 : Math.SQRT2) * documentNormBound(c)) / c.batchSize

export const chainInput = (c: SviConfig, documents: number): ChainInput => ({
  epsilonTotal: c.epsilonTotal,
  deltaTotal: c.deltaTotal,
  iterations: c.iterations,
  rate: c.batchSize / documents,
  deltaReading: c.deltaReading,
  deltaIteration: c.deltaIteration,
})

/** σ of the noise under the config's reading (needs D). */
export const noiseSigma = (c: SviConfig, documents: number): E.Either<DpError, number> => {
  if (c.noise === 'multiplier') return E.right(c.multiplier * statisticSensitivity(c))
  const chain = zcdpChain(chainInput(c, documents))
  if (E.isLeft(chain)) return chain
  return E.right(c.noise === 'chain' ? chain.right.z * statisticSensitivity(c) : (chain.right.z * documentNormBound(c)) / documents)
}

const unit = (field: string, x: number, what: string): E.Either<DpError, number> =>
  x > 0 && x < 1 ? E.right(x) : E.left(invalidParameter(field, x, `${what} must be in (0, 1)`))

const integerAtLeast = (field: string, x: number, min: number, what: string): E.Either<DpError, number> =>
  Number.isInteger(x) && x >= min ? E.right(x) : E.left(invalidParameter(field, x, `${what} must be an integer ≥ ${min}`))

export const validateSvi = (c: SviConfig, stats?: CorpusStats): E.Either<DpError, SviConfig> => {
  const checks: Array<() => E.Either<DpError, unknown>> = [
    () => checkBase(c),
    () => integerAtLeast('batchSize', c.batchSize, 1, 'the mini-batch size S'),
    () => (c.documents === undefined ? E.right(c) : integerAtLeast('documents', c.documents, 1, 'the declared number of documents D')),
    () =>
      stats !== undefined && c.batchSize > publicDocuments(c, stats)
        ? E.left(invalidParameter('batchSize', c.batchSize, `the mini-batch size S exceeds the number of documents D = ${publicDocuments(c, stats)}`))
        : E.right(c),
    () => integerAtLeast('truncation', c.truncation, 1, 'the truncation length N'),
    () => (c.clipNorm === undefined ? E.right(c) : positive('clipNorm', c.clipNorm, 'the per-document projection radius C (L2 norm of a document\'s term)')),
    () => (c.tau0 >= 0 && Number.isFinite(c.tau0) ? E.right(c) : E.left(invalidParameter('tau0', c.tau0, 'τ0 must be a finite number ≥ 0'))),
    () => (c.kappa > 0.5 && c.kappa <= 1 ? E.right(c) : E.left(invalidParameter('kappa', c.kappa, 'κ must be in (0.5, 1] (the Robbins–Monro conditions)'))),
    () => (c.sampling === 'poisson' || c.sampling === 'without-replacement' ? E.right(c) : E.left(invalidParameter('sampling', c.sampling, 'expected "poisson" or "without-replacement"'))),
    () => positive('epsilonTotal', c.epsilonTotal, 'ε_tot'),
    () => unit('deltaTotal', c.deltaTotal, 'δ_tot'),
    () => unit('deltaIteration', c.deltaIteration, 'δ_iter'),
    () => (c.deltaReading === 'total-over-J' || c.deltaReading === 'per-iteration' ? E.right(c) : E.left(invalidParameter('deltaReading', c.deltaReading, 'expected "total-over-J" or "per-iteration"'))),
    () => (['chain', 'as-written', 'multiplier'].includes(c.noise) ? E.right(c) : E.left(invalidParameter('noise', c.noise, 'expected "chain", "as-written" or "multiplier"'))),
    () => positive('multiplier', c.multiplier, 'the noise multiplier z = σ/Δ'),
    () => integerAtLeast('eStepIterations', c.eStepIterations, 1, 'the E-step iteration cap'),
    () => positive('eStepTolerance', c.eStepTolerance, 'the E-step tolerance'),
    () => (stats === undefined ? E.right(c) : noiseSigma(c, publicDocuments(c, stats))),
  ]
  for (const check of checks) {
    const r = check()
    if (E.isLeft(r)) return r
  }
  return E.right(c)
}

/** The D private SVI computes with: the declared one, else the corpus's (then taken as public). */
export const publicDocuments = (c: Pick<SviConfig, 'documents' | 'sampling'>, stats: Pick<CorpusStats, 'documents'>): number =>
  // without replacement (replace one document) the exact D is unchanged between neighbours, and the
  // uniform S-subsets are drawn from it, so it is the one to use
  c.sampling === 'poisson' ? (c.documents ?? stats.documents) : stats.documents

/** One iteration's release as declared: the sampling wrapper around Gaussian(σ, Δ) under the sampling's relation. */
const iterationRelease = (c: SviConfig, documents: number, sigma: number): Declared =>
  declared(miniBatchRelease(SVI_LABEL, c.sampling, c.batchSize, documents, gaussianVector(SVI_LABEL, sigma, statisticSensitivity(c), samplingRelation(c.sampling)), () => []))

/** J iterations of the same release, at the public D and its σ. */
const scheduleAt = (c: SviConfig, documents: number, sigma: number): Schedule => ({ each: [iterationRelease(c, documents, sigma)], iterations: c.iterations })

const sviSchedule = (c: SviConfig, stats: CorpusStats): E.Either<DpError, Schedule> => {
  const v = validateSvi(c, stats)
  if (E.isLeft(v)) return v
  const D = publicDocuments(c, stats)
  return E.map((sigma: number) => scheduleAt(c, D, sigma))(noiseSigma(c, D))
}

const claimSvi = (c: SviConfig, stats: CorpusStats): ClaimedGuarantee => {
  const chain = zcdpChain(chainInput(c, publicDocuments(c, stats)))
  const detail = E.isRight(chain)
    ? `ε′ = ${chain.right.epsPrime.toPrecision(4)}, δ′ = ${chain.right.deltaPrime.toPrecision(3)} per step; ε_iter = ${chain.right.epsIter.toPrecision(4)}, δ_iter = ${chain.right.deltaIter.toPrecision(3)}; σ/Δ = ${chain.right.z.toPrecision(5)}`
    : 'the chain has no solution for these settings'
  const rel = addRemove('document')
  return {
    source: `${PRIVATE_SVI_PAPER}, eq. (3)–(6) and Algorithm 1 (zCDP composition of the amplified per-iteration (ε′, δ′))`,
    statement: `(ε_tot, δ_tot) = (${c.epsilonTotal}, ${c.deltaTotal}) after J = ${c.iterations} iterations at ν = S/D = ${c.batchSize}/${publicDocuments(c, stats)}, δ′ read as ${c.deltaReading === 'total-over-J' ? 'δ_tot/J' : `ν·δ_iter with δ_iter = ${c.deltaIteration}`}: ${detail}`,
    relation: rel,
    event: () => approxDP(c.epsilonTotal, c.deltaTotal, rel),
  }
}

const assumptionsSvi = (c: SviConfig): ReadonlyArray<string> => [
  c.sampling === 'poisson'
    ? 'neighbouring corpora differ by adding or removing one document (the paper\'s |D − D̃| = 1); each iteration includes every document independently with probability ν = S/D (Poisson sampling, the assumption behind the paper\'s amplification)'
    : 'neighbouring corpora differ by replacing one document; each iteration draws a uniform S-subset of the D documents (the authors\' code), amplified under replace-one (Wang, Balle & Kasiviswanathan 2019), so Δ = √2·N/S',
  'D, S, N, K, V (the vocabulary), the hyper-parameters and J are public; under add/remove the algorithm uses the declared D for ν and for λ = η + D·s̃, as the paper does',
  `the noise is added to Algorithm 1's (1/S)-normalised statistic, whose L2 sensitivity is ${c.sampling === 'poisson' ? '' : '√2·'}${c.clipNorm === undefined ? 'N' : 'min(C, N)'}/S (eq. 4's N/D bounds the (1/D)-normalised statistic, not the noised one)`,
  c.noise === 'chain'
    ? 'noise: the paper\'s zCDP-chain multiplier z applied to the true sensitivity (the paper as designed)'
    : c.noise === 'as-written'
      ? 'noise: eq. (3) with eq. (4)\'s Δ = N/D, added to the (1/S) statistic as Algorithm 1 is written (σ is D/S times too small for its sensitivity)'
      : `noise: multiplier z = σ/Δ = ${c.multiplier} given`,
  'documents longer than N keep N tokens chosen uniformly at random, afresh at every visit; negatives are mapped to 0 and the M-step runs on the release only (post-processing); γ of training documents is not released',
  ...(c.clipNorm === undefined
    ? []
    : [
        `each document's term c·φ is projected to L2 norm ≤ C = ${c.clipNorm} before the sum (the authors' code's clippingProportion; not in the paper), so Δ uses min(C, N) = ${documentNormBound(c)} in place of N`,
      ]),
  'the noise is the continuous Gaussian computed in double precision (Box–Muller on full-exponent uniforms): the declared event is the exact Gaussian\'s; floating-point effects (Mironov 2012; Jin et al. 2022) are not covered',
]

/** Documents of the mini-batch per E-step thread that the default asks for (a heuristic, not tuned: each iteration wakes and waits for the threads three times, which a small batch may not repay). */
export const DOCUMENTS_PER_WORKER = 16

/**
 * The E-step's threads: as asked but one per document of the corpus at most (a batch holds no more; the
 * statistic does not depend on the count), else the cores available but one per DOCUMENTS_PER_WORKER
 * documents of the mini-batch at most.
 */
export const sviWorkers = (asked: number | undefined, batchSize: number, documents: number): number =>
  asked === undefined ? Math.max(1, Math.min(availableParallelism(), Math.floor(batchSize / DOCUMENTS_PER_WORKER))) : Math.min(asked, Math.max(1, documents))

const fitSvi = (corpus: Corpus, c: SviConfig, rng: Rng, options: FitOptions = {}): E.Either<DpError, FitResult> => {
  const ok = validateCorpus(corpus)
  if (E.isLeft(ok)) return ok
  const stats = corpusStats(corpus)
  const v = validateSvi(c, stats)
  if (E.isLeft(v)) return v
  // D_pub: the declared D (or the corpus's, then taken as public) for ν, σ and the M-step; the exact
  // D only indexes the documents the coins are drawn for
  const D_pub = publicDocuments(c, stats)
  const sigma = noiseSigma(c, D_pub)
  if (E.isLeft(sigma)) return sigma
  const { documents: D, vocabulary: V } = stats
  const K = c.topics
  const gate = new ReleaseGate(wordsFromRng(rng), {
    ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }),
    ...(options.onRelease === undefined ? {} : { onRelease: options.onRelease }),
    schedule: scheduleAt(c, D_pub, sigma.right),
  })
  const workers = sviWorkers(options.workers, c.batchSize, corpus.docStart.length - 1)
  const ovb = new OnlineLda(K, V, c.alpha, c.beta, { maxIterations: c.eStepIterations, tolerance: c.eStepTolerance, shared: workers > 1 })
  gate.independent((w) => {
    for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = gammaVariate(w, 100) / 100
  })
  ovb.refresh()
  const N = c.truncation
  const maxLen = stats.maxDocumentLength
  const kept = new Int32Array(Math.min(N, maxLen))
  const scratch = new Int32Array(maxLen)
  const seen = new Int32Array(V)
  const bag = emptyBag(Math.min(N, maxLen))
  // the E-step on `workers` threads: the same statistic, bit for bit, with any number (./statistic.ts)
  const started = BatchStatistic.onThreads(ovb, c.clipNorm, workers)
  if (E.isLeft(started)) return started
  const batchStatistic = started.right
  let visited = 0
  const statistic = (batch: Int32Array, size: number, words: WordStream): Float64Array => {
    batchStatistic.begin()
    for (let b = 0; b < size; b++) {
      const d = batch[b] as number
      const n = truncate(words, corpus.tokens, corpus.docStart[d] as number, corpus.docStart[d + 1] as number, N, kept, scratch)
      visited += n
      batchStatistic.add(bagOf(kept, 0, n, bag, seen))
    }
    return batchStatistic.finish(c.batchSize)
  }
  const noise = gaussianVector(SVI_LABEL, sigma.right, statisticSensitivity(c), samplingRelation(c.sampling), batchStatistic.noiser)
  const release = miniBatchRelease(SVI_LABEL, c.sampling, c.batchSize, D, noise, statistic, c.sampling === 'poisson' ? D_pub : D)
  let run: ReturnType<typeof runIterations>
  try {
    run = runIterations(
      c.iterations,
      options,
      (it) => {
        visited = 0
        const noisy = gate.release(release, undefined, `iteration ${it}`)
        // post-processing: negatives to 0 (eq. 3), then the M-step with λ's scale D (the public one)
        for (let i = 0; i < noisy.length; i++) if ((noisy[i] as number) < 0) noisy[i] = 0
        ovb.update(noisy, learningRate(c.tau0, c.kappa, it), D_pub)
        return visited
      },
      () => undefined,
    )
  } finally {
    batchStatistic.close()
  }
  return E.right(privateFitResult(gate, c, V, ovb.topics(), run))
}

/** Private SVI's flags (both sampling models; the trainer's name chooses the model). */
const SVI_FLAGS: ReadonlyArray<TrainerFlag> = [
  numericFlag('batch-size', 'batchSize', 'S', 'documents per mini-batch (Poisson rate S/D for svi-lda)'),
  numericFlag('truncation', 'truncation', 'N', 'words kept per document'),
  numericFlag('tau0', 'tau0', 'T0'),
  numericFlag('kappa', 'kappa', 'K'),
  numericFlag('epsilon-total', 'epsilonTotal', 'E'),
  numericFlag('delta-total', 'deltaTotal', 'D'),
  { flag: 'delta-reading', type: 'string', field: 'deltaReading', meta: 'total-over-J|per-iteration', note: 'how the paper’s δ′ is read' },
  numericFlag('delta-iteration', 'deltaIteration', 'D'),
  { flag: 'noise', type: 'string', field: 'noise', meta: 'chain|as-written|multiplier', note: 'σ from the paper’s chain, as written, or --multiplier × sensitivity' },
  numericFlag('multiplier', 'multiplier', 'Z'),
  { flag: 'clip-norm', field: 'clipNorm', meta: 'C', shown: () => 'off', note: 'project each document’s statistic to L2 norm ≤ C (the authors’ code; sensitivity min(C, N)/S)' },
]

/** Why svi-lda without a declared D is not a private release. */
export const SVI_EXACT_D =
  'svi-lda protects add/remove one document, and without --documents D the exact number of documents sets ν = S/D, σ and the M-step, though it differs between neighbours (declare the public D with --documents)'

/**
 * The private SVI trainer for one sampling model. The trainer contract fixes `relation` per
 * trainer object, and the two sampling models are amplified under different relations, so each
 * has its own object; the config's `sampling` must name the trainer's (`sviTrainerFor` picks it).
 */
export const makeSviTrainer = (sampling: Sampling): LdaTrainer<SviConfig> => {
  const rel = samplingRelation(sampling)
  return {
    name: (sampling === 'poisson' ? 'svi-lda' : 'svi-lda-wor') as TrainerName,
    description:
      sampling === 'poisson'
        ? `private SVI (${PRIVATE_SVI_PAPER}, Alg. 1): online VB with Gaussian noise on the Poisson-sampled mini-batch statistic (add/remove one document)`
        : `private SVI (${PRIVATE_SVI_PAPER}, Alg. 1): online VB with Gaussian noise on fixed-size mini-batches drawn without replacement (replace one document)`,
    config: SviConfig,
    defaults: { ...SVI_DEFAULTS, sampling },
    flags: [...ldaFlags(), ...SVI_FLAGS],
    workers: `threads of the mini-batch E-step, one per document at most; default: the cores available, one per ${DOCUMENTS_PER_WORKER} documents of the batch at most; the result does not depend on it`,
    ...ldaSurface,
    releases: ['phi'],
    ...(sampling === 'poisson'
      ? {
          // private SVI uses the declared D for ν = S/D, σ and the M-step, never the exact one
          withDeclared: (c: SviConfig, d: DeclaredSizes): SviConfig => (d.documents === undefined ? c : { ...c, documents: d.documents }),
          refusals: (_: SviConfig, d: DeclaredSizes) => (d.documents === undefined ? [SVI_EXACT_D] : []),
        }
      : {}),
    validate: (c, stats) =>
      c.sampling === sampling
        ? validateSvi(c, stats)
        : E.left(invalidParameter('sampling', c.sampling, `this trainer samples "${sampling}" (accounted under ${rel.kind} one document); use sviTrainerFor(config)`)),
    relation: rel,
    accountingRelation: rel,
    schedule: sviSchedule,
    claimed: claimSvi,
    assumptions: assumptionsSvi,
    fit: fitSvi,
  }
}

/** Poisson sampling at ν = S/D, add/remove one document: the paper's model. */
export const sviLda: LdaTrainer<SviConfig> = makeSviTrainer('poisson')
/** Fixed-size batches without replacement, replace one document: the authors' code. */
export const sviLdaWithoutReplacement: LdaTrainer<SviConfig> = makeSviTrainer('without-replacement')

/** The trainer object for a config's sampling model. */
export const sviTrainerFor = (c: Pick<SviConfig, 'sampling'>): LdaTrainer<SviConfig> => (c.sampling === 'poisson' ? sviLda : sviLdaWithoutReplacement)
