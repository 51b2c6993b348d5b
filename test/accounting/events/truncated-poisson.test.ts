/**
 * Truncated Poisson subsampling (issue 26): the plain-Poisson answer plus the overflow term
 * (1 + e^ε)·η, η = Σ runs × P(Bin(n, q) > maxBatch) (accounting/truncation.ts). Checked: the binomial
 * tail against mpmath; δ(ε) the plain δ plus the term, at ε or at a smaller ε′ where that is less (δ
 * never rises with ε); ε(δ) the least ε that meets it; no
 * cap that binds gives exactly the plain answer, in every accountant; never below the plain-Poisson
 * answer (a lower bound for a cap at n); monotone in q, the cap and the dataset size; composition
 * multiplies the runs; codec errors name the field; calibrate finds the smallest cap.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { calibrate, decodeTemplate } from '../../../src/accounting/calibrate.js'
import { makeRdpAccountant } from '../../../src/accounting/rdp/index.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../../src/accounting/registry.js'
import { overflowMass, overflowProbability } from '../../../src/accounting/truncation.js'
import { formatError } from '../../../src/core/error.js'
import { decodeEvent, encodeEvent } from '../../../src/mechanisms/codec.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne, replaceSpecial } from '../../../src/mechanisms/neighbouring.js'
import { epsAt } from '../eps-at.js'

const AR = addRemove('record')
const SEED = 26_003

const gauss = (sigma: number): ev.PrivacyEvent => ev.gaussian(sigma, 1, AR)
const truncated = (q: number, cap: number, n: number, sigma: number, k: number): ev.PrivacyEvent =>
  ev.selfCompose(ev.truncatedPoissonSample(q, cap, n, gauss(sigma)), k)
const plain = (q: number, sigma: number, k: number): ev.PrivacyEvent => ev.selfCompose(ev.poissonSample(q, gauss(sigma)), k)

const deltaAt = (name: (typeof ACCOUNTANT_NAMES)[number], e: ev.PrivacyEvent, eps: number): number => {
  const run = ACCOUNTANTS[name]({ relation: AR }).run(e)
  if (E.isLeft(run)) throw new Error(formatError(run.left))
  const d = run.right.delta(eps)
  if (E.isLeft(d)) throw new Error(formatError(d.left))
  return d.right.delta
}

describe('the overflow probability', () => {
  it('P(Bin(n, q) > B) agrees with mpmath sums, rounded up, 0 when the cap cannot bind', () => {
    // mpmath (40 digits): Σ_{k>B} C(n,k) q^k (1−q)^{n−k}
    const cases: ReadonlyArray<readonly [number, number, number, number]> = [
      [10_000, 0.01, 100, 0.473437465941841],
      [60_000, 0.0042, 300, 0.00143614964674446],
      [10, 0.5, 2, 0.9453125],
    ]
    for (const [n, q, b, want] of cases) {
      const got = overflowProbability(q, b, n)
      expect(got).toBeGreaterThanOrEqual(want)
      expect(got).toBeLessThanOrEqual(want * (1 + 1e-8))
    }
    expect(overflowProbability(0.5, 10, 10)).toBe(0)
    expect(overflowProbability(0, 1, 10)).toBe(0)
  })

  it('runs multiply through SelfCompose and add through Compose', () => {
    const one = overflowProbability(0.01, 120, 10_000)
    const e = ev.compose([truncated(0.01, 120, 10_000, 1, 30), ev.selfCompose(ev.labeled('x', truncated(0.01, 120, 10_000, 1, 2)), 5)])
    expect(overflowMass(e)).toBeCloseTo(40 * one, 15)
  })
})

describe('every accountant: the plain-Poisson answer plus the overflow term', () => {
  it('δ(ε) is the plain δ plus (1 + e^ε)·η at ε, or at an ε′ ≤ ε where that is smaller', () => {
    const eta = 50 * overflowProbability(0.01, 130, 10_000)
    const bound = (name: (typeof ACCOUNTANT_NAMES)[number], eps: number): number => Math.min(1, deltaAt(name, plain(0.01, 1, 50), eps) + (1 + Math.exp(eps)) * eta)
    for (const name of ['pld', 'rdp', 'optimal'] as const)
      for (const eps of [0.5, 1, 2, 6]) {
        const got = deltaAt(name, truncated(0.01, 130, 10_000, 1, 50), eps)
        expect(got).toBeLessThanOrEqual(bound(name, eps) * (1 + 1e-14))
        // never below the bound at every ε′ ≤ ε (a grid of 200: the least of them, less a relative 1e-3 for between its points)
        let least = Infinity
        for (let i = 0; i <= 200; i++) least = Math.min(least, bound(name, (eps * i) / 200))
        expect(got, `${name} at ε = ${eps}`).toBeGreaterThanOrEqual(least * (1 - 1e-3))
      }
  })

  it.each(ACCOUNTANT_NAMES)('%s: δ(ε) never rises with ε, though the overflow term does (it was 1 at ε = 10 where δ(1) = 0.0056)', (name) => {
    // q = 0.01, a cap of 20 of 1,000: η ≈ 1.6e-3, so (1 + e^ε)·η alone passes 1 from ε ≈ 6.4
    for (const leaf of [gauss(1), ev.laplace(0.5, 1, AR)]) {
      const e = ev.truncatedPoissonSample(0.01, 20, 1000, leaf)
      let prev = Infinity
      for (const eps of [0, 1e-300, 1e-3, 0.5, 1, 2, 5, 10, 50, 700]) {
        const d = deltaAt(name, e, eps)
        expect(d, `${name}, ${leaf._tag}, ε = ${eps}`).toBeLessThanOrEqual(prev)
        prev = d
      }
      expect(deltaAt(name, e, 10)).toBeLessThan(0.5)
    }
  })

  it('ε(δ) is the least ε whose corrected δ is within δ (checked on either side)', () => {
    const e = truncated(0.01, 160, 10_000, 1, 50)
    for (const name of ['pld', 'rdp'] as const) {
      const eps = epsAt(name, e, 1e-5) as number
      expect(deltaAt(name, e, eps)).toBeLessThanOrEqual(1e-5)
      expect(deltaAt(name, e, eps * (1 - 1e-6) - 1e-9)).toBeGreaterThan(1e-5 * (1 - 1e-3))
    }
  })

  it.each(ACCOUNTANT_NAMES)('%s: a cap the batch never reaches gives exactly the plain answer', (name) => {
    expect(epsAt(name, truncated(0.02, 500, 500, 2, 20), 1e-5)).toBe(epsAt(name, plain(0.02, 2, 20), 1e-5))
  })

  it('never below the plain-Poisson answer; monotone in q, the cap and the dataset size (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.002, max: 0.05, noNaN: true }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 200 }),
        (q, slack, extra, k) => {
          const n = 5000
          const cap = Math.ceil(q * n + 3 * Math.sqrt(q * n)) + slack
          const base = epsAt('rdp', truncated(q, cap, n, 1.5, k), 1e-5) as number
          const p = epsAt('rdp', plain(q, 1.5, k), 1e-5) as number
          const moreQ = epsAt('rdp', truncated(Math.min(1, q * 1.2), cap, n, 1.5, k), 1e-5) as number
          const biggerCap = epsAt('rdp', truncated(q, cap + extra, n, 1.5, k), 1e-5) as number
          const biggerN = epsAt('rdp', truncated(q, cap, n + extra, 1.5, k), 1e-5) as number
          const leq = (a: number, b: number): boolean => b === Infinity || a <= b * (1 + 1e-8) + 1e-12
          return leq(p, base) && leq(base, moreQ) && leq(biggerCap, base) && leq(base, biggerN)
        },
      ),
      { seed: SEED, numRuns: 25 },
    )
  })

  it('no finite ε once the overflow term alone passes δ', () => {
    expect(epsAt('pld', truncated(0.01, 100, 10_000, 1, 10), 1e-5)).toBe(Infinity)
  })
})

describe("a uniformly cut batch (cut: 'uniform'): the coupled bound without the overflow term", () => {
  const cut = (q: number, cap: number, n: number, sigma: number, k: number, relation = AR): ev.PrivacyEvent =>
    ev.selfCompose(ev.truncatedPoissonSample(q, cap, n, ev.gaussian(sigma, 1, relation), { cut: 'uniform' }), k)
  const doubled = (q: number, sigma: number, k: number): ev.PrivacyEvent => ev.selfCompose(ev.poissonSample(q, ev.gaussian(sigma, 2, AR)), k)

  it("dp_accounting's tiny case (caps 2 of 4 and 2 of 3, q = 0.5, σ = 1, 3 + 2 runs): finite, the sensitivity-2 Poisson answer", () => {
    // Without the cut stated the overflow mass 3·5/16 + 2·1/8 passes any δ: ε = ∞.
    const any = ev.compose([truncated(0.5, 2, 4, 1, 3), truncated(0.5, 2, 3, 1, 2)])
    expect(epsAt('pld', any, 1e-6)).toBe(Infinity)
    const e = ev.compose([cut(0.5, 2, 4, 1, 3), cut(0.5, 2, 3, 1, 2)])
    const got = epsAt('pld', e, 1e-6) as number
    expect(got).toBe(epsAt('pld', doubled(0.5, 1, 5), 1e-6))
    // dp_accounting's own PLD of the mixture gives 17.90433; the plain Poisson pipeline 8.46 (a cap at n).
    expect(got).toBeGreaterThan(17.90433)
    expect(got).toBeLessThan(25)
    for (const name of ACCOUNTANT_NAMES) expect(Number.isFinite(epsAt(name, e, 1e-6))).toBe(true)
  })

  it.each(ACCOUNTANT_NAMES)('%s: under replace-one and replace-special the coupled bound is the plain Poisson answer (no overflow term)', (name) => {
    for (const relation of [replaceOne('record'), replaceSpecial('record')]) {
      const run = (e: ev.PrivacyEvent): number | string => {
        const r = ACCOUNTANTS[name]({ relation }).run(e)
        if (E.isLeft(r)) return formatError(r.left)
        const x = r.right.epsilon(1e-5)
        return E.isLeft(x) ? formatError(x.left) : x.right.epsilon
      }
      const g = ev.gaussian(2, 1, AR)
      const want = run(ev.selfCompose(ev.poissonSample(0.05, g), 20))
      const got = run(ev.selfCompose(ev.truncatedPoissonSample(0.05, 3, 100, g, { cut: 'uniform' }), 20))
      // Where plain Poisson sampling is refused under the relation, the accountant refuses both.
      if (typeof want === 'number') expect(got).toBe(want)
      else expect(typeof got).toBe('string')
    }
  })

  it('never above the bound without the cut, never below plain Poisson; monotone in q (fast-check)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.005, max: 0.5, noNaN: true }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 50 }), (q, cap, k) => {
        const n = 200
        const leq = (a: number, b: number): boolean => b === Infinity || a <= b * (1 + 1e-8) + 1e-12
        const c = epsAt('rdp', cut(q, cap, n, 2, k), 1e-5) as number
        return (
          leq(c, epsAt('rdp', truncated(q, cap, n, 2, k), 1e-5) as number) &&
          leq(epsAt('rdp', plain(q, 2, k), 1e-5) as number, c) &&
          leq(c, epsAt('rdp', cut(Math.min(1, q * 1.3), cap, n, 2, k), 1e-5) as number)
        )
      }),
      { seed: SEED, numRuns: 25 },
    )
  })

  it("round-trips the cut, and refuses any other value naming the field", () => {
    const e = ev.truncatedPoissonSample(0.01, 128, 60_000, gauss(1), { cut: 'uniform' })
    expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
    const r = decodeEvent({ ...(encodeEvent(e) as object), cut: 'drop' })
    expect(E.isLeft(r) && formatError(r.left)).toMatch(/cut/)
  })
})

describe('codec, direct use, calibrate', () => {
  it('round-trips, and names the field of a bad cap, dataset size or rate', () => {
    const e = ev.truncatedPoissonSample(0.01, 128, 60_000, gauss(1))
    expect(decodeEvent(JSON.parse(JSON.stringify(encodeEvent(e))))).toEqual(E.right(e))
    const bad = (patch: Record<string, unknown>): string => {
      const r = decodeEvent({ ...(encodeEvent(e) as object), ...patch })
      return E.isLeft(r) ? formatError(r.left) : 'accepted'
    }
    expect(bad({ maxBatch: 0 })).toMatch(/\$\.maxBatch/)
    expect(bad({ maxBatch: 1.5 })).toMatch(/\$\.maxBatch/)
    expect(bad({ datasetSize: -3 })).toMatch(/\$\.datasetSize/)
    expect(bad({ q: 1.2 })).toMatch(/\$\.q/)
  })

  it('an accountant used directly (not through the registry) refuses it with the reason', () => {
    const acc = makeRdpAccountant({ relation: AR })
    const s = acc.compose(truncated(0.01, 130, 10_000, 1, 5))(acc.empty)
    expect(E.isLeft(s) && formatError(s.left)).toMatch(/registry/)
  })

  it('calibrate finds the smallest cap meeting ε ≤ 2 at δ = 1e-5', () => {
    const t = decodeTemplate({
      schemaVersion: 1,
      event: { _tag: 'SelfCompose', count: 100, event: { _tag: 'TruncatedPoissonSample', q: 0.01, maxBatch: '$param', datasetSize: 10_000, event: gauss(1) } },
    })
    if (E.isLeft(t)) throw new Error(formatError(t.left))
    const c = calibrate(t.right, { epsilon: 2, delta: 1e-5, accountant: 'rdp' })
    if (E.isLeft(c)) throw new Error(formatError(c.left))
    const cap = c.right.value
    expect(Number.isInteger(cap)).toBe(true)
    expect(epsAt('rdp', truncated(0.01, cap, 10_000, 1, 100), 1e-5)).toBeLessThanOrEqual(2)
    expect(epsAt('rdp', truncated(0.01, cap - 1, 10_000, 1, 100), 1e-5)).toBeGreaterThan(2)
  })
})
