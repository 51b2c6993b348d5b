/**
 * The PLD accountant on the discrete mechanisms, against exact privacy profiles computed here by
 * direct summation over the integers (./reference.ts): single steps (and the CKS 2020 Thm 7
 * formula), k-fold compositions by convolution, Poisson subsampling in both directions; the
 * refusal of vector discrete Gaussians with the counterexample behind it; the numerical check of
 * the scalar discrete Laplace pair against vector differences; monotonicity.
 *
 * Tolerance: the upper δ is never below the exact δ, and exceeds it by at most 1e-9 + 1e-6·δ — the
 * truncated tail mass (≤ 1e-15), the suffix-sum and FFT rounding bounds the accountant adds, and the
 * chord between grid points. Measured on these cases: at most 1.8e-10 for one step, 6e-10 (4.6e-8
 * relative where δ > 1e-6) after composition, 1.6e-11 subsampled.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { makePldAccountant } from '../../../src/accounting/pld/index.js'
import { formatError } from '../../../src/core/error.js'
import * as ev from '../../../src/mechanisms/event.js'
import { replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { discreteGaussianLogNormalizer } from '../../../src/accounting/discrete-noise.js'
import { pldDelta, pldEpsilon, pldError } from '../pld/helpers.js'
import { REL, SEED } from './helpers.js'
import {
  composePld,
  dgShiftPld,
  discreteGaussianLaw,
  discreteLaplaceLaw,
  dlShiftPld,
  type LatticePld,
  pldDeltaAt,
  selfComposePld,
  subsampledShiftDelta,
} from './reference.js'

/** Allowed excess of the upper δ over the exact one (see the module note). */
const slack = (exact: number): number => 1e-9 + 1e-6 * exact
/** The references drop masses below 1e-300 at the ends of their ranges. */
const FLOOR = 1e-290

/** δ(ε) at each ε from one composed state (upper and lower), by the accountant's profile query. */
const profile = (e: ev.PrivacyEvent, epsilons: ReadonlyArray<number>): ReadonlyArray<{ delta: number; lower: number }> => {
  const acc = makePldAccountant({ relation: REL })
  const s = acc.compose(e)(acc.empty)
  if (E.isLeft(s)) throw new Error(formatError(s.left))
  const p = acc.profile(epsilons)(s.right)
  if (E.isLeft(p)) throw new Error(formatError(p.left))
  return p.right
}

const expectBracket = (got: { delta: number; lower?: number }, exact: number, label: string): void => {
  expect(got.delta, `${label}: upper ≥ exact`).toBeGreaterThanOrEqual(exact - FLOOR)
  expect(got.delta - exact, `${label}: upper − exact`).toBeLessThanOrEqual(slack(exact))
  expect(got.lower as number, `${label}: lower ≤ exact`).toBeLessThanOrEqual(exact + slack(exact))
}

/**
 * CKS 2020 Thm 7 as printed: δ = P[Z > εσ²/Δ − Δ/2] − e^ε P[Z > εσ²/Δ + Δ/2], the two tails summed
 * over the integers of a wide range (moderate δ only: the difference cancels).
 */
const cksTheorem7 = (sigma: number, d: number, eps: number): number => {
  const logZ = discreteGaussianLogNormalizer(sigma)
  const tail = (c: number): number => {
    let s = 0
    for (let x = Math.floor(c) + 1; x < Math.floor(c) + 60 * sigma + 60; x++) s += Math.exp(-(x * x) / (2 * sigma * sigma) - logZ)
    return s
  }
  const c = (eps * sigma * sigma) / d
  return tail(c - d / 2) - Math.exp(eps) * tail(c + d / 2)
}

describe('discrete Gaussian (scalar query): PLD against the exact profile', () => {
  const cases = [
    [1, 1],
    [2, 3],
    [5, 1],
    [0.7, 2],
    [20, 5],
    [0.3, 1],
  ] as const
  const epsilons = [0, 0.3, 1, 2.5]

  it('one step: the exact δ(ε) by summation agrees with CKS Thm 7 as printed', () => {
    for (const [s, d] of cases)
      for (const eps of epsilons) {
        const exact = pldDeltaAt(dgShiftPld(discreteGaussianLaw(s), s, d), eps)
        if (exact > 1e-6) expect(Math.abs(cksTheorem7(s, d, eps) - exact), `σ=${s} Δ=${d} ε=${eps}`).toBeLessThan(1e-13)
      }
  })

  it('one step and k-fold compositions: upper ≥ exact, within 1e-9 + 1e-6·δ; lower ≤ exact', () => {
    for (const [s, d] of cases) {
      const one = dgShiftPld(discreteGaussianLaw(s), s, d)
      // Small σ spreads the loss far (Δ(Δ + 2n)/(2σ²)): one step only there, to keep the test fast.
      for (const k of s < 0.5 ? [1] : [1, 3, 6]) {
        const exact = selfComposePld(one, k)
        const got = profile(ev.selfCompose(ev.discreteGaussian(s, d, REL, { scalar: true }), k), epsilons)
        epsilons.forEach((eps, i) => expectBracket(got[i]!, pldDeltaAt(exact, eps), `σ=${s} Δ=${d} k=${k} ε=${eps}`))
      }
    }
  })

  it('Δ = 1 needs no scalar flag: an integer vector of L2 norm ≤ 1 is ± one coordinate vector', () => {
    const exact = pldDeltaAt(dgShiftPld(discreteGaussianLaw(1.5), 1.5, 1), 0.5)
    expectBracket(pldDelta(ev.discreteGaussian(1.5, 1, REL), 0.5), exact, 'vector Δ = 1')
  })

  it('a heterogeneous composition (two discrete Gaussians and a discrete Laplace)', () => {
    const a = dgShiftPld(discreteGaussianLaw(1.5), 1.5, 1)
    const b = dgShiftPld(discreteGaussianLaw(3), 3, 2)
    const c = dlShiftPld(discreteLaplaceLaw(2), 2, 1)
    // Put the three on one loss lattice: unit 1/72 holds 1/(2·1.5²)·1 = 16/72, 2/18 = 8/72 and 1/2 = 36/72.
    const onto = (p: LatticePld, factor: number): LatticePld => {
      const mass = new Float64Array((p.mass.length - 1) * factor + 1)
      p.mass.forEach((m, j) => (mass[j * factor] = m))
      return { j0: p.j0 * factor, unit: 1 / 72, mass }
    }
    const exact = composePld(composePld(onto(a, 16), onto(b, 4)), onto(c, 36))
    const e = ev.compose([
      ev.discreteGaussian(1.5, 1, REL),
      ev.discreteGaussian(3, 2, REL, { scalar: true }),
      ev.discreteLaplace(2, 1, REL),
    ])
    for (const eps of [0, 0.5, 1.5, 3]) {
      // The three loss lattices differ, so the default grid is not aligned to them: atoms between
      // grid points are split (connect the dots), an error of order h per atom on the upper side.
      const loose = pldDelta(e, eps)
      expect(loose.delta).toBeGreaterThanOrEqual(pldDeltaAt(exact, eps))
      expect(loose.delta - pldDeltaAt(exact, eps)).toBeLessThan(1e-5 * pldDeltaAt(exact, eps) + 1e-9)
      // An interval dividing 1/72 puts every atom on a grid point: then within the usual slack.
      expectBracket(pldDelta(e, eps, { interval: 1 / 7200 }), pldDeltaAt(exact, eps), `mixed ε=${eps}`)
    }
  })
})

describe('discrete Gaussian on a vector query', () => {
  it('the scalar pair does not dominate: (1, 1, 1, 1) against the shift by 2 at σ = 1', () => {
    const law = discreteGaussianLaw(1)
    const one = dgShiftPld(law, 1, 1)
    const vector = selfComposePld(one, 4)
    const scalar = dgShiftPld(law, 1, 2)
    expect(pldDeltaAt(vector, 2) - pldDeltaAt(scalar, 2)).toBeGreaterThan(0.048)
  })

  it('is refused by the PLD accountant for Δ ≥ 2 unless the query is declared scalar, naming the path', () => {
    const tree = ev.compose([ev.noOp, ev.labeled('counts', ev.discreteGaussian(3, 2, REL))])
    expect(pldError(tree)).toMatch(/^\$\.events\[1\]\.event: .*discrete Gaussian on a vector query with Δ = 2 ≥ 2.*"scalar": true/)
    expect(pldError(ev.poissonSample(0.1, ev.discreteGaussian(3, 2, REL)))).toMatch(/vector query/)
    expect(pldError(ev.discreteGaussian(3, 2, REL, { scalar: true }))).toBeUndefined()
  })

  it('under replace-one: a scalar query stays scalar (Δ doubles), a vector one with Δ = 1 becomes Δ = 2 and is refused', () => {
    const r = replaceOne('record')
    const scalar = pldEpsilon(ev.discreteGaussian(2, 1, REL, { scalar: true }), 1e-6, { relation: r })
    expect(scalar.epsilon).toBe(pldEpsilon(ev.discreteGaussian(2, 2, r, { scalar: true }), 1e-6, { relation: r }).epsilon)
    expect(pldError(ev.discreteGaussian(2, 1, REL), { relation: r })).toMatch(/vector query with Δ = 2/)
  })
})

describe('discrete Laplace: PLD against the exact profile', () => {
  it('one step and k-fold: upper ≥ exact within tolerance; δ = 0 at ε ≥ kΔ/t (exactly for one step, up to the FFT error bound after composition)', () => {
    for (const [t, d] of [
      [1, 1],
      [2, 3],
      [0.5, 2],
      [10, 4],
      [0.2, 7],
    ] as const) {
      const one = dlShiftPld(discreteLaplaceLaw(t), t, d)
      for (const k of [1, 3]) {
        const exact = selfComposePld(one, k)
        const epsilons = [0, 0.3, 1, (k * d) / (2 * t), (k * d) / t, (k * d) / t + 0.5]
        const got = profile(ev.selfCompose(ev.discreteLaplace(t, d, REL), k), epsilons)
        epsilons.forEach((eps, i) => {
          const label = `t=${t} Δ=${d} k=${k} ε=${eps}`
          if (i < 4) expectBracket(got[i]!, pldDeltaAt(exact, eps), label)
          else if (k === 1) expect(got[i]!.delta, label).toBe(0)
          else expect(got[i]!.delta, label).toBeLessThan(1e-12)
        })
      }
    }
  })

  it('the scalar pair dominates every integer difference of L1 norm ≤ 4 (numerical check of the vector reading)', () => {
    const partitions: ReadonlyArray<ReadonlyArray<number>> = [[1, 1], [1, 2], [1, 1, 1], [1, 3], [2, 2], [1, 1, 2], [1, 1, 1, 1]]
    for (const t of [0.3, 1, 3]) {
      const law = discreteLaplaceLaw(t)
      for (const parts of partitions) {
        const d = parts.reduce((a, b) => a + b, 0)
        const vector = parts.map((k) => dlShiftPld(law, t, k)).reduce(composePld)
        const scalar = dlShiftPld(law, t, d)
        for (let i = 0; i <= 200; i++) {
          const eps = ((i / 200) * d) / t
          expect(pldDeltaAt(vector, eps), `t=${t} ${JSON.stringify(parts)} ε=${eps}`).toBeLessThanOrEqual(pldDeltaAt(scalar, eps) * (1 + 1e-12) + 1e-300)
        }
      }
    }
  })
})

describe.each([
  {
    name: 'discrete Gaussian (scalar)',
    law: discreteGaussianLaw,
    make: (s: number, d: number) => ev.discreteGaussian(s, d, REL, { scalar: true }),
    params: [
      [2, 2],
      [0.8, 1],
      [6, 3],
    ] as ReadonlyArray<readonly [number, number]>,
  },
  {
    name: 'discrete Laplace',
    law: discreteLaplaceLaw,
    make: (t: number, d: number) => ev.discreteLaplace(t, d, REL),
    params: [
      [2, 3],
      [0.5, 1],
    ] as ReadonlyArray<readonly [number, number]>,
  },
])('Poisson-subsampled $name', ({ law, make, params }) => {
  it('worse of the remove and add directions: upper ≥ exact within tolerance, against summation', () => {
    for (const [scale, d] of params)
      for (const q of [0.05, 0.5])
        for (const eps of [0, 0.1, 1]) {
          const exact = subsampledShiftDelta(law(scale), d, q, eps)
          expectBracket(pldDelta(ev.poissonSample(q, make(scale, d)), eps), exact, `scale=${scale} Δ=${d} q=${q} ε=${eps}`)
        }
  })
})

describe('monotonicity of the PLD answers', () => {
  const eps = (e: ev.PrivacyEvent): number => pldEpsilon(e, 1e-6).epsilon

  it('discrete Laplace: ε(δ) falls as t grows (t ↦ t(1 + r)), rises with Δ and with the number of steps', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 20, noNaN: true }), fc.double({ min: 0.05, max: 1, noNaN: true }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 8 }), (t, r, d, k) => {
        const at = (tt: number, dd: number, kk: number): number => eps(ev.selfCompose(ev.discreteLaplace(tt, dd, REL), kk))
        const base = at(t, d, k)
        expect(at(t * (1 + r), d, k)).toBeLessThanOrEqual(base)
        expect(at(t, d + 1, k)).toBeGreaterThanOrEqual(base)
        expect(at(t, d, k + 1)).toBeGreaterThanOrEqual(base)
      }),
      { seed: SEED, numRuns: 15 },
    )
  })

  it('discrete Gaussian: ε(δ) rises with Δ and with the number of steps', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 8, noNaN: true }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 4 }), (s, d, k) => {
        const at = (dd: number, kk: number): number => eps(ev.selfCompose(ev.discreteGaussian(s, dd, REL, { scalar: true }), kk))
        const base = at(d, k)
        expect(at(d + 1, k)).toBeGreaterThanOrEqual(base)
        expect(at(d, k + 1)).toBeGreaterThanOrEqual(base)
      }),
      { seed: SEED, numRuns: 8 },
    )
  })

  it('discrete Gaussian: the exact ε(δ) is not monotone in σ, and the accountant follows the truth', () => {
    // Δ = 1, ε = 1: δ(σ = 0.709) ≈ 0.18987 < δ(σ = 0.75) ≈ 0.19226 (the loss lattice Δ(2x − Δ)/(2σ²)
    // moves past ε = 1 as σ² crosses 1/2). More noise, a worse guarantee at this ε.
    const exact = (s: number): number => pldDeltaAt(dgShiftPld(discreteGaussianLaw(s), s, 1), 1)
    expect(exact(0.75)).toBeGreaterThan(exact(0.709) + 0.002)
    const e = (s: number): number => pldEpsilon(ev.discreteGaussian(s, 1, REL), 0.19).epsilon
    expect(e(0.709)).toBeLessThan(1)
    expect(e(0.75)).toBeGreaterThan(1)
  })
})
