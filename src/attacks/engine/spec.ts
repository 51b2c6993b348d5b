/**
 * What an audit of a mechanism is asked to do (`AuditSpec`), its defaults, and the checks that turn
 * a spec into the validated configuration every phase reads (`validate`). The audit procedure is in
 * ../audit.ts; its phases in this folder.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { BOUND_METHOD } from '../ratio-bound.js'
import { type AuditClaim, validateClaim } from '../claim.js'
import type { Executor, MechanismRef, SyncExecutor } from '../executor.js'
import type { BlackBox } from '../output.js'
import { isIdenticalPair, MAX_PAIRS, materializePairs, type NeighbourPair, pairViolation, type PairsSource } from '../pairs.js'
import { ATTACK_FAMILIES, type AttackFamily } from '../score.js'
import { selectionFraction } from '../select.js'
import type { SupportOracle } from '../support.js'

export interface AuditProgress {
  readonly phase: 'select' | 'estimate'
  /** Trials finished, including those restored from a checkpoint. */
  readonly trialsDone: number
  readonly trialsTotal: number
  /** Trials restored from a checkpoint (not run in this session). */
  readonly trialsResumed: number
}

export interface AuditSpec<I> {
  /** The mechanism: a function (runs in this thread) or a reference a worker thread can load. */
  readonly mechanism: BlackBox<I> | MechanismRef
  /** Neighbouring pairs to try; the audit picks the most revealing on selection trials. */
  readonly pairs: PairsSource<I>
  readonly claim: AuditClaim
  /** Total mechanism runs: selection (all pairs, both sides) plus estimation (both sides). */
  readonly trials: number
  readonly seed: string | number
  /** Confidence of the lower bound (default 0.95). */
  readonly confidence?: number
  /** A name for reports (default: the zoo name, module export or function name). */
  readonly name?: string
  /** Worker threads (default 1, in this thread; more needs a MechanismRef and the compiled package). */
  readonly workers?: number
  /** Share of trials spent choosing the attack (default 0.2). */
  readonly selectionFraction?: number
  /** Cap on selection trials per pair and side (default 1 000 000): beyond it, trials go to estimation. */
  readonly maxSelectionPerSide?: number
  /** Attack families to try (default: every family that applies to the outputs). */
  readonly families?: ReadonlyArray<AttackFamily>
  /** Trials per work unit (default `autoChunk`: 4 096–65 536 by the trials; fewer for long vector outputs); does not change the result. */
  readonly chunkSize?: number
  /**
   * Memory the selection samples may take (default 1 GiB). Selection keeps its outputs to fit
   * attacks on; estimation streams. Long vector outputs shrink the selection sample to fit, and an
   * audit whose smallest useful selection sample would not fit is refused with a message.
   */
  readonly maxMemoryBytes?: number
  /**
   * Watchdog for worker threads (default 10 minutes): when no chunk of trials finishes for this
   * long, the threads are stopped and the audit ends as `mechanism-failed` with the trials that
   * finished. A mechanism running in this thread (workers: 1 with a function or zoo entry) cannot
   * be interrupted: audit untrusted code on worker threads.
   */
  readonly chunkTimeoutMs?: number
  /** A checkpoint file: written while running, resumed from if it exists and matches this audit. */
  readonly checkpoint?: string
  readonly onProgress?: (p: AuditProgress) => void
  /** Polled between batches of chunks; returning true stops the audit (checkpointed) with status `interrupted`. */
  readonly shouldStop?: () => boolean
  /** Runs the chunks instead of the default executor (testing, custom schedulers). */
  readonly executor?: SyncExecutor
  /**
   * A support oracle, "can this input produce this output?" (support.ts): the exact-support test
   * runs it on the chosen pair's selection outputs. An output impossible on the other input refutes
   * every pure ε with certainty (given a correct oracle). Runs in this thread, whatever the workers.
   */
  readonly support?: SupportOracle<I>
}

/** A spec whose executor may be asynchronous (a queue): what the engine's phases read. */
export type AnyAuditSpec<I> = Omit<AuditSpec<I>, 'executor'> & { readonly executor?: Executor }

export const DEFAULT_CONFIDENCE = 0.95
export const DEFAULT_SELECTION_FRACTION = 0.2
/** The largest chunk (trials per work unit) an audit chooses by itself. */
export const DEFAULT_CHUNK = 65_536
/** The smallest: below it a chunk's message and merge cost more than its trials. */
export const MIN_AUTO_CHUNK = 4_096

/**
 * Trials per chunk when the spec does not say (issue 23): a power of two, small enough that each of
 * up to 16 workers (or `workers`, if more) gets ≥ 16 chunks of every stream — so no single chunk
 * holds up the others at a batch's end — and within [MIN_AUTO_CHUNK, DEFAULT_CHUNK]. Up to 16 workers
 * the chunk depends on the trials only, so a checkpoint resumes whatever the worker count.
 */
export const autoChunk = (trials: number, workers: number): number => {
  const target = trials / (16 * Math.max(16, workers))
  const pow2 = 2 ** Math.floor(Math.log2(Math.max(1, target)))
  return Math.max(MIN_AUTO_CHUNK, Math.min(DEFAULT_CHUNK, pow2))
}
export const DEFAULT_MAX_MEMORY_BYTES = 2 ** 30
/** Largest per-pair, per-side sample of a halving round (deepening may go beyond it). */
export const HALVING_CAP_PER_SIDE = 100_000
/** A selection chunk holds at most this many bytes of outputs (a worker's message). */
export const CHUNK_BYTES = 64 * 2 ** 20
export const DEFAULT_MAX_SELECTION_PER_SIDE = 1_000_000
/** Fewer selection trials per pair and side than this cannot choose an attack. */
export const MIN_SELECTION_PER_SIDE = 50
/** Largest trial index a stream supports. */
export const MAX_TRIALS = 2 ** 32

/**
 * Part of every checkpoint fingerprint: bump it whenever a change to the audit code would give a
 * different result for the same spec, so a checkpoint written by older code is refused.
 */
export const AUDIT_CODE_VERSION = 'audit-7 (issue 23: the joint family’s likelihood ratio monotone in the value within each pattern; the event chosen on cross-fitted scores moves to the whole-sample model by its size; the ratio bound for pure claims, its form chosen in selection; cross-fitted selection scores, selection budget growing as the claim shrinks; issue 12: successive halving capped at 1e5 per side, deepening while resolution-limited, projected objective, bits/joint families)'

export const METHOD = BOUND_METHOD.rates

export const pct = (c: number): string => `${+(c * 100).toPrecision(6)}%`
export const int = (x: number): string => (Number.isFinite(x) ? x.toLocaleString('en-US') : '∞')
export const num = (x: number, d = 3): string => (x === Infinity ? '∞' : Number.isInteger(x) ? String(x) : x.toFixed(d))

export const mechanismName = <I>(spec: AnyAuditSpec<I>): string => {
  if (spec.name !== undefined) return spec.name
  const m = spec.mechanism
  if (typeof m === 'function') return m.name !== '' ? m.name : 'anonymous mechanism'
  return m._tag === 'ZooRef' ? m.name : m.exportName
}

export interface Validated<I> {
  readonly claim: AuditClaim
  readonly confidence: number
  readonly alpha: number
  readonly pairs: ReadonlyArray<NeighbourPair<I>>
  readonly trials: number
  readonly fraction: number
  readonly maxSelection: number
  readonly chunk: number
  readonly families: ReadonlyArray<AttackFamily>
  readonly workers: number
  readonly maxMemory: number
}

export const validate = <I>(spec: AnyAuditSpec<I>): E.Either<DpError, Validated<I>> => {
  const claim = validateClaim(spec.claim)
  if (E.isLeft(claim)) return claim
  const confidence = spec.confidence ?? DEFAULT_CONFIDENCE
  if (!(confidence > 0 && confidence < 1))
    return E.left(invalidParameter('$.confidence', spec.confidence, 'the confidence must be in (0, 1), e.g. 0.95'))
  if (!(Number.isInteger(spec.trials) && spec.trials >= 1 && spec.trials <= MAX_TRIALS))
    return E.left(invalidParameter('$.trials', spec.trials, `the number of trials must be an integer in [1, 2^32]`))
  const fraction = spec.selectionFraction ?? selectionFraction(claim.right.epsilon)
  if (!(fraction > 0 && fraction < 1))
    return E.left(invalidParameter('$.selectionFraction', spec.selectionFraction, 'the selection fraction must be in (0, 1)'))
  const maxSelection = spec.maxSelectionPerSide ?? DEFAULT_MAX_SELECTION_PER_SIDE
  if (!(Number.isInteger(maxSelection) && maxSelection >= MIN_SELECTION_PER_SIDE))
    return E.left(invalidParameter('$.maxSelectionPerSide', spec.maxSelectionPerSide, `the selection cap must be an integer ≥ ${MIN_SELECTION_PER_SIDE}`))
  const chunk = spec.chunkSize ?? autoChunk(spec.trials, spec.workers ?? 1)
  if (!(Number.isInteger(chunk) && chunk >= 1))
    return E.left(invalidParameter('$.chunkSize', spec.chunkSize, 'the chunk size must be a positive integer'))
  if (spec.chunkTimeoutMs !== undefined && !(typeof spec.chunkTimeoutMs === 'number' && spec.chunkTimeoutMs >= 1))
    return E.left(invalidParameter('$.chunkTimeoutMs', spec.chunkTimeoutMs, 'the chunk timeout must be a number of milliseconds ≥ 1'))
  const maxMemory = spec.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES
  if (!(typeof maxMemory === 'number' && maxMemory >= 2 ** 20))
    return E.left(invalidParameter('$.maxMemoryBytes', spec.maxMemoryBytes, 'the memory limit must be a number of bytes ≥ 1 MiB'))
  const workers = spec.workers ?? 1
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 1024))
    return E.left(invalidParameter('$.workers', spec.workers, 'the number of workers must be an integer ≥ 1'))
  const families = spec.families ?? ATTACK_FAMILIES
  const unknown = families.find((f) => !ATTACK_FAMILIES.includes(f))
  if (unknown !== undefined || families.length === 0)
    return E.left(invalidParameter('$.families', spec.families, `attack families are some of ${ATTACK_FAMILIES.join(', ')}`))
  if (typeof spec.seed !== 'string' && !(typeof spec.seed === 'number' && Number.isFinite(spec.seed)))
    return E.left(invalidParameter('$.seed', spec.seed, 'the seed must be a string or a finite number'))
  let pairs: ReadonlyArray<NeighbourPair<I>>
  try {
    pairs = materializePairs(spec.pairs)
  } catch (e) {
    return E.left(invalidParameter('$.pairs', undefined, `the pair generator threw: ${e instanceof Error ? e.message : String(e)}`))
  }
  if (pairs.length === 0) return E.left(invalidParameter('$.pairs', [], 'at least one neighbouring pair is needed'))
  if (pairs.length > MAX_PAIRS) return E.left(invalidParameter('$.pairs', pairs.length, `at most ${MAX_PAIRS} candidate pairs`))
  for (const [i, p] of pairs.entries()) {
    if (typeof p !== 'object' || p === null || !('input' in p) || !('neighbour' in p))
      return E.left(invalidParameter(`$.pairs[${i}]`, p, 'a pair is an object { input, neighbour, label? }'))
    if (isIdenticalPair(p))
      return E.left(
        invalidParameter(`$.pairs[${i}]`, p.input, 'the two inputs of this pair are identical; a neighbouring pair must differ in one unit of privacy, or no attack can tell them apart'),
      )
    // A pair the claim's relation does not allow would test a claim nobody made.
    const bad = pairViolation(claim.right.relation, claim.right.change ?? 1, p)
    if (bad !== null)
      return E.left(invalidParameter(`$.pairs[${i}]`, { input: p.input, neighbour: p.neighbour }, `not neighbours under the claim's relation: ${bad}`))
  }
  return E.right({ claim: claim.right, confidence, alpha: 1 - confidence, pairs, trials: spec.trials, fraction, maxSelection, chunk, families, workers, maxMemory })
}

