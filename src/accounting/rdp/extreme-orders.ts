/**
 * The Rényi divergence bound of an event at one order, including the two ends the accountant's grid
 * leaves out (issue 26): order 1 (the KL divergence) and order ∞ (the max divergence).
 *
 * - α = ∞: D_∞ is the pure ε; a composition's is at most the sum of its events' pure ε (basic
 *   composition, Dwork & Roth 2014, Thm 3.16), ∞ when an event has none.
 * - α = 1: D_α(P‖Q) is non-decreasing in α (van Erven & Harremoës 2014, "Rényi divergence and
 *   Kullback–Leibler divergence", Thm 3), so KL = D_1 ≤ D_α for every α > 1; we read the curve at
 *   α = 1 + 2⁻²⁰, a sound upper bound, and for the closed forms whose curve is continuous at 1 (the
 *   Gaussian's αμ²/2, Mironov 2017, Prop. 7) within a relative 1e-6 of KL.
 * - 1 < α < ∞: the accountant's curve at that order.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { makeRdpAccountant } from './accountant.js'
import { withoutDegenerate } from '../../mechanisms/degenerate.js'
import { MAX_ORDER } from './orders.js'

/** The order at which KL is read from above. */
export const KL_PROXY_ORDER = 1 + 2 ** -20

export interface RenyiBound {
  readonly order: number
  /** An upper bound on the worst-case Rényi divergence of neighbouring outputs at `order`. */
  readonly value: number
  readonly method: string
}

/** D_α of an event under a relation, for α ∈ [1, MAX_ORDER] ∪ {∞}. */
export const rdpAtOrder = (given: PrivacyEvent, order: number, relation: NeighbouringRelation): E.Either<DpError, RenyiBound> => {
  const event = withoutDegenerate(given)
  if (!(order >= 1 && (order <= MAX_ORDER || order === Infinity)))
    return E.left(invalidParameter('order', order, `a Rényi order must be 1 (KL), a number in (1, ${MAX_ORDER}], or ∞`))
  const at = order === Infinity ? [2] : [order === 1 ? KL_PROXY_ORDER : order]
  const acc = makeRdpAccountant({ relation, orders: at, continuous: false })
  const s = acc.compose(event, 1, '$')(acc.empty)
  if (E.isLeft(s)) return s
  if (order === Infinity)
    return E.right({
      order,
      value: s.right.pureEpsilon,
      method:
        s.right.pureEpsilon < Infinity
          ? 'D_∞ = pure ε: the sum of the events’ pure ε (basic composition)'
          : 'D_∞ = ∞: some event has no pure ε (a Gaussian, a stated zCDP or (ε, δ) guarantee)',
    })
  const value = s.right.curve[0] as number
  return E.right({
    order,
    value: order === 1 ? Math.min(value, s.right.pureEpsilon) : value,
    method:
      order === 1
        ? `KL ≤ D_α at α = 1 + 2⁻²⁰ (D_α non-decreasing in α: van Erven & Harremoës 2014, Thm 3), and ≤ D_∞`
        : `the RDP curve at α = ${order} (Mironov 2017)`,
  })
}
