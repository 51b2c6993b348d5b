/**
 * The UCI bag-of-words format (archive.ics.uci.edu "Bag of Words"): docword.txt holds three
 * header lines D, W, NNZ, then NNZ lines `docID wordID count` (1-based); vocab.txt holds word i
 * on line i. Reading streams the file; every parse error names the file and line. Writing
 * sorts by document then word (as the reference protocol's files) and is atomic (temp file + rename).
 * Tokens are expanded in file order, so within a document they are grouped by word.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, decodeFailure, invalidParameter } from '../../core/error.js'
import { writeFileAtomic } from '../io.js'
import { type Corpus, documentCount, validateCorpus } from './corpus.js'
import { forEachLine } from './lines.js'

const INT = /^\s*(\d+)\s*$/
const TRIPLE = /^\s*(\d+)\s+(\d+)\s+(\d+)\s*$/

export interface ReadUciOptions {
  /** vocab.txt; without it words are named w1..wW. */
  readonly vocabFile?: string
  /** Keep documents with no tokens instead of rejecting the file (default false). */
  readonly allowEmptyDocuments?: boolean
}

const fail = (file: string, line: number, value: unknown, message: string): DpError =>
  decodeFailure(`${file}:${line}`, value, message)

/** Reads vocab.txt: one word per line (trailing empty line ignored). */
export const readVocab = (file: string): E.Either<DpError, string[]> => {
  const words: string[] = []
  try {
    const err = forEachLine(file, (line, no) => {
      const w = line.trim()
      if (w.length === 0) return no === 1 ? fail(file, no, line, 'empty word in vocabulary') : undefined
      if (/\s/.test(w)) return fail(file, no, line, 'a vocabulary line must hold one word')
      words.push(w)
      return undefined
    })
    if (err !== undefined) return E.left(err)
  } catch (e) {
    return E.left(invalidParameter(file, file, `cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`))
  }
  return E.right(words)
}

/** Reads docword.txt (and optionally vocab.txt) into a corpus. */
export const readUci = (docwordFile: string, options: ReadUciOptions = {}): E.Either<DpError, Corpus> => {
  let vocab: string[] | undefined
  if (options.vocabFile !== undefined) {
    const v = readVocab(options.vocabFile)
    if (E.isLeft(v)) return v
    vocab = v.right
  }
  const header: number[] = []
  let docIds = new Int32Array(0)
  let wordIds = new Int32Array(0)
  let counts = new Int32Array(0)
  let entries = 0
  let result: DpError | undefined
  try {
    result = forEachLine(docwordFile, (line, no) => {
      if (header.length < 3) {
        const m = INT.exec(line)
        const name = ['D (number of documents)', 'W (vocabulary size)', 'NNZ (number of entries)'][header.length] as string
        if (m === null) return fail(docwordFile, no, line, `expected the header line ${name}, a non-negative integer`)
        const x = Number(m[1])
        header.push(x)
        if (header.length === 2 && vocab !== undefined && x !== vocab.length)
          return fail(docwordFile, no, x, `W does not match the ${vocab.length} words of ${options.vocabFile ?? ''}`)
        if (header.length === 3) {
          docIds = new Int32Array(x)
          wordIds = new Int32Array(x)
          counts = new Int32Array(x)
        }
        return undefined
      }
      if (line.trim().length === 0) return undefined
      const m = TRIPLE.exec(line)
      if (m === null) return fail(docwordFile, no, line, 'expected "docID wordID count" (three positive integers)')
      const d = Number(m[1])
      const w = Number(m[2])
      const c = Number(m[3])
      const [D, W, NNZ] = header as [number, number, number]
      if (d < 1 || d > D) return fail(docwordFile, no, d, `document id out of range [1, ${D}]`)
      if (w < 1 || w > W) return fail(docwordFile, no, w, `word id out of range [1, ${W}]`)
      if (c < 1 || c > 2 ** 31 - 1) return fail(docwordFile, no, c, 'count must be a positive integer')
      if (entries >= NNZ) return fail(docwordFile, no, line, `more entries than NNZ = ${NNZ}`)
      docIds[entries] = d - 1
      wordIds[entries] = w - 1
      counts[entries] = c
      entries++
      return undefined
    })
  } catch (e) {
    return E.left(invalidParameter(docwordFile, docwordFile, `cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`))
  }
  if (result !== undefined) return E.left(result)
  if (header.length < 3) return E.left(fail(docwordFile, header.length + 1, '', 'the file ends inside the D, W, NNZ header'))
  const [D, W, NNZ] = header as [number, number, number]
  if (entries !== NNZ) return E.left(fail(docwordFile, 3, NNZ, `NNZ says ${NNZ} entries but the file has ${entries}`))
  // Counting sort by document, stable: tokens keep the file order inside each document.
  const perDoc = new Float64Array(D + 1)
  for (let i = 0; i < entries; i++) {
    const d = (docIds[i] as number) + 1
    perDoc[d] = (perDoc[d] as number) + (counts[i] as number)
  }
  for (let d = 0; d < D; d++) perDoc[d + 1] = (perDoc[d + 1] as number) + (perDoc[d] as number)
  const total = perDoc[D] as number
  if (total > 2 ** 31 - 1) return E.left(invalidParameter(docwordFile, total, 'more than 2^31 − 1 tokens'))
  const docStart = Int32Array.from(perDoc)
  const cursor = docStart.slice(0, D)
  const tokens = new Int32Array(total)
  for (let i = 0; i < entries; i++) {
    const d = docIds[i] as number
    let p = cursor[d] as number
    const w = wordIds[i] as number
    for (let c = counts[i] as number; c > 0; c--) tokens[p++] = w
    cursor[d] = p
  }
  const names = Array.from({ length: D }, (_, d) => String(d + 1))
  let corpus: Corpus = {
    vocab: vocab ?? Array.from({ length: W }, (_, i) => `w${i + 1}`),
    docStart,
    tokens,
    names,
    labels: names.map(() => ''),
  }
  if (options.allowEmptyDocuments !== true) {
    for (let d = 0; d < D; d++)
      if (docStart[d + 1] === docStart[d]) return E.left(fail(docwordFile, 1, d + 1, `document ${d + 1} has no entries (empty document)`))
    return validateCorpus(corpus, docwordFile)
  }
  return E.right(corpus)
}

/** The docword.txt text of a corpus (sorted by document, then word). */
export const docwordText = (c: Corpus): string => {
  const D = documentCount(c)
  const V = c.vocab.length
  const count = new Int32Array(V)
  const lines: string[] = []
  for (let d = 0; d < D; d++) {
    const a = c.docStart[d] as number
    const b = c.docStart[d + 1] as number
    const ws: number[] = []
    for (let i = a; i < b; i++) {
      const w = c.tokens[i] as number
      const k = count[w] as number
      if (k === 0) ws.push(w)
      count[w] = k + 1
    }
    ws.sort((x, y) => x - y)
    for (const w of ws) {
      lines.push(`${d + 1} ${w + 1} ${count[w] as number}`)
      count[w] = 0
    }
  }
  return `${D}\n${V}\n${lines.length}\n${lines.join('\n')}${lines.length > 0 ? '\n' : ''}`
}

/** Writes docword.txt and vocab.txt atomically. */
export const writeUci = (c: Corpus, docwordFile: string, vocabFile?: string): E.Either<DpError, void> => {
  const w = writeFileAtomic(docwordFile, docwordText(c))
  if (E.isLeft(w) || vocabFile === undefined) return w
  return writeFileAtomic(vocabFile, `${c.vocab.join('\n')}\n`)
}

/** Whether a path looks like a UCI directory (holds docword.txt or docword.train.txt). */
export const isUciDirectory = (dir: string): boolean =>
  existsSync(`${dir}/docword.txt`) || existsSync(`${dir}/docword.train.txt`)
