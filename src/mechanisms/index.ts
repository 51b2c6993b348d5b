/**
 * dpaudit/mechanisms: the privacy-event algebra (noise mechanisms, stated guarantees, structure),
 * neighbouring relations, the JSON codecs for events and spec documents, and the unit of a private
 * release: measurements (a randomized function with its event) and the release gate that runs them
 * on secret or seeded words and keeps the ledger.
 *
 * @module
 */
export * from './event.js'
export * from './neighbouring.js'
export * from './codec.js'
export * from './ptr.js'
export {
  type Measurement,
  type TableSensitivity,
  type Sampling,
  discreteLaplaceTable,
  type TableNoise,
  type TableNoiser,
  discreteLaplaceTableEvent,
  discreteGaussianTable,
  discreteGaussianTableEvent,
  gaussianVector,
  miniBatchRelease,
  samplingEvent,
  randomizedStep,
  unprotected,
} from './measurement.js'
export { type Declared, type Schedule, declared, schedulePlan, compositionAtoms, sameComposition } from './schedule.js'
export { ReleaseGate, type GateOptions, type ReleaseRecord, DIAGNOSTICS_ASKED } from './gate.js'
export { type RandomWords, WordStream, secureWords, seededWords, wordsFromRng } from '../core/words.js'
