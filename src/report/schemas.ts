/**
 * The `--json` outputs of the command line as io-ts codecs, so a consumer can decode them:
 *
 * ```ts
 * import { execFileSync } from 'node:child_process'
 * import { AccountOutput } from 'dpaudit/report'
 * const stdout = execFileSync('dpaudit', ['account', 'examples/dp-sgd.json', '--json'], { encoding: 'utf8' })
 * const doc = AccountOutput.decode(JSON.parse(stdout))   // Either<Errors, AccountOutput>
 * ```
 *
 * Every document carries `schemaVersion` (1) and `tool` ("dpaudit account", …). Numbers are
 * `ExtendedNumber`s: a JSON number, or "Infinity" / "-Infinity" / "NaN" (never null). The codecs
 * fix the fields a consumer relies on and let documents carry more (io-ts `type` keeps unknown
 * fields), so adding a field is not a new schema version; removing or retyping one is.
 * `train`'s output is described with the trainers (its `privacy` is a PrivacyStatement).
 *
 * @module
 */
import * as t from 'io-ts'
import { ExtendedNumber as Num } from '../core/json.js'

/** The schema version every `--json` document of this release carries. */
export const OUTPUT_SCHEMA_VERSION = 1 as const

const header = <T extends string>(tool: T) => ({ schemaVersion: t.literal(OUTPUT_SCHEMA_VERSION), tool: t.literal(tool) })

/** One accountant's ε at one δ. `lower` is the optimistic end of a numerical bracket (PLD). */
export const EpsilonAnswerJson = t.intersection([t.type({ epsilon: Num, delta: Num, method: t.string }), t.partial({ order: Num, lower: Num })])

/** One accountant on one spec: its answers, or why it could not answer. */
export const AccountantResultJson = t.union([
  t.type({ accountant: t.string, description: t.string, ok: t.literal(true), answers: t.array(EpsilonAnswerJson), notes: t.array(t.string) }),
  t.type({ accountant: t.string, description: t.string, ok: t.literal(false), message: t.string, error: t.UnknownRecord }),
])

/** The report on one spec: every accountant, and the tightest ε per δ. */
export const AccountReportJson = t.intersection([
  t.type({
    relation: t.UnknownRecord,
    results: t.array(AccountantResultJson),
    tightest: t.array(t.type({ delta: Num, epsilon: Num, accountant: t.string, method: t.string })),
  }),
  t.partial({
    name: t.string,
    /** With --orders: ε(α) of the whole spec at those orders, or why it could not be computed. */
    rdpCurve: t.union([t.string, t.array(t.type({ order: Num, rdp: Num }))]),
  }),
])

/** `dpaudit account --json`: one report per spec, in the file's order. */
export const AccountOutput = t.type({ ...header('dpaudit account'), deltas: t.array(Num), reports: t.array(AccountReportJson) })
export type AccountOutput = t.TypeOf<typeof AccountOutput>

/** `dpaudit calibrate --json`: the calibrated value and the ε it gives. */
export const CalibrateOutput = t.intersection([
  t.type({
    ...header('dpaudit calibrate'),
    parameter: t.string,
    direction: t.union([t.literal('smallest'), t.literal('largest')]),
    value: Num,
    epsilon: Num,
    delta: Num,
    targetEpsilon: Num,
    accountant: t.string,
    method: t.string,
    probes: t.number,
    tolerance: Num,
  }),
  /** The other end of the final bracket (absent at a domain edge). */
  t.partial({ infeasibleNeighbour: Num }),
])
export type CalibrateOutput = t.TypeOf<typeof CalibrateOutput>

/** `dpaudit evaluate --json`: held-out perplexity of a saved model, with its privacy statement. */
export const EvaluateOutput = t.type({
  ...header('dpaudit evaluate'),
  model: t.string,
  trainer: t.string,
  corpus: t.string,
  vocabularyMatched: t.boolean,
  perplexity: Num,
  heldOutTokens: t.number,
  documents: t.number,
  privacy: t.UnknownRecord,
})
export type EvaluateOutput = t.TypeOf<typeof EvaluateOutput>

/** `dpaudit train --json`: the trained model's run, its evaluation and privacy statement (the model itself is in `out`). */
export const TrainOutput = t.intersection([
  t.type({
    ...header('dpaudit train'),
    trainer: t.string,
    config: t.UnknownRecord,
    /** The gate's verdict: private or not, and why (a `--seed` run says it is not a private release). */
    release: t.UnknownRecord,
    /** Name and the sizes that are public under the trainer's relation (or declared). */
    corpus: t.UnknownRecord,
    out: t.string,
    /** null for a private release without --eval-corpus: it is scored on a public corpus or not at all. */
    evaluation: t.union([t.UnknownRecord, t.null]),
    privacy: t.UnknownRecord,
  }),
  /** Timing: only for a run that is not a private release (a private run's speed depends on its data). */
  t.partial({ tokensPerSecond: Num, seconds: Num }),
])
export type TrainOutput = t.TypeOf<typeof TrainOutput>

const Verdict = t.union([t.literal('consistent'), t.literal('violation'), t.literal('inconclusive')])
const ClaimJson = t.type({ epsilon: Num, delta: Num })

/** The audit result (attacks' AuditResult); the fields below are the ones a consumer needs first. */
export const AuditResultJson = t.intersection([
  t.type({
    verdict: Verdict,
    status: t.string,
    claim: ClaimJson,
    confidence: Num,
    epsilonLowerBound: Num,
    ceiling: Num,
    pointEstimate: Num,
    method: t.string,
    trials: t.type({ requested: t.number, spent: t.number }),
  }),
  t.UnknownRecord,
])

/** `dpaudit audit --json` (and the file written by --out). */
export const AuditOutput = t.type({
  ...header('dpaudit audit'),
  target: t.string,
  node: t.string,
  options: t.type({ trials: t.number, seed: t.string, confidence: Num, workers: t.number }),
  timing: t.type({ elapsedMs: Num, trialsPerSecond: Num }),
  result: AuditResultJson,
})
export type AuditOutput = t.TypeOf<typeof AuditOutput>

const HdpSettingJson = t.type({ iterations: t.number, clip: Num, beta: Num, epsilonL: Num, epsilon: Num })

/** `dpaudit demo --json`: every section of the walkthrough. */
export const DemoOutput = t.type({
  ...header('dpaudit demo'),
  dpSgd: AccountReportJson,
  calibration: t.string,
  table3: t.array(t.type({ gamma: Num, claimed: Num, exact: Num, zhuWang: Num, iterations: t.number, claimedTotal: Num, exactTotal: Num })),
  subLda: AccountReportJson,
  training: t.type({
    /** The training section as printed (CGS and HDP-LDA on Brown with their privacy statements). */
    text: t.string,
    /** HDP-LDA's ε at the paper's defaults, and a setting that gives a meaningful one. */
    hdpReading: t.intersection([t.type({ paperDefaults: HdpSettingJson, text: t.string }), t.partial({ meaningful: HdpSettingJson })]),
  }),
  audit: t.array(
    t.type({
      name: t.string,
      broken: t.boolean,
      summary: t.string,
      claim: ClaimJson,
      trueEpsilon: Num,
      bug: t.union([t.string, t.null]),
      verdict: Verdict,
      epsilonLowerBound: Num,
      ceiling: Num,
      attack: t.string,
    }),
  ),
})
export type DemoOutput = t.TypeOf<typeof DemoOutput>
