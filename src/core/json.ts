/**
 * JSON with honest numbers. `JSON.stringify(Infinity)` is `"null"`, which would silently turn a
 * NonPrivate ε = ∞ into nothing. dpaudit writes non-finite numbers as the strings "Infinity",
 * "-Infinity" and "NaN", and its codecs read them back.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/lib/Either.js'

const NON_FINITE: Readonly<Record<string, number>> = {
  Infinity: Infinity,
  '+Infinity': Infinity,
  '-Infinity': -Infinity,
  NaN: Number.NaN,
}

/** Encodes a number for JSON: finite numbers as themselves, others as explicit strings. */
export const encodeNumber = (x: number): number | string =>
  Number.isFinite(x) ? x : Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity'

/** A number in JSON: a JSON number, or one of "Infinity", "-Infinity", "NaN". */
export const ExtendedNumber = new t.Type<number, number | string, unknown>(
  'ExtendedNumber',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    if (typeof u === 'number') return t.success(u)
    if (typeof u === 'string' && u in NON_FINITE) return t.success(NON_FINITE[u] as number)
    return t.failure(u, c, 'expected a number (or "Infinity", "-Infinity")')
  },
  encodeNumber,
)

/** `JSON.stringify` that writes non-finite numbers explicitly instead of as `null`. */
export const stringifyJson = (value: unknown, indent?: number): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' ? encodeNumber(v) : v), indent)

/** `JSON.parse` as a value: a syntax error becomes a Left with the parser's message. */
export const parseJson = (text: string): E.Either<string, unknown> =>
  E.tryCatch(
    () => JSON.parse(text) as unknown,
    (e) => (e instanceof Error ? e.message : String(e)),
  )

/** Maximum nesting depth of a JSON value (arrays and objects), computed without recursion. */
export const jsonDepth = (value: unknown, limit = Infinity): number => {
  let max = 0
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [v, d] = stack.pop() as readonly [unknown, number]
    if (v === null || typeof v !== 'object') continue
    if (d > max) max = d
    if (max > limit) return max
    for (const c of Array.isArray(v) ? v : Object.values(v)) stack.push([c, d + 1])
  }
  return max
}
