/**
 * Exact integer noise from uniform 32-bit words (src/core/words.ts): discrete Laplace and discrete
 * Gaussian samplers (Canonne, Kamath & Steinke 2020, Algorithms 1–3) whose output distribution is
 * the target pmf exactly given ideal uniform words — no floating-point shortcut whose support or
 * probabilities differ from the target (Mironov 2012). Draw privacy noise from `secureWords()`;
 * `seededWords(seed)` reproduces a run, which is then not private.
 *
 * @module
 */
export { bernoulliExpNeg } from './bernoulli.js'
export { type DiscreteLaplaceSampler, discreteLaplaceSampler, MAX_DISCRETE_LAPLACE_SCALE } from './discrete-laplace.js'
export { type DiscreteGaussianSampler, discreteGaussianSampler, MAX_DISCRETE_GAUSSIAN_SIGMA } from './discrete-gaussian.js'
