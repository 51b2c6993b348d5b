/**
 * A value as a memo key: JSON with every finite number printed exactly (shortest round trip) and
 * ±∞ and NaN marked apart ("#Infinity", "#-Infinity", "#NaN"), which plain JSON prints all as null.
 * Two values share a key only when they are equal field by field, so a cache keyed by it can never
 * hand one event's answer to another (an unmarked ∞ and −∞ would merge two different leaves).
 */
export const valueKey = (value: unknown): string => JSON.stringify(value, markNonFinite)

const markNonFinite = (_name: string, v: unknown): unknown => (typeof v === 'number' && !Number.isFinite(v) ? `#${String(v)}` : v)

const F64 = new Float64Array(1)
const U16 = new Uint16Array(F64.buffer)

/**
 * An array of doubles as a memo key: each number's 64 bits as four UTF-16 code units. Two arrays
 * share a key only when they hold the same bits in the same order (so 0 and −0, or two NaN
 * payloads, are told apart: a cache only misses more). Why not `valueKey` or `join(',')`: printing
 * a double's shortest round trip costs ~0.1 µs, and the RDP fold keyed whole grids (a general
 * subsampling bound reads ~1,100 orders) and curves that way on every cold query.
 */
export const floatsKey = (xs: ArrayLike<number>): string => {
  let s = ''
  for (let i = 0; i < xs.length; i++) {
    F64[0] = xs[i] as number
    s += String.fromCharCode(U16[0] as number, U16[1] as number, U16[2] as number, U16[3] as number)
  }
  return s
}
