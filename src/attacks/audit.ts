/**
 * `auditMechanism`: a black-box audit of a mechanism given as code. An accountant bounds ε from
 * above; an audit bounds it from below, with a stated confidence, by what an attacker can
 * actually distinguish between neighbouring inputs.
 *
 * Procedure (the Clopper–Pearson audit of Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021):
 * 1. Selection. For every candidate pair, run the mechanism on both inputs; fit each applicable
 *    attack family on the first half of those trials and choose the event {σ·score ≥ t} on the
 *    second half. Keep the best (pair, family, event).
 * 2. Estimation. On fresh trials of the chosen pair (new random streams), count false positives
 *    (neighbour's outputs in the event) and false negatives (input's outputs outside it).
 * 3. Bound. ε_LB = max{0, ln((1−δ−FPR_hi)/FNR_hi), ln((1−δ−FNR_hi)/FPR_hi)} with FPR_hi, FNR_hi the
 *    one-sided Clopper–Pearson upper bounds at α/2 each, so ε_LB ≤ ε holds with probability ≥ 1−α
 *    for every (ε, δ)-DP mechanism (union bound over the two rates; Kairouz, Oh & Viswanath 2015).
 * 4. Verdict. `violation` if ε_LB > claimed ε; `inconclusive` if the run could not have certified
 *    more than the claim (its ceiling ≤ ε) or did not finish; `consistent` otherwise.
 *
 * Every random choice comes from the audit seed: trial i of (phase, pair, side) has its own stream,
 * so the result is the same for any chunking and any number of workers.
 *
 * The engine (issue 23): `drive` composes five phases over one state record (engine/): budget,
 * resume, selection, estimation, verdict. Selection and estimation are generators that yield
 * batches of chunk tasks; `runSteps` runs them on a synchronous executor (this thread, worker
 * threads) and `runStepsAsync` on any executor (a BullMQ queue), so every executor runs the same
 * procedure and gives the same answer.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../core/error.js'
import type { SelectionOutcome } from './checkpoint.js'
import { type Executor, inProcessExecutor, runSteps, runStepsAsync, type SyncExecutor, zooMechanism } from './executor.js'
import { estimationPhase, planEstimation } from './engine/estimation.js'
import { selectionPhase } from './engine/selection.js'
import { type AnyAuditSpec, type AuditSpec, int, mechanismName, validate, type Validated } from './engine/spec.js'
import { type AuditSteps, budgetPhase, initialState, resumePhase, saveCheckpoint } from './engine/state.js'
import { tooFewTrialsResult, verdictPhase } from './engine/verdict.js'
import type { BlackBox } from './output.js'
import { acquireWorkerPool } from './pool.js'
import { fitInline } from './search.js'
import type { AuditResult } from './result.js'
import type { AuditClaim } from './claim.js'
import { hashSeed } from './stream.js'
import { ZOO_NAMES, zooEntry } from './zoo/index.js'

export type { AnyAuditResult, AttackReport, AuditIssue, AuditIssueTag, AuditResult, AuditStatus, AuditSubject, GdpTest, AuditVerdict } from './result.js'
export {
  AUDIT_CODE_VERSION,
  type AnyAuditSpec,
  type AuditProgress,
  type AuditSpec,
  DEFAULT_CHUNK,
  DEFAULT_CONFIDENCE,
  DEFAULT_MAX_MEMORY_BYTES,
  DEFAULT_MAX_SELECTION_PER_SIDE,
  DEFAULT_SELECTION_FRACTION,
  MAX_TRIALS,
  METHOD,
  MIN_SELECTION_PER_SIDE,
} from './engine/spec.js'

/** The executor an audit runs on when the spec names none: this thread, or a pool of worker threads. */
const defaultExecutor = <I>(spec: AnyAuditSpec<I>, cfg: Validated<I>): E.Either<DpError, SyncExecutor> => {
  if (typeof spec.mechanism === 'function') {
    if (cfg.workers > 1)
      return E.left(
        invalidParameter('$.workers', cfg.workers, 'a mechanism given as a function runs in this thread; to use worker threads pass a MechanismRef ({ _tag: "ModuleRef", url, exportName } or a zoo name)'),
      )
    return E.right(inProcessExecutor(spec.mechanism, cfg.pairs))
  }
  if (spec.mechanism._tag === 'ZooRef' && cfg.workers === 1) {
    const m = zooMechanism(spec.mechanism.name, spec.mechanism.claim)
    if (typeof m === 'string') return E.left(invalidParameter('$.mechanism.name', spec.mechanism.name, m))
    return E.right(inProcessExecutor(m as BlackBox<I>, cfg.pairs))
  }
  return acquireWorkerPool(spec.mechanism, cfg.pairs, cfg.workers, spec.chunkTimeoutMs === undefined ? {} : { chunkTimeoutMs: spec.chunkTimeoutMs })
}

/**
 * Audits a mechanism against a claim. Left for input that cannot be audited (invalid claim,
 * identical pair, bad options, worker pool unavailable); otherwise a result, marked with its
 * status, that keeps every trial that ran — a mechanism that throws or returns NaN stops the run
 * with status `mechanism-failed`, never with an exception. The executor, if given, must be
 * synchronous (`auditMechanismAsync` takes any).
 */
export const auditMechanism = <I>(spec: AuditSpec<I>): E.Either<DpError, AuditResult> => {
  const v = validate(spec)
  if (E.isLeft(v)) return v
  const executor = spec.executor === undefined ? defaultExecutor(spec, v.right) : E.right(spec.executor)
  if (E.isLeft(executor)) return executor
  try {
    return runSteps(drive(spec, v.right, executor.right), executor.right, spec.shouldStop)
  } finally {
    if (spec.executor === undefined) executor.right.close()
  }
}

/** `auditMechanism` on any executor, a queue's included: the same phases, the same answer. */
export const auditMechanismAsync = async <I>(spec: AnyAuditSpec<I>): Promise<E.Either<DpError, AuditResult>> => {
  const v = validate(spec)
  if (E.isLeft(v)) return v
  const executor: E.Either<DpError, Executor> = spec.executor === undefined ? defaultExecutor(spec, v.right) : E.right(spec.executor)
  if (E.isLeft(executor)) return executor
  try {
    return await runStepsAsync(drive(spec, v.right, executor.right), executor.right, spec.shouldStop)
  } finally {
    if (spec.executor === undefined) await executor.right.close()
  }
}

/** The audit: budget, resume, selection, estimation, verdict (engine/), composed. */
function* drive<I>(spec: AnyAuditSpec<I>, cfg: Validated<I>, executor: Pick<Executor, 'workers' | 'fit' | 'streams'>): AuditSteps<E.Either<DpError, AuditResult>> {
  const name = mechanismName(spec)
  const budget = budgetPhase(cfg)
  if (budget._tag === 'too-few') return E.right(tooFewTrialsResult(cfg, name, spec.seed, budget.budget, budget.needed, budget.message))
  const resumed = resumePhase(spec, cfg, name)
  if (E.isLeft(resumed)) return resumed
  const st = initialState(spec, cfg, { name, seed: hashSeed(spec.seed), budget: budget.budget, ...resumed.right, workers: executor.workers, streams: executor.streams === true, fit: executor.fit ?? fitInline })
  let selection: SelectionOutcome | null = st.restored?.selection ?? null
  if (selection === null) {
    const found = yield* selectionPhase(st)
    if (found._tag === 'refused') return E.left(invalidParameter('$.mechanism', name, found.message))
    if (found._tag !== 'found') {
      st.issues.push(found._tag === 'stopped' ? { _tag: 'Interrupted', message: `stopped during selection after ${int(st.progress.trialsDone)} trials (selection restarts on resume)` } : found.issue)
      return E.right(verdictPhase(st, found._tag === 'stopped' ? 'interrupted' : 'mechanism-failed', { selection: null, selectionTrials: found.trials, totals: null }))
    }
    selection = found.selection
    saveCheckpoint(st, selection, [], true)
  } else {
    st.progress.trialsDone += selection.trials
    st.selPerPairSide = selection.perPairPerSide ?? st.selPerPairSide
  }
  planEstimation(st, selection)
  const { status, totals } = yield* estimationPhase(st, selection)
  return E.right(verdictPhase(st, status, { selection, selectionTrials: selection.trials, totals }))
}

/** Options for auditing a zoo entry (defaults: its own claim and pairs, its suggested trials, seed "dpaudit"). */
export interface ZooAuditOptions extends Omit<AuditSpec<unknown>, 'mechanism' | 'pairs' | 'claim' | 'trials' | 'seed'> {
  /** The claim audited against (default: the entry's). */
  readonly claim?: AuditClaim
  /** The claim the implementation is built for (default: `claim`). Apart from `claim` when a
   * claim is tested against the mechanism as shipped (`dpaudit audit zoo:NAME --epsilon E`). */
  readonly builtFor?: AuditClaim
  readonly trials?: number
  readonly seed?: string | number
}

/** Audits a zoo entry by name (in this thread, or on `workers` threads from the compiled package). */
export const auditZoo = (name: string, options: ZooAuditOptions = {}): E.Either<DpError, AuditResult> => {
  const spec = zooAuditSpec(name, options)
  return E.isLeft(spec) ? spec : auditMechanism(spec.right)
}

/** The spec of a zoo entry's audit (see `auditZoo`), to run on any executor with `auditMechanismAsync`. */
export const zooAuditSpec = (name: string, options: ZooAuditOptions = {}): E.Either<DpError, AuditSpec<unknown>> => {
  const entry = zooEntry(name)
  if (entry === undefined) return E.left(invalidParameter('$.mechanism', name, `no zoo mechanism named "${name}" (one of ${ZOO_NAMES.join(', ')})`))
  const { builtFor: _builtFor, ...rest } = options
  const claim = options.claim ?? entry.defaultClaim
  const built = options.builtFor ?? claim
  return E.right({
    ...rest,
    mechanism: { _tag: 'ZooRef', name, claim: built },
    ...(entry.support === undefined || options.support !== undefined ? {} : { support: entry.support(built) }),
    pairs: entry.pairs(),
    claim,
    trials: options.trials ?? entry.suggestedTrials,
    seed: options.seed ?? 'dpaudit',
    name: options.name ?? name,
  })
}
