/**
 * Sorted copies of score arrays, the same numbers in the same order as `Float64Array#sort` (ascending,
 * −0 before +0, NaN last), made faster where the scores allow (issue 23: sorting 2·10⁵ scores was the
 * larger part of most family fits, and the longest fit bounds selection's wall time on many workers).
 *
 * - `sortedCopy` counts instead of sorting when the scores take few distinct values (the binned
 *   likelihood ratios of the histogram, bits, pattern and joint families take tens to hundreds).
 * - `mergeSorted` joins two sorted arrays in one pass where both sides were sorted already.
 *
 * @module
 */

/** Above this many distinct values a comparison sort is cheaper than counting them. */
const COUNTING_MAX_DISTINCT = 1024

/** x is −0 (equal to +0 under `===`, before it in a typed array's order). */
const isNegZero = (x: number): boolean => x === 0 && 1 / x < 0

/**
 * A sorted copy of `a`, equal element for element (−0 and +0 included) to `Float64Array.from(a).sort()`:
 * by counting when `a` holds at most COUNTING_MAX_DISTINCT distinct values (one map lookup per element
 * instead of a comparison sort's log n comparisons), else by that sort. NaN sorts last in both.
 */
export const sortedCopy = (a: Float64Array): Float64Array => {
  const counts = new Map<number, number>()
  let negZero = 0
  let nan = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number
    if (x !== x) nan++
    else {
      if (isNegZero(x)) negZero++
      const c = counts.get(x)
      if (c !== undefined) counts.set(x, c + 1)
      else if (counts.size < COUNTING_MAX_DISTINCT) counts.set(x, 1)
      else return Float64Array.from(a).sort()
    }
  }
  const out = new Float64Array(a.length)
  let k = 0
  // the map's key 0 counts −0 and +0 together (SameValueZero): the −0s go first
  for (const v of Float64Array.from(counts.keys()).sort()) {
    const c = counts.get(v) as number
    if (v === 0) {
      out.fill(-0, k, k + negZero)
      out.fill(0, k + negZero, k + c)
    } else out.fill(v, k, k + c)
    k += c
  }
  out.fill(Number.NaN, k, k + nan)
  return out
}

/** a before b in a typed array's ascending order (−0 before +0; neither holds NaN). */
const before = (a: number, b: number): boolean => a < b || (a === b && isNegZero(a))

/**
 * The two ascending arrays (without NaN) as one ascending array: the same numbers in the same order as
 * sorting them together.
 */
export const mergeSorted = (a: Float64Array, b: Float64Array): Float64Array => {
  const out = new Float64Array(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length) {
    const x = a[i] as number
    const y = b[j] as number
    if (before(y, x)) {
      out[k++] = y
      j++
    } else {
      out[k++] = x
      i++
    }
  }
  while (i < a.length) out[k++] = a[i++] as number
  while (j < b.length) out[k++] = b[j++] as number
  return out
}
