/**
 * Zero-concentrated differential privacy: the accountant and its conversions to (ε, δ).
 *
 * @module
 */
export { emptyZcdpState, makeZcdpAccountant, zcdpOfLeaf, type ZcdpAccountantOptions, type ZcdpState } from './accountant.js'
export {
  zcdpDelta,
  zcdpDeltaClassic,
  zcdpDeltaTightAt,
  zcdpEpsilonClassic,
  zcdpEpsilonTight,
  zcdpEpsilonTightAt,
  zcdpToDelta,
  zcdpToEpsilon,
  type ZcdpDelta,
  type ZcdpEpsilon,
} from './conversion.js'
