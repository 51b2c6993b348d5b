/**
 * The bug zoo (entries.ts), with everything its entries compute ready to call synchronously. A worker
 * thread imports entries.ts instead and prepares only the entry it runs (issue 23: start-up).
 *
 * @module
 */
import { loadAnalyticGaussian } from './analytic.js'

export * from './entries.js'

await loadAnalyticGaussian()
