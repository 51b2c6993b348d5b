/**
 * The baselines of Zhao et al., "Latent Dirichlet Allocation Model Training with Differential
 * Privacy" (arXiv:2010.04391), §VII:
 * - CDP-LDA [40]: Laplace Lap(1/ε) on the topic-word counts N_tk and the document-topic counts
 *   N_km in the first iteration only; the noise stays in the counts the sampler uses afterwards.
 * - CDP-LDA+: fresh Lap(1/ε) on both tables in every iteration.
 *
 * Derived privacy: under word replacement each table has L1 sensitivity 2 (one count down, one
 * up), so each release of scale 1/ε costs 2ε, not ε. The counts are integers: the noise is the
 * exact discrete Laplace (same ε as the continuous one). Neither baseline clips the counts, so the
 * topic draws — which read the words themselves — have no data-independent bound on their inherent
 * privacy loss (Zhao et al. Theorem 1, eq. 5, grows with the word counts; Laplace noise is
 * unbounded): each sweep is declared NonPrivate and the accounted ε is ∞. In CDP-LDA the later
 * iterations re-use the first iteration's noise on the new true counts: those releases are
 * NonPrivate too. The plan still lists the Laplace releases so their cost is visible.
 *
 * Every release goes through the release gate; tokens are visited in reading order.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { nonPrivate } from '../mechanisms/event.js'
import { type Declared, declared, type Schedule } from '../mechanisms/schedule.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase, positive } from './config.js'
import { privateFitResult } from './lda/loop.js'
import { prestartPrivateFit, startPrivateFit } from './lda/private-fit.js'
import { phiFromNoisyCounts } from './lda/state.js'
import { discreteLaplaceTable, randomizedStep, type TableNoiser, type TableSensitivity, unprotected } from '../mechanisms/measurement.js'
import { LDA_ASSUMPTIONS } from './assumptions.js'
import { type LdaTrainer, pureClaim } from './trainer.js'
import { LDA_DP, LDA_DP_PAPER } from './papers.js'
import { numericFlag } from './flags.js'
import { ldaFlags, ldaSurface, PRIVATE_GIBBS_WORKERS } from './lda-surface.js'

export const CdpConfig = t.intersection([BaseConfig, t.type({ epsilon: t.number })])
export type CdpConfig = t.TypeOf<typeof CdpConfig>

const WORD = replaceOne('word')
const TWO_CELLS: TableSensitivity = { cells: 2, perCell: 1, relation: WORD }
const TW = 'discrete Laplace of scale 1/ε on the topic-word counts N_tk (two cells move by 1 under word replacement)'
const DT = 'discrete Laplace of scale 1/ε on the document-topic counts N_km (two cells: the replaced token may change topic)'
const REUSED = 'the first iteration’s noise re-used on the current true counts (no guarantee for the new counts)'
const DRAW = `topic draws on unclipped counts: no data-independent bound (${LDA_DP}, Thm 1)`

/**
 * Every iteration: the two tables, then the sweep's draws. CDP-LDA: the first iteration's only; the
 * later ones re-use its noise on the new true counts.
 */
const cdpSchedule = (c: CdpConfig, every: boolean): Schedule => {
  const draws: Declared = { label: DRAW, event: nonPrivate }
  const fresh = [declared(topicWord(c)), declared(docTopic(c)), draws]
  const reused: Declared = { label: REUSED, event: nonPrivate }
  return every ? { each: fresh, iterations: c.iterations } : { first: fresh, each: [reused, reused, draws], iterations: c.iterations }
}

const topicWord = (c: CdpConfig, noiser?: TableNoiser) => discreteLaplaceTable(TW, 1 / c.epsilon, TWO_CELLS, noiser)
const docTopic = (c: CdpConfig, noiser?: TableNoiser) => discreteLaplaceTable(DT, 1 / c.epsilon, TWO_CELLS, noiser)

const validate = (c: CdpConfig, stats?: Parameters<typeof checkBase>[1]) => {
  const b = checkBase(c, stats)
  if (E.isLeft(b)) return b
  const e = positive('epsilon', c.epsilon, 'ε')
  return E.isLeft(e) ? e : E.right(c)
}

const make = (every: boolean): LdaTrainer<CdpConfig> => ({
  name: every ? 'cdp-lda+' : 'cdp-lda',
  description: every
    ? `CDP-LDA+ (${LDA_DP}, §VII): discrete Laplace of scale 1/ε on the topic-word and document-topic counts every iteration, no clipping`
    : `CDP-LDA (${LDA_DP}, §VII, its reference [40]): discrete Laplace of scale 1/ε on the topic-word and document-topic counts in the first iteration only`,
  config: CdpConfig,
  defaults: { ...BASE_DEFAULTS, epsilon: 1 },
  flags: [...ldaFlags(), numericFlag('epsilon', 'epsilon', 'E')],
  workers: PRIVATE_GIBBS_WORKERS,
  prestart: prestartPrivateFit,
  ...ldaSurface,
  releases: ['phi', 'count-tables', 'topic-assignments'],
  validate,
  relation: WORD,
  accountingRelation: WORD,
  schedule: (c) => E.map((v: CdpConfig) => cdpSchedule(v, every))(validate(c)),
  claimed: (c) =>
    every
      ? pureClaim(
          `${LDA_DP_PAPER}, §VII (CDP-LDA+, runs labelled by the per-iteration ε of the Laplace noise)`,
          `ε = ${c.epsilon} per iteration; composed over T = ${c.iterations}: ε = ${c.iterations * c.epsilon}`,
          c.iterations * c.epsilon,
          WORD,
        )
      : pureClaim(`${LDA_DP_PAPER}, §VII, CDP-LDA (its reference [40])`, `ε = ${c.epsilon} (Lap(1/ε) on N_tk and N_km in the first iteration)`, c.epsilon, WORD),
  assumptions: () => [
    ...LDA_ASSUMPTIONS,
    every ? 'fresh noise on both tables every iteration' : 'the first iteration’s noise stays in the counts the later sweeps read (as in [40])',
    'the topic draws read unclipped counts and are accounted as released: no bound',
  ],
  fit: (corpus, c, rng, options = {}) => {
    const start = startPrivateFit(corpus, c, validate, rng, Number.POSITIVE_INFINITY, options, cdpSchedule(c, every))
    if (E.isLeft(start)) return start
    const { gate, state, sampler, observed, iterate } = start.right
    const { nwk, ndk } = state
    // each release is read until the next one (CDP-LDA copies its first noise out below)
    const tw = topicWord(c, sampler.reusingNoiser('n_wk'))
    const dt = docTopic(c, sampler.reusingNoiser('n_dk'))
    let twNoise: Float64Array = new Float64Array(nwk.length)
    let dtNoise: Float64Array = new Float64Array(ndk.length)
    // CDP-LDA's later iterations: the true counts plus the first iteration's noise
    const reuse = (noise: () => Float64Array) =>
      unprotected(REUSED, (counts: Int32Array) => {
        sampler.counts() // n_wk is read here, not counted inside the noiser's release
        const out = new Float64Array(counts.length)
        const n = noise()
        for (let i = 0; i < out.length; i++) out[i] = (counts[i] as number) + (n[i] as number)
        return out
      })
    const twReused = reuse(() => twNoise)
    const dtReused = reuse(() => dtNoise)
    // the draws are accounted as released: the release is every token's topic after the sweep (as HDP-LDA's topicDraws)
    const draws = randomizedStep(DRAW, nonPrivate, (docNoise: Float64Array, words) => {
      sampler.sweepWithDocNoise(words, docNoise)
      return observed ? state.z.slice() : state.z
    })
    let noisyTw: Float64Array = new Float64Array(nwk.length)
    const run = iterate(
      c.iterations,
      options,
      (it) => {
        const ctx = `iteration ${it}`
        let noisyDt: Float64Array
        if (every || it === 1) {
          noisyTw = gate.release(tw, nwk, ctx)
          noisyDt = gate.release(dt, ndk, ctx)
          if (!every) {
            // kept for the later iterations' releases (CDP-LDA only)
            twNoise = noisyTw.map((x, i) => x - (nwk[i] as number))
            dtNoise = noisyDt.map((x, i) => x - (ndk[i] as number))
          }
        } else {
          noisyTw = gate.release(twReused, nwk, ctx)
          noisyDt = gate.release(dtReused, ndk, ctx)
        }
        sampler.setRelease(noisyTw, 1)
        // the document factor reads the released N_km: pass its noise relative to the live counts
        const docNoise = noisyDt.map((x, i) => x - (ndk[i] as number))
        gate.release(draws, docNoise, ctx)
        return corpus.tokens.length
      },
    )
    return E.right(privateFitResult(gate, c, state.V, phiFromNoisyCounts(noisyTw, c.topics, state.V, c.beta), run))
  },
})

export const cdpLda: LdaTrainer<CdpConfig> = make(false)
export const cdpLdaPlus: LdaTrainer<CdpConfig> = make(true)
