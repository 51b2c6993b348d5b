import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { decodeEvent, decodeSpec, decodeSpecs, encodeEvent } from '../../src/mechanisms/codec.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { formatError } from '../../src/core/error.js'
import { parseJson, stringifyJson } from '../../src/core/json.js'
import { arbEvent } from '../../src/testing/arbitraries.js'

const rel = addRemove('record')
const errorOf = (u: unknown): string => {
  const r = decodeEvent(u)
  if (E.isRight(r)) throw new Error(`expected a decoding error for ${JSON.stringify(u)}`)
  return formatError(r.left)
}

describe('event codec', () => {
  it('round-trips arbitrary event trees through JSON text, including infinite parameters', () => {
    fc.assert(
      fc.property(arbEvent({ extremes: true, maxDepth: 5 }), (e) => {
        const text = stringifyJson(encodeEvent(e))
        expect(text).not.toContain('null')
        const back = decodeEvent(E.getOrElseW(() => undefined)(parseJson(text)))
        expect(back).toEqual(E.right(e))
      }),
      { seed: 20261121, numRuns: 300 },
    )
  })

  it('writes ε = ∞ explicitly, never as null', () => {
    const text = stringifyJson(encodeEvent(ev.pureDP(Infinity, rel)))
    expect(text).toContain('"Infinity"')
    expect(decodeEvent(JSON.parse(text))).toEqual(E.right(ev.pureDP(Infinity, rel)))
  })

  it('names the JSON path and the value of a bad parameter', () => {
    const leaf = { _tag: 'Gaussian', sigma: 1, sensitivity: 1, relation: rel }
    expect(errorOf({ _tag: 'PoissonSample', q: 1.5, event: leaf })).toBe('$.q: must be a sampling rate q in [0, 1] (got 1.5)')
    expect(errorOf({ _tag: 'Compose', events: [leaf, { ...leaf, sigma: -2 }] })).toBe(
      '$.events[1].sigma: must be a positive number (σ > 0) (got -2)',
    )
    expect(errorOf({ _tag: 'Compose', events: [{ ...leaf, sigma: 'NaN' }] })).toBe(
      '$.events[0].sigma: must be a positive number (σ > 0), not NaN (got NaN)',
    )
    expect(errorOf({ _tag: 'RandomizedResponse', epsilon: -1, k: 2, relation: rel })).toBe('$.epsilon: must be ε > 0 (got -1)')
    expect(errorOf({ _tag: 'ApproxDP', epsilon: 1, delta: 1.2, relation: rel })).toBe('$.delta: must be δ in [0, 1] (got 1.2)')
    // a count past the bound is an integer: the message says which bound (it said "a non-negative integer" of 10^15)
    expect(errorOf({ _tag: 'SelfCompose', count: 1e15, event: leaf })).toBe('$.count: must be a non-negative integer at most 2^40 (1,099,511,627,776) (got 1000000000000000)')
  })

  it('rejects unknown tags, missing fields and bad relations with their paths', () => {
    expect(errorOf({ _tag: 'SelfCompose', count: 3, event: { _tag: 'Gausian' } })).toMatch(/^\$\.event\._tag: unknown event tag/)
    expect(errorOf({ _tag: 'Gaussian', sigma: 1, relation: rel })).toMatch(/^\$\.sensitivity: /)
    expect(errorOf({ _tag: 'Gaussian', sigma: 1, sensitivity: 1, relation: { kind: 'swap', unit: 'record' } })).toMatch(
      /^\$\.relation\.kind: /,
    )
    expect(errorOf(42)).toBe('$: expected an event object with a "_tag" (got 42)')
  })

  it('refuses trees nested too deep before recursing', () => {
    let deep: unknown = { _tag: 'NoOp' }
    for (let i = 0; i < 5000; i++) deep = { _tag: 'Labeled', label: 'x', event: deep }
    expect(errorOf(deep)).toMatch(/nested too deep/)
  })
})

describe('spec documents', () => {
  const spec = { schemaVersion: 1, name: 'x', event: { _tag: 'NoOp' } }
  it('decodes one spec or an array of specs', () => {
    expect(E.map((s: ReadonlyArray<unknown>) => s.length)(decodeSpecs(spec))).toEqual(E.right(1))
    expect(E.map((s: ReadonlyArray<unknown>) => s.length)(decodeSpecs([spec, spec, spec]))).toEqual(E.right(3))
  })
  it('names the index of a bad spec in an array', () => {
    const r = decodeSpecs([spec, { ...spec, event: { _tag: 'PoissonSample', q: -0.5, event: { _tag: 'NoOp' } } }])
    expect(E.isLeft(r) && formatError(r.left)).toBe('$[1].event.q: must be a sampling rate q in [0, 1] (got -0.5)')
  })
  it('requires the schema version', () => {
    const r = decodeSpec({ event: { _tag: 'NoOp' } })
    expect(E.isLeft(r) && formatError(r.left)).toBe('$.schemaVersion: expected schemaVersion 1 (got undefined)')
  })
})

describe('discrete Laplace and discrete Gaussian events', () => {
  const dl = ev.discreteLaplace(2.5, 3, rel)
  const dg = ev.discreteGaussian(4, 2, rel)
  const dgScalar = ev.discreteGaussian(4, 2, rel, { scalar: true })

  it('round-trip through JSON text, the optional scalar flag kept or left out', () => {
    for (const e of [dl, dg, dgScalar, ev.discreteGaussian(4, 2, rel, { scalar: false }), ev.discreteLaplace(Infinity, 1, rel)]) {
      const back = decodeEvent(E.getOrElseW(() => undefined)(parseJson(stringifyJson(encodeEvent(e)))))
      expect(back).toEqual(E.right(e))
    }
    expect('scalar' in dg).toBe(false)
    expect(JSON.stringify(encodeEvent(dgScalar))).toContain('"scalar":true')
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 1e6, noNaN: true }), fc.integer({ min: 1, max: 2 ** 40 }), fc.boolean(), (s, d, scalar) => {
        for (const e of [ev.discreteLaplace(s, d, rel), ev.discreteGaussian(s, d, rel, { scalar })])
          expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
      }),
      { seed: 20261123, numRuns: 100 },
    )
  })

  it('refuses a non-integer, zero or NaN sensitivity and a non-positive or NaN σ / t, naming the field and the value', () => {
    expect(errorOf({ ...dg, sensitivity: 1.5 })).toBe('$.sensitivity: must be a positive integer (the query is integer-valued) (got 1.5)')
    expect(errorOf({ ...dl, sensitivity: 0 })).toBe('$.sensitivity: must be a positive integer (the query is integer-valued) (got 0)')
    expect(errorOf({ ...dg, sensitivity: 'NaN' })).toBe(
      '$.sensitivity: must be a positive integer (the query is integer-valued), not NaN (got NaN)',
    )
    expect(errorOf({ ...dg, sensitivity: 'Infinity' })).toMatch(/^\$\.sensitivity: must be a positive integer/)
    expect(errorOf({ ...dg, sigma: -1 })).toBe('$.sigma: must be a positive number (σ > 0) (got -1)')
    expect(errorOf({ ...dg, sigma: 'NaN' })).toBe('$.sigma: must be a positive number (σ > 0), not NaN (got NaN)')
    expect(errorOf({ ...dl, scale: -0.5 })).toBe('$.scale: must be a positive number (discrete Laplace scale t > 0) (got -0.5)')
    expect(errorOf({ _tag: 'SelfCompose', count: 2, event: { ...dl, scale: 'NaN' } })).toBe(
      '$.event.scale: must be a positive number (discrete Laplace scale t > 0), not NaN (got NaN)',
    )
    expect(errorOf({ ...dg, scalar: 'yes' })).toMatch(/^\$\.scalar: /)
  })
})
