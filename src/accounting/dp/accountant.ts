/**
 * The (ε, δ)-DP accountants 'basic', 'advanced' and 'optimal': one shared fold (./state.ts) into a
 * multiset of per-step guarantees, three sets of composition theorems at query time (./query.ts).
 * - basic: Σ ε_i, Σ δ_i;
 * - advanced: the better of advanced composition (Dwork, Rothblum & Vadhan 2010) and basic;
 * - optimal: the exact optimal composition of identical steps (Kairouz, Oh & Viswanath 2015,
 *   Thm 3.3) when the per-step guarantees are homogeneous; otherwise the best of basic, advanced
 *   and KOV bounds, saying that the exact optimum was not computed.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { roundUpLoss } from '../../core/numeric.js'
import { checkCompose, checkDeltaQuery, checkEpsilonQuery } from '../guards.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Accountant, AccountantName } from '../accountant.js'
import { deltaAt, type DpMethod, epsilonAt } from './query.js'
import { type DpState, emptyState, foldEvent, merge, scale } from './state.js'

export interface DpAccountantOptions {
  readonly relation: NeighbouringRelation
}

const DESCRIPTIONS: Readonly<Record<DpMethod, string>> = {
  basic: 'basic composition of per-step (ε, δ) guarantees: Σε_i, Σδ_i (Dwork & Roth 2014, Thm 3.16)',
  advanced:
    'advanced composition of per-step (ε, δ) guarantees (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20), or basic when tighter',
  optimal:
    'optimal composition of identical (ε, δ) steps (Kairouz, Oh & Viswanath 2015, Thm 3.3); heterogeneous steps get the best of basic, advanced and KOV bounds',
}

/** Query parameters: δ ∈ (0, 1), ε ≥ 0 (∞ allowed), never NaN. */
export { checkDeltaQuery, checkEpsilonQuery } from '../guards.js'

const makeDpAccountant =
  (method: DpMethod) =>
  (options: DpAccountantOptions): Accountant<DpState> => {
    const name: AccountantName = method
    return {
      name,
      description: DESCRIPTIONS[method],
      relation: options.relation,
      empty: emptyState,
      compose:
        (event, count = 1, path = '$') =>
        (s) => {
          const valid = checkCompose(event, count, path)
          if (E.isLeft(valid)) return valid
          const r = foldEvent(event, options.relation, path)
          return E.isLeft(r) ? r : E.right(merge(s, scale(r.right, count)))
        },
      epsilon: (delta) => (s) => {
        const d = checkDeltaQuery(delta)
        if (E.isLeft(d)) return d
        const a = epsilonAt(s, delta, method)
        return E.right({ epsilon: roundUpLoss(a.epsilon), delta, method: a.method })
      },
      delta: (epsilon) => (s) => {
        const e = checkEpsilonQuery(epsilon)
        if (E.isLeft(e)) return e
        const a = deltaAt(s, epsilon, method)
        return E.right({ epsilon, delta: Math.min(1, roundUpLoss(a.delta)), method: a.method })
      },
      notes: (s) => s.notes,
    }
  }

/** Basic composition: Σε_i, Σδ_i. */
export const makeBasicAccountant = makeDpAccountant('basic')
/** Advanced composition (DRV 2010), or basic when that is tighter. */
export const makeAdvancedAccountant = makeDpAccountant('advanced')
/** KOV 2015 optimal composition for identical steps; the best available bound otherwise. */
export const makeOptimalAccountant = makeDpAccountant('optimal')
