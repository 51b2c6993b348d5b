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
import { ValueTable } from './value-table.js'

/** Above this many distinct values a comparison sort is cheaper than counting them. */
const COUNTING_MAX_DISTINCT = 1024

/** x is −0 (equal to +0 under `===`, before it in a typed array's order). */
const isNegZero = (x: number): boolean => x === 0 && 1 / x < 0

/**
 * A sorted copy of `a`, equal element for element (−0 and +0 included) to `Float64Array.from(a).sort()`
 * (`sortInPlace` on a copy).
 */
export const sortedCopy = (a: Float64Array): Float64Array => sortInPlace(a.slice())

/**
 * Sorts `a` in place and returns it, equal element for element (−0 and +0 included) to `a.sort()`:
 * by counting when `a` holds at most COUNTING_MAX_DISTINCT distinct values (one table lookup per element
 * instead of a comparison sort's log n comparisons), else by `radixSortInPlace`. NaN sorts last in both.
 * For arrays the caller made to be sorted (issue 23: a sorted copy's second array of 1.6 MB was fresh
 * memory, whose page faults were a large share of a fit in a fresh worker).
 */
export const sortInPlace = (a: Float64Array): Float64Array => {
  const distinct = countValues(a)
  if (distinct < 0) return radixSortInPlace(a)
  const negZero = tally[0] as number
  const nan = tally[1] as number
  // the table's key 0 counts −0 and +0 together: the −0s go first
  const values = counting.values.slice(0, distinct).sort()
  let k = 0
  for (let i = 0; i < distinct; i++) {
    const v = values[i] as number
    const c = counting.tally[counting.indexOf(v)] as number
    if (v === 0) {
      a.fill(-0, k, k + negZero)
      a.fill(0, k + negZero, k + c)
    } else a.fill(v, k, k + c)
    k += c
  }
  a.fill(Number.NaN, k, k + nan)
  return a
}

/** −0s and NaNs that `countValues` saw. */
const tally = new Int32Array(2)

/** The counting sort's table of values and counts (it replaced a Map: issue 23, see value-table.ts). */
const counting = new ValueTable(COUNTING_MAX_DISTINCT)

/**
 * Counts a's values in `counting` (−0 with +0; −0s and NaNs also in `tally`): how many distinct values
 * other than NaN, or −1 as soon as there are more than COUNTING_MAX_DISTINCT.
 */
const countValues = (a: Float64Array): number => {
  counting.clear()
  let negZero = 0
  let nan = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number
    if (x !== x) {
      nan++
      continue
    }
    if (isNegZero(x)) negZero++
    const k = counting.indexOf(x)
    if (k < 0) return -1
    counting.tally[k]! += 1
  }
  tally[0] = negZero
  tally[1] = nan
  return counting.size
}

/** Below this length the comparison sort is cheaper than four passes over 2¹⁶ counters. */
const RADIX_MIN_LENGTH = 4096

/** Radix digits of 16 bits: four passes over a double's 64. */
const DIGIT = 16
const BUCKETS = 1 << DIGIT

/** Whether this platform stores a double's low 32 bits first (every platform Node runs on; else the comparison sort). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * The radix sort's working memory, kept by this thread (each worker thread has its own module) and
 * grown as needed: the second buffer of the passes and the digit counts. Nothing is kept in it between
 * calls. Why (issue 23): fresh memory costs a page fault per 4 KiB on first touch (about 14 µs each on
 * the 2-core VM, 5 ms for 1.6 MB), and a fit in a fresh worker thread paid them for every sort.
 */
let spare = new Float64Array(0)
/** The longest second buffer kept (4 MiB); a longer sort allocates its own. */
const SPARE_KEEP_MAX = 1 << 19
const digitCounts = new Uint32Array(4 * BUCKETS)

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
export const radixSortedCopy = (a: Float64Array): Float64Array => radixSortInPlace(a.slice())

/**
 * `radixSortedCopy` in place: sorts `a` and returns it. Each step is a function of one loop: V8
 * compiles a loop it has seen run, and a function whose later loops had not yet run when it was
 * compiled was thrown back to the interpreter at each of them (issue 23: a fresh worker's first sort
 * took four times a warm one's).
 */
const radixSortInPlace = (a: Float64Array): Float64Array => {
  if (a.length < RADIX_MIN_LENGTH || !LITTLE_ENDIAN) return a.sort()
  const n = a.length
  const nans: number[] = []
  const m = withoutNaN(a, nans)
  // a longer array than the thread keeps gets a second buffer of its own
  const other = spare.length >= m ? spare : m <= SPARE_KEEP_MAX ? (spare = new Float64Array(m)) : new Float64Array(m)
  let w: Uint32Array = new Uint32Array(a.buffer, a.byteOffset, 2 * n)
  let v: Uint32Array = new Uint32Array(other.buffer, 0, 2 * m)
  const counts = digitCounts
  counts.fill(0)
  toKeys(w, m, counts)
  let inSpare = false
  for (let pass = 0; pass < 4; pass++) {
    const base = pass * BUCKETS
    // a pass whose digit is the same for every key leaves the order as it is
    if ((counts[base + digitOf(w, 0, pass)] as number) === m) continue
    toOffsets(counts, base)
    scatter(w, v, m, counts, base, pass >> 1, (pass & 1) * DIGIT)
    ;[w, v] = [v, w]
    inSpare = !inSpare
  }
  fromKeys(w, m)
  if (inSpare) a.set(other.subarray(0, m))
  for (let i = 0; i < nans.length; i++) a[m + i] = nans[i] as number
  return a
}

/** Moves a's numbers to its front in order, NaN into `nans`; how many numbers. */
const withoutNaN = (a: Float64Array, nans: number[]): number => {
  let m = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number
    if (x !== x) nans.push(x)
    else a[m++] = x
  }
  return m
}

/** The order-preserving map of m doubles (as words: low, high) to keys, and each pass's digit counts, in one pass. */
const toKeys = (w: Uint32Array, m: number, counts: Uint32Array): void => {
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
    counts[lo & 0xffff]! += 1
    counts[BUCKETS + (lo >>> 16)]! += 1
    counts[2 * BUCKETS + (h & 0xffff)]! += 1
    counts[3 * BUCKETS + (h >>> 16)]! += 1
  }
}

/** A pass's digit counts to the offsets where each digit's keys start. */
const toOffsets = (counts: Uint32Array, base: number): void => {
  let sum = 0
  for (let d = 0; d < BUCKETS; d++) {
    const c = counts[base + d] as number
    counts[base + d] = sum
    sum += c
  }
}

/** One stable pass: the m keys of w to v by the 16-bit digit at `shift` of word `word`. */
const scatter = (w: Uint32Array, v: Uint32Array, m: number, counts: Uint32Array, base: number, word: number, shift: number): void => {
  for (let i = 0; i < m; i++) {
    const d = ((w[2 * i + word] as number) >>> shift) & 0xffff
    const k = counts[base + d] as number
    counts[base + d] = k + 1
    v[2 * k] = w[2 * i] as number
    v[2 * k + 1] = w[2 * i + 1] as number
  }
}

/** The map back from keys to doubles. */
const fromKeys = (w: Uint32Array, m: number): void => {
  for (let i = 0; i < m; i++) {
    const h = w[2 * i + 1] as number
    if (h >>> 31 === 1) w[2 * i + 1] = (h & 0x7fffffff) >>> 0
    else {
      w[2 * i + 1] = ~h >>> 0
      w[2 * i] = ~(w[2 * i] as number) >>> 0
    }
  }
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
 * What `mergeSorted(a, b)` holds at index k (0 ≤ k < a.length + b.length), without merging: the
 * (k + 1)-th smallest of both in their order, found by bisecting how many of the first k + 1 come
 * from a (equal values are the same double, so any split gives the same one).
 */
export const nthOfMerged = (a: Float64Array, b: Float64Array, k: number): number => {
  let lo = Math.max(0, k + 1 - b.length)
  let hi = Math.min(k + 1, a.length)
  while (lo < hi) {
    const i = (lo + hi) >>> 1
    // a[i] before b[k − i]: the first k + 1 take more than i from a
    if (before(a[i] as number, b[k - i] as number)) lo = i + 1
    else hi = i
  }
  const j = k + 1 - lo
  if (lo === 0) return b[j - 1] as number
  if (j === 0) return a[lo - 1] as number
  const x = a[lo - 1] as number
  const y = b[j - 1] as number
  return before(x, y) ? y : x
}

/** Number of entries of the ascending array `a` (no NaN) below x (binary search). */
export const countBelow = (a: Float64Array, x: number): number => {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((a[mid] as number) < x) lo = mid + 1
    else hi = mid
  }
  return lo
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
  if (hasNaN(x)) {
    x.sort()
    ranks.forEach((r, k) => (out[k] = x[r] as number))
    return out
  }
  selectRanks(x, 0, x.length - 1, ranks, 0, ranks.length - 1, out)
  if (out.some((v) => v === 0)) {
    // the sorted copy's zeros: −0s at [negatives, negatives + negative zeros), then +0s
    const below = belowPositiveZero(x)
    ranks.forEach((r, k) => {
      if (out[k] === 0) out[k] = r < below ? -0 : 0
    })
  }
  return out
}

const hasNaN = (x: Float64Array): boolean => {
  for (let i = 0; i < x.length; i++) if (x[i] !== x[i]) return true
  return false
}

/** How many entries come before +0 in a sorted copy: the negatives and the −0s. */
const belowPositiveZero = (x: Float64Array): number => {
  let below = 0
  for (let i = 0; i < x.length; i++) if ((x[i] as number) < 0 || isNegZero(x[i] as number)) below++
  return below
}

/** Below this many values a range is sorted by insertion. */
const SMALL_RANGE = 16

/** Fills out[rlo..rhi] with the values at ranks[rlo..rhi] (all within [lo, hi]) of x, reordering x[lo..hi]. */
const selectRanks = (x: Float64Array, lo: number, hi: number, ranks: ReadonlyArray<number>, rlo: number, rhi: number, out: Float64Array): void => {
  while (rlo <= rhi) {
    if (hi - lo < SMALL_RANGE) {
      insertionSort(x, lo, hi)
      for (let k = rlo; k <= rhi; k++) out[k] = x[ranks[k] as number] as number
      return
    }
    const pivot = median3(x[lo] as number, x[(lo + hi) >>> 1] as number, x[hi] as number)
    partition3(x, lo, hi, pivot)
    const lt = split[0] as number
    const gt = split[1] as number
    let a = rlo
    while (a <= rhi && (ranks[a] as number) < lt) a++
    let b = a
    while (b <= rhi && (ranks[b] as number) <= gt) out[b++] = pivot
    if (a > rlo) selectRanks(x, lo, lt - 1, ranks, rlo, a - 1, out)
    lo = gt + 1
    rlo = b
  }
}

/** Where `partition3` left the pivot's values: x[split[0] … split[1]]. */
const split = new Int32Array(2)

/**
 * Dijkstra's three-way partition of x[lo..hi] around `pivot`: x[lo, lt) < pivot, x[lt, gt] = pivot,
 * x(gt, hi] > pivot, with lt and gt left in `split` (the loop in a function of its own: see `radixSortInPlace`).
 */
const partition3 = (x: Float64Array, lo: number, hi: number, pivot: number): void => {
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
  split[0] = lt
  split[1] = gt
}

/** Sorts x[lo..hi] by insertion (a short range). */
const insertionSort = (x: Float64Array, lo: number, hi: number): void => {
  for (let i = lo + 1; i <= hi; i++) {
    const v = x[i] as number
    let j = i - 1
    while (j >= lo && (x[j] as number) > v) {
      x[j + 1] = x[j] as number
      j--
    }
    x[j + 1] = v
  }
}

const median3 = (a: number, b: number, c: number): number => (a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b)
