/**
 * The accountant's trade-off curve beside an audit's operating points, on one pair of axes: FPR α
 * and FNR = 1 − TPR. The curve is the accountant's (`tradeOffCurve`, ../../accounting/tradeoff.ts:
 * β(α), the best type-II error any test can have at type-I error α; sound, never above the true
 * curve) of the subject's plan, or, for an audit with no plan beside it, of its claim read as an
 * (ε, δ)-DP guarantee (DRS 2022, Prop. 2.5).
 *
 * A mechanism satisfying the curve has, for every fixed test, FNR ≥ β(FPR). A point is reported
 * below the curve only when the conservative corner of its Clopper–Pearson box is: with FPR_hi and
 * FNR_hi the upper bounds at α/(2K) each for K points (Bonferroni over points and rates), the true
 * rates satisfy FPR ≤ FPR_hi and FNR ≤ FNR_hi, and β is non-increasing, so FNR_hi < β(FPR_hi)
 * gives FNR < β(FPR) — the mechanism is not what was accounted — with the audit's confidence. The
 * ROC's thresholds are fixed tests (the attack was chosen on separate selection trials), so the K
 * bounds hold simultaneously.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type TradeOffCurve, tradeOffAt, tradeOffCurve } from '../../accounting/tradeoff.js'
import { clopperPearson } from '../../attacks/bounds.js'
import type { DpError } from '../../core/error.js'
import { approxDP, type PrivacyEvent, pureDP } from '../../mechanisms/event.js'
import { addRemove, type NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { AuditSection, TradeOffCurveJson, TradeOffSection } from './document.js'

type Accounted = { readonly json: TradeOffCurveJson; readonly curve: TradeOffCurve }

/** The accounted curve as the report's JSON keeps it (α, β pairs, the method and its description). */
export const accountedCurve = (event: PrivacyEvent, relation: NeighbouringRelation): E.Either<DpError, Accounted> => {
  const c = tradeOffCurve(event, { relation })
  if (E.isLeft(c)) return c
  const points = Array.from(c.right.alpha, (alpha, i) => ({ alpha, beta: c.right.beta[i] as number }))
  return E.right({ curve: c.right, json: { method: c.right.method, description: c.right.description, points } })
}

/** The audit's operating points as (FPR, FNR) with their counts: the ROC's thresholds, or the chosen event alone. */
const operatingPoints = (a: AuditSection): Array<{ fp: number; neg: number; fn: number; pos: number }> => {
  const n = a.estimationPerSide
  if (a.roc !== undefined && n !== undefined && n > 0)
    return a.roc.points.filter((p) => p.fpr > 0 && p.fpr < 1 && p.tpr > 0 && p.tpr < 1).map((p) => ({ fp: Math.round(p.fpr * n), neg: n, fn: Math.round((1 - p.tpr) * n), pos: n }))
  const c = a.evidence.counts
  if (c === undefined) return []
  const neg = c.falsePositives + c.trueNegatives
  const pos = c.truePositives + c.falseNegatives
  return neg > 0 && pos > 0 ? [{ fp: c.falsePositives, neg, fn: c.falseNegatives, pos }] : []
}

/**
 * The audit with its trade-off section: the subject's accounted curve (`plan`), or, with no plan
 * (undefined), the claim's; null: the subject's plan has no curve (the audit gets none). The
 * operating points come with their Clopper–Pearson corners and whether each lies below the curve.
 */
export const withTradeOff = (a: AuditSection, plan: (Accounted & { readonly source: string }) | null | undefined): E.Either<DpError, AuditSection> => {
  const points = operatingPoints(a)
  if (points.length === 0 || plan === null) return E.right(a)
  const claimRelation = addRemove() // an (ε, δ) guarantee's curve does not depend on the relation it is stated for
  const c: E.Either<DpError, Accounted> =
    plan !== undefined ? E.right(plan) : accountedCurve(a.claim.delta === 0 ? pureDP(a.claim.epsilon, claimRelation) : approxDP(a.claim.epsilon, a.claim.delta, claimRelation), claimRelation)
  if (E.isLeft(c)) return c
  const perRate = (1 - a.confidence) / (2 * points.length)
  const empirical: TradeOffSection['empirical'] = points.map((p) => {
    const fprUpper = clopperPearson(p.fp, p.neg, perRate).hi
    const fnrUpper = clopperPearson(p.fn, p.pos, perRate).hi
    const atCorner = tradeOffAt(c.right.curve, fprUpper)
    return { fpr: p.fp / p.neg, fnr: p.fn / p.pos, fprUpper, fnrUpper, accountedBeta: tradeOffAt(c.right.curve, p.fp / p.neg), below: fnrUpper < atCorner }
  })
  const source = plan?.source ?? `the audit's claim (ε = ${a.claim.epsilon}, δ = ${a.claim.delta}) read as an (ε, δ)-DP guarantee`
  return E.right({
    ...a,
    tradeOff: { source, method: c.right.json.description, curve: c.right.json.points, empirical, pointsBelow: empirical.filter((p) => p.below).length },
  })
}
