/**
 * The analytic Gaussian calibration (accounting/analytic-gaussian.ts), loaded only when a zoo entry
 * that needs it is prepared. Why (issue 23): it imports @stdlib's erfcx and normal log-CDF, a few
 * hundred small CommonJS files, and an audit worker thread that runs the Laplace entry must not pay
 * for them at start-up. The entries' `make` and `trueEpsilon` stay synchronous, so the module is
 * loaded beforehand: by `prepareZooEntry` (entries.ts) in a worker, and once by zoo/index.ts for
 * every other importer.
 *
 * @module
 */
type AnalyticGaussian = typeof import('../../accounting/analytic-gaussian.js')

let loaded: AnalyticGaussian | null = null
let loading: Promise<AnalyticGaussian> | null = null

/** Imports the analytic Gaussian module once; later calls return the same promise. */
export const loadAnalyticGaussian = (): Promise<AnalyticGaussian> =>
  (loading ??= import('../../accounting/analytic-gaussian.js').then((m) => (loaded = m)))

/** The loaded module; a programming error (not a user's) if no one loaded it first. */
export const analyticGaussian = (): AnalyticGaussian => {
  if (loaded === null) throw new Error('zoo: the analytic Gaussian is not loaded; import zoo/index.js or await prepareZooEntry(name) first')
  return loaded
}
