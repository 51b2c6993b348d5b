/**
 * Sampling with replacement: m = `batchSize` draws, each uniform over the n = `datasetSize` records,
 * then the inner mechanism M runs on the batch (a multiset). Replace-one (substitution) neighbours.
 *
 * Theorem implemented (Balle, Barthe & Gaboardi 2018, "Privacy amplification by subsampling",
 * NeurIPS, Thm 10, sampling with replacement under substitution): with K ~ Binomial(m, 1/n) the
 * number of draws of the differing record, η = P(K ≥ 1) = 1 − (1 − 1/n)^m and δ_{M,k}(ε) the
 * k-fold group privacy profile of M (batches at substitution distance k),
 *   M ∘ S^wr is (ε′, δ′)-DP with ε′ = log(1 + η(e^ε − 1)), δ′ = Σ_{k≥1} P(K = k)·δ_{M,k}(ε).
 * The paper's text was not at hand to compare wording, so the proof is written out here:
 * 1. Couple the draws of D and D′ (differing in record i): the same indices. Given K = k the two
 *    batches differ in exactly k positions; given K = 0 they are equal. So the outputs are
 *    P = p₀μ₀ + ηA and P′ = p₀μ₀ + ηA′, A = Σ_{k≥1} w_k μ_k, A′ = Σ_{k≥1} w_k μ′_k, w_k = p_k/η.
 * 2. Advanced joint convexity (BBG 2018, Thm 2; checked by expanding: with e^{ε′} = 1 + η(e^ε − 1)
 *    and β = e^{ε′ − ε}, ηe^ε(1 − β) = ηp₀(e^ε − 1), so both sides agree set by set):
 *    D_{e^{ε′}}(P‖P′) = η·D_{e^ε}(A ‖ (1 − β)μ₀ + βA′).
 * 3. The second argument is Σ w_k[(1 − β)μ₀ + βμ′_k]; the hockey-stick divergence is jointly convex,
 *    so the right side is ≤ η Σ w_k [(1 − β)D_{e^ε}(μ_k‖μ₀) + βD_{e^ε}(μ_k‖μ′_k)].
 * 4. μ_k is μ₀ with k uniformly chosen positions overwritten by record i (overwrite a K = 0 batch:
 *    the other positions stay i.i.d. uniform over the other n − 1 records), and μ′_k the same with
 *    i′: both pairs are mixtures of batch pairs at distance k, so each divergence is ≤ δ_{M,k}(ε).
 *    Hence δ′ ≤ Σ_{k≥1} p_k δ_{M,k}(ε). For m = 1 this is sampling one record with probability 1/n:
 *    (log(1 + (e^ε − 1)/n), δ/n), the subsampled-once bound.
 *
 * The group profile δ_{M,k}(ε) is bounded from M's own profile δ_M (the accountant's δ(ε₁) of the
 * inner composition) on a grid of ε₁: group privacy (Dwork & Roth 2014, Thm 2.2 with δ, e.g. Vadhan
 * 2017, Lemma 2.2) gives (kε₁, δ_M(ε₁)·Σ_{j<k} e^{jε₁}); an (ε_g, δ_g) guarantee gives at any ε the
 * profile δ_g + (1 − δ_g)(e^{ε_g} − e^ε)₊/(1 + e^{ε_g}) (Kairouz, Oh & Viswanath 2015, Thm 2.1: every
 * (ε_g, δ_g)-DP pair is a post-processing of that four-point pair). The least over the grid is
 * taken; it falls with ε. When the inner composition is all Gaussians, the exact Gaussian group
 * profile (multiplier z/k) is used instead, the lesser of the two per k. The binomial tail beyond the last k summed is added with δ_{M,k} ≤ 1.
 * ε(δ) is the least base ε (bisection, the satisfied end kept) whose δ′ is within δ.
 *
 * Not in RDP, zCDP or PLD: their subsampling bounds (Poisson, without replacement) assume a record
 * appears at most once; a sound RDP bound for repeated draws is not implemented.
 *
 * @module
 */
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import { analyticGaussianDelta } from './analytic-gaussian.js'
import { amplifiedEpsilon } from './dp/amplification.js'

/** Why RDP, zCDP and PLD refuse the event. */
export const WITH_REPLACEMENT_SCOPE =
  'sampling with replacement (a record may be drawn several times) is accounted by the basic, advanced and optimal accountants ' +
  '(Balle, Barthe & Gaboardi 2018, Thm 10 with group privacy); no RDP, zCDP or PLD bound for repeated draws is implemented'

/** η = P(K ≥ 1) = 1 − (1 − 1/n)^m, the chance the differing record is drawn at all. */
export const drawnProbability = (batchSize: number, datasetSize: number): number =>
  datasetSize <= 1 ? 1 : -Math.expm1(batchSize * Math.log1p(-1 / datasetSize))

/** ε′ = log(1 + η(e^ε − 1)) for a base ε (BBG 2018, Thm 10). */
export const withReplacementEpsilon = (batchSize: number, datasetSize: number, epsilon: number): number =>
  amplifiedEpsilon(drawnProbability(batchSize, datasetSize), epsilon)

/** Most draw counts summed one by one; past it the rest of the mass is counted with δ_{M,k} = 1 (sound, loose). */
const MAX_TERMS = 100_000

/**
 * P(K = k) for k = 0, 1, 2, … until P(K = k) < 1e-300 past the mean, and a bound on the rest (1 if
 * more than MAX_TERMS would be needed). For n = 1 every draw is the record: K = m, returned as ks.
 */
export const drawCounts = (
  batchSize: number,
  datasetSize: number,
): { readonly pmf: Float64Array; readonly tail: number; readonly ks?: ReadonlyArray<number> } => {
  const m = batchSize
  const n = datasetSize
  if (n <= 1) return { pmf: Float64Array.of(0, 1), tail: 0, ks: [0, m] }
  const logP = -Math.log(n)
  const logQ = Math.log1p(-1 / n)
  const mean = m / n
  const out: number[] = [0]
  let tail = 0
  for (let k = 1; k <= m; k++) {
    if (k > MAX_TERMS) {
      tail = 1
      break
    }
    const p = Math.exp(binomcoefln(m, k) + k * logP + (m - k) * logQ)
    out.push(p)
    if (k > mean + 1 && p < 1e-300) {
      // Past the mode the ratio p_{j+1}/p_j = (m − j)/((j + 1)(n − 1)) falls, so the rest is at most
      // p_k·r/(1 − r) with r its value at j = k (0 when k = m).
      const r = (m - k) / ((k + 1) * (n - 1))
      tail = r < 1 ? (p * r) / (1 - r) : 1
      break
    }
  }
  return { pmf: Float64Array.from(out), tail }
}

/** Base ε₁ grid on which the inner profile is read (0, then geometric up to 64). */
export const GROUP_GRID: ReadonlyArray<number> = [0, ...Array.from({ length: 57 }, (_, i) => 1e-4 * 2 ** (i / 3))].filter((x) => x <= 64)

/** (ε₁, δ_M(ε₁)) points of the inner mechanism's profile. */
export interface ProfilePoint {
  readonly epsilon: number
  readonly delta: number
}

/** δ_{M,k}(ε) ≤ min over the points of the group guarantee's profile at ε (see the module note). */
export const groupProfile = (points: ReadonlyArray<ProfilePoint>, k: number, epsilon: number): number => {
  let best = 1
  for (const { epsilon: e1, delta: d1 } of points) {
    if (!(d1 < 1)) continue
    const eg = k * e1
    const dg = e1 === 0 ? k * d1 : d1 * (Math.expm1(eg) / Math.expm1(e1))
    if (!(dg < best)) continue
    const over = eg > epsilon ? (eg > 700 ? 1 - Math.exp(epsilon - eg) : (Math.exp(eg) - Math.exp(epsilon)) / (1 + Math.exp(eg))) : 0
    const d = dg + (1 - dg) * Math.max(0, over)
    if (d < best) best = d
  }
  return best
}

/** A bound on the k-fold group profile δ_{M,k}(ε) of the inner mechanism. */
export type GroupProfile = (k: number, epsilon: number) => number

/**
 * The k-fold group of a composition of Gaussians with combined noise multiplier z is a Gaussian of
 * multiplier z/k (k replacements move each query by at most kΔ, triangle inequality; the composed
 * μ = Δ/σ scales by k): its exact profile (Balle & Wang 2018, Thm 8), rounded up.
 */
export const gaussianGroupProfile =
  (noiseMultiplier: number): GroupProfile =>
  (k, epsilon) =>
    Math.min(1, analyticGaussianDelta(noiseMultiplier / k, epsilon) * (1 + 1e-9))

/** δ′(base ε) = Σ_{k≥1} P(K = k)·δ_{M,k}(ε) + the binomial tail (BBG 2018, Thm 10). */
export const withReplacementDelta = (batchSize: number, datasetSize: number, group: GroupProfile, epsilon: number): number => {
  const { pmf, tail, ks } = drawCounts(batchSize, datasetSize)
  let s = tail
  for (let i = 1; i < pmf.length; i++) {
    const p = pmf[i] as number
    if (p > 0) s += p * group(ks === undefined ? i : (ks[i] as number), epsilon)
  }
  return Math.min(1, s)
}

/**
 * The least ε′ whose δ′ is within δ: bisection on the base ε (δ′ falls with it), the satisfied end
 * kept, then ε′ = log(1 + η(e^ε − 1)). ∞ when no base ε up to 700 meets δ.
 */
export const withReplacementEpsilonAt = (batchSize: number, datasetSize: number, group: GroupProfile, delta: number): number => {
  const f = (e: number): number => withReplacementDelta(batchSize, datasetSize, group, e)
  if (f(0) <= delta) return 0
  let hi = 1
  while (f(hi) > delta) {
    if (hi >= 700) return Infinity
    hi = Math.min(700, hi * 2)
  }
  let lo = 0
  for (let i = 0; i < 60 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = lo + (hi - lo) / 2
    if (f(mid) <= delta) hi = mid
    else lo = mid
  }
  return withReplacementEpsilon(batchSize, datasetSize, hi)
}
