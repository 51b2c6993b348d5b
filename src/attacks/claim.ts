/**
 * The claim an audit tests: "this mechanism is (ε, δ)-differentially private for these
 * neighbouring pairs". An audit can refute a claim (ε_LB > ε), never prove it.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../core/error.js'

/**
 * Which inputs the claim calls neighbours, in the mechanism's own input representation (the audit
 * sees inputs, not datasets):
 * - `one-coordinate`: vectors differing in exactly one entry, by at most `change`;
 * - `all-coordinates`: vectors differing in any entries, each by at most `change` (ℓ∞ neighbours:
 *   StatDP's query-answer vectors, where one record can move every query by its sensitivity);
 * - `add-remove`: count vectors, one count up or down by one (a record added or removed);
 * - `replace-one`: count vectors, one count down by one and another up by one (a record replaced);
 * - `any`: the pairs given are neighbours by the user's word (the default; nothing is checked).
 */
export type AuditRelation = 'one-coordinate' | 'all-coordinates' | 'add-remove' | 'replace-one' | 'any'

export const AUDIT_RELATIONS: ReadonlyArray<AuditRelation> = ['one-coordinate', 'all-coordinates', 'add-remove', 'replace-one', 'any']

/** One point (ε, δ) of a privacy profile: the mechanism claims (ε, δ)-DP at each point. */
export interface ProfilePoint {
  readonly epsilon: number
  readonly delta: number
}

export interface AuditClaim {
  /** Claimed ε, finite and > 0. */
  readonly epsilon: number
  /** Claimed δ in [0, 1). */
  readonly delta: number
  /** The neighbouring relation the claim is made for (default `any`: the pairs are trusted). */
  readonly relation?: AuditRelation
  /** Largest change of one entry under `one-coordinate` / `all-coordinates` (default 1). */
  readonly change?: number
  /**
   * Further (ε, δ) points the mechanism claims (a privacy profile, e.g. from an accountant's curve).
   * The audit tests each with the same counts: its union bound already covers every δ at once.
   */
  readonly profile?: ReadonlyArray<ProfilePoint>
}

/** Checks a claim: 0 < ε < ∞ and 0 ≤ δ < 1, with a message naming the field. */
export const validateClaim = (claim: unknown, path = '$.claim'): E.Either<DpError, AuditClaim> => {
  if (typeof claim !== 'object' || claim === null)
    return E.left(invalidParameter(path, claim, 'a claim is an object { epsilon, delta }'))
  const { epsilon, delta } = claim as { epsilon?: unknown; delta?: unknown }
  if (typeof epsilon !== 'number' || !(epsilon > 0))
    return E.left(invalidParameter(`${path}.epsilon`, epsilon, 'the claimed ε must be a number > 0'))
  if (epsilon === Infinity)
    return E.left(invalidParameter(`${path}.epsilon`, epsilon, 'a claim of ε = ∞ cannot be violated; there is nothing to audit'))
  const d = delta === undefined ? 0 : delta
  if (typeof d !== 'number' || !(d >= 0 && d < 1))
    return E.left(invalidParameter(`${path}.delta`, delta, 'the claimed δ must be a number in [0, 1) (δ ≥ 1 allows any mechanism)'))
  const { relation, change, profile } = claim as { relation?: unknown; change?: unknown; profile?: unknown }
  if (relation !== undefined && !AUDIT_RELATIONS.includes(relation as AuditRelation))
    return E.left(invalidParameter(`${path}.relation`, relation, `the relation is one of ${AUDIT_RELATIONS.join(', ')}`))
  if (change !== undefined && !(typeof change === 'number' && change > 0 && Number.isFinite(change)))
    return E.left(invalidParameter(`${path}.change`, change, 'the change of one entry must be a finite number > 0'))
  let points: ProfilePoint[] | undefined
  if (profile !== undefined) {
    if (!Array.isArray(profile)) return E.left(invalidParameter(`${path}.profile`, profile, 'a profile is an array of { epsilon, delta } points'))
    points = []
    for (const [i, q] of profile.entries()) {
      const v = validateClaim(q, `${path}.profile[${i}]`)
      if (E.isLeft(v)) return v
      points.push({ epsilon: v.right.epsilon, delta: v.right.delta })
    }
  }
  return E.right({
    epsilon,
    delta: d,
    ...(relation === undefined ? {} : { relation: relation as AuditRelation }),
    ...(change === undefined ? {} : { change: change as number }),
    ...(points === undefined ? {} : { profile: points }),
  })
}

/** A claim in words: "(ε, δ)-DP under one-coordinate change (each entry ±1)". */
export const showClaim = (c: AuditClaim): string =>
  `(${c.epsilon}, ${c.delta})-DP${c.relation === undefined || c.relation === 'any' ? '' : ` under ${c.relation} neighbours${c.change !== undefined && c.change !== 1 ? ` (change ${c.change})` : ''}`}`
