/**
 * The robust tensor power method with deflation (Anandkumar, Ge, Hsu, Kakade & Telgarsky 2014,
 * "Tensor decompositions for learning latent variable models", Algorithm 1) on a symmetric k×k×k
 * tensor T ≈ Σ λ_i v_i^⊗3 with orthonormal v_i: for each component, L random starts, N power
 * updates θ ← T(I, θ, θ)/‖T(I, θ, θ)‖ each, keep the start with the largest T(θ, θ, θ), N more
 * updates, λ = T(θ, θ, θ), deflate T ← T − λ θ^⊗3. The spectral-LDA paper's §4 step 4 names the
 * simultaneous power method of [23]; either recovers the orthogonal components, and the one with
 * deflation is the better-studied under perturbation (AGHKT Thm 5.1).
 *
 * @module
 */

/** T(I, θ, θ) into `out` (k). */
export const contractTwice = (t: Float64Array, k: number, theta: Float64Array, out: Float64Array): void => {
  for (let a = 0; a < k; a++) {
    let s = 0
    const oa = a * k * k
    for (let b = 0; b < k; b++) {
      const tb = theta[b] as number
      if (tb === 0) continue
      let r = 0
      const ob = oa + b * k
      for (let c = 0; c < k; c++) r += (t[ob + c] as number) * (theta[c] as number)
      s += tb * r
    }
    out[a] = s
  }
}

const dot = (x: Float64Array, y: Float64Array): number => {
  let s = 0
  for (let i = 0; i < x.length; i++) s += (x[i] as number) * (y[i] as number)
  return s
}

const normalizeInPlace = (x: Float64Array): number => {
  const n = Math.sqrt(dot(x, x))
  if (n > 0) for (let i = 0; i < x.length; i++) x[i] = (x[i] as number) / n
  return n
}

export interface PowerMethodOptions {
  /** Random starts per component (AGHKT's L). */
  readonly restarts: number
  /** Power updates per start and for the final refinement (AGHKT's N). */
  readonly iterations: number
}

export const POWER_DEFAULTS: PowerMethodOptions = { restarts: 20, iterations: 30 }

export interface TensorDecomposition {
  /** λ_1 … λ_k in the order found. */
  readonly values: Float64Array
  /** v_i as rows of a k×k row-major matrix. */
  readonly vectors: Float64Array
}

/** Decomposes a symmetric k×k×k tensor (not modified) into k pairs (λ_i, v_i). */
export const tensorPowerMethod = (tensor: Float64Array, k: number, uniform: () => number, options: PowerMethodOptions = POWER_DEFAULTS): TensorDecomposition => {
  const t = Float64Array.from(tensor)
  const values = new Float64Array(k)
  const vectors = new Float64Array(k * k)
  const theta = new Float64Array(k)
  const best = new Float64Array(k)
  const next = new Float64Array(k)
  const iterate = (x: Float64Array, times: number): void => {
    for (let it = 0; it < times; it++) {
      contractTwice(t, k, x, next)
      if (normalizeInPlace(next) === 0) return
      x.set(next)
    }
  }
  for (let comp = 0; comp < k; comp++) {
    let bestValue = Number.NEGATIVE_INFINITY
    for (let r = 0; r < options.restarts; r++) {
      for (let i = 0; i < k; i++) theta[i] = uniform() - 0.5
      normalizeInPlace(theta)
      iterate(theta, options.iterations)
      contractTwice(t, k, theta, next)
      const value = dot(theta, next)
      if (value > bestValue) {
        bestValue = value
        best.set(theta)
      }
    }
    iterate(best, options.iterations)
    contractTwice(t, k, best, next)
    const lambda = dot(best, next)
    values[comp] = lambda
    vectors.set(best, comp * k)
    for (let a = 0; a < k; a++) {
      const la = lambda * (best[a] as number)
      for (let b = 0; b < k; b++) {
        const lab = la * (best[b] as number)
        const o = (a * k + b) * k
        for (let c = 0; c < k; c++) t[o + c] = (t[o + c] as number) - lab * (best[c] as number)
      }
    }
  }
  return { values, vectors }
}
