/**
 * An audit result read back from a file is a claim about numbers, not a fact: a report or a
 * verdict built on it re-derives what it can and refuses a file whose numbers contradict each
 * other (an edited verdict, an ε bound that the counts do not give, a NaN ceiling). What cannot be
 * re-derived (the counts themselves) is trusted as the file says: a file is not a signature.
 *
 * And evidence must be about the claim it is attached to: an audit of a zoo mechanism says nothing
 * about LP-LDA.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { BOUND_FORMS, type BoundForm, boundFromCounts } from '../attacks/ratio-bound.js'
import { type DpError, decodeFailure } from '../core/error.js'

/** The fields of an audit result that are checked (as `AuditResultJson` decodes them, extra fields kept). */
export interface AuditResultFields {
  readonly verdict: string
  readonly status: string
  readonly claim: { readonly epsilon: number; readonly delta: number }
  readonly confidence: number
  readonly epsilonLowerBound: number
  readonly ceiling: number
  readonly [k: string]: unknown
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))

const num = (x: unknown): number | undefined => (typeof x === 'number' ? x : undefined)

/**
 * Right when the result's numbers agree with each other: claim and confidence in range, bound and
 * ceiling finite with 0 ≤ ε_LB ≤ ceiling, ε_LB as the recorded counts give it (under the recorded
 * bound form, at the recorded confidence and δ), and the verdict the one those numbers give. Left: one line naming
 * the file, the field and the contradiction.
 */
export const checkAuditResult = (file: string, r: AuditResultFields): E.Either<DpError, void> => {
  const at = (field: string, value: unknown, why: string) => E.left(decodeFailure(`${file}:$.result.${field}`, value, why))
  const { claim, confidence, epsilonLowerBound: lb, ceiling, verdict, status } = r
  if (!(claim.epsilon >= 0)) return at('claim.epsilon', claim.epsilon, 'a claimed ε is a number ≥ 0')
  if (!(claim.delta >= 0 && claim.delta < 1)) return at('claim.delta', claim.delta, 'a claimed δ is in [0, 1)')
  if (!(confidence > 0 && confidence < 1)) return at('confidence', confidence, 'a confidence is in (0, 1)')
  if (!(Number.isFinite(lb) && lb >= 0)) return at('epsilonLowerBound', lb, 'an ε lower bound is a finite number ≥ 0')
  if (!(Number.isFinite(ceiling) && ceiling >= 0)) return at('ceiling', ceiling, 'the ceiling is a finite number ≥ 0')
  if (lb > ceiling && !close(lb, ceiling)) return at('epsilonLowerBound', lb, `above the run's own ceiling ${ceiling}: no run certifies more than its ceiling`)
  const counts = r['counts'] as Record<string, unknown> | undefined
  const fp = num(counts?.['falsePositives'])
  const neg = num(counts?.['negatives'])
  const fn = num(counts?.['falseNegatives'])
  const pos = num(counts?.['positives'])
  if (fp !== undefined && neg !== undefined && fn !== undefined && pos !== undefined && neg > 0 && pos > 0) {
    const ok = [fp, neg, fn, pos].every((x) => Number.isInteger(x) && x >= 0) && fp <= neg && fn <= pos
    if (!ok) return at('counts', counts, 'counts are integers ≥ 0 with falsePositives ≤ negatives and falseNegatives ≤ positives')
    const form = r['bound'] ?? 'rates'
    if (!BOUND_FORMS.includes(form as BoundForm)) return at('bound', form, `a bound form is one of ${BOUND_FORMS.join(', ')}`)
    const derived = boundFromCounts(form as BoundForm, fp, neg, fn, pos, claim.delta, 1 - confidence)
    if (!close(derived, lb)) return at('epsilonLowerBound', lb, `does not follow from the recorded counts, which give ${derived} at ${confidence} confidence and δ = ${claim.delta}`)
  }
  // the verdict the numbers give (audit.ts): a violation needs a refutation, consistent needs the
  // ceiling above the claim and no refutation, and only a complete run has a verdict other than inconclusive
  const profile = Array.isArray(r['profileViolations']) ? (r['profileViolations'] as unknown[]).length : 0
  const support = r['support'] as { refutesEveryPureEpsilon?: unknown } | null | undefined
  const otherRefutation = profile > 0 || (claim.delta === 0 && support?.refutesEveryPureEpsilon === true)
  const refuted = lb > claim.epsilon || otherRefutation
  const expected = status !== 'complete' ? 'inconclusive' : refuted ? 'violation' : ceiling > claim.epsilon ? 'consistent' : 'inconclusive'
  if (verdict !== expected)
    return at(
      'verdict',
      verdict,
      `contradicts the result's own numbers (status ${status}, ε lower bound ${lb}, ceiling ${ceiling}, claimed ε ${claim.epsilon}), which give "${expected}"`,
    )
  return E.right(undefined)
}

const words = (s: string): string[] => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0)

const containsRun = (hay: ReadonlyArray<string>, needle: ReadonlyArray<string>): boolean =>
  needle.length > 0 && hay.some((_, i) => needle.every((w, k) => hay[i + k] === w))

/**
 * Whether an audit (its mechanism name and target) is about `subject` (a claim's subject, the
 * prefix of its id: `lp-lda`, `hdp-lda`, `svi`): the subject's words appear, in order, in the
 * mechanism's name or its module's file name. A zoo entry is a test mechanism, never a paper's.
 */
export const auditIsAbout = (subject: string, mechanism: string, target: string): boolean => {
  if (target.startsWith('zoo:')) return false
  const key = words(subject)
  const file = target.split(/[\\/]/).pop() ?? target
  return containsRun(words(mechanism), key) || containsRun(words(file), key)
}
