/**
 * Reading a trainer's flag values (`Trainer.fromFlags`): a number, or a message naming the flag.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { TrainerFlag } from './trainer.js'

/** The number `--flag` gives, undefined when absent, or a message naming the flag and the value. */
export const flagNumber = (flag: string, raw: unknown): E.Either<string, number | undefined> => {
  if (raw === undefined) return E.right(undefined)
  const x = Number(raw)
  return typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(x) ? E.right(x) : E.left(`--${flag}: "${String(raw)}" is not a number`)
}

/** A numeric flag setting config field `field` (its default shown from the trainer's defaults). */
export const numericFlag = (flag: string, field: string, meta: string, note?: string): TrainerFlag => ({ flag, field, meta, ...(note === undefined ? {} : { note }) })
