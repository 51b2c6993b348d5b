import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import {
  ZHU_WANG_NOTE,
  laplaceRdp,
  makeRdpAccountant,
  subsampledLaplaceCurve,
  subsampledLaplaceIntegerRdp,
  zhuWangPoissonRdp,
} from '../../../src/accounting/rdp/index.js'
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import { MOMENT_PANELS, reverseTaylorUpper, reverseUpper } from '../../../src/accounting/rdp/subsampled-laplace.js'
import { forgetKept } from '../../../src/accounting/rdp/kept.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { addRemove } from '../../../src/mechanisms/neighbouring.js'
import { loadFixture, num, relDiff } from './fixtures.js'

const AR = addRemove('record')
const SEED = 2019_0601

interface Fixture {
  readonly values: ReadonlyArray<{ q: string; b: string; alpha: string; forward: string; reverse: string }>
  readonly steps: { q: string; b: string; steps: number; delta: string; epsilon: string; order: number }
}
const fx = loadFixture<Fixture>('rdp_subsampled_laplace.json')
const exact = (r: Fixture['values'][number]): number => Math.max(num(r.forward), num(r.reverse))

describe('Poisson-subsampled Laplace against mpmath quadrature of both directions', () => {
  it('integer orders: exact (the forward binomial sum) whenever the reverse direction is smaller, never below', () => {
    const ints = fx.values.filter((r) => Number.isInteger(num(r.alpha)))
    expect(ints.length).toBe(35)
    for (const r of ints) {
      const got = subsampledLaplaceIntegerRdp(num(r.q), num(r.b), num(r.alpha))
      expect(got.rdp).toBeGreaterThanOrEqual(exact(r))
      expect(Math.abs(relDiff(got.rdp, exact(r)))).toBeLessThan(1e-9)
      expect(got.method).toBe('exact')
    }
  })

  it('fractional orders: the cumulant chord is an upper bound (within 10 % here, 9.6 % at worst; the optimum usually sits on an integer)', () => {
    const fr = fx.values.filter((r) => !Number.isInteger(num(r.alpha)))
    expect(fr.length).toBe(14)
    for (const r of fr) {
      const got = subsampledLaplaceCurve([num(r.alpha)], num(r.q), num(r.b))[0] as number
      expect(got).toBeGreaterThanOrEqual(exact(r))
      expect(relDiff(got, exact(r))).toBeLessThan(0.1)
    }
  })

  it('the reverse-direction Riemann sums are upper bounds that converge to the quadrature value', () => {
    for (const r of fx.values) {
      const a = num(r.alpha)
      const truth = num(r.reverse)
      const coarse = Math.log1p(reverseUpper(num(r.q), num(r.b), a, 64)) / (a - 1)
      const fine = Math.log1p(reverseUpper(num(r.q), num(r.b), a, 4096)) / (a - 1)
      expect(coarse).toBeGreaterThanOrEqual(truth)
      expect(fine).toBeGreaterThanOrEqual(truth)
      expect(fine).toBeLessThanOrEqual(coarse)
      expect(relDiff(fine, truth)).toBeLessThan(2e-3)
    }
  })

  it('fast-check: never above the Zhu–Wang general bound nor the unsubsampled Laplace, and monotone in q', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 0.95, noNaN: true }),
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        fc.integer({ min: 2, max: 64 }),
        (q, b, alpha) => {
          const v = subsampledLaplaceIntegerRdp(q, b, alpha).rdp
          // Equal at α = 2 (Zhu–Wang's only term is then exact), up to the two margins (1e-11, 1e-12).
          expect(v).toBeLessThanOrEqual(zhuWangPoissonRdp(q, (l) => laplaceRdp(b, l), alpha) * (1 + 1e-10))
          expect(Math.min(v, laplaceRdp(b, alpha))).toBeLessThanOrEqual(laplaceRdp(b, alpha))
          expect(subsampledLaplaceIntegerRdp(q / 2, b, alpha).rdp).toBeLessThanOrEqual(v * (1 + 1e-9))
        },
      ),
      { numRuns: 60, seed: SEED },
    )
  })
})

/**
 * References computed here by other means than the module: the reverse B − 1 = E_Q[h(Y)] bracketed
 * by lower and upper Riemann sums with 8,192 panels per half (lower: right endpoints on [−1, 0],
 * where the integrand decreases; h at the left and the density at the right on [0, 1]), and the
 * forward A − 1 by its whole binomial sum (no tail cut) with @stdlib's binomcoefln, in linear space.
 */
const REF_PANELS = 8192
const hRef = (y: number, alpha: number): number => Math.pow(1 + y, 1 - alpha) - 1 + (alpha - 1) * y
const reverseBracket = (q: number, b: number, alpha: number): { lower: number; upper: number } => {
  const y = (t: number): number => q * Math.expm1(t / b)
  const w = (t: number): number => Math.exp(-(1 + t) / (2 * b)) / (4 * b)
  const d = 1 / REF_PANELS
  let lower = 0.5 * hRef(y(-1), alpha) + 0.5 * Math.exp(-1 / b) * hRef(y(1), alpha)
  let upper = lower
  for (let i = 0; i < REF_PANELS; i++) {
    const a = -1 + i * d
    lower += d * w(a + d) * hRef(y(a + d), alpha)
    upper += d * w(a) * hRef(y(a), alpha)
    const c = i * d
    lower += d * w(c + d) * hRef(y(c), alpha)
    upper += d * w(c) * hRef(y(c + d), alpha)
  }
  return { lower, upper }
}
/** The forward ε(α) from its whole binomial sum, in log space (terms overflow at small b and large α). */
const forwardRef = (q: number, b: number, alpha: number): number => {
  const logs: number[] = []
  for (let l = 2; l <= alpha; l++) {
    const x = (l - 1) * laplaceRdp(b, l)
    logs.push(binomcoefln(alpha, l) + (alpha - l) * Math.log1p(-q) + l * Math.log(q) + x + Math.log1p(-Math.exp(-x)))
  }
  const m = Math.max(...logs)
  const logA1 = m + Math.log(logs.reduce((acc, t) => acc + Math.exp(t - m), 0))
  return (logA1 > 0 ? logA1 + Math.log1p(Math.exp(-logA1)) : Math.log1p(Math.exp(logA1))) / (alpha - 1)
}
const rdpOf = (x: number, alpha: number): number => Math.log1p(x) / (alpha - 1)

describe('the reverse direction by Taylor’s theorem on the moments (no quadrature per order)', () => {
  it('never below the mpmath reverse divergence, at either moment level', () => {
    for (const r of fx.values) {
      const a = num(r.alpha)
      if (!Number.isInteger(a)) continue
      for (const n of MOMENT_PANELS) {
        const t = rdpOf(reverseTaylorUpper(num(r.q), num(r.b), a, n), a)
        expect(t).toBeGreaterThanOrEqual(num(r.reverse))
      }
    }
  })

  it('fast-check: an upper bound on the reverse B − 1 (never below the 8,192-panel lower Riemann sum), and the answer is never below the references nor above what the quadrature alone gave', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 0.95, noNaN: true }),
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        fc.integer({ min: 2, max: 200 }),
        (q, b, alpha) => {
          const ref = reverseBracket(q, b, alpha)
          for (const n of MOMENT_PANELS) expect(reverseTaylorUpper(q, b, alpha, n)).toBeGreaterThanOrEqual(ref.lower)
          forgetKept()
          const got = subsampledLaplaceIntegerRdp(q, b, alpha).rdp
          // Sound: never below either direction's reference (forward exact, reverse from below).
          expect(got).toBeGreaterThanOrEqual(Math.max(forwardRef(q, b, alpha) * (1 - 1e-12), rdpOf(ref.lower, alpha)))
          // Never looser than the quadrature-only answer (the reverse sums at 64, 512, 4096 panels
          // until one is below the forward value, capped by D_∞), up to the margin.
          const forward = forwardRef(q, b, alpha)
          const reverseInf = -Math.log1p(-q * -Math.expm1(-1 / b))
          let before = Math.min(rdpOf(reverseUpper(q, b, alpha, 4096), alpha), reverseInf)
          if (forward >= reverseInf || [64, 512, 4096].some((n) => rdpOf(reverseUpper(q, b, alpha, n), alpha) <= forward)) before = forward
          expect(got).toBeLessThanOrEqual(Math.max(before, forward) * (1 + 1e-9))
        },
      ),
      { numRuns: 80, seed: SEED },
    )
  })

  it('certifies the forward value without quadrature at every integer order of the bench workloads q 0.01, b 1 and 5', () => {
    for (const [q, b] of [
      [0.01, 1],
      [0.01, 5],
    ] as const)
      for (let a = 2; a <= 64; a++) {
        const forward = subsampledLaplaceIntegerRdp(q, b, a).rdp
        const bound = Math.min(...MOMENT_PANELS.map((n) => rdpOf(reverseTaylorUpper(q, b, a, n), a)))
        expect(bound).toBeLessThanOrEqual(forward)
      }
  })
})

describe('the RDP accountant on PoissonSample(q, Laplace)', () => {
  it('SelfCompose(100, PoissonSample(0.01, Laplace b 1)) at δ = 1e-5: 0.36657 (mpmath), not Zhu–Wang’s 0.4916', () => {
    const acct = makeRdpAccountant({ relation: AR })
    const fold = (e: ev.PrivacyEvent) => {
      const s = acct.compose(e)(acct.empty)
      if (E.isLeft(s)) throw new Error(formatError(s.left))
      return s.right
    }
    const s = fold(ev.selfCompose(ev.poissonSample(0.01, ev.laplace(1, 1, AR)), 100))
    const a = acct.epsilon(1e-5)(s)
    if (E.isLeft(a)) throw new Error(formatError(a.left))
    expect(a.right.epsilon).toBeGreaterThanOrEqual(num(fx.steps.epsilon))
    expect(relDiff(a.right.epsilon, num(fx.steps.epsilon))).toBeLessThan(1e-6)
    expect(a.right.order).toBe(fx.steps.order)
    expect(acct.notes(s).some((n) => n.startsWith(ZHU_WANG_NOTE))).toBe(false)
    const general = acct.epsilon(1e-5)(fold(ev.selfCompose(ev.poissonSample(0.01, ev.compose([ev.laplace(1, 1, AR)])), 100)))
    expect(E.isRight(general) && general.right.epsilon).toBeCloseTo(0.4916, 4)
  })
})
