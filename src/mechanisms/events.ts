/**
 * The event constructors of dpaudit/mechanisms, as one namespace value (`Events.gaussian(σ, Δ,
 * relation)`, `Events.selfCompose(e, T)`): the privacy-event algebra's noise mechanisms, stated
 * guarantees, sampling and structure (./event.ts, where the types live and are exported flat).
 * Grouped so the sub-path's surface stays small (issue 25), as fp-ts groups instances.
 *
 * @module
 */
export {
  approxDP, bitwiseRandomizedResponse, compose, discreteGaussian, discreteLaplace, exponential, gaussian, labeled, laplace, noOp,
  nonPrivate, permuteAndFlip, poissonSample, pureDP, randomizedResponse, repeatAndSelect, sampleWithoutReplacement, selfCompose, statedProfile,
  statedRdp, treeAggregation, truncatedPoissonSample, withReplacementSample, zcdp,
} from './event.js'
