/**
 * The PLD accountant end to end: against exact values computed in mpmath (optimal composition of
 * (ε, δ) guarantees, k-ary randomized response, composed Laplace), the analytic Gaussian, and an
 * independent numpy PLD for subsampled mechanisms; the accountant laws; bad input.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import { erase } from '../../../src/accounting/accountant.js'
import { makePldAccountant, privacyProfile } from '../../../src/accounting/pld/index.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { pldDelta, pldEpsilon, pldError, readFixture, REL } from './helpers.js'

interface ExactFixture {
  readonly provenance: { readonly script: string }
  readonly kov: ReadonlyArray<{
    epsilon: number
    delta: number
    k: number
    epsilonAt: ReadonlyArray<{ delta: number; epsilon: number }>
    deltaAt: ReadonlyArray<{ epsilon: number; delta: number }>
  }>
  readonly heterogeneous: ReadonlyArray<{
    epsilon1: number
    k1: number
    epsilon2: number
    k2: number
    epsilonAt: ReadonlyArray<{ delta: number; epsilon: number }>
  }>
  readonly kary: ReadonlyArray<{ epsilon: number; k: number; T: number; epsilonAt: ReadonlyArray<{ delta: number; epsilon: number }> }>
  readonly laplace: ReadonlyArray<{
    epsilon0: number
    T: number
    epsilonAt: ReadonlyArray<{ delta: number; epsilon: number }>
    deltaAt: ReadonlyArray<{ epsilon: number; delta: number }>
  }>
}

const exact = readFixture<ExactFixture>('pld-exact.json')

/** The fixture's ε is the upper end of a 1e-13 bisection bracket. */
const FIXTURE_SLACK = (x: number): number => 1e-11 * Math.max(1, x)

const expectBracket = (got: { epsilon: number; lower?: number }, want: number, label: string, tol = 1e-3): void => {
  expect(got.epsilon, `${label}: upper`).toBeGreaterThanOrEqual(want - FIXTURE_SLACK(want))
  expect(got.epsilon - want, `${label}: upper − exact`).toBeLessThan(tol)
  expect(got.lower, `${label}: lower`).toBeDefined()
  expect(got.lower as number, `${label}: lower`).toBeLessThanOrEqual(want + FIXTURE_SLACK(want))
}

describe('against the exact optimal composition of k identical (ε, δ) guarantees (Kairouz–Oh–Viswanath)', () => {
  it('has provenance', () => {
    expect(exact.provenance.script).toBe('scripts/fixtures/pld_exact.py')
  })

  it.each(exact.kov.map((c) => [`(${c.epsilon}, ${c.delta}) × ${c.k}`, c] as const))('%s', (_, c) => {
    const e = ev.selfCompose(ev.approxDP(c.epsilon, c.delta, REL), c.k)
    const infinityMass = -Math.expm1(c.k * Math.log1p(-c.delta))
    for (const row of c.epsilonAt) {
      const got = pldEpsilon(e, row.delta)
      if (row.delta - infinityMass < 1e-3 * row.delta) {
        // δ barely above the mass at +∞ (kδ): ε hinges on a finite part of ~1e-10, below the
        // accountant's floating-point allowance, so only soundness is asserted.
        expect(got.epsilon).toBeGreaterThanOrEqual(row.epsilon - FIXTURE_SLACK(row.epsilon))
        continue
      }
      expectBracket(got, row.epsilon, `δ=${row.delta}`)
      // ε is a multiple of the (aligned) interval: the optimistic side is exact up to the
      // floating-point allowance (which dominates the gap at small δ).
      expect(row.epsilon - (got.lower as number), `δ=${row.delta}: exact − lower`).toBeLessThan(1e-3)
    }
    for (const row of c.deltaAt) {
      const got = pldDelta(e, row.epsilon)
      expect(got.delta).toBeGreaterThanOrEqual(row.delta * (1 - 1e-9) - 1e-15)
      expect(got.delta - row.delta).toBeLessThan(1e-6)
      expect(got.lower as number).toBeLessThanOrEqual(row.delta * (1 + 1e-9) + 1e-15)
    }
  })

  it.each(exact.heterogeneous.map((c) => [`RR(${c.epsilon1})^${c.k1} × RR(${c.epsilon2})^${c.k2}`, c] as const))(
    'heterogeneous %s (atoms off the grid: upper tight, lower within T·h)',
    (_, c) => {
      const e = ev.compose([ev.selfCompose(ev.pureDP(c.epsilon1, REL), c.k1), ev.selfCompose(ev.pureDP(c.epsilon2, REL), c.k2)])
      for (const row of c.epsilonAt) {
        const got = pldEpsilon(e, row.delta)
        expectBracket(got, row.epsilon, `δ=${row.delta}`)
        expect(row.epsilon - (got.lower as number)).toBeLessThan((c.k1 + c.k2) * 1e-4)
      }
    },
  )
})

describe('self-composition really composes n times (not the one-step ε)', () => {
  it.each(exact.kary.map((c) => [`RR(${c.epsilon}, k = ${c.k}) × ${c.T}`, c] as const))('k-ary %s matches the trinomial sum', (_, c) => {
    const e = ev.selfCompose(ev.randomizedResponse(c.epsilon, c.k, REL), c.T)
    for (const row of c.epsilonAt) expectBracket(pldEpsilon(e, row.delta), row.epsilon, `δ=${row.delta}`)
  })

  it('ε of 50 steps of RR(1) is about 30, not the one-step ε ≤ 1', () => {
    const one = pldEpsilon(ev.randomizedResponse(1, 4, REL), 1e-3).epsilon
    const fifty = pldEpsilon(ev.selfCompose(ev.randomizedResponse(1, 4, REL), 50), 1e-3).epsilon
    expect(one).toBeLessThanOrEqual(1)
    expect(fifty).toBeGreaterThan(29)
    // Bitwise RR over b bits is b binary RRs: 5 steps × 4 bits = 20-fold RR(ln 4).
    const bitwise = pldEpsilon(ev.selfCompose(ev.bitwiseRandomizedResponse(0.2, 4, REL), 5), 1e-5)
    const binary = pldEpsilon(ev.selfCompose(ev.pureDP(Math.log(4), REL), 20), 1e-5)
    expect(Math.abs(bitwise.epsilon - binary.epsilon)).toBeLessThan(1e-9)
  })
})

describe('against the exact composed Laplace profile', () => {
  it.each(exact.laplace.map((c) => [`ε₀ = ${c.epsilon0}, T = ${c.T}`, c] as const))('%s', (_, c) => {
    const e = ev.selfCompose(ev.laplace(1 / c.epsilon0, 1, REL), c.T)
    for (const row of c.epsilonAt) expectBracket(pldEpsilon(e, row.delta), row.epsilon, `δ=${row.delta}`)
    for (const row of c.deltaAt) {
      const got = pldDelta(e, row.epsilon)
      expect(got.delta, `ε=${row.epsilon}`).toBeGreaterThanOrEqual(row.delta * (1 - 1e-9) - 1e-15)
      expect(got.delta - row.delta, `ε=${row.epsilon}`).toBeLessThan(1e-5)
      expect(got.lower as number, `ε=${row.epsilon}`).toBeLessThanOrEqual(row.delta * (1 + 1e-9) + 1e-15)
    }
  })
})

describe('Gaussians', () => {
  it('compose exactly into one Gaussian: the closed-form profile, with no accounting error', () => {
    const e = ev.compose([ev.selfCompose(ev.gaussian(2, 1, REL), 30), ev.labeled('tail', ev.gaussian(3, 2, REL))])
    const m = 1 / Math.sqrt(30 / 4 + 4 / 9)
    const got = pldEpsilon(e, 1e-5)
    const want = analyticGaussianEpsilon(m, 1e-5)
    expect(got.epsilon).toBeGreaterThanOrEqual(want)
    expect(got.epsilon - want).toBeLessThan(1e-9)
    expect(got.lower as number).toBeLessThanOrEqual(want)
    expect(got.method).toMatch(/Balle & Wang/)
  })

  it('the numerical path (analyticGaussian: false) brackets the analytic value within 1e-3 for T ≤ 1000', () => {
    for (const [sigma, T] of [
      [1, 1],
      [5, 20],
      [20, 1000],
    ] as const) {
      const got = pldEpsilon(ev.selfCompose(ev.gaussian(sigma, 1, REL), T), 1e-5, { analyticGaussian: false })
      const want = analyticGaussianEpsilon(sigma / Math.sqrt(T), 1e-5)
      expect(got.method).toMatch(/interval 0\.000100000/)
      expectBracket(got, want, `σ=${sigma} T=${T}`)
    }
  })
})

interface SubsampledFixture {
  readonly provenance: { readonly script: string }
  readonly cases: ReadonlyArray<{
    noise: 'gaussian' | 'laplace'
    scale: number
    q: number
    T: number
    delta: number
    epsilon: number
    epsilonCoarser: number
  }>
}

describe('Poisson-subsampled mechanisms against an independent numpy PLD at a 5–20× finer interval', () => {
  const sub = readFixture<SubsampledFixture>('pld-subsampled.json')
  it('has provenance', () => expect(sub.provenance.script).toBe('scripts/fixtures/pld_subsampled.py'))
  const small = sub.cases.filter((c) => c.T <= 1000)
  it.each(small.map((c) => [`${c.noise} ${c.scale}, q = ${c.q}, T = ${c.T}, δ = ${c.delta}`, c] as const))('%s', (_, c) => {
    const leaf = c.noise === 'gaussian' ? ev.gaussian(c.scale, 1, REL) : ev.laplace(c.scale, 1, REL)
    const got = pldEpsilon(ev.selfCompose(ev.poissonSample(c.q, leaf), c.T), c.delta)
    // The reference's own discretisation error is |epsilon − epsilonCoarser| (at most that again).
    const refErr = Math.abs(c.epsilon - c.epsilonCoarser)
    expect(got.epsilon).toBeGreaterThanOrEqual(c.epsilon - refErr - 1e-9)
    expect(Math.abs(got.epsilon - c.epsilon)).toBeLessThan(1e-3)
    expect(got.lower as number).toBeLessThanOrEqual(c.epsilon + refErr + 1e-9)
  })
})

describe('queries', () => {
  it('never mutate the state: repeated and interleaved queries give identical answers', () => {
    const acc = makePldAccountant({ relation: REL })
    const s = acc.compose(ev.selfCompose(ev.poissonSample(0.05, ev.laplace(1, 1, REL)), 40))(acc.empty)
    expect(E.isRight(s)).toBe(true)
    if (E.isLeft(s)) return
    const snapshot = JSON.stringify(s.right.factors)
    const a1 = acc.epsilon(1e-6)(s.right)
    const d1 = acc.delta(1)(s.right)
    const a2 = acc.epsilon(1e-6)(s.right)
    expect(a1).toEqual(a2)
    expect(acc.delta(1)(s.right)).toEqual(d1)
    expect(JSON.stringify(s.right.factors)).toBe(snapshot)
    // Composing further from the same state leaves the original untouched.
    const s2 = acc.compose(ev.laplace(1, 1, REL))(s.right)
    expect(E.isRight(s2)).toBe(true)
    expect(acc.epsilon(1e-6)(s.right)).toEqual(a1)
  })

  it('ε(δ) and δ(ε) are consistent: δ_upper(ε_upper(δ)) ≤ δ', () => {
    const acc = makePldAccountant({ relation: REL })
    const s = acc.compose(ev.compose([ev.selfCompose(ev.laplace(2, 1, REL), 10), ev.poissonSample(0.1, ev.randomizedResponse(1, 3, REL))]))(acc.empty)
    if (E.isLeft(s)) throw new Error(formatError(s.left))
    for (const delta of [1e-2, 1e-4, 1e-7]) {
      const a = acc.epsilon(delta)(s.right)
      if (E.isLeft(a)) throw new Error(formatError(a.left))
      const d = acc.delta(a.right.epsilon)(s.right)
      if (E.isLeft(d)) throw new Error(formatError(d.left))
      expect(d.right.delta).toBeLessThanOrEqual(delta)
      expect(a.right.method).toMatch(/interval/)
      expect(a.right.method).toMatch(/accounting error/)
    }
  })

  it('the privacy profile over a grid is non-increasing, with lower ≤ upper', () => {
    const acc = makePldAccountant({ relation: REL })
    const s = acc.compose(ev.selfCompose(ev.poissonSample(0.02, ev.gaussian(1, 1, REL)), 200))(acc.empty)
    if (E.isLeft(s)) throw new Error(formatError(s.left))
    const grid = Array.from({ length: 41 }, (_, i) => i * 0.1)
    const p = privacyProfile(s.right, grid)
    expect(E.isRight(p)).toBe(true)
    if (E.isLeft(p)) return
    const viaAccountant = acc.profile(grid)(s.right)
    expect(viaAccountant).toEqual(p)
    for (let i = 0; i < p.right.length; i++) {
      const pt = p.right[i]!
      expect(pt.lower).toBeLessThanOrEqual(pt.delta)
      if (i > 0) expect(pt.delta).toBeLessThanOrEqual(p.right[i - 1]!.delta)
    }
    expect(E.isLeft(privacyProfile(s.right, [0.1, -1]))).toBe(true)
  })

  it('NoOp gives 0, NonPrivate ∞; bad δ and ε are refused', () => {
    expect(pldEpsilon(ev.noOp, 1e-5).epsilon).toBe(0)
    expect(pldEpsilon(ev.compose([]), 1e-5).epsilon).toBe(0)
    expect(pldEpsilon(ev.compose([ev.laplace(1, 1, REL), ev.nonPrivate]), 1e-5).epsilon).toBe(Infinity)
    // A subsampled NonPrivate release has infinite loss only with probability q.
    expect(pldEpsilon(ev.poissonSample(1e-3, ev.nonPrivate), 1e-2).epsilon).toBeLessThan(1e-2)
    expect(pldEpsilon(ev.poissonSample(1e-3, ev.nonPrivate), 1e-4).epsilon).toBe(Infinity)
    // δ(∞) is exactly the mass at +∞.
    expect(pldDelta(ev.poissonSample(1e-3, ev.nonPrivate), Infinity).delta).toBeCloseTo(1e-3, 15)
    // (for a Gaussian, only the tail the upper estimate truncated to +∞: at most tailMass)
    const dInf = pldDelta(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, REL)), 50), Infinity)
    expect(dInf.delta).toBeLessThanOrEqual(1e-15)
    expect(dInf.lower).toBe(0)
    const acc = makePldAccountant({ relation: REL })
    const s = acc.compose(ev.laplace(1, 1, REL))(acc.empty)
    if (E.isLeft(s)) throw new Error('compose failed')
    for (const d of [1, -1, Number.NaN]) expect(E.isLeft(acc.epsilon(d)(s.right))).toBe(true)
    // δ = 0 asks for pure ε-DP (issue 26): a Laplace of scale 1 is 1-DP; never below it.
    const at0 = acc.epsilon(0)(s.right)
    expect(E.isRight(at0) && at0.right.epsilon).toBeGreaterThanOrEqual(1)
    for (const e of [-1, Number.NaN]) expect(E.isLeft(acc.delta(e)(s.right))).toBe(true)
  })
})

describe('bad input', () => {
  it('refuses an interval ≤ 0 or NaN before doing anything, naming the option', () => {
    for (const interval of [0, -1e-4, Number.NaN, Infinity]) {
      const msg = pldError(ev.laplace(1, 1, REL), { interval })
      expect(msg).toMatch(/^options\.interval: /)
    }
    expect(pldError(ev.laplace(1, 1, REL), { tailMass: 0 })).toMatch(/^options\.tailMass: /)
  })

  it('never refuses for size: an interval so small that the grid would exceed memory is coarsened, and the method says so', () => {
    const a = pldEpsilon(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, REL)), 100), 1e-5, { interval: 1e-8 })
    expect(a.method).toMatch(/interval 1\.00000e-8 requested would exceed the 2\^22-point grid limit, coarsened to/)
    const exact = pldEpsilon(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, REL)), 100), 1e-5)
    expect(a.epsilon).toBeGreaterThanOrEqual(exact.lower as number)
    expect(a.lower as number).toBeLessThanOrEqual(exact.epsilon)
    // A wide composition window is coarsened the same way (it was refused before).
    const wide = pldEpsilon(ev.selfCompose(ev.laplace(0.01, 1, REL), 1000), 1e-5)
    expect(wide.method).toMatch(/coarsened to/)
    expect(wide.epsilon).toBeGreaterThanOrEqual(wide.lower as number)
  })

  it('names the path of an event it cannot handle', () => {
    expect(pldError(ev.compose([ev.laplace(1, 1, REL), ev.zcdp(0.5, REL)]))).toMatch(/^\$\.events\[1\]: the pld accountant cannot handle ZCDP/)
    expect(pldError(ev.selfCompose(ev.labeled('x', ev.sampleWithoutReplacement(10, 100, ev.laplace(1, 1, replaceOne()))), 3), { relation: replaceOne() })).toMatch(
      /^\$\.event\.event: the pld accountant cannot handle SampleWithoutReplacement/,
    )
    expect(pldError(ev.poissonSample(0.1, ev.compose([ev.laplace(1, 1, REL), ev.pureDP(1, REL)])))).toMatch(
      /^\$\.event: the pld accountant cannot handle Compose/,
    )
    expect(pldError(ev.poissonSample(0.1, ev.zcdp(1, REL)))).toMatch(/^\$\.event: .*ZCDP/)
    expect(pldError(ev.compose([ev.noOp, ev.selfCompose(ev.labeled('s', ev.gaussian(1, 1, replaceOne())), 3)]))).toMatch(
      /^\$\.events\[1\]\.event\.event: /,
    )
    // Poisson sampling is amplified under add/remove only.
    expect(pldError(ev.poissonSample(0.1, ev.gaussian(1, 1, replaceOne())), { relation: replaceOne() })).toMatch(/add\/remove/)
  })

  it('the erased accountant reports the failure, so `account` can still show the others', () => {
    const any = erase(makePldAccountant({ relation: REL }))
    const r = any.run(ev.compose([ev.gaussian(1, 1, REL), ev.zcdp(1, REL)]), '$.event')
    expect(E.isLeft(r)).toBe(true)
    if (E.isLeft(r)) expect(formatError(r.left)).toMatch(/^\$\.event\.events\[1\]: /)
  })
})

describe('subsampling structure', () => {
  it('a subsampled composition of Gaussians is one subsampled Gaussian; nested sampling multiplies rates', () => {
    const a = pldEpsilon(ev.selfCompose(ev.poissonSample(0.1, ev.selfCompose(ev.gaussian(2, 1, REL), 4)), 20), 1e-5)
    const b = pldEpsilon(ev.selfCompose(ev.poissonSample(0.1, ev.gaussian(1, 1, REL)), 20), 1e-5)
    expect(Math.abs(a.epsilon - b.epsilon)).toBeLessThan(1e-9)
    const c = pldEpsilon(ev.poissonSample(0.5, ev.labeled('inner', ev.poissonSample(0.2, ev.laplace(1, 1, REL)))), 1e-5)
    const d = pldEpsilon(ev.poissonSample(0.1, ev.laplace(1, 1, REL)), 1e-5)
    expect(Math.abs(c.epsilon - d.epsilon)).toBeLessThan(1e-12)
  })

  it('q = 1 is no subsampling at all', () => {
    const a = pldEpsilon(ev.poissonSample(1, ev.compose([ev.laplace(1, 1, REL), ev.pureDP(0.5, REL)])), 1e-5)
    const b = pldEpsilon(ev.compose([ev.laplace(1, 1, REL), ev.pureDP(0.5, REL)]), 1e-5)
    expect(a.epsilon).toBe(b.epsilon)
  })
})
