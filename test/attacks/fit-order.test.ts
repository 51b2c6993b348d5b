import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { fitOrder } from '../../src/attacks/pool.js'
import type { FitJob } from '../../src/attacks/search.js'
import type { AttackFamily } from '../../src/attacks/score.js'

const job = (family: AttackFamily, part: 'model' | 'event', n: number): FitJob => ({
  pair: 0,
  samples: { shape: { kind: 'number', dim: 1 }, n: [n, n], values: [new Float64Array(0), new Float64Array(0)], codes: [new Int32Array(0), new Int32Array(0)], categories: [] },
  family,
  part,
  delta: 0,
  z: 2,
  projection: { n: 1000, z: 2 },
})

describe('fitOrder (the pool hands out fits longest first)', () => {
  it('without measurements: events before models, otherwise as given', () => {
    const jobs = [job('threshold', 'model', 10), job('threshold', 'event', 10), job('bits', 'model', 10), job('bits', 'event', 10)]
    expect(fitOrder(jobs, new Map())).toEqual([1, 3, 0, 2])
  })
  it('by measured cost per output times outputs; kinds never measured first', () => {
    const cost = new Map([
      ['threshold/event', 2],
      ['threshold/model', 1],
      ['bits/model', 3],
    ])
    const jobs = [job('threshold', 'model', 10), job('threshold', 'event', 10), job('bits', 'model', 10), job('bits', 'event', 10), job('threshold', 'model', 100)]
    // bits/event unmeasured (first); then 100 outputs × 1, 10 × 3, 10 × 2, 10 × 1
    expect(fitOrder(jobs, cost)).toEqual([3, 4, 2, 1, 0])
  })
  it('is a permutation of the jobs, whatever the costs', () => {
    const families: AttackFamily[] = ['threshold', 'histogram', 'bits', 'joint']
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...families), fc.constantFrom<'model' | 'event'>('model', 'event'), fc.integer({ min: 0, max: 1e6 })), { maxLength: 30 }),
        fc.array(fc.tuple(fc.constantFrom(...families), fc.constantFrom('model', 'event'), fc.double({ min: 0, max: 10, noNaN: true })), { maxLength: 8 }),
        (js, cs) => {
          const order = fitOrder(js.map(([f, p, n]) => job(f, p, n)), new Map(cs.map(([f, p, c]) => [`${f}/${p}`, c])))
          return order.length === js.length && [...order].sort((a, b) => a - b).every((k, i) => k === i)
        },
      ),
    )
  })
})
