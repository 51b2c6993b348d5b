/**
 * The ε search finds a δ that sits exactly on a boundary (issue 26): (1, 0.1)∘(2, 0.2) is
 * (3, 0.28)-DP, and every accountant's ε(δ) is consistent with its own δ(ε): if δ(ε₀) ≤ δ then
 * ε(δ) ≤ ε₀ (up to the outward rounding both answers carry, `roundUpLoss`'s 1e-12 relative).
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import { committedDelta, coversCommittedDelta, type DeltaFactor } from '../../src/accounting/committed-delta.js'
import * as ev from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { arbEvent } from '../../src/testing/arbitraries.js'

const REL = addRemove('record')
const SEED = 20261127

/** A double as an exact rational m/2^k (BigInt), for exact reference arithmetic. */
const exact = (x: number): { n: bigint; d: bigint } => {
  let d = 1n
  let v = x
  while (!Number.isInteger(v)) {
    v *= 2
    d *= 2n
  }
  return { n: BigInt(v), d }
}
/** Sign of (1 − Π(1 − δ_i)^{c_i}) − δ, exactly. */
const exactCompare = (factors: ReadonlyArray<DeltaFactor>, delta: number): number => {
  let pn = 1n
  let pd = 1n
  for (const f of factors) {
    const q = exact(f.delta)
    for (let i = 0; i < f.count; i++) {
      pn *= q.d - q.n
      pd *= q.d
    }
  }
  const t = exact(delta)
  // 1 − pn/pd − tn/td  ⇔ sign of (pd − pn)·td − tn·pd
  const s = (pd - pn) * t.d - t.n * pd
  return s > 0n ? 1 : s < 0n ? -1 : 0
}

describe('the committed δ 1 − Π(1 − δ_i)^{c_i} with rigorous rounding', () => {
  it('brackets the exact rational value, and the boundary test agrees with exact arithmetic', () => {
    const arbFactors = fc.array(
      fc.record({ delta: fc.double({ min: 1e-6, max: 0.5, noNaN: true }), count: fc.integer({ min: 1, max: 4 }) }),
      { minLength: 1, maxLength: 3 },
    )
    fc.assert(
      fc.property(arbFactors, (fs) => {
        const up = committedDelta(fs, 'upper')
        const lo = committedDelta(fs, 'lower')
        expect(exactCompare(fs, up)).toBeLessThanOrEqual(0)
        expect(exactCompare(fs, lo)).toBeGreaterThanOrEqual(0)
        // Tight: within a few doubles of the exact value.
        expect(up - lo).toBeLessThanOrEqual(4 * Number.EPSILON * up)
        expect(coversCommittedDelta(fs, up)).toBe(true)
        if (coversCommittedDelta(fs, lo)) expect(exactCompare(fs, lo)).toBeLessThanOrEqual(0)
      }),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('is exact for a single step and the issue case', () => {
    expect(committedDelta([{ delta: 0.1, count: 1 }])).toBe(0.1)
    expect(coversCommittedDelta([{ delta: 0.1, count: 1 }, { delta: 0.2, count: 1 }], 0.28)).toBe(true)
    expect(exactCompare([{ delta: 0.1, count: 1 }, { delta: 0.2, count: 1 }], 0.28)).toBe(-1)
    expect(committedDelta([{ delta: 0.1, count: 1 }, { delta: 0.2, count: 1 }])).toBe(0.28)
  })
})

describe('ε at a δ on the boundary', () => {
  const pair = ev.compose([ev.approxDP(1, 0.1, REL), ev.approxDP(2, 0.2, REL)])

  it('(1, 0.1)∘(2, 0.2) at δ = 0.28 is ε = 3 in the optimal and PLD accountants', () => {
    for (const name of ['optimal', 'pld'] as const) {
      const run = ACCOUNTANTS[name]({ relation: REL }).run(pair)
      if (E.isLeft(run)) throw new Error(name)
      const a = run.right.epsilon(0.28)
      expect(E.isRight(a) && a.right.epsilon).toBeGreaterThanOrEqual(3)
      expect(E.isRight(a) && a.right.epsilon).toBeLessThanOrEqual(3 * (1 + 1e-11))
      // Below the boundary no finite ε holds: 0.28 − 1e-9 < 1 − 0.9·0.8.
      const below = run.right.epsilon(0.28 - 1e-9)
      expect(E.isRight(below) && below.right.epsilon).toBe(Infinity)
    }
  })

  it('k identical (ε₀, δ₀) steps at δ = 1 − (1 − δ₀)^k answer kε₀ (optimal)', () => {
    // (1, 0.5) twice: 1 − 0.5² = 0.75 exactly in doubles.
    const run = ACCOUNTANTS.optimal({ relation: REL }).run(ev.selfCompose(ev.approxDP(1, 0.5, REL), 2))
    if (E.isLeft(run)) throw new Error('optimal')
    const a = run.right.epsilon(0.75)
    expect(E.isRight(a) && a.right.epsilon).toBeCloseTo(2, 9)
    // 1 − 0.9² in exact arithmetic on the double 0.1 is 0.19 + 1.0e-17 > the double 0.19: no finite ε.
    const run2 = ACCOUNTANTS.optimal({ relation: REL }).run(ev.selfCompose(ev.approxDP(1, 0.1, REL), 2))
    if (E.isLeft(run2)) throw new Error('optimal')
    const b = run2.right.epsilon(0.19)
    expect(E.isRight(b) && b.right.epsilon).toBe(Infinity)
  })

  it.each(ACCOUNTANT_NAMES)('%s: if δ(ε₀) ≤ δ then ε(δ) ≤ ε₀', (name) => {
    const approxPairs = fc
      .array(fc.tuple(fc.double({ min: 0.01, max: 3, noNaN: true }), fc.double({ min: 0, max: 0.3, noNaN: true }), fc.integer({ min: 1, max: 3 })), {
        minLength: 1,
        maxLength: 3,
      })
      .map((xs) => ev.compose(xs.map(([e, d, k]) => ev.selfCompose(ev.approxDP(e, d, REL), k))))
    const events = fc.oneof(approxPairs, arbEvent({ relation: REL, maxDepth: 3 }))
    fc.assert(
      fc.property(events, fc.double({ min: 0, max: 12, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (e, eps0, slack) => {
        const run = ACCOUNTANTS[name]({ relation: REL }).run(e)
        if (E.isLeft(run)) return
        const d = run.right.delta(eps0)
        if (E.isLeft(d) || !(d.right.delta > 0 && d.right.delta < 1)) return
        // δ(ε₀) itself, and a δ between it and 1.
        for (const delta of [d.right.delta, d.right.delta + slack * (1 - d.right.delta)]) {
          if (!(delta < 1)) continue
          const a = run.right.epsilon(delta)
          if (E.isLeft(a)) throw new Error(`${name} refused ε at δ = ${delta}`)
          expect(a.right.epsilon).toBeLessThanOrEqual(eps0 * (1 + 1e-9) + 1e-12)
        }
      }),
      { seed: SEED, numRuns: name === 'pld' ? 40 : 150 },
    )
  })
})
