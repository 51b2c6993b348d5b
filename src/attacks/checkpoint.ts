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
import { BOUND_FORMS, type BoundForm } from './ratio-bound.js'
import type { TrialFailure } from './output.js'
import type { AttackFamily, ChosenAttack } from './score.js'
import type { SupportTest } from './support.js'

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
  /** The largest selection sample of one pair and side (successive halving gives pairs different sizes). */
  readonly perPairPerSide?: number
  /** The exact-support test on the chosen pair's selection outputs, when the audit has an oracle. */
  readonly support?: SupportTest
  /** The bound the estimate uses (bounds.ts `boundFromCounts`); absent: `rates`. */
  readonly bound?: BoundForm
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
  /**
   * SHA-256 of the fingerprint and the contents: a checkpoint edited by hand (or corrupted) no
   * longer matches and is refused. It detects edits, not a forger who recomputes it — a checkpoint
   * is the user's own file, not a signed statement.
   */
  readonly digest?: string
}

/** The digest a checkpoint's contents must carry. */
export const checkpointDigest = (c: Pick<Checkpoint, 'fingerprint' | 'selection' | 'estimation'>): string =>
  fingerprint({ fingerprint: c.fingerprint, selection: c.selection, estimation: c.estimation })

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0

/**
 * Why a checkpoint that matches an audit's fingerprint still cannot be resumed, or null: its digest
 * does not match its contents, or its numbers are impossible (negative or fractional counts, counts
 * that do not sum to the trials a chunk completed, chunks past the end of their stream, a selection
 * for a pair that does not exist). A tampered checkpoint must never turn a violation into
 * "consistent" (issue 12).
 */
export const checkpointProblem = (c: Checkpoint, limits: { readonly pairs: number; readonly trials: number }): string | null => {
  if (c.digest !== checkpointDigest(c)) return 'its digest does not match its contents (edited or corrupted)'
  const sel = c.selection
  if (sel !== null) {
    if (typeof sel !== 'object' || !Number.isInteger(sel.pair) || sel.pair < 0 || sel.pair >= limits.pairs) return 'its selection names a pair that does not exist'
    if (!isCount(sel.trials) || sel.trials > limits.trials) return 'its selection trial count is impossible'
    if (!Array.isArray(sel.grid) || sel.grid.length === 0 || sel.grid.some((x, i) => typeof x !== 'number' || (i > 0 && x <= (sel.grid[i - 1] as number))))
      return 'its score grid is not a strictly increasing list of numbers'
    if (sel.bound !== undefined && !BOUND_FORMS.includes(sel.bound)) return `its bound form ${JSON.stringify(sel.bound)} is not one of ${BOUND_FORMS.join(', ')}`
  } else if (c.estimation.length > 0) return 'it has estimation counts but no selection'
  const perSide = sel === null ? 0 : Math.floor((limits.trials - sel.trials) / 2)
  const ids = new Set<number>()
  for (const [i, r] of c.estimation.entries()) {
    const at = `estimation record ${i}`
    if (typeof r !== 'object' || r === null || !isCount(r.id) || (r.side !== 0 && r.side !== 1) || !isCount(r.start) || !isCount(r.completed))
      return `${at} is malformed`
    if (ids.has(r.id)) return `${at} repeats chunk ${r.id}`
    ids.add(r.id)
    if (r.start + r.completed > perSide) return `${at} runs past the end of its stream (${r.start + r.completed} > ${perSide} trials per side)`
    if (!Array.isArray(r.counts) || r.counts.length !== (sel?.grid.length ?? 0) + 1) return `${at} has ${Array.isArray(r.counts) ? r.counts.length : 'no'} counts, not one per grid bin`
    let sum = 0
    for (const k of r.counts) {
      if (!isCount(k)) return `${at} has a count that is not a non-negative integer (${String(k)})`
      sum += k
    }
    if (sum !== r.completed) return `${at}: its counts sum to ${sum}, not to the ${r.completed} trials it completed`
  }
  return null
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
  const w = writeFileAtomic(file, encodeJson({ ...c, digest: checkpointDigest(c) }), { deferSignals: false })
  return E.isLeft(w) ? `cannot write the checkpoint: ${formatError(w.left)}` : null
}
