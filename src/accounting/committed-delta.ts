/**
 * The δ that a composition of (ε_i, δ_i) steps commits whatever ε is asked, D = 1 − Π (1 − δ_i)^{c_i}
 * (the δ of KOV 2015 Thm 3.3/3.5 at δ̃ = 0, and the mass at +∞ of a composed PLD: Sommer, Meiser &
 * Mohammadi 2019, §4.4), with rigorous rounding, so that a δ sitting exactly on that boundary is
 * recognised (issue 26: (1, 0.1)∘(2, 0.2) at δ = 0.28 is (3, 0.28)-DP; a float log1p/expm1
 * evaluation misses it by an ulp either way).
 *
 * Why double-double: every input δ_i is a double, so 1 − δ_i is exact as an unevaluated sum of
 * two doubles (TwoSum, Knuth TAOCP vol. 2 §4.2.2), and products in that format have relative error
 * at most 16u² each (u = 2⁻⁵³; Joldes, Muller & Popescu 2017, Thm 5.1 gives 5u² for DWTimesDW, we
 * take 16u²). Powers c_i ≤ 2⁴⁰ take at most 82 products by squaring, so a bound of
 * (16·M + 8)u² on the relative error (M the number of products; the 8u² for the final comparison)
 * is a few 1e-30: far below the gap between any two doubles near D.
 *
 * @module
 */
import { nextUp } from '../core/numeric.js'

const nextDown = (x: number): number => -nextUp(-x)

/** One factor of the product: `count` steps of stated δ. */
export interface DeltaFactor {
  readonly delta: number
  readonly count: number
}

interface DD {
  readonly hi: number
  readonly lo: number
}

const U2 = 2 ** -106
/** Below this the double-double format loses relative accuracy (subnormal low parts). */
const TINY = 2 ** -900

const twoSum = (a: number, b: number): DD => {
  const s = a + b
  const bb = s - a
  return { hi: s, lo: a - (s - bb) + (b - bb) }
}

/** Veltkamp splitting and Dekker's product (Dekker 1971): a·b = hi + lo exactly. */
const SPLIT = 134217729
const twoProd = (a: number, b: number): DD => {
  const p = a * b
  const ca = SPLIT * a
  const ah = ca - (ca - a)
  const al = a - ah
  const cb = SPLIT * b
  const bh = cb - (cb - b)
  const bl = b - bh
  return { hi: p, lo: ah * bh - p + ah * bl + al * bh + al * bl }
}

const ddMul = (x: DD, y: DD): DD => {
  const p = twoProd(x.hi, y.hi)
  return twoSum(p.hi, p.lo + (x.hi * y.lo + x.lo * y.hi))
}

/** Whether ddMul(x, y) is exact: with both low parts 0 it is Dekker's error-free product. */
const exactMul = (x: DD, y: DD): boolean => x.lo === 0 && y.lo === 0

/** x^k by squaring, and the number of inexact products it took. */
const ddPow = (x: DD, k: number): { readonly v: DD; readonly mults: number } => {
  let r: DD = { hi: 1, lo: 0 }
  let b = x
  let n = k
  let mults = 0
  while (n > 0) {
    if (n % 2 === 1) {
      if (!exactMul(r, b)) mults++
      r = ddMul(r, b)
    }
    n = Math.floor(n / 2)
    if (n > 0) {
      if (!exactMul(b, b)) mults++
      b = ddMul(b, b)
    }
  }
  return { v: r, mults }
}

/**
 * Π (1 − δ_i)^{c_i} as a double-double P̃ and a relative error bound r: the true product lies in
 * [P̃(1 − r), P̃(1 + r)]. `underflow` when the product is too small for the bound to hold (then
 * only 0 ≤ P ≤ P̃(1 + r) + TINY is claimed).
 */
const keep = (factors: ReadonlyArray<DeltaFactor>): { readonly p: DD; readonly r: number; readonly underflow: boolean } => {
  let p: DD = { hi: 1, lo: 0 }
  let mults = 0
  for (const f of factors) {
    if (f.count === 0 || f.delta === 0) continue
    if (f.delta >= 1) return { p: { hi: 0, lo: 0 }, r: 0, underflow: false }
    const pw = ddPow(twoSum(1, -f.delta), f.count)
    mults += pw.mults + (exactMul(p, pw.v) ? 0 : 1)
    p = ddMul(p, pw.v)
    if (p.hi < TINY) return { p, r: 1, underflow: true }
  }
  return { p, r: mults === 0 ? 0 : (16 * mults + 8) * U2, underflow: false }
}

/** The δ of the one step when only one counts (then D = δ exactly; 0 for none), else undefined. */
const single = (factors: ReadonlyArray<DeltaFactor>): number | undefined => {
  const live = factors.filter((f) => f.count > 0 && f.delta > 0)
  if (live.length === 0) return 0
  const f = live[0] as DeltaFactor
  return live.length === 1 && f.count === 1 ? f.delta : undefined
}

/**
 * Whether 1 − Π (1 − δ_i)^{c_i} ≤ δ holds for certain (false when it cannot be decided: the sound
 * side, since the caller then answers without the boundary).
 */
export const coversCommittedDelta = (factors: ReadonlyArray<DeltaFactor>, delta: number): boolean => {
  if (delta >= 1) return true
  const one = single(factors)
  if (one !== undefined) return one <= delta
  const k = keep(factors)
  if (k.underflow) return false
  // P ≥ 1 − δ ⇔ P̃ − (1 − δ) − r·P̃ ≥ 0, with 1 − δ exact as a double-double.
  const a = twoSum(1, -delta)
  const diffHi = k.p.hi - a.hi // exact when the two are within a factor 2 (Sterbenz); else decisive
  // The low parts are below u·max(P̃, 1 − δ) each, so `rest` is off by at most ~3u²·max(P̃, 1 − δ),
  // inside the 8u² of r whenever the sign can be in doubt (P̃ and 1 − δ within a factor 2); and
  // rounding the final sum keeps its sign.
  if (diffHi === 0 && k.p.lo === a.lo) return true // P̃ = 1 − δ exactly (and exact when r = 0)
  const rest = k.p.lo - a.lo - Math.max(k.r, 8 * U2) * k.p.hi
  return diffHi + rest >= 0
}

/**
 * A double D⁺ ≥ 1 − Π (1 − δ_i)^{c_i} for certain, the least such double when the bound allows:
 * the upper estimate of the committed δ. `lower` gives a double at or below it instead (for
 * optimistic estimates).
 */
export const committedDelta = (factors: ReadonlyArray<DeltaFactor>, side: 'upper' | 'lower' = 'upper'): number => {
  const one = single(factors)
  if (one !== undefined) return Math.min(1, one)
  const k = keep(factors)
  if (k.p.hi === 0 && !k.underflow) return 1
  if (k.underflow) return side === 'upper' ? 1 : Math.max(0, -Math.expm1(Math.log(Math.max(k.p.hi, Number.MIN_VALUE))))
  // 1 − P̃ ∓ r·P̃: head = 1 − P̃.hi exactly (TwoSum); the margin also covers the two roundings of
  // the small tail head.lo − P̃.lo (each at most u of its size).
  const head = twoSum(1, -k.p.hi)
  const margin = k.r * k.p.hi + 2 ** -52 * (Math.abs(head.lo) + Math.abs(k.p.lo))
  const tail = head.lo - k.p.lo + (side === 'upper' ? margin : -margin)
  const c = head.hi + tail
  // Is c on the right side of head.hi + tail? c − head.hi is exact (Sterbenz, or c = head.hi).
  const err = c - head.hi - tail
  if (side === 'upper') return Math.min(1, err >= 0 ? c : nextUp(c))
  return Math.max(0, err <= 0 ? c : nextDown(c))
}
