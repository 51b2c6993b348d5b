/**
 * HDP-LDA (paper 001, Algorithm 1, Theorem 3): every iteration, Laplace noise Lap(2/ε_L) on every
 * topic-word count n_tk (line 9), clipping of the released counts at C for sampling (line 12), and
 * the topic draws, whose inherent privacy is ε_I = 2 ln(C/β + 1) per iteration (eq. 7) — an
 * exponential mechanism with utility ln p_k of sensitivity ln(C/β + 1).
 *
 * Sensitivity (derived, Theorem 3 proof eq. 29): replacing one word moves one count down (n_tk − 1)
 * and one up (n_t′k + 1), L1 sensitivity 2, so Lap(2/ε_L) costs exactly ε_L per release.
 *
 * Ambiguity: line 9 `n_tk ← n_tk + η` inside the loop can be read as
 * - `fresh` (default): each iteration releases the TRUE counts plus fresh noise. This is the reading
 *   the proof of Theorem 3 analyses (A1(D) = true counts + η), and the one whose bound holds:
 *   ε_L per iteration.
 * - `accumulate`: the noise added in earlier iterations stays in the counts, so iteration i releases
 *   n_i + η_1 + … + η_i. The releases are a bijection of the increments n_i − n_{i−1} + η_i, whose
 *   L1 sensitivity is 4 (the replaced token's word moves between two topics in both datasets), so
 *   every iteration after the first costs 2ε_L, not ε_L: Theorem 3 does not hold. Selectable for
 *   audits; its plan declares the sensitivity-4 releases.
 *
 * The model's φ is computed from the last release (post-processing); θ from the document-topic
 * counts, a function of the topic draws.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { compose, exponential, labeled, laplace, type PrivacyEvent, selfCompose } from '../mechanisms/event.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase, positive } from './config.js'
import { gibbsFitResult, runIterations } from './lda/loop.js'
import { startPrivateFit } from './lda/private-fit.js'
import { fillLaplace } from './lda/random.js'
import { phiFromNoisyCounts } from './lda/state.js'
import { type LdaTrainer, pureClaim } from './trainer.js'
import { invalidParameter } from '../core/error.js'

export const HdpConfig = t.intersection([
  BaseConfig,
  t.type({ epsilonL: t.number, clip: t.number, noise: t.union([t.literal('fresh'), t.literal('accumulate')]) }),
])
export type HdpConfig = t.TypeOf<typeof HdpConfig>

const WORD = replaceOne('word')

/** ε_I = 2 ln(C/β + 1), paper 001 eq. (7). */
export const inherentEpsilon = (clip: number, beta: number): number => 2 * Math.log1p(clip / beta)

/** The topic draws of one iteration as an exponential mechanism (utility sensitivity ln(C/β + 1)). */
export const topicDrawEvent = (clip: number, beta: number, relation = WORD): PrivacyEvent =>
  exponential(inherentEpsilon(clip, beta), Math.log1p(clip / beta), relation)

const LAP = 'Laplace Lap(2/ε_L) on every topic-word count n_tk'
const LAP_ACC = 'Laplace Lap(2/ε_L) added to the accumulated noisy counts (increment sensitivity 4)'
const DRAW = 'topic draws on counts clipped at C (inherent privacy, paper 001 Thm 3 eq. 7)'

const laplaceEvent = (c: HdpConfig, it: number): PrivacyEvent =>
  c.noise === 'accumulate' && it > 1 ? labeled(LAP_ACC, laplace(2 / c.epsilonL, 4, WORD)) : labeled(LAP, laplace(2 / c.epsilonL, 2, WORD))

const validate = (c: HdpConfig, stats?: Parameters<typeof checkBase>[1]): E.Either<ReturnType<typeof invalidParameter>, HdpConfig> => {
  const b = checkBase(c, stats)
  if (E.isLeft(b)) return b
  const e = positive('epsilonL', c.epsilonL, 'ε_L')
  if (E.isLeft(e)) return e
  const k = positive('clip', c.clip, 'the clipping bound C')
  if (E.isLeft(k)) return k
  if (c.noise !== 'fresh' && c.noise !== 'accumulate') return E.left(invalidParameter('noise', c.noise, 'expected "fresh" or "accumulate"'))
  return E.right(c)
}

export const hdpLda: LdaTrainer<HdpConfig> = {
  name: 'hdp-lda',
  description: 'HDP-LDA (paper 001 Alg. 1): Laplace on the topic-word counts every iteration, clipping, inherent privacy of the topic draws',
  config: HdpConfig,
  defaults: { ...BASE_DEFAULTS, epsilonL: 1, clip: 100, noise: 'fresh' },
  validate,
  relation: WORD,
  accountingRelation: WORD,
  plan: (c) => {
    const v = validate(c)
    if (E.isLeft(v)) return v
    const draw = labeled(DRAW, topicDrawEvent(c.clip, c.beta))
    if (c.noise === 'fresh') return E.right(selfCompose(compose([laplaceEvent(c, 1), draw]), c.iterations))
    const parts: PrivacyEvent[] = [laplaceEvent(c, 1)]
    if (c.iterations > 1) parts.push(selfCompose(laplaceEvent(c, 2), c.iterations - 1))
    parts.push(selfCompose(draw, c.iterations))
    return E.right(compose(parts))
  },
  claimed: (c) => {
    const eI = inherentEpsilon(c.clip, c.beta)
    const total = c.iterations * (c.epsilonL + eI)
    return pureClaim(
      'paper 001, Theorem 3 and Algorithm 1 (output: privacy loss ε = T·(ε_L + ε_I))',
      `(ε_L + ε_I)-DP per iteration with ε_I = 2 ln(C/β + 1) = ${eI.toPrecision(6)}; T = ${c.iterations} iterations: ε = ${total.toPrecision(6)}`,
      total,
      WORD,
    )
  },
  fit: (corpus, c, rng, options = {}) => {
    const start = startPrivateFit(corpus, c, validate, rng, c.clip)
    if (E.isLeft(start)) return start
    const { u, noise, state, sampler } = start.right
    const { nwk } = state
    const noisy = new Float64Array(nwk.length)
    const eta = new Float64Array(nwk.length)
    const acc = c.noise === 'accumulate' ? new Float64Array(nwk.length) : undefined
    const b = 2 / c.epsilonL
    const ledger: PrivacyEvent[] = []
    const { trace, tokensSampled } = runIterations(state, c.iterations, c.alpha, c.beta, options, (it) => {
      // line 9: release n̂ = n + η, η fresh Lap(2/ε_L) on every cell
      fillLaplace(noise, b, eta)
      if (acc === undefined) for (let i = 0; i < nwk.length; i++) noisy[i] = (nwk[i] as number) + (eta[i] as number)
      else
        for (let i = 0; i < nwk.length; i++) {
          acc[i] = (acc[i] as number) + (eta[i] as number)
          noisy[i] = (nwk[i] as number) + (acc[i] as number)
        }
      ledger.push(labeled(`iteration ${it}`, laplaceEvent(c, it)))
      // lines 10–16: clip, sample
      sampler.setRelease(noisy, 1)
      sampler.sweep(u)
      ledger.push(labeled(`iteration ${it}`, labeled(DRAW, topicDrawEvent(c.clip, c.beta))))
      return corpus.tokens.length
    })
    return E.right(gibbsFitResult(state, c, phiFromNoisyCounts(noisy, c.topics, state.V, c.beta), { trace, tokensSampled }, ledger))
  },
}
