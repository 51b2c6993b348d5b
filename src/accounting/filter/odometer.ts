/**
 * A privacy odometer: the privacy loss so far, valid at every time at once, under fully adaptive
 * composition (Rogers, Roth, Ullman & Vadhan 2016: an odometer u_t is valid at level δ when, for
 * every pair of neighbours, P(∃t: L_t > u_t) ≤ δ, with L_t the privacy loss log(P/Q) of the first t
 * outputs). Unlike a filter it needs no budget in advance, and it pays for that: its ε is larger
 * than a non-adaptive accountant's for the same steps.
 *
 * Construction (the supermartingale behind Feldman & Zrnic 2021's Rényi filter, read as an
 * odometer, as in Whitehouse, Ramdas, Rogers & Wu 2023 and Lécuyer 2021): at a fixed order α, if
 * step i is (α, ε_i(α))-RDP with ε_i chosen from the past, then E[e^{(α−1)ℓ_i} | past] ≤ e^{(α−1)ε_i(α)}
 * for the step's loss ℓ_i under the first neighbour (E_P[(P/Q)^{α−1}] = e^{(α−1)D_α(P‖Q)}), so
 * M_t = exp((α − 1)(L_t − S_t(α))), S_t(α) = Σ_{i≤t} ε_i(α), is a non-negative supermartingale with
 * M_0 = 1. Ville's inequality gives P(∃t: M_t ≥ 1/β) ≤ β, i.e.
 *   P(∃t: L_t ≥ S_t(α) + log(1/β)/(α − 1)) ≤ β.
 * A union bound over a set A of orders fixed in advance, β = δ/|A| each, makes
 *   u_t = min_{α∈A} S_t(α) + log(|A|/δ)/(α − 1)
 * valid at level δ. The odometer reads u_t at any δ asked (each δ is a separate statement).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter, numericFailure } from '../../core/error.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { checkCompose } from '../guards.js'
import { rdpCurveDetailed } from '../rdp/curve.js'
import { validateOrders } from '../rdp/orders.js'
import { addUp } from './filter.js'

/** The orders an odometer tracks by default: few, since each costs log|A| in every reading. */
export const ODOMETER_ORDERS: ReadonlyArray<number> = Object.freeze([1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256])

export interface OdometerReading {
  /** u_t: with probability ≥ 1 − δ the privacy loss never exceeded this, at any time so far. */
  readonly epsilon: number
  readonly delta: number
  /** The order that gave the minimum (absent when nothing has been spent). */
  readonly order?: number
  readonly method: string
}

export interface PrivacyOdometer {
  readonly relation: NeighbouringRelation
  readonly orders: ReadonlyArray<number>
  /** S_t(α) at each order. */
  readonly spent: Float64Array
  /** Steps recorded (repetitions counted). */
  readonly steps: number
  /** The odometer after also running `count` copies of `event`. */
  readonly record: (event: PrivacyEvent, count?: number, path?: string) => E.Either<DpError, PrivacyOdometer>
  /** u_t at level δ ∈ (0, 1). */
  readonly loss: (delta: number) => E.Either<DpError, OdometerReading>
}

/** An RDP odometer over `orders` (default ODOMETER_ORDERS), under `relation`. */
export const rdpOdometer = (options: {
  readonly relation: NeighbouringRelation
  readonly orders?: ReadonlyArray<number>
}): E.Either<DpError, PrivacyOdometer> => {
  const os = validateOrders(options.orders ?? ODOMETER_ORDERS)
  if (E.isLeft(os)) return os
  const orders = os.right
  const { relation } = options
  const build = (spent: Float64Array, steps: number): PrivacyOdometer => ({
    relation,
    orders,
    spent,
    steps,
    record: (event, count = 1, path = '$') => {
      const ok = checkCompose(event, count, path)
      if (E.isLeft(ok)) return ok
      if (count === 0) return E.right(build(spent, steps))
      const c = rdpCurveDetailed(event, relation, orders, path)
      if (E.isLeft(c)) return c
      const next = new Float64Array(orders.length)
      for (let i = 0; i < orders.length; i++) {
        const cost = count * (c.right.curve[i] as number)
        // A cost that is not a number ≥ 0 is refused, never recorded (issue 30's guard).
        if (!(cost >= 0)) return E.left(numericFailure(path, `RDP odometer: the step's RDP at α = ${orders[i]} is ${cost}, not a number ≥ 0; not recorded`))
        next[i] = addUp(spent[i] as number, cost)
      }
      return E.right(build(next, steps + count))
    },
    loss: (delta) => {
      if (!(delta > 0 && delta < 1)) return E.left(invalidParameter('delta', delta, 'δ must be in (0, 1)'))
      if (steps === 0) return E.right({ epsilon: 0, delta, method: 'nothing recorded yet' })
      const slack = Math.log(orders.length / delta)
      let best = Infinity
      let order = orders[0] as number
      for (let i = 0; i < orders.length; i++) {
        const a = orders[i] as number
        const u = (spent[i] as number) + slack / (a - 1)
        if (u < best) {
          best = u
          order = a
        }
      }
      return E.right({
        epsilon: best,
        delta,
        order,
        method:
          `RDP odometer (Feldman & Zrnic 2021 supermartingale, Ville's inequality, union over ${orders.length} orders): ` +
          `S(α) + log(${orders.length}/δ)/(α − 1) at α = ${String(Number(order.toPrecision(6)))}`,
      })
    },
  })
  return E.right(build(new Float64Array(orders.length), 0))
}
