// LDA-EVAL.md §1's table, reproduced by the reference protocol (vocabulary over all documents), and
// the trainers' default (vocabulary over the training documents only), which the statement labels.
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadDataset } from '../../src/trainers/corpus/load.js'
import { type Corpus, nonZeros } from '../../src/trainers/corpus/corpus.js'

const counts = (c: Corpus) => ({ D: c.docStart.length - 1, N: c.tokens.length })

describe('Brown V = 5,000', () => {
  it('vocabularyFrom: all-documents reproduces every count of LDA-EVAL.md (450 / 50 docs, N_train 303,359, test 16,907 / 16,934, nnz 175,610)', () => {
    const d = loadDataset('brown', { vocabularyFrom: 'all-documents' })
    if (E.isLeft(d)) throw new Error('brown')
    expect(counts(d.right.train)).toEqual({ D: 450, N: 303_359 })
    expect(counts(d.right.testObserved)).toEqual({ D: 50, N: 16_907 })
    expect(counts(d.right.testHeldOut).N).toBe(16_934)
    expect(nonZeros(d.right.train)).toBe(175_610)
    expect(d.right.vocabularySource).toEqual({ kind: 'all-documents', size: 5000 })
  })
  it('the default chooses the vocabulary from the training documents only, and says so', () => {
    const d = loadDataset('brown')
    if (E.isLeft(d)) throw new Error('brown')
    expect(d.right.vocabularySource).toEqual({ kind: 'training-data', size: 5000 })
    expect(counts(d.right.train).D).toBe(450)
    expect(counts(d.right.train).N).not.toBe(303_359)
  })
})
