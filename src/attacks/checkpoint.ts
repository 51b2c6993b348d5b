/**
 * Checkpoints for long audits. A checkpoint holds the outcome of the selection phase (the chosen
 * attack and its score grid) and the per-chunk counts of every finished estimation chunk, keyed
 * by a fingerprint of everything that determines the result (mechanism, pairs, claim, trials,
 * seed, confidence, options). Because each trial's randomness depends only on its index, resuming
 * recomputes exactly the missing chunks and yields the result an uninterrupted run would have.
 *
 * Files are written atomically (core/atomic-file.ts: temporary file, then rename; through symbolic
 * links; never over a directory or a special file). Non-finite numbers are encoded as
 * `{"$nonfinite": "Infinity"}` so that no string value can be mistaken for one.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { writeFileAtomic } from '../core/atomic-file.js'
import { type DpError, decodeFailure, formatError } from '../core/error.js'
import type { TrialFailure } from './output.js'
import type { AttackFamily, ChosenAttack } from './score.js'

/** What the selection phase decided, enough to run the estimation phase. */
export interface SelectionOutcome {
  readonly pair: number
  readonly family: AttackFamily
  readonly attack: ChosenAttack
  /** Sorted thresholds at which estimation counts scores; contains attack.threshold. */
  readonly grid: ReadonlyArray<number>
  /** ε̂ at Wilson upper bounds on the tuning half (the selection objective). */
  readonly tuneEpsilon: number
  readonly candidates: ReadonlyArray<CandidateSummary>
  /** Selection trials run (both sides, all pairs). */
  readonly trials: number
}

/** One (pair, family) tried in selection, with its objective on the tuning half. */
export interface CandidateSummary {
  readonly pair: number
  readonly label: string
  readonly family: AttackFamily
  readonly tuneEpsilon: number
  readonly advantage: number
}

export interface EstimationChunkRecord {
  readonly id: number
  readonly side: 0 | 1
  readonly start: number
  readonly completed: number
  readonly counts: ReadonlyArray<number>
  readonly failure: TrialFailure | null
}

export interface Checkpoint {
  readonly kind: 'dpaudit-audit-checkpoint'
  readonly version: 1
  readonly fingerprint: string
  readonly selection: SelectionOutcome | null
  readonly estimation: ReadonlyArray<EstimationChunkRecord>
}

const NONFINITE = '$nonfinite'

/** JSON text in which ±∞ and NaN survive a round trip. */
export const encodeJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v)) return { [NONFINITE]: String(v) }
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>)
    return v
  })

export const decodeJson = (text: string): unknown =>
  JSON.parse(text, (_k, v: unknown) => {
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && NONFINITE in v) {
      const s = (v as Record<string, unknown>)[NONFINITE]
      return s === 'Infinity' ? Infinity : s === '-Infinity' ? -Infinity : Number.NaN
    }
    return v
  })

/** SHA-256 of the canonical encoding of everything that determines an audit's result. */
export const fingerprint = (parts: unknown): string => createHash('sha256').update(encodeJson(parts)).digest('hex')

/** Reads a checkpoint; Right(null) if the file does not exist. */
export const readCheckpoint = (file: string): E.Either<DpError, Checkpoint | null> => {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return E.right(null)
    return E.left(decodeFailure('$.checkpoint', file, `cannot read the checkpoint (${(e as NodeJS.ErrnoException).code ?? String(e)})`))
  }
  let u: unknown
  try {
    u = decodeJson(text)
  } catch (e) {
    return E.left(decodeFailure('$.checkpoint', file, `the checkpoint is not valid JSON (${e instanceof Error ? e.message : String(e)})`))
  }
  const c = u as Partial<Checkpoint>
  if (typeof u !== 'object' || u === null || c.kind !== 'dpaudit-audit-checkpoint' || c.version !== 1 || typeof c.fingerprint !== 'string' || !Array.isArray(c.estimation))
    return E.left(decodeFailure('$.checkpoint', file, 'not a dpaudit audit checkpoint (version 1)'))
  return E.right(c as Checkpoint)
}

/** Writes a checkpoint atomically; returns an error message on failure. */
export const writeCheckpoint = (file: string, c: Checkpoint): string | null => {
  // checkpoints are written in the middle of a long synchronous audit: an interrupt must stop it
  // at once (that is what checkpoints are for), so signals are not deferred to the write's end
  const w = writeFileAtomic(file, encodeJson(c), { deferSignals: false })
  return E.isLeft(w) ? `cannot write the checkpoint: ${formatError(w.left)}` : null
}
