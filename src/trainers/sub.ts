/**
 * SUB-LDA (paper 000, Algorithm 1): every iteration each token is kept independently with
 * probability γ (Poisson subsampling, Def. 3.3); the topic-word counts of the kept tokens are
 * released with Gaussian noise N(0, σ²), σ² = α/(2ε(α)) (§4.1); the kept tokens are resampled from
 * the released counts (scaled by 1/γ), clipped at C.
 *
 * Reading of Algorithm 1: its "add noise to each n_tk" sits inside the token loop; adding V·K fresh
 * Gaussians per token is neither computable nor what §4.1 analyses (one ε_sub per iteration), so
 * noise is drawn once per iteration on the counts of the subsample ("Poisson subsampling before
 * counting and noise injection", §4.1), and sampling reads that release only (as in HDP-LDA).
 *
 * Privacy, derived (docs/trainers.md §SUB-LDA):
 * - σ² = α/(2ε(α)) assumes L2 sensitivity 1. Under word replacement the counts move by one down and
 *   one up: L2 sensitivity √2, so the unsubsampled RDP is 2ε(α), not ε(α).
 * - Eq. (3) is an add/remove bound (its proof, Lemma 4.1, uses D′ = D ∪ {d}); Poisson amplification
 *   is not stated for replacement. The plan is therefore declared under add/remove one word, where
 *   adding a kept token raises one count by 1 (Gaussian, L2 sensitivity 1), and accounted there
 *   exactly by the RDP accountant; a replace-one neighbour is a removal followed by an addition, so
 *   the replace-one guarantee follows by group privacy for groups of 2 — the smaller of the
 *   (ε, δ) form and the RDP weak-triangle form at orders 2α, 2α − 1 (statement.ts,
 *   accounting/rdp/group.ts).
 * - The paper's analysis ignores the topic draws, which read the words. They are declared as in
 *   HDP-LDA (paper 001 Thm 3): an exponential mechanism with ε_I = 2 ln(C/β + 1), inside the
 *   subsample (only kept tokens are redrawn); an added token's draw is compared with a draw for a
 *   placeholder token, which the same ratio bound covers. Set C small (or β large) to keep it low.
 *
 * Adaptive subsampling (eq. 10–13): frequent (word, topic) pairs — the most frequent words of a
 * topic, covering a fraction q of its released mass — are kept with rate vγ, others not visited,
 * with v = 1/(ηq) (eq. 11: E|G_sub|/E|Ḡ_sub| = 1/(vq) = η). The frequent sets come from the previous
 * release (post-processing); the first iteration is uniform. Every token is kept with probability at
 * most vγ, so the plan declares PoissonSample(vγ) — a sound bound, since the removed token's own
 * inclusion probability is what the amplification depends on and the divergence grows with it.
 * The paper's Lemma 5.1 claim is recorded beside it.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { invalidParameter } from '../core/error.js'
import { compose, gaussian, labeled, poissonSample, type PrivacyEvent, selfCompose } from '../mechanisms/event.js'
import { addRemove, replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase, positive } from './config.js'
import { topicDrawEvent } from './hdp.js'
import { gibbsFitResult, runIterations } from './lda/loop.js'
import { startPrivateFit } from './lda/private-fit.js'
import { fillGaussian } from './lda/random.js'
import { phiFromCounts } from './lda/state.js'
import { adaptiveSubsamplingClaim, gaussianRdp, paperSubsampledRdp, subLdaSigma } from './sub-analysis.js'
import { type Claim, type LdaTrainer } from './trainer.js'
import { approxDP } from '../mechanisms/event.js'

export const SubConfig = t.intersection([
  BaseConfig,
  t.type({
    gamma: t.number,
    /** RDP order α of the calibration (paper: 14). */
    order: t.number,
    /** The per-iteration RDP budget ε(α) the noise is calibrated to (paper: 2). */
    rdpEpsilon: t.number,
    clip: t.number,
    /** Adaptive subsampling (eq. 10–13): mass fraction q of the frequent set and the ratio η; null = uniform. */
    adaptive: t.union([t.null, t.type({ q: t.number, eta: t.number })]),
  }),
])
export type SubConfig = t.TypeOf<typeof SubConfig>

const AR = addRemove('word')
const RO = replaceOne('word')
const GAUSS = 'Gaussian N(0, σ²), σ² = α/(2ε(α)), on the topic-word counts of the kept tokens (add/remove: L2 sensitivity 1)'
const DRAW = 'topic draws of the kept tokens on counts clipped at C (paper 001 Thm 3 eq. 7)'

/** v = 1/(ηq), the rate multiplier of the frequent words (eq. 11). */
export const adaptiveMultiplier = (a: { q: number; eta: number }): number => 1 / (a.eta * a.q)

const rateOf = (c: SubConfig, it: number): number => (c.adaptive === null || it === 1 ? c.gamma : Math.min(1, c.gamma * adaptiveMultiplier(c.adaptive)))

const iterationEvent = (c: SubConfig, it: number): PrivacyEvent => {
  const inner = compose([labeled(GAUSS, gaussian(subLdaSigma(c.order, c.rdpEpsilon), 1, AR)), labeled(DRAW, topicDrawEvent(c.clip, c.beta, AR))])
  const rate = rateOf(c, it)
  return rate === 1 ? inner : poissonSample(rate, inner)
}

const validate = (c: SubConfig, stats?: Parameters<typeof checkBase>[1]) => {
  const b = checkBase(c, stats)
  if (E.isLeft(b)) return b
  if (!(c.gamma > 0 && c.gamma <= 1)) return E.left(invalidParameter('gamma', c.gamma, 'the subsampling ratio γ must be in (0, 1]'))
  if (!(Number.isInteger(c.order) && c.order >= 2)) return E.left(invalidParameter('order', c.order, 'the RDP order α must be an integer ≥ 2'))
  for (const [f, x, w] of [
    ['rdpEpsilon', c.rdpEpsilon, 'ε(α)'],
    ['clip', c.clip, 'the clipping bound C'],
  ] as const) {
    const r = positive(f, x, w)
    if (E.isLeft(r)) return r
  }
  if (c.adaptive !== null) {
    const { q, eta } = c.adaptive
    if (!(q > 0 && q <= 1)) return E.left(invalidParameter('adaptive.q', q, 'q must be in (0, 1]'))
    if (!(eta > 0 && Number.isFinite(eta))) return E.left(invalidParameter('adaptive.eta', eta, 'η must be a finite number > 0'))
    const v = adaptiveMultiplier(c.adaptive)
    if (!(v > 1 && v * c.gamma <= 1)) return E.left(invalidParameter('adaptive.eta', eta, `eq. (10) needs 1 < v = 1/(ηq) < 1/γ (got v = ${v})`))
  }
  return E.right(c)
}

export const subLda: LdaTrainer<SubConfig> = {
  name: 'sub-lda',
  description: 'SUB-LDA (paper 000 Alg. 1): Poisson-subsampled tokens, Gaussian noise on their counts, clipping',
  config: SubConfig,
  defaults: { ...BASE_DEFAULTS, gamma: 0.1, order: 14, rdpEpsilon: 2, clip: 100, adaptive: null },
  validate,
  relation: RO,
  accountingRelation: AR,
  plan: (c) => {
    const v = validate(c)
    if (E.isLeft(v)) return v
    if (c.adaptive === null || c.iterations === 1) return E.right(selfCompose(iterationEvent(c, 1), c.iterations))
    return E.right(compose([iterationEvent(c, 1), selfCompose(iterationEvent(c, 2), c.iterations - 1)]))
  },
  claimed: (c): Claim => {
    const sigma = subLdaSigma(c.order, c.rdpEpsilon)
    const per = paperSubsampledRdp(c.order, c.gamma, gaussianRdp(sigma))
    const total = c.iterations * per
    const base = `ε_sub(${c.order}) = ${per.toPrecision(6)} per iteration by eq. (3) with σ² = α/(2ε(α)) = ${(sigma * sigma).toPrecision(6)}; ε = Iter·ε_sub = ${total.toPrecision(6)} at order ${c.order}`
    const source = 'paper 000, Algorithm 1 output and eq. (3) (RDP at one order, stated here at δ by ε + ln(1/δ)/(α − 1))'
    if (c.adaptive === null)
      return { source, statement: base, relation: RO, event: (delta) => approxDP(total + Math.log(1 / delta) / (c.order - 1), delta, RO) }
    const a = c.adaptive
    return {
      source: `${source}; adaptive subsampling by Lemma 5.1 (eq. 13)`,
      statement: `${base}; Lemma 5.1: ε̄ = ε′ − ln(ηq), δ̄ = γ/(ηq)·δ`,
      relation: RO,
      event: (delta) => {
        const uniform = total + Math.log(1 / delta) / (c.order - 1)
        const r = adaptiveSubsamplingClaim(uniform, delta, c.gamma, a.eta, a.q)
        return approxDP(r.epsilon, r.delta, RO)
      },
    }
  },
  fit: (corpus, c, rng, options = {}) => {
    const start = startPrivateFit(corpus, c, validate, rng, c.clip)
    if (E.isLeft(start)) return start
    const { u, noise, state, sampler } = start.right
    const { K, V, tokens, z } = state
    const sigma = subLdaSigma(c.order, c.rdpEpsilon)
    const include = new Uint8Array(tokens.length)
    const counts = new Float64Array(V * K)
    const eta = new Float64Array(V * K)
    const estimate = new Float64Array(V * K) // released counts scaled to the full corpus
    const frequent = new Uint8Array(V * K)
    const ledger: PrivacyEvent[] = []
    const adaptive = c.adaptive
    const { trace, tokensSampled } = runIterations(state, c.iterations, c.alpha, c.beta, options, (it) => {
      const rate = rateOf(c, it)
      const useSets = adaptive !== null && it > 1
      let kept = 0
      counts.fill(0)
      for (let i = 0; i < tokens.length; i++) {
        const cell = (tokens[i] as number) * K + (z[i] as number)
        const r = useSets ? ((frequent[cell] as number) === 1 ? rate : 0) : rate
        const keep = r >= 1 || u.next() < r ? 1 : 0
        include[i] = keep
        if (keep === 1) {
          kept++
          counts[cell] = (counts[cell] as number) + 1
        }
      }
      fillGaussian(noise, sigma, eta)
      for (let i = 0; i < counts.length; i++) {
        const released = (counts[i] as number) + (eta[i] as number)
        if (!useSets) estimate[i] = released / rate
        else if (frequent[i] === 1) estimate[i] = released / rate
      }
      ledger.push(labeled(`iteration ${it}`, iterationEvent(c, it)))
      sampler.setRelease(estimate, 1)
      sampler.sweep(u, include)
      if (adaptive !== null) markFrequent(estimate, K, V, adaptive.q, frequent)
      return kept
    })
    const clipped = new Float64Array(estimate.length)
    for (let i = 0; i < estimate.length; i++) clipped[i] = Math.max(0, estimate[i] as number)
    return E.right(gibbsFitResult(state, c, phiFromCounts(clipped, K, V, c.beta), { trace, tokensSampled }, ledger))
  },
}

/** Frequent set of each topic: its most frequent words (released counts) covering a fraction q of its mass. */
const markFrequent = (estimate: Float64Array, K: number, V: number, q: number, out: Uint8Array): void => {
  out.fill(0)
  const idx = new Int32Array(V)
  for (let k = 0; k < K; k++) {
    let total = 0
    for (let w = 0; w < V; w++) {
      idx[w] = w
      total += Math.max(0, estimate[w * K + k] as number)
    }
    const sorted = Array.from(idx).sort((a, b) => (estimate[b * K + k] as number) - (estimate[a * K + k] as number))
    let acc = 0
    for (const w of sorted) {
      if (acc >= q * total) break
      out[w * K + k] = 1
      acc += Math.max(0, estimate[w * K + k] as number)
    }
  }
}
