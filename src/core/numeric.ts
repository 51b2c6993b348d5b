/**
 * Small numerical kernels used across accountants. Special functions (erfc, lgamma, betainc,
 * normal cdf/quantile) come from @stdlib; these are the log-space combinators and root finders
 * that every accountant needs and that @stdlib does not package in this form.
 *
 * @module
 */

/** log(e^a + e^b) without overflow. */
export const logAddExp = (a: number, b: number): number => {
  if (a === -Infinity) return b
  if (b === -Infinity) return a
  const m = Math.max(a, b)
  return m + Math.log1p(Math.exp(-Math.abs(a - b)))
}

/** log(e^a − e^b) for a ≥ b; −∞ when a = b; NaN when a < b (a caller bug). */
export const logSubExp = (a: number, b: number): number => {
  if (b === -Infinity) return a
  if (a < b) return Number.NaN
  if (a === b) return -Infinity
  return a + log1mExp(b - a)
}

/** log(1 − e^x) for x ≤ 0, accurate near 0 and for very negative x (Mächler 2012). */
export const log1mExp = (x: number): number => {
  if (x > 0) return Number.NaN
  return x > -Math.LN2 ? Math.log(-Math.expm1(x)) : Math.log1p(-Math.exp(x))
}

/** log Σ e^{x_i} over an array. */
export const logSumExp = (xs: ArrayLike<number>): number => {
  let m = -Infinity
  for (let i = 0; i < xs.length; i++) if ((xs[i] as number) > m) m = xs[i] as number
  if (m === -Infinity || m === Infinity) return m
  let s = 0
  for (let i = 0; i < xs.length; i++) s += Math.exp((xs[i] as number) - m)
  return m + Math.log(s)
}

/**
 * Bisection for the boundary of a monotone predicate on [lo, hi]: returns the bracket
 * [a, b] with pred(a) = false, pred(b) = true and b − a ≤ tol (absolute) or ≤ relTol·b.
 * The caller picks the side it reports (the conservative one).
 */
export const bisectPredicate = (
  pred: (x: number) => boolean,
  lo: number,
  hi: number,
  tol: number,
  relTol = 0,
  maxIter = 200,
): { readonly lo: number; readonly hi: number } => {
  let a = lo
  let b = hi
  for (let i = 0; i < maxIter && b - a > Math.max(tol, relTol * Math.abs(b)); i++) {
    const m = a + (b - a) / 2
    if (m <= a || m >= b) break
    if (pred(m)) b = m
    else a = m
  }
  return { lo: a, hi: b }
}

/**
 * Golden-section minimisation of a unimodal function on [lo, hi]. Used to optimise a free
 * order in a conversion: any order gives a valid bound, so a slightly sub-optimal minimiser
 * only loses tightness, never soundness.
 */
export const goldenMin = (
  f: (x: number) => number,
  lo: number,
  hi: number,
  tol = 1e-9,
  maxIter = 200,
): { readonly x: number; readonly value: number } => {
  const g = (Math.sqrt(5) - 1) / 2
  let a = lo
  let b = hi
  let c = b - g * (b - a)
  let d = a + g * (b - a)
  let fc = f(c)
  let fd = f(d)
  for (let i = 0; i < maxIter && b - a > tol * (1 + Math.abs(a) + Math.abs(b)); i++) {
    if (fc <= fd) {
      b = d
      d = c
      fd = fc
      c = b - g * (b - a)
      fc = f(c)
    } else {
      a = c
      c = d
      fc = fd
      d = a + g * (b - a)
      fd = f(d)
    }
  }
  return fc <= fd ? { x: c, value: fc } : { x: d, value: fd }
}

/** A point where the function's value is already known (a seed of `brentMin`). */
export interface KnownPoint {
  readonly x: number
  readonly value: number
}

/**
 * Brent's minimisation without derivatives on [lo, hi] (Brent 1973, "Algorithms for Minimization
 * without Derivatives", ch. 5, procedure localmin): parabolic interpolation through the three best
 * points, falling back to a golden-section step whenever the parabola leaves the bracket or does not
 * shrink fast enough, so it is never slower than golden section by more than a constant and, on a
 * smooth minimum, converges superlinearly (~10 evaluations where golden section needs ~30 for the
 * same bracket). Stops when x is within 2·(√ε_mach·|x| + tol/3) of the bracket's midpoint or after
 * `maxEval` evaluations. Infinite or NaN values are handled as "worse" (the parabola is skipped).
 * Like `goldenMin`, for unimodal functions; on others it finds some local minimum.
 *
 * `known`: points of [lo, hi] whose values the caller already has (an order search knows the grid's
 * best order and its two neighbours, the ends of the bracket). With three of them at distinct x the
 * search starts from them as Brent's x, w, v (the best first) and its first step is the parabola
 * through them, not a golden probe: the two or three evaluations golden steps spend before a
 * parabola can be fitted are saved. They are not evaluated again and not counted in `evaluations`;
 * the result may be one of them (its value is then the caller's).
 */
export const brentMin = (
  f: (x: number) => number,
  lo: number,
  hi: number,
  tol = 1e-9,
  maxEval = 100,
  known: ReadonlyArray<KnownPoint> = [],
): {
  readonly x: number
  readonly value: number
  readonly evaluations: number
  /** The bracket left (it holds the minimum of a unimodal function), and whether `tol` was met. */
  readonly lo: number
  readonly hi: number
  readonly converged: boolean
} => {
  const GOLD = (3 - Math.sqrt(5)) / 2
  const SQRT_EPS = Math.sqrt(Number.EPSILON)
  let a = lo
  let b = hi
  const seeds = known
    .filter((p) => p.x >= lo && p.x <= hi && Number.isFinite(p.value))
    .sort((p, r) => p.value - r.value)
  const seeded = seeds.length >= 3 && seeds[0]!.x !== seeds[1]!.x && seeds[1]!.x !== seeds[2]!.x && seeds[0]!.x !== seeds[2]!.x
  let x: number
  let w: number
  let v: number
  let fx: number
  let fw: number
  let fv: number
  let evaluations = 0
  // e: the step before last; the whole bracket lets the first parabola take any step inside it.
  let d = 0
  let e = 0
  if (seeded) {
    ;({ x, value: fx } = seeds[0]!)
    ;({ x: w, value: fw } = seeds[1]!)
    ;({ x: v, value: fv } = seeds[2]!)
    e = b - a
    d = b - a
  } else {
    x = a + GOLD * (b - a)
    w = x
    v = x
    fx = f(x)
    fw = fx
    fv = fx
    evaluations = 1
  }
  let converged = false
  while (evaluations < maxEval) {
    const m = 0.5 * (a + b)
    const tol1 = SQRT_EPS * Math.abs(x) + tol / 3
    const tol2 = 2 * tol1
    if (Math.abs(x - m) <= tol2 - 0.5 * (b - a)) {
      converged = true
      break
    }
    let parabolic = false
    if (Math.abs(e) > tol1) {
      // The parabola through (v, fv), (w, fw), (x, fx): its vertex is x + p/q.
      const r = (x - w) * (fx - fv)
      let q = (x - v) * (fx - fw)
      let p = (x - v) * q - (x - w) * r
      q = 2 * (q - r)
      if (q > 0) p = -p
      else q = -q
      const before = e
      e = d
      // Accepted only inside the bracket and shorter than half the step before last.
      if (Math.abs(p) < Math.abs(0.5 * q * before) && p > q * (a - x) && p < q * (b - x)) {
        d = p / q
        const u = x + d
        if (u - a < tol2 || b - u < tol2) d = x < m ? tol1 : -tol1
        parabolic = true
      }
    }
    if (!parabolic) {
      e = (x < m ? b : a) - x
      d = GOLD * e
    }
    const u = Math.abs(d) >= tol1 ? x + d : x + (d > 0 ? tol1 : -tol1)
    const fu = f(u)
    evaluations++
    if (fu <= fx) {
      if (u < x) b = x
      else a = x
      v = w
      fv = fw
      w = x
      fw = fx
      x = u
      fx = fu
    } else {
      if (u < x) a = u
      else b = u
      if (fu <= fw || w === x) {
        v = w
        fv = fw
        w = u
        fw = fu
      } else if (fu <= fv || v === x || v === w) {
        v = u
        fv = fu
      }
    }
  }
  // The last evaluation may have met the tolerance: the test needs no further evaluation.
  if (!converged) converged = Math.abs(x - 0.5 * (a + b)) <= 2 * (SQRT_EPS * Math.abs(x) + tol / 3) - 0.5 * (b - a)
  return { x, value: fx, evaluations, lo: a, hi: b, converged }
}

// One shared 8-byte buffer for nextUp: it runs once per order per leaf in the RDP fold, where a
// fresh DataView and BigInt arithmetic per call dominated the accounting of large specs.
const F64 = new Float64Array(1)
const U32 = new Uint32Array(F64.buffer)
const LO = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1
const HI = 1 - LO

/** The next float above x (conservative rounding of a privacy loss upward). */
export const nextUp = (x: number): number => {
  if (Number.isNaN(x) || x === Infinity) return x
  if (x === 0) return Number.MIN_VALUE
  F64[0] = x
  // The magnitude's bit pattern moves one step away from zero for x > 0, towards it for x < 0.
  if (x > 0) {
    if (U32[LO] === 0xffffffff) {
      U32[LO] = 0
      U32[HI] = (U32[HI] as number) + 1
    } else U32[LO] = (U32[LO] as number) + 1
  } else if (U32[LO] === 0) {
    U32[LO] = 0xffffffff
    U32[HI] = (U32[HI] as number) - 1
  } else U32[LO] = (U32[LO] as number) - 1
  return F64[0] as number
}

/**
 * Inflates a computed privacy loss by a relative margin so floating-point error in a long
 * computation cannot make it understate the true value (OpenDP's conservative-rounding habit).
 */
export const roundUpLoss = (x: number, relMargin = 1e-12): number =>
  x <= 0 || !Number.isFinite(x) ? x : nextUp(x * (1 + relMargin))

/** The smallest normal double, 2^-1022: below it a double keeps fewer bits and relative error bounds stop holding. */
export const MIN_NORMAL = 2 ** -1022

/**
 * The absolute rounding error a subnormal result may carry, for a bound that counts it: two halves of the
 * least positive double (the operation's own rounding and one before it) when 0 < x < MIN_NORMAL, else 0.
 * Relative error terms (k·u·x) miss it; x = 0 gets none (use `roundUpSubnormal` where 0 may be an underflow
 * of a positive value).
 */
export const subnormalError = (x: number): number => (x > 0 && x < MIN_NORMAL ? 2 * Number.MIN_VALUE : 0)

/**
 * x ≥ 0 computed in floating point, made an upper bound where it falls below the normal doubles (an
 * underflow to 0 included): x + 2·(least positive double) there, x itself above. For quantities that must
 * not be understated and must never read 0 when they are positive (a privacy loss, a μ², a sampled δ).
 */
export const roundUpSubnormal = (x: number): number => (x >= MIN_NORMAL ? x : x + 2 * Number.MIN_VALUE)
