/**
 * `dpaudit train ./my-trainer.js ...`: a trainer from a module, as `dpaudit audit module.js` takes a
 * mechanism. The module exports a trainer (the shape is the `Trainer` type's, documented in
 * src/trainers/trainer.ts) as `trainer`, as its default export, or as its default export's
 * `trainer`; it is loaded and checked by ../../trainers/module.ts (a missing member is named),
 * erased, and run through the same steps as a built-in trainer: accounted, its statement printed,
 * its model file written.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type AnyTrainer, erase } from '../../trainers/erase.js'
import { importTrainerModule } from '../../trainers/module.js'
import type { Trainer } from '../../trainers/trainer.js'
import { type CommandResult, EXIT } from './result.js'
import { runTrainCli, trainUsage } from './train.js'

/** The module's trainer, erased for `dpaudit train`. */
export const loadTrainerModule = async (path: string): Promise<E.Either<string, AnyTrainer>> => E.map((t: Trainer<unknown, unknown>) => erase(t))(await importTrainerModule(path))

/** `dpaudit train ./module.js ...`. */
export const runTrainModule = async (argv: ReadonlyArray<string>): Promise<CommandResult> => {
  const [path, ...rest] = argv
  if (path === undefined) return { code: EXIT.input, stderr: 'train: a module path is required' }
  const trainer = await loadTrainerModule(path)
  if (E.isLeft(trainer)) return { code: EXIT.input, stderr: trainer.left }
  return runTrainCli(rest, trainer.right)
}

/** `dpaudit train ./module.js --help`: the usage with the module's own flags (or what the module lacks). */
export const trainModuleUsage = async (path: string): Promise<CommandResult> => {
  const trainer = await loadTrainerModule(path)
  return E.isLeft(trainer) ? { code: EXIT.input, stderr: trainer.left } : { code: EXIT.ok, stdout: trainUsage([trainer.right]) }
}
