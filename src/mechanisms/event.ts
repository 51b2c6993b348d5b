/**
 * The privacy-event algebra: immutable, serializable descriptions of what a pipeline releases.
 * Events hold exactly the parameters an accountant needs; accountants are interpreters (folds)
 * over this union. Compatibility policy (as in dp_accounting): never remove an event or a field,
 * add only optional fields, never change what an existing event means; bump `SCHEMA_VERSION`
 * when the document format changes.
 *
 * Three kinds of event:
 * - noise mechanisms (Laplace, Gaussian, their discrete counterparts on the integers, randomized
 *   response, exponential mechanism) and stated guarantees taken from papers (PureDP, ApproxDP,
 *   ZCDP), each with the neighbouring relation its sensitivity assumes;
 * - structure: NoOp, NonPrivate, Compose, SelfCompose, PoissonSample, SampleWithoutReplacement, WithReplacementSample,
 *   RepeatAndSelect (private selection), Labeled (provenance);
 *
 * @module
 */
import type { NeighbouringRelation } from './neighbouring.js'

/** Version of the JSON document format for specs and events. */
export const SCHEMA_VERSION = 1 as const

// -------------------------------------------------------------------------------------------
// model
// -------------------------------------------------------------------------------------------

/** Laplace noise of `scale` b on a query of L1 sensitivity Δ₁: pure (Δ₁/b)-DP. */
export interface Laplace {
  readonly _tag: 'Laplace'
  readonly scale: number
  readonly sensitivity: number
  readonly relation: NeighbouringRelation
}

/** Gaussian noise of standard deviation σ on a query of L2 sensitivity Δ₂. */
export interface Gaussian {
  readonly _tag: 'Gaussian'
  readonly sigma: number
  readonly sensitivity: number
  readonly relation: NeighbouringRelation
}

/**
 * Discrete Laplace (geometric) noise of `scale` t on the integers, P(x) ∝ e^{−|x|/t}, added to each
 * coordinate of an integer-valued query whose neighbouring values differ by an integer vector of
 * L1 norm at most `sensitivity` Δ (a positive integer). Pure (Δ/t)-DP: the geometric mechanism of
 * Ghosh, Roughgarden & Sundararajan 2009 (also Canonne, Kamath & Steinke 2020, §2). The RDP curve
 * and PLD used are those of the scalar shift by Δ; for a vector query the RDP curve is provably no
 * smaller, the PLD pair is the reading the continuous Laplace takes too (checked numerically).
 */
export interface DiscreteLaplace {
  readonly _tag: 'DiscreteLaplace'
  readonly scale: number
  readonly sensitivity: number
  readonly relation: NeighbouringRelation
}

/**
 * Discrete Gaussian noise on the integers, P(x) ∝ e^{−x²/(2σ²)} (Canonne, Kamath & Steinke 2020,
 * "The Discrete Gaussian for Differential Privacy"), added to each coordinate of an integer-valued
 * query whose neighbouring values differ by an integer vector of L2 norm at most `sensitivity` Δ (a
 * positive integer: for a vector query state ⌈‖difference‖₂⌉, e.g. 2 for a difference of norm √2).
 * ½(Δ/σ)²-zCDP, as the continuous Gaussian.
 *
 * `scalar` (optional, default false): true when the query is one integer — more generally, when
 * every neighbouring difference is an integer multiple of one coordinate vector. The exact (ε, δ)
 * and PLD of the discrete Gaussian are those of the scalar shift by Δ, and for Δ ≥ 2 that pair
 * does not dominate vector differences of the same L2 norm (for σ = 1, Δ = 2 the difference
 * (1, 1, 1, 1) has δ(2) larger by 0.049), so the PLD accountant and the exact (ε, δ) use it only for
 * scalar queries or Δ = 1 (an integer vector of L2 norm ≤ 1 is ±one coordinate vector).
 */
export interface DiscreteGaussian {
  readonly _tag: 'DiscreteGaussian'
  readonly sigma: number
  readonly sensitivity: number
  readonly relation: NeighbouringRelation
  readonly scalar?: boolean
}

/**
 * k-ary randomized response: report the true value with probability e^ε/(e^ε + k − 1), otherwise
 * one of the k − 1 others uniformly. Pure ε-DP when neighbours change the one reported value.
 */
export interface RandomizedResponse {
  readonly _tag: 'RandomizedResponse'
  readonly epsilon: number
  readonly k: number
  readonly relation: NeighbouringRelation
}

/**
 * Bitwise randomized response (as LP-LDA uses on word-presence bits): every bit is flipped
 * independently with probability f < 1/2; neighbouring inputs differ in at most `bits` bits.
 * Each differing bit costs ln((1 − f)/f).
 */
export interface BitwiseRandomizedResponse {
  readonly _tag: 'BitwiseRandomizedResponse'
  readonly flipProbability: number
  readonly bits: number
  readonly relation: NeighbouringRelation
}

/**
 * Exponential mechanism: output r with probability ∝ exp(ε·u(x, r) / (2Δu)). It is ε-DP and
 * ε-bounded-range, hence ε²/8-zCDP (Cesar & Rogers 2021). The CGS topic draw is one.
 */
export interface Exponential {
  readonly _tag: 'Exponential'
  readonly epsilon: number
  readonly utilitySensitivity: number
  readonly relation: NeighbouringRelation
}

/**
 * Permute-and-flip (McKenna & Sheldon 2020, "Permute-and-Flip: A new mechanism for differentially
 * private selection", Alg. 1): visit the candidates in random order and stop at r with probability
 * exp(ε(u(x, r) − u*)/(2Δu)). ε-DP (their Thm 1); it is not known to be ε-bounded-range, so it is
 * accounted as a pure ε-DP guarantee (zCDP ε²/2, not the exponential mechanism's ε²/8).
 */
export interface PermuteAndFlip {
  readonly _tag: 'PermuteAndFlip'
  readonly epsilon: number
  readonly utilitySensitivity: number
  readonly relation: NeighbouringRelation
}

/**
 * Tree aggregation of a stream (the binary-tree mechanism; DP-FTRL, Kairouz, McMahan, Song, Thakkar,
 * Thakurta & Xu 2021, "Practical and private (deep) learning without sampling or shuffling"): every
 * node of a binary tree over the steps releases the sum of its leaves' contributions (each of L2 norm
 * ≤ `sensitivity`) plus Gaussian noise of standard deviation σ. `stepCounts` lists the steps of each
 * tree (the tree restarts after each; one entry for a single tree). A record contributes to one step
 * in all the trees together — their Appendix D, as dp_accounting's SingleEpochTreeAggregationDpEvent —
 * unless `participations` k (optional, default 1) says it contributes to up to k steps of one tree.
 * For several epochs with a restart per epoch, wrap in SelfCompose(epochs).
 *
 * The released node vector is a Gaussian mechanism: a step's leaf lies under one node per level,
 * and a tree of T steps has ⌈log₂(T + 1)⌉ levels whose nodes complete within T steps, so one record
 * moves the vector by at most Δ√⌈log₂(T_max + 1)⌉ in L2 (×k with k participations, by the triangle
 * inequality: every node moves by ≤ kΔ and at most k per level are touched, Σ ≤ k²·levels·Δ²). The
 * adaptively chosen contributions of DP-FTRL compose as Gaussians do (Kairouz et al. 2021, App. D).
 */
export interface TreeAggregation {
  readonly _tag: 'TreeAggregation'
  readonly sigma: number
  readonly sensitivity: number
  readonly stepCounts: ReadonlyArray<number>
  readonly relation: NeighbouringRelation
  readonly participations?: number
}

/**
 * A Gaussian whose shift is drawn from a list (dp_accounting's MixtureOfGaussiansDpEvent; Choquette-Choo,
 * Ganesh, Steinke & Thakurta 2023, "Privacy amplification for matrix mechanisms", arXiv 2310.15526):
 * on the dataset without the unit the output is N(0, σ²), on the one with it Σ_i p_i N(c_i, σ²), with
 * the sensitivities c_i ≥ 0 = `sensitivities` and the probabilities p_i = `probabilities` (summing to
 * 1). Stated under add-remove (both orders of the pair) or replace-special. Sensitivities
 * {0, c} with probabilities {1 − q, q} are the Poisson-subsampled Gaussian, and are accounted as one
 * (mechanisms/degenerate.ts); a vector-valued mixture is dominated by the scalar one of the
 * sensitivity vectors' norms (their Cor. 4.7, as dp_accounting's docstring reads it).
 */
export interface MixtureOfGaussians {
  readonly _tag: 'MixtureOfGaussians'
  readonly sigma: number
  readonly sensitivities: ReadonlyArray<number>
  readonly probabilities: ReadonlyArray<number>
  readonly relation: NeighbouringRelation
}

/**
 * A stated RDP curve: D_α(M(x)‖M(x′)) ≤ rdp[i] at each order α = orders[i] > 1 (Mironov 2017), for
 * example a curve computed by another accountant. Other orders are bounded only upward, from the
 * stated ones (monotonicity and convexity in α; see accounting/stated.ts); above the largest stated
 * order nothing is known.
 */
export interface StatedRdp {
  readonly _tag: 'StatedRdp'
  readonly orders: ReadonlyArray<number>
  readonly rdp: ReadonlyArray<number>
  readonly relation: NeighbouringRelation
}

/**
 * A stated privacy profile: the mechanism is (epsilons[i], deltas[i])-DP for every i (points of its
 * δ(ε) curve, or of any upper bound on it).
 */
export interface StatedProfile {
  readonly _tag: 'StatedProfile'
  readonly epsilons: ReadonlyArray<number>
  readonly deltas: ReadonlyArray<number>
  readonly relation: NeighbouringRelation
}

/** An opaque stated pure-DP guarantee (for example a claim taken from a paper). */
export interface PureDP {
  readonly _tag: 'PureDP'
  readonly epsilon: number
  readonly relation: NeighbouringRelation
}

/** An opaque stated (ε, δ)-DP guarantee. */
export interface ApproxDP {
  readonly _tag: 'ApproxDP'
  readonly epsilon: number
  readonly delta: number
  readonly relation: NeighbouringRelation
}

/**
 * An opaque stated zCDP guarantee: (ξ, ρ)-zCDP, D_α(M(x)‖M(x′)) ≤ ξ + ρα for every α > 1 (Bun &
 * Steinke 2016, Def. 1.1). `xi` (optional, default 0) is the additive ξ; without it, ρ-zCDP.
 */
export interface ZCDP {
  readonly _tag: 'ZCDP'
  readonly rho: number
  readonly relation: NeighbouringRelation
  readonly xi?: number
}

/** Releases nothing about the data. */
export interface NoOp {
  readonly _tag: 'NoOp'
}

/** Releases something with no privacy guarantee (ε = ∞). */
export interface NonPrivate {
  readonly _tag: 'NonPrivate'
}

/** Adaptive sequential composition of heterogeneous events. */
export interface Compose {
  readonly _tag: 'Compose'
  readonly events: ReadonlyArray<PrivacyEvent>
}

/** `count` adaptive repetitions of the same event. */
export interface SelfCompose {
  readonly _tag: 'SelfCompose'
  readonly event: PrivacyEvent
  readonly count: number
}

/** Each unit is included independently with probability q, then `event` runs on the sample. */
export interface PoissonSample {
  readonly _tag: 'PoissonSample'
  readonly q: number
  readonly event: PrivacyEvent
}

/**
 * Truncated Poisson subsampling: each of the (at most) `datasetSize` units is included independently
 * with probability q; a batch of more than `maxBatch` units is cut down to `maxBatch` (or dropped —
 * any handling of an over-full batch), then `event` runs on it. Bounded by its coupling with plain
 * Poisson sampling (accounting/truncation.ts): the two runs differ only when a batch overflows.
 *
 * `cut` (optional): `'uniform'` states that an over-full batch is cut to a uniformly random subset of
 * `maxBatch` of its units (dp_accounting's TruncatedSubsampledGaussianDpEvent). That handling admits a
 * coupling without the overflow term (accounting/truncation.ts); absent, any handling is assumed.
 */
export interface TruncatedPoissonSample {
  readonly _tag: 'TruncatedPoissonSample'
  readonly q: number
  readonly maxBatch: number
  readonly datasetSize: number
  readonly event: PrivacyEvent
  readonly cut?: 'uniform'
}

/**
 * A batch of `batchSize` records drawn uniformly with replacement from the `datasetSize` records,
 * then `event` runs on the batch (a record may appear several times). Amplified under replace-one
 * neighbours (Balle, Barthe & Gaboardi 2018, Thm 10; accounting/with-replacement.ts).
 */
export interface WithReplacementSample {
  readonly _tag: 'WithReplacementSample'
  readonly batchSize: number
  readonly datasetSize: number
  readonly event: PrivacyEvent
}

/** A uniformly random subset of m of the n units, then `event` runs on the subset. */
export interface SampleWithoutReplacement {
  readonly _tag: 'SampleWithoutReplacement'
  readonly m: number
  readonly n: number
  readonly event: PrivacyEvent
}

/**
 * Private selection by repetition (hyperparameter tuning): `event` is run K times with K random of
 * mean `mean` ≥ 1, and only the best run is released (Liu & Talwar 2019; Papernot & Steinke 2022).
 * `shape` η picks K's law as dp_accounting's RepeatAndSelectDpEvent does: truncated negative
 * binomial of shape η (1: geometric, 0: logarithmic), or Poisson for η = ∞.
 */
export interface RepeatAndSelect {
  readonly _tag: 'RepeatAndSelect'
  readonly event: PrivacyEvent
  readonly mean: number
  readonly shape: number
}

/** Provenance: a trainer step, a graph edge. Accounting sees through it. */
export interface Labeled {
  readonly _tag: 'Labeled'
  readonly label: string
  readonly event: PrivacyEvent
}

export type NoiseEvent =
  | Laplace
  | Gaussian
  | DiscreteLaplace
  | DiscreteGaussian
  | RandomizedResponse
  | BitwiseRandomizedResponse
  | Exponential
  | PermuteAndFlip
  | TreeAggregation
  | MixtureOfGaussians
  | StatedRdp
  | StatedProfile
  | PureDP
  | ApproxDP
  | ZCDP

export type PrivacyEvent =
  | NoiseEvent
  | NoOp
  | NonPrivate
  | Compose
  | SelfCompose
  | PoissonSample
  | TruncatedPoissonSample
  | SampleWithoutReplacement
  | WithReplacementSample
  | RepeatAndSelect
  | Labeled

export type EventTag = PrivacyEvent['_tag']

// -------------------------------------------------------------------------------------------
// constructors (unchecked: validation happens in the codec and in `validateEvent`)
// -------------------------------------------------------------------------------------------

export const laplace = (scale: number, sensitivity: number, relation: NeighbouringRelation): Laplace => ({
  _tag: 'Laplace',
  scale,
  sensitivity,
  relation,
})
export const gaussian = (sigma: number, sensitivity: number, relation: NeighbouringRelation): Gaussian => ({
  _tag: 'Gaussian',
  sigma,
  sensitivity,
  relation,
})
export const discreteLaplace = (scale: number, sensitivity: number, relation: NeighbouringRelation): DiscreteLaplace => ({
  _tag: 'DiscreteLaplace',
  scale,
  sensitivity,
  relation,
})
/** `options.scalar`: the query is one integer (see `DiscreteGaussian`); omitted when not given. */
export const discreteGaussian = (
  sigma: number,
  sensitivity: number,
  relation: NeighbouringRelation,
  options: { readonly scalar?: boolean } = {},
): DiscreteGaussian =>
  options.scalar === undefined
    ? { _tag: 'DiscreteGaussian', sigma, sensitivity, relation }
    : { _tag: 'DiscreteGaussian', sigma, sensitivity, relation, scalar: options.scalar }
export const randomizedResponse = (
  epsilon: number,
  k: number,
  relation: NeighbouringRelation,
): RandomizedResponse => ({ _tag: 'RandomizedResponse', epsilon, k, relation })
export const bitwiseRandomizedResponse = (
  flipProbability: number,
  bits: number,
  relation: NeighbouringRelation,
): BitwiseRandomizedResponse => ({ _tag: 'BitwiseRandomizedResponse', flipProbability, bits, relation })
export const exponential = (
  epsilon: number,
  utilitySensitivity: number,
  relation: NeighbouringRelation,
): Exponential => ({ _tag: 'Exponential', epsilon, utilitySensitivity, relation })
export const permuteAndFlip = (epsilon: number, utilitySensitivity: number, relation: NeighbouringRelation): PermuteAndFlip => ({
  _tag: 'PermuteAndFlip',
  epsilon,
  utilitySensitivity,
  relation,
})
/** `options.participations`: a record's steps in one tree (see `TreeAggregation`); omitted when not given. */
export const treeAggregation = (
  sigma: number,
  sensitivity: number,
  stepCounts: ReadonlyArray<number>,
  relation: NeighbouringRelation,
  options: { readonly participations?: number } = {},
): TreeAggregation =>
  options.participations === undefined
    ? { _tag: 'TreeAggregation', sigma, sensitivity, stepCounts, relation }
    : { _tag: 'TreeAggregation', sigma, sensitivity, stepCounts, relation, participations: options.participations }
export const mixtureOfGaussians = (
  sigma: number,
  sensitivities: ReadonlyArray<number>,
  probabilities: ReadonlyArray<number>,
  relation: NeighbouringRelation,
): MixtureOfGaussians => ({ _tag: 'MixtureOfGaussians', sigma, sensitivities, probabilities, relation })
export const statedRdp = (orders: ReadonlyArray<number>, rdp: ReadonlyArray<number>, relation: NeighbouringRelation): StatedRdp => ({
  _tag: 'StatedRdp',
  orders,
  rdp,
  relation,
})
export const statedProfile = (
  epsilons: ReadonlyArray<number>,
  deltas: ReadonlyArray<number>,
  relation: NeighbouringRelation,
): StatedProfile => ({ _tag: 'StatedProfile', epsilons, deltas, relation })
export const pureDP = (epsilon: number, relation: NeighbouringRelation): PureDP => ({
  _tag: 'PureDP',
  epsilon,
  relation,
})
export const approxDP = (epsilon: number, delta: number, relation: NeighbouringRelation): ApproxDP => ({
  _tag: 'ApproxDP',
  epsilon,
  delta,
  relation,
})
/** `options.xi`: the additive ξ of (ξ, ρ)-zCDP (see `ZCDP`); omitted when not given. */
export const zcdp = (rho: number, relation: NeighbouringRelation, options: { readonly xi?: number } = {}): ZCDP =>
  options.xi === undefined ? { _tag: 'ZCDP', rho, relation } : { _tag: 'ZCDP', rho, relation, xi: options.xi }
export const noOp: NoOp = { _tag: 'NoOp' }
export const nonPrivate: NonPrivate = { _tag: 'NonPrivate' }
export const compose = (events: ReadonlyArray<PrivacyEvent>): Compose => ({ _tag: 'Compose', events })
export const selfCompose = (event: PrivacyEvent, count: number): SelfCompose => ({
  _tag: 'SelfCompose',
  event,
  count,
})
export const poissonSample = (q: number, event: PrivacyEvent): PoissonSample => ({
  _tag: 'PoissonSample',
  q,
  event,
})
export const truncatedPoissonSample = (
  q: number,
  maxBatch: number,
  datasetSize: number,
  event: PrivacyEvent,
  options: { readonly cut?: 'uniform' } = {},
): TruncatedPoissonSample =>
  options.cut === undefined
    ? { _tag: 'TruncatedPoissonSample', q, maxBatch, datasetSize, event }
    : { _tag: 'TruncatedPoissonSample', q, maxBatch, datasetSize, event, cut: options.cut }
export const sampleWithoutReplacement = (m: number, n: number, event: PrivacyEvent): SampleWithoutReplacement => ({
  _tag: 'SampleWithoutReplacement',
  m,
  n,
  event,
})
export const withReplacementSample = (batchSize: number, datasetSize: number, event: PrivacyEvent): WithReplacementSample => ({
  _tag: 'WithReplacementSample',
  batchSize,
  datasetSize,
  event,
})
export const repeatAndSelect = (event: PrivacyEvent, mean: number, shape: number): RepeatAndSelect => ({
  _tag: 'RepeatAndSelect',
  event,
  mean,
  shape,
})
export const labeled = (label: string, event: PrivacyEvent): Labeled => ({ _tag: 'Labeled', label, event })

// -------------------------------------------------------------------------------------------
// refinements and utils
// -------------------------------------------------------------------------------------------

const NOISE_TAGS: ReadonlySet<string> = new Set([
  'Laplace',
  'Gaussian',
  'DiscreteLaplace',
  'DiscreteGaussian',
  'RandomizedResponse',
  'BitwiseRandomizedResponse',
  'Exponential',
  'PermuteAndFlip',
  'TreeAggregation',
  'MixtureOfGaussians',
  'StatedRdp',
  'StatedProfile',
  'PureDP',
  'ApproxDP',
  'ZCDP',
])

export const isNoiseEvent = (e: PrivacyEvent): e is NoiseEvent => NOISE_TAGS.has(e._tag)

/** Path of the i-th child, for error messages: `$.events[2]`, `$.event`. */
export const childPath = (path: string, e: PrivacyEvent, i = 0): string =>
  e._tag === 'Compose' ? `${path}.events[${i}]` : `${path}.event`

/** The children of a structural event (none for leaves). */
export const children = (e: PrivacyEvent): ReadonlyArray<PrivacyEvent> => {
  switch (e._tag) {
    case 'Compose':
      return e.events
    case 'SelfCompose':
    case 'PoissonSample':
    case 'TruncatedPoissonSample':
    case 'SampleWithoutReplacement':
    case 'WithReplacementSample':
    case 'RepeatAndSelect':
    case 'Labeled':
      return [e.event]
    default:
      return []
  }
}

/** Depth of an event tree (a leaf has depth 1). */
export const depth = (e: PrivacyEvent): number => {
  let d = 0
  for (const c of children(e)) d = Math.max(d, depth(c))
  return d + 1
}

/** Exhaustiveness helper for `switch` over tags. */
export const absurd = (x: never): never => {
  throw new Error(`unreachable: ${JSON.stringify(x)}`)
}
