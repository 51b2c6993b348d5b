/**
 * The claim an audit tests: "this mechanism is (ε, δ)-differentially private for these
 * neighbouring pairs". An audit can refute a claim (ε_LB > ε), never prove it.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../core/error.js'

export interface Claim {
  /** Claimed ε, finite and > 0. */
  readonly epsilon: number
  /** Claimed δ in [0, 1). */
  readonly delta: number
}

/** Checks a claim: 0 < ε < ∞ and 0 ≤ δ < 1, with a message naming the field. */
export const validateClaim = (claim: unknown, path = '$.claim'): E.Either<DpError, Claim> => {
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
  return E.right({ epsilon, delta: d })
}
