/**
 * The common start of every private collapsed-Gibbs trainer's `fit` (HDP-LDA, CDP-LDA(+),
 * SUB-LDA): check the corpus and the config against it, open the release gate on the run's word
 * source (node:crypto unless the caller injected a seeded Rng), draw the initial topics through it
 * in reading order, and build the snapshot sampler.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import { wordsFromRng } from '../../core/words.js'
import { type Corpus, type CorpusStats, corpusStats, validateCorpus } from '../corpus/corpus.js'
import { ReleaseGate } from '../../mechanisms/gate.js'
import type { FitOptions } from '../trainer.js'
import { jointLogLikelihood } from './loglik.js'
import { makeSnapshotSampler, type SnapshotSampler } from './snapshot.js'
import { type GibbsState, initState } from './state.js'

export interface PrivateFitStart {
  readonly gate: ReleaseGate
  readonly state: GibbsState
  readonly sampler: SnapshotSampler
  /** The true-count log-likelihood, only as a gated diagnostic (undefined unless diagnostics are on). */
  readonly logLikelihood: (iteration: number) => number | undefined
}

export const startPrivateFit = <C extends { readonly topics: number; readonly alpha: number; readonly beta: number }>(
  corpus: Corpus,
  config: C,
  validate: (c: C, stats: CorpusStats) => E.Either<DpError, unknown>,
  rng: Rng,
  clip: number,
  options: FitOptions,
): E.Either<DpError, PrivateFitStart> => {
  const ok = validateCorpus(corpus)
  if (E.isLeft(ok)) return ok
  const v = validate(config, corpusStats(corpus))
  if (E.isLeft(v)) return v
  const gate = new ReleaseGate(wordsFromRng(rng), {
    ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }),
    ...(options.onRelease === undefined ? {} : { onRelease: options.onRelease }),
  })
  const state = gate.independent((w) => initState(corpus, config.topics, () => w.nextDouble(), 'reading'))
  const logLikelihood = (it: number): number | undefined =>
    gate.diagnostic('log-likelihood of the true counts', () => jointLogLikelihood(state, config.alpha, config.beta), `iteration ${it}`)
  return E.right({ gate, state, sampler: makeSnapshotSampler(state, config.alpha, config.beta, clip), logLikelihood })
}
