/**
 * The analytic Gaussian mechanism's answers (Balle & Wang 2018), as one namespace value of
 * dpaudit/accounting: `AnalyticGaussian.analyticGaussianEpsilon(σ, δ)`, its δ and noise multiplier,
 * with their Either forms and the composed multiplier (../analytic-gaussian.ts; its types are exported flat).
 *
 * @module
 */
export {
  ANALYTIC_GAUSSIAN_REL_TOL,
  analyticGaussianDelta,
  analyticGaussianEpsilon,
  analyticGaussianNoiseMultiplier,
  composedNoiseMultiplier,
  composeNoiseMultipliers,
  analyticGaussianDeltaE,
  analyticGaussianEpsilonE,
  analyticGaussianNoiseMultiplierE,
} from '../analytic-gaussian.js'
