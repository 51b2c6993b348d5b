/**
 * SUB-LDA (the SUB-LDA paper, Findings of EMNLP 2021, Algorithm 1): every iteration each token is kept
 * independently with probability γ (Poisson subsampling, Def. 3.3); the topic-word counts of the kept
 * tokens are released with Gaussian noise, σ² = α/(2ε(α)) (§4.1); the kept tokens are resampled from
 * the released counts (scaled by 1/γ), clipped at C.
 *
 * Reading of Algorithm 1: its "add noise to each n_tk" sits inside the token loop; adding V·K fresh
 * Gaussians per token is neither computable nor what §4.1 analyses (one ε_sub per iteration), so
 * noise is drawn once per iteration on the counts of the subsample ("Poisson subsampling before
 * counting and noise injection", §4.1), and sampling reads that release only (as in HDP-LDA). The
 * counts are integers: the noise is the exact discrete Gaussian N_ℤ(0, σ²) (Canonne, Kamath &
 * Steinke 2020), whose zCDP/RDP equals the continuous Gaussian's.
 *
 * What the code delivers, and why it is not amplified (docs/trainers.md §SUB-LDA):
 * - The paper states its guarantee for word replacement (the relation of its LDA setting) but
 *   proves eq. (3) for add/remove (Lemma 4.1 uses D′ = D ∪ {d}). Under add/remove the algorithm is
 *   not even bounded: an added token that is not sampled still has a topic, which enters its
 *   document's counts n_dk and so every sampled draw of that document (and the documents' lengths
 *   fix θ). dpaudit therefore accounts under the paper's own relation, replace-one word.
 * - Under word replacement the topic assignments are what the composition conditions on (Zhao et al.'s
 *   Thm 3 treats the draws as released), and one sample S serves both the noisy counts and the
 *   draws. A replaced token that is sampled is redrawn, one that is not keeps its topic: the two
 *   branches of the subsampling mixture differ by a point mass against a draw, an unbounded ratio,
 *   so no amplification theorem applies to the draws, and the counts cannot be amplified alone
 *   because the draws reuse their sample. The sound statement treats S as public: per iteration,
 *   the discrete Gaussian on two cells that move by 1 (L2 sensitivity √2; the paper's σ² = α/(2ε(α))
 *   assumes 1) composed with the draws of the sampled tokens, ε_I = 2 ln(C/β + 1) as in HDP-LDA
 *   (the paper's analysis omits the draws, which read the words).
 * - Adaptive subsampling (eq. 10–13) chooses whom to sample by the released frequent (word, topic)
 *   sets: whether the replaced token is redrawn depends on its word, so its draw is compared with a
 *   kept topic — declared NonPrivate from the second iteration on (ε = ∞).
 * The paper's claims (eq. 3, Lemma 5.1) are kept beside the accounted ε.
 *
 * Adaptive subsampling (eq. 10–13): frequent (word, topic) pairs — the most frequent words of a
 * topic, covering a fraction q of its released mass — are kept with rate vγ, others not visited,
 * with v = 1/(ηq) (eq. 11: E|G_sub|/E|Ḡ_sub| = 1/(vq) = η). The frequent sets come from the previous
 * release (post-processing); the first iteration is uniform.
 *
 * Every release, the sampling coins and the draws come from the release gate; tokens are visited
 * in reading order.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { invalidParameter } from '../core/error.js'
import { approxDP, nonPrivate } from '../mechanisms/event.js'
import { type Declared, type Schedule } from '../mechanisms/schedule.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase, positive } from './config.js'
import { topicDraws, topicDrawEvent } from './hdp.js'
import { privateFitResult } from './lda/loop.js'
import { prestartPrivateFit, startPrivateFit } from './lda/private-fit.js'
import { phiFromCounts } from './lda/state.js'
import { discreteGaussianTable, discreteGaussianTableEvent, randomizedStep, type TableSensitivity } from '../mechanisms/measurement.js'
import { adaptiveSubsamplingClaim, gaussianRdp, paperSubsampledRdp, subLdaSigma } from './sub-analysis.js'
import { LDA_ASSUMPTIONS } from './assumptions.js'
import { type ClaimedGuarantee, type LdaTrainer } from './trainer.js'
import { LDA_DP, SUB_LDA_PAPER } from './papers.js'
import { flagNumber, numericFlag } from './flags.js'
import { ldaFlags, ldaSurface, PRIVATE_GIBBS_WORKERS } from './lda-surface.js'

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

const RO = replaceOne('word')
const TWO_CELLS: TableSensitivity = { cells: 2, perCell: 1, relation: RO }
const GAUSS = 'discrete Gaussian N_ℤ(0, σ²), σ² = α/(2ε(α)), on the topic-word counts of the sampled tokens (two cells move by 1: L2 sensitivity √2); the sample is treated as public'
const DRAW = `topic draws of the sampled tokens on counts clipped at C (${LDA_DP}, Thm 3 eq. 7)`
const ADAPTIVE_DRAW = 'topic draws of tokens chosen by their word (adaptive subsampling): the replaced token is redrawn in one dataset and kept in the other — no bound'

/** v = 1/(ηq), the rate multiplier of the frequent words (eq. 11). */
export const adaptiveMultiplier = (a: { q: number; eta: number }): number => 1 / (a.eta * a.q)

const rateOf = (c: SubConfig, it: number): number => (c.adaptive === null || it === 1 ? c.gamma : Math.min(1, c.gamma * adaptiveMultiplier(c.adaptive)))
const adaptiveAt = (c: SubConfig, it: number): boolean => c.adaptive !== null && it > 1

/** Iteration `it`'s releases: the noisy counts of the sample, then the draws (no bound once the sample follows the words). */
const iteration = (c: SubConfig, it: number): Declared[] => [
  { label: GAUSS, event: discreteGaussianTableEvent(subLdaSigma(c.order, c.rdpEpsilon), TWO_CELLS) },
  adaptiveAt(c, it) ? { label: ADAPTIVE_DRAW, event: nonPrivate } : { label: DRAW, event: topicDrawEvent(c.clip, c.beta, RO) },
]

/** Uniform subsampling: the same iteration T times; adaptive: the first iteration uniform, the later ones adaptive. */
const subSchedule = (c: SubConfig): Schedule =>
  c.adaptive === null ? { each: iteration(c, 1), iterations: c.iterations } : { first: iteration(c, 1), each: iteration(c, 2), iterations: c.iterations }

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
  description: `SUB-LDA (${SUB_LDA_PAPER}, Alg. 1): Poisson-subsampled tokens, discrete Gaussian noise on their counts, clipping (not amplified: the sample is shared with the topic draws)`,
  config: SubConfig,
  defaults: { ...BASE_DEFAULTS, gamma: 0.1, order: 14, rdpEpsilon: 2, clip: 100, adaptive: null },
  flags: [
    ...ldaFlags(),
    numericFlag('gamma', 'gamma', 'G'),
    numericFlag('clip', 'clip', 'C'),
    numericFlag('order', 'order', 'A'),
    numericFlag('rdp-epsilon', 'rdpEpsilon', 'E'),
    { flag: 'adaptive-q', meta: 'Q', shown: () => 'off', note: 'with --adaptive-eta' },
    { flag: 'adaptive-eta', meta: 'H', shown: () => 'off', note: 'with --adaptive-q' },
  ],
  fromFlags: (values, config) => {
    const q = flagNumber('adaptive-q', values['adaptive-q'])
    const eta = flagNumber('adaptive-eta', values['adaptive-eta'])
    if (E.isLeft(q)) return q.left
    if (E.isLeft(eta)) return eta.left
    if ((q.right === undefined) !== (eta.right === undefined)) return '--adaptive-q and --adaptive-eta go together'
    if (q.right !== undefined && eta.right !== undefined) config['adaptive'] = { q: q.right, eta: eta.right }
    return undefined
  },
  workers: PRIVATE_GIBBS_WORKERS,
  prestart: prestartPrivateFit,
  ...ldaSurface,
  releases: ['phi', 'count-tables', 'topic-assignments'],
  validate,
  relation: RO,
  accountingRelation: RO,
  schedule: (c) => E.map(subSchedule)(validate(c)),
  claimed: (c): ClaimedGuarantee => {
    const sigma = subLdaSigma(c.order, c.rdpEpsilon)
    const per = paperSubsampledRdp(c.order, c.gamma, gaussianRdp(sigma))
    const total = c.iterations * per
    const base = `ε_sub(${c.order}) = ${per.toPrecision(6)} per iteration by eq. (3) with σ² = α/(2ε(α)) = ${(sigma * sigma).toPrecision(6)}; ε = Iter·ε_sub = ${total.toPrecision(6)} at order ${c.order}`
    const source = `${SUB_LDA_PAPER}, Algorithm 1 output and eq. (3) (RDP at one order, stated here at δ by ε + ln(1/δ)/(α − 1))`
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
  assumptions: (c) => [
    ...LDA_ASSUMPTIONS,
    'accounted under the paper’s relation (replace one word), not under add/remove, where an unsampled added token still moves its document’s draws',
    `sampling model: each iteration every token position is kept independently with probability ${c.adaptive === null ? 'γ' : 'γ, then vγ for tokens of frequent (word, topic) pairs (adaptive)'}; the sample is shared by the noisy counts and the topic draws, so it is treated as public and nothing is amplified`,
    'Alg. 1’s noise inside the token loop read as one release per iteration on the counts of the sample (§4.1)',
  ],
  fit: (corpus, c, rng, options = {}) => {
    const start = startPrivateFit(corpus, c, validate, rng, c.clip, options, subSchedule(c))
    if (E.isLeft(start)) return start
    const { gate, state, sampler, observed, iterate } = start.right
    const { K, V } = state
    const estimate = new Float64Array(V * K) // released counts scaled to the full corpus (adaptive: only the frequent cells)
    const frequent = new Uint8Array(V * K)
    const noise = discreteGaussianTable(GAUSS, subLdaSigma(c.order, c.rdpEpsilon), TWO_CELLS, sampler.reusingNoiser('sample'))
    /**
     * Iteration `it`'s release: the sampling coins (words from the gate's: node:crypto on every
     * thread, or streams keyed per document), the counts of the sample, discrete Gaussian noise.
     */
    const sampleAndRelease = (it: number) =>
      randomizedStep(noise.label, noise.event, (_: void, words): { released: Float64Array; kept: number } => {
        const { counts, kept } = sampler.subsample(rateOf(c, it), adaptiveAt(c, it) ? frequent : undefined, words)
        return { released: noise.run(counts, words), kept }
      })
    const draws = topicDraws(c.clip, c.beta, sampler, state.z, RO, observed)
    const adaptiveDraws = randomizedStep(ADAPTIVE_DRAW, nonPrivate, draws.run)
    const adaptive = c.adaptive
    let last: { released: Float64Array; rate: number } | undefined
    const run = iterate(
      c.iterations,
      options,
      (it) => {
        const ctx = `iteration ${it}`
        const rate = rateOf(c, it)
        const { released, kept } = gate.release(sampleAndRelease(it), undefined, ctx)
        const useSets = adaptiveAt(c, it)
        if (adaptive === null) {
          // uniform rate: q is built from the release scaled by 1/γ on the sampler's threads
          sampler.setRelease(released, 1 / rate)
          last = { released, rate }
        } else {
          for (let i = 0; i < released.length; i++) if (!useSets || frequent[i] === 1) estimate[i] = (released[i] as number) / rate
          sampler.setRelease(estimate, 1)
        }
        gate.release(useSets ? adaptiveDraws : draws, sampler.include, ctx)
        if (adaptive !== null) markFrequent(estimate, K, V, adaptive.q, frequent)
        return kept
      },
    )
    if (last !== undefined) for (let i = 0; i < estimate.length; i++) estimate[i] = (last.released[i] as number) / last.rate
    const clipped = new Float64Array(estimate.length)
    for (let i = 0; i < estimate.length; i++) clipped[i] = Math.max(0, estimate[i] as number)
    return E.right(privateFitResult(gate, c, V, phiFromCounts(clipped, K, V, c.beta), run))
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
