/**
 * Phase 4 of a mechanism audit, estimation: fresh trials of the chosen pair (streams of phase
 * "estimate"), each side's scores counted against the selection's score grid. Chunks restored from
 * a checkpoint are not run again; every finished chunk is checkpointed (at most once a second).
 *
 * @module
 */
import { certifiableCeiling } from '../bounds.js'
import type { EstimationChunkRecord, SelectionOutcome } from '../checkpoint.js'
import type { AuditStatus } from '../result.js'
import type { EstimateChunkResult } from '../trials.js'
import { chunkTasks, type EstimationTotals, sumEstimation } from './merge.js'
import { int, num, pct } from './spec.js'
import { type AuditState, type AuditSteps, runBatches, saveCheckpoint } from './state.js'

/** Sets the estimation size from what selection left over, and notes a run that cannot certify the claim. */
export const planEstimation = <I>(st: AuditState<I>, selection: SelectionOutcome): void => {
  const { claim, alpha, trials, confidence } = st.cfg
  st.estPerSide = Math.floor((trials - selection.trials) / 2)
  st.ceiling = st.estPerSide >= 1 ? certifiableCeiling(st.estPerSide, claim.delta, alpha) : 0
  st.progress.trialsTotal = selection.trials + 2 * st.estPerSide
  if (st.ceiling <= claim.epsilon)
    st.issues.push({
      _tag: 'TooFewTrials',
      message: `${int(st.estPerSide)} estimation trials per side can certify at most ε = ${num(st.ceiling)} at ${pct(confidence)} confidence, not more than the claimed ${claim.epsilon}; ${int(st.budget.forCeiling)} trials in all would be needed`,
    })
}

/** Phase 4: runs the estimation chunks not yet done; returns the totals and how the run ended. */
export function* estimationPhase<I>(st: AuditState<I>, sel: SelectionOutcome): AuditSteps<{ readonly status: AuditStatus; readonly totals: EstimationTotals }> {
  const records: EstimationChunkRecord[] = [...(st.restored?.estimation ?? [])]
  const doneIds = new Set(records.map((r) => r.id))
  for (const r of records) st.progress.trialsDone += r.completed
  if (st.restored !== null) st.progress.trialsResumed = st.progress.trialsDone
  const base = { phase: 'estimate' as const, pair: sel.pair, seed: st.seed, attack: sel.attack, grid: sel.grid }
  const tasks = chunkTasks(0, { ...base, side: 0 }, st.estPerSide, st.cfg.chunk)
  tasks.push(...chunkTasks(tasks.length, { ...base, side: 1 }, st.estPerSide, st.cfg.chunk))
  // A failure already recorded ends the run: later chunks of that side would not count.
  const failedBefore = sumEstimation(records, sel.grid.length, sel.pair).failure
  const todo = failedBefore === null ? tasks.filter((t) => !doneIds.has(t.id)) : []
  st.spec.onProgress?.({ phase: 'estimate', ...st.progress })
  const ran = yield* runBatches(
    st,
    'estimate',
    todo,
    (r) => {
      if (r.phase !== 'estimate') return
      const e = r as EstimateChunkResult
      records.push({ id: e.id, side: e.side, start: e.start, completed: e.completed, counts: Array.from(e.counts), failure: e.failure })
    },
    () => saveCheckpoint(st, sel, records, false),
  )
  saveCheckpoint(st, sel, records, true)
  const totals = sumEstimation(records, sel.grid.length, sel.pair)
  if (totals.failure !== null) {
    st.issues.push(totals.failure)
    return { status: 'mechanism-failed', totals }
  }
  if (ran === 'stopped') {
    st.issues.push({ _tag: 'Interrupted', message: `stopped after ${int(st.progress.trialsDone)} of ${int(st.progress.trialsTotal)} trials` })
    return { status: 'interrupted', totals }
  }
  if (ran !== 'done') {
    st.issues.push({ _tag: 'WorkerFailed', message: ran, phase: 'estimate' })
    return { status: 'mechanism-failed', totals }
  }
  return { status: 'complete', totals }
}
