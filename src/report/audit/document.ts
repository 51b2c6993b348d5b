/**
 * The audit report as data — the canonical JSON that `dpaudit report` writes first and renders to
 * Markdown and HTML from — and its io-ts codec `ReportJson`. Numbers are `ExtendedNumber`s (∞ is
 * written "Infinity", never null). Like the `--json` codecs (../schemas.ts) the codec fixes the
 * fields a consumer relies on and lets documents carry more; removing or retyping a field is a new
 * `schemaVersion`.
 *
 * ```ts
 * import { readFileSync } from 'node:fs'
 * import { ReportJson } from 'dpaudit/report'
 * const report = ReportJson.decode(JSON.parse(readFileSync('out/report.json', 'utf8')))
 * ```
 *
 * @module
 */
import * as t from 'io-ts'
import { ExtendedNumber as Num } from '../../core/json.js'
import { VerdictJson } from '../claims/verdict.js'

/** The schema version of the report document. */
export const REPORT_SCHEMA_VERSION = 2 as const
export const REPORT_KIND = 'dpaudit-report'

const EpsilonAtDelta = t.type({ delta: Num, epsilon: Num, accountant: t.string, method: t.string })

/** Section 1: the privacy statement. */
export const PrivacySection = t.intersection([
  t.type({
    subject: t.string,
    /** Unit and relation protected, e.g. "replace-one one word". */
    protects: t.string,
    accountedUnder: t.string,
    assumptions: t.array(t.string),
    /** The tightest of dpaudit's accountants at each δ. */
    epsilonAtDelta: t.array(EpsilonAtDelta),
    notes: t.array(t.string),
  }),
  t.partial({
    /** The paper's claim, as the trainer states it (never used in the computation). */
    claim: t.type({ source: t.string, statement: t.string, atDelta: t.array(t.type({ delta: Num, epsilon: Num })) }),
    /** The guarantee the model file recorded at training time (may differ in δ from the table). */
    recorded: t.array(EpsilonAtDelta),
  }),
])
export type PrivacySection = t.TypeOf<typeof PrivacySection>

/** Section 2: the mechanism ledger — the event tree flattened, with a hash of its canonical JSON. */
export const LedgerSection = t.type({
  sha256: t.string,
  events: t.number,
  rows: t.array(t.type({ path: t.string, depth: t.number, tag: t.string, label: t.string, parameters: t.string, repeats: Num })),
  truncated: t.boolean,
})
export type LedgerSection = t.TypeOf<typeof LedgerSection>

/** A curve, or why it could not be computed. */
const Curve = <C extends t.Mixed>(point: C) => t.union([t.type({ ok: t.literal(true), points: t.array(point), method: t.string }), t.type({ ok: t.literal(false), reason: t.string })])

/** Section 3: privacy curves. */
export const CurvesSection = t.type({
  /** The privacy profile: the tightest ε at each δ of a log grid (δ(ε) read the other way). */
  profile: Curve(t.type({ epsilon: Num, delta: Num })),
  rdp: Curve(t.type({ order: Num, epsilon: Num })),
  byIteration: Curve(t.type({ iteration: t.number, epsilon: Num })),
  /** The δ the by-iteration curve is stated at. */
  delta: Num,
})
export type CurvesSection = t.TypeOf<typeof CurvesSection>

/** How a reader recomputes an audit's bound: the attack, the event, the counts and the statistics' inputs. */
export const RecomputableEvidence = t.intersection([
  t.type({
    /** The attack family (mechanism audits), the chosen statistic (trainer audits) or the one-run game. */
    attack: t.string,
    /** The chosen event or threshold, in words (enough to re-apply it). */
    event: t.string,
  }),
  t.partial({
    /** The four counts on the estimation trials: TP = positives − FN, TN = negatives − FP. */
    counts: t.type({ truePositives: t.number, falsePositives: t.number, falseNegatives: t.number, trueNegatives: t.number }),
    /** Clopper–Pearson: one-sided upper bounds on FPR and FNR at α/2 each, α = 1 − confidence, and the δ they are read at. */
    clopperPearson: t.type({ alpha: Num, alphaPerSide: Num, delta: Num, fprUpper: Num, fnrUpper: Num }),
    /** The μ-GDP test on the same counts (mechanism audits). */
    gdp: t.type({ muLowerBound: Num, epsilonIfGaussian: t.union([Num, t.null]), refutesClaimIfGaussian: t.boolean, statement: t.string }),
    /** The exact-support test, where the mechanism has a support oracle. */
    support: t.UnknownRecord,
    /** One-run audits: canaries, guesses made and right (Steinke, Nasr & Jagielski 2023). */
    oneRun: t.type({ canaries: t.number, guesses: t.number, correct: t.number }),
  }),
])
export type RecomputableEvidence = t.TypeOf<typeof RecomputableEvidence>

/** Per-example scores of the estimation runs as a histogram per side (ML Privacy Meter's view). */
export const ScoreHistogram = t.intersection([
  t.type({
    statistic: t.string,
    bins: t.array(t.type({ lo: Num, hi: Num, withTarget: t.number, withoutTarget: t.number })),
  }),
  /** The chosen test's threshold: it says "with the target" at scores ≥ it. */
  t.partial({ threshold: Num }),
])
export type ScoreHistogram = t.TypeOf<typeof ScoreHistogram>

/** The accountant's f-DP trade-off curve β(α): the best type-II error at type-I error α (sound: never above the true curve). */
export const TradeOffCurveJson = t.type({
  /** "gaussian-closed-form" (Φ(Φ⁻¹(1 − α) − μ)) or "privacy-profile" (sup over ε of f_{ε,δ(ε)}). */
  method: t.string,
  description: t.string,
  points: t.array(t.type({ alpha: Num, beta: Num })),
})
export type TradeOffCurveJson = t.TypeOf<typeof TradeOffCurveJson>

/**
 * The accountant's trade-off curve beside the audit's operating points, both as (FPR, FNR = 1 − TPR).
 * A point lies below the curve only when its Clopper–Pearson corner (FPR_hi, FNR_hi) does
 * (Bonferroni over the points): then, with the audit's confidence, the mechanism is not what was
 * accounted. `accountedBeta` is β at the point's own FPR.
 */
export const TradeOffSection = t.type({
  /** What the curve is of: the subject's spec or model plan, or the audit's claim read as an (ε, δ)-DP event. */
  source: t.string,
  method: t.string,
  curve: t.array(t.type({ alpha: Num, beta: Num })),
  empirical: t.array(t.type({ fpr: Num, fnr: Num, fprUpper: Num, fnrUpper: Num, accountedBeta: Num, below: t.boolean })),
  pointsBelow: t.number,
})
export type TradeOffSection = t.TypeOf<typeof TradeOffSection>

/** An empirical audit of any kind: mechanism, trainer (local or queued), one-run, classifier membership. */
export const AuditSection = t.intersection([
  t.type({
    /** Stable id (charts and anchors). */
    id: t.string,
    kind: t.union([t.literal('mechanism'), t.literal('trainer'), t.literal('one-run'), t.literal('trainer-one-run'), t.literal('classifier-membership')]),
    subject: t.string,
    mechanism: t.string,
    verdict: t.string,
    /** The verdict in plain words. */
    interpretation: t.string,
    claim: t.type({ epsilon: Num, delta: Num }),
    epsilonLowerBound: Num,
    confidence: Num,
    ceiling: Num,
    method: t.string,
    trials: t.type({ requested: t.number, spent: t.number }),
    evidence: RecomputableEvidence,
  }),
  t.partial({
    /** The input this audit was read from (relative to the manifest or the report). */
    input: t.string,
    pointEstimate: Num,
    seed: t.string,
    /** Estimation trials per side (the n of the Clopper–Pearson bounds on the ROC's rates). */
    estimationPerSide: t.number,
    /** The true ε, where it is known (zoo mechanisms). */
    knownTrueEpsilon: t.type({ epsilon: Num, method: t.string }),
    roc: t.type({ points: t.array(t.type({ fpr: Num, tpr: Num })), auc: Num, tprAtFpr1pct: Num, tprAtFpr01pct: Num }),
    histogram: ScoreHistogram,
    tradeOff: TradeOffSection,
    timing: t.type({ elapsedMs: Num, trialsPerSecond: Num }),
  }),
])
export type AuditSection = t.TypeOf<typeof AuditSection>

/** One row of the summary table: a subject's claimed, accounted and audited ε side by side. */
export const SummaryRow = t.intersection([
  t.type({
    subject: t.string,
    /** The verdict in words: what the three numbers together say. */
    verdict: t.string,
  }),
  t.partial({
    claimed: t.type({ epsilon: Num, delta: Num, source: t.string }),
    accounted: t.type({ epsilon: Num, delta: Num, accountant: t.string, method: t.string, relation: t.string }),
    audited: t.type({ epsilonLowerBound: Num, confidence: Num, ceiling: Num, delta: Num, audit: t.string, verdict: t.string }),
    knownTrueEpsilon: t.type({ epsilon: Num, method: t.string }),
  }),
])
export type SummaryRow = t.TypeOf<typeof SummaryRow>

/** What the report opens with: one row per subject and one sentence over all of them. */
export const SummarySection = t.type({ sentence: t.string, rows: t.array(SummaryRow) })
export type SummarySection = t.TypeOf<typeof SummarySection>

/** Everything the report says about one subject (a mechanism, a spec, a trained model). */
export const SubjectSection = t.intersection([
  t.type({ id: t.string, name: t.string, audits: t.array(AuditSection) }),
  t.partial({ privacy: PrivacySection, ledger: LedgerSection, curves: CurvesSection, tradeOff: TradeOffCurveJson }),
])
export type SubjectSection = t.TypeOf<typeof SubjectSection>

/** Section 5: utility — held-out perplexity of each model against its accounted ε. */
export const UtilitySection = t.type({
  delta: Num,
  rows: t.array(t.type({ model: t.string, trainer: t.string, epsilon: Num, perplexity: Num, heldOutTokens: t.number, protocol: t.string })),
})
export type UtilitySection = t.TypeOf<typeof UtilitySection>

/** Section 6: what it takes to reproduce the report. */
export const ReproducibilitySection = t.type({
  versions: t.type({ dpaudit: t.string, node: t.string, vega: t.string, vegaLite: t.string }),
  inputs: t.array(t.type({ role: t.string, path: t.string, sha256: t.string, bytes: t.number })),
  /** Per input run: whether it is a private release, its randomness, and a seed only where the run is labelled not private. */
  runs: t.array(
    t.intersection([
      t.type({ input: t.string, private: t.boolean, randomness: t.string }),
      t.partial({ seed: t.string, elapsedMs: Num, trials: t.number, iterations: t.number }),
    ]),
  ),
})
export type ReproducibilitySection = t.TypeOf<typeof ReproducibilitySection>

export const ReportJson = t.intersection([
  t.type({
    schemaVersion: t.literal(REPORT_SCHEMA_VERSION),
    kind: t.literal(REPORT_KIND),
    title: t.string,
    summary: SummarySection,
    subjects: t.array(SubjectSection),
    reproducibility: ReproducibilitySection,
  }),
  t.partial({
    utility: UtilitySection,
    claims: t.array(VerdictJson),
  }),
])
export type ReportJson = t.TypeOf<typeof ReportJson>
