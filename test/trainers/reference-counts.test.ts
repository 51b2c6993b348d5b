// LDA-EVAL.md §1's table, reproduced by the reference protocol (vocabulary over all documents), and
// the default: the shipped public vocabulary (the reference protocol's list, frozen in data/vocabulary/).
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
  it('the default is the shipped public vocabulary (the reference one, a fixed file): the same counts, the same word ids', () => {
    const d = loadDataset('brown')
    const ref = loadDataset('brown', { vocabularyFrom: 'all-documents' })
    if (E.isLeft(d) || E.isLeft(ref)) throw new Error('brown')
    expect(d.right.vocabularySource).toMatchObject({ kind: 'public-file' })
    expect(counts(d.right.train)).toEqual({ D: 450, N: 303_359 })
    expect(nonZeros(d.right.train)).toBe(175_610)
    // the same words; the reference run writes its data-chosen list in code-unit order
    expect([...d.right.train.vocab].sort()).toEqual(ref.right.train.vocab)
  })
  it('a vocabulary chosen from the training documents only is still available, and labelled', () => {
    const d = loadDataset('brown', { vocabularyFrom: 'training' })
    if (E.isLeft(d)) throw new Error('brown')
    expect(d.right.vocabularySource).toEqual({ kind: 'training-data', size: 5000 })
    expect(counts(d.right.train).N).not.toBe(303_359)
  })
})
