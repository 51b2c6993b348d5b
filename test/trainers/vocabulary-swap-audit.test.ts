// The vocabulary-swap game of issue 22, audited: replace one word of the private corpus by a word seen
// nowhere else, and ask whether the released vocabulary tells the two corpora apart. The most
// frequent words of the data (the old default) publish the new word deterministically: the audit
// certifies an ε far above anything a statement printed. The differentially private selection keeps the
// audited lower bound at or below its accounted ε.
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { WordStream, wordsFromRng } from '../../src/core/words.js'
import { replaceOne } from '../../src/mechanisms/neighbouring.js'
import { expectPrivate, PrivacyViolationError } from '../../src/testing/index.js'
import { calibrateVocabulary, dpVocabulary, type TokenDocuments, vocabularySelectionEvent } from '../../src/trainers/corpus/dp-vocabulary.js'
import { topVocabulary } from '../../src/trainers/corpus/text.js'

const WORD = replaceOne('word')
const COMMON = ['alpha', 'bravo', 'charlie', 'delta']
const corpus: TokenDocuments = Array.from({ length: 20 }, (_, d) => Array.from({ length: 10 }, (_, i) => COMMON[(d + i) % COMMON.length] as string))
// the neighbour: one token of document 3 becomes "zulu", a word in no other document
const neighbour: TokenDocuments = corpus.map((doc, d) => (d === 3 ? doc.map((w, i) => (i === 0 ? 'zulu' : w)) : doc))
/** What the attacker reads: whether each candidate word is in the released vocabulary. */
const CANDIDATES = [...COMMON, 'zulu']
const membership = (vocab: ReadonlyArray<string>): boolean[] => CANDIDATES.map((w) => vocab.includes(w))

describe('the vocabulary-swap game (issue 22, item 1)', () => {
  it('the most frequent words of the data: a deterministic distinguisher (true ε = ∞), certified up to the audit ceiling', () => {
    const mechanism = (docs: TokenDocuments) => membership(topVocabulary(docs, 10))
    let error: unknown
    try {
      expectPrivate(mechanism, { epsilon: 1, delta: 1e-5 }, { pairs: { input: neighbour, neighbour: corpus }, trials: 20_000, seed: 'swap' })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(PrivacyViolationError)
    const result = (error as PrivacyViolationError).result
    // the bound is the ceiling of 20,000 runs, whatever ε is claimed: nothing private can reach it
    expect(result?.epsilonLowerBound).toBeGreaterThan(7)
    expect(result?.epsilonLowerBound).toBeCloseTo(result?.ceiling ?? Number.NaN, 6)
  })

  it('the differentially private selection: the audited lower bound stays at or below the accounted ε', () => {
    // a large δ, so a word seen once is released often enough for the audit to have power
    const params = calibrateVocabulary({ epsilon: 1, delta: 0.05, size: 10, relation: WORD })
    if (E.isLeft(params)) throw new Error(params.left.message)
    const measurement = dpVocabulary(params.right)
    const event = vocabularySelectionEvent(params.right)
    if (E.isLeft(measurement) || E.isLeft(event)) throw new Error('selection')
    const delta = 0.06
    const accounted = account({ schemaVersion: 1, relation: WORD, event: event.right }, { deltas: [delta] })
    if (E.isLeft(accounted)) throw new Error(accounted.left.message)
    const epsilon = accounted.right.tightest[0]?.epsilon ?? Number.NaN
    expect(Number.isFinite(epsilon)).toBe(true)
    const select = measurement.right
    const mechanism = (docs: TokenDocuments, rng: Parameters<typeof wordsFromRng>[0]) => membership(select.run(docs, new WordStream(wordsFromRng(rng), 256)))
    // both directions: the new word on either side
    const r = expectPrivate(mechanism, { epsilon, delta }, { pairs: [{ input: neighbour, neighbour: corpus }, { input: corpus, neighbour }], trials: 20_000, seed: 'swap-dp' })
    expect(r.epsilonLowerBound).toBeLessThanOrEqual(epsilon)
  })
})
