// The release boundary in the types (issue 22): a no-cost step (`postProcessing`) cannot take a private
// corpus as its input; only a corpus the user declared public (`declarePublic`) passes. The lines
// marked as expected type errors are the test: `npm run typecheck` fails if the private corpus ever compiles.
import { describe, expect, it } from 'vitest'
import { noOp } from '../../src/mechanisms/event.js'
import { type Corpus, declarePublic, fromDocuments } from '../../src/trainers/corpus/corpus.js'
import { postProcessing } from '../../src/trainers/release/post-processing.js'

const corpus: Corpus = fromDocuments(['alpha', 'bravo'], [Int32Array.from([0, 1]), Int32Array.from([1, 1])])

describe('postProcessing: a no-cost step never receives the private corpus', () => {
  it('a private Corpus (alone, or in a union) does not compile as its input; a declared public one does', () => {
    // @ts-expect-error — the private corpus is not a no-cost input
    postProcessing('reads the private corpus', (c: Corpus) => c.tokens.length)
    // @ts-expect-error — nor is a union that may hold it
    postProcessing('maybe the private corpus', (c: Corpus | undefined) => c?.tokens.length)
    const ok = postProcessing('a public corpus', (c: ReturnType<typeof declarePublic>) => c.tokens.length)
    expect(ok.event).toEqual(noOp)
    expect(ok.run(declarePublic(corpus), undefined as never)).toBe(4)
    // post-processing of a release: any other input
    const counts = postProcessing('normalise a release', (x: Float64Array) => x.length)
    expect(counts.run(new Float64Array(3), undefined as never)).toBe(3)
  })
})
