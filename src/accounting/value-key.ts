/**
 * A value as a memo key: JSON with every finite number printed exactly (shortest round trip) and
 * ±∞ and NaN marked apart ("#Infinity", "#-Infinity", "#NaN"), which plain JSON prints all as null.
 * Two values share a key only when they are equal field by field, so a cache keyed by it can never
 * hand one event's answer to another (an unmarked ∞ and −∞ would merge two different leaves).
 */
export const valueKey = (value: unknown): string => JSON.stringify(value, markNonFinite)

const markNonFinite = (_name: string, v: unknown): unknown => (typeof v === 'number' && !Number.isFinite(v) ? `#${String(v)}` : v)
