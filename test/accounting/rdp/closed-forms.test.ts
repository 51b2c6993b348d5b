import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { log1mExp, logAddExp, roundUpLoss } from '../../../src/core/numeric.js'
import { logExpm1, softplus } from '../../../src/accounting/rdp/log-space.js'
import {
  CLOSED_FORM_MARGIN,
  bitwiseRandomizedResponseRdp,
  exponentialRdp,
  gaussianRdp,
  laplaceRdp,
  leafCurve,
  leafRdp,
  pureDpRdp,
  randomizedResponseRdp,
  zcdpRdp,
} from '../../../src/accounting/rdp/index.js'
import { loadFixture, num, relDiff } from './fixtures.js'

const SEED = 7_2017

interface Row {
  readonly alpha: string
  readonly rdp: string
}
interface Fixture {
  readonly gaussian: ReadonlyArray<Row & { readonly noiseMultiplier: string }>
  readonly laplace: ReadonlyArray<Row & { readonly noiseMultiplier: string }>
  readonly randomizedResponse: ReadonlyArray<Row & { readonly epsilon: string; readonly k: number }>
  readonly bitwise: ReadonlyArray<Row & { readonly flipProbability: string; readonly bits: number }>
  readonly exponential: ReadonlyArray<Row & { readonly epsilon: string }>
}
const fx = loadFixture<Fixture>('rdp_closed_forms.json')

/** Closed forms are not margined: two-sided agreement with 60-digit mpmath. */
const TOL = 1e-12

const worst = <R extends Row>(rows: ReadonlyArray<R>, f: (r: R) => number): number =>
  Math.max(...rows.map((r) => Math.abs(relDiff(f(r), num(r.rdp)))))

describe('closed-form RDP curves against mpmath (definition of D_α, 60 digits)', () => {
  it('Gaussian α/(2σ²) (Mironov 2017, Prop. 7)', () => {
    expect(worst(fx.gaussian, (r) => gaussianRdp(num(r.noiseMultiplier), num(r.alpha)))).toBeLessThan(TOL)
  })

  it('Laplace (Mironov 2017, Prop. 6), including b = 1000 where the first-order terms cancel', () => {
    expect(fx.laplace.length).toBe(60)
    expect(worst(fx.laplace, (r) => laplaceRdp(num(r.noiseMultiplier), num(r.alpha)))).toBeLessThan(TOL)
  })

  it('k-ary randomized response: the explicit sum over outcomes', () => {
    expect(worst(fx.randomizedResponse, (r) => randomizedResponseRdp(num(r.epsilon), r.k, num(r.alpha)))).toBeLessThan(TOL)
  })

  it('pure ε-DP is binary randomized response', () => {
    const binary = fx.randomizedResponse.filter((r) => r.k === 2)
    expect(binary.length).toBeGreaterThan(20)
    expect(worst(binary, (r) => pureDpRdp(num(r.epsilon), num(r.alpha)))).toBeLessThan(TOL)
  })

  it('bitwise randomized response: enumeration of the 2^bits outputs', () => {
    expect(worst(fx.bitwise, (r) => bitwiseRandomizedResponseRdp(num(r.flipProbability), r.bits, num(r.alpha)))).toBeLessThan(TOL)
  })

  it('exponential mechanism: min(binary RR, αε²/8) (Cesar & Rogers 2021)', () => {
    expect(worst(fx.exponential, (r) => exponentialRdp(num(r.epsilon), num(r.alpha)))).toBeLessThan(TOL)
    // The bounded-range term binds for small ε and moderate α: 1.5·0.5²/8 < binary RR.
    expect(exponentialRdp(0.5, 1.5)).toBeCloseTo((1.5 * 0.25) / 8, 15)
    expect(exponentialRdp(0.5, 1.5)).toBeLessThan(pureDpRdp(0.5, 1.5))
  })

  it('known values: zCDP αρ, degenerate parameters', () => {
    expect(zcdpRdp(0.3, 10)).toBeCloseTo(3, 15)
    expect(randomizedResponseRdp(0, 5, 2)).toBe(0)
    expect(randomizedResponseRdp(Infinity, 5, 2)).toBe(Infinity)
    expect(laplaceRdp(Infinity, 3)).toBe(0)
    expect(gaussianRdp(Infinity, 3)).toBe(0)
    // f and 1 − f flip the same amount of information.
    expect(bitwiseRandomizedResponseRdp(0.8, 2, 3)).toBeCloseTo(bitwiseRandomizedResponseRdp(0.2, 2, 3), 14)
  })
})

describe('closed-form curves: structural properties', () => {
  const alpha = fc.double({ min: 1.001, max: 500, noNaN: true })
  const eps = fc.double({ min: 1e-6, max: 20, noNaN: true })

  it('every ε-DP mechanism is dominated by binary RR at the same ε; all curves ≤ their pure ε', () => {
    fc.assert(
      fc.property(alpha, eps, fc.integer({ min: 2, max: 1000 }), (a, e, k) => {
        const pure = pureDpRdp(e, a)
        const rr = randomizedResponseRdp(e, k, a)
        const lap = laplaceRdp(1 / e, a)
        const exp = exponentialRdp(e, a)
        const slack = pure * 1e-12
        return rr <= pure + slack && lap <= pure + slack && exp <= pure + slack && pure <= e && pure <= (a * e * e) / 2 + slack
      }),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('curves are non-decreasing in α (Rényi divergence is monotone in the order)', () => {
    fc.assert(
      fc.property(alpha, alpha, eps, fc.integer({ min: 2, max: 50 }), (a1, a2, e, k) => {
        const [lo, hi] = a1 <= a2 ? [a1, a2] : [a2, a1]
        const ok = (f: (a: number) => number) => f(lo) <= f(hi) * (1 + 1e-12)
        return ok((a) => laplaceRdp(1 / e, a)) && ok((a) => randomizedResponseRdp(e, k, a)) && ok((a) => exponentialRdp(e, a))
      }),
      { seed: SEED, numRuns: 300 },
    )
  })

  it('near α = 1 the curves approach the KL divergence (Laplace: 1/b + e^{−1/b} − 1)', () => {
    const b = 2
    const kl = 1 / b + Math.exp(-1 / b) - 1
    expect(Math.abs(laplaceRdp(b, 1 + 1e-7) - kl)).toBeLessThan(1e-7)
  })
})

describe('leaves', () => {
  it('refuses ApproxDP with δ > 0 naming the path; δ = 0 is pure DP', () => {
    const r = leafCurve({ _tag: 'ApproxDP', epsilon: 1, delta: 1e-6 }, [2, 3], '$.events[3]')
    expect(E.isLeft(r) && r.left._tag === 'UnsupportedEvent' && r.left.path).toBe('$.events[3]')
    const up = (x: number) => roundUpLoss(x, CLOSED_FORM_MARGIN)
    expect(leafRdp({ _tag: 'ApproxDP', epsilon: 1, delta: 0 }, 4)).toBe(up(pureDpRdp(1, 4)))
    expect(leafRdp({ _tag: 'ZCDP', rho: 0.5, xi: 0 }, 4)).toBe(up(2))
    expect(leafRdp({ _tag: 'Exponential', epsilon: 2 }, 4)).toBe(up(exponentialRdp(2, 4)))
  })

  it('the margined leaf values never fall below the mpmath values, and exceed them by < 1e-12', () => {
    const check = (v: number | undefined, ref: number) => {
      const d = relDiff(v as number, ref)
      return d >= 0 && d < 1e-12
    }
    for (const r of fx.laplace) expect(check(leafRdp({ _tag: 'Laplace', noiseMultiplier: num(r.noiseMultiplier) }, num(r.alpha)), num(r.rdp))).toBe(true)
    for (const r of fx.randomizedResponse)
      expect(check(leafRdp({ _tag: 'RandomizedResponse', epsilon: num(r.epsilon), k: r.k }, num(r.alpha)), num(r.rdp))).toBe(true)
    for (const r of fx.bitwise)
      expect(
        check(leafRdp({ _tag: 'BitwiseRandomizedResponse', flipProbability: num(r.flipProbability), bits: r.bits }, num(r.alpha)), num(r.rdp)),
      ).toBe(true)
    for (const r of fx.exponential) expect(check(leafRdp({ _tag: 'Exponential', epsilon: num(r.epsilon) }, num(r.alpha)), num(r.rdp))).toBe(true)
  })
})

describe('randomized response: the shortcuts of its curve change no bit', () => {
  /** The formula of `randomizedResponseRdp` with every exp and log taken (no shortcut, no shared normaliser). */
  const fullFormula = (epsilon: number, k: number, alpha: number): number => {
    const logX = logExpm1((alpha - 1) * epsilon) + log1mExp(-alpha * epsilon) + epsilon - logAddExp(epsilon, Math.log(k - 1))
    return Math.min(softplus(logX) / (alpha - 1), epsilon)
  }
  const epsilonArb = fc.double({ min: 1e-6, max: 60, noNaN: true })
  const kArb = fc.oneof(fc.constant(2), fc.integer({ min: 2, max: 10_000_000 }))
  const orderArb = fc.oneof(fc.double({ min: 1.0001, max: 10_000, noNaN: true }), fc.integer({ min: 2, max: 10_000 }))

  it('randomizedResponseRdp is the full formula to the bit (the skipped terms are below half an ulp)', () => {
    fc.assert(
      fc.property(epsilonArb, kArb, orderArb, (e, k, a) => Object.is(randomizedResponseRdp(e, k, a), fullFormula(e, k, a))),
      { seed: SEED, numRuns: 20_000 },
    )
  })

  it('the curve of an RR-based leaf (RR, pure DP, (ε, 0)-DP, exponential: normaliser computed once) is leafRdp at every order, to the bit', () => {
    const leafArb = fc.oneof(
      fc.tuple(epsilonArb, kArb).map(([epsilon, k]) => ({ _tag: 'RandomizedResponse', epsilon, k }) as const),
      epsilonArb.map((epsilon) => ({ _tag: 'PureDP', epsilon }) as const),
      epsilonArb.map((epsilon) => ({ _tag: 'ApproxDP', epsilon, delta: 0 }) as const),
      epsilonArb.map((epsilon) => ({ _tag: 'Exponential', epsilon }) as const),
    )
    fc.assert(
      fc.property(leafArb, fc.array(orderArb, { minLength: 1, maxLength: 60 }), (leaf, orders) => {
        const c = leafCurve(leaf, orders, '$')
        return E.isRight(c) && orders.every((a, i) => Object.is(c.right[i], leafRdp(leaf, a)))
      }),
      { seed: SEED, numRuns: 500 },
    )
  })
})
