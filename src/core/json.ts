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

/**
 * JSON documents nested deeper than this many levels (arrays and objects) are refused when parsed:
 * dpaudit's own documents stay far below it (an event tree of `MAX_EVENT_DEPTH` = 64 Compose
 * levels is 128 JSON levels, plus the spec around it), and every later walk, print or decode of a
 * bounded value is safe from stack overflow.
 */
export const MAX_JSON_DEPTH = 256

/** Where a value first goes deeper than a limit: the JSON path of that node (shortened if long) and the limit. */
export interface TooDeep {
  readonly path: string
  readonly limit: number
}

/** A path of many segments keeps its first and last few, with the count of those left out. */
const shortPath = (segments: ReadonlyArray<string>, root: string): string => {
  if (segments.length <= 16) return root + segments.join('')
  const left = segments.length - 12
  return `${root}${segments.slice(0, 6).join('')}…(${left} more levels)…${segments.slice(-6).join('')}`
}

/**
 * The first node (depth-first) nested deeper than `limit` levels, with its path from `root`, or
 * undefined when the value is within the limit. Iterative, so any depth is safe; linear time.
 */
export const findTooDeep = (value: unknown, limit = MAX_JSON_DEPTH, root = '$'): TooDeep | undefined => {
  interface Frame {
    readonly v: unknown
    readonly d: number
    readonly parent: Frame | undefined
    readonly seg: string
  }
  const stack: Frame[] = [{ v: value, d: 1, parent: undefined, seg: '' }]
  while (stack.length > 0) {
    const f = stack.pop() as Frame
    if (f.v === null || typeof f.v !== 'object') continue
    if (f.d > limit) {
      const segs: string[] = []
      for (let g: Frame | undefined = f; g !== undefined && g.parent !== undefined; g = g.parent) segs.push(g.seg)
      return { path: shortPath(segs.reverse(), root), limit }
    }
    if (Array.isArray(f.v)) {
      for (let i = f.v.length - 1; i >= 0; i--) {
        const c: unknown = f.v[i]
        if (c !== null && typeof c === 'object') stack.push({ v: c, d: f.d + 1, parent: f, seg: `[${i}]` })
      }
    } else {
      const entries = Object.entries(f.v as Record<string, unknown>)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, c] = entries[i] as [string, unknown]
        if (c !== null && typeof c === 'object') stack.push({ v: c, d: f.d + 1, parent: f, seg: /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]` })
      }
    }
  }
  return undefined
}

/** The message for a value nested too deep (the path goes with it). */
export const tooDeepMessage = (t: TooDeep): string => `nested too deep: more than ${t.limit} levels of arrays and objects`

/**
 * `JSON.parse` as a value: a syntax error becomes a Left with the parser's message, and a document
 * nested deeper than `maxDepth` levels (default `MAX_JSON_DEPTH`) a Left naming the path where it
 * goes too deep.
 */
export const parseJson = (text: string, maxDepth = MAX_JSON_DEPTH): E.Either<string, unknown> => {
  const parsed = E.tryCatch(
    () => JSON.parse(text) as unknown,
    (e) => (e instanceof Error ? e.message : String(e)),
  )
  if (E.isLeft(parsed)) return parsed
  const deep = findTooDeep(parsed.right, maxDepth)
  return deep === undefined ? parsed : E.left(`${deep.path}: ${tooDeepMessage(deep)}`)
}

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
