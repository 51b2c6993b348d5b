/**
 * A trainer plug-in's command-line flags, as one namespace value of dpaudit/trainers:
 * `Flags.numericFlag(flag, field, meta)` declares one, `Flags.flagNumber(flag, raw)` parses its value
 * (../flags.ts; the TrainerFlag type is exported flat).
 *
 * @module
 */
export { flagNumber, numericFlag } from '../flags.js'
