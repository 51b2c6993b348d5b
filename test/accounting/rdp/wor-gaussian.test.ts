import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import {
  WBK_GAUSSIAN_NOTE,
  gaussianRdp,
  logPearsonVajdaGaussian,
  makeRdpAccountant,
  subsampledGaussianRdp,
  wbkBound,
  wbkGaussianBound,
} from '../../../src/accounting/rdp/index.js'
import { formatError } from '../../../src/core/error.js'
import { roundUpLoss } from '../../../src/core/numeric.js'
import { forgetKept } from '../../../src/accounting/rdp/kept.js'
import { logBinomialRow, logExpm1, logSumExpPruned, softplus } from '../../../src/accounting/rdp/log-space.js'
import * as ev from '../../../src/mechanisms/event.js'
import { replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { loadFixture, num, relDiff } from './fixtures.js'

const RO = replaceOne('record')
const SEED = 2019_27

interface Fixture {
  readonly values: ReadonlyArray<{ m: number; n: number; sigma: string; alpha: number; thm9: string; thm27: string }>
  readonly steps: {
    m: number
    n: number
    sigma: string
    steps: number
    delta: string
    thm9: { epsilon: string; order: number }
    thm27: { epsilon: string; order: number }
  }
}
const fx = loadFixture<Fixture>('rdp_wor_gaussian.json')
const thm9 = (gamma: number, m: number, alpha: number): number => wbkBound(gamma, (j) => gaussianRdp(m, j), Infinity, alpha)

describe('WBK 2019 Thm 27 (Gaussian base, sampling without replacement) against mpmath', () => {
  it('matches the theorem as printed (scripts/fixtures/rdp_wor_gaussian.py) to 1e-8, never below it', () => {
    expect(fx.values.length).toBe(35)
    for (const r of fx.values) {
      const got = wbkGaussianBound(r.m / r.n, num(r.sigma), r.alpha)
      // 1e-8: the Pearson–Vajda moments carry a rigorous cancellation margin (2e-12 of the absolute
      // terms), which for σ = 5 leaves up to 3e-9 of slack (4.5× below Thm 9 there); never below.
      expect(Math.abs(relDiff(got, num(r.thm27)))).toBeLessThan(1e-8)
      expect(got).toBeGreaterThanOrEqual(num(r.thm27))
      expect(Math.abs(relDiff(thm9(r.m / r.n, num(r.sigma), r.alpha), num(r.thm9)))).toBeLessThan(1e-10)
    }
  })

  it('the issue’s example: m = 100 of n = 400,000, σ = 2, α = 32 gives 1.14061e-6 (Thm 9: 1.14671e-6)', () => {
    expect(wbkGaussianBound(100 / 400000, 2, 32)).toBeCloseTo(1.14061e-6, 10)
    expect(thm9(100 / 400000, 2, 32)).toBeCloseTo(1.14671e-6, 10)
  })

  it('Pearson–Vajda moments: the rigorous upper bound covers the exact alternating sum', () => {
    // χ^2 = e^{1/m²} − 1 exactly (E_q[(p/q)²] = e^{ε(2)} with ε(2) = 1/m²).
    for (const m of [0.5, 1, 2, 10, 100]) {
      const exact = Math.expm1(1 / (m * m))
      const got = Math.exp(logPearsonVajdaGaussian(m, 2))
      expect(got).toBeGreaterThanOrEqual(exact * (1 - 1e-15))
      if (m <= 10) expect(Math.abs(relDiff(got, exact))).toBeLessThan(1e-6)
    }
  })

  it('fast-check: exact Poisson lower bound ≤ Thm 27 ≤ Thm 9 at every integer order', () => {
    // Lower bound: a counting query with one record switched 1 → 0 (a replace-one pair) gives the
    // output pair ((1 − γ)N(0, m²) + γN(1, m²), N(0, m²)), whose divergence is the exact sampled Gaussian's.
    fc.assert(
      fc.property(
        fc.double({ min: 1e-5, max: 0.5, noNaN: true }),
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        fc.integer({ min: 2, max: 80 }),
        (gamma, m, alpha) => {
          const t27 = wbkGaussianBound(gamma, m, alpha)
          expect(t27).toBeLessThanOrEqual(thm9(gamma, m, alpha) * (1 + 1e-12))
          expect(t27).toBeGreaterThanOrEqual(subsampledGaussianRdp(gamma, m, alpha) * (1 - 1e-9))
        },
      ),
      { numRuns: 80, seed: SEED },
    )
  })
})

describe('the RDP accountant uses Thm 27 for a Gaussian base and Thm 9 otherwise', () => {
  const acct = makeRdpAccountant({ relation: RO })
  const run = (e: ev.PrivacyEvent, delta: number) => {
    const s = acct.compose(e)(acct.empty)
    if (E.isLeft(s)) throw new Error(formatError(s.left))
    const a = acct.epsilon(delta)(s.right)
    if (E.isLeft(a)) throw new Error(formatError(a.left))
    return { answer: a.right, notes: s.right.notes }
  }

  it('1,600 steps of m = 100 of n = 400,000, σ = 2 at δ = 1e-5: at most mpmath’s integer-order optimum of Thm 27', () => {
    const w = fx.steps
    const { answer, notes } = run(ev.selfCompose(ev.sampleWithoutReplacement(w.m, w.n, ev.gaussian(2, 1, RO)), w.steps), num(w.delta))
    expect(answer.epsilon).toBeLessThanOrEqual(num(w.thm27.epsilon) * (1 + 1e-9))
    expect(answer.epsilon).toBeGreaterThan(num(w.thm27.epsilon) * 0.999)
    expect(num(w.thm27.epsilon)).toBeLessThan(num(w.thm9.epsilon))
    expect(notes.some((n) => n.startsWith(WBK_GAUSSIAN_NOTE))).toBe(true)
  })

  it('a Laplace base keeps the general Theorem 9', () => {
    const { notes } = run(ev.selfCompose(ev.sampleWithoutReplacement(10, 1000, ev.laplace(1, 1, RO)), 10), 1e-5)
    expect(notes.some((n) => n.startsWith(WBK_GAUSSIAN_NOTE))).toBe(false)
    expect(notes.some((n) => n.includes('Wang–Balle–Kasiviswanathan 2019 subsampling-without-replacement bound'))).toBe(true)
  })
})

describe('Theorem 27 skips the Pearson–Vajda moments of terms that cannot count (same bits)', () => {
  /** Theorem 27 with every term's moments computed (the sum before the Lyapunov skip). */
  const everyTerm = (gamma: number, m: number, alpha: number): number => {
    const eps = (j: number): number => j / (2 * m * m)
    const row = logBinomialRow(alpha)
    const lg = Math.log(gamma)
    const terms = [2 * lg + (row[2] as number) + Math.min(Math.log(4) + logExpm1(eps(2)), eps(2) + Math.LN2)]
    for (let j = 3; j <= alpha; j++) {
      const pv = Math.log(4) + 0.5 * (logPearsonVajdaGaussian(m, 2 * Math.floor(j / 2)) + logPearsonVajdaGaussian(m, 2 * Math.ceil(j / 2)))
      terms.push(j * lg + (row[j] as number) + Math.min(pv, (j - 1) * eps(j) + Math.LN2))
    }
    return roundUpLoss(softplus(logSumExpPruned(terms)) / (alpha - 1))
  }

  it('fast-check: equal to the sum with every moment computed, γ ∈ [1e-5, 0.5], m ∈ [0.3, 50], α ≤ 1,024', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-5, max: 0.5, noNaN: true }),
        fc.double({ min: 0.3, max: 50, noNaN: true }),
        fc.integer({ min: 2, max: 1024 }),
        (gamma, m, alpha) => {
          forgetKept()
          expect(wbkGaussianBound(gamma, m, alpha)).toBe(everyTerm(gamma, m, alpha))
        },
      ),
      { numRuns: 40, seed: SEED },
    )
    // The bench's workload (100 of 400,000, σ 2 relative to the replace-one sensitivity 2) at its large orders.
    for (const alpha of [66, 512, 1024]) expect(wbkGaussianBound(100 / 400000, 1, alpha)).toBe(everyTerm(100 / 400000, 1, alpha))
  })
})
