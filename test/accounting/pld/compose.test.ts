/**
 * Composition by FFT: the composed pessimistic / optimistic PLDs bracket the exact composed
 * profile (k Gaussians are one Gaussian with μ√k — Dong, Roth & Su 2022, Cor. 3.3), the spectral
 * and dense read-outs agree, and the window, truncation and error terms behave.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { analyticGaussianDelta, analyticGaussianEpsilon } from '../../../src/accounting/analytic-gaussian.js'
import {
  additiveLossRange,
  composeChannels,
  deltaAt,
  discretizeAdditive,
  discretizeDiscrete,
  epsilonAt,
  randomizedResponsePair,
  type AdditivePair,
  type ComposedPld,
  type LeafPlds,
} from '../../../src/accounting/pld/index.js'
import { fftPlan, inversePair } from '../../../src/accounting/pld/fft.js'
import { spectralView } from '../../../src/accounting/pld/spectral.js'
import { denseView } from '../../../src/accounting/pld/view.js'

const H = 1e-4

const gaussianLeaf = (sigma: number, tail = 1e-17): LeafPlds => {
  const pair: AdditivePair = { _tag: 'Additive', noise: 'gaussian', mu: 1 / sigma, q: 1, direction: 'remove' }
  const r = additiveLossRange(pair, tail)
  const i0 = Math.floor(r.lo / H) - 1
  return discretizeAdditive(pair, H, i0, Math.ceil(r.hi / H) + 1 - i0)
}

const compose = (leaf: LeafPlds, count: number): { readonly upper: ComposedPld; readonly lower: ComposedPld } => {
  const c = composeChannels([{ plds: [leaf.upper, leaf.lower], count }], 2, H, 1e-15, '$')
  if (E.isLeft(c)) throw new Error(c.left._tag)
  return { upper: c.right[0] as ComposedPld, lower: c.right[1] as ComposedPld }
}

describe('FFT self-composition of a Gaussian PLD against the analytic composed Gaussian', () => {
  it.each([
    [2, 1],
    [1, 10],
    [3, 100],
    [8, 1000],
    [20, 1000],
  ])('σ = %d, T = %d: upper ≥ exact, within 1e-3; lower ≤ exact', (sigma, T) => {
    const c = compose(gaussianLeaf(sigma), T)
    const m = sigma / Math.sqrt(T)
    for (const delta of [1e-3, 1e-5, 1e-8]) {
      const exact = analyticGaussianEpsilon(m, delta)
      const up = epsilonAt(c.upper, delta, 'upper')
      const lo = epsilonAt(c.lower, delta, 'lower')
      expect(up, `δ=${delta}`).toBeGreaterThanOrEqual(exact)
      expect(up - exact, `δ=${delta}`).toBeLessThan(1e-3)
      expect(lo, `δ=${delta}`).toBeLessThanOrEqual(exact)
      expect(exact - lo, `δ=${delta}`).toBeLessThan(1e-3)
    }
    for (const eps of [0, 0.3, 1, 2.5]) {
      const exact = analyticGaussianDelta(m, eps)
      expect(deltaAt(c.upper, eps, 'upper')).toBeGreaterThanOrEqual(exact)
      expect(deltaAt(c.lower, eps, 'lower')).toBeLessThanOrEqual(exact)
    }
  })

  it('reports the error terms it adds: truncation and floating point stay far below δ', () => {
    const c = compose(gaussianLeaf(8), 1000)
    expect(c.upper.truncatedMass).toBeLessThan(1e-15)
    expect(c.upper.fpError).toBeGreaterThan(0)
    expect(c.upper.fpError).toBeLessThan(1e-10)
    expect(c.upper.view.length & (c.upper.view.length - 1)).toBe(0) // a power of two
  })
})

describe('composition of discrete PLDs is exact up to the grid', () => {
  it('T-fold RR(ε) with ε on the grid: upper and lower both equal the binomial sum', () => {
    const eps = 0.25 // 2500 intervals
    const T = 40
    const leaf = discretizeDiscrete(randomizedResponsePair(eps, 2), H)
    const c = compose(leaf, T)
    const p = Math.exp(eps) / (1 + Math.exp(eps))
    const exactDelta = (eg: number): number => {
      let s = 0
      let logC = 0
      for (let l = 0; l <= T; l++) {
        if (l > 0) logC += Math.log((T - l + 1) / l)
        const loss = (T - 2 * l) * eps
        if (loss > eg) s += Math.exp(logC + (T - l) * Math.log(p) + l * Math.log1p(-p)) * -Math.expm1(eg - loss)
      }
      return s
    }
    for (const eg of [0, 0.7, 2, 4]) {
      const exact = exactDelta(eg)
      expect(deltaAt(c.upper, eg, 'upper')).toBeGreaterThanOrEqual(exact)
      expect(deltaAt(c.upper, eg, 'upper') - exact).toBeLessThan(1e-9)
      expect(deltaAt(c.lower, eg, 'lower')).toBeLessThanOrEqual(exact)
      expect(exact - deltaAt(c.lower, eg, 'lower')).toBeLessThan(1e-9)
    }
  })

  it('heterogeneous factors compose by multiplying spectra (Gaussian × RR equals the direct double sum)', () => {
    const g = gaussianLeaf(2)
    const r = discretizeDiscrete(randomizedResponsePair(0.5, 2), H)
    const c = composeChannels(
      [
        { plds: [g.upper, g.lower], count: 3 },
        { plds: [r.upper, r.lower], count: 2 },
      ],
      2,
      H,
      1e-15,
      '$',
    )
    expect(E.isRight(c)).toBe(true)
    if (E.isLeft(c)) return
    const [up, lo] = c.right as [ComposedPld, ComposedPld]
    // Exact: L = G + R with G ~ N(μ²/2, μ²), μ² = 3/4, R ∈ {1, 0, −1} (two RR(0.5) steps).
    const mu = Math.sqrt(3) / 2
    const p = Math.exp(0.5) / (1 + Math.exp(0.5))
    const atoms = [
      [1, p * p],
      [0, 2 * p * (1 - p)],
      [-1, (1 - p) * (1 - p)],
    ] as const
    for (const eg of [0, 0.5, 1.5, 3]) {
      // δ of G + r at ε: the Gaussian profile at ε − r, weighted.
      let exact = 0
      for (const [r0, w] of atoms) {
        const e = eg - r0
        exact += w * (e >= 0 ? analyticGaussianDelta(1 / mu, e) : -Math.expm1(e) + Math.exp(e) * analyticGaussianDelta(1 / mu, -e))
      }
      expect(deltaAt(up, eg, 'upper')).toBeGreaterThanOrEqual(exact * (1 - 1e-12))
      expect(deltaAt(lo, eg, 'lower')).toBeLessThanOrEqual(exact * (1 + 1e-12))
      expect(deltaAt(up, eg, 'upper') - deltaAt(lo, eg, 'lower')).toBeLessThan(1e-5)
    }
  })
})

describe('spectral read-out', () => {
  it('suffix sums from the spectrum equal the dense ones', () => {
    const n = 1024
    const h = 0.01
    const c = new Float64Array(n)
    let s = 0
    for (let i = 0; i < n; i++) {
      c[i] = Math.exp(-((i - 400) ** 2) / 5000) * (1 + 0.3 * Math.sin(i / 7))
      s += c[i]!
    }
    for (let i = 0; i < n; i++) c[i] = c[i]! / s
    const plan = fftPlan(n)
    const data = new Float64Array(2 * n)
    const out = new Float64Array(2 * n)
    for (let i = 0; i < n; i++) data[2 * i] = c[i]!
    plan.transform(out, data)
    const half = n / 2 + 1
    const bins = Int32Array.from({ length: half }, (_, k) => k)
    const re = Float64Array.from({ length: half }, (_, k) => out[2 * k]!)
    const im = Float64Array.from({ length: half }, (_, k) => out[2 * k + 1]!)
    const sv = spectralView(n, h, bins, re, im)
    const dv = denseView(c, h)
    const a = new Float64Array(3)
    const b = new Float64Array(3)
    for (const i of [0, 1, 17, 300, 400, 555, 900, 1023]) {
      sv.suffix(i, a)
      dv.suffix(i, b)
      expect(Math.abs(a[0]! - b[0]!), `A(${i})`).toBeLessThan(1e-13)
      expect(Math.abs(a[1]! - b[1]!), `B(${i})`).toBeLessThan(1e-13)
      expect(a[2]!).toBeGreaterThan(0)
    }
  })

  it('long compositions use the spectral view and short ones the dense view, with the same answers', () => {
    // T = 2000 of σ = 30 is sparse in frequency; compare with T = 1 of σ = 30/√2000 (one Gaussian).
    const long = compose(gaussianLeaf(30), 2000)
    const exact = analyticGaussianEpsilon(30 / Math.sqrt(2000), 1e-6)
    expect(epsilonAt(long.upper, 1e-6, 'upper') - exact).toBeLessThan(1e-3)
    expect(epsilonAt(long.upper, 1e-6, 'upper')).toBeGreaterThanOrEqual(exact)
    const short = compose(gaussianLeaf(1), 3)
    expect(epsilonAt(short.upper, 1e-6, 'upper')).toBeGreaterThanOrEqual(analyticGaussianEpsilon(1 / Math.sqrt(3), 1e-6))
  })
})

describe('inversePair reads each window from its start', () => {
  // The composition takes its windows straight from inversePair's output (no second, rotating
  // copy): each must be, bit for bit, the start-0 signal read cyclically from its start.
  it('equals the cyclic rotation of the unrotated inverse, bit for bit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 9 }),
        fc.nat(),
        fc.nat(),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4 * 513, maxLength: 4 * 513 }),
        (log2n, a, b, values) => {
          const n = 2 ** log2n
          const half = n / 2 + 1
          const part = (j: number): Float64Array => Float64Array.from({ length: half }, (_, k) => values[j * 513 + k]!)
          const [xr, xi, yr, yi] = [part(0), part(1), part(2), part(3)]
          const plan = fftPlan(n)
          const plain = inversePair(plan, xr, xi, yr, yi, new Float64Array(2 * n), new Float64Array(2 * n))
          const sx = a % n
          const sy = b % n
          const rotated = inversePair(plan, xr, xi, yr, yi, new Float64Array(2 * n), new Float64Array(2 * n), sx, sy)
          for (let i = 0; i < n; i++) {
            expect(Object.is(rotated.x[i], plain.x[(sx + i) % n])).toBe(true)
            expect(Object.is(rotated.y[i], plain.y[(sy + i) % n])).toBe(true)
          }
        },
      ),
      { seed: 26, numRuns: 60 },
    )
  })
})
