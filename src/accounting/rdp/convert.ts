/**
 * From an RDP curve on a grid to (ε, δ)-DP: every order gives a valid bound (Canonne, Kamath &
 * Steinke 2020, Prop. 12, via ../conversions.ts), so we take the best order of the grid.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter, numericFailure } from '../../core/error.js'
import { rdpDeltaAtOrder, rdpEpsilonAtOrder } from '../conversions.js'

/**
 * The minimum over the grid of a per-order bound `at(α, ε(α))`, and the order attaining it (the
 * first order when every order gives ∞). A NaN bound means an invalid curve value: an error.
 */
const minOverGrid = (
  orders: ReadonlyArray<number>,
  curve: ArrayLike<number>,
  at: (alpha: number, rdp: number) => number,
): E.Either<DpError, { readonly value: number; readonly order: number }> => {
  if (!(orders.length === curve.length && orders.length > 0))
    return E.left(invalidParameter('curve', curve.length, `needs one RDP value per order (${orders.length} orders)`))
  let value = Infinity
  let order = orders[0] as number
  for (let i = 0; i < orders.length; i++) {
    const a = orders[i] as number
    const v = at(a, curve[i] as number)
    if (Number.isNaN(v)) return E.left(numericFailure('curve', `order ${a} with RDP value ${curve[i]} gives no valid bound (need α > 1, value ≥ 0)`))
    if (v < value) {
      value = v
      order = a
    }
  }
  return E.right({ value, order })
}

/** The smallest ε over the grid at which the curve gives (ε, δ)-DP, and its order. δ ∈ (0, 1). */
export const rdpToEpsilon = (
  orders: ReadonlyArray<number>,
  curve: ArrayLike<number>,
  delta: number,
): E.Either<DpError, { readonly epsilon: number; readonly order: number }> => {
  if (!(delta > 0 && delta < 1)) return E.left(invalidParameter('delta', delta, 'δ must be a number in (0, 1)'))
  const r = minOverGrid(orders, curve, (a, rdp) => rdpEpsilonAtOrder(a, rdp, delta))
  return E.isLeft(r) ? r : E.right({ epsilon: r.right.value, order: r.right.order })
}

/** The smallest δ over the grid at which the curve gives (ε, δ)-DP, and its order. ε finite, ≥ 0. */
export const rdpToDelta = (
  orders: ReadonlyArray<number>,
  curve: ArrayLike<number>,
  epsilon: number,
): E.Either<DpError, { readonly delta: number; readonly order: number }> => {
  if (!(epsilon >= 0 && Number.isFinite(epsilon)))
    return E.left(invalidParameter('epsilon', epsilon, 'ε must be a finite number ≥ 0'))
  const r = minOverGrid(orders, curve, (a, rdp) => rdpDeltaAtOrder(a, rdp, epsilon))
  return E.isLeft(r) ? r : E.right({ delta: r.right.value, order: r.right.order })
}
