/**
 * Distinguishing games on LDA training (issue 16): two neighbouring corpora D and D′ built by one
 * step of a neighbouring relation, a trainer, and what the adversary sees. Many independently
 * seeded training runs on each side give the outcomes the auditor's statistics turn into an ε
 * lower bound (./audit.ts).
 *
 * Neighbouring steps (the trainer's own relation, or a wider one, named in the result):
 * - `replace-word` — the token at (document, position) is word t in D and t′ in D′ (replace-one
 *   word, the relation Zhao et al.'s trainers claim). The attacked token of the topic-based attack.
 * - `replace-document` — document d is one list of words in D and another in D′ (replace-one
 *   document: LP-LDA's per-document unit).
 * - `add-document` — D is D′ plus one document (add/remove one document), e.g. a canary document
 *   of rare words (`canaryDocument`).
 *
 * The game is a JSON value (`TrainerGameSpec`), so a queue job can carry it to another machine and
 * rebuild exactly the same corpora there.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { firstDecodeError } from '../../core/decode.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { type Rng, seeded } from '../../core/rng.js'
import { generateLda } from '../../trainers/corpus/synthetic.js'
import { type Corpus, type CorpusStats, corpusStats, fromDocuments, validateCorpus } from '../../trainers/corpus/corpus.js'
import type { FitOptions, FitResult, LdaConfigBase } from '../../trainers/trainer.js'
import { TRAINERS, isTrainerName } from '../../trainers/registry.js'
import type { Trainer, TrainerName } from '../../trainers/trainer.js'

/** A corpus as JSON: the vocabulary, each document's word ids in reading order, and optionally each document's label ("spam"/"ham"). */
export interface CorpusJson {
  readonly vocab: ReadonlyArray<string>
  readonly documents: ReadonlyArray<ReadonlyArray<number>>
  readonly labels?: ReadonlyArray<string>
}

/** `label`: the added document's label, for a trainer that reads labels (a canary e-mail labelled "spam"). */
export type Neighbour =
  | { readonly kind: 'replace-word'; readonly document: number; readonly position: number; readonly word: number }
  | { readonly kind: 'replace-document'; readonly document: number; readonly words: ReadonlyArray<number> }
  | { readonly kind: 'add-document'; readonly words: ReadonlyArray<number>; readonly label?: string }

/**
 * The trainer of a game: any trainer, built in or a plug-in (`Trainer` of dpaudit/trainers), seen
 * through what an audit needs — its configuration, its plan (for the accounted claim), `fit`, and
 * what it declares it releases (`releases`, from which the statistics are chosen). Its configuration
 * and model types are open here (members are methods, so every `Trainer<C, M>` is one); the LDA
 * statistics read φ only from trainers that declare `phi`.
 */
export interface GameTrainer extends Pick<Trainer<unknown, unknown>, 'name' | 'relation' | 'accountingRelation' | 'defaults' | 'config' | 'releases' | 'assumptions'> {
  validate(config: unknown, stats?: CorpusStats): E.Either<DpError, unknown>
  schedule(config: unknown, stats: CorpusStats): ReturnType<Trainer<unknown, unknown>['schedule']>
  claimed(config: unknown, stats: CorpusStats): ReturnType<Trainer<unknown, unknown>['claimed']>
  fit(data: Corpus, config: unknown, rng: Rng, options?: FitOptions): E.Either<DpError, FitResult<unknown>>
  readonly model: { fields(model: unknown): Readonly<Record<string, unknown>> }
}

/**
 * What the adversary sees of one run: `black-box` the final model (φ and whatever else the model
 * object carries); `white-box` also every value the release gate let out, iteration by iteration,
 * and — for the Gibbs trainers whose plan accounts the topic draws as released (HDP-LDA, CDP-LDA+)
 * — the topic drawn for the attacked token at each iteration (Zhao et al., Algorithm 3).
 */
export type View = 'white-box' | 'black-box'

export interface TrainerGameSpec {
  /** A built-in trainer's name; or, with the trainer object given to `buildGame`, the plug-in's name or module path (a queue's workers load a plug-in from its `file:` URL or absolute path). */
  readonly trainer: TrainerName | string
  /** Hyper-parameters; the trainer's defaults fill the rest. */
  readonly config: Readonly<Record<string, unknown>>
  /** D′ for `add-document`; D otherwise (the neighbour step builds the other corpus). */
  readonly corpus: CorpusJson
  readonly neighbour: Neighbour
  readonly view: View
}

/** The attacked token of a `replace-word` game: its flat index in reading order, t in D, t′ in D′. */
export interface AttackedToken {
  readonly index: number
  readonly word: number
  readonly other: number
}

/** The words a game changes (presence in D minus in D′ ≠ 0) and that difference, word by word. */
export interface ChangedWords {
  readonly words: Int32Array
  readonly weights: Float64Array
}

const changedWords = (presence: Float64Array): ChangedWords => {
  const words: number[] = []
  for (let w = 0; w < presence.length; w++) if (presence[w] !== 0) words.push(w)
  return { words: Int32Array.from(words), weights: Float64Array.from(words, (w) => presence[w] as number) }
}

export interface TrainerGame {
  readonly spec: TrainerGameSpec
  readonly trainer: GameTrainer
  /** The decoded configuration (an LDA trainer's has topics, iterations, α, β). */
  readonly config: unknown
  /** [D, D′]: side 0 runs D, side 1 runs D′. */
  readonly corpora: readonly [Corpus, Corpus]
  /** Per word: its count in the differing document of D minus that in D′ (the canary weights). */
  readonly countDelta: Float64Array
  /** Per word: presence in the differing document of D minus presence in D′ (LP-LDA's bits). */
  readonly presenceDelta: Float64Array
  /** The words where `presenceDelta` ≠ 0, with its values: what a statistic on word vectors projects on. */
  readonly changed: ChangedWords
  /** The differing document's index in D (its report slot); D′ has no such document under add-document. */
  readonly targetDocument: number
  readonly attacked: AttackedToken | null
  readonly description: string
}

const toCorpus = (c: CorpusJson): Corpus =>
  fromDocuments(
    c.vocab,
    c.documents.map((d) => Int32Array.from(d)),
    undefined,
    c.labels,
  )

const checkWords = (path: string, ws: unknown, V: number): E.Either<DpError, ReadonlyArray<number>> => {
  if (!Array.isArray(ws) || ws.length === 0) return E.left(invalidParameter(path, ws, 'expected a non-empty array of word ids'))
  for (const [i, w] of ws.entries())
    if (!(Number.isInteger(w) && w >= 0 && w < V)) return E.left(invalidParameter(`${path}[${i}]`, w, `a word id is an integer in [0, ${V})`))
  return E.right(ws as number[])
}

/** Word counts of one document (length V). */
const counts = (doc: ArrayLike<number>, V: number): Float64Array => {
  const out = new Float64Array(V)
  for (let i = 0; i < doc.length; i++) out[doc[i] as number] = (out[doc[i] as number] as number) + 1
  return out
}

const deltas = (inD: ArrayLike<number>, inDprime: ArrayLike<number>, V: number): { count: Float64Array; presence: Float64Array } => {
  const a = counts(inD, V)
  const b = counts(inDprime, V)
  const count = new Float64Array(V)
  const presence = new Float64Array(V)
  for (let w = 0; w < V; w++) {
    count[w] = (a[w] as number) - (b[w] as number)
    presence[w] = ((a[w] as number) > 0 ? 1 : 0) - ((b[w] as number) > 0 ? 1 : 0)
  }
  return { count, presence }
}

/** Whether a decoded configuration is an LDA trainer's (K topics, T iterations, α, β). */
export const isLdaConfig = (c: unknown): c is LdaConfigBase =>
  typeof c === 'object' && c !== null && (['topics', 'iterations', 'alpha', 'beta'] as const).every((k) => typeof (c as Record<string, unknown>)[k] === 'number')

/** The game's configuration as an LDA trainer's, or an error: the statistics and audits on topics need one. */
export const ldaConfigOf = (game: Pick<TrainerGame, 'config' | 'trainer'>, what: string): E.Either<DpError, LdaConfigBase> =>
  isLdaConfig(game.config) ? E.right(game.config) : E.left(invalidParameter('$.trainer', game.trainer.name, `${what} needs an LDA trainer (topics, iterations, alpha, beta)`))

/** Decodes the trainer's configuration: its defaults under the given fields, its codec, its range checks. */
export const decodeTrainerConfig = (trainer: Pick<GameTrainer, 'defaults' | 'config' | 'validate' | 'name'>, config: unknown, corpus: Corpus): E.Either<DpError, unknown> => {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return E.left(invalidParameter('$.config', config, 'the trainer configuration is an object of hyper-parameters'))
  const merged = { ...trainer.defaults, ...(config as Record<string, unknown>) }
  const decoded = trainer.config.decode(merged)
  if (E.isLeft(decoded)) return E.left(firstDecodeError(decoded.left, '$.config'))
  const v = trainer.validate(decoded.right, corpusStats(corpus))
  return E.isLeft(v) ? E.left({ ...v.left, path: `$.config.${v.left.path}` } as DpError) : E.right(v.right)
}

/**
 * Builds both corpora of a game and checks every field, naming it. `trainer` overrides the
 * registry (a plug-in loaded from its module, a test-only trainer in process).
 */
export const buildGame = (spec: TrainerGameSpec, trainer?: GameTrainer): E.Either<DpError, TrainerGame> => {
  if (typeof spec !== 'object' || spec === null) return E.left(invalidParameter('$', spec, 'a trainer game is an object { trainer, config, corpus, neighbour, view }'))
  if (trainer === undefined && !(typeof spec.trainer === 'string' && isTrainerName(spec.trainer)))
    return E.left(invalidParameter('$.trainer', spec.trainer, `one of ${Object.keys(TRAINERS).join(', ')}, or a plug-in module path (dpaudit audit loads it)`))
  const tr: GameTrainer = trainer ?? TRAINERS[spec.trainer as TrainerName]
  if (spec.view !== 'white-box' && spec.view !== 'black-box') return E.left(invalidParameter('$.view', spec.view, 'expected "white-box" or "black-box"'))
  const cj = spec.corpus
  if (typeof cj !== 'object' || cj === null || !Array.isArray(cj.vocab) || !Array.isArray(cj.documents))
    return E.left(invalidParameter('$.corpus', cj, 'a corpus is { vocab: [words], documents: [[word ids]] }'))
  const V = cj.vocab.length
  for (const [d, doc] of cj.documents.entries()) {
    const w = checkWords(`$.corpus.documents[${d}]`, doc, V)
    if (E.isLeft(w)) return w
  }
  if (cj.labels !== undefined && !(Array.isArray(cj.labels) && cj.labels.length === cj.documents.length && cj.labels.every((l) => typeof l === 'string')))
    return E.left(invalidParameter('$.corpus.labels', cj.labels, `one label (a string) per document: ${cj.documents.length}`))
  const base = toCorpus(cj)
  const ok = validateCorpus(base, '$.corpus')
  if (E.isLeft(ok)) return ok
  const D = cj.documents.length
  const n = spec.neighbour
  if (typeof n !== 'object' || n === null) return E.left(invalidParameter('$.neighbour', n, 'expected { kind: replace-word | replace-document | add-document, … }'))
  let pair: readonly [Corpus, Corpus]
  let diff: { count: Float64Array; presence: Float64Array }
  let target: number
  let attacked: AttackedToken | null = null
  let description: string
  switch (n.kind) {
    case 'replace-word': {
      if (!(Number.isInteger(n.document) && n.document >= 0 && n.document < D)) return E.left(invalidParameter('$.neighbour.document', n.document, `a document index in [0, ${D})`))
      const doc = cj.documents[n.document] as ReadonlyArray<number>
      if (!(Number.isInteger(n.position) && n.position >= 0 && n.position < doc.length))
        return E.left(invalidParameter('$.neighbour.position', n.position, `a token position in [0, ${doc.length}) of document ${n.document}`))
      if (!(Number.isInteger(n.word) && n.word >= 0 && n.word < V)) return E.left(invalidParameter('$.neighbour.word', n.word, `a word id in [0, ${V})`))
      const t = doc[n.position] as number
      if (t === n.word) return E.left(invalidParameter('$.neighbour.word', n.word, `the token is already word ${n.word}; the neighbour must replace it by another word`))
      const changed = doc.slice()
      changed[n.position] = n.word
      const other = cj.documents.map((d, i) => (i === n.document ? changed : d))
      pair = [base, toCorpus({ ...cj, documents: other })]
      diff = deltas(doc, changed, V)
      target = n.document
      attacked = { index: (base.docStart[n.document] as number) + n.position, word: t, other: n.word }
      description = `replace one word: document ${n.document}, position ${n.position}: "${cj.vocab[t]}" in D, "${cj.vocab[n.word]}" in D′`
      break
    }
    case 'replace-document': {
      if (!(Number.isInteger(n.document) && n.document >= 0 && n.document < D)) return E.left(invalidParameter('$.neighbour.document', n.document, `a document index in [0, ${D})`))
      const w = checkWords('$.neighbour.words', n.words, V)
      if (E.isLeft(w)) return w
      const other = cj.documents.map((d, i) => (i === n.document ? w.right : d))
      pair = [base, toCorpus({ ...cj, documents: other })]
      diff = deltas(cj.documents[n.document] as ReadonlyArray<number>, w.right, V)
      target = n.document
      description = `replace one document: document ${n.document} (${(cj.documents[n.document] as ReadonlyArray<number>).length} tokens in D, ${w.right.length} in D′)`
      break
    }
    case 'add-document': {
      const w = checkWords('$.neighbour.words', n.words, V)
      if (E.isLeft(w)) return w
      if (cj.labels !== undefined && typeof n.label !== 'string')
        return E.left(invalidParameter('$.neighbour.label', n.label, 'the added document\'s label (a string): the corpus is labelled'))
      pair = [toCorpus({ vocab: cj.vocab, documents: [...cj.documents, w.right], ...(cj.labels === undefined ? {} : { labels: [...cj.labels, n.label as string] }) }), base]
      diff = deltas(w.right, [], V)
      target = D
      description = `add/remove one document: D = D′ plus a document of ${w.right.length} tokens${typeof n.label === 'string' ? ` labelled "${n.label}"` : ''}`
      break
    }
    default:
      return E.left(invalidParameter('$.neighbour.kind', (n as { kind?: unknown }).kind, 'expected replace-word, replace-document or add-document'))
  }
  const config = decodeTrainerConfig(tr, spec.config, pair[0])
  if (E.isLeft(config)) return config
  return E.right({ spec, trainer: tr, config: config.right, corpora: pair, countDelta: diff.count, presenceDelta: diff.presence, changed: changedWords(diff.presence), targetDocument: target, attacked, description })
}

/**
 * A canary document for an add/remove game: the `length` least frequent words of the corpus
 * (ties by id), each once — words the model would otherwise barely see, so their mass in φ moves
 * most when the document is added (the canary design of Carlini et al. 2019, here with the corpus's
 * own vocabulary, which is public and fixed).
 */
export const canaryDocument = (corpus: CorpusJson, length: number): number[] => {
  const V = corpus.vocab.length
  const freq = new Float64Array(V)
  for (const d of corpus.documents) for (const w of d) freq[w] = (freq[w] as number) + 1
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => (freq[a] as number) - (freq[b] as number) || a - b)
  return order.slice(0, Math.min(length, V))
}

/** A Corpus as JSON (for game specs built from loaded or generated corpora). */
export const corpusJson = (c: Corpus): CorpusJson => ({
  vocab: c.vocab,
  documents: Array.from({ length: c.docStart.length - 1 }, (_, d) => Array.from(c.tokens.subarray(c.docStart[d] as number, c.docStart[d + 1] as number))),
})

/** A small generated corpus for games, tests and benches (`syntheticCorpus`). */
export interface SyntheticGameCorpus {
  readonly documents: number
  readonly vocabulary: number
  readonly topics: number
  readonly meanDocumentLength: number
  /** Extra vocabulary words that no document uses (canary words: present only where a game puts them). */
  readonly unused?: number
  readonly seed: string
}

/**
 * An LDA-generated corpus (trainers/corpus/synthetic.ts, α = 0.2, β = 0.1: documents dominated by
 * one or two topics) with `unused` extra words appended to the vocabulary as canary slots.
 */
/**
 * The largest synthetic corpus a game file may ask for: a trainer audit trains on it once per run,
 * thousands of times, so anything larger is a mistake (or a file meant to hang the worker), refused
 * before any memory is taken.
 */
export const SYNTHETIC_LIMITS = { documents: 100_000, vocabulary: 1_000_000, topics: 10_000, meanDocumentLength: 100_000, unused: 1_000_000, tokens: 10_000_000 } as const

export const syntheticCorpus = (s: SyntheticGameCorpus): E.Either<DpError, CorpusJson> => {
  for (const k of ['documents', 'vocabulary', 'topics', 'meanDocumentLength', 'unused'] as const) {
    const x = s[k]
    if (x !== undefined && typeof x === 'number' && x > SYNTHETIC_LIMITS[k])
      return E.left(invalidParameter(`$.corpus.synthetic.${k}`, x, `at most ${SYNTHETIC_LIMITS[k].toLocaleString('en-US')} (a synthetic game corpus is small; give a real corpus as { vocab, documents })`))
  }
  if (typeof s.documents === 'number' && typeof s.meanDocumentLength === 'number' && s.documents * s.meanDocumentLength > SYNTHETIC_LIMITS.tokens)
    return E.left(invalidParameter('$.corpus.synthetic', s, `documents × meanDocumentLength is at most ${SYNTHETIC_LIMITS.tokens.toLocaleString('en-US')} tokens`))
  const unused = s.unused ?? 0
  if (!(Number.isInteger(unused) && unused >= 0)) return E.left(invalidParameter('$.corpus.synthetic.unused', s.unused, 'a non-negative integer'))
  if (typeof s.seed !== 'string') return E.left(invalidParameter('$.corpus.synthetic.seed', s.seed, 'a string'))
  const g = generateLda({ topics: s.topics, vocabulary: s.vocabulary, documents: s.documents, alpha: 0.2, beta: 0.1, meanDocumentLength: s.meanDocumentLength }, seeded(s.seed))
  if (E.isLeft(g)) return E.left({ ...g.left, path: `$.corpus.synthetic.${g.left.path}` } as DpError)
  const c = corpusJson(g.right.corpus)
  return E.right({ vocab: [...c.vocab, ...Array.from({ length: unused }, (_, i) => `canary${i}`)], documents: c.documents })
}
