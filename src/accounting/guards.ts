/**
 * The argument checks every accountant runs at its boundary, in one place so they cannot drift
 * apart: a repetition count, a well-formed event (events built in code skip the JSON decoder, so
 * `compose` validates them too), and the δ or ε of a query.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../core/error.js'
import { validateEvent } from '../mechanisms/codec.js'
import type { PrivacyEvent } from '../mechanisms/event.js'

/** The largest repetition count accepted anywhere (as in the codec's SelfCompose check). */
export const MAX_REPETITIONS = 2 ** 40

/** Checks `compose(event, count, path)` arguments. */
export const checkCompose = (event: PrivacyEvent, count: number, path: string): E.Either<DpError, void> => {
  if (!(Number.isInteger(count) && count >= 0 && count <= MAX_REPETITIONS))
    return E.left(invalidParameter(`${path}.count`, count, 'the repetition count must be an integer in [0, 2^40]'))
  const valid = validateEvent(event, path)
  return E.isLeft(valid) ? valid : E.right(undefined)
}

/** δ of an ε(δ) query: a number in (0, 1). */
export const checkDeltaQuery = (delta: number): E.Either<DpError, number> =>
  delta > 0 && delta < 1
    ? E.right(delta)
    : E.left(invalidParameter('delta', delta, Number.isNaN(delta) ? 'δ must be a number in (0, 1), not NaN' : 'δ must be in (0, 1)'))

/** ε of a δ(ε) query: a number ≥ 0. */
export const checkEpsilonQuery = (epsilon: number): E.Either<DpError, number> =>
  epsilon >= 0
    ? E.right(epsilon)
    : E.left(invalidParameter('epsilon', epsilon, Number.isNaN(epsilon) ? 'ε must be a number ≥ 0, not NaN' : 'ε must be ≥ 0'))
