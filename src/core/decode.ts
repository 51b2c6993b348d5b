/**
 * io-ts decoding failures as one DpError: the first error, at the JSON path it happened (array
 * indices as `[i]`; the branch indices io-ts adds inside unions, intersections and recursive
 * types are not part of the document and are skipped), with the value found.
 *
 * @module
 */
import * as t from 'io-ts'
import { type DpError, decodeFailure } from './error.js'

export const firstDecodeError = (errors: t.Errors, root: string): DpError => {
  const first = errors[0]
  if (first === undefined) return decodeFailure(root, undefined, 'invalid value')
  const keys = first.context
    .filter((c, i) => {
      if (c.key === '') return false
      const parent = first.context[i - 1]?.type
      return !(/^\d+$/.test(c.key) && (parent instanceof t.UnionType || parent instanceof t.IntersectionType || parent instanceof t.RecursiveType))
    })
    .map((c) => c.key)
  const path = keys.reduce((acc, k) => (/^\d+$/.test(k) ? `${acc}[${k}]` : `${acc}.${k}`), root)
  // A value that matched no branch of a union is reported against the whole union, not its first branch.
  const ctx = first.context
  const last = ctx[ctx.length - 1]
  const parent = ctx[ctx.length - 2]
  const expected = (parent?.type instanceof t.UnionType && last !== undefined && /^\d+$/.test(last.key) ? parent.type.name : last?.type.name) ?? 'a value'
  return decodeFailure(path, first.value, first.message ?? (first.value === undefined ? `missing; expected ${expected}` : `expected ${expected}`))
}
