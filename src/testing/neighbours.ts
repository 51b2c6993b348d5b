/**
 * Neighbouring text corpora for neighbour-differential tests (./neighbour-differential.ts), over a
 * plain public representation: a corpus is a list of documents, each a name and its words, written
 * as JSON lines (`{"text": "...", "name": "..."}` per line) that `dpaudit train --corpus FILE.jsonl`
 * reads. The tokenizer (src/trainers/corpus/text.ts) keeps lowercase runs of at least 3 letters
 * that are not English stop words, so the words here are made-up letter strings (`alpha`, `bravo`,
 * …) that pass through it unchanged: a document's words are exactly its tokens.
 *
 * Each builder returns a `NeighbourPair` (the input, its neighbour and a label) that differs in one
 * unit of a relation:
 * - replace one word: `replaceToken`, with a word of the vocabulary (`replaceWithVocabularyWord`)
 *   or a word seen nowhere else in the corpus (`replaceWithUnseenWord`);
 * - replace one document: `replaceDocument`, e.g. by a longer one (`replaceWithLongerDocument`);
 * - add/remove one document: `addDocument`, `removeDocument`.
 * `splitIndices` and `priorSplitIndices` say which raw documents the reference split holds out for
 * testing and which of the training documents OLP-LDA's fraction prior would take, so a test can
 * aim a change at a test document or at a prior document.
 *
 * @module
 */
import { writeFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import type { NeighbourPair } from '../attacks/pairs.js'
import { seeded } from '../core/rng.js'
import { SPLIT_SEED, testMask } from '../trainers/corpus/dataset.js'
import { numpyPermutation } from '../trainers/corpus/mt19937.js'
import { PRIOR_SPLIT_SEED } from '../trainers/olp/olp-lda.js'

/** One document: a name (written to the file, so error messages can name it) and its words in reading order. */
export interface TextDocument {
  readonly name: string
  readonly words: ReadonlyArray<string>
}

export type TextCorpus = ReadonlyArray<TextDocument>

/** 26 made-up words that survive the tokenizer as they are (letters only, ≥ 3 letters, no stop word). */
export const MADE_UP_WORDS: ReadonlyArray<string> = [
  'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike',
  'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey', 'xray', 'yankee', 'zulu',
]

export interface SyntheticTextOptions {
  /** Documents (default 40). */
  readonly documents?: number
  /** Words per document (default 30). */
  readonly length?: number
  /** Distinct words, the first of MADE_UP_WORDS (default 20, at most 26). */
  readonly vocabulary?: number
  /** Clusters of words the documents lean towards (default 3), so a topic model has something to find. */
  readonly clusters?: number
  /** Seed of the (public, reproducible) generator (default 'neighbours'). */
  readonly seed?: string | number
}

/**
 * A small corpus with topic structure: document d leans towards word cluster d mod C (80 % of its
 * words from the cluster, the rest from the whole vocabulary). Every word of the vocabulary occurs.
 */
export const syntheticTextCorpus = (options: SyntheticTextOptions = {}): { readonly corpus: TextCorpus; readonly vocabulary: ReadonlyArray<string> } => {
  const D = options.documents ?? 40
  const L = options.length ?? 30
  const V = options.vocabulary ?? 20
  const C = options.clusters ?? 3
  if (!(Number.isInteger(V) && V >= C && V <= MADE_UP_WORDS.length)) throw new RangeError(`vocabulary must be an integer in [${C}, ${MADE_UP_WORDS.length}], got ${V}`)
  const vocabulary = MADE_UP_WORDS.slice(0, V)
  const rng = seeded(`neighbours:${options.seed ?? 'neighbours'}`)
  const pick = (n: number): number => Math.min(n - 1, Math.floor(rng.next() * n))
  const corpus = Array.from({ length: D }, (_, d) => {
    const cluster = vocabulary.filter((_, w) => w % C === d % C)
    const words = Array.from({ length: L }, (_, i) =>
      // the first V words of the first documents cycle through the vocabulary, so every word occurs
      d * L + i < V ? (vocabulary[d * L + i] as string) : rng.next() < 0.8 ? (cluster[pick(cluster.length)] as string) : (vocabulary[pick(V)] as string),
    )
    return { name: `doc-${String(d + 1).padStart(3, '0')}`, words }
  })
  return { corpus, vocabulary }
}

/** The corpus as JSON lines, one `{"text", "name"}` object per document. */
export const toJsonLines = (corpus: TextCorpus): string => corpus.map((d) => `${JSON.stringify({ text: d.words.join(' '), name: d.name })}\n`).join('')

/** Writes `toJsonLines(corpus)` to `file` (a `.jsonl` name makes `dpaudit train --corpus` read it as JSON lines). */
export const writeJsonLines = (file: string, corpus: TextCorpus): void => writeFileSync(file, toJsonLines(corpus))

/** A public vocabulary file's text: one word per line, in code-unit order. */
export const vocabularyFileText = (words: ReadonlyArray<string>): string => `${[...new Set(words)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join('\n')}\n`

const withDocument = (corpus: TextCorpus, index: number, doc: TextDocument): TextCorpus => corpus.map((d, i) => (i === index ? doc : d))

const checkIndex = (corpus: TextCorpus, document: number): TextDocument => {
  const doc = corpus[document]
  if (doc === undefined) throw new RangeError(`document ${document} is not in the corpus (${corpus.length} documents)`)
  return doc
}

/** Replace one word: the token at `position` of `document` becomes `word`. */
export const replaceToken = (corpus: TextCorpus, document: number, position: number, word: string, label?: string): NeighbourPair<TextCorpus> => {
  const doc = checkIndex(corpus, document)
  if (!(Number.isInteger(position) && position >= 0 && position < doc.words.length)) throw new RangeError(`position ${position} is not in document ${document} (${doc.words.length} words)`)
  if (doc.words[position] === word) throw new RangeError(`the token at ${document}:${position} is already "${word}": the corpora would be identical`)
  return {
    input: corpus,
    neighbour: withDocument(corpus, document, { name: doc.name, words: doc.words.map((w, i) => (i === position ? word : w)) }),
    label: label ?? `replace word ${document}:${position} "${doc.words[position]}" → "${word}"`,
  }
}

/** Replace one word by another word of `vocabulary` (the first that differs from it). */
export const replaceWithVocabularyWord = (corpus: TextCorpus, vocabulary: ReadonlyArray<string>, document: number, position = 0): NeighbourPair<TextCorpus> => {
  const old = checkIndex(corpus, document).words[position]
  const word = vocabulary.find((w) => w !== old)
  if (word === undefined) throw new RangeError('the vocabulary has no other word')
  return replaceToken(corpus, document, position, word, `replace a word by a vocabulary word (${document}:${position} "${old}" → "${word}")`)
}

/** A letters-only word (≥ 3 letters, no stop word) that occurs nowhere in `corpus`. */
export const unseenWord = (corpus: TextCorpus): string => {
  const seen = new Set(corpus.flatMap((d) => d.words))
  for (let i = 0; ; i++) {
    // base-26 letters after a fixed stem: 'zzunseen', 'zzunseena', …
    let suffix = ''
    for (let n = i; n > 0; n = Math.floor((n - 1) / 26)) suffix = String.fromCharCode(97 + ((n - 1) % 26)) + suffix
    const w = `zzunseen${suffix}`
    if (!seen.has(w)) return w
  }
}

/** Replace one word by a word seen nowhere else in the corpus (out of any vocabulary drawn from it). */
export const replaceWithUnseenWord = (corpus: TextCorpus, document: number, position = 0): NeighbourPair<TextCorpus> => {
  const word = unseenWord(corpus)
  return replaceToken(corpus, document, position, word, `replace a word by an unseen word (${document}:${position} "${checkIndex(corpus, document).words[position]}" → "${word}")`)
}

/** Replace one document by `words` (same name: only the content changes). */
export const replaceDocument = (corpus: TextCorpus, document: number, words: ReadonlyArray<string>, label?: string): NeighbourPair<TextCorpus> => {
  const doc = checkIndex(corpus, document)
  return { input: corpus, neighbour: withDocument(corpus, document, { name: doc.name, words }), label: label ?? `replace document ${document} (${doc.words.length} → ${words.length} words)` }
}

/** Replace one document by a longer one: `factor` times its length, cycling through `vocabulary` (default factor 3). */
export const replaceWithLongerDocument = (corpus: TextCorpus, vocabulary: ReadonlyArray<string>, document: number, factor = 3): NeighbourPair<TextCorpus> => {
  const n = checkIndex(corpus, document).words.length * factor
  const words = Array.from({ length: n }, (_, i) => vocabulary[(i * 7) % vocabulary.length] as string)
  return replaceDocument(corpus, document, words, `replace document ${document} by a ${factor}× longer one`)
}

/** Add one document (at the end): the pair is (corpus, corpus + doc). */
export const addDocument = (corpus: TextCorpus, doc: TextDocument): NeighbourPair<TextCorpus> => ({ input: corpus, neighbour: [...corpus, doc], label: `add document "${doc.name}" (${doc.words.length} words)` })

/** Remove one document: the pair is (corpus, corpus without document `index`). */
export const removeDocument = (corpus: TextCorpus, index: number): NeighbourPair<TextCorpus> => {
  const doc = checkIndex(corpus, index)
  return { input: corpus, neighbour: corpus.filter((_, i) => i !== index), label: `remove document ${index} ("${doc.name}")` }
}

export interface SplitIndices {
  /** Raw indices of the documents held out for testing. */
  readonly test: ReadonlyArray<number>
  /** Raw indices of the training documents, in corpus order. */
  readonly train: ReadonlyArray<number>
}

/**
 * Which raw documents the train/test split of `dpaudit train` holds out (src/trainers/corpus/
 * dataset.ts `testMask`: the first round(f·D) of numpy's permutation with seed 20240601, f = 0.1 by
 * default). Ignores the later drop of documents with fewer than 2 vocabulary words.
 */
export const splitIndices = (documents: number, options: { readonly seed?: number; readonly testFraction?: number } = {}): SplitIndices => {
  const mask = testMask(documents, { seed: options.seed ?? SPLIT_SEED, testFraction: options.testFraction ?? 0.1 })
  if (E.isLeft(mask)) throw new RangeError(`cannot split ${documents} documents: ${JSON.stringify(mask.left)}`)
  const all = Array.from({ length: documents }, (_, i) => i)
  return { test: all.filter((i) => mask.right[i] === 1), train: all.filter((i) => mask.right[i] === 0) }
}

/**
 * The raw indices of the documents OLP-LDA's `--prior FRACTION` would take as its "public" prior
 * D0: the first ⌊fraction·D⌋ of the fixed permutation (seed PRIOR_SPLIT_SEED) of the training
 * documents `train` (raw indices in corpus order, e.g. `splitIndices(n).train`).
 */
export const priorSplitIndices = (train: ReadonlyArray<number>, fraction: number): ReadonlyArray<number> => {
  const perm = numpyPermutation(PRIOR_SPLIT_SEED, train.length)
  return Array.from(perm.subarray(0, Math.floor(fraction * train.length)), (i) => train[i] as number)
}
