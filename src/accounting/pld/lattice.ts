/**
 * The outcomes of a lattice pair (./pairs.ts `LatticePair`): integer noise Z (discrete Gaussian or
 * discrete Laplace), A = law of Z + Δ, B = law of Z, the privacy loss at output x being
 * log A(x)/B(x) — for the discrete Gaussian (x² − (x − Δ)²)/(2σ²) = Δ(2x − Δ)/(2σ²) (Canonne,
 * Kamath & Steinke 2020, Thm 7), for the discrete Laplace (|x| − |x − Δ|)/t, which is −Δ/t on
 * x ≤ 0, Δ/t on x ≥ Δ and (2x − Δ)/t in between (so the pair has Δ + 1 outcomes once the two flat
 * half-lines are merged, merging outcomes of equal loss being lossless).
 *
 * The discrete Gaussian has infinitely many outcomes; we keep x ∈ [−n, Δ + n] and merge the rest,
 * pessimistically: its A-mass becomes one outcome of loss +∞ (B-mass 0) and its B-mass one outcome
 * of loss −∞ (A-mass 0). The pair is then a post-processing of the truncated one (map the +∞
 * outcome to A's law on the cut tails, the −∞ one to B's), so it dominates, in composition too, and
 * with n ≥ zσ, Φc(z) ≤ τ/2, the +∞ mass is at most 2P(Z > n) ≤ τ (P(Z > n) ≤ Φc(n/σ): the sum is
 * below the integral and Z(σ) ≥ σ√(2π)). The range is symmetric about Δ/2, so is the truncated pair
 * (x ↦ Δ − x swaps A and B), and one direction serves both when it is not subsampled.
 *
 * Subsampling maps each outcome (A-mass a, B-mass b, loss ℓ) to P-mass qa + (1 − q)b, Q-mass b and
 * loss log(1 − q + qe^ℓ) (remove), or P-mass b, Q-mass qa + (1 − q)b and the negated loss (add) —
 * Zhu, Dong & Wang 2022, their Poisson-subsampling theorem, outcome by outcome.
 *
 * @module
 */
import {
  discreteGaussianLogNormalizer,
  discreteGaussianPmf,
  discreteGaussianTail,
} from '../discrete-noise.js'
import { gaussianTailPoint, type LatticePair, mixLoss } from './pairs.js'

/** Receives one outcome of a pair: its P-mass, its Q-mass and its loss log(P/Q) (±∞ allowed). */
export type OutcomeSink = (p: number, q: number, loss: number) => void

/** The most integer outputs one lattice pair may have (one exp each, per direction and query). */
export const MAX_LATTICE_OUTCOMES = 2 ** 25

/** Half-width n of the kept outputs [−n, Δ + n] of a discrete Gaussian with truncated mass ≤ τ. */
const gaussianHalfWidth = (sigma: number, tail: number): number => Math.ceil(sigma * gaussianTailPoint(tail / 2))

/** Number of outcomes the stream of `pair` visits (the +∞ and −∞ ones included). */
export const latticeOutcomeCount = (pair: LatticePair, tail: number): number =>
  pair.noise === 'laplace' ? pair.shift + 1 : 2 * gaussianHalfWidth(pair.scale, tail) + pair.shift + 3

/** Streams the unsampled pair (A, B) as (A-mass, B-mass, loss) triples. */
const baseOutcomes = (pair: LatticePair, tail: number, visit: OutcomeSink): void => {
  const d = pair.shift
  if (pair.noise === 'laplace') {
    const a = 1 / pair.scale
    const c = Math.tanh(a / 2) // (1 − e^{−a})/(1 + e^{−a})
    const half = 1 / (1 + Math.exp(-a)) // P(Z ≥ 0) = P(Z ≤ 0)
    const far = Math.exp(-a * d) * half // P(Z ≥ Δ) = P(Z ≤ −Δ)
    visit(far, half, -d * a) // x ≤ 0
    for (let x = 1; x < d; x++) visit(c * Math.exp(-a * (d - x)), c * Math.exp(-a * x), (2 * x - d) * a)
    visit(half, far, d * a) // x ≥ Δ
    return
  }
  const sigma = pair.scale
  const logZ = discreteGaussianLogNormalizer(sigma)
  const n = gaussianHalfWidth(sigma, tail)
  const k = d / (2 * sigma * sigma)
  for (let x = -n; x <= d + n; x++)
    visit(discreteGaussianPmf(sigma, logZ, x - d), discreteGaussianPmf(sigma, logZ, x), k * (2 * x - d))
  // Outside [−n, Δ + n]: A has Z > n or Z < −n − Δ, B has Z < −n or Z > Δ + n — the same mass.
  const cut = discreteGaussianTail(sigma, logZ, n) + discreteGaussianTail(sigma, logZ, n + d)
  visit(cut, 0, Infinity)
  visit(0, cut, -Infinity)
}

/**
 * Streams the outcomes of a (possibly subsampled) lattice pair in one direction as (P-mass,
 * Q-mass, loss); nothing is stored. `tail` bounds the P-mass put at +∞ by truncation.
 */
export const forEachLatticeOutcome = (pair: LatticePair, tail: number, sink: OutcomeSink): void => {
  const { q } = pair
  const mixed = (a: number, b: number): number => (q === 1 ? a : q * a + (1 - q) * b)
  if (pair.direction === 'remove') baseOutcomes(pair, tail, (a, b, l) => sink(mixed(a, b), b, mixLoss(q, l)))
  else baseOutcomes(pair, tail, (a, b, l) => sink(b, mixed(a, b), -mixLoss(q, l)))
}

/** The range of the finite losses of `forEachLatticeOutcome` with P-mass (its ends at the extreme outputs). */
export const latticeLossRange = (pair: LatticePair, tail: number): { readonly lo: number; readonly hi: number } => {
  const d = pair.shift
  const edge =
    pair.noise === 'laplace' ? d / pair.scale : (d * (d + 2 * gaussianHalfWidth(pair.scale, tail))) / (2 * pair.scale * pair.scale)
  const lo = mixLoss(pair.q, -edge)
  const hi = mixLoss(pair.q, edge)
  return pair.direction === 'remove' ? { lo, hi } : { lo: -hi, hi: -lo }
}
