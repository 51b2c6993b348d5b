/**
 * One training run as the adversary of a game sees it.
 *
 * - Black-box: the trainer's own `fit`, and its model (φ, and any other field the model object
 *   carries — a leak such as a noise seed is visible there).
 * - White-box: also every value that left the release gate (`FitOptions.onRelease`): the noisy
 *   topic-word tables of each iteration (HDP-LDA, CDP-LDA(+), SUB-LDA) and LP-LDA's reports.
 * - White-box, a trainer that declares `topic-assignments` (HDP-LDA, SUB-LDA, CDP-LDA, CDP-LDA+), in a
 *   replace-word game: also the topic drawn for the attacked token at every iteration, which Zhao et
 *   al.'s Algorithm 3 records (line 8) and which their plans account as released (the topic draws
 *   are an exponential mechanism, or unbounded). The trainer's own `fit` runs: its topic-draw
 *   measurement releases every token's topic after the sweep, and the observer reads the attacked
 *   token's from that release — the audited computation is the code that ships.
 * - White-box on non-private CGS (Fig. 4's baseline): the true counts each sweep reads and every
 *   token's topic after it, which `cgs.fit` hands to `onRelease` as what it would release (it has
 *   no gate; each record says it is not a release) — read here as the private trainers' releases.
 *
 * Every run here is seeded (a per-trial audit stream): the gate reports it is NOT a private
 * release, as it must — an audit needs runs it can repeat.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { Rng } from '../../core/rng.js'
import type { ReleaseRecord } from '../../mechanisms/gate.js'
import type { LdaModel, ReleaseKind } from '../../trainers/trainer.js'
import type { ChangedWords, TrainerGame } from './game.js'

/** Presence reports as LP-LDA releases them (trainers/lp/perturb.ts LocalReports). */
export interface ReportsView {
  readonly V: number
  readonly M: number
  readonly stride: number
  readonly bits: Uint32Array
}

export interface Observation {
  /** The model `fit` returned (an LDA trainer's carries φ; read through `model.fields` otherwise). */
  readonly model: unknown
  /** White-box: released topic-word tables (V×K, word-major), in release order. */
  readonly tables: ReadonlyArray<Float64Array>
  /** White-box: released presence reports (LP-LDA). */
  readonly reports: ReadonlyArray<ReportsView>
  /** White-box, trainers that release their topic draws, replace-word games: the attacked token's topic after each iteration's sweep. */
  readonly tokenTopics: Int32Array | null
  /**
   * White-box, trainers that declare `word-vectors`: each release of one number per vocabulary word,
   * projected on the differing document's words (Σ_w P_w·r_w, P its presence in D minus in D′), in
   * release order.
   */
  readonly wordProjections: ReadonlyArray<number>
  /** Black-box, trainers that declare `word-weights`: the model file's word vectors projected the same way, summed (NaN otherwise). */
  readonly weightsProjection: number
  /** Why the run is not a private release (always non-empty here: the runs are seeded). */
  readonly notPrivateBecause: ReadonlyArray<string>
}

const isReports = (v: unknown): v is ReportsView =>
  typeof v === 'object' && v !== null && (v as ReportsView).bits instanceof Uint32Array && typeof (v as ReportsView).stride === 'number' && typeof (v as ReportsView).M === 'number'

/** Σ_w P_w·v_w over the game's changed words (`TrainerGame.changed`), or null if `v` is not a vector of V numbers. */
export const projection = (v: unknown, V: number, changed: ChangedWords): number | null => {
  if (!(ArrayBuffer.isView(v) || Array.isArray(v)) || (v as ArrayLike<unknown>).length !== V) return null
  const a = v as ArrayLike<number>
  let s = 0
  for (let i = 0; i < changed.words.length; i++) s += (changed.weights[i] as number) * Number(a[changed.words[i] as number])
  return s
}

/**
 * Collects the white-box releases: topic-word tables (never the document-topic ones) and reports
 * (K topics; 0 for a trainer that has none), and — given `changed` — the projections of releases of
 * one number per vocabulary word.
 */
export const collector = (
  V: number,
  K: number,
  changed?: ChangedWords,
): { onRelease: (r: ReleaseRecord) => void; tables: Float64Array[]; reports: ReportsView[]; wordProjections: number[] } => {
  const tables: Float64Array[] = []
  const reports: ReportsView[] = []
  const wordProjections: number[] = []
  const onRelease = (r: ReleaseRecord): void => {
    const v = r.value
    if (changed !== undefined) {
      // read now: a release may be a buffer the trainer reuses
      const p = projection(v, V, changed)
      if (p !== null) wordProjections.push(p)
    } else if (v instanceof Float64Array) {
      if (v.length === V * K && !r.label.includes('document-topic')) tables.push(v)
    } else if (isReports(v)) reports.push(v)
    else if (typeof v === 'object' && v !== null && (v as { released?: unknown }).released instanceof Float64Array) {
      const t = (v as { released: Float64Array }).released
      if (t.length === V * K) tables.push(t)
    }
  }
  return { onRelease, tables, reports, wordProjections }
}

/** The model as an LDA model (φ, K, V), or null if it carries no φ. */
export const ldaModel = (m: unknown): LdaModel | null => {
  const x = m as Partial<LdaModel> | null
  return typeof x === 'object' && x !== null && x.phi instanceof Float64Array && typeof x.topics === 'number' && typeof x.vocabulary === 'number' ? (x as LdaModel) : null
}

/** The game's number of topics: an LDA trainer's K, 0 for a trainer without topics. */
export const topicsOf = (game: TrainerGame): number => {
  const K = (game.config as { topics?: unknown }).topics
  return typeof K === 'number' ? K : 0
}

/**
 * Whether the attacked token's topic is observed: a white-box replace-word game on a trainer that
 * releases its topic draws (`topic-assignments`; non-private CGS hands over what it would release).
 */
export const observesTokenTopics = (game: TrainerGame): boolean => game.spec.view === 'white-box' && game.attacked !== null && game.trainer.releases.includes('topic-assignments')

/** Runs side `side` of the game once on `rng` and returns what the adversary sees. */
export const observe = (game: TrainerGame, side: 0 | 1, rng: Rng): E.Either<DpError, Observation> => {
  const corpus = game.corpora[side]
  const V = corpus.vocab.length
  const K = topicsOf(game)
  const white = game.spec.view === 'white-box'
  const col = collector(V, K, game.trainer.releases.includes('word-vectors') ? game.changed : undefined)
  // the attacked token's topic, read from each sweep's release of every token's topic (`topic-assignments`)
  const at = observesTokenTopics(game) ? (game.attacked as { index: number }).index : -1
  const topics: number[] = []
  const N = corpus.tokens.length
  const onRelease = (r: ReleaseRecord): void => {
    col.onRelease(r)
    if (at >= 0 && r.value instanceof Int32Array && r.value.length === N) topics.push(r.value[at] as number)
  }
  const fit = game.trainer.fit(corpus, game.config, rng, white ? { onRelease, logLikelihoodEvery: 0 } : { logLikelihoodEvery: 0 })
  if (E.isLeft(fit)) return fit
  const model = fit.right.model
  const declares = (k: ReleaseKind): boolean => game.trainer.releases.includes(k)
  // a declaration the run does not bear out is an error, never a statistic computed on nothing
  const broken = (what: string) => E.left(invalidParameter('$.trainer', game.trainer.name, `the trainer declares ${what}`))
  if (declares('phi') && ldaModel(model) === null) return broken("that it releases φ ('phi') but its model carries none")
  if (at >= 0 && topics.length === 0) return broken(`its topic draws released ('topic-assignments') but released no topic per token (${N} of them)`)
  if (white && declares('word-vectors') && col.wordProjections.length === 0)
    return broken(`releases of one number per vocabulary word ('word-vectors') but released no vector of ${V} numbers`)
  let weightsProjection = Number.NaN
  if (declares('word-weights')) {
    const vectors = Object.values(game.trainer.model.fields(model)).flatMap((f) => {
      const p = projection(f, V, game.changed)
      return p === null ? [] : [p]
    })
    if (vectors.length === 0) return broken(`a model file with vectors of one number per vocabulary word ('word-weights') but its model file has no field of ${V} numbers`)
    weightsProjection = vectors.reduce((a, b) => a + b, 0)
  }
  return E.right({
    model,
    tables: col.tables,
    reports: col.reports,
    tokenTopics: at >= 0 ? Int32Array.from(topics) : null,
    wordProjections: col.wordProjections,
    weightsProjection,
    notPrivateBecause: fit.right.release.notPrivateBecause,
  })
}
