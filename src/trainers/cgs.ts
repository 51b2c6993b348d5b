/**
 * CGS: the non-private baseline, exact collapsed Gibbs sampling (Griffiths & Steyvers 2004) with
 * the SparseLDA sampler. It declares NonPrivate: every sweep reads the raw counts.
 *
 * It has no release gate. Given `onRelease` (a white-box audit), it hands over what it would
 * release were it a Gibbs trainer like the private ones — each sweep's true counts and every
 * token's topic after it — each record's event NonPrivate and its label saying it is not a release
 * (`wouldRelease`), so the audit observes this code rather than a replica of its sweep.
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
import type { ReleaseRecord } from '../mechanisms/gate.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase } from './config.js'
import { corpusStats, validateCorpus } from './corpus/corpus.js'
import { jointLogLikelihood } from './lda/loglik.js'
import { gibbsFitResult, runIterations } from './lda/loop.js'
import { FastUniform } from './lda/random.js'
import { makeAdLdaSampler } from './lda/ad-lda.js'
import { makeSparseSampler } from './lda/sparse.js'
import { byWordPositions, type GibbsState, initState, phiFromCounts, sharedInt32 } from './lda/state.js'
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
  workers: 'default 1, the exact sampler; W > 1 runs AD-LDA, an approximation, and a seeded run repeats only for the same W',
  ...ldaSurface,
  // non-private: nothing is released through a gate; white-box audits observe what it would release (`wouldRelease`)
  releases: ['phi', 'count-tables', 'topic-assignments'],
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
    const observe = options.onRelease === undefined ? undefined : wouldRelease(corpus, state, () => sampler.syncDense(), options.onRelease)
    const { trace, tokensSampled } = runIterations(
      c.iterations,
      options,
      (it) => {
        observe?.before(it)
        sampler.sweep(u)
        observe?.after(it)
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

/** The label every record of `wouldRelease` carries: none of them is a release. */
export const CGS_NOT_RELEASED = 'NOT a release (non-private CGS has no gate): what a white-box adversary of the non-private baseline sees'

/**
 * What a white-box audit observes of non-private CGS (Zhao et al.'s Fig. 4 "Non-Private" adversary),
 * handed to `onRelease` as the private Gibbs trainers hand their gate's releases, so the audit runs
 * this code and no replica of it: before sweep i, the true counts n_wk it reads (V×K, word-major);
 * after it, every token's topic in reading order (`topic-assignments`). Each record's event is
 * NonPrivate and its label says it is not a release. Copying the counts and topics draws nothing,
 * so φ is the same with or without an observer.
 */
const wouldRelease = (corpus: Corpus, state: GibbsState, syncDense: () => void, onRelease: (r: ReleaseRecord) => void) => {
  const at = byWordPositions(corpus.tokens, corpus.docStart)
  return {
    before: (it: number): void => {
      syncDense() // the sampler keeps sparse rows; the dense table is the counts the sweep reads
      onRelease({ label: `iteration ${it}: the word-topic counts the sweep reads — ${CGS_NOT_RELEASED}`, event: nonPrivate, value: Float64Array.from(state.nwk) })
    },
    after: (it: number): void => {
      const z = new Int32Array(at.length)
      for (let i = 0; i < at.length; i++) z[i] = state.z[at[i] as number] as number
      onRelease({ label: `iteration ${it}: every token's topic after the sweep — ${CGS_NOT_RELEASED}`, event: nonPrivate, value: z })
    },
  }
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
