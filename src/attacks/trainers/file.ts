/**
 * A trainer audit as a JSON file (the target of `dpaudit audit --queue`):
 *
 * ```json
 * {
 *   "game": {
 *     "trainer": "hdp-lda",
 *     "config": { "topics": 3, "iterations": 3, "epsilonL": 0.2, "clip": 0.1, "beta": 1 },
 *     "corpus": { "synthetic": { "documents": 50, "vocabulary": 30, "topics": 3, "meanDocumentLength": 20, "unused": 5, "seed": "c" } },
 *     "neighbour": { "kind": "replace-word", "document": 0, "position": 0, "word": 30 },
 *     "view": "white-box"
 *   },
 *   "claim": { "epsilon": 1.07, "delta": 1e-5 },
 *   "runs": 2000,
 *   "seed": "audit-1"
 * }
 * ```
 *
 * `corpus` is `{ vocab, documents, labels? }`, `{ synthetic: … }` (`syntheticCorpus`) or
 * `{ dataset: "spam" | "brown", documents, vocabulary?, unused? }` (`datasetCorpus`: a built-in
 * corpus, its labels kept); an add-document neighbour may give `"canary": n` instead of `words`
 * (`canaryDocument`), and `"label"` for a labelled corpus. The file is expanded into a plain game
 * (explicit corpus and words) before any job is queued, so every worker rebuilds the same corpora.
 *
 * `trainer` is a built-in trainer's name or a plug-in module's path (`./my-trainer.mjs`, relative
 * to the file), which `dpaudit audit` loads as `dpaudit train` does; for the audit (local or queued)
 * it becomes the module's `file:` URL, which queue workers load (`trainerModuleUrl`). `claim` may be
 * `{ "accounted": true, "delta": 1e-5 }`: the accountant's ε at δ for the trainer's plan
 * (./accounted.ts), so the audit tests the statement `dpaudit train` prints.
 *
 * @module
 */
import { isAbsolute } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { loadDataset } from '../../trainers/corpus/load.js'
import type { TrainerAuditSpec } from './audit.js'
import { canaryDocument, type CorpusJson, type Neighbour, SYNTHETIC_LIMITS, syntheticCorpus, type SyntheticGameCorpus, type TrainerGameSpec } from './game.js'

/**
 * A built-in corpus as a game corpus: the first `documents` training documents of `dataset` that hold
 * at least one of its first `vocabulary` words (an empty document is no training example), with
 * their labels, and `unused` extra vocabulary words that no document uses (canary slots).
 */
export interface DatasetGameCorpus {
  readonly dataset: 'spam' | 'brown'
  readonly documents: number
  readonly vocabulary?: number
  readonly unused?: number
}

export const datasetCorpus = (d: DatasetGameCorpus): E.Either<DpError, CorpusJson> => {
  if (d.dataset !== 'spam' && d.dataset !== 'brown') return E.left(invalidParameter('$.game.corpus.dataset', d.dataset, 'a built-in corpus: "spam" or "brown"'))
  if (!(Number.isInteger(d.documents) && d.documents >= 1 && d.documents <= SYNTHETIC_LIMITS.documents))
    return E.left(invalidParameter('$.game.corpus.documents', d.documents, `the number of documents: an integer in [1, ${SYNTHETIC_LIMITS.documents}]`))
  for (const k of ['vocabulary', 'unused'] as const) {
    const x = d[k]
    if (x !== undefined && !(Number.isInteger(x) && x >= (k === 'unused' ? 0 : 1) && x <= SYNTHETIC_LIMITS[k]))
      return E.left(invalidParameter(`$.game.corpus.${k}`, x, `an integer in [${k === 'unused' ? 0 : 1}, ${SYNTHETIC_LIMITS[k]}]`))
  }
  const ds = loadDataset(d.dataset, d.vocabulary === undefined ? {} : { vocabularySize: d.vocabulary })
  if (E.isLeft(ds)) return E.left({ ...ds.left, path: '$.game.corpus' } as DpError)
  const c = ds.right.train
  const documents: number[][] = []
  const labels: string[] = []
  for (let i = 0; i < c.docStart.length - 1 && documents.length < d.documents; i++) {
    if (c.docStart[i + 1] === c.docStart[i]) continue
    documents.push(Array.from(c.tokens.subarray(c.docStart[i] as number, c.docStart[i + 1] as number)))
    labels.push(c.labels[i] ?? '')
  }
  if (documents.length < d.documents)
    return E.left(invalidParameter('$.game.corpus.documents', d.documents, `${d.dataset} has ${documents.length} training documents with a vocabulary word`))
  return E.right({ vocab: [...c.vocab, ...Array.from({ length: d.unused ?? 0 }, (_, i) => `zzcanary${i}`)], documents, labels })
}

export type TrainerAuditFile = Pick<TrainerAuditSpec, 'claim' | 'runs' | 'seed' | 'confidence' | 'selectionFraction' | 'chunkSize'> & { readonly game: TrainerGameSpec }

/** Whether a game's `trainer` names a plug-in module (a .js or .mjs path) rather than a built-in trainer. */
export const isTrainerModulePath = (trainer: unknown): trainer is string => typeof trainer === 'string' && /\.m?js$/i.test(trainer)

/**
 * The `file:` URL of a plug-in trainer a queued audit's workers can load — the game names it by a
 * `file:` URL or an absolute path — or null (a built-in name, or a path relative to nothing).
 */
export const trainerModuleUrl = (trainer: unknown): string | null => {
  if (!isTrainerModulePath(trainer)) return null
  if (trainer.startsWith('file:')) return trainer
  return isAbsolute(trainer) ? pathToFileURL(trainer).href : null
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)

/** Expands and checks the shape of a trainer-audit file (the game itself is checked by `buildGame`). */
export const decodeTrainerAuditFile = (raw: unknown): E.Either<DpError, TrainerAuditFile> => {
  if (!isObject(raw)) return E.left(invalidParameter('$', raw, 'a trainer audit file is an object { game, claim, runs, seed }'))
  const g = raw.game
  if (!isObject(g)) return E.left(invalidParameter('$.game', g, 'expected { trainer, config, corpus, neighbour, view }'))
  let corpus: CorpusJson
  const c = g.corpus
  if (isObject(c) && isObject(c.synthetic)) {
    const s = syntheticCorpus(c.synthetic as unknown as SyntheticGameCorpus)
    if (E.isLeft(s)) return E.left({ ...s.left, path: s.left.path.replace(/^\$\.corpus/, '$.game.corpus') } as DpError)
    corpus = s.right
  } else if (isObject(c) && typeof c.dataset === 'string') {
    const s = datasetCorpus(c as unknown as DatasetGameCorpus)
    if (E.isLeft(s)) return s
    corpus = s.right
  } else if (isObject(c) && Array.isArray(c.vocab) && Array.isArray(c.documents)) corpus = c as unknown as CorpusJson
  else
    return E.left(
      invalidParameter(
        '$.game.corpus',
        c,
        'expected { vocab, documents, labels? }, { synthetic: { documents, vocabulary, topics, meanDocumentLength, unused?, seed } } or { dataset: "spam" | "brown", documents, vocabulary?, unused? }',
      ),
    )
  let neighbour = g.neighbour as Neighbour
  if (isObject(g.neighbour) && g.neighbour.kind === 'add-document' && g.neighbour.words === undefined) {
    const n = g.neighbour.canary
    if (!(Number.isInteger(n) && (n as number) >= 1)) return E.left(invalidParameter('$.game.neighbour.canary', n, 'the canary length: an integer ≥ 1 (or give words)'))
    const label = g.neighbour.label
    neighbour = { kind: 'add-document', words: canaryDocument(corpus, n as number), ...(typeof label === 'string' ? { label } : {}) }
  }
  if (raw.claim === undefined) return E.left(invalidParameter('$.claim', undefined, 'the claim to test, { epsilon, delta }'))
  if (raw.runs === undefined) return E.left(invalidParameter('$.runs', undefined, 'the number of training runs'))
  return E.right({
    ...(raw as unknown as TrainerAuditFile),
    seed: (raw.seed as string | number | undefined) ?? 'dpaudit',
    game: { ...(g as unknown as TrainerGameSpec), corpus, neighbour },
  })
}
