/**
 * Model files: JSON with the trainer, its configuration, the seed, the corpus description, the
 * vocabulary, φ, θ of the training documents, the held-out perplexity and the privacy statement.
 * Written atomically (temporary file, then rename), so a failed run leaves no partial file.
 * Private trainers' files omit the training trace (computed on unprotected counts).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, decodeFailure } from '../core/error.js'
import { parseJson, stringifyJson } from '../core/json.js'
import { readFileSync } from 'node:fs'
import { writeFileAtomic } from './io.js'
import type { PrivacyStatement } from './statement.js'
import type { IterationLog, LdaModel } from './trainer.js'

export const MODEL_KIND = 'dpaudit-lda-model'

export interface ModelFile {
  readonly schemaVersion: 1
  readonly kind: typeof MODEL_KIND
  readonly trainer: string
  readonly config: unknown
  readonly seed: string
  readonly corpus: { readonly name: string; readonly documents: number; readonly vocabulary: number; readonly tokens: number }
  readonly vocab: ReadonlyArray<string>
  readonly topics: number
  /** K rows of V probabilities. */
  readonly phi: ReadonlyArray<ReadonlyArray<number>>
  /** D rows of K proportions (training documents). */
  readonly theta: ReadonlyArray<ReadonlyArray<number>>
  readonly evaluation?: { readonly perplexity: number; readonly heldOutTokens: number; readonly protocol: string }
  readonly privacy: PrivacyStatement
  readonly trace?: ReadonlyArray<IterationLog>
}

const rows = (a: Float64Array, n: number, m: number): number[][] => Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * m, (i + 1) * m)))

export const modelFile = (args: {
  trainer: string
  config: unknown
  seed: string
  corpus: ModelFile['corpus']
  vocab: ReadonlyArray<string>
  model: LdaModel
  evaluation?: ModelFile['evaluation']
  privacy: PrivacyStatement
  trace?: ReadonlyArray<IterationLog>
}): ModelFile => ({
  schemaVersion: 1,
  kind: MODEL_KIND,
  trainer: args.trainer,
  config: args.config,
  seed: args.seed,
  corpus: args.corpus,
  vocab: args.vocab,
  topics: args.model.topics,
  phi: rows(args.model.phi, args.model.topics, args.model.vocabulary),
  theta: rows(args.model.theta, args.model.theta.length / args.model.topics, args.model.topics),
  ...(args.evaluation === undefined ? {} : { evaluation: args.evaluation }),
  privacy: args.privacy,
  ...(args.trace === undefined ? {} : { trace: args.trace }),
})

export const writeModelFile = (file: string, m: ModelFile): E.Either<DpError, void> => writeFileAtomic(file, `${stringifyJson(m, 1)}\n`)

/** What `evaluate` needs from a model file: the vocabulary and φ. */
export interface LoadedModel {
  readonly trainer: string
  readonly vocab: ReadonlyArray<string>
  readonly topics: number
  readonly phi: Float64Array
  readonly file: ModelFile
}

export const readModelFile = (file: string): E.Either<DpError, LoadedModel> => {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    return E.left(decodeFailure(file, file, `cannot read the model file (${(e as NodeJS.ErrnoException).code ?? String(e)})`))
  }
  const u = parseJson(text)
  if (E.isLeft(u)) return E.left(decodeFailure(file, '', `not valid JSON (${u.left})`))
  const m = u.right as Partial<ModelFile> | null
  if (m === null || typeof m !== 'object' || m.kind !== MODEL_KIND) return E.left(decodeFailure(`${file}: $.kind`, m?.kind, `expected "${MODEL_KIND}"`))
  if (!Array.isArray(m.vocab) || !m.vocab.every((w) => typeof w === 'string')) return E.left(decodeFailure(`${file}: $.vocab`, m.vocab, 'expected a list of words'))
  const K = m.topics
  if (typeof K !== 'number' || !Number.isInteger(K) || K < 2) return E.left(decodeFailure(`${file}: $.topics`, K, 'expected an integer ≥ 2'))
  const V = m.vocab.length
  if (!Array.isArray(m.phi) || m.phi.length !== K) return E.left(decodeFailure(`${file}: $.phi`, m.phi?.length, `expected ${K} rows`))
  const phi = new Float64Array(K * V)
  for (let k = 0; k < K; k++) {
    const row = m.phi[k]
    if (!Array.isArray(row) || row.length !== V) return E.left(decodeFailure(`${file}: $.phi[${k}]`, row?.length, `expected ${V} probabilities`))
    for (let w = 0; w < V; w++) {
      const x = row[w]
      if (typeof x !== 'number' || !(x >= 0)) return E.left(decodeFailure(`${file}: $.phi[${k}][${w}]`, x, 'expected a probability ≥ 0'))
      phi[k * V + w] = x
    }
  }
  return E.right({ trainer: String(m.trainer), vocab: m.vocab, topics: K, phi, file: m as ModelFile })
}

/** φ re-indexed onto another vocabulary (words the model never saw get probability 0, rows renormalised). */
export const reindexPhi = (phi: Float64Array, K: number, from: ReadonlyArray<string>, to: ReadonlyArray<string>): Float64Array => {
  const idx = new Map(from.map((w, i) => [w, i]))
  const V = from.length
  const out = new Float64Array(K * to.length)
  for (let k = 0; k < K; k++) {
    let s = 0
    to.forEach((w, j) => {
      const i = idx.get(w)
      const x = i === undefined ? 0 : (phi[k * V + i] as number)
      out[k * to.length + j] = x
      s += x
    })
    if (s > 0) for (let j = 0; j < to.length; j++) out[k * to.length + j] = (out[k * to.length + j] as number) / s
  }
  return out
}
