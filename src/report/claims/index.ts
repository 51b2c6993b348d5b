/**
 * dpaudit/papers: the papers' published claims as data (claims/), their checks and verdicts, and their
 * Markdown pages — paper-specific, apart from the general report renderings of dpaudit/report.
 *
 * @module
 */
export * from './codec.js'
export * from './verdict.js'
export { tightestEpsilon, pureEpsilon, rdpAt, type Accounted } from './evidence.js'
export * from './verify.js'
export * from './markdown.js'
