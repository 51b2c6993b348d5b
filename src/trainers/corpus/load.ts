/**
 * Resolves a corpus argument (`brown`, `spam`, or a path) to a train/test dataset:
 * - `brown` / `spam`: the built-in corpora with their shipped public vocabulary (data/vocabulary/:
 *   V = 5,000 / 10,000, the reference protocol's, docs/trainers.md § The reference protocol and figures);
 * - a directory in the reference protocol's layout (vocab.txt, docword.train.txt, docword.test.obs.txt,
 *   docword.test.ho.txt): used as is;
 * - a directory with docword.txt (+ vocab.txt) or a docword file (`docword.NAME.txt` with `vocab.NAME.txt`
 *   or `vocab.txt` beside it; a file not named `docword…` takes no vocabulary): read, then split;
 * - a `.jsonl` file (one `{"text": …, "label"?: …, "name"?: …}` per line) or a directory of
 *   text files: tokenized, top-V vocabulary, then split.
 *
 * @module
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, decodeFailure, formatError, invalidParameter } from '../../core/error.js'
import { loadBrownRaw, loadSpamRaw, shippedVocabulary } from './builtin.js'
import { documentCount, fromDocuments, validateCorpus } from './corpus.js'
import { type Dataset, datasetFromCorpus, datasetFromRaw, type RawDocument, type SplitOptions } from './dataset.js'
import { readBoundedText } from '../../core/read-file.js'
import { stopWords, tokenizeInto } from './text.js'
import { readUci } from './uci.js'

export const BUILTIN_CORPORA = ['brown', 'spam'] as const
export const DEFAULT_VOCABULARY = { brown: 5000, spam: 10000, text: 5000 } as const

export interface LoadOptions extends SplitOptions {
  /** V for raw-text corpora (default 5,000 for Brown and text, 10,000 for spam). */
  readonly vocabularySize?: number
}

/** JSON lines: one document per line, `{"text": string, "label"?: string, "name"?: string}`. */
export const readJsonLines = (file: string): E.Either<DpError, RawDocument[]> => {
  const stop = stopWords()
  const docs: RawDocument[] = []
  let err: DpError | undefined
  // bounded, regular, strict UTF-8 (issue 29: /dev/zero hung; Latin-1 bytes were cut silently)
  const text = readBoundedText(file)
  if (E.isLeft(text)) return E.left(invalidParameter('--corpus', file, text.left))
  try {
    err = eachLine(text.right, (line, no) => {
      if (line.trim().length === 0) return undefined
      let u: unknown
      try {
        u = JSON.parse(line)
      } catch (e) {
        return decodeFailure(`${file}:${no}`, line, `not valid JSON (${e instanceof Error ? e.message : String(e)})`)
      }
      if (typeof u !== 'object' || u === null || typeof (u as { text?: unknown }).text !== 'string')
        return decodeFailure(`${file}:${no}`, line, 'expected an object with a string "text"')
      const o = u as { text: string; label?: unknown; name?: unknown }
      docs.push({
        name: typeof o.name === 'string' ? o.name : String(docs.length + 1),
        label: typeof o.label === 'string' ? o.label : '',
        tokens: tokenizeInto(o.text, stop, [], 'unicode'),
      })
      return undefined
    })
  } catch (e) {
    return E.left(invalidParameter(file, file, `cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`))
  }
  return err !== undefined ? E.left(err) : E.right(docs)
}

const readTextFolder = (dir: string): E.Either<DpError, RawDocument[]> => {
  const stop = stopWords()
  const docs: RawDocument[] = []
  for (const name of readdirSync(dir)
    .filter((f) => !f.startsWith('.') && statSync(join(dir, f)).isFile())
    .sort()) {
    const text = readBoundedText(join(dir, name))
    if (E.isLeft(text)) return E.left(invalidParameter('--corpus', join(dir, name), text.left))
    docs.push({ name, label: '', tokens: tokenizeInto(text.right, stop, [], 'unicode') })
  }
  return E.right(docs)
}

/** The lines of a text with their 1-based numbers; stops at the first non-undefined result. */
const eachLine = <R>(text: string, onLine: (line: string, no: number) => R | undefined): R | undefined => {
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string
    const r = onLine(l.endsWith('\r') ? l.slice(0, -1) : l, i + 1)
    if (r !== undefined) return r
  }
  return undefined
}

/** A dataset from a directory in the reference protocol's file layout (already split). */
const readEvalLayout = (dir: string): E.Either<DpError, Dataset> => {
  const vocabFile = join(dir, 'vocab.txt')
  const train = readUci(join(dir, 'docword.train.txt'), { vocabFile })
  if (E.isLeft(train)) return train
  const obs = readUci(join(dir, 'docword.test.obs.txt'), { vocabFile, allowEmptyDocuments: true })
  if (E.isLeft(obs)) return obs
  const ho = readUci(join(dir, 'docword.test.ho.txt'), { vocabFile, allowEmptyDocuments: true })
  if (E.isLeft(ho)) return ho
  const D = documentCount(obs.right)
  if (documentCount(ho.right) !== D) return E.left(invalidParameter(join(dir, 'docword.test.ho.txt'), documentCount(ho.right), `expected ${D} test documents as in docword.test.obs.txt`))
  const full = Array.from({ length: D }, (_, d) => {
    const o = obs.right.tokens.subarray(obs.right.docStart[d] as number, obs.right.docStart[d + 1] as number)
    const h = ho.right.tokens.subarray(ho.right.docStart[d] as number, ho.right.docStart[d + 1] as number)
    const a = new Int32Array(o.length + h.length)
    a.set(o)
    a.set(h, o.length)
    return a
  })
  const test = validateCorpus(fromDocuments(train.right.vocab, full), join(dir, 'docword.test.txt'))
  if (E.isLeft(test)) return test
  return E.right({ name: dir, train: train.right, test: test.right, testObserved: obs.right, testHeldOut: ho.right, vocabularySource: { kind: 'corpus-files' } })
}

/**
 * A public vocabulary file: one word per line (blank lines and surrounding spaces ignored,
 * duplicates kept once). A missing, unreadable or empty file is an error naming it.
 */
export const readVocabularyFile = (file: string): E.Either<DpError, { readonly words: ReadonlyArray<string>; readonly file: string }> => {
  if (!existsSync(file)) return E.left(invalidParameter('--vocabulary', file, 'cannot read the vocabulary file (ENOENT)'))
  const read = readBoundedText(file)
  if (E.isLeft(read)) return E.left(invalidParameter('--vocabulary', file, `cannot read the vocabulary file: ${read.left}`))
  const text = read.right
  const words = [...new Set(text.split(/\r?\n/).map((w) => w.trim()).filter((w) => w.length > 0))]
  if (words.length === 0) return E.left(invalidParameter('--vocabulary', file, 'the vocabulary file holds no word'))
  return E.right({ words, file })
}

const UCI_VOCABULARY = 'a UCI corpus carries its own vocab.txt; --vocabulary applies to text corpora (brown, spam, .jsonl, a folder of text files)'

/** Loads `brown`, `spam`, or a path, as described in the module comment; the dataset says which tokenizer made its words. */
export const loadDataset = (source: string, options: LoadOptions = {}): E.Either<DpError, Dataset> => {
  const r = loadUntagged(source, options)
  if (E.isLeft(r)) return r
  const builtin = source === 'brown' || source === 'spam'
  const text = builtin || /\.jsonl?$/.test(source) || (existsSync(source) && statSync(source).isDirectory() && r.right.vocabularySource.kind !== 'corpus-files')
  return E.right({ ...r.right, tokenizer: builtin ? 'ascii' : text ? 'unicode' : 'none' })
}

const loadUntagged = (source: string, options: LoadOptions): E.Either<DpError, Dataset> => {
  if (source === 'brown' || source === 'spam') {
    const raw = source === 'brown' ? loadBrownRaw() : loadSpamRaw()
    if (E.isLeft(raw)) return raw
    // default: the shipped public list (a fixed file, the reference protocol's vocabulary); a vocabulary
    // chosen from these documents only when asked for (`vocabularyFrom`)
    if (options.vocabulary === undefined && options.vocabularyFrom === undefined && options.select === undefined) {
      const shipped = shippedVocabulary(source, options.vocabularySize)
      if (E.isLeft(shipped)) return shipped
      return datasetFromRaw(source, raw.right, shipped.right.words.length, { ...options, vocabulary: shipped.right })
    }
    return datasetFromRaw(source, raw.right, options.vocabularySize ?? DEFAULT_VOCABULARY[source], options)
  }
  if (!existsSync(source)) return E.left(invalidParameter('--corpus', source, 'expected brown, spam, or an existing file or directory'))
  const kind = statSync(source)
  if (!kind.isDirectory() && !kind.isFile()) return E.left(invalidParameter('--corpus', source, 'not a regular file or a directory (a device, FIFO or socket is never read)'))
  if (statSync(source).isDirectory()) {
    const uci = existsSync(join(source, 'docword.train.txt')) || existsSync(join(source, 'docword.txt'))
    if (uci && options.vocabulary !== undefined) return E.left(invalidParameter('--vocabulary', options.vocabulary.file, UCI_VOCABULARY))
    if (uci && options.select !== undefined) return E.left(invalidParameter('--vocabulary', 'dp', UCI_VOCABULARY))
    if (existsSync(join(source, 'docword.train.txt')) && existsSync(join(source, 'docword.test.obs.txt'))) return readEvalLayout(source)
    if (existsSync(join(source, 'docword.txt'))) {
      const vocabFile = join(source, 'vocab.txt')
      const c = readUci(join(source, 'docword.txt'), existsSync(vocabFile) ? { vocabFile } : {})
      return E.isLeft(c) ? c : datasetFromCorpus(source, c.right, options)
    }
    const folder = readTextFolder(source)
    if (E.isLeft(folder)) return folder
    const raw = folder.right
    if (raw.length === 0) return E.left(invalidParameter('--corpus', source, 'the directory holds no documents'))
    return datasetFromRaw(source, raw, options.vocabularySize ?? DEFAULT_VOCABULARY.text, options)
  }
  if (/\.jsonl?$/.test(source)) {
    const raw = readJsonLines(source)
    if (E.isLeft(raw)) return raw
    if (raw.right.length === 0) return E.left(invalidParameter('--corpus', source, 'the file holds no documents (empty corpus)'))
    return datasetFromRaw(source, raw.right, options.vocabularySize ?? DEFAULT_VOCABULARY.text, options)
  }
  if (options.vocabulary !== undefined) return E.left(invalidParameter('--vocabulary', options.vocabulary.file, UCI_VOCABULARY))
  if (options.select !== undefined) return E.left(invalidParameter('--vocabulary', 'dp', UCI_VOCABULARY))
  const vocabFile = companionVocabulary(source)
  const c = readUci(source, vocabFile === undefined ? {} : { vocabFile })
  if (E.isLeft(c) && vocabFile !== undefined && mentions(c.left, vocabFile))
    // the vocabulary was not named by the user: say where it came from, and that it may not belong
    return E.left({ ...c.left, message: `${c.left.message}; ${vocabFile} was read as the vocabulary of ${source} because it lies beside it (UCI layout) — if it belongs to another corpus, move it away` })
  return E.isLeft(c) ? c : datasetFromCorpus(source, c.right, options)
}

/**
 * The vocabulary a lone UCI docword file is read with, by the UCI archive's naming: `docword.NAME.txt`
 * goes with `vocab.NAME.txt` (else `vocab.txt`) in its folder; a file not named `docword…` takes none
 * (words w1…wW), so an unrelated vocab.txt beside some other file is never picked up.
 */
const companionVocabulary = (docword: string): string | undefined => {
  const m = /^docword(\..+)?\.txt$/.exec(basename(docword))
  if (m === null) return undefined
  const candidates = [...(m[1] === undefined ? [] : [`vocab${m[1]}.txt`]), 'vocab.txt'].map((f) => join(dirname(docword), f))
  return candidates.find((f) => existsSync(f))
}

/** Whether an error is about `file` (its path) or blames it (its message). */
const mentions = (e: DpError, file: string): boolean => formatError(e).includes(file)
