/**
 * dpaudit/report: human-readable renderings of accounting results, the CLI's output schemas, and
 * audit reports. The verification of the papers' claims (claims files, verdicts, their pages) is
 * paper-specific and has its own sub-path, dpaudit/papers (./claims/index.ts).
 *
 * @module
 */
export * from './format.js'
export * from './schemas.js'
export * from './audit/index.js'
