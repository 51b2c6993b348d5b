/**
 * Held-out per-word perplexity by document completion (Wallach et al. 2009), the one protocol for
 * every trainer (docs/trainers.md § Held-out perplexity): with φ fixed, fold θ in on the observed
 * half of each test document by the deterministic Jacobi fixed-point iteration (α_eval = 0.1,
 * 100 iterations, θ₀ = 1/K), then score the held-out half: perplexity = exp(−Σ_d Σ_w ho_dw ln Σ_k θ_dk φ_kw / Σ_d N_ho,d).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { type Corpus, documentCount } from '../corpus/corpus.js'

export interface PerplexityOptions {
  /** α of the fold-in (default 0.1, whatever α the trainer used). */
  readonly alpha?: number
  /** Fixed-point iterations (default 100). */
  readonly iterations?: number
}

export interface PerplexityResult {
  readonly perplexity: number
  readonly logLikelihood: number
  readonly heldOutTokens: number
  readonly documents: number
}

/** Checks that φ is K×V with non-negative rows summing to 1 (within 1e-6). */
export const validatePhi = (phi: Float64Array, K: number, V: number, path = 'phi'): E.Either<DpError, Float64Array> => {
  if (phi.length !== K * V) return E.left(invalidParameter(path, phi.length, `expected K·V = ${K * V} entries`))
  for (let k = 0; k < K; k++) {
    let s = 0
    for (let v = 0; v < V; v++) {
      const x = phi[k * V + v] as number
      if (!(x >= 0)) return E.left(invalidParameter(`${path}[${k}][${v}]`, x, 'topic-word probabilities must be ≥ 0'))
      s += x
    }
    if (Math.abs(s - 1) > 1e-6) return E.left(invalidParameter(`${path}[${k}]`, s, 'each topic must sum to 1'))
  }
  return E.right(phi)
}

/** Document-completion perplexity of φ (K×V row-major) on the observed/held-out halves. */
export const heldOutPerplexity = (
  phi: Float64Array,
  K: number,
  observed: Corpus,
  heldOut: Corpus,
  options: PerplexityOptions = {},
): E.Either<DpError, PerplexityResult> => {
  const V = observed.vocab.length
  const alpha = options.alpha ?? 0.1
  const iterations = options.iterations ?? 100
  const ok = validatePhi(phi, K, V)
  if (E.isLeft(ok)) return ok
  if (heldOut.vocab.length !== V) return E.left(invalidParameter('heldOut.vocab', heldOut.vocab.length, `expected V = ${V}`))
  const D = documentCount(observed)
  if (documentCount(heldOut) !== D) return E.left(invalidParameter('heldOut', documentCount(heldOut), `expected ${D} documents`))
  const counts = new Int32Array(V)
  const words = new Int32Array(V)
  const wc = new Float64Array(V)
  const theta = new Float64Array(K)
  const n = new Float64Array(K)
  const tmp = new Float64Array(K)
  let ll = 0
  let nHo = 0
  for (let d = 0; d < D; d++) {
    // observed word counts of document d
    let m = 0
    let nObs = 0
    for (let i = observed.docStart[d] as number; i < (observed.docStart[d + 1] as number); i++) {
      const w = observed.tokens[i] as number
      if (counts[w] === 0) words[m++] = w
      counts[w] = (counts[w] as number) + 1
      nObs++
    }
    for (let j = 0; j < m; j++) {
      const w = words[j] as number
      wc[j] = counts[w] as number
      counts[w] = 0
    }
    theta.fill(1 / K)
    for (let it = 0; it < iterations; it++) {
      n.fill(0)
      for (let j = 0; j < m; j++) {
        const base = words[j] as number
        let s = 0
        for (let k = 0; k < K; k++) {
          const p = (theta[k] as number) * (phi[k * V + base] as number)
          tmp[k] = p
          s += p
        }
        if (s > 0) {
          const f = (wc[j] as number) / s
          for (let k = 0; k < K; k++) n[k] = (n[k] as number) + (tmp[k] as number) * f
        }
      }
      const denom = nObs + K * alpha
      for (let k = 0; k < K; k++) theta[k] = ((n[k] as number) + alpha) / denom
    }
    for (let i = heldOut.docStart[d] as number; i < (heldOut.docStart[d + 1] as number); i++) {
      const w = heldOut.tokens[i] as number
      let s = 0
      for (let k = 0; k < K; k++) s += (theta[k] as number) * (phi[k * V + w] as number)
      ll += Math.log(s)
      nHo++
    }
  }
  if (nHo === 0) return E.left(invalidParameter('heldOut', 0, 'no held-out tokens to score'))
  return E.right({ perplexity: Math.exp(-ll / nHo), logLikelihood: ll, heldOutTokens: nHo, documents: D })
}
