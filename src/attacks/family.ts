/**
 * Many audits at once, at a family-wise confidence. Each audit's confidence (1 − α) bounds the
 * chance that *its* bound exceeds the truth; reporting the most alarming of k audits needs a
 * correction, or a family of correct mechanisms will show a "violation" about k·α of the time.
 *
 * Each audit's chosen event is fixed by its selection trials, so its estimation counts give a
 * p-value for "the claim holds": p = inf{α′ : ε_LB(α′) > claimed ε}, where ε_LB(α′) is the
 * bound of the audit at level α′ (its form: Clopper–Pearson rates, or the ratio bound) (monotone in α′), found by bisection. Then
 * - Bonferroni: reject where p ≤ α/k;
 * - Holm (1979): sort the p-values, reject the j-th smallest (j = 1…) while p_(j) ≤ α/(k − j + 1).
 * Both keep the family-wise error rate — the chance that any true claim is rejected — at most α,
 * under any dependence between the audits. Holm rejects everything Bonferroni does, and more.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../core/error.js'
import { type AuditResult, type AuditSpec, auditMechanism } from './audit.js'
import { boundFromCounts } from './ratio-bound.js'

export type FamilyCorrection = 'holm' | 'bonferroni'

export interface FamilyDecision {
  readonly mechanism: string
  /** Rejected at the family-wise level: a violation that holds for the whole family. */
  readonly violation: boolean
  /** The p-value of "the claim holds" from the audit's counts (1 when nothing was estimated). */
  readonly pValue: number
  /** The per-audit level the correction compared p against. */
  readonly level: number
  /** ε lower bound at that level (Clopper–Pearson at level/2 per rate). */
  readonly epsilonLowerBound: number
}

export interface FamilyResult {
  readonly correction: FamilyCorrection
  readonly confidence: number
  readonly decisions: ReadonlyArray<FamilyDecision>
  readonly statement: string
}

/** p = inf{a : ε_LB(a) > ε} for an audit's counts (bisection on log a); 1 if even a → 1 does not reject. */
export const auditPValue = (r: AuditResult): number => {
  const c = r.counts
  if (r.status !== 'complete' || c.negatives === 0 || c.positives === 0) return 1
  const rejects = (a: number): boolean => boundFromCounts(r.bound ?? 'rates', c.falsePositives, c.negatives, c.falseNegatives, c.positives, r.claim.delta, a) > r.claim.epsilon
  if (!rejects(1 - 1e-12)) return 1
  let lo = -745 // log of the smallest positive double: rejects(e^lo) false unless the evidence is overwhelming
  let hi = Math.log(1 - 1e-12)
  if (rejects(Math.exp(lo))) return Math.exp(lo)
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2
    if (rejects(Math.exp(mid))) hi = mid
    else lo = mid
  }
  return Math.exp(hi)
}

/** Family-wise decisions over results already computed (at any per-audit confidence). */
export const familywise = (results: ReadonlyArray<AuditResult>, confidence = 0.95, correction: FamilyCorrection = 'holm'): FamilyResult => {
  const alpha = 1 - confidence
  const k = results.length
  const ps = results.map(auditPValue)
  const order = [...ps.keys()].sort((a, b) => (ps[a] as number) - (ps[b] as number) || a - b)
  const levels = new Array<number>(k).fill(alpha / Math.max(1, k))
  const rejected = new Array<boolean>(k).fill(false)
  if (correction === 'bonferroni') for (let i = 0; i < k; i++) rejected[i] = (ps[i] as number) <= alpha / k
  else {
    let stopped = false
    order.forEach((i, j) => {
      levels[i] = alpha / (k - j)
      if (!stopped && (ps[i] as number) <= (levels[i] as number)) rejected[i] = true
      else stopped = true
    })
  }
  const decisions = results.map((r, i) => {
    const c = r.counts
    const lb = c.negatives > 0 && c.positives > 0 ? boundFromCounts(r.bound ?? 'rates', c.falsePositives, c.negatives, c.falseNegatives, c.positives, r.claim.delta, levels[i] as number) : 0
    return { mechanism: r.mechanism, violation: rejected[i] as boolean, pValue: ps[i] as number, level: levels[i] as number, epsilonLowerBound: lb }
  })
  const pct = `${+(confidence * 100).toPrecision(6)}%`
  return {
    correction,
    confidence,
    decisions,
    statement: `${decisions.filter((d) => d.violation).length} of ${k} claims refuted at family-wise confidence ${pct} (${correction === 'holm' ? 'Holm 1979 step-down' : 'Bonferroni'} over the audits' p-values): the chance that any true claim among them is called a violation is at most ${+(alpha * 100).toPrecision(6)}%.`,
  }
}

/** Runs every audit, then decides at a family-wise confidence. Left on the first audit that cannot run. */
export const auditFamily = (
  specs: ReadonlyArray<AuditSpec<unknown>>,
  options: { readonly confidence?: number; readonly correction?: FamilyCorrection } = {},
): E.Either<DpError, { readonly results: ReadonlyArray<AuditResult>; readonly family: FamilyResult }> => {
  const results: AuditResult[] = []
  for (const spec of specs) {
    const r = auditMechanism(spec)
    if (E.isLeft(r)) return r
    results.push(r.right)
  }
  return E.right({ results, family: familywise(results, options.confidence ?? 0.95, options.correction ?? 'holm') })
}
