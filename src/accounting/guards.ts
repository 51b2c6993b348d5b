/**
 * The argument checks every accountant runs at its boundary, in one place so they cannot drift
 * apart: a repetition count, a well-formed event (events built in code skip the JSON decoder, so
 * `compose` validates them too), the δ or ε of a query, and the answer itself (`checkEpsilonAnswer`,
 * `checkDeltaAnswer`: what leaves an accountant is a sound-shaped number or a refusal).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter, numericFailure } from '../core/error.js'
import { validateEvent } from '../mechanisms/codec.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import type { DeltaAnswer, EpsilonAnswer } from './accountant.js'

/** The largest repetition count accepted anywhere (as in the codec's SelfCompose check). */
export const MAX_REPETITIONS = 2 ** 40

/** Checks `compose(event, count, path)` arguments. */
export const checkCompose = (event: PrivacyEvent, count: number, path: string): E.Either<DpError, void> => {
  if (!(Number.isInteger(count) && count >= 0 && count <= MAX_REPETITIONS))
    return E.left(invalidParameter(`${path}.count`, count, 'the repetition count must be an integer in [0, 2^40]'))
  const valid = validateEvent(event, path)
  return E.isLeft(valid) ? valid : E.right(undefined)
}

/**
 * δ of an ε(δ) query: a number in [0, 1). δ = 0 asks for pure ε-DP (issue 26): an accountant answers
 * the pure ε when the event has one, ∞ otherwise.
 */
export const checkDeltaQuery = (delta: number): E.Either<DpError, number> =>
  delta >= 0 && delta < 1
    ? E.right(delta)
    : E.left(invalidParameter('delta', delta, Number.isNaN(delta) ? 'δ must be a number in [0, 1), not NaN' : 'δ must be in [0, 1)'))

/** ε of a δ(ε) query: a number ≥ 0. */
export const checkEpsilonQuery = (epsilon: number): E.Either<DpError, number> =>
  epsilon >= 0
    ? E.right(epsilon)
    : E.left(invalidParameter('epsilon', epsilon, Number.isNaN(epsilon) ? 'ε must be a number ≥ 0, not NaN' : 'ε must be ≥ 0'))

/**
 * The soundness guard on what an accountant answers (issue 30). An ε is a number ≥ 0 — +∞ is a
 * sound answer, "no finite guarantee" — for the δ that was asked, with its optimistic estimate, if
 * any, in [0, ε]; anything else (NaN, a negative number, a δ that is not the one asked) is a
 * numerical failure and is refused with the reason, never passed on as an ε. `tightest` and
 * `calibrate` only ever see answers that passed.
 */
export const checkEpsilonAnswer = (accountant: string, delta: number, a: EpsilonAnswer): E.Either<DpError, EpsilonAnswer> => {
  const why =
    Number.isNaN(a.epsilon) || a.epsilon < 0
      ? `ε = ${a.epsilon} is not a number ≥ 0`
      : a.delta !== delta
        ? `the answer is for δ = ${a.delta}, not the δ = ${delta} asked`
        : a.lower !== undefined && !(a.lower >= 0 && a.lower <= a.epsilon)
          ? `its optimistic estimate ${a.lower} is not in [0, ε = ${a.epsilon}]`
          : a.estimate !== undefined && !(a.estimate >= (a.lower ?? 0) && a.estimate <= a.epsilon)
            ? `its point estimate ${a.estimate} is not in [lower, ε] = [${a.lower ?? 0}, ${a.epsilon}]`
            : undefined
  return why === undefined ? E.right(a) : E.left(numericFailure('epsilon', `${accountant}: ${why} (method: ${a.method}); refused`))
}

/** The same guard on a δ answer: a number in [0, 1] for the ε asked, its estimate in [0, δ]. */
export const checkDeltaAnswer = (accountant: string, epsilon: number, a: DeltaAnswer): E.Either<DpError, DeltaAnswer> => {
  const why = !(a.delta >= 0 && a.delta <= 1)
    ? `δ = ${a.delta} is not a number in [0, 1]`
    : a.epsilon !== epsilon
      ? `the answer is for ε = ${a.epsilon}, not the ε = ${epsilon} asked`
      : a.lower !== undefined && !(a.lower >= 0 && a.lower <= a.delta)
        ? `its optimistic estimate ${a.lower} is not in [0, δ = ${a.delta}]`
        : a.estimate !== undefined && !(a.estimate >= (a.lower ?? 0) && a.estimate <= a.delta)
          ? `its point estimate ${a.estimate} is not in [lower, δ] = [${a.lower ?? 0}, ${a.delta}]`
          : undefined
  return why === undefined ? E.right(a) : E.left(numericFailure('delta', `${accountant}: ${why} (method: ${a.method}); refused`))
}
