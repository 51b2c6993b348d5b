/**
 * The bag-of-words corpus every trainer reads: documents as runs of word ids in one flat
 * typed array (reading order kept, so document completion can split a document in halves),
 * with the vocabulary and a label per document (Brown genre, ham/spam) for membership audits.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'

declare const declaredPublic: unique symbol

/**
 * A corpus the user declared public (OLP-LDA's `--prior PATH`, an evaluation corpus): the only corpus
 * a no-cost measurement (`postProcessing` in ../release/post-processing.ts) may take as its input. The
 * brand exists only in the types; `declarePublic` is the one place that grants it, so a private
 * corpus reaching a no-cost step is a compile error, not a review finding (issue 22, item 7).
 */
export type PublicCorpus = Corpus & { readonly [declaredPublic]: 'declared public by the user' }

/** Marks a corpus as public: call it only on data the user declared public (a flag naming a public file). */
export const declarePublic = (c: Corpus): PublicCorpus => c as PublicCorpus

export interface Corpus {
  /** Word i of the vocabulary. */
  readonly vocab: ReadonlyArray<string>
  /** Document d holds tokens[docStart[d] .. docStart[d+1]); length D + 1. */
  readonly docStart: Int32Array
  /** Word ids in [0, V), document by document. */
  readonly tokens: Int32Array
  /** Document names (file names, or 1-based ids for UCI input). */
  readonly names: ReadonlyArray<string>
  /** Document labels (genre, "ham"/"spam", or "" when unknown). */
  readonly labels: ReadonlyArray<string>
}

/** What a trainer's privacy plan may depend on: public sizes, not contents. */
export interface CorpusStats {
  readonly documents: number
  readonly vocabulary: number
  readonly tokens: number
  readonly maxDocumentLength: number
}

export const documentCount = (c: Corpus): number => c.docStart.length - 1

export const corpusStats = (c: Corpus): CorpusStats => {
  let max = 0
  for (let d = 0; d < documentCount(c); d++) max = Math.max(max, (c.docStart[d + 1] as number) - (c.docStart[d] as number))
  return { documents: documentCount(c), vocabulary: c.vocab.length, tokens: c.tokens.length, maxDocumentLength: max }
}

/**
 * Checks the invariants every trainer relies on: at least one document, none empty, word ids
 * in range. `source` names the input in the error (a file, "brown", …).
 */
export const validateCorpus = (c: Corpus, source = 'corpus'): E.Either<DpError, Corpus> => {
  const D = documentCount(c)
  const V = c.vocab.length
  if (D < 1) return E.left(invalidParameter(source, D, 'the corpus has no documents'))
  if (V < 1) return E.left(invalidParameter(source, V, 'the vocabulary is empty'))
  if (c.names.length !== D || c.labels.length !== D)
    return E.left(invalidParameter(source, c.names.length, `expected ${D} document names and labels`))
  if (c.docStart[0] !== 0 || c.docStart[D] !== c.tokens.length)
    return E.left(invalidParameter(`${source}.docStart`, c.docStart[D], 'document offsets do not cover the tokens'))
  for (let d = 0; d < D; d++)
    if ((c.docStart[d + 1] as number) <= (c.docStart[d] as number))
      return E.left(invalidParameter(`${source}: document ${c.names[d] ?? d + 1}`, 0, 'empty document (no in-vocabulary tokens)'))
  for (let i = 0; i < c.tokens.length; i++) {
    const w = c.tokens[i] as number
    if (!(w >= 0 && w < V)) return E.left(invalidParameter(`${source}.tokens[${i}]`, w, `word id out of range [0, ${V})`))
  }
  return E.right(c)
}

/** Builds a corpus from per-document word-id arrays (no validation; see `validateCorpus`). */
export const fromDocuments = (
  vocab: ReadonlyArray<string>,
  docs: ReadonlyArray<ArrayLike<number>>,
  names?: ReadonlyArray<string>,
  labels?: ReadonlyArray<string>,
): Corpus => {
  const docStart = new Int32Array(docs.length + 1)
  let n = 0
  docs.forEach((d, i) => {
    n += d.length
    docStart[i + 1] = n
  })
  const tokens = new Int32Array(n)
  docs.forEach((d, i) => tokens.set(d, docStart[i] as number))
  return {
    vocab,
    docStart,
    tokens,
    names: names ?? docs.map((_, i) => String(i + 1)),
    labels: labels ?? docs.map(() => ''),
  }
}

/** The sub-corpus of the given documents, in the given order. */
export const selectDocuments = (c: Corpus, ids: ArrayLike<number>): Corpus => {
  const docs: Int32Array[] = []
  const names: string[] = []
  const labels: string[] = []
  for (let i = 0; i < ids.length; i++) {
    const d = ids[i] as number
    docs.push(c.tokens.subarray(c.docStart[d] as number, c.docStart[d + 1] as number))
    names.push(c.names[d] ?? String(d + 1))
    labels.push(c.labels[d] ?? '')
  }
  return fromDocuments(c.vocab, docs, names, labels)
}

/** Number of distinct (document, word) pairs: the NNZ of the UCI file. */
export const nonZeros = (c: Corpus): number => {
  const seen = new Int32Array(c.vocab.length).fill(-1)
  let nnz = 0
  for (let d = 0; d < documentCount(c); d++)
    for (let i = c.docStart[d] as number; i < (c.docStart[d + 1] as number); i++) {
      const w = c.tokens[i] as number
      if (seen[w] !== d) {
        seen[w] = d
        nnz++
      }
    }
  return nnz
}
