/**
 * Privacy amplification by shuffling (Feldman, McMillan & Talwar 2021), as one namespace value of
 * dpaudit/accounting: `Shuffle.shuffleAmplification(ε₀, n, δ)` (../shuffle.ts).
 *
 * @module
 */
export { shuffleAmplification, fmt21ShuffledEpsilon, shuffleLocalEpsilonLimit } from '../shuffle.js'
