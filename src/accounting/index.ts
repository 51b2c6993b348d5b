/**
 * dpaudit/accounting: accountants that turn privacy events into sound guarantees.
 *
 * - `account(spec, { deltas })` runs every registered accountant and reports each with its method,
 *   plus the tightest sound answer; `calibrate(template, { epsilon, delta })` searches the inverse.
 * - `rdpFilter`, `zcdpFilter`, `basicFilter`, `advancedFilter` and `rdpOdometer`: fully adaptive
 *   composition (the `Filter` namespace): a filter admits each next mechanism only while its budget
 *   holds, an odometer reports the loss so far at every time.
 * - Each accounting family is also available as a namespace with its closed forms and conversions:
 *   `Rdp` (Rényi DP), `Zcdp` (zero-concentrated DP), `Dp` (pure/approximate DP composition and
 *   amplification), the exact analytic Gaussian (the soundness oracle), and the exact (ε, δ) of the
 *   scalar discrete Gaussian.
 *
 * @module
 */
export * from './accountant.js'
export type { DpError, Path } from '../core/error.js'
export { formatError } from '../core/error.js'
export * from './account.js'
export * from './calibrate.js'
export * from './registry.js'
export * from './conversions.js'
export * from './analytic-gaussian.js'
export * from './discrete-noise.js'
export { resolveLeaf, pureEpsilonOf, type NormalizedLeaf, type Resolved } from './normalize.js'
export { inferRelation, leafRelations, checkSamplingRelation } from './relation.js'
export { makeRdpAccountant } from './rdp/index.js'
export { makeAdvancedAccountant, makeBasicAccountant, makeOptimalAccountant } from './dp/index.js'
export { makeZcdpAccountant } from './zcdp/index.js'
export { makePldAccountant } from './pld/index.js'
export * as Rdp from './rdp/index.js'
export * as Zcdp from './zcdp/index.js'
export * as Dp from './dp/index.js'
export * as Pld from './pld/index.js'
export * as Filter from './filter/index.js'
export {
  advancedFilter,
  basicFilter,
  rdpFilter,
  rdpOdometer,
  zcdpFilter,
  type FilterRefusal,
  type PrivacyFilter,
  type PrivacyOdometer,
} from './filter/index.js'
export { shuffleAmplification, fmt21ShuffledEpsilon, shuffleLocalEpsilonLimit, type ShuffledEpsilon } from './shuffle.js'
export {
  defaultAlphas,
  gaussianTradeOff,
  gdpMu,
  profileTradeOff,
  tprAtFpr,
  tradeOffAt,
  tradeOffCurve,
  type GdpBound,
  type TprAnswer,
  type TradeOffCurve,
  type TradeOffMethod,
  type TradeOffOptions,
} from './tradeoff.js'
export { privacyProfileOf, type PrivacyProfile, type ProfileOptions } from './profile.js'
export { rdpAtOrder, type RenyiBound } from './rdp/extreme-orders.js'
