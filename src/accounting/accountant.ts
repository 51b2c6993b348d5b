/**
 * The accountant interface. An accountant is a pure fold over the event algebra: `empty` is the
 * state of a pipeline that has released nothing, `compose` returns a new state (or the path of an
 * event it cannot handle), and queries never change state. Every answer carries the method that
 * produced it, so a number is never separated from how it was obtained.
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../core/error.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import { checkCompose, checkDeltaAnswer, checkEpsilonAnswer } from './guards.js'
import { asCoupledPoisson, asPlainPoisson, betterOf, hasTruncation, overflowMass, withOverflow } from './truncation.js'
import { sampledApproxReason, splitApproxSteps, withSplitDelta } from './approx-split.js'
import { unsupportedEvent } from '../core/error.js'
import { withoutDegenerate } from '../mechanisms/degenerate.js'

/** Names of the accountants in the registry. */
export type AccountantName = 'basic' | 'advanced' | 'optimal' | 'rdp' | 'zcdp' | 'pld'

/** ε at a given δ, with how it was obtained. */
export interface EpsilonAnswer {
  readonly epsilon: number
  readonly delta: number
  /** A short human name of the method: "RDP → (ε,δ) via Canonne–Kamath–Steinke 2020 at α = 12". */
  readonly method: string
  /** The optimising order, for RDP/zCDP conversions. */
  readonly order?: number
  /**
   * NOT a guarantee. For numerical accountants (PLD) that bracket the truth, like PRV's
   * (eps_low, eps_estimate, eps_upper) of Gopi, Lee & Wutschitz 2021: a lower bound on the true ε(δ)
   * of the accounted dominating pairs, from an optimistic discretisation (losses rounded down after a
   * post-processing), so the true ε lies in [lower, epsilon]; `epsilon` is the guarantee, the gap is
   * the accounting error. Never report `lower` as the privacy of a release.
   */
  readonly lower?: number
  /**
   * NOT a guarantee: a point estimate of the true ε, present with `lower`, with
   * lower ≤ estimate ≤ epsilon — the centre of the bracket (`bracketEstimate`), the point whose
   * error is at most half the accounting error whatever the truth in the bracket.
   */
  readonly estimate?: number
}

/** δ at a given ε, with how it was obtained. */
export interface DeltaAnswer {
  readonly epsilon: number
  readonly delta: number
  readonly method: string
  readonly order?: number
  /** NOT a guarantee: a lower bound on the true δ(ε) of the accounted pairs (see EpsilonAnswer.lower). */
  readonly lower?: number
  /** NOT a guarantee: a point estimate of δ in [lower, delta] (see EpsilonAnswer.estimate). */
  readonly estimate?: number
}

/**
 * The point estimate of a bracket [lower, upper] that holds the truth: its centre, the minimax point
 * (its error is at most (upper − lower)/2 wherever the truth lies in the bracket, and no point does
 * better). PRV's estimate is the value of a third, unbiased discretisation; with only the two sound
 * ones at hand the centre is the choice that needs no further assumption. An unbounded bracket
 * (upper = ∞) has no finite point of bounded error: the estimate is then `upper`.
 */
export const bracketEstimate = (lower: number, upper: number): number =>
  Number.isFinite(upper) ? Math.min(upper, Math.max(lower, lower + (upper - lower) / 2)) : upper

/** Notes an accountant collected while composing (relation conversions, loosened bounds). */
export type Notes = ReadonlyArray<string>

/**
 * An accountant over states of type S; `erase` hides S behind `AnyAccountant` for registries.
 *
 * Contract (tested by the shared conformance suite in test/accounting):
 * - `compose(NoOp)` leaves ε at 0; `compose(NonPrivate)` makes ε = ∞;
 * - an unsupported event nested anywhere is reported with the path to that event;
 * - `compose(SelfCompose(e, k))` equals k times `compose(e)`;
 * - ε(δ) is an upper bound on the true privacy loss (never an underestimate).
 */
export interface Accountant<S> {
  readonly name: AccountantName
  /** One line: what this accountant computes and from which paper. */
  readonly description: string
  /** The relation its answers are stated under; leaves are converted to it or refused. */
  readonly relation: NeighbouringRelation
  readonly empty: S
  /** Adds `count` repetitions of `event`; `path` is where the event sits in the caller's tree. */
  readonly compose: (event: PrivacyEvent, count?: number, path?: string) => (s: S) => E.Either<DpError, S>
  readonly epsilon: (delta: number) => (s: S) => E.Either<DpError, EpsilonAnswer>
  readonly delta: (epsilon: number) => (s: S) => E.Either<DpError, DeltaAnswer>
  /** Notes (conversions applied, approximations used) carried by a state. */
  readonly notes: (s: S) => Notes
}

/** An accountant whose state type is hidden, for registries and the `account` entry point. */
export interface AnyAccountant {
  readonly name: AccountantName
  readonly description: string
  readonly relation: NeighbouringRelation
  /** Folds the event into a fresh state and answers queries on it. */
  readonly run: (event: PrivacyEvent, path?: string) => E.Either<DpError, AccountedState>
}

/** A composed state with its queries bound: what `AnyAccountant.run` returns. */
export interface AccountedState {
  readonly epsilon: (delta: number) => E.Either<DpError, EpsilonAnswer>
  readonly delta: (epsilon: number) => E.Either<DpError, DeltaAnswer>
  readonly notes: Notes
}

/**
 * Hides an accountant's state type. Every answer passes the soundness guard of ./guards.ts on its
 * way out (a number ≥ 0 or ∞ for the query asked, else a refusal), so nothing behind the registry —
 * `account`, its `tightest`, `calibrate` — can pass on NaN or a negative ε.
 */
export const erase = <S>(a: Accountant<S>): AnyAccountant => ({
  name: a.name,
  description: a.description,
  relation: a.relation,
  run: (given, path = '$') => {
    // σ = 0, q = 0, RR with ε = 0 …: the NonPrivate / NoOp they are (../mechanisms/degenerate.ts).
    const event = withoutDegenerate(given)
    // Truncated Poisson sampling (./truncation.ts): the pipeline read as plain Poisson sampling,
    // with the overflow term added to every answer — validated first, while the caps are there.
    const truncated = hasTruncation(event)
    if (truncated) {
      const ok = checkCompose(event, 1, path)
      if (ok._tag === 'Left') return ok
    }
    // The Rényi and zCDP accountants take stated (ε, δ) steps with δ kept aside (./approx-split.ts).
    const split = a.name === 'rdp' || a.name === 'zcdp' ? splitApproxSteps(event, a.relation) : undefined
    const plain = truncated ? asPlainPoisson(event) : event
    const r = a.compose(split !== undefined && split.factors.length > 0 ? (truncated ? asPlainPoisson(split.event) : split.event) : plain, 1, path)(a.empty)
    if (r._tag === 'Left') {
      // A stated (ε, δ) step under sampling: say which, under what, and the ways out (./approx-split.ts).
      const why = (a.name === 'rdp' || a.name === 'zcdp') && r.left._tag === 'UnsupportedEvent' ? sampledApproxReason(event, path, r.left.path, a.name) : undefined
      return why === undefined || r.left._tag !== 'UnsupportedEvent' ? r : { _tag: 'Left', left: unsupportedEvent(r.left.path, a.name, r.left.eventTag, why) }
    }
    const s = r.right
    const raw: AccountedState = { epsilon: (d) => a.epsilon(d)(s), delta: (e) => a.delta(e)(s), notes: a.notes(s) }
    const kept = split !== undefined && split.factors.length > 0 ? withSplitDelta(raw, split.factors) : raw
    const eta = truncated ? overflowMass(event) : 0
    const overflowed = eta > 0 ? withOverflow(kept, eta) : kept
    // A uniformly cut truncation also has a bound without the overflow term (./truncation.ts): the better one answers.
    const coupled = eta > 0 ? asCoupledPoisson(event, a.relation) : undefined
    const alternative = coupled === undefined ? undefined : erase(a).run(coupled, path)
    const answers = alternative !== undefined && alternative._tag === 'Right' ? betterOf(overflowed, alternative.right) : overflowed
    return {
      _tag: 'Right',
      right: {
        epsilon: (d) => {
          // Every mechanism is (0, 1)-DP: δ = 1 bounds nothing, so ε = 0 (as the peers answer).
          if (d === 1) return checkEpsilonAnswer(a.name, d, { epsilon: 0, delta: 1, method: 'δ = 1: every mechanism is (0, 1)-DP' })
          const x = answers.epsilon(d)
          return x._tag === 'Left' ? x : checkEpsilonAnswer(a.name, d, x.right)
        },
        delta: (e) => {
          const x = answers.delta(e)
          return x._tag === 'Left' ? x : checkDeltaAnswer(a.name, e, x.right)
        },
        notes: answers.notes,
      },
    }
  },
})
