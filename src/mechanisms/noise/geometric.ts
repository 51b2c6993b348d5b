/**
 * The geometric distribution P(Y ≥ y) = exp(−y·λ), λ = n/d rational, by inversion of one uniform
 * U against exact thresholds: Y = max{y : U < exp(−y·λ)}.
 *
 * The table holds F_y = ⌊2^31·exp(−y·λ)⌋ exactly (from rigorous BigInt intervals, ./real.ts) for
 * y = 0 … L, F_L = 0 the first zero. Given the 31-bit prefix v of U, U ∈ [v, v + 1)/2^31:
 * v < F_y means v + 1 ≤ F_y ≤ 2^31·exp(−yλ), so U < exp(−yλ) for sure; v > F_y means
 * v ≥ F_y + 1 > 2^31·exp(−yλ), so U ≥ exp(−yλ) for sure. The thresholds decrease in y, so the
 * answer is the count of sure ones, found from a guide table on v's top bits and a short scan —
 * unless the next threshold has F_{y+1} = v (probability ≤ 2^-31 per threshold), when U is
 * extended word by word and compared exactly (`LazyUniform`). If U < exp(−Lλ), Y ≥ L and, the
 * geometric being memoryless, Y − L is again geometric: drawn afresh from the next word.
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { expNegBounds, exactFloor, LazyUniform, shiftUp } from './real.js'
import { approxRatio, bitLength } from './rational.js'

const PREFIX_BITS = 31
const TWO_31 = 2 ** 31

export class GeometricTable {
  private readonly n: bigint
  private readonly d: bigint
  /** floors[y] = ⌊2^31·exp(−yλ)⌋, y = 0 … last (floors[0] = 2^31, floors[last] = 0). */
  readonly floors: Float64Array
  /** The index of the first zero threshold (floors[last] = 0). */
  readonly last: number
  /** guide[i]: the count of sure thresholds for the largest v in cell i (a lower bound for the whole cell); the cell of v is v >>> guideShift. */
  readonly guide: Int32Array
  readonly guideShift: number
  /**
   * The guide with each cell marked, for a hot loop that reads one table: sureGuide[i] = guide[i] = g when every
   * prefix v of cell i has exactly g sure thresholds and no tie (F_{g+1} < the cell's smallest v, so
   * F_{g+1} < v for all of them), else −1 − g (a cell holding the threshold F_{g+1}: at most `last`
   * cells of the 2^12 or more, which `fromPrefix` decides).
   */
  readonly sureGuide: Int32Array

  /** P(Y ≥ y) = exp(−y·n/d); n, d > 0, and λ = n/d small enough that the table (about 21.5/λ entries) fits. */
  constructor(n: bigint, d: bigint) {
    this.n = n
    this.d = d
    const floors = exactFloors(n, d)
    this.floors = floors
    this.last = floors.length - 1
    // at least 2^12 cells (16 KiB, in L1): at most `last` cells hold a threshold, so a prefix lands in a cell
    // whose guide is its exact count (no scan, no unpredictable branch) with probability ≥ 1 − last/2^12
    const cellBits = Math.min(16, Math.max(12, bitLength(BigInt(floors.length)) + 4))
    this.guideShift = PREFIX_BITS - cellBits
    this.guide = new Int32Array(2 ** cellBits)
    let y = this.last
    for (let i = 0; i < this.guide.length; i++) {
      const vMax = (i + 1) * 2 ** this.guideShift - 1
      while (y > 0 && (floors[y] as number) <= vMax) y--
      this.guide[i] = y
    }
    // a plain loop: Int32Array#map with a callback cost ~0.4 ms a table, which a run of thousands of tiny fits
    // (an audit's) paid for every table it built
    this.sureGuide = new Int32Array(this.guide.length)
    for (let i = 0; i < this.guide.length; i++) {
      const g = this.guide[i] as number
      this.sureGuide[i] = (floors[g + 1] as number) < i * 2 ** this.guideShift ? g : -1 - g
    }
  }

  /** Y given the 31-bit prefix v of its uniform (further words from s when a tie or the tail needs them). */
  fromPrefix(s: WordStream, prefix: number): number {
    const floors = this.floors
    const last = this.last
    let v = prefix
    let total = 0
    for (;;) {
      let y = this.guide[v >>> this.guideShift] as number
      while (y < last && (floors[y + 1] as number) > v) y++
      if (y < last && floors[y + 1] === v) y = this.tie(s, v, y)
      if (y < last) return total + y
      total += last
      v = s.nextUint32() >>> 1
    }
  }

  /** The exact continuation from a tie at threshold y + 1: U is extended and compared with exp(−(y+1)λ), exp(−(y+2)λ), … */
  private tie(s: WordStream, v: number, sure: number): number {
    const u = new LazyUniform(v, PREFIX_BITS)
    let y = sure
    while (y < this.last) {
      const e = BigInt(y + 1) * this.n
      if (!u.below(s, (bits) => expNegBounds(e, this.d, bits))) break
      y++
    }
    return y
  }
}

/**
 * ⌊2^31·exp(−yλ)⌋ for y = 0, 1, … up to the first 0 (kept, so the table has a y = 1 entry however
 * large λ is): powers of a 2^-(72 + log L)-wide interval for exp(−λ), rounded outward; where an
 * interval's ends straddle an integer at 2^31, that entry is computed alone to more bits
 * (`exactFloor`: exp(−yλ) is irrational, so the refinement ends).
 */
const exactFloors = (n: bigint, d: bigint): Float64Array => {
  // About 31·ln 2/λ entries: the count sets the working precision.
  const estimate = Math.ceil(PREFIX_BITS * Math.LN2 * approxRatio(d, n)) + 2
  const q = PREFIX_BITS + 72 + bitLength(BigInt(estimate))
  const Q = BigInt(q)
  const extra = BigInt(q - PREFIX_BITS)
  const [baseLo, baseHi] = expNegBounds(n, d, q)
  const out: number[] = [TWO_31]
  let lo = baseLo
  let hi = baseHi
  for (let y = 1; ; y++) {
    const fLo = lo >> extra
    const floor = fLo === hi >> extra ? Number(fLo) : exactFloor((bits) => expNegBounds(BigInt(y) * n, d, bits), PREFIX_BITS)
    out.push(floor)
    if (floor === 0) return Float64Array.from(out)
    lo = (lo * baseLo) >> Q
    hi = shiftUp(hi * baseHi, Q)
  }
}

/** Tables kept by `geometricTable` (immutable values: shared by every sampler of the same λ). */
const TABLES_KEPT = 16
const tables = new Map<string, GeometricTable>()

/**
 * The GeometricTable of P(Y ≥ y) = exp(−y·n/d), built once per (n, d) while it is among the last
 * TABLES_KEPT asked for: a sampler is made per release, and a run of many small fits (a trainer audit
 * fits its corpus thousands of times) would otherwise build the same thresholds again for each
 * (exactFloors' exact arithmetic and the guide: ~1 ms a table, against ~0.3 ms for the whole fit).
 */
export const geometricTable = (n: bigint, d: bigint): GeometricTable => {
  const key = `${n}/${d}`
  let t = tables.get(key)
  if (t === undefined) {
    t = new GeometricTable(n, d)
    if (tables.size >= TABLES_KEPT) tables.delete(tables.keys().next().value as string)
  } else tables.delete(key)
  tables.set(key, t) // the most recent last
  return t
}
