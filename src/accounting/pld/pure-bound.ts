/**
 * A pure ε of a PLD state, from the largest privacy loss of each dominating pair: if every pair's
 * loss L = log(dP/dQ) is at most ℓ_k, the composed pair's loss (the sum of independent losses, Zhu,
 * Dong & Wang 2022, adaptive composition) is at most Σ count_k·ℓ_k, so its hockey-stick divergence
 * E_P[(1 − e^{ε−L})₊] vanishes for ε ≥ Σ count_k·ℓ_k, and so does the mechanism's (the pairs
 * dominate): δ(ε) = 0 there. The discretised, FFT-composed PLD cannot see this (its truncation and
 * floating-point terms are added to every δ), which is why ε(0) was ∞ for a composition of add-only
 * subsampled events while RDP gave −log(1 − q) per step (issue 26).
 *
 * The largest loss of one pair, base pair (A, B) with losses log(A/B) in [m, b] (m = −∞ with B-only
 * mass; m = −b for the symmetric pairs), Poisson-subsampled at rate q (./pairs.ts: remove
 * (qA + (1 − q)B, B), add (B, qA + (1 − q)B), Zhu, Dong & Wang 2022, their Poisson-subsampling
 * theorem):
 * - remove: log(q·A/B + 1 − q) ≤ log(1 + q(e^b − 1))  (∞ when b = ∞);
 * - add: −log(1 − q + q·A/B) ≤ −log(1 − q + q·e^m)  (−log(1 − q) when m = −∞: finite for any base);
 * - unsampled (q = 1): b in both directions.
 * b: Laplace of shift μ (unit scale) μ; discrete Laplace Δ/t; Gaussian and discrete Gaussian ∞;
 * a finite pair its largest atom loss (∞ with an atom at +∞). Replace-one substitution pairs of a
 * sampled Gaussian have unbounded loss (∞ here); a pure leaf there arrives amplified, unsampled.
 * Every value is rounded up by a relative 1e-12 (a few ulps of log1p/expm1 and the sum).
 *
 * @module
 */
import { roundUpSubnormal } from '../../core/numeric.js'
import { amplifiedEpsilon } from '../dp/amplification.js'
import { MAX_LEAF_LOSS } from './limits.js'
import type { BasePair, Direction } from './pairs.js'
import type { PldFactorSpec, PldState } from './state.js'

const UP = 1 + 1e-12

/** The largest and smallest loss of an unsampled base pair (symmetric pairs: smallest = −largest). */
const baseRange = (base: BasePair): { readonly max: number; readonly min: number } => {
  switch (base._tag) {
    case 'Gaussian':
      return base.mu > 0 ? { max: Infinity, min: -Infinity } : { max: 0, min: 0 }
    case 'Laplace':
      return { max: base.mu, min: -base.mu }
    case 'DiscreteNoise':
      return base.noise === 'laplace' ? { max: base.shift / base.scale, min: -base.shift / base.scale } : { max: Infinity, min: -Infinity }
    case 'Mixture':
      // Remove: L(x) → ∞ as x → ∞ (a shift > 0) and → log w_0 below; add: −L. Both ends as ∞ (sound;
      // the add direction's finite −log w_0 is not used).
      return base.shifts.some((m) => m > 0) ? { max: Infinity, min: -Infinity } : { max: 0, min: 0 }
    case 'Discrete': {
      // Read off the atoms (no symmetry assumed): B-only mass is loss −∞.
      let max = -Infinity
      let min = base.qOnly > 0 ? -Infinity : Infinity
      for (const a of base.atoms)
        if (a.p > 0) {
          if (a.loss > max) max = a.loss
          if (a.loss < min) min = a.loss
        }
      return { max: Math.max(max, 0), min: Math.min(min, 0) }
    }
  }
}

/** The largest loss of one factor's pair in one direction (module note). */
export const factorSupLoss = (f: PldFactorSpec, direction: Direction): number => {
  const { max, min } = baseRange(f.base)
  if (f.q >= 1) return max
  if (f.substitution === true) return max === 0 ? 0 : Infinity
  // remove: log(1 − q + q·e^max) = log1p(q·expm1(max)); add: −log(1 − q + q·e^min) (e^{−∞} = 0: −log(1 − q)).
  // A positive loss that falls below the normal doubles (q = 1e-300 of a loss of 1e-100) is rounded up,
  // never to 0: ε = 0 at δ = 0 would say the sampled release reveals nothing.
  if (direction === 'remove') {
    if (max === Infinity) return Infinity
    const v = amplifiedEpsilon(f.q, max) // log1p(q·expm1(max)), never 0 when both are positive
    return v > 0 ? roundUpSubnormal(v) : v
  }
  const v = -Math.log1p(f.q * Math.expm1(min))
  return min < 0 && f.q > 0 ? roundUpSubnormal(v) : v
}

/**
 * A pure ε of the state in the directions it composes (both for add/remove: the larger), or ∞:
 * δ(ε) = 0 for every ε at or above it. Unsampled Gaussians (μ > 0) and NonPrivate releases have none.
 */
export const pureEpsilonBound = (s: PldState): number => {
  if (s.nonPrivate || s.gaussianMuSquared > 0) return Infinity
  const directions: ReadonlyArray<Direction> = s.direction === undefined ? ['remove', 'add'] : [s.direction]
  let worst = 0
  for (const d of directions) {
    let sum = 0
    for (const f of s.factors) {
      if (f.count === 0) continue
      // Past MAX_LEAF_LOSS the accountant reads a leaf's loss as +∞ (./limits.ts); so does this bound.
      const l = factorSupLoss(f, d)
      sum += l > MAX_LEAF_LOSS ? Infinity : f.count * l
    }
    worst = Math.max(worst, sum)
  }
  return worst * UP
}

/**
 * Whether ε is below the largest loss even after taking back the bound's rounding margin (twice):
 * only there is the true δ(ε) certainly positive. At ε = the largest loss itself (a discrete
 * Laplace at ε = Δ/t) δ is exactly 0, and the rounded-up bound must not say otherwise.
 */
export const belowPureEpsilon = (epsilon: number, pure: number): boolean => epsilon < pure / (UP * UP)
