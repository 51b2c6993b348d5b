/**
 * dpaudit/mechanisms: the privacy-event algebra (noise mechanisms, stated guarantees, structure),
 * neighbouring relations, the JSON codecs for events and spec documents, and the unit of a private
 * release: measurements (a randomized function with its event) and the release gate that runs them
 * on secret or seeded words and keeps the ledger.
 *
 * The export list is curated (issue 25): the event constructors, relations and codecs as three
 * namespace values (`Events`, `Relations`, `Codecs`), the measurements, the gate and the word sources; the algebra's traversal helpers (children, depth, childPath, absurd,
 * isNoiseEvent), the codec's limits, the relation-direction helpers and PTR's test internals are reached
 * by their module path inside the package only. Every type of the modules below stays exported.
 *
 * @module
 */
export type * from './event.js'
export type * from './neighbouring.js'
export type * from './codec.js'
export type * from './ptr.js'
// the privacy-event algebra's constructors (Events.gaussian, Events.selfCompose, …), the neighbouring
// relations (Relations.addRemove, …) and the JSON codecs (Codecs.decodeEvent, …), each one namespace value
export { SCHEMA_VERSION } from './event.js'
export * as Events from './events.js'
export * as Relations from './relations.js'
export * as Codecs from './codecs.js'
// propose-test-release
export { ptrEvent, ptrMeasurement } from './ptr.js'
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
