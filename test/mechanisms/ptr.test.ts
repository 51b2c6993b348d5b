/**
 * Propose-test-release as events (src/mechanisms/ptr.ts): which accountants answer and which say
 * why they cannot; the composite never below Lemma 8's δ_c(ε) + Σδ_j (property, PLD on both sides);
 * the tests' failure probability measured; a failed test releases nothing.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { compose, gaussian, laplace, type PrivacyEvent } from '../../src/mechanisms/event.js'
import { replaceOne } from '../../src/mechanisms/neighbouring.js'
import { failureCharge, type PtrTest, ptrEvent, ptrMeasurement, runTest, testMargin, testScale } from '../../src/mechanisms/ptr.js'

const rel = replaceOne('document')
const test = (epsilon: number, failureDelta: number, direction: 'lower' | 'upper' = 'lower'): PtrTest => ({ label: 'σ_k', sensitivity: 0.01, epsilon, failureDelta, direction })

const epsilonAt = (event: PrivacyEvent, delta: number, accountants?: ReadonlyArray<'pld' | 'basic' | 'rdp' | 'zcdp' | 'optimal' | 'advanced'>) => {
  const r = account({ schemaVersion: 1, relation: rel, event }, { deltas: [delta], ...(accountants === undefined ? {} : { accountants }) })
  if (E.isLeft(r)) throw new Error('accounting failed')
  return r.right
}

describe('PTR events', () => {
  it('every accountant answers; RDP and zCDP keep the failure δ aside (accounting/approx-split.ts)', () => {
    const ev = ptrEvent('Gaussian release', [test(0.1, 1e-7)], gaussian(4, 1, rel), rel)
    const r = epsilonAt(ev, 1e-5)
    const byName = new Map(r.results.map((x) => [x.accountant, x]))
    expect(byName.get('pld')?.ok).toBe(true)
    expect(byName.get('basic')?.ok).toBe(true)
    for (const name of ['rdp', 'zcdp'] as const) {
      const x = byName.get(name)
      expect(x?.ok, name).toBe(true)
      // Never below the released step's own (pure) ε.
      expect(x !== undefined && x.ok && x.answers[0]?.epsilon, name).toBeGreaterThan(0.1)
    }
    expect(r.tightest[0]!.epsilon).toBeGreaterThan(0.1)
    expect(Number.isFinite(r.tightest[0]!.epsilon)).toBe(true)
  })

  it('no δ below the failure charge: at δ ≤ 2Σδ_j the composite ε is infinite', () => {
    const ev = ptrEvent('release', [test(0.5, 1e-4), test(0.5, 1e-4, 'upper')], gaussian(2, 1, rel), rel)
    expect(failureCharge([test(0.5, 1e-4), test(0.5, 1e-4)])).toBeCloseTo(4e-4, 15)
    expect(epsilonAt(ev, 3e-4).tightest[0]!.epsilon).toBe(Number.POSITIVE_INFINITY)
    expect(Number.isFinite(epsilonAt(ev, 1e-3).tightest[0]!.epsilon)).toBe(true)
  })

  it('property: the composite ε at δ is at least the ε of tests + release at δ − Σδ_j (Lemma 8), PLD on both sides', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 2, noNaN: true }),
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        fc.double({ min: 1e-9, max: 1e-6, noNaN: true }),
        (epsTest, z, failure) => {
          const tests = [test(epsTest, failure)]
          const delta = 1e-5
          const withFailure = epsilonAt(ptrEvent('r', tests, gaussian(z, 1, rel), rel), delta, ['pld']).tightest[0]!.epsilon
          const core = compose([laplace(testScale(tests[0]!), tests[0]!.sensitivity, rel), gaussian(z, 1, rel)])
          const lemma8 = epsilonAt(core, delta - failure, ['pld']).tightest[0]!.epsilon
          // PLD's discretisation is pessimistic on both sides; allow its grid (1e-4 per leaf) only downward
          expect(withFailure).toBeGreaterThanOrEqual(lemma8 - 1e-3)
        },
      ),
      { numRuns: 12 },
    )
  })
})

describe('PTR at run time', () => {
  it('a lower bound exceeds the statistic with probability ≈ δ (measured)', () => {
    const t = test(1, 0.05)
    const words = new WordStream(seededWords(3))
    const trials = 40000
    let wrong = 0
    for (let i = 0; i < trials; i++) if (runTest(t, 1, words).bound > 1) wrong++
    const rate = wrong / trials
    // binomial(40000, 0.05): standard deviation 0.0011
    expect(Math.abs(rate - 0.05)).toBeLessThan(0.0045)
    expect(testMargin(t)).toBeCloseTo(0.01 * Math.log(10), 12)
  })

  it('the bound is clipped to the public range', () => {
    const t: PtrTest = { ...test(1e-3, 1e-6), range: [0, Number.POSITIVE_INFINITY] }
    const words = new WordStream(seededWords(4))
    for (let i = 0; i < 100; i++) expect(runTest(t, 0.001, words).bound).toBeGreaterThanOrEqual(0)
  })

  it('a failed test releases nothing and says why', () => {
    let released = 0
    const m = ptrMeasurement({
      label: 'x',
      tests: [{ ...test(1e-3, 1e-6), range: [0, 1] }],
      relation: rel,
      releaseEvent: gaussian(1, 1, rel),
      statistics: () => [0.001],
      accept: (bounds) => ((bounds[0] as number) > 0 ? { ok: true, calibration: bounds[0] as number } : { ok: false, reason: 'the lower bound of σ_k is 0' }),
      release: () => {
        released++
        return 1
      },
    })
    const out = m.run(undefined, new WordStream(seededWords(5)))
    expect(out.passed).toBe(false)
    expect(!out.passed && out.reason).toMatch(/lower bound/)
    expect(released).toBe(0)
  })
})
