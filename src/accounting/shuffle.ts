/**
 * Privacy amplification by shuffling: Feldman, McMillan & Talwar 2021, "Hiding Among the Clones: A
 * Simple and Nearly Optimal Analysis of Privacy Amplification by Shuffling" (FOCS 2021), Theorem
 * 3.1. If each of n users applies an ε0-DP local randomizer to their own record and the server
 * sees the n reports in a uniformly random order (a shuffler), the shuffled reports are (ε, δ)-DP
 * for datasets that differ in one user's record, with
 *
 *   ε ≤ ln(1 + (e^ε0 − 1)/(e^ε0 + 1) · (8·√(e^ε0·ln(4/δ))/√n + 8·e^ε0/n)),
 *
 * valid when ε0 ≤ ln(n/(16·ln(2/δ))). The authors' reference code (apple/ml-shuffling-amplification,
 * `closedformanalysis`) checks ln(n/(16·ln(4/δ))), a stricter condition; dpaudit requires that
 * one, so it is inside the theorem's regime under either reading, and refuses outside it.
 *
 * What ε0 must be: the randomizer's LDP over its WHOLE input domain (any two records), because the
 * proof writes every other user's report as a mixture that contains the two candidate reports of
 * the user in question. A restricted ε (two inputs that differ a little) does not qualify: the
 * rest of a report can identify its sender, and then the shuffle hides nothing.
 *
 * The shuffled reports are also a post-processing of the unshuffled ones, so ε0 itself is always a
 * bound; the answer is the smaller of the two and says which.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, infeasible, invalidParameter } from '../core/error.js'

export interface ShuffledEpsilon {
  readonly epsilon: number
  readonly delta: number
  /** The local ε0 the amplification started from. */
  readonly localEpsilon: number
  readonly users: number
  /** 'fmt21' when Theorem 3.1's closed form is below ε0, 'local' when ε0 itself is the smaller bound. */
  readonly bound: 'fmt21' | 'local'
  readonly method: string
}

/** The largest ε0 dpaudit lets Theorem 3.1 amplify for n users at δ: ln(n/(16·ln(4/δ))). */
export const shuffleLocalEpsilonLimit = (users: number, delta: number): number => Math.log(users / (16 * Math.log(4 / delta)))

/** Theorem 3.1's closed form, without its validity check (use `shuffleAmplification`). */
export const fmt21ShuffledEpsilon = (localEpsilon: number, users: number, delta: number): number => {
  const e0 = Math.exp(localEpsilon)
  const factor = Math.tanh(localEpsilon / 2) // (e^ε0 − 1)/(e^ε0 + 1)
  return Math.log1p(factor * ((8 * Math.sqrt(e0 * Math.log(4 / delta))) / Math.sqrt(users) + (8 * e0) / users))
}

/**
 * The central (ε, δ) of n shuffled ε0-LDP reports under replace-one user, by FMT 2021 Theorem 3.1;
 * refused (with the limit in the message) outside the theorem's condition on ε0 and n.
 */
export const shuffleAmplification = (localEpsilon: number, users: number, delta: number): E.Either<DpError, ShuffledEpsilon> => {
  if (!(localEpsilon > 0 && Number.isFinite(localEpsilon))) return E.left(invalidParameter('localEpsilon', localEpsilon, 'the local ε0 must be a finite number > 0'))
  if (!(Number.isInteger(users) && users >= 1)) return E.left(invalidParameter('users', users, 'the number of users n must be an integer ≥ 1'))
  if (!(delta > 0 && delta < 1)) return E.left(invalidParameter('delta', delta, 'δ must be in (0, 1)'))
  const limit = shuffleLocalEpsilonLimit(users, delta)
  if (!(localEpsilon <= limit))
    return E.left(
      infeasible(
        'localEpsilon',
        `amplification by shuffling (Feldman, McMillan & Talwar 2021, Thm 3.1) needs ε0 ≤ ln(n/(16·ln(4/δ))) = ${limit.toPrecision(4)} for n = ${users} users at δ = ${delta}; ε0 = ${localEpsilon.toPrecision(4)} is outside it (the local guarantee stands)`,
      ),
    )
  const amplified = fmt21ShuffledEpsilon(localEpsilon, users, delta)
  const bound = amplified < localEpsilon ? 'fmt21' : 'local'
  return E.right({
    epsilon: Math.min(amplified, localEpsilon),
    delta,
    localEpsilon,
    users,
    bound,
    method:
      bound === 'fmt21'
        ? `amplification by shuffling, Feldman–McMillan–Talwar 2021 Thm 3.1 (n = ${users}, ε0 = ${localEpsilon.toPrecision(4)})`
        : `ε0 itself (shuffling is post-processing; Thm 3.1 gives ${amplified.toPrecision(4)} ≥ ε0 here)`,
  })
}
