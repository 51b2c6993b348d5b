/**
 * The state record of a mechanism audit and its first two phases (issue 23):
 *
 * - `budgetPhase`: how the trials split between selection and estimation, what the run can certify
 *   (its ceiling) and how many trials a conclusive run would need; or the reason it is not worth
 *   running.
 * - `resumePhase`: the audit's fingerprint and the checkpoint to resume from, if any.
 *
 * Later phases (selection.ts, estimation.ts, verdict.ts) read and update the same record; its
 * mutable fields are the progress counters, the issues and the estimation plan.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { certifiableCeiling, trialsForCeiling } from '../bounds.js'
import { type Checkpoint, checkpointProblem, type EstimationChunkRecord, fingerprint, readCheckpoint, type SelectionOutcome, writeCheckpoint } from '../checkpoint.js'
import type { BatchOutcome, Steps } from '../executor.js'
import type { AuditIssue } from '../result.js'
import type { FitRunner } from '../search.js'
import type { ChunkResult, ChunkTask } from '../trials.js'
import { type AnyAuditSpec, AUDIT_CODE_VERSION, int, MIN_SELECTION_PER_SIDE, pct, type Validated } from './spec.js'

/** How the trials are spent: the selection budget, estimation per side, and what they can certify. */
export interface Budget {
  /** Selection trials per pair and side before successive halving redistributes them. */
  readonly selPerSide: number
  readonly selectionBudget: number
  readonly estPerSide: number
  readonly ceiling: number
  /** Total trials for the ceiling to exceed the claim. */
  readonly forCeiling: number
  /** Total trials for `perSide` estimation trials per side (and enough selection trials). */
  readonly totalFor: (perSide: number) => number
}

export type BudgetOutcome = { readonly _tag: 'run'; readonly budget: Budget } | { readonly _tag: 'too-few'; readonly budget: Budget; readonly needed: number; readonly message: string }

/** Phase 1: the split of the trials (as before issue 12: `fraction` of them, at most maxSelection per pair and side). */
export const budgetPhase = <I>(cfg: Validated<I>): BudgetOutcome => {
  const { claim, alpha, pairs, trials, fraction } = cfg
  const P = pairs.length
  const delta = claim.delta
  // Successive halving spends the selection budget unevenly (more on promising pairs) and may stop
  // early; estimation gets whatever selection leaves.
  const selPerSide = Math.min(cfg.maxSelection, Math.floor((trials * fraction) / (2 * P)))
  const selectionBudget = selPerSide * 2 * P
  const estPerSide = Math.floor((trials - selectionBudget) / 2)
  const ceiling = estPerSide >= 1 ? certifiableCeiling(estPerSide, delta, alpha) : 0
  const nCeil = trialsForCeiling(claim.epsilon, delta, alpha)
  const totalFor = (perSide: number): number => {
    if (!Number.isFinite(perSide)) return Infinity
    const minTotal = Math.ceil((2 * P * MIN_SELECTION_PER_SIDE) / fraction)
    const uncapped = Math.ceil((2 * perSide) / (1 - fraction))
    return Math.max(minTotal, Math.floor((uncapped * fraction) / (2 * P)) > cfg.maxSelection ? 2 * perSide + 2 * P * cfg.maxSelection : uncapped)
  }
  const budget: Budget = { selPerSide, selectionBudget, estPerSide, ceiling, forCeiling: totalFor(nCeil), totalFor }
  if (selPerSide >= MIN_SELECTION_PER_SIDE && ceiling > 0) return { _tag: 'run', budget }
  const needed = Math.max(budget.forCeiling, totalFor(MIN_SELECTION_PER_SIDE))
  const message =
    selPerSide < MIN_SELECTION_PER_SIDE
      ? `${int(trials)} trials leave ${int(selPerSide)} selection trials per side for each of ${P} pair${P === 1 ? '' : 's'}; at least ${MIN_SELECTION_PER_SIDE} are needed to choose an attack, so at least ${int(needed)} trials in all`
      : `${int(trials)} trials cannot certify any ε > 0 at ${pct(cfg.confidence)} confidence; at least ${int(needed)} trials are needed to test ε = ${claim.epsilon}`
  return { _tag: 'too-few', budget, needed, message }
}

/** Phase 2: the fingerprint of everything that determines the result, and the checkpoint that matches it. */
export const resumePhase = <I>(spec: AnyAuditSpec<I>, cfg: Validated<I>, name: string): E.Either<DpError, { readonly fingerprint: string; readonly restored: Checkpoint | null }> => {
  const fp = fingerprint({
    v: 2,
    code: AUDIT_CODE_VERSION,
    mechanism: typeof spec.mechanism === 'function' ? { fn: name, source: spec.mechanism.toString() } : spec.mechanism,
    pairs: cfg.pairs.map((p) => [p.input, p.neighbour]),
    claim: cfg.claim,
    trials: cfg.trials,
    seed: String(spec.seed),
    confidence: cfg.confidence,
    fraction: cfg.fraction,
    maxSelection: cfg.maxSelection,
    chunk: cfg.chunk,
    families: cfg.families,
  })
  if (spec.checkpoint === undefined) return E.right({ fingerprint: fp, restored: null })
  const c = readCheckpoint(spec.checkpoint)
  if (E.isLeft(c)) return c
  if (c.right !== null && c.right.fingerprint !== fp)
    return E.left(
      invalidParameter('$.checkpoint', spec.checkpoint, 'this checkpoint belongs to a different audit (mechanism, pairs, claim, trials, seed or options differ); delete it or name another file'),
    )
  if (c.right !== null) {
    const problem = checkpointProblem(c.right, { pairs: cfg.pairs.length, trials: cfg.trials })
    if (problem !== null) return E.left(invalidParameter('$.checkpoint', spec.checkpoint, `this checkpoint cannot be resumed: ${problem}; delete it to start the audit afresh`))
  }
  return E.right({ fingerprint: fp, restored: c.right })
}

/** Everything the phases after the budget share. */
export interface AuditState<I> {
  readonly spec: AnyAuditSpec<I>
  readonly cfg: Validated<I>
  readonly name: string
  /** The audit seed's 64-bit hash. */
  readonly seed: readonly [number, number]
  readonly budget: Budget
  readonly fingerprint: string
  readonly restored: Checkpoint | null
  /** Tasks in the first batch (every batch on one runner): between batches the audit checkpoints, reports progress and may stop. */
  readonly batchSize: number
  /** Runners of the executor: with more than one, batches are sized by time (`runBatches`). */
  readonly workers: number
  /** The executor takes a phase's tasks as one batch (`Executor.streams`). */
  readonly streams: boolean
  readonly issues: AuditIssue[]
  /** Progress: trials finished (resumed included), expected in all, and restored from a checkpoint. */
  readonly progress: { trialsDone: number; trialsTotal: number; trialsResumed: number }
  /** Largest selection sample of one pair and side (successive halving gives pairs different sizes). */
  selPerPairSide: number
  /** Estimation trials per side (what selection left) and what they can certify. */
  estPerSide: number
  ceiling: number
  lastWrite: number
  /** Where selection's family fits run: the executor's worker threads, or this thread. */
  readonly fit: FitRunner
}

export const initialState = <I>(
  spec: AnyAuditSpec<I>,
  cfg: Validated<I>,
  parts: { readonly name: string; readonly seed: readonly [number, number]; readonly budget: Budget; readonly fingerprint: string; readonly restored: Checkpoint | null; readonly workers: number; readonly streams: boolean; readonly fit: FitRunner },
): AuditState<I> => ({
  spec,
  cfg,
  ...parts,
  batchSize: Math.max(4, 4 * parts.workers),
  issues: [],
  progress: { trialsDone: 0, trialsTotal: parts.budget.selectionBudget + parts.budget.estPerSide * 2, trialsResumed: 0 },
  selPerPairSide: parts.budget.selPerSide,
  estPerSide: parts.budget.estPerSide,
  ceiling: parts.budget.ceiling,
  lastWrite: 0,
})

/** Writes the checkpoint (at most once a second unless forced); a failed write becomes an issue, once. */
export const saveCheckpoint = <I>(st: AuditState<I>, selection: SelectionOutcome | null, estimation: ReadonlyArray<EstimationChunkRecord>, force: boolean): void => {
  const file = st.spec.checkpoint
  if (file === undefined) return
  const now = Date.now()
  if (!force && now - st.lastWrite < 1000) return
  st.lastWrite = now
  const err = writeCheckpoint(file, { kind: 'dpaudit-audit-checkpoint', version: 1, fingerprint: st.fingerprint, selection, estimation })
  if (err !== null && !st.issues.some((i) => i._tag === 'CheckpointFailed')) st.issues.push({ _tag: 'CheckpointFailed', message: err })
}

/** Audit steps: batches of chunk tasks out, their outcomes in. */
export type AuditSteps<A> = Steps<ChunkTask, ChunkResult, A>

/** What a batch should last (ms): between batches the audit checkpoints (at most once a second) and reports progress. */
export const BATCH_TARGET_MS = 1000

/**
 * Runs tasks in batches; after each batch counts the trials, calls `afterBatch` (a checkpoint) and
 * reports progress, and between batches honours `shouldStop` (worker threads also ask it within a
 * batch). Batches are `batchSize` tasks on one runner; on several, later batches are sized from the
 * time a task took so that a batch lasts about BATCH_TARGET_MS (issue 23: each batch ends at a
 * barrier where the workers wait for its last chunk, so few long batches keep them busy). An
 * executor that streams (`Executor.streams`: worker threads) gets every task in one batch, and the
 * trials are counted, `afterBatch` called and progress reported from its results as they come, at
 * most every BATCH_TARGET_MS. Batch sizes never change a result: trials are seeded by index and
 * merged in trial order. Returns 'done', 'stopped', or the executor's error message.
 */
export function* runBatches<I>(
  st: AuditState<I>,
  phase: 'select' | 'estimate',
  tasks: ReadonlyArray<ChunkTask>,
  onResult: (r: ChunkResult) => void,
  afterBatch: () => void,
): AuditSteps<'done' | 'stopped' | string> {
  let size = st.streams ? tasks.length : st.batchSize
  const take = (r: ChunkResult): void => {
    st.progress.trialsDone += r.completed
    onResult(r)
  }
  let reported = Date.now()
  const each = (r: ChunkResult): void => {
    take(r)
    if (Date.now() - reported < BATCH_TARGET_MS) return
    reported = Date.now()
    afterBatch()
    st.spec.onProgress?.({ phase, ...st.progress })
  }
  for (let b = 0; b < tasks.length; ) {
    const batch = tasks.slice(b, b + size)
    const t0 = Date.now()
    const out: BatchOutcome<ChunkResult> = yield st.streams ? { tasks: batch, each } : batch
    const ms = Date.now() - t0
    if (!st.streams) for (const r of out.results) take(r)
    afterBatch()
    st.spec.onProgress?.({ phase, ...st.progress })
    if (out.error !== null) return out.error
    b += batch.length
    // A batch cut short by a stop, or a stop asked for before the next batch.
    if ((out.results.length < batch.length || b < tasks.length) && st.spec.shouldStop?.() === true) return 'stopped'
    if (st.workers > 1) size = Math.max(st.batchSize, Math.min(64 * st.batchSize, Math.round((BATCH_TARGET_MS * batch.length) / Math.max(ms, 1))))
  }
  return 'done'
}
