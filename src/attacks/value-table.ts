/**
 * A table of distinct doubles in typed arrays, for the fits' counting passes (issue 23): open
 * addressing with linear probing, keyed by the double's bits, with −0 taken as +0 (as a Map or Set
 * keys them) and NaN left to the caller. It replaced Map and Set in passes that look up every score or
 * output of a fit (a counting sort, the bits family's exact bins), where their get, set and add were
 * a fifth of a warm fit; a table is kept by the thread and cleared for each use.
 *
 * @module
 */

export class ValueTable {
  private readonly mask: number
  private readonly shift: number
  private readonly keys: Float64Array
  /** Per slot: 0 if empty, else 1 + the index of its value in insertion order. */
  private readonly slots: Int32Array
  /** Per index (insertion order): the value and a number the caller keeps (a count, a bin). */
  readonly values: Float64Array
  readonly tally: Int32Array
  /** Distinct values held. */
  size = 0

  /** Room for `limit` distinct values, in at least twice as many slots. */
  constructor(readonly limit: number) {
    let bits = 4
    while (1 << bits < 2 * (limit + 1)) bits++
    this.mask = (1 << bits) - 1
    this.shift = 32 - bits
    this.keys = new Float64Array(1 << bits)
    this.slots = new Int32Array(1 << bits)
    this.values = new Float64Array(limit)
    this.tally = new Int32Array(limit)
  }

  clear(): void {
    this.slots.fill(0)
    this.size = 0
  }

  /**
   * The index (insertion order) of x, not NaN, −0 taken as +0; added, with tally 0, if new and fewer
   * than `limit` values are held; −1 if new and the table is full.
   */
  indexOf(x: number): number {
    const key = x === 0 ? 0 : x
    WORD_VIEW[0] = key
    let h = Math.imul((WORDS[0] as number) ^ Math.imul(WORDS[1] as number, 0x9e3779b1), 0x85ebca6b) >>> this.shift
    for (;;) {
      const s = this.slots[h] as number
      if (s === 0) break
      if (this.keys[h] === key) return s - 1
      h = (h + 1) & this.mask
    }
    if (this.size === this.limit) return -1
    const i = this.size++
    this.keys[h] = key
    this.slots[h] = i + 1
    this.values[i] = key
    this.tally[i] = 0
    return i
  }
}

const WORD_VIEW = new Float64Array(1)
const WORDS = new Uint32Array(WORD_VIEW.buffer)
