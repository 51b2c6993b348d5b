import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { resolveLeaf } from '../../src/accounting/normalize.js'
import { checkSamplingRelation, inferRelation } from '../../src/accounting/relation.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'
import { formatError } from '../../src/core/error.js'

describe('resolving leaves against the accountant relation', () => {
  it('passes a leaf under its own relation through', () => {
    expect(resolveLeaf(ev.gaussian(2, 0.5, addRemove()), addRemove(), '$')).toEqual(
      E.right({ leaf: { _tag: 'Gaussian', noiseMultiplier: 4 } }),
    )
  })
  it('converts add/remove to replace-one soundly: sensitivity ×2, group privacy for stated guarantees', () => {
    const r = replaceOne('document')
    const a = addRemove('document')
    const leaf = (e: ev.NoiseEvent) => E.map((x: { leaf: unknown }) => x.leaf)(resolveLeaf(e, r, '$.x'))
    expect(leaf(ev.laplace(1, 1, a))).toEqual(E.right({ _tag: 'Laplace', noiseMultiplier: 0.5 }))
    expect(leaf(ev.gaussian(3, 1, a))).toEqual(E.right({ _tag: 'Gaussian', noiseMultiplier: 1.5 }))
    expect(leaf(ev.pureDP(0.7, a))).toEqual(E.right({ _tag: 'PureDP', epsilon: 1.4 }))
    expect(leaf(ev.zcdp(0.1, a))).toEqual(E.right({ _tag: 'ZCDP', rho: 0.4, xi: 0 }))
    expect(leaf(ev.approxDP(1, 1e-6, a))).toEqual(E.right({ _tag: 'ApproxDP', epsilon: 2, delta: 1e-6 * (1 + Math.E) }))
    expect(leaf(ev.bitwiseRandomizedResponse(0.1, 3, a))).toEqual(
      E.right({ _tag: 'BitwiseRandomizedResponse', flipProbability: 0.1, bits: 6 }),
    )
    const note = resolveLeaf(ev.laplace(1, 1, a), r, '$.x')
    expect(E.isRight(note) && note.right.note).toMatch(/^\$\.x: Laplace stated under add-remove one document converted/)
  })
  it('refuses replace-one leaves under add/remove and different units, naming the path', () => {
    const r1 = resolveLeaf(ev.gaussian(1, 1, replaceOne('word')), addRemove('word'), '$.event.events[3]')
    expect(E.isLeft(r1) && formatError(r1.left)).toMatch(/^\$\.event\.events\[3\]: Gaussian is stated under replace-one one word/)
    const r2 = resolveLeaf(ev.gaussian(1, 1, addRemove('word')), addRemove('document'), '$.e')
    expect(E.isLeft(r2) && formatError(r2.left)).toMatch(/protects one word but the guarantee is asked for one document/)
  })
})

describe('the relation of a spec', () => {
  it('is the one all leaves share, replace-one when kinds mix, an error when units mix', () => {
    const g = (r: ReturnType<typeof addRemove>) => ev.gaussian(1, 1, r)
    expect(inferRelation(ev.compose([g(addRemove('word')), ev.labeled('x', g(addRemove('word')))]))).toEqual(E.right(addRemove('word')))
    expect(inferRelation(ev.compose([g(addRemove('word')), g(replaceOne('word'))]))).toEqual(E.right(replaceOne('word')))
    expect(E.isLeft(inferRelation(ev.compose([g(addRemove('word')), g(addRemove('user'))])))).toBe(true)
    expect(inferRelation(ev.noOp)).toEqual(E.right(addRemove('record')))
  })
  it('Poisson subsampling needs add/remove; sampling without replacement needs replace-one', () => {
    const inner = ev.gaussian(1, 1, addRemove())
    expect(E.isLeft(checkSamplingRelation(ev.poissonSample(0.1, inner), replaceOne(), '$'))).toBe(true)
    expect(E.isRight(checkSamplingRelation(ev.poissonSample(0.1, inner), addRemove(), '$'))).toBe(true)
    expect(E.isLeft(checkSamplingRelation(ev.sampleWithoutReplacement(1, 10, inner), addRemove(), '$'))).toBe(true)
    expect(E.isRight(checkSamplingRelation(ev.sampleWithoutReplacement(1, 10, inner), replaceOne(), '$'))).toBe(true)
  })
})
