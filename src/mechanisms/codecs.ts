/**
 * The JSON codecs of dpaudit/mechanisms, as one namespace value (`Codecs.decodeEvent(json)`,
 * `Codecs.EventCodec`): events, relations and spec documents read and written with io-ts
 * (./codec.ts; its types are exported flat).
 *
 * @module
 */
export { EventCodec, RelationCodec, SpecCodec, decodeEvent, decodeSpec, decodeSpecs, encodeEvent, relationFromText, validateEvent } from './codec.js'
