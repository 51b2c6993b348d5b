/**
 * One step: the pessimistic (connect-the-dots) and optimistic discretisations bracket the exact
 * privacy profile of each supported dominating pair, at every ε, and the pessimistic one is exact
 * at grid points.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { analyticGaussianDelta } from '../../../src/accounting/analytic-gaussian.js'
import {
  additiveLossRange,
  approxDpPair,
  bitwiseRandomizedResponsePair,
  discretizeAdditive,
  discretizeDiscrete,
  discretizeLattice,
  latticeLossRange,
  randomizedResponsePair,
  subsampledPair,
  type AdditivePair,
  type DiscretePair,
  type LeafPld,
  type LeafPlds,
} from '../../../src/accounting/pld/index.js'
import { discretizeSubsampledGaussian } from '../../../src/accounting/pld/discretize.js'
import { SEED, subsampledGaussianDeltaOneStep } from './helpers.js'

const H = 1e-4

/** δ(ε) = Σ_j m_j (1 − e^{ε − ℓ_j})₊ + ω_∞ of a leaf PLD, summed directly. */
const leafDelta = (pld: LeafPld, h: number, eps: number): number => {
  let s = pld.infinityMass
  for (let j = 0; j < pld.masses.length; j++) {
    const l = (pld.offset + j) * h
    if (l > eps) s += pld.masses[j]! * -Math.expm1(eps - l)
  }
  return s
}
const leafMass = (pld: LeafPld): number => pld.masses.reduce((a, b) => a + b, 0) + pld.infinityMass
const leafMean = (pld: LeafPld, h: number): number => {
  let s = 0
  for (let j = 0; j < pld.masses.length; j++) s += pld.masses[j]! * (pld.offset + j) * h
  return s
}

const gridOf = (pair: AdditivePair, tail = 1e-16) => {
  const r = additiveLossRange(pair, tail)
  const i0 = Math.floor(r.lo / H) - 1
  return { i0, K: Math.ceil(r.hi / H) + 1 - i0 }
}

const discretizeA = (pair: AdditivePair) => {
  const g = gridOf(pair)
  return discretizeAdditive(pair, H, g.i0, g.K)
}

/** Exact δ(ε) of a discrete pair. */
const discreteDelta = (pair: DiscretePair, eps: number): number => {
  let s = 0
  for (const a of pair.atoms) {
    if (a.loss === Infinity) s += a.p
    else if (a.loss > eps) s += a.p * -Math.expm1(eps - a.loss)
  }
  return s
}

const EPS_GRID = [0, 0.01, 0.1, 0.2345, 0.5, 1, 1.5, 2, 3]

describe('Gaussian pair, one step', () => {
  it('brackets the analytic Gaussian at every ε; connect-the-dots is exact on grid points', () => {
    for (const sigma of [0.5, 1, 2, 5]) {
      const l = discretizeA({ _tag: 'Additive', noise: 'gaussian', mu: 1 / sigma, q: 1, direction: 'remove' })
      for (const eps of EPS_GRID) {
        const exact = analyticGaussianDelta(sigma, eps)
        const up = leafDelta(l.upper, H, eps)
        const lo = leafDelta(l.lower, H, eps)
        expect(up, `σ=${sigma} ε=${eps}`).toBeGreaterThanOrEqual(exact * (1 - 1e-12) - 1e-16)
        expect(lo, `σ=${sigma} ε=${eps}`).toBeLessThanOrEqual(exact * (1 + 1e-12) + 1e-16)
        expect(up - lo).toBeLessThan(2e-6)
      }
      // On a grid point the chord touches the curve, up to the rounding-error margins (each cell's
      // split is biased upward by its error estimate, ~1e-15 per cell over ~10^5 cells).
      const onGrid = 4321 * H
      const gap = leafDelta(l.upper, H, onGrid) - analyticGaussianDelta(sigma, onGrid)
      expect(gap).toBeGreaterThanOrEqual(0)
      expect(gap).toBeLessThan(1e-10)
    }
  })

  it('keeps all mass, and raises the mean loss (the KL divergence μ²/2) only at second order', () => {
    const mu = 1
    const l = discretizeA({ _tag: 'Additive', noise: 'gaussian', mu, q: 1, direction: 'remove' })
    expect(Math.abs(leafMass(l.upper) - 1)).toBeLessThan(1e-12)
    expect(leafMass(l.lower)).toBeLessThanOrEqual(1 + 1e-12)
    const kl = (mu * mu) / 2
    expect(leafMean(l.upper, H)).toBeGreaterThanOrEqual(kl - 1e-12)
    expect(leafMean(l.upper, H) - kl).toBeLessThan(H * H) // ≤ h²/8 in theory
    expect(kl - leafMean(l.lower, H)).toBeLessThan(H * H)
  })
})

describe('Laplace pair, one step', () => {
  it('brackets δ(ε) = 1 − e^{(ε − ε₀)/2} and is exact when the atoms are on the grid', () => {
    for (const eps0 of [1, 0.5, 0.3]) {
      const l = discretizeA({ _tag: 'Additive', noise: 'laplace', mu: eps0, q: 1, direction: 'remove' })
      for (const eps of EPS_GRID.filter((e) => e < eps0)) {
        const exact = -Math.expm1((eps - eps0) / 2)
        expect(leafDelta(l.upper, H, eps)).toBeGreaterThanOrEqual(exact - 1e-15)
        expect(leafDelta(l.lower, H, eps)).toBeLessThanOrEqual(exact + 1e-15)
        expect(leafDelta(l.upper, H, eps) - leafDelta(l.lower, H, eps)).toBeLessThan(1e-8)
      }
      expect(leafDelta(l.upper, H, eps0)).toBeLessThan(1e-15)
    }
  })

  it('an atom between grid points costs the optimistic side at most one interval', () => {
    const eps0 = 0.123456
    const l = discretizeA({ _tag: 'Additive', noise: 'laplace', mu: eps0, q: 1, direction: 'remove' })
    const eps = 0.05
    const exact = -Math.expm1((eps - eps0) / 2)
    expect(leafDelta(l.upper, H, eps) - exact).toBeLessThan(1e-8) // connect-the-dots stays tight
    expect(leafDelta(l.lower, H, eps)).toBeLessThanOrEqual(exact)
    expect(exact - leafDelta(l.lower, H, eps)).toBeLessThan(H)
  })
})

describe('Poisson-subsampled Gaussian, one step, both directions', () => {
  it('brackets the exact profile (independent threshold formula) in each direction and overall', () => {
    for (const [sigma, q] of [
      [1.1, 0.01],
      [0.8, 0.2],
      [2, 0.5],
    ] as const) {
      const mu = 1 / sigma
      const pr = subsampledPair({ _tag: 'Gaussian', mu }, q, 'remove') as AdditivePair
      const pa = subsampledPair({ _tag: 'Gaussian', mu }, q, 'add') as AdditivePair
      const both = discretizeSubsampledGaussian(mu, q, H, gridOf(pr), gridOf(pa))
      const single = discretizeA(pr)
      for (const eps of EPS_GRID) {
        const exact = subsampledGaussianDeltaOneStep(sigma, q, eps)
        const up = Math.max(leafDelta(both.remove.upper, H, eps), leafDelta(both.add.upper, H, eps))
        const lo = Math.max(leafDelta(both.remove.lower, H, eps), leafDelta(both.add.lower, H, eps))
        expect(up, `σ=${sigma} q=${q} ε=${eps}`).toBeGreaterThanOrEqual(exact * (1 - 1e-11) - 1e-17)
        expect(lo, `σ=${sigma} q=${q} ε=${eps}`).toBeLessThanOrEqual(exact * (1 + 1e-11) + 1e-17)
        // The shared-table path equals the direct per-direction one.
        expect(leafDelta(both.remove.upper, H, eps)).toBeCloseTo(leafDelta(single.upper, H, eps), 14)
      }
    }
  })
})

describe('discrete pairs, one step', () => {
  const pairs: Array<[string, DiscretePair]> = [
    ['RR(0.5, k=2)', randomizedResponsePair(0.5, 2)],
    ['RR(1.2345, k=5)', randomizedResponsePair(1.2345, 5)],
    ['(0.7, 1e-4)-DP', approxDpPair(0.7, 1e-4)],
    ['bitwise RR f=0.2 × 3 bits', bitwiseRandomizedResponsePair(0.2, 3)],
    ['sampled (1, 1e-3)-DP remove', subsampledPair(approxDpPair(1, 1e-3), 0.1, 'remove') as DiscretePair],
    ['sampled (1, 1e-3)-DP add', subsampledPair(approxDpPair(1, 1e-3), 0.1, 'add') as DiscretePair],
  ]
  it.each(pairs)('%s: pessimistic ≥ exact ≥ optimistic, tight within one interval', (_, pair) => {
    const l = discretizeDiscrete(pair, H)
    for (const eps of EPS_GRID) {
      const exact = discreteDelta(pair, eps)
      const up = leafDelta(l.upper, H, eps)
      const lo = leafDelta(l.lower, H, eps)
      expect(up).toBeGreaterThanOrEqual(exact * (1 - 1e-12) - 1e-16)
      expect(lo).toBeLessThanOrEqual(exact * (1 + 1e-12) + 1e-16)
      expect(up - exact).toBeLessThan(1e-7)
      expect(exact - lo).toBeLessThan(H)
    }
  })

  it('the (ε, δ) pair has the guarantee itself as its profile at ε', () => {
    const pair = approxDpPair(0.7, 1e-4)
    expect(discreteDelta(pair, 0.7)).toBeCloseTo(1e-4, 15)
  })

  it('subsampling the (ε, δ) pair gives the amplified guarantee (log(1 + q(e^ε − 1)), qδ) at the amplified ε', () => {
    const q = 0.1
    const eps = 1
    const amp = Math.log1p(q * Math.expm1(eps))
    for (const d of ['remove', 'add'] as const) {
      const pair = subsampledPair(approxDpPair(eps, 1e-3), q, d) as DiscretePair
      expect(discreteDelta(pair, amp)).toBeLessThanOrEqual(q * 1e-3 * (1 + 1e-12))
    }
  })
})

describe('property: both discretisations bracket random Gaussian and Laplace pairs', () => {
  it('holds for random σ, q and ε', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.4, max: 8, noNaN: true }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 4, noNaN: true }),
        (sigma, q, eps) => {
          const mu = 1 / sigma
          const pr = subsampledPair({ _tag: 'Gaussian', mu }, q, 'remove') as AdditivePair
          const l = discretizeA(pr)
          const exactRem = q === 1 ? analyticGaussianDelta(sigma, eps) : undefined
          const up = leafDelta(l.upper, H, eps)
          const lo = leafDelta(l.lower, H, eps)
          if (lo > up * (1 + 1e-12) + 1e-16) return false
          return exactRem === undefined || (up >= exactRem * (1 - 1e-12) - 1e-16 && lo <= exactRem * (1 + 1e-12) + 1e-16)
        },
      ),
      { seed: SEED, numRuns: 12 },
    )
  })
})

describe('lattice pairs: the cell sums reuse zeroed scratch arrays', () => {
  it('a discretisation does not depend on the ones before it (larger or smaller grids, other pairs)', () => {
    const leaf = (scale: number, q: number, direction: 'remove' | 'add', h: number): LeafPlds => {
      const pair = subsampledPair({ _tag: 'DiscreteNoise', noise: 'gaussian', scale, shift: 1 }, q, direction)
      if (pair._tag !== 'Lattice') throw new Error('not a lattice pair')
      const r = latticeLossRange(pair, 1e-15)
      const i0 = Math.floor(r.lo / h) - 1
      return discretizeLattice(pair, h, 1e-15, i0, Math.ceil(r.hi / h) + 1 - i0)
    }
    const small = leaf(1.1, 0.01, 'remove', H)
    const big = leaf(0.7, 0.2, 'add', H / 4) // more cells than `small`
    expect(leaf(1.1, 0.01, 'remove', H)).toEqual(small)
    expect(leaf(0.7, 0.2, 'add', H / 4)).toEqual(big)
    expect(leaf(1.1, 0.01, 'remove', H)).toEqual(small)
  })
})
