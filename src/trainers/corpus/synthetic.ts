/**
 * A synthetic LDA corpus with known topics (Blei, Ng & Jordan 2003, the generative process):
 * φ_k ~ Dir(β·1_V), θ_d ~ Dir(α), N_d ~ Poisson(mean length) (at least 2), z ~ θ_d, w ~ φ_z.
 * Returns the true φ and θ so topic recovery can be measured (as the reference figures' synthetic
 * corpora, docs/trainers.md § The reference protocol and figures).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import { dirichlet, makeGaussian, poisson } from '../lda/random.js'
import { type Corpus, fromDocuments } from './corpus.js'

export interface SyntheticSpec {
  readonly topics: number
  readonly vocabulary: number
  readonly documents: number
  /** Document-topic prior: one value (symmetric) or K values. */
  readonly alpha: number | ReadonlyArray<number>
  readonly beta: number
  readonly meanDocumentLength: number
}

export interface SyntheticCorpus {
  readonly corpus: Corpus
  /** True topics, K×V row-major, rows sum to 1. */
  readonly phi: Float64Array
  /** True document-topic proportions, D×K row-major. */
  readonly theta: Float64Array
  /** True topic of every token, aligned with corpus.tokens. */
  readonly assignments: Int32Array
}

export const generateLda = (spec: SyntheticSpec, rng: Rng): E.Either<DpError, SyntheticCorpus> => {
  const { topics: K, vocabulary: V, documents: D, beta, meanDocumentLength: L } = spec
  if (!(Number.isInteger(K) && K >= 2)) return E.left(invalidParameter('topics', K, 'K must be an integer ≥ 2'))
  if (!(Number.isInteger(V) && V >= 2)) return E.left(invalidParameter('vocabulary', V, 'V must be an integer ≥ 2'))
  if (!(Number.isInteger(D) && D >= 1)) return E.left(invalidParameter('documents', D, 'D must be a positive integer'))
  if (!(beta > 0)) return E.left(invalidParameter('beta', beta, 'β must be > 0'))
  if (!(L >= 2)) return E.left(invalidParameter('meanDocumentLength', L, 'the mean document length must be ≥ 2'))
  const alpha = typeof spec.alpha === 'number' ? new Float64Array(K).fill(spec.alpha) : Float64Array.from(spec.alpha)
  if (alpha.length !== K) return E.left(invalidParameter('alpha', spec.alpha, `expected ${K} values`))
  for (const a of alpha) if (!(a > 0)) return E.left(invalidParameter('alpha', spec.alpha, 'every α_k must be > 0'))
  const normal = makeGaussian(rng)
  const phi = new Float64Array(K * V)
  const row = new Float64Array(V)
  const betas = new Float64Array(V).fill(beta)
  const cdfs = new Float64Array(K * V)
  for (let k = 0; k < K; k++) {
    dirichlet(rng, betas, row, normal)
    phi.set(row, k * V)
    let s = 0
    for (let v = 0; v < V; v++) cdfs[k * V + v] = s += row[v] as number
  }
  const theta = new Float64Array(D * K)
  const th = new Float64Array(K)
  const docs: Int32Array[] = []
  const zs: Int32Array[] = []
  for (let d = 0; d < D; d++) {
    dirichlet(rng, alpha, th, normal)
    theta.set(th, d * K)
    const n = Math.max(2, poisson(rng, L))
    const ws = new Int32Array(n)
    const z = new Int32Array(n)
    for (let i = 0; i < n; i++) {
      let u = rng.next()
      let k = 0
      while (k < K - 1 && u >= (th[k] as number)) u -= th[k++] as number
      z[i] = k
      // Binary search the topic's CDF.
      const x = rng.next() * (cdfs[k * V + V - 1] as number)
      let lo = 0
      let hi = V - 1
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if ((cdfs[k * V + mid] as number) > x) hi = mid
        else lo = mid + 1
      }
      ws[i] = lo
    }
    docs.push(ws)
    zs.push(z)
  }
  const vocab = Array.from({ length: V }, (_, i) => `w${i + 1}`)
  const corpus = fromDocuments(vocab, docs)
  const assignments = new Int32Array(corpus.tokens.length)
  zs.forEach((z, d) => assignments.set(z, corpus.docStart[d] as number))
  return E.right({ corpus, phi, theta, assignments })
}
