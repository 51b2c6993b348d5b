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
 * The export list is curated (issue 25): the internals behind these answers (the leaf normaliser and
 * relation checks, the bracket estimate, the KL δ bound, the discrete Gaussian's kernels, the
 * calibration's probe count, the δ validator) are reached by their module path inside the package only.
 * Every type of the modules below stays exported.
 *
 * @module
 */
export type * from './accountant.js'
export { erase } from './accountant.js'
export type { DpError, Path } from '../core/error.js'
export { formatError } from '../core/error.js'
export type * from './account.js'
export { account } from './account.js'
export type * from './calibrate.js'
export { PARAM, CALIBRATABLE_FIELDS, decodeTemplate, calibrate } from './calibrate.js'
export type * from './registry.js'
export { ACCOUNTANTS, ACCOUNTANT_NAMES, isAccountantName } from './registry.js'
export type * from './conversions.js'
export { rdpEpsilonAtOrder, rdpDeltaAtOrder } from './conversions.js'
export type * from './analytic-gaussian.js'
export * as AnalyticGaussian from './public/analytic-gaussian.js'
export type * from './discrete-noise.js'
export * as DiscreteNoise from './public/discrete-noise.js'
export { pureEpsilonOf, type NormalizedLeaf, type Resolved } from './normalize.js'
export { inferRelation } from './relation.js'
// each accountant family with its factory (Rdp.makeRdpAccountant, Dp.makeOptimalAccountant, …), and the filters
export * as Rdp from './rdp/index.js'
export * as Zcdp from './zcdp/index.js'
export * as Dp from './dp/index.js'
export * as Pld from './pld/index.js'
export * as Filter from './filter/index.js'
export type { FilterRefusal, PrivacyFilter, PrivacyOdometer } from './filter/index.js'
export type { ShuffledEpsilon } from './shuffle.js'
export * as Shuffle from './public/shuffle.js'
export * as TradeOff from './public/trade-off.js'
export type {
  GdpBound,
  TprAnswer,
  TradeOffCurve,
  TradeOffMethod,
  TradeOffOptions,
} from './tradeoff.js'
export { privacyProfileOf, type PrivacyProfile, type ProfileOptions } from './profile.js'
export { rdpAtOrder, type RenyiBound } from './rdp/extreme-orders.js'
