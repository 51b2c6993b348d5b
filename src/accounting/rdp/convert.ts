/**
 * From an RDP curve on a grid to (ε, δ)-DP: every order gives a valid bound (Canonne, Kamath &
 * Steinke 2020, Prop. 12, via ../conversions.ts), so we take the best order of the grid.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter, numericFailure } from '../../core/error.js'
import { rdpDeltaAtOrder, rdpEpsilonAtOrder } from '../conversions.js'

const sameLength = (orders: ReadonlyArray<number>, curve: ArrayLike<number>): E.Either<DpError, void> =>
  orders.length === curve.length && orders.length > 0
    ? E.right(undefined)
    : E.left(invalidParameter('curve', curve.length, `needs one RDP value per order (${orders.length} orders)`))

/**
 * The smallest ε over the grid at which the curve gives (ε, δ)-DP, and the order attaining it
 * (the first order when every order gives ∞). δ must be in (0, 1).
 */
export const rdpToEpsilon = (
  orders: ReadonlyArray<number>,
  curve: ArrayLike<number>,
  delta: number,
): E.Either<DpError, { readonly epsilon: number; readonly order: number }> => {
  if (!(delta > 0 && delta < 1)) return E.left(invalidParameter('delta', delta, 'δ must be a number in (0, 1)'))
  const ok = sameLength(orders, curve)
  if (E.isLeft(ok)) return ok
  let best = Infinity
  let order = orders[0] as number
  for (let i = 0; i < orders.length; i++) {
    const a = orders[i] as number
    const eps = rdpEpsilonAtOrder(a, curve[i] as number, delta)
    if (Number.isNaN(eps)) return E.left(numericFailure('curve', `order ${a} with RDP value ${curve[i]} gives no valid bound (need α > 1, value ≥ 0)`))
    if (eps < best) {
      best = eps
      order = a
    }
  }
  return E.right({ epsilon: best, order })
}

/**
 * The smallest δ over the grid at which the curve gives (ε, δ)-DP, and the order attaining it.
 * ε must be finite and ≥ 0.
 */
export const rdpToDelta = (
  orders: ReadonlyArray<number>,
  curve: ArrayLike<number>,
  epsilon: number,
): E.Either<DpError, { readonly delta: number; readonly order: number }> => {
  if (!(epsilon >= 0 && Number.isFinite(epsilon)))
    return E.left(invalidParameter('epsilon', epsilon, 'ε must be a finite number ≥ 0'))
  const ok = sameLength(orders, curve)
  if (E.isLeft(ok)) return ok
  let best = Infinity
  let order = orders[0] as number
  for (let i = 0; i < orders.length; i++) {
    const a = orders[i] as number
    const d = rdpDeltaAtOrder(a, curve[i] as number, epsilon)
    if (Number.isNaN(d)) return E.left(numericFailure('curve', `order ${a} with RDP value ${curve[i]} gives no valid bound (need α > 1, value ≥ 0)`))
    if (d < best) {
      best = d
      order = a
    }
  }
  return E.right({ delta: best, order })
}
