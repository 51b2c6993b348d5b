/**
 * Degenerate parameters, read as the events they are (issue 26: the peers answer them, dpaudit
 * refused them). A parameter at the end of its range makes a leaf either release nothing about the
 * data or release it outright:
 *
 * - no noise — Gaussian, discrete Gaussian or tree aggregation with σ = 0, Laplace or discrete
 *   Laplace with scale 0 (and a positive sensitivity): the query value itself is released, and
 *   neighbours whose values differ are told apart with certainty: `NonPrivate` (ε = ∞ at every δ < 1),
 *   the worst case over queries of that sensitivity, as dp_accounting answers GaussianDpEvent(0);
 * - randomized response with ε = ∞ (dp_accounting's noise parameter 0): the input is released,
 *   `NonPrivate`; with ε = 0 (noise parameter 1) or a single bucket (k = 1) the output does not depend
 *   on the input: `NoOp`;
 * - Poisson sampling at q = 0, or a sample of m = 0 without replacement, runs the inner event on an
 *   empty or data-independent batch (no unit is ever included): `NoOp`, whatever the inner event;
 * - repeat-and-select with a mean of 1 run and a truncated negative binomial count (finite shape η):
 *   its support is k ≥ 1, so a mean of 1 is K = 1 surely and the best of one run is that run — the
 *   inner event itself (under a Labeled node, so paths stay), as dp_accounting's trivial case
 *   answers. (A Poisson count, η = ∞, with mean 1 is not one run.)
 * - a mixture of Gaussians (`MixtureOfGaussians`, under add-remove or replace-special) with σ = 0 and a
 *   positive sensitivity of positive probability: `NonPrivate`; with one sensitivity c of positive
 *   probability: the Gaussian of sensitivity c (`NoOp` for c = 0); with two, one of them 0 and the
 *   other c of probability q: the Poisson-subsampled Gaussian PoissonSample(q, Gaussian(σ, c)) — the
 *   same pair (N(0, σ²), (1 − q)N(0, σ²) + qN(c, σ²)) in both orders, as dp_accounting's docstring
 *   says, so every accountant gives it the sampled Gaussian's exact treatment (under a Labeled node).
 *
 * The rewrite is exact (same privacy under every relation), runs before validation (only an exact
 * degenerate value is rewritten; anything else malformed is left for `validateEvent` to name), and
 * keeps the tree's shape (Labeled, Compose, … stay), so error paths still point at the same place.
 *
 * @module
 */
import type { MixtureOfGaussians, PrivacyEvent } from './event.js'

const NON_PRIVATE: PrivacyEvent = { _tag: 'NonPrivate' }
const NO_OP: PrivacyEvent = { _tag: 'NoOp' }

const validSensitivity = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) && x > 0

const validMixture = (e: MixtureOfGaussians): boolean =>
  Array.isArray(e.sensitivities) &&
  Array.isArray(e.probabilities) &&
  e.sensitivities.length === e.probabilities.length &&
  e.sensitivities.every((c) => typeof c === 'number' && Number.isFinite(c) && c >= 0) &&
  e.probabilities.every((w) => typeof w === 'number' && w >= 0 && w <= 1) &&
  Math.abs(e.probabilities.reduce((a, b) => a + b, 0) - 1) <= 1e-9 &&
  typeof e.sigma === 'number' &&
  Number.isFinite(e.sigma) &&
  e.sigma >= 0 &&
  (e.relation?.kind === 'add-remove' || e.relation?.kind === 'replace-special')

/** A mixture of Gaussians with σ = 0, or of one or two ({0, c}) sensitivities (see the module note). */
const mixture = (e: MixtureOfGaussians): PrivacyEvent => {
  if (!validMixture(e)) return e
  const live = e.sensitivities.map((c, i) => ({ c, w: e.probabilities[i] as number })).filter((x) => x.w > 0)
  const shifted = live.filter((x) => x.c > 0)
  if (e.sigma === 0) return shifted.length > 0 ? NON_PRIVATE : NO_OP
  if (shifted.length === 0) return NO_OP
  const label = 'MixtureOfGaussians: the Poisson-subsampled Gaussian'
  const gaussian = (c: number): PrivacyEvent => ({ _tag: 'Gaussian', sigma: e.sigma, sensitivity: c, relation: e.relation })
  const distinct = new Set(shifted.map((x) => x.c))
  if (distinct.size !== 1) return e
  const c = shifted[0]!.c
  // Divided by the total only when it is below 1 (within the codec's 1e-9): never a smaller q than stated.
  const q = shifted.reduce((a, x) => a + x.w, 0) / Math.min(1, live.reduce((a, x) => a + x.w, 0))
  return q >= 1 ? gaussian(c) : { _tag: 'Labeled', label, event: { _tag: 'PoissonSample', q, event: gaussian(c) } }
}

/** The leaf a degenerate parameter makes of `e`, or `e` itself. */
const leaf = (e: PrivacyEvent): PrivacyEvent => {
  switch (e._tag) {
    case 'Gaussian':
    case 'DiscreteGaussian':
      return e.sigma === 0 && validSensitivity(e.sensitivity) ? NON_PRIVATE : e
    case 'TreeAggregation':
      return e.sigma === 0 && validSensitivity(e.sensitivity) && Array.isArray(e.stepCounts) && e.stepCounts.some((c) => c > 0) ? NON_PRIVATE : e
    case 'Laplace':
    case 'DiscreteLaplace':
      return e.scale === 0 && validSensitivity(e.sensitivity) ? NON_PRIVATE : e
    case 'MixtureOfGaussians':
      return mixture(e)
    case 'RandomizedResponse':
      if (e.k === 1 && (e.epsilon === 0 || e.epsilon > 0)) return NO_OP
      if (!(Number.isInteger(e.k) && e.k >= 2)) return e
      return e.epsilon === 0 ? NO_OP : e.epsilon === Infinity ? NON_PRIVATE : e
    default:
      return e
  }
}

/** The event with every degenerate leaf and sampling step rewritten (see the module note). */
export const withoutDegenerate = (e: PrivacyEvent): PrivacyEvent => {
  switch (e._tag) {
    case 'Compose':
      return Array.isArray(e.events) ? { ...e, events: e.events.map(withoutDegenerate) } : e
    case 'PoissonSample':
      return e.q === 0 ? NO_OP : e.event === undefined ? e : { ...e, event: withoutDegenerate(e.event) }
    case 'SampleWithoutReplacement':
      return e.m === 0 && Number.isInteger(e.n) && e.n >= 1 ? NO_OP : e.event === undefined ? e : { ...e, event: withoutDegenerate(e.event) }
    case 'TruncatedPoissonSample':
      return e.q === 0 ? NO_OP : e.event === undefined ? e : { ...e, event: withoutDegenerate(e.event) }
    case 'RepeatAndSelect':
      if (e.event === undefined) return e
      return e.mean === 1 && typeof e.shape === 'number' && e.shape >= 0 && Number.isFinite(e.shape)
        ? { _tag: 'Labeled', label: 'RepeatAndSelect with a mean of 1 run: the run itself', event: withoutDegenerate(e.event) }
        : { ...e, event: withoutDegenerate(e.event) }
    case 'SelfCompose':
    case 'WithReplacementSample':
    case 'Labeled':
      return e.event === undefined ? e : { ...e, event: withoutDegenerate(e.event) }
    default:
      return leaf(e)
  }
}
