/**
 * The (lower, estimate, upper) triple of every PLD answer (issue 26, as PRV's accountant returns):
 * lower ≤ estimate ≤ upper on random events, for ε(δ), δ(ε) and the profile; the exact analytic
 * Gaussian (Balle & Wang 2018) inside [lower, upper] on the numerical path, the bracket narrowing as
 * the interval shrinks; the registry and `dpaudit account` carry it and say it is no guarantee.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../../../src/accounting/account.js'
import { bracketEstimate } from '../../../src/accounting/accountant.js'
import { analyticGaussianDelta, analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import { makePldAccountant } from '../../../src/accounting/pld/index.js'
import { runAccount } from '../../../src/cli/commands/account.js'
import * as ev from '../../../src/mechanisms/event.js'
import { renderAccountReport } from '../../../src/report/format.js'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { moderateLeaf, pldDelta, pldEpsilon, REL, SEED } from './helpers.js'

const COARSE = { interval: 1e-3 }

const leaf = moderateLeaf.filter((l) => l._tag !== 'ZCDP')

const events = fc
  .array(fc.tuple(leaf, fc.integer({ min: 1, max: 20 }), fc.option(fc.double({ min: 0.01, max: 1, noNaN: true }))), { minLength: 1, maxLength: 3 })
  .map((parts) => ev.compose(parts.map(([l, k, q]) => ev.selfCompose(q === null ? l : ev.poissonSample(q, l), k))))

const ordered = (a: { lower?: number; estimate?: number }, upper: number): boolean =>
  a.lower !== undefined && a.estimate !== undefined && a.lower <= a.estimate && a.estimate <= upper

/** The answer, or undefined when the accountant refuses the event (a vector discrete Gaussian). */
const attempt = <A>(f: () => A): A | undefined => {
  try {
    return f()
  } catch {
    return undefined
  }
}

describe('bracketEstimate', () => {
  it('is the centre of a finite bracket and the upper end of an unbounded one', () => {
    expect(bracketEstimate(1, 3)).toBe(2)
    expect(bracketEstimate(2, 2)).toBe(2)
    expect(bracketEstimate(1, Infinity)).toBe(Infinity)
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e300, noNaN: true }), fc.double({ min: 0, max: 1e300, noNaN: true }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        const m = bracketEstimate(lo, hi)
        return lo <= m && m <= hi
      }),
      { seed: SEED },
    )
  })
})

describe('lower ≤ estimate ≤ upper on every PLD answer', () => {
  it('ε(δ) and δ(ε) of random compositions of leaves, subsampled or not', () => {
    fc.assert(
      fc.property(events, fc.constantFrom(1e-3, 1e-6), fc.constantFrom(0.5, 2), (e, delta, eps) => {
        const a = attempt(() => pldEpsilon(e, delta, COARSE))
        const d = attempt(() => pldDelta(e, eps, COARSE))
        if (a === undefined || d === undefined) return a === d
        return ordered(a, a.epsilon) && ordered(d, d.delta)
      }),
      { seed: SEED, numRuns: 25 },
    )
  })

  it('the privacy profile carries the estimate between its ends', () => {
    const acc = makePldAccountant({ relation: REL, interval: 1e-3 })
    const s = acc.compose(ev.selfCompose(ev.poissonSample(0.05, ev.laplace(1, 1, REL)), 30))(acc.empty)
    if (E.isLeft(s)) throw new Error('refused')
    const p = acc.profile([0, 0.5, 1, 2, 4])(s.right)
    if (E.isLeft(p)) throw new Error('refused')
    for (const pt of p.right) {
      expect(pt.lower).toBeLessThanOrEqual(pt.estimate)
      expect(pt.estimate).toBeLessThanOrEqual(pt.delta)
    }
  })
})

describe('the exact Gaussian lies in the bracket, which narrows with the interval', () => {
  it.each([
    { sigma: 2, k: 10, delta: 1e-5 },
    { sigma: 5, k: 50, delta: 1e-6 },
    { sigma: 1, k: 3, delta: 1e-3 },
  ])('σ = $sigma, $k steps, δ = $delta', ({ sigma, k, delta }) => {
    const exact = analyticGaussianEpsilon(sigma / Math.sqrt(k), delta)
    const e = ev.selfCompose(ev.gaussian(sigma, 1, REL), k)
    let gap = Infinity
    for (const interval of [1e-2, 3e-3, 1e-3, 3e-4]) {
      const a = pldEpsilon(e, delta, { interval, analyticGaussian: false })
      expect(a.lower as number, `h=${interval}: lower`).toBeLessThanOrEqual(exact)
      expect(a.epsilon, `h=${interval}: upper`).toBeGreaterThanOrEqual(exact)
      expect(ordered(a, a.epsilon)).toBe(true)
      const g = a.epsilon - (a.lower as number)
      expect(g, `h=${interval}: the gap shrinks`).toBeLessThan(gap)
      gap = g
      // δ at the exact ε: the analytic δ inside the δ bracket too
      const d = pldDelta(e, exact, { interval, analyticGaussian: false })
      expect(d.lower as number).toBeLessThanOrEqual(delta * (1 + 1e-9))
      expect(d.delta).toBeGreaterThanOrEqual(analyticGaussianDelta(sigma / Math.sqrt(k), exact) * (1 - 1e-9))
    }
    expect(gap).toBeLessThan(1e-3)
  })
})

describe('where the triple is shown', () => {
  const spec = { schemaVersion: 1 as const, name: 'dp-sgd', event: ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, REL)), 100) }

  it('the report of account: estimate beside lower, the text says they are not guarantees', () => {
    const r = account(spec, { deltas: [1e-5], accountants: ['pld', 'rdp'] })
    if (E.isLeft(r)) throw new Error('refused')
    const pld = r.right.results.find((x) => x.accountant === 'pld')
    if (pld === undefined || !pld.ok) throw new Error('pld refused')
    const a = pld.answers[0]!
    expect(ordered(a, a.epsilon)).toBe(true)
    const rdp = r.right.results.find((x) => x.accountant === 'rdp')
    expect(rdp?.ok && rdp.answers[0]?.estimate).toBe(undefined)
    const text = renderAccountReport(r.right)
    expect(text).toMatch(/lower\s+and estimate are NOT guarantees/)
    expect(text).toMatch(/pld at δ=1e-5: lower [\d.]+, estimate [\d.]+, guarantee ε ≤ [\d.]+/)
  })

  it('dpaudit account --json: lower and estimate on PLD answers, and a note that they are no guarantee', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpaudit-triple-'))
    const file = join(dir, 'spec.json')
    writeFileSync(file, JSON.stringify(spec))
    const out = runAccount({ file, deltas: ['1e-5'], accountant: ['pld'], orders: undefined, json: true, quiet: true })
    expect(out.code).toBe(0)
    const doc = JSON.parse(out.stdout as string) as {
      bracketNote: string
      reports: Array<{ results: Array<{ answers: Array<{ epsilon: number; lower: number; estimate: number }> }> }>
    }
    expect(doc.bracketNote).toMatch(/NOT guarantees/)
    const a = doc.reports[0]!.results[0]!.answers[0]!
    expect(a.lower).toBeLessThanOrEqual(a.estimate)
    expect(a.estimate).toBeLessThanOrEqual(a.epsilon)
  })
})
