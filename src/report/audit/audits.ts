/**
 * Every audit result is a report input: a mechanism audit (`dpaudit audit --out`, or the library's
 * `AuditResult`), a trainer audit run locally or on a queue (`auditTrainer`, `dpaudit audit --queue
 * --json`), a one-run audit of a trainer (`auditTrainerOneRun`) or of a mechanism (`auditOneRun`,
 * which records no claim: the caller gives it), and the classifier-membership audit. Each is
 * recognised by its content, decoded, checked against its own numbers (a verdict or bound its counts
 * contradict is refused: ../audit-check.ts), and put in the report's one audit shape
 * (`AuditSection`) with what a reviewer needs to recompute the bound: the attack, the chosen event or
 * threshold, TP/FP/FN/TN, the Clopper–Pearson inputs, the μ-GDP fit and the support test.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { clopperPearson } from '../../attacks/bounds.js'
import { oneRunEpsilonLowerBound } from '../../attacks/one-run.js'
import { zooEntry } from '../../attacks/zoo/index.js'
import { firstDecodeError } from '../../core/decode.js'
import { type DpError, decodeFailure } from '../../core/error.js'
import { ExtendedNumber as Num } from '../../core/json.js'
import { roundEpsilon } from '../format.js'
import { checkAuditResult } from '../audit-check.js'
import { AuditOutput } from '../schemas.js'
import { type AuditResult, decodeAuditResult, type TrainerAuditResult } from '../../attacks/result.js'
import type { RecomputableEvidence, AuditSection, ScoreHistogram } from './document.js'

export type AuditKind = AuditSection['kind']

const Claim = t.type({ epsilon: Num, delta: Num })
const Counts = t.type({ falsePositives: t.number, negatives: t.number, falseNegatives: t.number, positives: t.number })
const Test = t.type({ name: t.string, orientation: t.number, threshold: Num, selectionEpsilon: Num })
/** Oriented scores of the chosen test on the estimation runs, per side, where the result records them. */
const Scores = t.type({ statistic: t.string, withTarget: t.array(Num), withoutTarget: t.array(Num) })

/** The classifier-membership audit (`auditClassifierMembership`). */
export const ClassifierMembershipJson = t.intersection([
  t.type({
    trainer: t.string,
    game: t.string,
    claim: Claim,
    confidence: Num,
    verdict: t.string,
    epsilonLowerBound: Num,
    ceiling: Num,
    pointEstimate: Num,
    test: Test,
    counts: Counts,
    meanStatistic: t.type({ member: Num, nonMember: Num }),
    trainingAccuracy: Num,
    runs: t.type({ selectionPerSide: t.number, estimationPerSide: t.number }),
  }),
  t.partial({ scores: Scores }),
])

/** A one-run audit of a trainer (`auditTrainerOneRun`). */
export const TrainerOneRunJson = t.type({
  trainer: t.string,
  view: t.string,
  claim: Claim,
  confidence: Num,
  canaries: t.number,
  guesses: t.number,
  correct: t.number,
  epsilonLowerBound: Num,
  ceiling: Num,
  verdict: t.string,
  method: t.string,
})

/** A one-run audit of a mechanism (`auditOneRun`): it records no claim, so the input gives one. */
export const OneRunJson = t.type({ canaries: t.number, guesses: t.number, correct: t.number, epsilonLowerBound: Num, confidence: Num, statement: t.string })


const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** Which audit a JSON value is, by its content; undefined when it is none. */
export const auditKindOf = (u: unknown): AuditKind | 'mechanism-file' | undefined => {
  if (!isRecord(u)) return undefined
  if (u['tool'] === 'dpaudit audit') return 'mechanism-file'
  // the one audit result type (../../attacks/result.ts): its subject says which
  const subject = u['subject']
  if (isRecord(subject) && (subject['kind'] === 'mechanism' || subject['kind'] === 'trainer') && 'counts' in u) return subject['kind']
  if (typeof u['trainer'] === 'string') {
    if ('meanStatistic' in u) return 'classifier-membership'
    if ('canaries' in u) return 'trainer-one-run'
    if ('game' in u && 'runs' in u) return 'trainer'
    return undefined
  }
  if ('attack' in u && 'counts' in u && 'mechanism' in u && 'trials' in u) return 'mechanism'
  if ('canaries' in u && 'guesses' in u && 'correct' in u && 'statement' in u) return 'one-run'
  return undefined
}

/** What the caller may add to an audit: its subject, the claim of a one-run mechanism audit, the zoo entry it ran. */
export interface AuditContext {
  /** Where the audit came from, as the report shows it (a path relative to the manifest or report, or a name). */
  readonly input: string
  /** The file it was read from, as given: what error messages name (default: `input`). */
  readonly file?: string
  readonly subject?: string
  readonly claim?: { readonly epsilon: number; readonly delta: number }
}

const decodeWith = <A>(codec: t.Decoder<unknown, A>, u: unknown, at: string): E.Either<DpError, A> => {
  const d = codec.decode(u)
  return E.isLeft(d) ? E.left(firstDecodeError(d.left, at)) : E.right(d.right)
}

/** The four counts and the Clopper–Pearson inputs, recomputed from the counts (never copied from the file's rates). */
const countsEvidence = (c: t.TypeOf<typeof Counts>, claim: { delta: number }, confidence: number): Pick<RecomputableEvidence, 'counts' | 'clopperPearson'> => {
  const a = (1 - confidence) / 2
  return {
    counts: { truePositives: c.positives - c.falseNegatives, falsePositives: c.falsePositives, falseNegatives: c.falseNegatives, trueNegatives: c.negatives - c.falsePositives },
    ...(c.negatives > 0 && c.positives > 0
      ? { clopperPearson: { alpha: 1 - confidence, alphaPerSide: a, delta: claim.delta, fprUpper: clopperPearson(c.falsePositives, c.negatives, a).hi, fnrUpper: clopperPearson(c.falseNegatives, c.positives, a).hi } }
      : {}),
  }
}

/** Bins of the oriented scores per side, on one grid (at most 30 bins). */
export const scoreHistogram = (statistic: string, withTarget: ReadonlyArray<number>, withoutTarget: ReadonlyArray<number>): ScoreHistogram | undefined => {
  const all = [...withTarget, ...withoutTarget].filter(Number.isFinite)
  if (all.length === 0) return undefined
  let lo = Infinity
  let hi = -Infinity
  for (const x of all) {
    if (x < lo) lo = x
    if (x > hi) hi = x
  }
  const n = Math.max(1, Math.min(30, Math.ceil(Math.sqrt(all.length))))
  const w = hi > lo ? (hi - lo) / n : 1
  const bins = Array.from({ length: n }, (_, i) => ({ lo: lo + i * w, hi: i === n - 1 ? Math.max(hi, lo + w) : lo + (i + 1) * w, withTarget: 0, withoutTarget: 0 }))
  const at = (x: number): number => Math.min(n - 1, Math.max(0, Math.floor((x - lo) / w)))
  for (const x of withTarget) if (Number.isFinite(x)) (bins[at(x)] as { withTarget: number }).withTarget++
  for (const x of withoutTarget) if (Number.isFinite(x)) (bins[at(x)] as { withoutTarget: number }).withoutTarget++
  return { statistic, bins }
}

/** The recorded scores must give the recorded counts at the recorded threshold: otherwise the file contradicts itself. */
const checkScores = (input: string, scores: ThresholdAudit['result']['scores'], threshold: number, counts: t.TypeOf<typeof Counts>): E.Either<DpError, void> => {
  if (scores === undefined) return E.right(undefined)
  const tp = scores.withTarget.filter((x) => x >= threshold).length
  const fp = scores.withoutTarget.filter((x) => x >= threshold).length
  if (scores.withTarget.length !== counts.positives || scores.withoutTarget.length !== counts.negatives || counts.positives - tp !== counts.falseNegatives || fp !== counts.falsePositives)
    return E.left(decodeFailure(`${input}:$.scores`, { tp, fp }, `the recorded scores at threshold ${threshold} give FN = ${scores.withTarget.length - tp}, FP = ${fp} of ${scores.withTarget.length} / ${scores.withoutTarget.length}, not the recorded counts`))
  return E.right(undefined)
}

const verdictOf = (lb: number, ceiling: number, claimEpsilon: number): string => (lb > claimEpsilon ? 'violation' : ceiling > claimEpsilon ? 'consistent' : 'inconclusive')

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'audit'

/**
 * The true ε of a zoo mechanism, where the target names one: `dpaudit audit zoo:NAME` builds the
 * entry for its default claim (a --epsilon override tests that build against another claim), and the
 * entry knows its true ε at that claim's δ — so it is reported only when the audit's δ is that δ.
 */
const zooTruth = (target: string, claim: { epsilon: number; delta: number }): AuditSection['knownTrueEpsilon'] | undefined => {
  if (!target.startsWith('zoo:')) return undefined
  const z = zooEntry(target.slice(4))
  return z === undefined || z.defaultClaim.delta !== claim.delta ? undefined : { epsilon: z.trueEpsilon(z.defaultClaim), method: z.trueEpsilonMethod }
}

/** The fields a test-based audit (trainer, classifier membership) shares. */
interface ThresholdAudit {
  readonly kind: 'trainer' | 'classifier-membership'
  readonly trainer: string
  readonly game: string
  readonly result: {
    readonly claim: { readonly epsilon: number; readonly delta: number }
    readonly confidence: number
    readonly verdict: string
    readonly epsilonLowerBound: number
    readonly ceiling: number
    readonly pointEstimate: number
    readonly test: { readonly name: string; readonly orientation: number; readonly threshold: number; readonly selectionEpsilon: number } | null
    readonly counts: t.TypeOf<typeof Counts>
    readonly scores?: { readonly statistic: string; readonly withTarget: ReadonlyArray<number>; readonly withoutTarget: ReadonlyArray<number> } | undefined
  }
  readonly method: string
  readonly interpretation: string
  readonly selectionPerSide: number
  readonly trials: { readonly requested: number; readonly spent: number }
  readonly seed?: string
}

/** A trainer or classifier-membership audit: the chosen test, the counts and the scores per side. */
const thresholdSection = (ctx: AuditContext, named: string, a: ThresholdAudit): E.Either<DpError, AuditSection> => {
  const r = a.result
  const test = r.test
  if (test !== null) {
    const s = checkScores(named, r.scores, test.threshold, r.counts)
    if (E.isLeft(s)) return s
  }
  const hist0 = r.scores === undefined ? undefined : scoreHistogram(r.scores.statistic, r.scores.withTarget, r.scores.withoutTarget)
  const hist = hist0 === undefined || test === null || !Number.isFinite(test.threshold) ? hist0 : { ...hist0, threshold: test.threshold }
  const subject = ctx.subject ?? a.trainer
  return E.right({
    id: slug(`${subject}-${ctx.input}`),
    subject,
    input: ctx.input,
    kind: a.kind,
    mechanism: `${a.trainer}: ${a.game}`,
    verdict: r.verdict,
    interpretation: a.interpretation,
    claim: { epsilon: r.claim.epsilon, delta: r.claim.delta },
    epsilonLowerBound: r.epsilonLowerBound,
    confidence: r.confidence,
    ceiling: r.ceiling,
    pointEstimate: r.pointEstimate,
    method: a.method,
    trials: a.trials,
    evidence: {
      attack: test === null ? 'none chosen' : test.name,
      event:
        test === null
          ? 'no test was chosen (nothing estimated)'
          : `oriented score ${test.orientation === 1 ? '' : '−'}${test.name} ≥ ${test.threshold} (chosen on ${a.selectionPerSide} selection runs per side, tuning ε̂ ${roundEpsilon(test.selectionEpsilon)})`,
      ...countsEvidence(r.counts, r.claim, r.confidence),
    },
    ...(a.seed === undefined ? {} : { seed: a.seed }),
    ...(hist === undefined ? {} : { histogram: hist }),
  })
}

const trainerSection = (r: TrainerAuditResult, ctx: AuditContext, named: string): E.Either<DpError, AuditSection> =>
  thresholdSection(ctx, named, {
    kind: 'trainer',
    trainer: r.trainer,
    game: r.game,
    result: r,
    method: r.method,
    interpretation: r.interpretation,
    selectionPerSide: r.trials.selectionPerPairPerSide,
    trials: { requested: r.trials.requested, spent: r.trials.spent },
    seed: r.seed,
  })

/** A mechanism audit: the attack family and its event, the counts, the μ-GDP fit, the support test, the ROC. */
const mechanismSection = (r: AuditResult, doc: AuditOutput | undefined, ctx: AuditContext): E.Either<DpError, AuditSection> => {
  const target = doc?.target ?? r.mechanism
  // at most 400 ROC points (every k-th, keeping both ends): the chart needs the shape, not every threshold
  const thin = (ps: ReadonlyArray<{ fpr: number; tpr: number }>) => {
    const step = Math.max(1, Math.ceil(ps.length / 400))
    return ps.filter((_, i) => i % step === 0 || i === ps.length - 1).map((p) => ({ fpr: p.fpr, tpr: p.tpr }))
  }
  const truth = zooTruth(target, r.claim)
  const subject = ctx.subject ?? (target.startsWith('zoo:') ? target : r.mechanism)
  const { attack, gdp, support, roc } = r
  return E.right({
    id: slug(`${subject}-${ctx.input}`),
    subject,
    input: ctx.input,
    kind: 'mechanism',
    mechanism: r.mechanism,
    verdict: r.verdict,
    interpretation: r.interpretation,
    claim: { epsilon: r.claim.epsilon, delta: r.claim.delta },
    epsilonLowerBound: r.epsilonLowerBound,
    confidence: r.confidence,
    ceiling: r.ceiling,
    pointEstimate: r.pointEstimate,
    method: r.method,
    trials: { requested: r.trials.requested, spent: r.trials.spent },
    evidence: {
      attack: attack?.family ?? 'none chosen',
      event: attack === null ? 'no attack was chosen (nothing estimated)' : `${attack.description} (pair ${attack.pairLabel})`,
      ...countsEvidence(r.counts, r.claim, r.confidence),
      ...(gdp === null || gdp === undefined ? {} : { gdp: { muLowerBound: gdp.muLowerBound, epsilonIfGaussian: gdp.epsilonIfGaussian, refutesClaimIfGaussian: gdp.refutesClaimIfGaussian, statement: gdp.statement } }),
      ...(support === null || support === undefined ? {} : { support: support as unknown as Record<string, unknown> }),
    },
    seed: doc?.options.seed ?? r.seed,
    estimationPerSide: r.trials.estimationPerSide,
    ...(truth === undefined ? {} : { knownTrueEpsilon: truth }),
    ...(roc === null ? {} : { roc: { points: thin(roc.points), auc: roc.auc, tprAtFpr1pct: roc.tprAtFpr1pct, tprAtFpr01pct: roc.tprAtFpr01pct } }),
    ...(doc === undefined ? {} : { timing: doc.timing }),
  })
}

/**
 * One audit, any kind, as the report's `AuditSection` (its `tradeOff` is added by the builder, which
 * knows the subject's accounting). Left: the value is no audit, does not decode, or contradicts itself.
 */
export const auditSection = (u: unknown, ctx: AuditContext): E.Either<DpError, AuditSection> => {
  const named = ctx.file ?? ctx.input
  const at = `${named}:$`
  const kind = auditKindOf(u)
  const base = (subject: string) => ({ id: slug(`${ctx.subject ?? subject}-${ctx.input}`), subject: ctx.subject ?? subject, input: ctx.input })
  switch (kind) {
    case undefined:
      return E.left(decodeFailure(at, isRecord(u) ? Object.keys(u).slice(0, 8) : u, 'not an audit result: expected a mechanism audit ("tool": "dpaudit audit", or an AuditResult), a trainer audit, a one-run audit or a classifier-membership audit'))
    case 'mechanism-file':
    case 'mechanism':
    case 'trainer': {
      // the file `dpaudit audit --out` writes wraps the result; a result alone (library, --queue --json) is read as it is
      const doc = kind === 'mechanism-file' ? decodeWith(AuditOutput, u, at) : E.right(undefined)
      if (E.isLeft(doc)) return doc
      const res = decodeAuditResult(kind === 'mechanism-file' ? (u as { result: unknown }).result : u, kind === 'mechanism-file' ? `${at}.result` : at)
      if (E.isLeft(res)) return res
      const r = res.right
      const ok = checkAuditResult(named, r as unknown as Parameters<typeof checkAuditResult>[1])
      if (E.isLeft(ok)) return ok
      if (r.subject.kind === 'mechanism') return mechanismSection(r as AuditResult, doc.right, ctx)
      const t = trainerSection(r as TrainerAuditResult, ctx, named)
      // a trainer audit written by `dpaudit audit --out` carries its wall time too
      return E.isLeft(t) || doc.right === undefined ? t : E.right({ ...t.right, timing: doc.right.timing })
    }
    case 'classifier-membership': {
      const d = decodeWith(ClassifierMembershipJson, u, at)
      if (E.isLeft(d)) return d
      const r = d.right
      // the classifier audit has no status: it either ran to the end or returned an error
      const ok = checkAuditResult(named, { ...r, status: 'complete' })
      if (E.isLeft(ok)) return ok
      const { selectionPerSide: sel, estimationPerSide: est } = r.runs
      return thresholdSection(ctx, named, {
        kind: 'classifier-membership',
        trainer: r.trainer,
        game: r.game,
        result: r,
        method: 'membership inference on the LDA-based classifier: loss and LiRA tests chosen on selection runs; Clopper–Pearson bounds on fresh runs at α/2 each',
        interpretation: '',
        selectionPerSide: sel,
        trials: { requested: 2 * (sel + est), spent: 2 * (sel + est) },
      })
    }
    case 'trainer-one-run':
    case 'one-run': {
      const d = kind === 'trainer-one-run' ? decodeWith(TrainerOneRunJson, u, at) : decodeWith(OneRunJson, u, at)
      if (E.isLeft(d)) return d
      const r = d.right as t.TypeOf<typeof OneRunJson> & Partial<t.TypeOf<typeof TrainerOneRunJson>>
      const claim = r.claim ?? ctx.claim
      if (claim === undefined) return E.left(decodeFailure(`${at}.claim`, undefined, 'a one-run audit of a mechanism records no claim: give the (ε, δ) it was tested against ("claim" in the manifest entry)'))
      const { canaries: m, guesses: g, correct: v, confidence } = r
      if (!(Number.isInteger(m) && Number.isInteger(g) && Number.isInteger(v) && 0 <= v && v <= g && g <= m)) return E.left(decodeFailure(`${at}.correct`, { canaries: m, guesses: g, correct: v }, 'integers with 0 ≤ correct ≤ guesses ≤ canaries'))
      if (!(confidence > 0 && confidence < 1)) return E.left(decodeFailure(`${at}.confidence`, confidence, 'a confidence is in (0, 1)'))
      // the bound and ceiling are re-derived from the guesses (Steinke, Nasr & Jagielski 2023, Theorem 5.2)
      const lb = oneRunEpsilonLowerBound(m, g, v, claim.delta, 1 - confidence)
      const ceiling = oneRunEpsilonLowerBound(m, g, g, claim.delta, 1 - confidence)
      if (Math.abs(lb - r.epsilonLowerBound) > 1e-9 * Math.max(1, lb)) return E.left(decodeFailure(`${at}.epsilonLowerBound`, r.epsilonLowerBound, `does not follow from ${v} of ${g} guesses on ${m} canaries, which give ${lb} at ${confidence} confidence and δ = ${claim.delta}`))
      const verdict = verdictOf(lb, ceiling, claim.epsilon)
      if (r.verdict !== undefined && r.verdict !== verdict) return E.left(decodeFailure(`${at}.verdict`, r.verdict, `contradicts the result's own numbers (ε lower bound ${lb}, ceiling ${ceiling}, claimed ε ${claim.epsilon}), which give "${verdict}"`))
      const name = r.trainer ?? ctx.subject ?? ctx.input
      return E.right({
        ...base(name),
        kind,
        mechanism: r.trainer === undefined ? name : `${r.trainer} (${r.view ?? 'one run'})`,
        verdict,
        interpretation: r.statement ?? '',
        claim: { epsilon: claim.epsilon, delta: claim.delta },
        epsilonLowerBound: lb,
        confidence,
        ceiling,
        method: r.method ?? 'one run, canaries included with probability ½, top/bottom-score guesses (Steinke, Nasr & Jagielski 2023, Theorem 5.2)',
        trials: { requested: 1, spent: 1 },
        evidence: { attack: 'one-run guessing game', event: `guess the ${g} canaries with the most extreme scores`, oneRun: { canaries: m, guesses: g, correct: v } },
      })
    }
  }
}
