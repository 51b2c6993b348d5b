/**
 * The common start of every private collapsed-Gibbs trainer's `fit` (HDP-LDA, CDP-LDA(+),
 * SUB-LDA): check the corpus and the config against it, open the release gate on the run's word
 * source (node:crypto unless the caller injected a seeded Rng) with the trainer's schedule, build the
 * snapshot sampler on `options.workers` threads (./parallel) and draw the initial topics on them (per
 * document, from the gate's words: node:crypto on each thread, or streams keyed from them).
 *
 * @module
 */
import { availableParallelism } from 'node:os'
import * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import { wordsFromRng } from '../../core/words.js'
import { type Corpus, type CorpusStats, corpusStats, validateCorpus } from '../corpus/corpus.js'
import { ReleaseGate } from '../../mechanisms/gate.js'
import type { Schedule } from '../../mechanisms/schedule.js'
import type { FitOptions, IterationLog } from '../trainer.js'
import { jointLogLikelihood } from './loglik.js'
import { runIterations } from './loop.js'
import { sweepPart } from './parallel/part.js'
import { prestartPool } from './parallel/pool.js'
import { makeParallelSnapshotSampler, sharedWordIndex, type SnapshotSampler } from './snapshot.js'
import { allocState, type GibbsState, plainInt32, sharedInt32 } from './state.js'

export interface PrivateFitStart {
  readonly gate: ReleaseGate
  readonly state: GibbsState
  readonly sampler: SnapshotSampler
  /**
   * Whether an observer sees the releases (`options.onRelease`) and may keep them: then every release is
   * a value of its own; otherwise a release the trainer reads only until the next one may reuse its
   * table (`SnapshotSampler.reusingNoiser`, `topicDraws`' z): the same values, fewer copies.
   */
  readonly observed: boolean
  /** The true-count log-likelihood, only as a gated diagnostic (undefined unless diagnostics are on). */
  readonly logLikelihood: (iteration: number) => number | undefined
  /**
   * `runIterations` with the log-likelihood diagnostic, ending the sampler's worker threads when the
   * iterations end (or throw).
   */
  readonly iterate: (iterations: number, options: FitOptions, step: (iteration: number) => number) => { trace: IterationLog[]; tokensSampled: number }
}

/** The threads of a fit on `workers` threads, started ahead of it (parked for the fit: ./parallel/pool.ts `prestartPool`). */
export const prestartPrivateFit = (workers: number): void => prestartPool(sweepPart, workers)

/** Tokens per sweeping thread below which the default adds no thread (starting one costs tens of ms). */
export const TOKENS_PER_WORKER = 100_000

/**
 * The threads of a run: as asked but one per document at most (a thread sweeps whole documents, so more
 * would start and idle; the model does not depend on the count), else the cores available but one per
 * TOKENS_PER_WORKER tokens at most.
 */
export const sweepWorkers = (asked: number | undefined, tokens: number, documents: number): number =>
  asked === undefined ? Math.max(1, Math.min(availableParallelism(), Math.floor(tokens / TOKENS_PER_WORKER))) : Math.min(asked, Math.max(1, documents))

export const startPrivateFit = <C extends { readonly topics: number; readonly alpha: number; readonly beta: number }>(
  corpus: Corpus,
  config: C,
  validate: (c: C, stats: CorpusStats) => E.Either<DpError, unknown>,
  rng: Rng,
  clip: number,
  options: FitOptions,
  /** The trainer's schedule (its plan is derived from it): the gate checks every release against it. */
  schedule: Schedule,
): E.Either<DpError, PrivateFitStart> => {
  const ok = validateCorpus(corpus)
  if (E.isLeft(ok)) return ok
  const v = validate(config, corpusStats(corpus))
  if (E.isLeft(v)) return v
  const gate = new ReleaseGate(wordsFromRng(rng), {
    ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }),
    ...(options.onRelease === undefined ? {} : { onRelease: options.onRelease }),
    schedule,
  })
  const workers = sweepWorkers(options.workers, corpus.tokens.length, corpus.docStart.length - 1)
  const alloc = workers > 1 ? sharedInt32 : plainInt32
  const state = allocState(corpus, config.topics, 'reading', alloc)
  const observed = options.onRelease !== undefined
  const sampler = makeParallelSnapshotSampler(state, config.alpha, config.beta, clip, workers, 'wasm', observed, sharedWordIndex(corpus.tokens, state.V))
  if (E.isLeft(sampler)) return sampler
  // the counts are owed after a sweep (counted inside the next release): brought up to date first
  const logLikelihood = (it: number): number | undefined =>
    gate.diagnostic(
      'log-likelihood of the true counts',
      () => {
        sampler.right.counts()
        return jointLogLikelihood(state, config.alpha, config.beta)
      },
      `iteration ${it}`,
    )
  // the uniform initial topics, drawn on the sampler's threads
  gate.independent((w) => sampler.right.initialTopics(w))
  const iterate = (iterations: number, o: FitOptions, step: (iteration: number) => number) => {
    try {
      return runIterations(iterations, o, step, logLikelihood)
    } finally {
      sampler.right.close()
    }
  }
  return E.right({ gate, state, sampler: sampler.right, observed, logLikelihood, iterate })
}
