/**
 * The common start of every private collapsed-Gibbs trainer's `fit` (HDP-LDA, CDP-LDA(+),
 * SUB-LDA): check the corpus and the config against it, then build the topic-draw stream, the
 * privacy-noise source, the initial assignments and the snapshot sampler.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import { type Corpus, type CorpusStats, corpusStats, validateCorpus } from '../corpus/corpus.js'
import { FastUniform, NoiseSource } from './random.js'
import { makeSnapshotSampler, type SnapshotSampler } from './snapshot.js'
import { type GibbsState, initState } from './state.js'

export interface PrivateFitStart {
  readonly u: FastUniform
  /** Privacy noise: a fast stream seeded from a seeded Rng, or the Rng itself when it is `secure()`. */
  readonly noise: NoiseSource
  readonly state: GibbsState
  readonly sampler: SnapshotSampler
}

export const startPrivateFit = <C extends { readonly topics: number; readonly alpha: number; readonly beta: number }>(
  corpus: Corpus,
  config: C,
  validate: (c: C, stats: CorpusStats) => E.Either<DpError, unknown>,
  rng: Rng,
  clip: number,
): E.Either<DpError, PrivateFitStart> => {
  const ok = validateCorpus(corpus)
  if (E.isLeft(ok)) return ok
  const v = validate(config, corpusStats(corpus))
  if (E.isLeft(v)) return v
  const u = new FastUniform(rng)
  const noise = new NoiseSource(rng)
  const state = initState(corpus, config.topics, u)
  return E.right({ u, noise, state, sampler: makeSnapshotSampler(state, config.alpha, config.beta, clip) })
}
