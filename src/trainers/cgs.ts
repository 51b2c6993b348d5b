/**
 * CGS: the non-private baseline, exact collapsed Gibbs sampling (Griffiths & Steyvers 2004) with
 * the SparseLDA sampler. It declares NonPrivate: every sweep reads the raw counts.
 *
 * With `workers` > 1 (`--workers W`) the sweeps run as AD-LDA on W threads (./lda/ad-lda.ts): an
 * approximation of the sequential sampler (Newman et al. 2009), asked for explicitly — the default
 * is one thread, the exact sampler. A seeded AD-LDA run repeats for the same W only.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { labeled, nonPrivate, type PrivacyEvent } from '../mechanisms/event.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase } from './config.js'
import { corpusStats, validateCorpus } from './corpus/corpus.js'
import { jointLogLikelihood } from './lda/loglik.js'
import { gibbsFitResult, runIterations } from './lda/loop.js'
import { FastUniform } from './lda/random.js'
import { makeAdLdaSampler } from './lda/ad-lda.js'
import { makeSparseSampler } from './lda/sparse.js'
import { initState, phiFromCounts, sharedInt32 } from './lda/state.js'
import { type FitOptions, type FitResult, type LdaTrainer, noClaim } from './trainer.js'
import type { DpError } from '../core/error.js'
import type { Corpus } from './corpus/corpus.js'
import { ldaFlags, ldaSurface } from './lda-surface.js'

export type CgsConfig = t.TypeOf<typeof BaseConfig>

const SWEEP = 'sweep: collapsed Gibbs sampling on the raw counts (no noise): exact on one thread, AD-LDA (approximate) with --workers W > 1'
const ADLDA_NOTE = 'AD-LDA, approximate collapsed Gibbs sampling (Newman et al. 2009): each thread samples its documents against the counts as of the sweep start'

export const cgs: LdaTrainer<CgsConfig> = {
  name: 'cgs',
  description: 'non-private collapsed Gibbs sampling (SparseLDA sampler)',
  config: BaseConfig,
  defaults: BASE_DEFAULTS,
  validate: checkBase,
  relation: replaceOne('word'),
  accountingRelation: replaceOne('word'),
  schedule: (c) => E.right({ each: [{ label: SWEEP, event: nonPrivate }], iterations: c.iterations }),
  claimed: () => noClaim('—', 'non-private baseline: no privacy is claimed', replaceOne('word')),
  assumptions: () => [
    'non-private baseline: every sweep reads the raw counts; θ and the trace are written to the model file',
    `with --workers W > 1 the sampler is ${ADLDA_NOTE}`,
  ],
  flags: ldaFlags(),
  ...ldaSurface,
  releases: ['phi'],
  nonPrivate: 'the non-private baseline',
  fit: (corpus, c, rng, options = {}) => {
    const ok = validateCorpus(corpus)
    if (E.isLeft(ok)) return ok
    const v = checkBase(c, corpusStats(corpus))
    if (E.isLeft(v)) return v
    const u = new FastUniform(rng)
    const workers = options.workers ?? 1
    if (workers > 1) return fitAdLda(corpus, c, u, options, workers, rng.kind === 'secure' ? 'secure (node:crypto)' : 'seeded')
    const state = initState(corpus, c.topics, () => u.next(), 'by-word')
    const sampler = makeSparseSampler(state, c.alpha, c.beta)
    const ledger: PrivacyEvent[] = []
    const { trace, tokensSampled } = runIterations(
      c.iterations,
      options,
      (it) => {
        sampler.sweep(u)
        ledger.push(labeled(`iteration ${it}: ${SWEEP}`, nonPrivate))
        return corpus.tokens.length
      },
      () => {
        sampler.syncDense()
        return jointLogLikelihood(state, c.alpha, c.beta)
      },
    )
    sampler.syncDense()
    return E.right(gibbsFitResult(state, c, phiFromCounts(state.nwk, c.topics, state.V, c.beta), { trace, tokensSampled }, ledger, rng.kind === 'secure' ? 'secure (node:crypto)' : 'seeded'))
  },
}

/** The CGS fit as AD-LDA on `workers` threads (approximate: see ./lda/ad-lda.ts). */
const fitAdLda = (corpus: Corpus, c: CgsConfig, u: FastUniform, options: FitOptions, workers: number, randomness: string): E.Either<DpError, FitResult> => {
  const state = initState(corpus, c.topics, () => u.next(), 'by-word', sharedInt32)
  const sampler = makeAdLdaSampler(state, c.alpha, c.beta, workers)
  if (E.isLeft(sampler)) return sampler
  const ledger: PrivacyEvent[] = []
  const label = `sweep: ${ADLDA_NOTE}; ${sampler.right.workers} threads, on the raw counts (no noise)`
  try {
    const run = runIterations(
      c.iterations,
      options,
      (it) => {
        sampler.right.sweep(u)
        ledger.push(labeled(`iteration ${it}: ${label}`, nonPrivate))
        return corpus.tokens.length
      },
      () => jointLogLikelihood(state, c.alpha, c.beta),
    )
    return E.right(gibbsFitResult(state, c, phiFromCounts(state.nwk, c.topics, state.V, c.beta), run, ledger, randomness))
  } finally {
    sampler.right.close()
  }
}
