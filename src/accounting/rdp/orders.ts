/**
 * The grid of Rényi orders an RDP curve is tracked on. Any order gives a valid (ε, δ) bound, so
 * the grid only decides tightness: it is dense where the optimal order of typical workloads lies
 * (close to 1 for large total loss, 2–64 for DP-SGD-like workloads) and roughly geometric above,
 * with neighbouring orders at most 25% apart. The grid optimum alone can lose several percent to
 * the continuous one (2.6 % for PoissonSample(0.01, Gaussian σ 1.1) × 100 at δ = 1e-5: α = 11
 * against 10.69; issue 10 counted 8 of 85 reference workloads losing more than 1 %), so the
 * accountant uses the grid only to bracket the best order and then searches the real orders
 * between its neighbours (./continuous.ts; bench/rdp.bench.mjs measures both).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'

/** Orders above this are refused: the integer-order sums cost O(α) and nothing useful lives there. */
export const MAX_ORDER = 10_000

const range = (from: number, to: number, step: number): number[] => {
  const out: number[] = []
  // Integer step counts, so 1.05 + 19·0.05 is computed once and rounded, not accumulated.
  const n = Math.round((to - from) / step)
  for (let i = 0; i <= n; i++) out.push(Math.round((from + i * step) * 1e6) / 1e6)
  return out
}

/**
 * 1.05…2 in steps of 0.05, 2.25…10 in steps of 0.25, every integer 11…64, then 72 … 1024 with
 * ratios ≤ 1.25 (125 orders).
 */
export const DEFAULT_ORDERS: ReadonlyArray<number> = Object.freeze([
  ...range(1.05, 2, 0.05),
  ...range(2.25, 10, 0.25),
  ...range(11, 64, 1),
  72, 80, 88, 96, 112, 128, 144, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024,
])

const strictlyAscending = (xs: ReadonlyArray<number>): boolean => {
  for (let i = 1; i < xs.length; i++) if (!((xs[i - 1] as number) < (xs[i] as number))) return false
  return true
}

/**
 * Checks a user grid: non-empty, every order finite with 1 < α ≤ MAX_ORDER. Returns the orders
 * sorted ascending without duplicates (a frozen array: the input itself when it is frozen and already so). `path` names the grid in errors.
 */
export const validateOrders = (
  orders: ReadonlyArray<number>,
  path = 'orders',
): E.Either<DpError, ReadonlyArray<number>> => {
  if (orders.length === 0) return E.left(invalidParameter(path, orders, 'must contain at least one Rényi order'))
  for (let i = 0; i < orders.length; i++) {
    const a = orders[i] as number
    if (typeof a !== 'number' || !Number.isFinite(a) || !(a > 1) || a > MAX_ORDER)
      return E.left(invalidParameter(`${path}[${i}]`, a, `a Rényi order must be a finite number in (1, ${MAX_ORDER}]`))
  }
  // A frozen grid already ascending without duplicates (what this function returns, passed back by
  // the accountant on every compose) is its own answer: no copy, no sort.
  if (Object.isFrozen(orders) && strictlyAscending(orders)) return E.right(orders)
  const sorted = [...new Set(orders)].sort((x, y) => x - y)
  return E.right(Object.freeze(sorted))
}
