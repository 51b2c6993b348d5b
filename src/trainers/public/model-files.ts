/**
 * Model files (what `dpaudit train` writes and `dpaudit evaluate` reads), as one namespace value of
 * dpaudit/trainers: `ModelFiles.writeModelFile(file, m)`, `ModelFiles.readModelFile(file)`,
 * `ModelFiles.decodeModelFile(json)` and the io-ts `ModelFiles.ModelFileCodec` (../model-file.ts; the
 * ModelFile, TrainedFile and LoadedModel types are exported flat).
 *
 * @module
 */
export { writeModelFile, readModelFile, decodeModelFile, ModelFileCodec } from '../model-file.js'
