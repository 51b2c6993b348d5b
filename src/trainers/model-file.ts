/**
 * Model files: JSON with the trainer, its configuration, whether the run is a private release (and
 * why not), the corpus description, the vocabulary, φ, the held-out perplexity and the privacy
 * statement. Written atomically (temporary file, then rename), so a failed run leaves no partial file.
 *
 * What a private trainer's file holds: only what passed through its release gate (φ, computed from
 * the last noisy release) and what the protected relation leaves unchanged (the number of
 * documents and tokens: word replacement moves neither). No θ, no training trace, and never a seed
 * or any state from which noise could be regenerated — a seeded run is labelled not private
 * instead. Only the non-private CGS writes θ; the trace (per-iteration wall time) is written only
 * for runs that are not private releases, since a private run's timing depends on its data.
 *
 * Reading decodes with an io-ts codec (`ModelFileCodec`) and then checks what evaluation relies on
 * (`decodeModelFile`); every error is one line naming the file, the JSON path and the value. A
 * value nested deeper than `MAX_JSON_DEPTH` (256) levels is refused first, naming where.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { type DpError, decodeFailure } from '../core/error.js'
import { firstDecodeError } from '../core/decode.js'
import { readBoundedText } from '../core/read-file.js'
import { ExtendedNumber, findTooDeep, MAX_JSON_DEPTH, parseJson, stringifyJson, tooDeepMessage } from '../core/json.js'
import { decodeEvent } from '../mechanisms/codec.js'
import { writeFileAtomic } from './io.js'
import { checkStatement } from './statement-check.js'
import type { PrivacyStatement } from './statement.js'
import type { IterationLog, LdaModel } from './trainer.js'
import { LDA_MODEL, LDA_MODEL_KIND } from './lda-surface.js'

export const MODEL_KIND = LDA_MODEL_KIND

export interface ModelFile {
  readonly schemaVersion: 1
  readonly kind: typeof MODEL_KIND
  readonly trainer: string
  readonly config: unknown
  /** Whether the file is a private release; for a seeded or diagnostic run, in plain words why not. */
  readonly release?: { readonly private: boolean; readonly randomness: string; readonly notice: string; readonly notPrivateBecause: ReadonlyArray<string> }
  /**
   * The corpus's name and sizes. A private release holds only sizes that are public: V, and D and N
   * where the protected relation leaves them unchanged (replace one word) or the user declared them
   * (--documents, --tokens); under a document-level relation the exact ones are left out.
   */
  readonly corpus: { readonly name: string; readonly documents?: number; readonly vocabulary: number; readonly tokens?: number; readonly sizes?: string }
  readonly vocab: ReadonlyArray<string>
  readonly topics: number
  /** K rows of V probabilities. */
  readonly phi: ReadonlyArray<ReadonlyArray<number>>
  /** D rows of K proportions of the training documents (non-private CGS only). */
  readonly theta?: ReadonlyArray<ReadonlyArray<number>>
  readonly evaluation?: { readonly perplexity: number; readonly heldOutTokens: number; readonly protocol: string }
  readonly privacy: PrivacyStatement
  readonly trace?: ReadonlyArray<IterationLog>
}

/** A trained model's file, whatever its trainer: the envelope every model file shares, with the trainer's fields after the vocabulary. */
export interface TrainedFile {
  readonly schemaVersion: 1
  readonly kind: string
  readonly trainer: string
  readonly config: unknown
  readonly release?: ModelFile['release']
  readonly corpus: ModelFile['corpus']
  readonly vocab: ReadonlyArray<string>
  readonly [field: string]: unknown
}

/**
 * The file of a trained model: the trainer's model fields (`ModelOutput.fields`) between the
 * vocabulary and the evaluation, in this order, so an LDA file is the same byte for byte whichever
 * path built it.
 */
export const trainedFile = (args: {
  kind: string
  trainer: string
  config: unknown
  release: ModelFile['release']
  corpus: ModelFile['corpus']
  vocab: ReadonlyArray<string>
  fields: Readonly<Record<string, unknown>>
  evaluation?: Readonly<Record<string, unknown>>
  privacy: PrivacyStatement
  trace?: ReadonlyArray<IterationLog>
}): TrainedFile => ({
  schemaVersion: 1,
  kind: args.kind,
  trainer: args.trainer,
  config: args.config,
  ...(args.release === undefined ? {} : { release: args.release }),
  corpus: args.corpus,
  vocab: args.vocab,
  ...args.fields,
  ...(args.evaluation === undefined ? {} : { evaluation: args.evaluation }),
  privacy: args.privacy,
  ...(args.trace === undefined ? {} : { trace: args.trace }),
})

/** An LDA model's file (φ, and θ for the non-private CGS). */
export const modelFile = ({ model, ...args }: Omit<Parameters<typeof trainedFile>[0], 'kind' | 'fields'> & { readonly model: LdaModel }): TrainedFile =>
  trainedFile({ ...args, kind: MODEL_KIND, fields: LDA_MODEL.fields(model) })

export const writeModelFile = (file: string, m: ModelFile | TrainedFile): E.Either<DpError, void> => writeFileAtomic(file, `${stringifyJson(m, 1)}\n`)

/** What `evaluate` needs from a model file: the vocabulary and φ. */
export interface LoadedModel {
  readonly trainer: string
  readonly vocab: ReadonlyArray<string>
  readonly topics: number
  readonly phi: Float64Array
  readonly file: ModelFile
}

// -------------------------------------------------------------------------------------------
// The codec: shape first (io-ts), then the semantics evaluation relies on (φ a K × V matrix of
// probability rows, θ rows of length K, the plan a valid event tree).
// -------------------------------------------------------------------------------------------

/** Numbers may be written as "Infinity" / "NaN" (core/json.ts); the semantic checks reject them where they matter. */
const N = ExtendedNumber

const AccountedEpsilonCodec = t.type({ delta: N, epsilon: N, accountant: t.string, method: t.string }, 'AccountedEpsilon')
const ClaimedEpsilonCodec = t.type({ delta: N, epsilon: N, statedDelta: N, kind: t.string }, 'ClaimedEpsilon')

/** The fields of a privacy statement that `evaluate` and the reports read; `plan` is checked as an event tree afterwards. */
const PrivacyStatementCodec = t.type(
  {
    trainer: t.string,
    protects: t.string,
    accountedUnder: t.string,
    plan: t.unknown,
    claim: t.type({ source: t.string, statement: t.string, relation: t.string, atDelta: t.readonlyArray(ClaimedEpsilonCodec) }, 'Claim'),
    accounted: t.readonlyArray(AccountedEpsilonCodec),
    guarantee: t.readonlyArray(AccountedEpsilonCodec),
    assumptions: t.readonlyArray(t.string),
    notes: t.readonlyArray(t.string),
  },
  'PrivacyStatement',
)

const Matrix = t.readonlyArray(t.readonlyArray(N, 'a row of numbers'), 'a list of rows of numbers')

export const ModelFileCodec = t.intersection(
  [
    t.type({
      schemaVersion: t.literal(1),
      kind: t.literal(MODEL_KIND),
      trainer: t.string,
      config: t.unknown,
      corpus: t.intersection([t.type({ name: t.string, vocabulary: N }), t.partial({ documents: N, tokens: N, sizes: t.string })], 'CorpusDescription'),
      vocab: t.readonlyArray(t.string, 'a list of words'),
      topics: N,
      phi: Matrix,
      privacy: PrivacyStatementCodec,
    }),
    t.partial({
      theta: Matrix,
      release: t.type({ private: t.boolean, randomness: t.string, notice: t.string, notPrivateBecause: t.readonlyArray(t.string) }, 'ReleaseVerdict'),
      evaluation: t.type({ perplexity: N, heldOutTokens: N, protocol: t.string }, 'Evaluation'),
      trace: t.readonlyArray(t.type({ iteration: N, logLikelihood: N, elapsedMs: N, tokensPerSecond: N }, 'IterationLog')),
    }),
  ],
  'ModelFile',
)

/** Tolerance on Σ_w φ_kw = 1 (the trainers normalise in doubles: errors ~1e-13). */
export const PHI_ROW_SUM_TOLERANCE = 1e-6

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/**
 * A model file from parsed JSON: the io-ts shape, then the semantics — topics an integer ≥ 2; φ has
 * `topics` rows of `vocab.length` finite entries ≥ 0, each summing to 1 within
 * PHI_ROW_SUM_TOLERANCE; θ rows have `topics` finite entries ≥ 0; the privacy plan is a valid event
 * tree. Errors name the JSON path under `root` and the value.
 */
export const decodeModelFile = (u: unknown, root = '$'): E.Either<DpError, ModelFile> => {
  // Nothing below recurses into a value deeper than MAX_JSON_DEPTH (nor prints one).
  const deep = findTooDeep(u, MAX_JSON_DEPTH, root)
  if (deep !== undefined) return E.left(decodeFailure(deep.path, '…', tooDeepMessage(deep)))
  // kind and schemaVersion first: a file that is not a model file should say so, not list fields.
  if (!isRecord(u)) return E.left(decodeFailure(root, u, `expected a model file (a JSON object with "kind": "${MODEL_KIND}")`))
  if (u['kind'] !== MODEL_KIND) return E.left(decodeFailure(`${root}.kind`, u['kind'], `expected "${MODEL_KIND}"`))
  if (u['schemaVersion'] !== 1) return E.left(decodeFailure(`${root}.schemaVersion`, u['schemaVersion'], 'expected schemaVersion 1'))
  const d = ModelFileCodec.decode(u)
  if (E.isLeft(d)) return E.left(firstDecodeError(d.left, root))
  // t.unknown accepts an absent key; the configuration is part of the record of the run.
  if (!('config' in u)) return E.left(decodeFailure(`${root}.config`, undefined, 'missing; expected the trainer configuration'))
  const m = d.right
  const K = m.topics
  if (!(Number.isInteger(K) && K >= 2)) return E.left(decodeFailure(`${root}.topics`, K, 'expected an integer ≥ 2'))
  const V = m.vocab.length
  if (m.phi.length !== K) return E.left(decodeFailure(`${root}.phi`, m.phi.length, `has the wrong number of rows: expected ${K} (one per topic)`))
  for (let k = 0; k < K; k++) {
    const row = m.phi[k] as ReadonlyArray<number>
    if (row.length !== V) return E.left(decodeFailure(`${root}.phi[${k}]`, row.length, `has the wrong length: expected ${V} probabilities (one per word of $.vocab)`))
    let sum = 0
    for (let w = 0; w < V; w++) {
      const x = row[w] as number
      if (!(Number.isFinite(x) && x >= 0)) return E.left(decodeFailure(`${root}.phi[${k}][${w}]`, x, 'expected a finite probability ≥ 0'))
      sum += x
    }
    if (!(Math.abs(sum - 1) <= PHI_ROW_SUM_TOLERANCE))
      return E.left(decodeFailure(`${root}.phi[${k}]`, sum, `row sum is not 1 (within ${PHI_ROW_SUM_TOLERANCE})`))
  }
  const theta = m.theta ?? []
  for (let d = 0; d < theta.length; d++) {
    const row = theta[d] as ReadonlyArray<number>
    if (row.length !== K) return E.left(decodeFailure(`${root}.theta[${d}]`, row.length, `has the wrong length: expected ${K} topic proportions (one per topic)`))
    for (let k = 0; k < K; k++) {
      const x = row[k] as number
      if (!(Number.isFinite(x) && x >= 0)) return E.left(decodeFailure(`${root}.theta[${d}][${k}]`, x, 'expected a finite proportion ≥ 0'))
    }
  }
  const consistent = checkConsistency(m, root)
  if (E.isLeft(consistent)) return consistent
  const plan = decodeEvent(m.privacy.plan, `${root}.privacy.plan`)
  if (E.isLeft(plan)) return plan
  return E.right({ ...m, privacy: { ...m.privacy, plan: plan.right } })
}

const isCount = (x: number): boolean => Number.isInteger(x) && x >= 0

/**
 * The parts of a file that must agree with each other (an edited or mixed-up file is refused, not
 * believed): the corpus's V is the vocabulary's length and its words are distinct and non-empty
 * (φ is re-indexed by word); sizes are counts; the statement is about this trainer; every stated
 * ε is ≥ 0 or +∞ and every δ a probability; a release is private exactly when no reason says it is
 * not; a perplexity is finite and ≥ 1. Whether the stated ε follow from the plan is `checkStatement`
 * (./statement-check.ts), which runs the accountants.
 */
const checkConsistency = (m: t.TypeOf<typeof ModelFileCodec>, root: string): E.Either<DpError, void> => {
  if (m.corpus.vocabulary !== m.vocab.length)
    return E.left(decodeFailure(`${root}.corpus.vocabulary`, m.corpus.vocabulary, `disagrees with $.vocab, which holds ${m.vocab.length} words`))
  const seen = new Map<string, number>()
  for (let i = 0; i < m.vocab.length; i++) {
    const w = m.vocab[i] as string
    if (w.length === 0) return E.left(decodeFailure(`${root}.vocab[${i}]`, w, 'an empty word'))
    const j = seen.get(w)
    if (j !== undefined) return E.left(decodeFailure(`${root}.vocab[${i}]`, w, `repeats $.vocab[${j}]; the words of a model are distinct`))
    seen.set(w, i)
  }
  for (const key of ['documents', 'tokens'] as const) {
    const x = m.corpus[key]
    if (x !== undefined && !isCount(x)) return E.left(decodeFailure(`${root}.corpus.${key}`, x, 'expected a count (an integer ≥ 0)'))
  }
  if (m.privacy.trainer !== m.trainer)
    return E.left(decodeFailure(`${root}.privacy.trainer`, m.privacy.trainer, `the statement is about another trainer than the file's "${m.trainer}"`))
  const lists = [
    ['accounted', m.privacy.accounted],
    ['guarantee', m.privacy.guarantee],
    ['claim.atDelta', m.privacy.claim.atDelta],
  ] as const
  for (const [name, list] of lists)
    for (let i = 0; i < list.length; i++) {
      const a = list[i] as { readonly delta: number; readonly epsilon: number }
      if (!(a.delta >= 0 && a.delta <= 1)) return E.left(decodeFailure(`${root}.privacy.${name}[${i}].delta`, a.delta, 'expected a probability in [0, 1]'))
      if (!(a.epsilon >= 0)) return E.left(decodeFailure(`${root}.privacy.${name}[${i}].epsilon`, a.epsilon, 'expected ε ≥ 0 (or Infinity)'))
    }
  if (m.release !== undefined && m.release.private !== (m.release.notPrivateBecause.length === 0))
    return E.left(
      decodeFailure(
        `${root}.release.private`,
        m.release.private,
        m.release.private ? `contradicts $.release.notPrivateBecause (${m.release.notPrivateBecause.length} reasons it is not)` : 'says not private but gives no reason why',
      ),
    )
  if (m.evaluation !== undefined) {
    if (!(Number.isFinite(m.evaluation.perplexity) && m.evaluation.perplexity >= 1))
      return E.left(decodeFailure(`${root}.evaluation.perplexity`, m.evaluation.perplexity, 'expected a finite perplexity ≥ 1'))
    if (!isCount(m.evaluation.heldOutTokens)) return E.left(decodeFailure(`${root}.evaluation.heldOutTokens`, m.evaluation.heldOutTokens, 'expected a count (an integer ≥ 0)'))
  }
  return E.right(undefined)
}

/**
 * A model file from parsed JSON, decoded (`decodeModelFile`) and with its statement re-derived from
 * its own plan (`checkStatement`): what every reader that shows the statement uses.
 */
export const decodeCheckedModelFile = (u: unknown, root = '$'): E.Either<DpError, ModelFile> => {
  const decoded = decodeModelFile(u, root)
  return E.isLeft(decoded) ? decoded : checkStatement(decoded.right, root)
}

/** Reads and decodes a model file; errors are one line naming the file, the JSON path and the value. */
export const readModelFile = (file: string): E.Either<DpError, LoadedModel> => {
  // bounded, regular files only, strict UTF-8: a device, a FIFO or a huge file is refused in one line
  const read = readBoundedText(file)
  if (E.isLeft(read)) {
    const why = read.left.startsWith(`${file}: `) ? read.left.slice(file.length + 2) : read.left
    return E.left(decodeFailure(file, file, why.replace('cannot read the file', 'cannot read the model file')))
  }
  const text = read.right
  // Parsed without a depth limit here: decodeModelFile refuses a deep value naming its JSON path.
  const u = parseJson(text, Infinity)
  if (E.isLeft(u)) return E.left(decodeFailure(`${file}: $`, text.length > 40 ? `…${text.slice(-40)}` : text, `not valid JSON (${u.left})`))
  // the stated ε must follow from the file's own plan (an edited statement is not believed)
  const m = decodeCheckedModelFile(u.right, `${file}: $`)
  if (E.isLeft(m)) return m
  const { topics: K, vocab } = m.right
  const phi = new Float64Array(K * vocab.length)
  m.right.phi.forEach((row, k) => phi.set(row, k * vocab.length))
  return E.right({ trainer: m.right.trainer, vocab, topics: K, phi, file: m.right })
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
