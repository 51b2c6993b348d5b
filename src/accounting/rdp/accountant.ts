/**
 * The RDP accountant (Mironov 2017): the state is the composed RDP curve on a grid of orders (RDP
 * composes by adding curves, Prop. 1), plus the composed pure ε when every event has one. Queries
 * convert at the best order of the grid (Canonne, Kamath & Steinke 2020, Prop. 12), or use the pure
 * ε when that is smaller.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { checkCompose } from '../guards.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Accountant, DeltaAnswer, EpsilonAnswer } from '../accountant.js'
import { rdpToDelta, rdpToEpsilon } from './convert.js'
import { rdpCurve, rdpCurveDetailed } from './curve.js'
import { DEFAULT_ORDERS, validateOrders } from './orders.js'

/** Immutable by convention: `curve` is never mutated; compose returns a new state. */
export interface RdpState {
  readonly orders: ReadonlyArray<number>
  /** ε(α) at each order, composed. */
  readonly curve: Float64Array
  /** Composed pure ε (∞ once any event has none). */
  readonly pureEpsilon: number
  readonly notes: ReadonlyArray<string>
}

export interface RdpAccountantOptions {
  readonly relation: NeighbouringRelation
  /** Rényi orders to track (default `DEFAULT_ORDERS`); each finite, 1 < α ≤ 10⁴. */
  readonly orders?: ReadonlyArray<number>
}

const fmt = (x: number): string => String(Number(x.toPrecision(6)))

const mergeNotes = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<string> =>
  b.every((n) => a.includes(n)) ? a : [...a, ...b.filter((n) => !a.includes(n))]

/**
 * An RDP accountant under `relation`. Invalid `orders` are reported (naming 'orders') by every
 * compose and query rather than thrown.
 */
export const makeRdpAccountant = (options: RdpAccountantOptions): Accountant<RdpState> => {
  const { relation } = options
  const ordersE = validateOrders(options.orders ?? DEFAULT_ORDERS)
  const orders = E.isRight(ordersE) ? ordersE.right : []
  const n = orders.length
  const method = (order: number): string =>
    `RDP (Mironov 2017) → (ε,δ) by Canonne–Kamath–Steinke 2020, optimal order α = ${fmt(order)} of ${n}`
  const checkState = (s: RdpState): E.Either<DpError, void> => {
    if (E.isLeft(ordersE)) return ordersE
    return s.curve.length === n
      ? E.right(undefined)
      : E.left(invalidParameter('state', s.curve.length, `an RDP state on ${s.curve.length} orders, this accountant tracks ${n}`))
  }

  const compose =
    (event: PrivacyEvent, count = 1, path = '$') =>
    (s: RdpState): E.Either<DpError, RdpState> => {
      const ok = checkState(s)
      if (E.isLeft(ok)) return ok
      const valid = checkCompose(event, count, path)
      if (E.isLeft(valid)) return valid
      const r = rdpCurveDetailed(event, relation, orders, path)
      if (E.isLeft(r)) return r
      // count = 0 composes nothing (and must not turn ∞ into 0·∞ = NaN).
      if (count === 0) return E.right(s)
      const curve = new Float64Array(n)
      for (let i = 0; i < n; i++) curve[i] = (s.curve[i] as number) + count * (r.right.curve[i] as number)
      return E.right({
        orders,
        curve,
        pureEpsilon: s.pureEpsilon + count * r.right.pureEpsilon,
        notes: mergeNotes(s.notes, r.right.notes),
      })
    }

  const epsilon =
    (delta: number) =>
    (s: RdpState): E.Either<DpError, EpsilonAnswer> => {
      const ok = checkState(s)
      if (E.isLeft(ok)) return ok
      const r = rdpToEpsilon(orders, s.curve, delta)
      if (E.isLeft(r)) return r
      const { epsilon: eps, order } = r.right
      if (s.pureEpsilon <= eps && s.pureEpsilon < Infinity)
        return E.right({ epsilon: s.pureEpsilon, delta, method: 'pure ε-DP: sum of the events’ pure ε (basic composition)' })
      if (eps === Infinity)
        return E.right({ epsilon: eps, delta, method: 'RDP: the curve is infinite at every order (a non-private event)' })
      return E.right({ epsilon: eps, delta, method: method(order), order })
    }

  const delta =
    (eps: number) =>
    (s: RdpState): E.Either<DpError, DeltaAnswer> => {
      const ok = checkState(s)
      if (E.isLeft(ok)) return ok
      const r = rdpToDelta(orders, s.curve, eps)
      if (E.isLeft(r)) return r
      if (s.pureEpsilon <= eps)
        return E.right({ epsilon: eps, delta: 0, method: 'pure ε-DP: sum of the events’ pure ε (basic composition)' })
      const { delta: d, order } = r.right
      if (d >= 1) return E.right({ epsilon: eps, delta: 1, method: 'RDP: no order gives δ < 1 at this ε' })
      return E.right({ epsilon: eps, delta: d, method: method(order), order })
    }

  return {
    name: 'rdp',
    description:
      'Rényi DP (Mironov 2017) on a grid of orders: closed forms, the exact sampled Gaussian (Mironov–Talwar–Zhang 2019), ' +
      'Zhu–Wang 2019 / Wang–Balle–Kasiviswanathan 2019 subsampling bounds; (ε,δ) by Canonne–Kamath–Steinke 2020',
    relation,
    empty: { orders, curve: new Float64Array(n), pureEpsilon: 0, notes: [] },
    compose,
    epsilon,
    delta,
    notes: (s) => s.notes,
  }
}

/** The composed curve of a state, order by order (for printing). */
export const rdpAt = (s: RdpState): ReadonlyArray<{ readonly order: number; readonly rdp: number }> =>
  s.orders.map((order, i) => ({ order, rdp: s.curve[i] as number }))

/**
 * The RDP curve of one event at user-chosen orders, one value per entry of `orders` in the order
 * given (for a CLI to print). Same as `rdpCurve`.
 */
export const rdpCurveAtOrders = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  orders: ReadonlyArray<number>,
  path = '$',
): E.Either<DpError, Float64Array> => rdpCurve(event, relation, orders, path)
