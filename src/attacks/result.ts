/**
 * The result of an audit, one type for every subject (issue 23): a mechanism given as code, or a
 * trainer on a distinguishing game. What every audit shares — the claim, the verdict, the ε lower
 * bound and its ceiling, the estimation counts and rates, the trials spent, the issues — sits at the
 * top level under the same names; `subject` says what was audited, and the subject-specific parts
 * (a mechanism's attack, ROC and candidate pairs; a trainer's test and game) sit beside it.
 *
 * `AuditResultCodec` (io-ts) decodes a result read back from a file; `decodeAuditResult` also reads
 * the results written before the subject existed (mechanism and trainer results of schema 1
 * without `subject`, trainer issues as strings, trainer `runs`) and upgrades them, so every audit
 * file ever written by `dpaudit audit --out` or `--json` still decodes.
 *
 * The codec checks the fields a consumer relies on (the shared ones, the subject, the shape of the
 * subject-specific ones); the models inside (a chosen attack, a LiRA fit) are kept as written.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { firstDecodeError } from '../core/decode.js'
import type { DpError } from '../core/error.js'
import { ExtendedNumber as Num } from '../core/json.js'
import type { CandidateSummary } from './checkpoint.js'
import type { AuditClaim } from './claim.js'
import type { OutputShape, TrialFailureTag } from './output.js'
import type { RocData } from './roc.js'
import type { AttackFamily, ChosenAttack } from './score.js'
import type { SupportTest } from './support.js'
import type { LiraModel } from './trainers/lira.js'
import type { BoundForm } from './ratio-bound.js'
import type { CandidateReport } from './trainers/threshold-test.js'

export type AuditVerdict = 'violation' | 'consistent' | 'inconclusive'

/**
 * How the run ended: all trials ran; the subject (mechanism or trainer) or the machinery running it
 * failed; it was stopped; or it was not worth running.
 */
export type AuditStatus = 'complete' | 'mechanism-failed' | 'trainer-failed' | 'interrupted' | 'too-few-trials'

export type AuditIssueTag = TrialFailureTag | 'TooFewTrials' | 'Interrupted' | 'WorkerFailed' | 'CheckpointFailed' | 'TrainerFailed'

/** Something the reader of a result must know: a failure, a shortfall, an interruption. */
export interface AuditIssue {
  readonly _tag: AuditIssueTag
  readonly message: string
  readonly phase?: 'select' | 'estimate'
  readonly pair?: number
  readonly side?: 0 | 1
  readonly trial?: number
}

/** What was audited. */
export type AuditSubject =
  | { readonly kind: 'mechanism'; readonly name: string; readonly pairs: number }
  | { readonly kind: 'trainer'; readonly name: string; readonly game: string; readonly view: 'white-box' | 'black-box' }

/** The fields every audit result has, whatever its subject. */
export interface AuditResultCore {
  readonly schemaVersion: 1
  readonly subject: AuditSubject
  readonly claim: AuditClaim
  readonly confidence: number
  readonly seed: string
  readonly verdict: AuditVerdict
  readonly status: AuditStatus
  /** ε_LB at `confidence`; 0 when nothing was estimated. */
  readonly epsilonLowerBound: number
  readonly method: string
  /** The largest ε this run's estimation trials could certify (perfect separation). */
  readonly ceiling: number
  /** ε̂ at the observed rates (no confidence; for orientation only). */
  readonly pointEstimate: number
  readonly counts: {
    /** Neighbour-side trials inside the event / all neighbour-side trials. */
    readonly falsePositives: number
    readonly negatives: number
    /** Input-side trials outside the event / all input-side trials. */
    readonly falseNegatives: number
    readonly positives: number
  }
  readonly rates: { readonly fpr: number; readonly fnr: number; readonly fprUpper: number; readonly fnrUpper: number }
  /** Trials (mechanism runs, or training runs): asked for, run, and how they were split. */
  readonly trials: {
    readonly requested: number
    readonly spent: number
    readonly selection: number
    readonly estimation: number
    readonly selectionPerPairPerSide: number
    readonly estimationPerSide: number
  }
  readonly issues: ReadonlyArray<AuditIssue>
  /** Plain-language reading of the result. */
  readonly interpretation: string
}

/** The attack a mechanism audit used, as chosen on selection trials. */
export interface AttackReport {
  readonly family: AttackFamily
  readonly pair: number
  readonly pairLabel: string
  readonly outputShape: OutputShape
  readonly description: string
  /** ε̂ at Wilson upper bounds on the tuning half: what selection expected (not a bound). */
  readonly selectionEpsilon: number
  /** The full model, enough to re-apply the attack. */
  readonly chosen: ChosenAttack
}

/**
 * A Gaussian-DP test (Dong, Roth & Su 2022; Nasr et al. 2023 audit DP-SGD this way): μ-GDP means
 * every test between neighbours has FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ), so each threshold of the estimation
 * grid gives μ ≥ Φ⁻¹(1 − FPR_hi) − Φ⁻¹(FNR_hi) (the inverse of that trade-off curve), with Clopper–Pearson
 * bounds at α/(2G) for G thresholds (Bonferroni): `muLowerBound` holds at the audit's confidence
 * with no assumption. `epsilonIfGaussian` is the ε at the claimed δ of a mechanism whose trade-off
 * curve is *exactly* G_μ at μ_LB — a modelling assumption (true for Gaussian noise on a query, not
 * in general), so it never decides the verdict.
 */
export interface GdpTest {
  readonly muLowerBound: number
  /** ε at the claimed δ if the trade-off curve were exactly Gaussian at μ_LB; null for δ = 0 (no finite ε). */
  readonly epsilonIfGaussian: number | null
  /** True when epsilonIfGaussian exceeds the claimed ε: a violation under the Gaussian assumption only. */
  readonly refutesClaimIfGaussian: boolean
  readonly statement: string
}

/** A mechanism audit's result (`auditMechanism`, `auditZoo`). */
export interface AuditResult extends AuditResultCore {
  readonly subject: Extract<AuditSubject, { kind: 'mechanism' }>
  /** The mechanism's name (= subject.name; kept for readers of schema 1). */
  readonly mechanism: string
  readonly attack: AttackReport | null
  /** Total trials for the ceiling to exceed the claim, and (if the observed rates would refute it) for a violation. */
  readonly trialsNeeded: { readonly forCeiling: number; readonly projectedViolation: number | null }
  readonly roc: RocData | null
  readonly candidates: ReadonlyArray<CandidateSummary>
  readonly pairs: number
  /** The μ-GDP test on the same estimation counts (issue 12); null when nothing was estimated. */
  readonly gdp?: GdpTest | null
  /** The bound ε_LB comes from (bounds.ts `boundFromCounts`), chosen in selection; absent: `rates`. */
  readonly bound?: BoundForm
  /** The exact-support test, when the spec has a support oracle. */
  readonly support?: SupportTest | null
  /** Points of the claim's (ε, δ) profile that the same counts refute (empty without a profile). */
  readonly profileViolations?: ReadonlyArray<{ readonly epsilon: number; readonly delta: number; readonly epsilonLowerBound: number }>
}

/** The test a trainer audit used: a statistic (or its LiRA ratio), orientation and threshold. */
export interface TrainerTestReport {
  readonly name: string
  readonly orientation: 1 | -1
  readonly threshold: number
  readonly selectionEpsilon: number
  readonly lira?: LiraModel
}

/** A trainer audit's result (`auditTrainer`). */
export interface TrainerAuditResult extends AuditResultCore {
  readonly subject: Extract<AuditSubject, { kind: 'trainer' }>
  /** The trainer's name (= subject.name). */
  readonly trainer: string
  readonly game: string
  readonly view: 'white-box' | 'black-box'
  readonly test: TrainerTestReport | null
  readonly candidates: ReadonlyArray<CandidateReport>
  /** Why no run is a private release (every run is seeded). */
  readonly release: string
  /** The chosen test's oriented scores on the estimation runs, per side (absent when no test was chosen): a reader recounts FP and FN and draws them per side. */
  readonly scores?: { readonly statistic: string; readonly withTarget: ReadonlyArray<number>; readonly withoutTarget: ReadonlyArray<number> }
}

/** Any audit's result: switch on `subject.kind`. */
export type AnyAuditResult = AuditResult | TrainerAuditResult

// ---------------------------------------------------------------------------------- codec

const AuditVerdict = t.union([t.literal('violation'), t.literal('consistent'), t.literal('inconclusive')])
const Status = t.union([t.literal('complete'), t.literal('mechanism-failed'), t.literal('trainer-failed'), t.literal('interrupted'), t.literal('too-few-trials')])
const Side = t.union([t.literal(0), t.literal(1)])
const Issue = t.intersection([
  t.type({ _tag: t.string, message: t.string }),
  t.partial({ phase: t.union([t.literal('select'), t.literal('estimate')]), pair: t.number, side: Side, trial: t.number }),
])
const ClaimJson = t.intersection([t.type({ epsilon: Num, delta: Num }), t.UnknownRecord])
const Count = t.number

const Core = t.type({
  schemaVersion: t.literal(1),
  claim: ClaimJson,
  confidence: Num,
  seed: t.string,
  verdict: AuditVerdict,
  status: Status,
  epsilonLowerBound: Num,
  method: t.string,
  ceiling: Num,
  pointEstimate: Num,
  counts: t.type({ falsePositives: Count, negatives: Count, falseNegatives: Count, positives: Count }),
  rates: t.type({ fpr: Num, fnr: Num, fprUpper: Num, fnrUpper: Num }),
  trials: t.type({ requested: Count, spent: Count, selection: Count, estimation: Count, selectionPerPairPerSide: Count, estimationPerSide: Count }),
  issues: t.array(Issue),
  interpretation: t.string,
})

const MechanismSubject = t.type({ kind: t.literal('mechanism'), name: t.string, pairs: t.number })
const View = t.union([t.literal('white-box'), t.literal('black-box')])
const TrainerSubject = t.type({ kind: t.literal('trainer'), name: t.string, game: t.string, view: View })

const MechanismResultJson = t.intersection([
  Core,
  t.type({
    subject: MechanismSubject,
    mechanism: t.string,
    attack: t.union([t.intersection([t.type({ family: t.string, pair: t.number, pairLabel: t.string, description: t.string, selectionEpsilon: Num }), t.UnknownRecord]), t.null]),
    trialsNeeded: t.type({ forCeiling: Num, projectedViolation: t.union([Num, t.null]) }),
    roc: t.union([t.UnknownRecord, t.null]),
    candidates: t.array(t.UnknownRecord),
    pairs: t.number,
  }),
  t.partial({ bound: t.union([t.literal('rates'), t.literal('ratio-in'), t.literal('ratio-out')]), gdp: t.union([t.UnknownRecord, t.null]), support: t.union([t.UnknownRecord, t.null]), profileViolations: t.array(t.type({ epsilon: Num, delta: Num, epsilonLowerBound: Num })) }),
])

const TrainerResultJson = t.intersection([
  Core,
  t.type({
    subject: TrainerSubject,
    trainer: t.string,
    game: t.string,
    view: View,
    test: t.union([t.intersection([t.type({ name: t.string, orientation: t.union([t.literal(1), t.literal(-1)]), threshold: Num, selectionEpsilon: Num }), t.UnknownRecord]), t.null]),
    candidates: t.array(t.type({ test: t.string, tuneEpsilon: Num, advantage: Num })),
    release: t.string,
  }),
])

/** io-ts codec of any audit result (schema 1 with `subject`); decoding leaves unknown fields in place. */
export const AuditResultCodec = t.union([MechanismResultJson, TrainerResultJson])

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)

/**
 * Adds what a result written before issue 23 lacks: `subject`; for trainer results also `trials`
 * (from `runs`), issues as records, and status `trainer-failed` for `failed`. Anything else is
 * returned as it is (the codec then says what is wrong with it).
 */
export const upgradeAuditResult = (raw: unknown): unknown => {
  if (!isRecord(raw) || raw.subject !== undefined) return raw
  if (typeof raw.mechanism === 'string') return { ...raw, subject: { kind: 'mechanism', name: raw.mechanism, pairs: raw.pairs } }
  if (typeof raw.trainer === 'string' && isRecord(raw.runs)) {
    const runs = raw.runs as Record<string, number>
    const sel = runs.selectionPerSide ?? 0
    const est = runs.estimationPerSide ?? 0
    const spent = runs.spent ?? 0
    return {
      ...raw,
      subject: { kind: 'trainer', name: raw.trainer, game: raw.game, view: raw.view },
      status: raw.status === 'failed' ? 'trainer-failed' : raw.status,
      trials: { requested: runs.requested, spent, selection: Math.min(spent, 2 * sel), estimation: Math.max(0, spent - 2 * sel), selectionPerPairPerSide: sel, estimationPerSide: est },
      issues: Array.isArray(raw.issues) ? raw.issues.map((m) => (typeof m === 'string' ? { _tag: 'TrainerFailed', message: m } : m)) : raw.issues,
    }
  }
  return raw
}

/**
 * Decodes an audit result from parsed JSON, upgrading schema-1 results without `subject`; `root`
 * starts the error path (e.g. "audit.json:$.result"). A result is decoded as its subject's kind, so
 * an error names the field of that kind that is wrong.
 */
export const decodeAuditResult = (raw: unknown, root = '$'): E.Either<DpError, AnyAuditResult> => {
  const up = upgradeAuditResult(raw)
  const kind = isRecord(up) && isRecord(up.subject) ? up.subject.kind : undefined
  const d: t.Validation<unknown> = kind === 'trainer' ? TrainerResultJson.decode(up) : MechanismResultJson.decode(up)
  return E.isRight(d) ? E.right(d.right as AnyAuditResult) : E.left(firstDecodeError(d.left, root))
}
