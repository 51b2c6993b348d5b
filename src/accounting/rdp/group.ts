/**
 * Replace-one RDP from an add/remove RDP curve: group privacy for a group of 2 at the level of
 * Rényi divergences, by the weak triangle inequality.
 *
 * Mironov 2017 ("Rényi Differential Privacy", CSF), Prop. 11 (the numbering is from memory; the
 * statement is re-derived below so nothing rests on it): for distributions P, Q, R, α > 1 and
 * Hölder exponents p, q > 1 with 1/p + 1/q = 1,
 *   D_α(P‖Q) ≤ (α − 1/p)/(α − 1)·D_{pα}(P‖R) + D_{q(α−1/p)}(R‖Q).
 * Derivation: e^{(α−1)D_α(P‖Q)} = E_R[(P/R)^α (R/Q)^{α−1}]; Hölder under R gives
 *   ≤ E_R[(P/R)^{pα}]^{1/p} · E_R[(R/Q)^{q(α−1)}]^{1/q}
 *   = e^{(pα−1)D_{pα}(P‖R)/p} · e^{(α−1)D_{q(α−1)+1}(R‖Q)},
 * and q(α − 1) + 1 = q(α − 1/p) because q/p = q − 1. With p = q = 2:
 *   D_α(P‖Q) ≤ (α − ½)/(α − 1)·D_{2α}(P‖R) + D_{2α−1}(R‖Q).
 *
 * Use: a replace-one neighbour D′ of D (token x replaced by y) is two add/remove steps away through
 * R = M(D ∖ {x}). P = M(D) vs R is a removal, R vs Q = M(D′) an addition, and an add/remove RDP
 * curve ε_AR bounds both ordered pairs (the relation is symmetric). So
 *   ε_RO(α) ≤ (α − ½)/(α − 1)·ε_AR(2α) + ε_AR(2α − 1).
 * The inequality holds for any three distributions, so it applies to the joint output of a whole
 * adaptive composition: apply it to the composed curve, not per step.
 *
 * Sound, not tight: for the Gaussian with add/remove curve α/(2σ²) it gives (2α − 1)²/(2σ²(α − 1)),
 * which is (1 + 1/(4α(α − 1))) times the exact group-of-2 value 2α/σ² (sensitivity 2). Near α = 1
 * the factor (α − ½)/(α − 1) blows up, so the best order sits higher than for add/remove.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter, numericFailure } from '../../core/error.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import { type NeighbouringRelation, showRelation } from '../../mechanisms/neighbouring.js'
import { rdpEpsilonAtOrder } from '../conversions.js'
import { refineOrder } from './continuous.js'
import { rdpToEpsilon } from './convert.js'
import { rdpCurveDetailed, rdpEvaluator } from './curve.js'
import { DEFAULT_ORDERS, MAX_ORDER, validateOrders } from './orders.js'

/** (α − ½)/(α − 1), the weight of D_{2α} in the weak triangle inequality with p = q = 2. */
export const weakTriangleWeight = (alpha: number): number => (alpha - 0.5) / (alpha - 1)

/**
 * ε_RO(α) ≤ (α − ½)/(α − 1)·ε_AR(2α) + ε_AR(2α − 1) at each order α of `orders` (Mironov 2017,
 * Prop. 11 with p = q = 2; see the module comment). `curveAt(β)` is an add/remove RDP bound at
 * order β, valid for both ordered pairs; it is read at 2α and 2α − 1 only. Needs α > 1 (otherwise
 * NaN); ∞ inside gives ∞.
 */
export const replaceOneFromAddRemove = (orders: ReadonlyArray<number>, curveAt: (order: number) => number): Float64Array =>
  Float64Array.from(orders, (a) => (a > 1 ? weakTriangleWeight(a) * curveAt(2 * a) + curveAt(2 * a - 1) : Number.NaN))

/** The add/remove orders the bound on `orders` reads: 2α and 2α − 1, sorted, without duplicates. */
export const replaceOneInnerOrders = (orders: ReadonlyArray<number>): ReadonlyArray<number> =>
  [...new Set(orders.flatMap((a) => [2 * a, 2 * a - 1]))].sort((x, y) => x - y)

/** The default grid for the bound: DEFAULT_ORDERS with 2α ≤ MAX_ORDER (all of them today). */
export const REPLACE_ONE_ORDERS: ReadonlyArray<number> = Object.freeze(DEFAULT_ORDERS.filter((a) => 2 * a <= MAX_ORDER))

export interface ReplaceOneCurve {
  /** The orders α of the replace-one curve (validated, ascending). */
  readonly orders: ReadonlyArray<number>
  /** ε_RO(α), one per order. */
  readonly curve: Float64Array
  /** The composed add/remove pure ε (∞ when none); 2× it bounds ε_RO at every order. */
  readonly addRemovePureEpsilon: number
  /** Notes of the add/remove fold (general subsampling bounds, conversions). */
  readonly notes: ReadonlyArray<string>
}

/**
 * The replace-one RDP curve of `event` accounted under the add/remove `relation`: the composed
 * add/remove curve at 2α and 2α − 1 (exact for the Poisson-subsampled Gaussian at integer
 * orders, which 2α and 2α − 1 are for integer α), through `replaceOneFromAddRemove`, and capped
 * by twice the composed pure ε when there is one (max-divergence obeys the plain triangle
 * inequality: D_∞(P‖Q) ≤ D_∞(P‖R) + D_∞(R‖Q)). `orders` need 1 < α and 2α ≤ MAX_ORDER.
 */
export const replaceOneCurve = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  orders: ReadonlyArray<number> = REPLACE_ONE_ORDERS,
  path = '$',
): E.Either<DpError, ReplaceOneCurve> => {
  if (relation.kind !== 'add-remove')
    return E.left(invalidParameter('relation', showRelation(relation), 'the weak-triangle replace-one bound starts from an add/remove curve'))
  const os = validateOrders(orders)
  if (E.isLeft(os)) return os
  for (let i = 0; i < os.right.length; i++) {
    const a = os.right[i] as number
    if (2 * a > MAX_ORDER) return E.left(invalidParameter(`orders[${i}]`, a, `the bound reads the add/remove curve at 2α, so α must be ≤ ${MAX_ORDER / 2}`))
  }
  const inner = rdpCurveDetailed(event, relation, replaceOneInnerOrders(os.right), path)
  if (E.isLeft(inner)) return inner
  const at = new Map<number, number>()
  inner.right.orders.forEach((b, i) => at.set(b, inner.right.curve[i] as number))
  // Every order read is in `inner` by construction; ∞ would be the sound answer otherwise.
  const curve = replaceOneFromAddRemove(os.right, (b) => at.get(b) ?? Infinity)
  const pure = inner.right.pureEpsilon
  if (pure < Infinity) for (let i = 0; i < curve.length; i++) curve[i] = Math.min(curve[i] as number, 2 * pure)
  return E.right({ orders: os.right, curve, addRemovePureEpsilon: pure, notes: inner.right.notes })
}

/**
 * The same bound at any real order α (1 < α, 2α ≤ MAX_ORDER), for a continuous search over orders
 * (./continuous.ts): the add/remove curve of `event` is evaluated at 2α and 2α − 1 by the
 * accountant's own evaluator (./curve.ts `rdpEvaluator`), so it is exactly as valid off the grid as
 * the add/remove accountant's continuous search: closed forms exact, the sampled Gaussian by
 * quadrature with its error bound added, bounds stated only at integer orders (the general
 * subsampling theorems) extended between integers by the chord of the convex cumulant, an upper
 * bound (./integer-orders.ts). Capped by `2·addRemovePureEpsilon` as the grid curve is. undefined
 * where the evaluator fails (the search then skips that order).
 */
export const replaceOneEvaluator = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  addRemovePureEpsilon: number,
  path = '$',
): E.Either<DpError, (alpha: number) => number | undefined> => {
  if (relation.kind !== 'add-remove')
    return E.left(invalidParameter('relation', showRelation(relation), 'the weak-triangle replace-one bound starts from an add/remove curve'))
  const ev = rdpEvaluator(event, relation, path)
  if (E.isLeft(ev)) return ev
  const cap = 2 * addRemovePureEpsilon
  return E.right((alpha) => {
    if (!(alpha > 1 && 2 * alpha <= MAX_ORDER)) return undefined
    const hi = ev.right(2 * alpha)
    const lo = ev.right(2 * alpha - 1)
    if (E.isLeft(hi) || E.isLeft(lo)) return undefined
    return Math.min(weakTriangleWeight(alpha) * hi.right + lo.right, cap)
  })
}

/** ε at δ from the replace-one curve: the grid's best order, then the real orders around it. */
export interface ReplaceOneEpsilon {
  readonly epsilon: number
  /** The order used (a real order when the search improved on the grid). */
  readonly order: number
  /** The grid's best ε and its order (the answer before the continuous search). */
  readonly gridEpsilon: number
  readonly gridOrder: number
}

/**
 * Canonne–Kamath–Steinke 2020 (Prop. 12) at the best grid order of `c`, then, when `at` is given,
 * a search of the real orders between that order's grid neighbours (./continuous.ts
 * `refineOrder`). Every candidate is a valid bound, so the answer is never above the grid's.
 */
export const replaceOneToEpsilon = (
  c: ReplaceOneCurve,
  delta: number,
  at?: (alpha: number) => number | undefined,
): E.Either<DpError, ReplaceOneEpsilon> => {
  const g = rdpToEpsilon(c.orders, c.curve, delta)
  if (E.isLeft(g)) return g
  const grid = { epsilon: g.right.epsilon, order: g.right.order, gridEpsilon: g.right.epsilon, gridOrder: g.right.order }
  if (at === undefined) return E.right(grid)
  const bound = (a: number, rdp: number): number => rdpEpsilonAtOrder(a, rdp, delta)
  const r = refineOrder(c.orders, g.right.order, g.right.epsilon, bound, at, (j) => bound(c.orders[j] as number, c.curve[j] as number))
  // The guard every accountant's answer passes (../guards.ts): a number ≥ 0 or ∞, else a refusal.
  if (!(r.value >= 0)) return E.left(numericFailure('epsilon', `RDP group privacy: ε = ${r.value} at α = ${r.order} is not a number ≥ 0; refused`))
  return E.right({ ...grid, epsilon: r.value, order: r.order })
}
