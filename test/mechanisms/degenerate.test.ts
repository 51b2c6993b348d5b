/**
 * Degenerate parameters (src/mechanisms/degenerate.ts, issue 26): no noise is NonPrivate, a rate
 * of 0 or a constant randomized response is NoOp, in the codec and in every accountant.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import { decodeEvent } from '../../src/mechanisms/codec.js'
import { withoutDegenerate } from '../../src/mechanisms/degenerate.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../src/mechanisms/neighbouring.js'
import { arbEvent } from '../../src/testing/arbitraries.js'

const AR = addRemove('record')
const SEED = 20261128

const epsOf = (name: (typeof ACCOUNTANT_NAMES)[number], e: ev.PrivacyEvent, d: number, relation = AR): number | undefined => {
  const r = ACCOUNTANTS[name]({ relation }).run(e)
  if (E.isLeft(r)) return undefined
  const a = r.right.epsilon(d)
  return E.isRight(a) ? a.right.epsilon : undefined
}

describe('degenerate parameters', () => {
  it('decode: σ = 0 / scale 0 is NonPrivate, q = 0 and m = 0 are NoOp, RR with ε = 0 or k = 1 is NoOp, ε = ∞ NonPrivate; negatives still refused', () => {
    const rel = { kind: 'add-remove', unit: 'record' }
    const dec = (u: unknown) => decodeEvent(u)
    expect(dec({ _tag: 'Gaussian', sigma: 0, sensitivity: 1, relation: rel })).toEqual(E.right(ev.nonPrivate))
    expect(dec({ _tag: 'DiscreteLaplace', scale: 0, sensitivity: 2, relation: rel })).toEqual(E.right(ev.nonPrivate))
    expect(dec({ _tag: 'PoissonSample', q: 0, event: { _tag: 'Gaussian', sigma: 0, sensitivity: 1, relation: rel } })).toEqual(E.right(ev.noOp))
    expect(dec({ _tag: 'RandomizedResponse', epsilon: 0, k: 3, relation: rel })).toEqual(E.right(ev.noOp))
    expect(dec({ _tag: 'RandomizedResponse', epsilon: 2, k: 1, relation: rel })).toEqual(E.right(ev.noOp))
    expect(dec({ _tag: 'RandomizedResponse', epsilon: 'Infinity', k: 3, relation: rel })).toEqual(E.right(ev.nonPrivate))
    expect(E.isLeft(dec({ _tag: 'Gaussian', sigma: -1, sensitivity: 1, relation: rel }))).toBe(true)
    // No noise with an invalid sensitivity is still named, not hidden behind NonPrivate.
    expect(E.isLeft(dec({ _tag: 'Gaussian', sigma: 0, sensitivity: 0, relation: rel }))).toBe(true)
    const labeled = dec({ _tag: 'Labeled', label: 'x', event: { _tag: 'Laplace', scale: 0, sensitivity: 1, relation: rel } })
    expect(labeled).toEqual(E.right(ev.labeled('x', ev.nonPrivate)))
  })

  it('every accountant: ε = ∞ without noise, 0 for q = 0, m = 0 or a constant response (events built in code too)', () => {
    for (const name of ACCOUNTANT_NAMES) {
      expect(epsOf(name, ev.gaussian(0, 1, AR), 0.1), name).toBe(Infinity)
      expect(epsOf(name, ev.poissonSample(0.3, ev.laplace(0, 1, AR)), 1e-5), name).toBe(Infinity)
      expect(epsOf(name, ev.poissonSample(0, ev.gaussian(0, 1, AR)), 1e-10), name).toBe(0)
      expect(epsOf(name, ev.sampleWithoutReplacement(0, 1000, ev.gaussian(1, 1, replaceOne('record'))), 1e-10, replaceOne('record')), name).toBe(0)
      expect(epsOf(name, ev.randomizedResponse(1, 1, replaceOne('record')), 0, replaceOne('record')), name).toBe(0)
    }
  })

  it('q = 0 around any event releases nothing; the rewrite is idempotent and keeps valid events unchanged (fast-check)', () => {
    fc.assert(
      fc.property(arbEvent({ relation: AR, maxDepth: 3 }), (e) => {
        expect(withoutDegenerate(withoutDegenerate(e))).toEqual(withoutDegenerate(e))
        for (const name of ACCOUNTANT_NAMES) {
          const zero = epsOf(name, ev.poissonSample(0, e), 1e-6)
          if (zero !== undefined) expect(zero, name).toBe(0)
          // Composing a degenerate NoOp leaf changes nothing.
          const with0 = epsOf(name, ev.compose([e, ev.randomizedResponse(0, 2, AR)]), 1e-6)
          expect(with0, name).toBe(epsOf(name, e, 1e-6))
        }
        return true
      }),
      { seed: SEED, numRuns: 25 },
    )
  })
})
