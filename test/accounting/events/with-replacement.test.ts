/**
 * Sampling with replacement (issue 26): Balle, Barthe & Gaboardi 2018, Thm 10 with group privacy
 * (accounting/with-replacement.ts). Checked: m = 1 is sampling once with probability 1/n exactly;
 * never below randomized response on "is the record in the batch" (computed exactly); never above
 * the unsampled m-fold group bound; monotone in m and n; codec errors name the field; RDP, zCDP and
 * PLD refuse with the reason; relations other than replace-one refused.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { calibrate, decodeTemplate } from '../../../src/accounting/calibrate.js'
import { analyticGaussianDelta } from '../../../src/accounting/analytic-gaussian.js'
import { amplifiedEpsilon } from '../../../src/accounting/dp/amplification.js'
import { ACCOUNTANTS } from '../../../src/accounting/registry.js'
import { drawCounts, drawnProbability } from '../../../src/accounting/with-replacement.js'
import { formatError } from '../../../src/core/error.js'
import { decodeEvent } from '../../../src/mechanisms/codec.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { epsAt } from '../eps-at.js'

const RO = replaceOne('record')
const SEED = 26_031
const DP = ['basic', 'advanced', 'optimal'] as const

const deltaAt = (name: (typeof DP)[number], e: ev.PrivacyEvent, eps: number): number => {
  const run = ACCOUNTANTS[name]({ relation: RO }).run(e)
  if (E.isLeft(run)) throw new Error(formatError(run.left))
  const d = run.right.delta(eps)
  if (E.isLeft(d)) throw new Error(formatError(d.left))
  return d.right.delta
}

/** Exact δ(ε) of RR(ε₀) on the bit "the record is in the batch": an ε₀-DP mechanism of the batch. */
const rrLowerBound = (m: number, n: number, eps0: number, eps: number): number => {
  const eta = drawnProbability(m, n)
  const e0 = Math.exp(eps0)
  const p1D = (eta * e0 + (1 - eta)) / (1 + e0)
  const p1Dp = 1 / (1 + e0)
  return Math.max(0, p1D - Math.exp(eps) * p1Dp) + Math.max(0, 1 - p1D - Math.exp(eps) * (1 - p1Dp))
}

describe('the draw counts', () => {
  it('K ~ Bin(m, 1/n): P(K = 1) and η match mpmath', () => {
    // mpmath (30 digits): m = 256, n = 60,000: P(K=1) = 256/60000·(1 − 1/60000)^255, η = 1 − (1 − 1/60000)^256
    const { pmf } = drawCounts(256, 60_000)
    expect(pmf[1]).toBeCloseTo(0.00424857166166381, 15)
    expect(drawnProbability(256, 60_000)).toBeCloseTo(0.00425761278059831, 15)
    expect(drawnProbability(1, 1)).toBe(1)
    // n = 1: every draw is the record, K = m (no array of m entries)
    expect(drawCounts(2 ** 40, 1).ks).toEqual([0, 2 ** 40])
    expect(drawCounts(2 ** 30, 2).tail).toBe(1)
  })
})

describe('WithReplacementSample in the (ε, δ) accountants', () => {
  it('m = 1 is sampling once with probability 1/n: (log(1 + (e^ε − 1)/n), δ/n)', () => {
    for (const name of DP) {
      const got = epsAt(name, ev.withReplacementSample(1, 100, ev.approxDP(1, 1e-3, RO)), 1e-5, RO)
      expect(got).toBeDefined()
      expect(got as number).toBeGreaterThanOrEqual(amplifiedEpsilon(0.01, 1))
      expect(got as number).toBeLessThanOrEqual(amplifiedEpsilon(0.01, 1) * (1 + 1e-9))
    }
  })

  it('never below RR on "the record is in the batch", never above the m-fold group bound (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0.05, max: 3, noNaN: true }), (m, n, eps0) => {
        const e = ev.withReplacementSample(m, n, ev.pureDP(eps0, RO))
        for (const eps of [0, 0.1, 0.5, eps0]) expect(deltaAt('optimal', e, eps)).toBeGreaterThanOrEqual(rrLowerBound(m, n, eps0, eps) - 1e-12)
        // unsampled group privacy: M on the batch is (mε₀, 0)-DP for any m draws
        expect(deltaAt('basic', e, m * eps0 * (1 + 1e-9))).toBeLessThanOrEqual(1e-300)
        const d = 1e-6
        expect(epsAt('basic', e, d, RO) as number).toBeLessThanOrEqual(m * eps0 * (1 + 1e-9))
      }),
      { seed: SEED, numRuns: 40 },
    )
  })

  it('ε grows with m and falls with n (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 2, max: 5000 }), fc.double({ min: 0.5, max: 4, noNaN: true }), (m, n, sigma) => {
        const at = (mm: number, nn: number): number =>
          epsAt('optimal', ev.withReplacementSample(mm, nn, ev.gaussian(sigma, 1, RO)), 1e-5, RO) as number
        const base = at(m, n)
        expect(at(m + 1, n)).toBeGreaterThanOrEqual(base * (1 - 1e-9))
        expect(at(m, n + 1)).toBeLessThanOrEqual(base * (1 + 1e-9))
      }),
      { seed: SEED + 1, numRuns: 15 },
    )
  })

  it('Gaussian inner: never below the noisy count of the record in the batch (exact mixture, numerically), and tighter than the generic group bound', () => {
    // M(batch) = #copies of the record + N(0, σ²) is a Gaussian query of sensitivity 1 under replace-one;
    // with replacement its output on D is Σ_k P(K = k)·N(k, σ²) against N(0, σ²) on D′ (and the reverse).
    const normPdf = (x: number, mu: number, s: number): number => Math.exp(-0.5 * ((x - mu) / s) ** 2) / (s * Math.sqrt(2 * Math.PI))
    const lower = (m: number, n: number, sigma: number, eps: number): number => {
      const { pmf } = drawCounts(m, n)
      const p0 = Math.pow(1 - 1 / n, m)
      const h = sigma / 400
      let a = 0
      let b = 0
      for (let x = -12 * sigma; x < pmf.length + 12 * sigma; x += h) {
        let mix = p0 * normPdf(x, 0, sigma)
        for (let k = 1; k < pmf.length; k++) mix += (pmf[k] as number) * normPdf(x, k, sigma)
        const base = normPdf(x, 0, sigma)
        a += Math.max(0, mix - Math.exp(eps) * base) * h
        b += Math.max(0, base - Math.exp(eps) * mix) * h
      }
      return Math.max(a, b)
    }
    for (const [m, n, sigma] of [
      [10, 1000, 1],
      [50, 200, 2],
      [1, 10, 0.8],
    ] as const) {
      const e = ev.withReplacementSample(m, n, ev.gaussian(sigma, 1, RO))
      for (const eps of [0.05, 0.3, 1]) expect(deltaAt('optimal', e, eps)).toBeGreaterThanOrEqual(lower(m, n, sigma, eps) * (1 - 1e-6))
    }
    // the stated-profile route (generic group privacy) of the same Gaussian is looser
    const eps = [0.5, 1, 2, 3, 4, 5, 6, 8]
    const stated = ev.statedProfile(eps, eps.map((x) => analyticGaussianDelta(1, x)), RO)
    const viaGaussian = epsAt('optimal', ev.withReplacementSample(10, 1000, ev.gaussian(1, 1, RO)), 1e-7, RO) as number
    const viaProfile = epsAt('optimal', ev.withReplacementSample(10, 1000, stated), 1e-7, RO) as number
    expect(viaGaussian).toBeLessThan(viaProfile)
  })

  it('composes: 10 steps cost more than one', () => {
    const one = ev.withReplacementSample(64, 10_000, ev.gaussian(1, 1, RO))
    const a = epsAt('optimal', one, 1e-5, RO) as number
    const b = epsAt('optimal', ev.selfCompose(one, 10), 1e-5, RO) as number
    expect(b).toBeGreaterThan(a)
    expect(Number.isFinite(b)).toBe(true)
  })
})

describe('refusals and the codec', () => {
  it('rdp, zcdp and pld refuse with the reason; add/remove is refused', () => {
    const e = ev.withReplacementSample(10, 1000, ev.gaussian(1, 1, RO))
    for (const name of ['rdp', 'zcdp', 'pld'] as const) {
      const run = ACCOUNTANTS[name]({ relation: RO }).run(e)
      expect(E.isLeft(run)).toBe(true)
      if (E.isLeft(run)) expect(formatError(run.left)).toMatch(/with replacement/)
    }
    const ar = ACCOUNTANTS.optimal({ relation: addRemove('record') }).run(ev.withReplacementSample(10, 1000, ev.gaussian(1, 1, addRemove('record'))))
    expect(E.isLeft(ar)).toBe(true)
    if (E.isLeft(ar)) expect(formatError(ar.left)).toMatch(/replace-one/)
  })

  it('bad fields are named with their value', () => {
    const bad = decodeEvent({ _tag: 'WithReplacementSample', batchSize: 2.5, datasetSize: 10, event: { _tag: 'NoOp' } })
    expect(E.isLeft(bad)).toBe(true)
    if (E.isLeft(bad)) expect(formatError(bad.left)).toMatch(/batchSize.*2\.5/)
    const bad2 = decodeEvent({ _tag: 'WithReplacementSample', batchSize: 2, datasetSize: 0, event: { _tag: 'NoOp' } })
    if (E.isLeft(bad2)) expect(formatError(bad2.left)).toMatch(/datasetSize.*0/)
    expect(E.isLeft(bad2)).toBe(true)
    expect(E.isRight(decodeEvent({ _tag: 'WithReplacementSample', batchSize: 2, datasetSize: 10, event: { _tag: 'NoOp' } }))).toBe(true)
  })
})

describe('calibration', () => {
  const template = (field: 'batchSize' | 'datasetSize', other: number): unknown => ({
    schemaVersion: 1,
    relation: { kind: 'replace-one', unit: 'record' },
    event: {
      _tag: 'WithReplacementSample',
      batchSize: field === 'batchSize' ? '$param' : other,
      datasetSize: field === 'datasetSize' ? '$param' : other,
      event: ev.gaussian(2, 1, RO),
    },
  })
  const eps = (m: number, n: number): number => epsAt('optimal', ev.withReplacementSample(m, n, ev.gaussian(2, 1, RO)), 1e-5, RO) as number

  it('finds the largest batch and the smallest dataset meeting ε ≤ 0.5 at δ = 1e-5', () => {
    const tb = decodeTemplate(template('batchSize', 1000))
    if (E.isLeft(tb)) throw new Error(formatError(tb.left))
    const cb = calibrate(tb.right, { epsilon: 0.5, delta: 1e-5, accountant: 'optimal' })
    if (E.isLeft(cb)) throw new Error(formatError(cb.left))
    const m = cb.right.value
    expect(eps(m, 1000)).toBeLessThanOrEqual(0.5)
    expect(eps(m + 1, 1000)).toBeGreaterThan(0.5)
    const tn = decodeTemplate(template('datasetSize', 20))
    if (E.isLeft(tn)) throw new Error(formatError(tn.left))
    const cn = calibrate(tn.right, { epsilon: 0.5, delta: 1e-5, accountant: 'optimal' })
    if (E.isLeft(cn)) throw new Error(formatError(cn.left))
    const n = cn.right.value
    expect(eps(20, n)).toBeLessThanOrEqual(0.5)
    expect(eps(20, n - 1)).toBeGreaterThan(0.5)
  })
})
