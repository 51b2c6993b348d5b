/**
 * A bracketing root finder for the boundary of a monotone predicate given as a signed gap:
 * g(x) > 0 means "not yet" and g(x) ≤ 0 means "satisfied", with g(lo) > 0 ≥ g(hi). It keeps
 * the bracket like bisection — so the caller can always report the satisfied end — but steps by
 * the Illinois variant of regula falsi, which needs far fewer evaluations when g is smooth
 * (KOV's log δ_pure, an accountant's ε(δ)). Non-finite gaps and stalled progress fall back to
 * bisection, so it never does worse than about twice bisection.
 *
 * @module
 */

export const illinoisBracket = (
  g: (x: number) => number,
  lo: number,
  hi: number,
  absTol: number,
  relTol: number,
  maxIter = 300,
): { readonly lo: number; readonly hi: number } => {
  let a = lo
  let b = hi
  let ga = g(a)
  let gb = g(b)
  let side = 0 // which end the last step replaced: −1 = a, +1 = b
  let lastWidth = b - a
  for (let i = 0; i < maxIter; i++) {
    const width = b - a
    if (!(width > Math.max(absTol, relTol * Math.abs(b)))) break
    let x: number
    // Bisect when the gaps are not usable or the last two steps did not halve the bracket.
    const stalled = i % 3 === 2 && width > lastWidth / 2
    if (i % 3 === 2) lastWidth = width
    if (stalled || !Number.isFinite(ga) || !Number.isFinite(gb) || ga === gb) x = a + width / 2
    else {
      x = (a * gb - b * ga) / (gb - ga)
      if (!(x > a && x < b)) x = a + width / 2
    }
    if (x <= a || x >= b) break
    const gx = g(x)
    if (gx <= 0) {
      b = x
      gb = gx
      if (side === 1) ga /= 2 // Illinois: a kept twice in a row, damp its gap
      side = 1
    } else {
      a = x
      ga = gx
      if (side === -1) gb /= 2
      side = -1
    }
  }
  return { lo: a, hi: b }
}
