/**
 * The RDP accountant (Mironov 2017): the state is the composed RDP curve on a grid of orders (RDP
 * composes by adding curves, Prop. 1), plus the composed pure ε when every event has one, plus the
 * composed events themselves (so the curve can be evaluated at any real order). Queries convert at
 * the best order of the grid (Canonne, Kamath & Steinke 2020, Prop. 12), then search the real orders
 * between the grid's neighbours of that order (./continuous.ts) and report the order used; or use
 * the pure ε when that is smaller.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { checkCompose } from '../guards.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Accountant, DeltaAnswer, EpsilonAnswer } from '../accountant.js'
import { rdpDeltaAtOrder, rdpEpsilonAtOrder } from '../conversions.js'
import { rdpToDelta, rdpToEpsilon } from './convert.js'
import { refineOrder } from './continuous.js'
import { rdpCurve, rdpCurveDetailed, rdpEvaluator } from './curve.js'
import { DEFAULT_ORDERS, validateOrders } from './orders.js'

/** One composed event, kept so the curve can be evaluated off the grid. */
export interface RdpTerm {
  readonly event: PrivacyEvent
  readonly count: number
  readonly path: string
}

/** Immutable by convention: `curve` is never mutated; compose returns a new state. */
export interface RdpState {
  readonly orders: ReadonlyArray<number>
  /** ε(α) at each order, composed. */
  readonly curve: Float64Array
  /** Composed pure ε (∞ once any event has none). */
  readonly pureEpsilon: number
  readonly notes: ReadonlyArray<string>
  /**
   * The composed events (repeats of one event object merged), or null once there are more than
   * MAX_TERMS distinct ones: then queries stay on the grid (sound, possibly less tight).
   */
  readonly terms: ReadonlyArray<RdpTerm> | null
}

const DEFAULT_SET = new Set(DEFAULT_ORDERS)
/** No grid given, or one that contains every default order. */
const extendsDefaultGrid = (orders: ReadonlyArray<number> | undefined): boolean => {
  if (orders === undefined) return true
  const given = new Set(orders)
  for (const a of DEFAULT_SET) if (!given.has(a)) return false
  return true
}

/** Beyond this many distinct composed events the continuous search is skipped (its cost grows with them). */
export const MAX_TERMS = 64

export interface RdpAccountantOptions {
  readonly relation: NeighbouringRelation
  /** Rényi orders to track (default `DEFAULT_ORDERS`); each finite, 1 < α ≤ 10⁴. */
  readonly orders?: ReadonlyArray<number>
  /**
   * Search the real orders around the grid's best. Default: true on the default grid, also when
   * `orders` extends it (the CLI's --orders adds orders to it); false when `orders` replaces it (an
   * explicit grid is used as given, so `orders: [10.7]` answers at 10.7 and a paper's integer grid
   * reproduces the paper). false answers at the best grid order, the method before continuous
   * orders.
   */
  readonly continuous?: boolean
}

const fmt = (x: number): string => String(Number(x.toPrecision(6)))

const mergeNotes = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<string> =>
  b.every((n) => a.includes(n)) ? a : [...a, ...b.filter((n) => !a.includes(n))]

/** Adds `count` repetitions of `event` to the term list (merging repeats of the same object). */
const addTerm = (terms: ReadonlyArray<RdpTerm> | null, event: PrivacyEvent, count: number, path: string): ReadonlyArray<RdpTerm> | null => {
  if (terms === null) return null
  const i = terms.findIndex((t) => t.event === event)
  if (i >= 0) return terms.map((t, j) => (j === i ? { ...t, count: t.count + count } : t))
  return terms.length >= MAX_TERMS ? null : [...terms, { event, count, path }]
}

/** ε(α) of the composed terms at one real order, undefined when any term fails there. */
const composedAt = (terms: ReadonlyArray<RdpTerm>, relation: NeighbouringRelation): ((alpha: number) => number | undefined) => {
  const evs = terms.map((t) => ({ count: t.count, ev: rdpEvaluator(t.event, relation, t.path) }))
  const at = (alpha: number): number | undefined => {
    let sum = 0
    for (const { count, ev } of evs) {
      if (E.isLeft(ev)) return undefined
      const r = ev.right(alpha)
      if (E.isLeft(r)) return undefined
      sum += count * r.right
    }
    return sum
  }
  return at
}

/**
 * An RDP accountant under `relation`. Invalid `orders` are reported (naming 'orders') by every
 * compose and query rather than thrown.
 */
export const makeRdpAccountant = (options: RdpAccountantOptions): Accountant<RdpState> => {
  const { relation } = options
  const continuous = options.continuous ?? extendsDefaultGrid(options.orders)
  const ordersE = validateOrders(options.orders ?? DEFAULT_ORDERS)
  const orders = E.isRight(ordersE) ? ordersE.right : []
  const n = orders.length
  const method = (order: number, gridOrder: number): string =>
    order === gridOrder
      ? `RDP (Mironov 2017) → (ε,δ) by Canonne–Kamath–Steinke 2020, optimal order α = ${fmt(order)} of ${n}`
      : `RDP (Mironov 2017) → (ε,δ) by Canonne–Kamath–Steinke 2020 at the real order α = ${fmt(order)} ` +
        `(continuous search from the grid's best α = ${fmt(gridOrder)} of ${n})`
  /**
   * The evaluator of the last state searched (term lists are immutable, so the list identifies it):
   * repeated queries on one state (ε and δ, calibration) share its fold context. One entry, held
   * strongly: a module-wide WeakMap keyed by the list kept every state's evaluator, with its fold
   * context of every order searched, alive through each scavenge until the next full collection (a
   * weak table in the old generation: in a loop of cold queries ~750 KB promoted per scavenge
   * against ~21 KB without, node --trace-gc-nvp), and the full collections that followed slowed the
   * queries they overlapped.
   */
  let last: { readonly terms: ReadonlyArray<RdpTerm>; readonly at: (alpha: number) => number | undefined } | undefined
  const evaluatorOf = (terms: ReadonlyArray<RdpTerm>): ((alpha: number) => number | undefined) => {
    if (last?.terms !== terms) last = { terms, at: composedAt(terms, relation) }
    return last.at
  }
  /** The grid optimum refined over real orders, when the state still knows its events. */
  const search = (
    s: RdpState,
    grid: { readonly value: number; readonly order: number },
    bound: (alpha: number, rdp: number) => number,
  ): { readonly value: number; readonly order: number } => {
    if (!continuous || s.terms === null || s.terms.length === 0) return grid
    const at = evaluatorOf(s.terms)
    const v = orders.map((a, i) => bound(a, s.curve[i] as number))
    let best = grid
    for (const start of gridMinima(v, grid)) {
      const r = refineOrder(orders, start.order, start.value, bound, at, (i) => v[i] as number)
      if (r.value < best.value) best = { value: r.value, order: r.order }
    }
    return best
  }
  /**
   * Where to refine from: the grid's best order, and the other local minima of the conversion over
   * the grid within 2 % of it (at most 3 in all). A curve capped by a pure ε (the add direction of
   * Poisson sampling) converts to a flat valley at large orders beside the usual one at small orders;
   * the grid's best can sit in the wrong one.
   */
  const gridMinima = (
    v: ReadonlyArray<number>,
    grid: { readonly value: number; readonly order: number },
  ): ReadonlyArray<{ readonly value: number; readonly order: number }> => {
    const minima = [grid]
    for (let i = 0; i < n; i++) {
      const x = v[i] as number
      const isMin = (i === 0 || x < (v[i - 1] as number)) && (i === n - 1 || x <= (v[i + 1] as number))
      if (isMin && orders[i] !== grid.order && x <= grid.value * 1.02) minima.push({ value: x, order: orders[i] as number })
    }
    return minima.sort((a, b) => a.value - b.value).slice(0, 3)
  }
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
        terms: addTerm(s.terms, event, count, path),
      })
    }

  const epsilon =
    (delta: number) =>
    (s: RdpState): E.Either<DpError, EpsilonAnswer> => {
      const ok = checkState(s)
      if (E.isLeft(ok)) return ok
      // δ = 0: pure ε-DP. The RDP curve at finite orders gives none (CKS's conversion needs δ > 0);
      // the composed pure ε does (D_∞ of the composition, basic composition of the leaves' ε).
      if (delta === 0)
        return E.right(
          s.pureEpsilon < Infinity
            ? { epsilon: s.pureEpsilon, delta, method: 'pure ε-DP (δ = 0): sum of the events’ pure ε, D_∞ of the composition (basic composition)' }
            : { epsilon: Infinity, delta, method: 'δ = 0 asks for pure ε-DP; some event has no pure ε (a Gaussian, a stated zCDP or (ε, δ) guarantee)' },
        )
      const r = rdpToEpsilon(orders, s.curve, delta)
      if (E.isLeft(r)) return r
      const gridOrder = r.right.order
      const { value: eps, order } = search(s, { value: r.right.epsilon, order: gridOrder }, (a, rdp) =>
        rdpEpsilonAtOrder(a, rdp, delta),
      )
      if (s.pureEpsilon <= eps && s.pureEpsilon < Infinity)
        return E.right({ epsilon: s.pureEpsilon, delta, method: 'pure ε-DP: sum of the events’ pure ε (basic composition)' })
      if (eps === Infinity)
        return E.right({ epsilon: eps, delta, method: 'RDP: the curve is infinite at every order (a non-private event)' })
      return E.right({ epsilon: eps, delta, method: method(order, gridOrder), order })
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
      const gridOrder = r.right.order
      const { value: d, order } =
        r.right.delta > 0 && r.right.delta < 1
          ? search(s, { value: r.right.delta, order: gridOrder }, (a, rdp) => rdpDeltaAtOrder(a, rdp, eps))
          : { value: r.right.delta, order: gridOrder }
      if (d >= 1) return E.right({ epsilon: eps, delta: 1, method: 'RDP: no order gives δ < 1 at this ε' })
      // δ = 0 is exact only when some order has ε(α) = 0 (identical laws); otherwise the true δ at a
      // finite ε is positive, and an underflow reports the least positive double, the sound side.
      const floor = eps < Infinity && s.curve.every((v) => v > 0) ? Number.MIN_VALUE : 0
      return E.right({ epsilon: eps, delta: Math.max(d, floor), method: method(order, gridOrder), order })
    }

  return {
    name: 'rdp',
    description:
      'Rényi DP (Mironov 2017) on a grid of orders refined to the best real order: closed forms, the exact sampled Gaussian (Mironov–Talwar–Zhang 2019), ' +
      'Zhu–Wang 2019 / Wang–Balle–Kasiviswanathan 2019 subsampling bounds; (ε,δ) by Canonne–Kamath–Steinke 2020',
    relation,
    empty: { orders, curve: new Float64Array(n), pureEpsilon: 0, notes: [], terms: [] },
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
