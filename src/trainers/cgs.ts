/**
 * CGS: the non-private baseline, exact collapsed Gibbs sampling (Griffiths & Steyvers 2004) with
 * the SparseLDA sampler. It declares NonPrivate: every sweep reads the raw counts.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { labeled, nonPrivate, selfCompose, type PrivacyEvent } from '../mechanisms/event.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase } from './config.js'
import { corpusStats, validateCorpus } from './corpus/corpus.js'
import { jointLogLikelihood } from './lda/loglik.js'
import { gibbsFitResult, runIterations } from './lda/loop.js'
import { FastUniform } from './lda/random.js'
import { makeSparseSampler } from './lda/sparse.js'
import { initState, phiFromCounts } from './lda/state.js'
import { type LdaTrainer, noClaim } from './trainer.js'
import { ldaFlags, ldaSurface } from './lda-surface.js'

export type CgsConfig = t.TypeOf<typeof BaseConfig>

const SWEEP = 'sweep: exact collapsed Gibbs sampling on the raw counts (no noise)'

export const cgs: LdaTrainer<CgsConfig> = {
  name: 'cgs',
  description: 'non-private collapsed Gibbs sampling (SparseLDA sampler)',
  config: BaseConfig,
  defaults: BASE_DEFAULTS,
  validate: checkBase,
  relation: replaceOne('word'),
  accountingRelation: replaceOne('word'),
  plan: (c) => E.right(selfCompose(labeled(SWEEP, nonPrivate), c.iterations)),
  claimed: () => noClaim('—', 'non-private baseline: no privacy is claimed', replaceOne('word')),
  assumptions: () => ['non-private baseline: every sweep reads the raw counts; θ and the trace are written to the model file'],
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
