/**
 * A trainer from a module file (issue 25): what `dpaudit train ./my-trainer.js`, a trainer-audit
 * file naming a plug-in, and a queue worker serving that audit all load. The module exports a
 * trainer (the shape is the `Trainer` type's, src/trainers/trainer.ts) as `trainer`, as its default
 * export, or as its default export's `trainer`; it is checked member by member (a missing one is
 * named). One loader, so a queued audit's workers take exactly what the local audit takes.
 *
 * @module
 */
import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import type { Trainer } from './trainer.js'

const FUNCTIONS = ['validate', 'schedule', 'claimed', 'assumptions', 'fit', 'iterations'] as const

/** The members a trainer module's export must have, each named when missing. */
const missingMember = (x: Record<string, unknown>): string | undefined => {
  if (typeof x['name'] !== 'string' || x['name'] === '') return 'name (a string)'
  if (typeof x['description'] !== 'string') return 'description (a string)'
  const config = x['config']
  if (typeof config !== 'object' || config === null || typeof (config as { decode?: unknown }).decode !== 'function') return 'config (an io-ts codec)'
  if (typeof x['defaults'] !== 'object' || x['defaults'] === null) return 'defaults (an object)'
  for (const f of FUNCTIONS)
    if (typeof x[f] !== 'function') return f === 'schedule' && typeof x['plan'] === 'function' ? 'schedule (a function: the plan is derived from the schedule, not declared beside it)' : `${f} (a function)`
  for (const r of ['relation', 'accountingRelation']) if (typeof x[r] !== 'object' || x[r] === null) return `${r} (a neighbouring relation)`
  if (!Array.isArray(x['flags'])) return 'flags (an array of { flag, field, ... })'
  if (!Array.isArray(x['releases'])) return 'releases (an array)'
  if (x['workers'] !== undefined && typeof x['workers'] !== 'string') return 'workers (a string saying what --workers W does for it, or absent)'
  const model = x['model']
  if (typeof model !== 'object' || model === null || typeof (model as { fields?: unknown }).fields !== 'function' || typeof (model as { metric?: unknown }).metric !== 'string')
    return 'model ({ fields, metric, kind?, evaluate? })'
  return undefined
}

const isTrainer = (x: unknown): x is Trainer<unknown, unknown> => typeof x === 'object' && x !== null && missingMember(x as Record<string, unknown>) === undefined

const record = (x: unknown): Record<string, unknown> => (typeof x === 'object' && x !== null ? (x as Record<string, unknown>) : {})

/**
 * Imports the module at `path` (a file path, or a `file:` URL) and finds its trainer, or says what
 * is wrong with it (each message starts with `command`).
 */
export const importTrainerModule = async (path: string, command = 'train'): Promise<E.Either<string, Trainer<unknown, unknown>>> => {
  const file = path.startsWith('file:') ? fileURLToPath(path) : resolve(path)
  if (!existsSync(file) || !statSync(file).isFile()) return E.left(`${command}: ${path}: no such module (a trainer module is a .js or .mjs file)`)
  let mod: Record<string, unknown>
  try {
    mod = record(await import(pathToFileURL(file).href))
  } catch (e) {
    return E.left(`${command}: ${path}: cannot import the module: ${e instanceof Error ? e.message : String(e)}`)
  }
  const candidates = [mod['trainer'], mod['default'], record(mod['default'])['trainer']]
  const found = candidates.find(isTrainer)
  if (found !== undefined) return E.right(found)
  const shaped = candidates.find((c) => typeof c === 'object' && c !== null)
  return E.left(
    shaped === undefined
      ? `${command}: ${path}: the module exports no trainer (export one as \`trainer\` or as the default export; its shape is the Trainer type of dpaudit/trainers)`
      : `${command}: ${path}: the exported trainer has no ${missingMember(record(shaped)) ?? 'valid shape'}`,
  )
}
