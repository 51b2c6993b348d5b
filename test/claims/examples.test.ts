/**
 * The example specs in examples/ decode and validate, and say what they claim to encode.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { decodeSpecs, type Spec } from '../../src/mechanisms/codec.js'
import type { PrivacyEvent } from '../../src/mechanisms/event.js'
import { decodeTemplate } from '../../src/accounting/calibrate.js'
import { formatError } from '../../src/core/error.js'

const readJson = (rel: string): unknown => JSON.parse(readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8'))

const specsOf = (file: string): ReadonlyArray<Spec> => {
  const r = decodeSpecs(readJson(file))
  if (E.isLeft(r)) throw new Error(`${file}: ${formatError(r.left)}`)
  return r.right
}

/** Strips Labeled wrappers. */
const unlabel = (e: PrivacyEvent): PrivacyEvent => (e._tag === 'Labeled' ? unlabel(e.event) : e)

describe('examples/', () => {
  it('dp-sgd.json: 14063 Poisson-sampled Gaussian steps, q = 256/60000, σ = 1.1', () => {
    const [s, ...rest] = specsOf('examples/dp-sgd.json')
    expect(rest).toHaveLength(0)
    expect(s?.name).toBeTypeOf('string')
    expect(s?.description).toBeTypeOf('string')
    expect(s?.relation).toEqual({ kind: 'add-remove', unit: 'record' })
    expect(s?.event).toEqual({
      _tag: 'SelfCompose',
      count: 14063,
      event: {
        _tag: 'PoissonSample',
        q: 256 / 60000,
        event: { _tag: 'Gaussian', sigma: 1.1, sensitivity: 1, relation: { kind: 'add-remove', unit: 'record' } },
      },
    })
  })

  it('sub-lda-table3.json: six per-iteration specs and six accumulated ones, σ = √3.5, add/remove one word', () => {
    const specs = specsOf('examples/sub-lda-table3.json')
    const fixture = readJson('test/fixtures/claims-sublda.json') as {
      rows: ReadonlyArray<{ gamma: number; claimed: { iterations: number } }>
    }
    expect(specs).toHaveLength(2 * fixture.rows.length)
    fixture.rows.forEach((row, i) => {
      const per = specs[i]
      const acc = specs[i + fixture.rows.length]
      expect(per?.relation).toEqual({ kind: 'add-remove', unit: 'word' })
      expect(per?.description).toMatch(/add\/remove one word/)
      const ev = unlabel(per!.event)
      expect(ev).toEqual({
        _tag: 'PoissonSample',
        q: row.gamma,
        event: { _tag: 'Gaussian', sigma: Math.sqrt(3.5), sensitivity: 1, relation: { kind: 'add-remove', unit: 'word' } },
      })
      const a = acc!.event
      expect(a._tag).toBe('SelfCompose')
      if (a._tag === 'SelfCompose') {
        expect(a.count).toBe(row.claimed.iterations)
        expect(unlabel(a.event)).toEqual(ev)
      }
    })
  })

  it('private-svi.json: SelfCompose(J, PoissonSample(S/D, Gaussian(σ, N/D))) for every setting of the fixture', () => {
    const specs = specsOf('examples/private-svi.json')
    const fixture = readJson('test/fixtures/claims-svi.json') as {
      settings: ReadonlyArray<{
        batchSize: number
        iterations: number
        samplingRate: number
        paperZcdpChain: { z: number }
        exampleSpec: { N: number; sensitivity: number; sigma: number }
      }>
    }
    expect(specs).toHaveLength(fixture.settings.length)
    fixture.settings.forEach((st, i) => {
      const s = specs[i]!
      expect(s.relation).toEqual({ kind: 'add-remove', unit: 'document' })
      expect(st.iterations * st.batchSize).toBe(160_000)
      expect(st.samplingRate).toBe(st.batchSize / 400_000)
      expect(s.event._tag).toBe('SelfCompose')
      if (s.event._tag !== 'SelfCompose') return
      expect(s.event.count).toBe(st.iterations)
      const p = unlabel(s.event.event)
      expect(p._tag).toBe('PoissonSample')
      if (p._tag !== 'PoissonSample') return
      expect(p.q).toBe(st.samplingRate)
      const g = unlabel(p.event)
      expect(g._tag).toBe('Gaussian')
      if (g._tag !== 'Gaussian') return
      expect(g.sensitivity).toBeCloseTo(st.exampleSpec.N / 400_000, 15)
      expect(g.sigma / g.sensitivity).toBeCloseTo(st.paperZcdpChain.z, 12)
    })
  })

  it('calibrate-dp-sgd.json: the DP-SGD spec with σ left as the "$param" placeholder', () => {
    const raw = readJson('examples/calibrate-dp-sgd.json')
    const t = decodeTemplate(raw)
    expect(E.isRight(t)).toBe(true)
    const text = JSON.stringify(raw)
    expect(text.match(/"\$param"/g)).toHaveLength(1)
    expect(text).toContain('"sigma":"$param"')
    // with σ substituted it is exactly dp-sgd.json
    const filled = JSON.parse(text.replace('"$param"', '1.1')) as Record<string, unknown>
    const dpsgd = readJson('examples/dp-sgd.json') as Record<string, unknown>
    expect(filled['event']).toEqual(dpsgd['event'])
  })
})
