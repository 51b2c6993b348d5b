/**
 * The baselines of paper 001 §VII:
 * - CDP-LDA [40]: Laplace Lap(1/ε) on the topic-word counts N_tk and the document-topic counts
 *   N_km in the first iteration only; the noise stays in the counts the sampler uses afterwards.
 * - CDP-LDA+: fresh Lap(1/ε) on both tables in every iteration.
 *
 * Derived privacy: under word replacement each table has L1 sensitivity 2 (one count down, one
 * up), so each Lap(1/ε) release costs 2ε, not ε. Neither baseline clips the counts, so the topic
 * draws — which read the words themselves — have no data-independent bound on their inherent
 * privacy loss (paper 001 Theorem 1, eq. 5, grows with the word counts; Laplace noise is
 * unbounded): each sweep is declared NonPrivate and the accounted ε is ∞. The plan still lists
 * the Laplace releases so their cost is visible.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { compose, labeled, laplace, nonPrivate, type PrivacyEvent, selfCompose } from '../mechanisms/event.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase, positive } from './config.js'
import { gibbsFitResult, runIterations } from './lda/loop.js'
import { startPrivateFit } from './lda/private-fit.js'
import { fillLaplace } from './lda/random.js'
import { phiFromNoisyCounts } from './lda/state.js'
import { type LdaTrainer, pureClaim } from './trainer.js'

export const CdpConfig = t.intersection([BaseConfig, t.type({ epsilon: t.number })])
export type CdpConfig = t.TypeOf<typeof CdpConfig>

const WORD = replaceOne('word')
const TW = 'Laplace Lap(1/ε) on the topic-word counts N_tk (L1 sensitivity 2 under word replacement)'
const DT = 'Laplace Lap(1/ε) on the document-topic counts N_km (L1 sensitivity 2: the replaced token may change topic)'
const DRAW = 'topic draws on unclipped counts: no data-independent bound (paper 001 Thm 1)'

const releases = (c: CdpConfig): PrivacyEvent[] => [labeled(TW, laplace(1 / c.epsilon, 2, WORD)), labeled(DT, laplace(1 / c.epsilon, 2, WORD))]

const validate = (c: CdpConfig, stats?: Parameters<typeof checkBase>[1]) => {
  const b = checkBase(c, stats)
  if (E.isLeft(b)) return b
  const e = positive('epsilon', c.epsilon, 'ε')
  return E.isLeft(e) ? e : E.right(c)
}

const make = (every: boolean): LdaTrainer<CdpConfig> => ({
  name: every ? 'cdp-lda+' : 'cdp-lda',
  description: every
    ? 'CDP-LDA+ (paper 001 §VII): Lap(1/ε) on the topic-word and document-topic counts every iteration, no clipping'
    : 'CDP-LDA (paper 001 §VII, [40]): Lap(1/ε) on the topic-word and document-topic counts in the first iteration only',
  config: CdpConfig,
  defaults: { ...BASE_DEFAULTS, epsilon: 1 },
  validate,
  relation: WORD,
  accountingRelation: WORD,
  plan: (c) => {
    const v = validate(c)
    if (E.isLeft(v)) return v
    const draws = labeled(DRAW, nonPrivate)
    return E.right(every ? selfCompose(compose([...releases(c), draws]), c.iterations) : compose([...releases(c), selfCompose(draws, c.iterations)]))
  },
  claimed: (c) =>
    every
      ? pureClaim(
          'paper 001 §VII (CDP-LDA+, runs labelled by the per-iteration ε of the Laplace noise)',
          `ε = ${c.epsilon} per iteration; composed over T = ${c.iterations}: ε = ${c.iterations * c.epsilon}`,
          c.iterations * c.epsilon,
          WORD,
        )
      : pureClaim('paper 001 §VII, CDP-LDA [40]', `ε = ${c.epsilon} (Lap(1/ε) on N_tk and N_km in the first iteration)`, c.epsilon, WORD),
  fit: (corpus, c, rng, options = {}) => {
    const start = startPrivateFit(corpus, c, validate, rng, Number.POSITIVE_INFINITY)
    if (E.isLeft(start)) return start
    const { u, noise, state, sampler } = start.right
    const { nwk } = state
    const twNoise = new Float64Array(nwk.length)
    const dtNoise = new Float64Array(state.ndk.length)
    const noisy = new Float64Array(nwk.length)
    const b = 1 / c.epsilon
    const ledger: PrivacyEvent[] = []
    const { trace, tokensSampled } = runIterations(state, c.iterations, c.alpha, c.beta, options, (it) => {
      if (every || it === 1) {
        fillLaplace(noise, b, twNoise)
        fillLaplace(noise, b, dtNoise)
        ledger.push(labeled(`iteration ${it}`, compose(releases(c))))
      }
      for (let i = 0; i < nwk.length; i++) noisy[i] = (nwk[i] as number) + (twNoise[i] as number)
      sampler.setRelease(noisy, 1)
      sampler.sweepWithDocNoise(u, dtNoise)
      ledger.push(labeled(`iteration ${it}`, labeled(DRAW, nonPrivate)))
      return corpus.tokens.length
    })
    return E.right(gibbsFitResult(state, c, phiFromNoisyCounts(noisy, c.topics, state.V, c.beta), { trace, tokensSampled }, ledger))
  },
})

export const cdpLda: LdaTrainer<CdpConfig> = make(false)
export const cdpLdaPlus: LdaTrainer<CdpConfig> = make(true)
