/**
 * Working memory that a thread keeps between family fits (issue 23, the fits' cold start). A fit's
 * temporary arrays (cross-fitted scores, their sorted copies, pooled samples) were fresh memory for
 * every job, and fresh memory costs a page fault per 4 KiB on first touch: about 14 µs each on the
 * 2-core VM (a 1.6 MB array, 5 ms), and several times a warm fit's own time in a fresh worker. Each
 * use gets its own named slot, so two arrays in use at once never share memory; what a slot held
 * before is garbage, and every user writes its whole view before reading it. Nothing taken from here
 * may leave the fit that took it (returned, posted, or kept in a model).
 *
 * Every worker thread has its own copy of this module, hence its own slots.
 *
 * @module
 */

/** The slots, one per temporary of the fits (select.ts and search.ts). */
export const SLOT = {
  /** Cross-fitted scores of side 0 and side 1 (search.ts `crossFitScores`). */
  tune0: 0,
  tune1: 1,
  /** Those scores in `sweepOrder` (select.ts), for a sweep. */
  up0: 2,
  up1: 3,
  /** Both sides' values pooled, for bin edges (select.ts `binTable`). */
  pooled: 4,
  /** Granularities of both sides (the bits family). */
  gran0: 5,
  gran1: 6,
  /** One coordinate of both sides' vectors (the coordinate and naive-Bayes families). */
  column0: 7,
  column1: 8,
  /** The logistic family's design matrix and labels. */
  design: 9,
  labels: 10,
  /** Both sides' entries sorted (the joint family's symbols). */
  values0: 11,
  values1: 12,
} as const

/** A slot keeps at most this many doubles (4 MiB); a longer array is fresh each time, so that a thread never holds more than 52 MiB here. */
const KEEP_MAX = 1 << 19

const slots: Array<Float64Array | undefined> = []

/** n doubles of working memory in `slot`, with whatever they held before: the caller writes all n before reading any. */
export const scratch = (slot: number, n: number): Float64Array => {
  const kept = slots[slot]
  if (kept !== undefined && kept.length >= n) return kept.subarray(0, n)
  const fresh = new Float64Array(n)
  if (n <= KEEP_MAX) slots[slot] = fresh
  return fresh
}
