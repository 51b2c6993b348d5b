/**
 * Pure and approximate differential privacy: composition theorems, amplification by subsampling,
 * and the 'basic', 'advanced' and 'optimal' accountants.
 *
 * @module
 */
export {
  makeAdvancedAccountant,
  makeBasicAccountant,
  makeOptimalAccountant,
  checkDeltaQuery,
  checkEpsilonQuery,
  type DpAccountantOptions,
} from './accountant.js'
export { amplifiedEpsilon, amplify, amplifyPoisson, amplifyWithoutReplacement, type Guarantee } from './amplification.js'
export {
  advancedCompositionDeltaPrime,
  advancedCompositionEpsilon,
  basicComposition,
  COMPOSITION_REL_TOL,
  KOV_MAX_STEPS,
  kovDelta,
  kovEpsilon,
  kovHeterogeneousEpsilon,
  kovLogDeltaPure,
  stepCount,
  type StepGuarantee,
} from './composition.js'
export { deltaAt, epsilonAt, type DpDelta, type DpEpsilon, type DpMethod } from './query.js'
export { emptyState, foldEvent, type DpEntry, type DpState, type DpTerm, type SamplingScheme } from './state.js'
