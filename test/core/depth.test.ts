import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { findTooDeep, MAX_JSON_DEPTH, parseJson } from '../../src/core/json.js'
import { decodeEvent, decodeSpec, decodeSpecs, MAX_EVENT_DEPTH } from '../../src/mechanisms/codec.js'
import { formatError } from '../../src/core/error.js'
import { decodeModelFile } from '../../src/trainers/model-file.js'

const nestedArrays = (d: number): string => '['.repeat(d) + ']'.repeat(d)
const labeled = (levels: number): unknown => {
  let e: unknown = { _tag: 'NoOp' }
  for (let i = 1; i < levels; i++) e = { _tag: 'Labeled', label: 'x', event: e }
  return e
}
const composed = (levels: number): unknown => {
  let e: unknown = { _tag: 'NoOp' }
  for (let i = 1; i < levels; i++) e = { _tag: 'Compose', events: [{ _tag: 'NoOp' }, e] }
  return e
}
const leftMessage = <A>(r: E.Either<{ readonly path: string; readonly message: string } & Parameters<typeof formatError>[0], A>): string =>
  E.isLeft(r) ? formatError(r.left) : 'no error'

describe('depth limits while decoding (no stack overflow, the path named)', () => {
  it('parseJson refuses a 5,000-deep array with the path where it crosses the limit', () => {
    const r = parseJson(`{"schemaVersion":1,"event":${nestedArrays(5000)}}`)
    expect(E.isLeft(r)).toBe(true)
    if (E.isLeft(r)) {
      expect(r.left).toMatch(/^\$\.event\[0\]\[0\].*nested too deep: more than 256 levels/)
      expect(r.left).toMatch(/more levels/)
      expect(r.left.length).toBeLessThan(200)
    }
    expect(E.isRight(parseJson(nestedArrays(MAX_JSON_DEPTH)))).toBe(true)
    expect(E.isLeft(parseJson(nestedArrays(MAX_JSON_DEPTH + 1)))).toBe(true)
  })
  it('findTooDeep names object keys and array indices, and is iterative', () => {
    const v = { a: [{ 'b c': [[[1]]] }] }
    expect(findTooDeep(v, 4)).toEqual({ path: '$.a[0]["b c"][0]', limit: 4 })
    expect(findTooDeep(v, 6)).toBeUndefined()
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(findTooDeep(deep)?.limit).toBe(MAX_JSON_DEPTH)
  })
  it('decoding specs refuses deep values that did not come through parseJson, naming the path', () => {
    const deep = JSON.parse(nestedArrays(5000)) as unknown
    for (const r of [decodeSpecs(deep), decodeSpecs([deep]), decodeSpec({ schemaVersion: 1, name: deep, event: { _tag: 'NoOp' } }), decodeEvent(deep)]) {
      expect(E.isLeft(r)).toBe(true)
      if (E.isLeft(r)) {
        expect(r.left.message).toMatch(/nested too deep/)
        expect(() => formatError(r.left)).not.toThrow()
      }
    }
    const r = decodeSpec({ schemaVersion: 1, name: deep, event: { _tag: 'NoOp' } })
    expect(E.isLeft(r) && r.left.path.startsWith('$.name[0][0]')).toBe(true)
  })
  it('event trees: exactly 64 levels of events pass, 65 are refused at the 65th event, for Labeled and Compose alike', () => {
    expect(MAX_EVENT_DEPTH).toBe(64)
    for (const build of [labeled, composed]) {
      expect(E.isRight(decodeEvent(build(MAX_EVENT_DEPTH)))).toBe(true)
      const r = decodeEvent(build(MAX_EVENT_DEPTH + 1))
      expect(leftMessage(r)).toMatch(/event tree nested too deep: more than 64 levels of events \(this event is level 65\)/)
    }
    const r = decodeEvent(composed(MAX_EVENT_DEPTH + 1))
    // The first event at level 65 in document order: the deepest Compose's first child.
    expect(E.isLeft(r) && r.left.path).toBe(`$${'.events[1]'.repeat(MAX_EVENT_DEPTH - 1)}.events[0]`)
  })
  it('a model file with a deep value is refused before decoding, naming the path', () => {
    const deep = JSON.parse(nestedArrays(5000)) as unknown
    const r = decodeModelFile({ schemaVersion: 1, kind: 'dpaudit-lda-model', config: deep }, 'm.json: $')
    expect(E.isLeft(r)).toBe(true)
    if (E.isLeft(r)) {
      expect(r.left.path.startsWith('m.json: $.config[0][0]')).toBe(true)
      expect(formatError(r.left)).toMatch(/nested too deep/)
    }
  })
})
