/**
 * dpaudit: account for, train under, and audit differential privacy.
 *
 * The root export gathers the subpaths as namespaces; import a subpath directly
 * (`dpaudit/accounting`, `dpaudit/mechanisms`, …) to keep bundles small.
 *
 * @module
 */
export * as Accounting from './accounting/index.js'
export * as Mechanisms from './mechanisms/index.js'
export * as Trainers from './trainers/index.js'
export * as Attacks from './attacks/index.js'
export * as Report from './report/index.js'
export * as Testing from './testing/index.js'
export * from './core/error.js'
export { seeded, secure, type Rng } from './core/rng.js'
export { stringifyJson, parseJson, encodeNumber, ExtendedNumber } from './core/json.js'
