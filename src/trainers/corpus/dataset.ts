/**
 * A train/test dataset for LDA evaluation (docs/trainers.md § The reference protocol and figures, steps 3–6): the split is made on the
 * raw document list with numpy's `RandomState(seed).permutation` (reproduced bit for bit, so
 * seed 20240601 gives the reference test sets), the first round(0.1·D) permuted indices being
 * test; the vocabulary is the V most frequent words of the TRAINING documents (the test documents
 * never shape what the trainer sees), or of all documents with `vocabularyFrom: 'all-documents'`
 * (docs/trainers.md § The reference protocol and figures, step 4: the protocol of the reference counts and figures), or a public word
 * list given by the user; documents with fewer than 2 in-vocabulary tokens are dropped
 * (with a user's word list, a document left with no token at all is an error, naming it); each test document is split in reading order into an
 * observed first ⌊n/2⌋ tokens and a held-out remaining ⌈n/2⌉ (document completion).
 *
 * With `split: false` nothing is held out: every document is a training document and the test
 * part is empty. That is how a corpus that is only trained on is read (OLP-LDA's public prior
 * corpus D0): one document is then enough, where a split needs two.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import type { VocabularySource } from '../assumptions.js'
import { type Corpus, documentCount, fromDocuments, validateCorpus } from './corpus.js'
import { numpyPermutation } from './mt19937.js'
import { type Tokenizer, topVocabulary } from './text.js'

/** A tokenized raw document, before the vocabulary cut. */
export interface RawDocument {
  readonly name: string
  readonly label: string
  readonly tokens: ReadonlyArray<string>
}

export interface Dataset {
  readonly name: string
  readonly train: Corpus
  /** The whole test documents (observed half followed by held-out half). */
  readonly test: Corpus
  readonly testObserved: Corpus
  readonly testHeldOut: Corpus
  /** How the vocabulary was chosen (for the privacy statement's assumptions). */
  readonly vocabularySource: VocabularySource
  /** How raw text became words (text.ts): `ascii` for the built-in corpora, `unicode` for user text, `none` for bag-of-words files. */
  readonly tokenizer?: Tokenizer | 'none'
}

/** The split seed of the reference protocol (docs/trainers.md § The reference protocol and figures). */
export const SPLIT_SEED = 20240601

export interface SplitOptions {
  /** numpy RandomState seed of the permutation (default 20240601). */
  readonly seed?: number
  /** Fraction of documents held out (default 0.1). */
  readonly testFraction?: number
  /** Drop documents with fewer in-vocabulary tokens than this (default 2). */
  readonly minTokens?: number
  /**
   * Whose words choose the top-V vocabulary: the training documents (default) or all documents,
   * test included (the reference protocol of docs/trainers.md, for comparisons with its figures).
   */
  readonly vocabularyFrom?: 'training' | 'all-documents'
  /** A public word list to use as the vocabulary (instead of the top-V words of the training documents). */
  readonly vocabulary?: { readonly words: ReadonlyArray<string>; readonly file: string }
  /** False: no test documents, every document is kept for training (a corpus that is only trained on). Default true. */
  readonly split?: boolean
  /**
   * Chooses the vocabulary from the training documents' tokens through a release (a differentially
   * private selection run through a release gate by the caller); the words come back in a
   * data-independent order, with the source to state.
   */
  readonly select?: (training: ReadonlyArray<ReadonlyArray<string>>) => E.Either<DpError, { readonly words: ReadonlyArray<string>; readonly source: VocabularySource }>
}

/** Python 3 `round` (half to even), as the reference protocol's round(0.1·D). */
export const pythonRound = (x: number): number => {
  const f = Math.floor(x)
  const r = x - f
  return r > 0.5 ? f + 1 : r < 0.5 ? f : f % 2 === 0 ? f : f + 1
}

/** The test indicator of the raw documents: the first round(f·D) of the numpy permutation. */
export const testMask = (documents: number, options: SplitOptions = {}): E.Either<DpError, Uint8Array> => {
  if (options.split === false) return E.right(new Uint8Array(documents))
  const seed = options.seed ?? SPLIT_SEED
  const f = options.testFraction ?? 0.1
  if (!(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32)) return E.left(invalidParameter('split.seed', seed, 'the split seed must be an integer in [0, 2^32)'))
  if (!(f > 0 && f < 1)) return E.left(invalidParameter('split.testFraction', f, 'the test fraction must be in (0, 1)'))
  const perm = numpyPermutation(seed, documents)
  const mask = new Uint8Array(documents)
  const nTest = pythonRound(f * documents)
  for (let i = 0; i < nTest; i++) mask[perm[i] as number] = 1
  return E.right(mask)
}

/** Splits each test document in reading order: first ⌊n/2⌋ tokens observed, the rest held out. */
export const completionHalves = (test: Corpus): { readonly observed: Corpus; readonly heldOut: Corpus } => {
  const obs: Int32Array[] = []
  const ho: Int32Array[] = []
  for (let d = 0; d < documentCount(test); d++) {
    const a = test.docStart[d] as number
    const b = test.docStart[d + 1] as number
    const h = a + Math.floor((b - a) / 2)
    obs.push(test.tokens.subarray(a, h))
    ho.push(test.tokens.subarray(h, b))
  }
  return {
    observed: fromDocuments(test.vocab, obs, test.names, test.labels),
    heldOut: fromDocuments(test.vocab, ho, test.names, test.labels),
  }
}

const assemble = (
  name: string,
  vocab: ReadonlyArray<string>,
  docs: ReadonlyArray<{ name: string; label: string; ids: Int32Array; test: boolean }>,
  minTokens: number,
  vocabularySource: VocabularySource,
  split: boolean,
): E.Either<DpError, Dataset> => {
  const kept = docs.filter((d) => d.ids.length >= minTokens)
  const part = (test: boolean): Corpus => {
    const ds = kept.filter((d) => d.test === test)
    return fromDocuments(vocab, ds.map((d) => d.ids), ds.map((d) => d.name), ds.map((d) => d.label))
  }
  if (!kept.some((d) => !d.test))
    return E.left(invalidParameter(name, docs.length, `no training document has at least ${minTokens} words of the vocabulary (documents with fewer are dropped)`))
  const train = validateCorpus(part(false), `${name} (training documents)`)
  if (E.isLeft(train)) return train
  // a small corpus can hold out no usable document (round(10 %) of 4 documents is 0): say so, not "no documents"
  if (split && !kept.some((d) => d.test))
    return E.left(
      invalidParameter(
        name,
        docs.length,
        `the train/test split held out no document with at least ${minTokens} words of the vocabulary (${docs.filter((d) => d.test).length} of the ${docs.length} documents were held out for the held-out perplexity); give more documents — a run that is a private release holds none out`,
      ),
    )
  const test = split ? validateCorpus(part(true), `${name} (test documents)`) : E.right(part(true))
  if (E.isLeft(test)) return test
  const { observed, heldOut } = completionHalves(test.right)
  return E.right({ name, train: train.right, test: test.right, testObserved: observed, testHeldOut: heldOut, vocabularySource })
}

/** A split needs a training and a test document; a corpus read without one (`split: false`) needs one document. */
const documentsNeeded = (name: string, documents: number, options: SplitOptions): E.Either<DpError, never> | undefined => {
  if (options.split === false)
    return documents < 1 ? E.left(invalidParameter(name, documents, 'the corpus has no documents (at least one is needed)')) : undefined
  return documents < 2 ? E.left(invalidParameter(name, documents, 'at least two documents are needed for a train/test split')) : undefined
}

/** Raw tokenized documents → dataset with a V-word vocabulary (docs/trainers.md § The reference protocol and figures, steps 3–6). */
export const datasetFromRaw = (
  name: string,
  raw: ReadonlyArray<RawDocument>,
  vocabularySize: number,
  options: SplitOptions = {},
): E.Either<DpError, Dataset> => {
  const tooFew = documentsNeeded(name, raw.length, options)
  if (tooFew !== undefined) return tooFew
  if (!(Number.isInteger(vocabularySize) && vocabularySize >= 1))
    return E.left(invalidParameter('vocabularySize', vocabularySize, 'the vocabulary size must be a positive integer'))
  const mask = testMask(raw.length, options)
  if (E.isLeft(mask)) return mask
  const given = options.vocabulary
  const all = options.vocabularyFrom === 'all-documents'
  const selected = given === undefined && options.select !== undefined ? options.select(raw.filter((_, i) => mask.right[i] === 0).map((d) => d.tokens)) : undefined
  if (selected !== undefined && E.isLeft(selected)) return selected
  const vocab = given?.words ?? selected?.right.words ?? topVocabulary(raw.filter((_, i) => all || mask.right[i] === 0).map((d) => d.tokens), vocabularySize)
  const index = new Map(vocab.map((w, i) => [w, i]))
  const docs = raw.map((d, i) => {
    const ids: number[] = []
    for (const w of d.tokens) {
      const id = index.get(w)
      if (id !== undefined) ids.push(id)
    }
    return { name: d.name, label: d.label, ids: Int32Array.from(ids), test: mask.right[i] === 1 }
  })
  // A document left with too few words of the vocabulary is dropped, whatever the vocabulary's source, and
  // nothing says which: an error naming it would publish a fact about one document (issue 22, item 7).
  const source: VocabularySource =
    given !== undefined
      ? { kind: 'public-file', file: given.file }
      : selected !== undefined
        ? selected.right.source
        : { kind: all ? 'all-documents' : 'training-data', size: vocab.length }
  // a vocabulary chosen from the data is written in a data-independent order (code-unit order), so the
  // list does not rank the words by their private frequencies; a public list keeps its own order
  const written = given !== undefined ? vocab : [...vocab].sort()
  if (written !== vocab) {
    const remap = new Map(written.map((w, i) => [w, i]))
    const perm = Int32Array.from(vocab, (w) => remap.get(w) as number)
    for (const d of docs) for (let i = 0; i < d.ids.length; i++) d.ids[i] = perm[d.ids[i] as number] as number
  }
  return assemble(name, written, docs, options.minTokens ?? 2, source, options.split !== false)
}

/** A bag-of-words corpus (e.g. read from UCI files) → dataset, split as `datasetFromRaw`. */
export const datasetFromCorpus = (name: string, corpus: Corpus, options: SplitOptions = {}): E.Either<DpError, Dataset> => {
  const D = documentCount(corpus)
  const tooFew = documentsNeeded(name, D, options)
  if (tooFew !== undefined) return tooFew
  const mask = testMask(D, options)
  if (E.isLeft(mask)) return mask
  const docs = Array.from({ length: D }, (_, d) => ({
    name: corpus.names[d] ?? String(d + 1),
    label: corpus.labels[d] ?? '',
    ids: corpus.tokens.slice(corpus.docStart[d] as number, corpus.docStart[d + 1] as number),
    test: mask.right[d] === 1,
  }))
  return assemble(name, corpus.vocab, docs, options.minTokens ?? 2, { kind: 'corpus-files' }, options.split !== false)
}
