// The private Gibbs trainers visit tokens in reading order (issue 9, docs/trainers.md "Visiting
// order"): the order is fixed by the token positions, so replacing one word changes that token and
// nothing about when the others are visited (paper 001, Theorem 3's coupling).
//
// What reading order implies that an observer can see. Run a trainer on D and on D′ (one word
// replaced, a → f) under the same seed. The initial topics are drawn one per position, so the two
// runs give every position the same topic and the first release differs in exactly two cells, the
// replaced token's: (a, k) one lower and (f, k) one higher, for one topic k. If every released cell is
// at least the clipping bound C, the sampler's q_wk is (C + β)/(n̂_k + Vβ) for every word — the same
// in both runs, since the two moved cells share a column — so every later draw depends on the
// position and the document counts only, and the coupling holds at every iteration.
// By word (the order the non-private CGS keeps), a → f moves the replaced token past the b…e tokens
// of its document: the slots between shift by one and their topics move between words, so more
// cells differ. The last test shows that this corpus tells the two orders apart.
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { type Corpus, fromDocuments } from '../../src/trainers/corpus/corpus.js'
import { type LdaConfigBase, TRAINERS } from '../../src/trainers/index.js'
import { startPrivateFit } from '../../src/trainers/lda/private-fit.js'
import { initState } from '../../src/trainers/lda/state.js'

const VOCAB = ['a', 'b', 'c', 'd', 'e', 'f']
const V = VOCAB.length
const K = 3
const FIRST = 0 // a: the first word in id order
const LAST = 5 // f: the last, so by-word order moves the replaced token past every other word

/** Four documents of 60 words, every word frequent in every document (a fixed LCG, no seed needed). */
const documents = (): Int32Array[] => {
  let x = 12345
  return Array.from({ length: 4 }, () =>
    Int32Array.from({ length: 60 }, () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0
      return (x >>> 16) % V
    }),
  )
}
const base = documents()
const D = fromDocuments(VOCAB, base)
/** The first a of document 1 replaced by f: word replacement, D′ = D except at one position. */
const position = base[0]?.indexOf(FIRST) as number
const D2 = fromDocuments(VOCAB, base.map((d, i) => (i === 0 ? d.map((w, j) => (j === position ? LAST : w)) : d)))

const config = (name: keyof typeof TRAINERS, patch: Record<string, unknown>): LdaConfigBase => {
  const t = TRAINERS[name]
  const c = t.config.decode({ ...t.defaults, topics: K, alpha: 2, beta: 0.1, ...patch })
  if (E.isLeft(c)) throw new Error(`config ${name}`)
  return c.right
}

/** Every topic-word table that left the gate, in order (HDP-LDA, CDP: the table; SUB-LDA: its `released`). */
const topicWordReleases = (name: keyof typeof TRAINERS, c: LdaConfigBase, corpus: Corpus, seed: string): Float64Array[] => {
  const out: Float64Array[] = []
  const fit = TRAINERS[name].fit(corpus, c, seeded(seed), {
    logLikelihoodEvery: 0,
    onRelease: (r) => {
      const v = r.value as Float64Array | { released: Float64Array } | undefined
      if (v instanceof Float64Array) {
        if (/topic-word/.test(r.label)) out.push(v.slice())
      } else if (v !== undefined && v.released instanceof Float64Array) out.push(v.released.slice())
    },
  })
  if (E.isLeft(fit)) throw new Error(`fit ${name}`)
  return out
}

/** The cells (w, k) where two releases differ, with the difference b − a. */
const differences = (a: Float64Array, b: Float64Array): Array<{ w: number; k: number; by: number }> => {
  const out: Array<{ w: number; k: number; by: number }> = []
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push({ w: Math.floor(i / K), k: i % K, by: (b[i] as number) - (a[i] as number) })
  return out
}

/** The replaced token's two cells, a one lower and f one higher, in one topic column. */
const isReplacedToken = (d: ReadonlyArray<{ w: number; k: number; by: number }>): boolean =>
  d.length === 2 && d[0]?.w === FIRST && d[0].by === -1 && d[1]?.w === LAST && d[1].by === 1 && d[0].k === d[1].k

describe('private Gibbs trainers visit tokens in reading order', () => {
  it('the state a private fit starts from holds the tokens in reading order, not grouped by word', () => {
    const start = startPrivateFit(D, { topics: K, alpha: 2, beta: 0.1 }, () => E.right(undefined), seeded(1), 1, {}, { iterations: 0 })
    if (E.isLeft(start)) throw new Error('start')
    expect(Array.from(start.right.state.tokens)).toEqual(Array.from(D.tokens))
    // the corpus is not already sorted inside its documents, so the check can fail
    expect(Array.from(initState(D, K, () => 0, 'by-word').tokens)).not.toEqual(Array.from(D.tokens))
  })

  // Clipping at C = 0.5 with every released cell ≥ 1 makes q word-independent (see the file comment);
  // ε large enough that the noise is almost always 0 keeps every cell ≥ 1.
  it.each([
    ['hdp-lda', { iterations: 4, epsilonL: 40, clip: 0.5, noise: 'fresh' }, 1],
    ['sub-lda', { iterations: 4, gamma: 1, order: 2, rdpEpsilon: 1e4, clip: 0.5 }, 1],
    ['sub-lda', { iterations: 6, gamma: 0.5, order: 2, rdpEpsilon: 1e4, clip: 0.5 }, 0.5],
  ] as const)('%s %j: neighbours under one seed differ in the replaced token’s two cells at every iteration', (name, patch, gamma) => {
    const c = config(name, patch)
    const a = topicWordReleases(name, c, D, 'order')
    const b = topicWordReleases(name, c, D2, 'order')
    expect(a).toHaveLength(c.iterations)
    expect(b).toHaveLength(c.iterations)
    let moved = 0
    for (let it = 0; it < c.iterations; it++) {
      const x = a[it] as Float64Array
      const y = b[it] as Float64Array
      // the premise: every cell clipped at C in both runs (released/γ ≥ C)
      expect(Math.min(...x, ...y) / gamma, `${name} iteration ${it + 1}`).toBeGreaterThanOrEqual(0.5)
      const d = differences(x, y)
      // γ < 1: an iteration that did not sample the replaced token releases identical counts
      if (gamma === 1 || d.length > 0) expect(isReplacedToken(d), `${name} iteration ${it + 1}: ${JSON.stringify(d)}`).toBe(true)
      if (d.length > 0) moved++
    }
    // γ = 1 every iteration shows the token; γ = 0.5 at least one (not vacuous)
    if (gamma === 1) expect(moved).toBe(c.iterations)
    else expect(moved).toBeGreaterThan(0)
  })

  it.each([
    ['cdp-lda', { iterations: 1, epsilon: 40 }],
    ['cdp-lda+', { iterations: 1, epsilon: 40 }],
  ] as const)('%s: the first topic-word release of neighbours under one seed differs in the replaced token’s two cells', (name, patch) => {
    // CDP-LDA does not clip (C = ∞), so q depends on the word after the first sweep; the first
    // release shows the initial topics per position, and the sweeps run over the same token array.
    const c = config(name, patch)
    const a = topicWordReleases(name, c, D, 'order-cdp')
    const b = topicWordReleases(name, c, D2, 'order-cdp')
    expect(a).toHaveLength(1)
    expect(isReplacedToken(differences(a[0] as Float64Array, b[0] as Float64Array))).toBe(true)
  })

  it('by-word order on the same corpus and seed would move more cells (the tests above can fail)', () => {
    // the initial topics of both orders, one uniform per slot from the same stream
    const topics = (corpus: Corpus, order: 'reading' | 'by-word'): Int32Array => {
      const rng = seeded('by-word')
      return initState(corpus, K, () => rng.next(), order).nwk
    }
    const reading = differences(Float64Array.from(topics(D, 'reading')), Float64Array.from(topics(D2, 'reading')))
    const byWord = differences(Float64Array.from(topics(D, 'by-word')), Float64Array.from(topics(D2, 'by-word')))
    expect(isReplacedToken(reading)).toBe(true)
    expect(byWord.length).toBeGreaterThan(2)
  })
})
