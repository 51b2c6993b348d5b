/**
 * The negligible level and the pruned spectral read-out of a composition (src/accounting/pld/
 * compose.ts, `EARLY_SHARE` and `PRUNE_MARGIN`), against
 * - the full read-out (`negligible = false`: every bin the e^{−690} cut keeps, read out densely
 *   wherever that cut leaves the spectrum dense — the composition as it was before the two), and
 * - independent references summed directly over the integers (test/accounting/discrete/reference.ts):
 *   the exact profile of T discrete Gaussian steps, and a garbled (so lower) profile of T
 *   Poisson-subsampled discrete Gaussian steps.
 *
 * Both read-outs are upper bounds on the same composed δ(ε), each up to its own rounding bounds
 * (the view's suffix-sum error at the query point and `fpError`); so the new one is never below the
 * old one by more than twice the old one's rounding bounds, and never below an exact or garbled δ.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import {
  composeChannels,
  deltaAt,
  discretizeLattice,
  epsilonAt,
  latticeLossRange,
  subsampledPair,
  type ComposedPld,
  type LeafPlds,
  type NoiseFamily,
} from '../../../src/accounting/pld/index.js'
import { forgetKeptCompositions } from '../../../src/accounting/pld/build.js'
import { discreteGaussian, poissonSample, selfCompose } from '../../../src/mechanisms/event.js'
import { discreteGaussianLaw, garbledSubsampledDelta, sumLaw } from '../discrete/reference.js'
import { pldEpsilon, REL, SEED } from './helpers.js'

const TAIL = 1e-11

/** Both directions (or one, unsampled) of T steps of a lattice pair, composed with and without the negligible level. */
const composeBoth = (
  noise: NoiseFamily,
  scale: number,
  q: number,
  T: number,
): { readonly h: number; readonly now: ReadonlyArray<ComposedPld>; readonly full: ReadonlyArray<ComposedPld> } | undefined => {
  // The interval the accountant takes: 1e-4 shrunk to divide the loss lattice (./build.ts gridInterval).
  const unit = noise === 'gaussian' ? 1 / (2 * scale * scale) : 1 / scale
  const h = unit / Math.ceil(unit / 1e-4 - 1e-9)
  const tail = TAIL / (2 * T)
  const leaves: LeafPlds[] = (q === 1 ? (['remove'] as const) : (['remove', 'add'] as const)).map((d) => {
    const pair = subsampledPair({ _tag: 'DiscreteNoise', noise, scale, shift: 1 }, q, d)
    if (pair._tag !== 'Lattice') throw new Error('not a lattice pair')
    const r = latticeLossRange(pair, tail)
    const i0 = Math.floor(r.lo / h) - 1
    return discretizeLattice(pair, h, tail, i0, Math.ceil(r.hi / h) + 1 - i0)
  })
  const factors = [{ plds: leaves.flatMap((l) => [l.upper, l.lower]), count: T }]
  // A window over the grid limit is refused (the accountant would coarsen the interval instead).
  const now = composeChannels(factors, factors[0]!.plds.length, h, TAIL / 2, '$', undefined, true)
  const full = composeChannels(factors, factors[0]!.plds.length, h, TAIL / 2, '$', undefined, false)
  return E.isRight(now) && E.isRight(full) ? { h, now: now.right, full: full.right } : undefined
}

/** The view's rounding bound at the first window point above ε, plus the composition's fpError. */
const roundingAt = (c: ComposedPld, eps: number): number => {
  const n = c.view.length
  let i = 0
  while (i < n && (c.start + i) * c.interval + c.shift <= eps) i++
  const out = new Float64Array(3)
  if (i < n) c.view.suffix(i, out)
  return out[2]! + c.fpError
}

describe('the negligible level and the pruned spectral read-out', () => {
  it('the bench row (Poisson q 0.01, discrete Gaussian σ 1.1 × 1,000) is read from under 100 bins per channel, its ε within 1e-9 (relative) of the full read-out', () => {
    const { now, full } = composeBoth('gaussian', 1.1, 0.01, 1000)!
    for (const c of now) expect(c.view.bins).toBeLessThan(100)
    for (const c of full) expect(c.view.bins, 'the full read-out is dense').toBeUndefined()
    // At δ = 1e-8 they differ by ~6e-8 relative (the spectral bound, ~5e-14 absolute, is 5e-6 of δ
    // there — beside an fpError of 2e-11): the δ-form property below covers every δ.
    for (const delta of [1e-3, 1e-5]) {
      // Channels: remove upper, remove lower, add upper, add lower; the answer is the worse direction.
      const upper = (cs: ReadonlyArray<ComposedPld>): number => Math.max(epsilonAt(cs[0]!, delta, 'upper'), epsilonAt(cs[2]!, delta, 'upper'))
      const lower = (cs: ReadonlyArray<ComposedPld>): number => Math.max(epsilonAt(cs[1]!, delta, 'lower'), epsilonAt(cs[3]!, delta, 'lower'))
      // Either way: the two read-outs' rounding bounds differ (the dense one's grows with the tail
      // mass summed, the spectral one's with the bins), by ~1e-14 in δ here.
      expect(Math.abs(upper(now) / upper(full) - 1), `δ = ${delta}`).toBeLessThan(1e-9)
      expect(Math.abs(lower(now) / lower(full) - 1), `δ = ${delta}`).toBeLessThan(1e-9)
    }
  })

  it('upper δ(ε) never below the full read-out by more than twice its rounding bounds, lower never above it by more (discrete Gaussian and Laplace, sampled or not)', () => {
    let pruned = 0
    fc.assert(
      fc.property(
        fc.constantFrom<NoiseFamily>('gaussian', 'gaussian', 'laplace'),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.constantFrom(1, 0.02, 0.005),
        fc.integer({ min: 20, max: 1200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (noise, scale, q, T, r) => {
          // At this fixed interval, windows of sampled discrete Laplace and of unsampled pairs grow
          // fast with T (the accountant would coarsen): keep those short.
          const steps = (noise === 'laplace' && q < 1) || q === 1 ? Math.min(T, 150) : T
          const both = composeBoth(noise, scale, q, steps)
          fc.pre(both !== undefined)
          const { now, full } = both!
          if (now.some((c, i) => c.view.bins !== undefined && full[i]!.view.bins === undefined)) pruned++
          // ε across the composed loss range of the remove direction's upper estimate.
          const top = (full[0]!.start + full[0]!.view.length - 1) * full[0]!.interval + full[0]!.shift
          const eps = Math.max(0, r * top)
          for (let c = 0; c < now.length; c++) {
            const side = c % 2 === 0 ? 'upper' : 'lower'
            const a = deltaAt(now[c]!, eps, side)
            const b = deltaAt(full[c]!, eps, side)
            const slack = 2 * roundingAt(full[c]!, eps) + 1e-15 * b
            if (side === 'upper') expect(a, `${noise} ${scale} q ${q} T ${steps} ε ${eps} channel ${c}`).toBeGreaterThanOrEqual(b - slack)
            else expect(a, `${noise} ${scale} q ${q} T ${steps} ε ${eps} channel ${c}`).toBeLessThanOrEqual(b + slack)
          }
        },
      ),
      { seed: SEED, numRuns: 20 },
    )
    // The runs include compositions the full read-out reads densely and the new one spectrally.
    expect(pruned).toBeGreaterThanOrEqual(3)
  })
})

describe('discrete Gaussian ε never below an independent lower bound (default accountant, δ(ε_answer) ≤ δ by direct summation)', () => {
  it('T discrete Gaussian steps: the exact profile from the law of the sum Z_1 + … + Z_T (truncated: a lower bound)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.integer({ min: 20, max: 1000 }),
        fc.constantFrom(1e-3, 1e-5, 1e-7),
        (sigma, T, delta) => {
          forgetKeptCompositions()
          const a = pldEpsilon(selfCompose(discreteGaussian(sigma, 1, REL), T), delta)
          // Loss of T steps at Σ Z = s under P (shifted by 1 each): (s + T)/σ² − T/(2σ²).
          const { law, dropped } = sumLaw(discreteGaussianLaw(sigma), T, Math.ceil(14 * sigma * Math.sqrt(T)) + 10)
          expect(dropped).toBeLessThan(1e-12) // rounding of the sums; the cut tails are far smaller
          let d = 0
          law.p.forEach((p, i) => {
            const loss = (law.lo + i + T) / (sigma * sigma) - T / (2 * sigma * sigma)
            if (loss > a.epsilon) d += p * -Math.expm1(a.epsilon - loss)
          })
          expect(d, `σ ${sigma} T ${T} δ ${delta}: ε ${a.epsilon}`).toBeLessThanOrEqual(delta * (1 + 1e-12))
          expect(a.lower as number).toBeLessThanOrEqual(a.epsilon)
        },
      ),
      { seed: SEED, numRuns: 12 },
    )
  })

  it('T Poisson-subsampled discrete Gaussian steps (the bench row among them): the profile of the pair garbled to three output classes', () => {
    const check = (sigma: number, q: number, T: number, delta: number): void => {
      forgetKeptCompositions()
      const a = pldEpsilon(selfCompose(poissonSample(q, discreteGaussian(sigma, 1, REL)), T), delta)
      const cuts = [Math.ceil(sigma), Math.ceil(2 * sigma)]
      const d = garbledSubsampledDelta(discreteGaussianLaw(sigma), 1, q, cuts, T, a.epsilon)
      expect(d, `σ ${sigma} q ${q} T ${T} δ ${delta}: ε ${a.epsilon}`).toBeLessThanOrEqual(delta * (1 + 1e-12))
    }
    check(1.1, 0.01, 1000, 1e-5)
    fc.assert(
      fc.property(
        fc.double({ min: 0.8, max: 3, noNaN: true }),
        fc.double({ min: 0.002, max: 0.2, noNaN: true }),
        fc.integer({ min: 50, max: 800 }),
        fc.constantFrom(1e-3, 1e-5, 1e-7),
        check,
      ),
      { seed: SEED, numRuns: 8 },
    )
  })
})
