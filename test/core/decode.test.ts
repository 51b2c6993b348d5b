import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import { firstDecodeError } from '../../src/core/decode.js'
import { formatError } from '../../src/core/error.js'

const C = t.intersection([
  t.type({ noise: t.union([t.literal('fresh'), t.literal('accumulate')]), rows: t.array(t.array(t.number)) }),
  t.partial({ seed: t.string }),
])

const failure = (u: unknown): string => {
  const r = C.decode(u)
  if (E.isRight(r)) throw new Error('decoded')
  return formatError(firstDecodeError(r.left, '$'))
}

describe('firstDecodeError', () => {
  it('names the JSON path with array indices, skipping the branch indices of unions and intersections', () => {
    expect(failure({ noise: 'fresh', rows: [[1], [2, 'x']] })).toMatch(/\$\.rows\[1\]\[1\].*number.*"x"/)
    expect(failure({ noise: 'fresh', rows: [], seed: 3 })).toMatch(/^\$\.seed: /)
  })
  it('reports a value that matches no branch against the whole union', () => {
    expect(failure({ noise: 'weird', rows: [] })).toMatch(/\$\.noise: .*"fresh" \| "accumulate".*"weird"/)
  })
  it('says a field is missing', () => {
    expect(failure({ noise: 'fresh' })).toMatch(/\$\.rows: missing; expected/)
  })
})
