/**
 * Sorted copies of score arrays, the same numbers in the same order as `Float64Array#sort` (ascending,
 * −0 before +0, NaN last), made faster where the scores allow (issue 23: sorting 2·10⁵ scores was the
 * larger part of most family fits, and the longest fit bounds selection's wall time on many workers).
 *
 * - `sortedCopy` counts instead of sorting when the scores take few distinct values (the binned
 *   likelihood ratios of the histogram, bits, pattern and joint families take tens to hundreds).
 * - `radixSortedCopy` sorts many distinct values by their bits (a least-significant-digit radix sort):
 *   four linear passes instead of a comparison sort's ~17 comparisons per element at 10⁵.
 * - `mergeSorted` joins two sorted arrays in one pass where both sides were sorted already.
 * - `valuesAtRanks` reads a few order statistics by selection, without sorting.
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
      else return radixSortedCopy(a)
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

/** Below this length the comparison sort is cheaper than four passes over 2¹⁶ counters. */
const RADIX_MIN_LENGTH = 4096

/** Radix digits of 16 bits: four passes over a double's 64. */
const DIGIT = 16
const BUCKETS = 1 << DIGIT

/** Whether this platform stores a double's low 32 bits first (every platform Node runs on; else the comparison sort). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * `Float64Array.from(a).sort()`, element for element (−0 before +0, NaN last), by a least-significant-digit
 * radix sort of the doubles' bits (Knuth, TAOCP vol. 3, §5.2.5). Each double is mapped to an unsigned
 * 64-bit key in the same order (negative: every bit flipped; otherwise: the sign bit set; the usual
 * order-preserving map of IEEE 754, under which −0 comes just before +0), sorted by four stable passes
 * of 16 bits (low word first), then mapped back: the same bits in ascending order, which is what the
 * comparison sort gives, since equal keys are equal doubles. NaN, which has no place in that order, is
 * set aside and appended. Why (issue 23): sorting ~10⁵ distinct scores per side was half of the longest
 * selection fit, and the longest fit is the fits' wall time on 16 workers.
 */
export const radixSortedCopy = (a: Float64Array): Float64Array => {
  if (a.length < RADIX_MIN_LENGTH || !LITTLE_ENDIAN) return Float64Array.from(a).sort()
  const n = a.length
  let keys = new Float64Array(n)
  let m = 0
  const nans: number[] = []
  for (let i = 0; i < n; i++) {
    const x = a[i] as number
    if (x !== x) nans.push(x)
    else keys[m++] = x
  }
  let w = new Uint32Array(keys.buffer)
  // the order-preserving map, and each pass's digit counts, in one pass
  const counts = new Uint32Array(4 * BUCKETS)
  for (let i = 0; i < m; i++) {
    const hi = w[2 * i + 1] as number
    let lo = w[2 * i] as number
    let h: number
    if (hi >>> 31 === 1) {
      h = ~hi >>> 0
      lo = ~lo >>> 0
      w[2 * i] = lo
    } else h = (hi | 0x80000000) >>> 0
    w[2 * i + 1] = h
    bump(counts, lo & 0xffff)
    bump(counts, BUCKETS + (lo >>> 16))
    bump(counts, 2 * BUCKETS + (h & 0xffff))
    bump(counts, 3 * BUCKETS + (h >>> 16))
  }
  let spare = new Float64Array(n)
  let v = new Uint32Array(spare.buffer)
  for (let pass = 0; pass < 4; pass++) {
    const base = pass * BUCKETS
    // a pass whose digit is the same for every key leaves the order as it is
    if ((counts[base + digitOf(w, 0, pass)] as number) === m) continue
    let sum = 0
    for (let d = 0; d < BUCKETS; d++) {
      const c = counts[base + d] as number
      counts[base + d] = sum
      sum += c
    }
    const word = pass >> 1
    const shift = (pass & 1) * DIGIT
    for (let i = 0; i < m; i++) {
      const d = ((w[2 * i + word] as number) >>> shift) & 0xffff
      const k = counts[base + d] as number
      counts[base + d] = k + 1
      v[2 * k] = w[2 * i] as number
      v[2 * k + 1] = w[2 * i + 1] as number
    }
    ;[keys, spare] = [spare, keys]
    ;[w, v] = [v, w]
  }
  // the map back
  for (let i = 0; i < m; i++) {
    const h = w[2 * i + 1] as number
    if (h >>> 31 === 1) w[2 * i + 1] = (h & 0x7fffffff) >>> 0
    else {
      w[2 * i + 1] = ~h >>> 0
      w[2 * i] = ~(w[2 * i] as number) >>> 0
    }
  }
  for (let i = 0; i < nans.length; i++) keys[m + i] = nans[i] as number
  return keys
}

const bump = (counts: Uint32Array, d: number): void => {
  counts[d] = (counts[d] as number) + 1
}

const SCRATCH = new Float64Array(1)
const SCRATCH_WORDS = new Uint32Array(SCRATCH.buffer)

/**
 * The top 16 bits of x's order-preserving 64-bit key (`radixSortedCopy`'s map): a number in 0…2¹⁶ − 1
 * that never decreases as x grows (−0 falls below +0; NaN has no place in the order).
 */
export const orderedPrefix = (x: number): number => {
  SCRATCH[0] = x
  const hi = SCRATCH_WORDS[1] as number
  return hi >>> 31 === 1 ? (~hi >>> 16) & 0xffff : (hi >>> 16) | 0x8000
}

/** Whether `orderedPrefix` can be used here (a little-endian platform: every platform Node runs on). */
export const HAS_ORDERED_PREFIX = LITTLE_ENDIAN

/** Key i's digit of the given radix pass (0: the low word's low 16 bits … 3: the high word's high 16). */
const digitOf = (w: Uint32Array, i: number, pass: number): number => ((w[2 * i + (pass >> 1)] as number) >>> ((pass & 1) * DIGIT)) & 0xffff

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

/**
 * The values a sorted copy of `a` (`Float64Array#sort`: −0 before +0, NaN last) holds at `ranks`
 * (ascending, each in [0, a.length)), without sorting: quickselect with three-way partitions on a copy
 * (Hoare 1961; Dijkstra's Dutch-flag partition keeps repeated values together), each partition serving
 * every rank on its side, O(n log k) for k ranks. −0 and +0 compare equal while partitioning; a
 * zero found at a rank is then given the sign the sorted copy has there. With NaN in `a`: by sorting.
 */
export const valuesAtRanks = (a: Float64Array, ranks: ReadonlyArray<number>): Float64Array => {
  const out = new Float64Array(ranks.length)
  if (ranks.length === 0) return out
  const x = Float64Array.from(a)
  for (let i = 0; i < x.length; i++)
    if (x[i] !== x[i]) {
      x.sort()
      ranks.forEach((r, k) => (out[k] = x[r] as number))
      return out
    }
  selectRanks(x, 0, x.length - 1, ranks, 0, ranks.length - 1, out)
  if (out.some((v) => v === 0)) {
    // the sorted copy's zeros: −0s at [negatives, negatives + negative zeros), then +0s
    let below = 0
    for (let i = 0; i < a.length; i++) if ((a[i] as number) < 0 || isNegZero(a[i] as number)) below++
    ranks.forEach((r, k) => {
      if (out[k] === 0) out[k] = r < below ? -0 : 0
    })
  }
  return out
}

/** Below this many values a range is sorted by insertion. */
const SMALL_RANGE = 16

/** Fills out[rlo..rhi] with the values at ranks[rlo..rhi] (all within [lo, hi]) of x, reordering x[lo..hi]. */
const selectRanks = (x: Float64Array, lo: number, hi: number, ranks: ReadonlyArray<number>, rlo: number, rhi: number, out: Float64Array): void => {
  while (rlo <= rhi) {
    if (hi - lo < SMALL_RANGE) {
      for (let i = lo + 1; i <= hi; i++) {
        const v = x[i] as number
        let j = i - 1
        while (j >= lo && (x[j] as number) > v) {
          x[j + 1] = x[j] as number
          j--
        }
        x[j + 1] = v
      }
      for (let k = rlo; k <= rhi; k++) out[k] = x[ranks[k] as number] as number
      return
    }
    const pivot = median3(x[lo] as number, x[(lo + hi) >>> 1] as number, x[hi] as number)
    // x[lo, lt) < pivot, x[lt, gt] = pivot, x(gt, hi] > pivot
    let lt = lo
    let gt = hi
    for (let i = lo; i <= gt; ) {
      const v = x[i] as number
      if (v < pivot) {
        x[i++] = x[lt] as number
        x[lt++] = v
      } else if (v > pivot) {
        x[i] = x[gt] as number
        x[gt--] = v
      } else i++
    }
    let a = rlo
    while (a <= rhi && (ranks[a] as number) < lt) a++
    let b = a
    while (b <= rhi && (ranks[b] as number) <= gt) out[b++] = pivot
    if (a > rlo) selectRanks(x, lo, lt - 1, ranks, rlo, a - 1, out)
    lo = gt + 1
    rlo = b
  }
}

const median3 = (a: number, b: number, c: number): number => (a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b)
