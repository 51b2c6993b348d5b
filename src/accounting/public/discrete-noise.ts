/**
 * The discrete Gaussian's (ε, δ) answers (Canonne, Kamath & Steinke 2020), as one namespace value of
 * dpaudit/accounting: `DiscreteNoise.discreteGaussianEpsilon(σ, Δ, δ)` (../discrete-noise.ts).
 *
 * @module
 */
export { discreteGaussianDelta, discreteGaussianEpsilon, DISCRETE_GAUSSIAN_REL_TOL } from '../discrete-noise.js'
