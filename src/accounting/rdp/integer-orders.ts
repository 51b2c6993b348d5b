/**
 * Extending a bound known only at integer orders α ≥ 2 (the general subsampling theorems are
 * stated there) to every order of a grid, soundly.
 *
 * - Between integers: the cumulant K(α) = (α − 1)D_α(P‖Q) is convex in α (van Erven & Harremoës
 *   2014, "Rényi divergence and Kullback–Leibler divergence", Thm 11; used the same way by Zhu &
 *   Wang 2019 and Wang, Balle & Kasiviswanathan 2019). A mechanism's curve is a supremum of
 *   divergences over neighbouring pairs, and a supremum of convex functions is convex, so the chord
 *   through upper bounds at ⌊α⌋ and ⌈α⌉ bounds K(α) from above.
 * - Below 2: D_α is non-decreasing in α (van Erven & Harremoës 2014, Thm 3), so the bound at 2
 *   holds for every α ∈ (1, 2).
 *
 * @module
 */

/** The integers 2..⌈max order⌉ whose values a general bound needs for `orders`. */
export const integerOrdersFor = (orders: ReadonlyArray<number>): ReadonlyArray<number> => {
  let max = 2
  for (const a of orders) if (a > max) max = a
  const top = Math.ceil(max)
  const out: number[] = []
  for (let n = 2; n <= top; n++) out.push(n)
  return out
}

/**
 * The curve on `orders` from a bound `atInteger(n)` valid at integers n ≥ 2 (evaluated once per
 * integer needed).
 */
export const fromIntegerOrders = (
  orders: ReadonlyArray<number>,
  atInteger: (n: number) => number,
): Float64Array => {
  const memo = new Map<number, number>()
  const at = (n: number): number => {
    let v = memo.get(n)
    if (v === undefined) {
      v = atInteger(n)
      memo.set(n, v)
    }
    return v
  }
  const out = new Float64Array(orders.length)
  for (let i = 0; i < orders.length; i++) {
    const a = orders[i] as number
    if (a <= 2) out[i] = at(2)
    else if (Number.isInteger(a)) out[i] = at(a)
    else {
      const lo = Math.floor(a)
      const hi = lo + 1
      const kLo = (lo - 1) * at(lo)
      const kHi = (hi - 1) * at(hi)
      // An infinite endpoint makes the chord infinite; avoid 0·∞ = NaN.
      out[i] = kLo === Infinity || kHi === Infinity ? Infinity : ((hi - a) * kLo + (a - lo) * kHi) / (a - 1)
    }
  }
  return out
}
