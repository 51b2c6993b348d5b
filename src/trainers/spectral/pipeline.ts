/**
 * The non-private spectral algorithm for LDA (the spectral-LDA paper, arXiv:1805.10341, §4, steps 1–6;
 * Anandkumar, Foster, Hsu, Kakade & Liu 2012), stage by stage, so that the private configurations
 * (./private.ts) can replace the value carried by any edge of the graph (./graph.ts) with a released
 * one:
 *   e0  data → M̂2 (operator X ↦ M̂2·X)            e1  data → M̂3 (only ever whitened: ./moments.ts)
 *   e2  M̂2 → W = U_k Λ_k^{−1/2}                   e5  M̂2 → W† = U_k Λ_k^{1/2} (the un-whitening, (Wᵀ)†)
 *   e3, e4  (M̂3, W) → T̂ = M̂3(W, W, W)              e6  T̂ → (λ_i, v_i) by the tensor power method
 *   e7, e8  ((λ_i, v_i), W†) → μ_i, α_i           e9  (μ, α) → the released model
 * Un-whitening: with M2 = Σ w_i μ_iμ_iᵀ, w_i = α_i/(α0(α0+1)), and M3 = Σ 2α_i/(α0(α0+1)(α0+2)) μ_i^⊗3
 * (Lemma 3), T = Σ λ_i v_i^⊗3 with λ_i = (2/(α0+2))·√(α0(α0+1)/α_i) and v_i = √w_i·Wᵀμ_i, so
 *   μ_i = ((α0+2)/2)·λ_i·(Wᵀ)†v_i,   α_i = 4α0(α0+1)/((α0+2)²λ_i²)
 * (paper App. I: μ_i = (1/√α_i^r)(Wᵀ)†μ̄_i with 1/√α_i^r = (α0+2)/(2√((α0+1)α0))·ᾱ_i, ᾱ_i = λ_i here).
 * The released φ clips μ_i at 0 and renormalises (as the reference protocol evaluates spectral topics,
 * docs/trainers.md § Held-out perplexity).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, numericFailure } from '../../core/error.js'
import { type BlockOperator, type RangeFinderOptions, RANGE_FINDER_DEFAULTS, topEigenpairs } from './linalg.js'
import { type CountDocuments, secondMomentOperator, whitenedThirdMoment } from './moments.js'
import { POWER_DEFAULTS, type PowerMethodOptions, type TensorDecomposition, tensorPowerMethod } from './tensor.js'

/** The whitening and un-whitening matrices from the top-k eigenpairs of (a release of) M̂2. */
export interface Whitening {
  readonly k: number
  readonly vocabulary: number
  /** W = U Λ^{−1/2}, V×k row-major. */
  readonly W: Float64Array
  /** (Wᵀ)† = U Λ^{1/2}, V×k row-major. */
  readonly unwhiten: Float64Array
  /** λ_1 ≥ … ≥ λ_k (and λ_{k+1} when available) of the operator whitened. */
  readonly eigenvalues: Float64Array
}

/** W and (Wᵀ)† from the top-k eigenpairs of a symmetric operator; an error if λ_k ≤ 0 (no whitening exists). */
export const whiteningOf = (
  op: BlockOperator,
  V: number,
  k: number,
  uniform: () => number,
  options: RangeFinderOptions = RANGE_FINDER_DEFAULTS,
  what = 'M̂2',
  start?: Float64Array,
): E.Either<DpError, Whitening> => {
  const eig = topEigenpairs(op, V, k, uniform, options, start)
  const lk = eig.values[k - 1] as number
  if (!(lk > 0)) {
    let positive = 0
    for (let i = 0; i < k; i++) if ((eig.values[i] as number) > 0) positive++
    return E.left(numericFailure('topics', `${what} has only ${positive} positive eigenvalues among its top k = ${k} (λ_k = ${lk.toPrecision(3)}): it cannot be whitened to k dimensions; use fewer topics${what === 'M̂2' ? '' : ' or less noise'}`))
  }
  const W = new Float64Array(V * k)
  const unwhiten = new Float64Array(V * k)
  for (let j = 0; j < k; j++) {
    const l = eig.values[j] as number
    // a canonical sign (Σ_v u_vj ≥ 0), so that two eigen-decompositions of nearby matrices agree
    // column by column where the eigenvalues are separated (W from one release, W† from another)
    let sum = 0
    for (let v = 0; v < V; v++) sum += eig.vectors[v * k + j] as number
    const sign = sum < 0 ? -1 : 1
    const inv = sign / Math.sqrt(l)
    const sq = sign * Math.sqrt(l)
    for (let v = 0; v < V; v++) {
      const u = eig.vectors[v * k + j] as number
      W[v * k + j] = u * inv
      unwhiten[v * k + j] = u * sq
    }
  }
  return E.right({ k, vocabulary: V, W, unwhiten, eigenvalues: eig.values })
}

/** The un-whitened topics (k×V, rows μ_i, not yet clipped) and α from a decomposition (λ_i, v_i). */
export interface Unwhitened {
  readonly mu: Float64Array
  readonly alpha: Float64Array
}

/** μ_i = ((α0+2)/2)·λ_i·(Wᵀ)†v_i and α_i = 4α0(α0+1)/((α0+2)²λ_i²); (λ, v) and (−λ, −v) are the same component. */
export const unwhitenTopics = (dec: TensorDecomposition, unwhiten: Float64Array, V: number, k: number, alpha0: number): Unwhitened => {
  const mu = new Float64Array(k * V)
  const alpha = new Float64Array(k)
  const scale = (alpha0 + 2) / 2
  for (let i = 0; i < k; i++) {
    const lambda = Math.abs(dec.values[i] as number)
    const sign = (dec.values[i] as number) < 0 ? -1 : 1
    alpha[i] = (4 * alpha0 * (alpha0 + 1)) / ((alpha0 + 2) ** 2 * lambda * lambda)
    for (let v = 0; v < V; v++) {
      let s = 0
      for (let j = 0; j < k; j++) s += (unwhiten[v * k + j] as number) * (dec.vectors[i * k + j] as number)
      mu[i * V + v] = sign * scale * lambda * s
    }
  }
  return { mu, alpha }
}

/**
 * Probability every word keeps in every topic before renormalising: clipping at 0 (the reference
 * protocol) leaves words with probability 0 in every topic, and one such held-out word makes the
 * perplexity infinite. 10⁻⁸ moves a row by at most 2·V·10⁻⁸ in L1 (10⁻⁵ at V = 500).
 */
export const PHI_FLOOR = 1e-8

/** φ from μ: each row clipped at 0, floored at PHI_FLOOR and renormalised; a row with no positive mass becomes uniform. */
export const topicsToPhi = (mu: Float64Array, k: number, V: number): Float64Array => {
  const phi = new Float64Array(k * V)
  for (let i = 0; i < k; i++) {
    // the component's sign is fixed by λ > 0; a row whose mass is mostly negative is flipped
    let sum = 0
    for (let v = 0; v < V; v++) sum += mu[i * V + v] as number
    const sign = sum < 0 ? -1 : 1
    let z = 0
    for (let v = 0; v < V; v++) {
      const x = Math.max(0, sign * (mu[i * V + v] as number)) + PHI_FLOOR
      phi[i * V + v] = x
      z += x
    }
    for (let v = 0; v < V; v++) phi[i * V + v] = z > V * PHI_FLOOR * (1 + 1e-9) ? (phi[i * V + v] as number) / z : 1 / V
  }
  return phi
}

export interface SpectralOptions {
  readonly rangeFinder?: RangeFinderOptions
  readonly power?: PowerMethodOptions
}

export interface SpectralResult {
  readonly phi: Float64Array
  readonly alpha: Float64Array
  readonly whitening: Whitening
  readonly tensor: Float64Array
  readonly decomposition: TensorDecomposition
  readonly unwhitened: Unwhitened
}

/** Decomposes a whitened tensor and un-whitens: the stages after e6. */
export const decomposeAndUnwhiten = (tensor: Float64Array, whitening: Whitening, alpha0: number, uniform: () => number, power: PowerMethodOptions = POWER_DEFAULTS): { decomposition: TensorDecomposition; unwhitened: Unwhitened } => {
  const decomposition = tensorPowerMethod(tensor, whitening.k, uniform, power)
  return { decomposition, unwhitened: unwhitenTopics(decomposition, whitening.unwhiten, whitening.vocabulary, whitening.k, alpha0) }
}

/** The whole non-private pipeline; `uniform` drives the range finder's test matrix and the power method's starts. */
export const spectralLda = (
  docs: CountDocuments,
  k: number,
  alpha0: number,
  uniform: () => number,
  options: SpectralOptions = {},
): E.Either<DpError, SpectralResult> => {
  const V = docs.vocabulary
  const whitening = whiteningOf(secondMomentOperator(docs, alpha0), V, k, uniform, options.rangeFinder)
  if (E.isLeft(whitening)) return whitening
  const tensor = whitenedThirdMoment(docs, alpha0, whitening.right.W, k)
  const { decomposition, unwhitened } = decomposeAndUnwhiten(tensor, whitening.right, alpha0, uniform, options.power)
  return E.right({ phi: topicsToPhi(unwhitened.mu, k, V), alpha: unwhitened.alpha, whitening: whitening.right, tensor, decomposition, unwhitened })
}
