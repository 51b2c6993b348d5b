/**
 * DP vocabulary selection (src/trainers/corpus/dp-vocabulary.ts): the output's shape, seeded
 * replay, the release probability of a rare word (measured), neighbouring corpora against the
 * claimed (ε, δ) (measured), the event through `account()` against the exact ε of the thresholded
 * noisy counts (enumerated for small cases), the codec round trip, parameter errors as values, and
 * the calibration (property).
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { decodeEvent, encodeEvent } from '../../src/mechanisms/codec.js'
import { labeled, type PrivacyEvent } from '../../src/mechanisms/event.js'
import { addRemove, type NeighbouringRelation, replaceOne } from '../../src/mechanisms/neighbouring.js'
import {
  calibrateVocabulary,
  dpVocabulary,
  releaseProbability,
  type TokenDocuments,
  VOCABULARY_LABEL,
  vocabularyCounts,
  vocabularyGuarantee,
  type VocabularyParams,
  vocabularySelectionEvent,
} from '../../src/trainers/corpus/dp-vocabulary.js'
import { topVocabulary } from '../../src/trainers/corpus/text.js'
import { ReleaseGate } from '../../src/mechanisms/gate.js'

const WORD = replaceOne('word')

const measurement = (p: VocabularyParams) => {
  const m = dpVocabulary(p)
  if (E.isLeft(m)) throw new Error(`unexpected error: ${JSON.stringify(m.left)}`)
  return m.right
}

const rep = (word: string, n: number): string[] => Array.from({ length: n }, () => word)

describe('selection', () => {
  const docs: TokenDocuments = [
    [...rep('apple', 9), ...rep('pear', 7), 'fig'],
    [...rep('plum', 12), ...rep('kiwi', 8), ...rep('lime', 6)],
    [...rep('date', 10), ...rep('apple', 3), ...rep('yuzu', 5)],
  ]

  it('the output is sorted in code-unit order, has at most V words, and a seed replays it', () => {
    const m = measurement({ size: 4, scale: 2, threshold: 5, relation: WORD })
    for (let seed = 0; seed < 20; seed++) {
      const out = m.run(docs, new WordStream(seededWords(seed)))
      expect(out.length).toBeLessThanOrEqual(4)
      expect([...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(out)
      expect(new Set(out).size).toBe(out.length)
      expect(m.run(docs, new WordStream(seededWords(seed)))).toEqual(out)
    }
  })

  it('with negligible noise it is the top-V vocabulary, sorted (the V largest counts, ties to the smaller word)', () => {
    // t = 0.01: P[Z ≠ 0] ≈ 2e^{−100}; every word here has count ≥ τ = 2
    const m = measurement({ size: 5, scale: 0.01, threshold: 2, relation: WORD })
    const out = m.run(docs, new WordStream(seededWords(1)))
    const twice = docs.map((d) => d.filter((w) => w !== 'fig'))
    expect(out).toEqual(topVocabulary(twice, 5).sort())
  })

  it('the document unit counts the first m distinct words of each document once', () => {
    const c = vocabularyCounts([['a', 'b', 'a', 'c', 'd'], ['b', 'b', 'e'], ['c']], 2)
    const byWord = new Map(c.words.map((w, i) => [w, c.counts[i]]))
    expect(Object.fromEntries(byWord)).toEqual({ a: 1, b: 2, e: 1, c: 1 })
    const all = vocabularyCounts([['a', 'b', 'a']])
    expect([...all.counts]).toEqual([2, 1])
  })

  it('through the release gate, the ledger records the measurement\'s event', () => {
    const m = measurement({ size: 3, scale: 2, threshold: 5, relation: WORD })
    const gate = new ReleaseGate(seededWords(4))
    const out = gate.release(m, docs)
    expect(out.length).toBeLessThanOrEqual(3)
    const ledger = gate.ledger()
    expect(ledger._tag === 'Compose' && ledger.events).toEqual([labeled(VOCABULARY_LABEL, m.event)])
  })
})

describe('release probabilities (measured)', () => {
  it('a word of count 1 is released with probability p = e^{−(τ−1)/t}/(1 + e^{−1/t})', () => {
    const n = 20000
    const words = Array.from({ length: n }, (_, i) => `w${i}`)
    const scale = 1
    const threshold = 3
    const m = measurement({ size: n, scale, threshold, relation: WORD })
    const out = m.run([words], new WordStream(seededWords(11)))
    const p = releaseProbability(scale, threshold, 1)
    expect(p).toBeCloseTo(Math.exp(-2) / (1 + Math.exp(-1)), 14)
    // binomial(20000, 0.099): standard deviation 0.0021
    expect(Math.abs(out.length / n - p)).toBeLessThan(0.0085)
  })

  it('the closed form sums to the pmf (P[Z ≥ k] for k ≤ 0 as the complement)', () => {
    const t = 1.7
    const q = Math.exp(-1 / t)
    const pmf = (k: number) => ((1 - q) / (1 + q)) * q ** Math.abs(k)
    for (const [tau, c] of [[5, 1], [3, 3], [2, 6], [10, 2]] as const) {
      let tail = 0
      for (let k = tau - c; k < 400; k++) tail += pmf(k)
      expect(releaseProbability(t, tau, c)).toBeCloseTo(tail, 12)
    }
  })
})

describe('neighbouring corpora (measured against the claimed (ε, δ))', () => {
  // t = 1, τ = 4: ε = 2 (two moved counts), p ≈ 0.0364, δ = p (one new word a side)
  const params: VocabularyParams = { size: 10, scale: 1, threshold: 4, relation: WORD }
  const g = vocabularyGuarantee(params)
  if (E.isLeft(g)) throw new Error('guarantee')
  const { epsilon, delta } = g.right
  const trials = 20000
  const frequencies = (docs: TokenDocuments, words: ReadonlyArray<string>, seed: number): Map<string, number> => {
    const m = measurement(params)
    const stream = new WordStream(seededWords(seed))
    const hits = new Map(words.map((w) => [w, 0]))
    for (let i = 0; i < trials; i++) for (const w of m.run(docs, stream)) hits.set(w, (hits.get(w) ?? 0) + 1)
    return new Map([...hits].map(([w, h]) => [w, h / trials]))
  }
  // 4.5 standard deviations of a frequency at 1/2, so every check holds on this seed with room
  const tol = 4.5 * Math.sqrt(0.25 / trials)
  const consistent = (a: number, b: number) => {
    expect(a).toBeLessThanOrEqual(Math.exp(epsilon) * b + delta + tol)
    expect(1 - a).toBeLessThanOrEqual(Math.exp(epsilon) * (1 - b) + delta + tol)
  }

  it('a word replaced inside the vocabulary: every word\'s inclusion within e^ε·P′ + δ, both ways', () => {
    const d = [[...rep('alpha', 4), ...rep('beta', 3), ...rep('gamma', 5)]]
    const d2 = [[...rep('alpha', 3), ...rep('beta', 4), ...rep('gamma', 5)]]
    const f = frequencies(d, ['alpha', 'beta', 'gamma'], 1)
    const f2 = frequencies(d2, ['alpha', 'beta', 'gamma'], 2)
    for (const w of ['alpha', 'beta', 'gamma']) {
      consistent(f.get(w)!, f2.get(w)!)
      consistent(f2.get(w)!, f.get(w)!)
    }
  })

  it('a word replaced by one seen nowhere else: the new word appears with frequency ≈ p ≤ δ', () => {
    const d = [[...rep('alpha', 4), ...rep('gamma', 5)]]
    const d2 = [[...rep('alpha', 3), 'zeta', ...rep('gamma', 5)]]
    const f = frequencies(d, ['alpha', 'zeta'], 3)
    const f2 = frequencies(d2, ['alpha', 'zeta'], 4)
    expect(f.get('zeta')).toBe(0)
    const p = releaseProbability(1, 4, 1)
    const se = Math.sqrt((p * (1 - p)) / trials)
    expect(f2.get('zeta')!).toBeLessThanOrEqual(delta + 4.5 * se)
    expect(Math.abs(f2.get('zeta')! - p)).toBeLessThan(4.5 * se)
    consistent(f.get('alpha')!, f2.get('alpha')!)
    consistent(f2.get('alpha')!, f.get('alpha')!)
  })
})

// ------------------------------------------------------------------------------------------------
// exact ε of the thresholded noisy counts, enumerated: each word's output is c + Z if ≥ τ, else ⊥
// ------------------------------------------------------------------------------------------------

type Atoms = ReadonlyArray<readonly [number, number]> // (P-mass, Q-mass) of one outcome

/** Atoms of one word's thresholded noisy count, counts c under D and c′ under D′ (0: not a candidate). */
const wordAtoms = (t: number, tau: number, c: number, c2: number): Atoms => {
  const q = Math.exp(-1 / t)
  const pmf = (k: number) => ((1 - q) / (1 + q)) * q ** Math.abs(k)
  const bottom = (n: number) => (n === 0 ? 1 : 1 - releaseProbability(t, tau, n))
  const atoms: Array<readonly [number, number]> = [[bottom(c), bottom(c2)]]
  for (let x = tau; x < tau + 60 * t + 60; x++) atoms.push([c === 0 ? 0 : pmf(x - c), c2 === 0 ? 0 : pmf(x - c2)])
  return merge(atoms)
}

/** Outcomes with the same likelihood ratio merged (the hockey-stick divergence only sees the ratio). */
const merge = (atoms: Atoms): Atoms => {
  const groups = new Map<string, [number, number]>()
  for (const [p, q] of atoms) {
    if (p === 0 && q === 0) continue
    const key = p === 0 ? '-inf' : q === 0 ? 'inf' : (Math.round(Math.log(p / q) * 1e9) / 1e9).toString()
    const g = groups.get(key) ?? [0, 0]
    g[0] += p
    g[1] += q
    groups.set(key, g)
  }
  return [...groups.values()]
}

const product = (a: Atoms, b: Atoms): Atoms => merge(a.flatMap(([p, q]) => b.map(([p2, q2]) => [p * p2, q * q2] as const)))

const hockeyStick = (atoms: Atoms, eps: number): number => {
  let fwd = 0
  let bwd = 0
  for (const [p, q] of atoms) {
    fwd += Math.max(0, p - Math.exp(eps) * q)
    bwd += Math.max(0, q - Math.exp(eps) * p)
  }
  return Math.max(fwd, bwd)
}

/** The smallest ε with δ(ε) ≤ δ, by bisection (δ(ε) is non-increasing). */
const exactEpsilon = (atoms: Atoms, delta: number): number => {
  if (hockeyStick(atoms, 0) <= delta) return 0
  let hi = 1
  while (hockeyStick(atoms, hi) > delta) {
    hi *= 2
    if (hi > 1e3) return Number.POSITIVE_INFINITY
  }
  let lo = 0
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (hockeyStick(atoms, mid) > delta) lo = mid
    else hi = mid
  }
  return hi
}

const accounted = (event: PrivacyEvent, relation: NeighbouringRelation, deltas: ReadonlyArray<number>) => {
  const r = account({ schemaVersion: 1, relation, event }, { deltas })
  if (E.isLeft(r)) throw new Error(`account failed: ${JSON.stringify(r.left)}`)
  return r.right
}

describe('the event through account()', () => {
  const cases: ReadonlyArray<{ readonly name: string; readonly params: VocabularyParams; readonly pairs: ReadonlyArray<ReadonlyArray<readonly [number, number]>> }> = [
    {
      name: 'replace-one word',
      params: { size: 100, scale: 1.5, threshold: 12, relation: WORD },
      pairs: [
        [[40, 39], [30, 31]], // inside the vocabulary, far above τ: the exact ε is the two shifts'
        [[12, 11], [11, 12]], // inside, at the threshold
        [[1, 0], [30, 31]], // a word vanishes, the other moves
        [[40, 39], [0, 1]], // replaced by a word seen nowhere else
        [[1, 0], [0, 1]], // both
      ],
    },
    {
      name: 'add/remove document, m = 2',
      params: { size: 100, scale: 2, threshold: 15, relation: addRemove('document'), wordsPerDocument: 2 },
      pairs: [
        [[40, 41], [30, 31]],
        [[40, 41], [0, 1]],
        [[14, 15], [0, 1]],
        [[0, 1], [0, 1]],
      ],
    },
    {
      name: 'replace-one document, m = 2',
      params: { size: 100, scale: 4, threshold: 30, relation: replaceOne('document'), wordsPerDocument: 2 },
      pairs: [
        [[60, 59], [70, 69], [50, 51], [65, 66]],
        [[1, 0], [1, 0], [0, 1], [0, 1]],
        [[1, 0], [60, 59], [0, 1], [55, 56]],
      ],
    },
  ]

  for (const { name, params, pairs } of cases)
    it(`${name}: the accounted ε at δ ≥ δ_fail is ≥ the exact ε of every enumerated neighbouring pair, and ≤ cells/t at δ_fail`, () => {
      const g = vocabularyGuarantee(params)
      const ev = vocabularySelectionEvent(params)
      if (E.isLeft(g) || E.isLeft(ev)) throw new Error('params')
      const deltas = [g.right.delta, g.right.delta * 1.05, 2 * g.right.delta, Math.min(0.5, 10 * g.right.delta)]
      const report = accounted(ev.right, params.relation, deltas)
      expect(report.tightest[0]!.epsilon).toBeLessThanOrEqual(g.right.epsilon + 1e-9)
      for (const [j, pair] of pairs.entries()) {
        const atoms = pair.map(([c, c2]) => wordAtoms(params.scale, params.threshold, c, c2)).reduce(product)
        deltas.forEach((d, i) => {
          const exact = exactEpsilon(atoms, d)
          expect(report.tightest[i]!.epsilon).toBeGreaterThanOrEqual(exact - 1e-9)
          // the first pair moves every count far above τ: there the event is nearly exact (PLD's grid)
          if (j === 0) expect(report.tightest[i]!.epsilon).toBeLessThan(exact + 0.02)
        })
      }
      // below δ_fail a corpus with a new word has no finite guarantee, and the account says ∞
      const below = accounted(ev.right, params.relation, [g.right.delta / 2]).tightest[0]!.epsilon
      expect(below).toBe(Number.POSITIVE_INFINITY)
      const newWords = pairs.find((pp) => pp.some(([c, c2]) => c === 0 || c2 === 0))!
      const atoms = newWords.map(([c, c2]) => wordAtoms(params.scale, params.threshold, c, c2)).reduce(product)
      expect(exactEpsilon(atoms, g.right.delta / 2)).toBe(Number.POSITIVE_INFINITY)
    })

  it('the event round-trips through the JSON codec and validates', () => {
    for (const params of cases.map((c) => c.params)) {
      const ev = vocabularySelectionEvent(params)
      if (E.isLeft(ev)) throw new Error('params')
      const back = decodeEvent(JSON.parse(JSON.stringify(encodeEvent(ev.right))))
      expect(back).toEqual(E.right(ev.right))
    }
  })
})

describe('parameters', () => {
  const base = { epsilon: 1, delta: 1e-6, size: 1000, relation: WORD }
  const fieldOf = (r: E.Either<{ readonly _tag: string; readonly path: string }, unknown>) => (E.isLeft(r) ? r.left.path : 'ok')
  it('errors are values naming the field and the value', () => {
    expect(fieldOf(calibrateVocabulary({ ...base, epsilon: 0 }))).toBe('epsilon')
    expect(fieldOf(calibrateVocabulary({ ...base, epsilon: -1 }))).toBe('epsilon')
    expect(fieldOf(calibrateVocabulary({ ...base, epsilon: Number.NaN }))).toBe('epsilon')
    expect(fieldOf(calibrateVocabulary({ ...base, delta: 0 }))).toBe('delta')
    expect(fieldOf(calibrateVocabulary({ ...base, delta: 1 }))).toBe('delta')
    expect(fieldOf(calibrateVocabulary({ ...base, delta: Number.NaN }))).toBe('delta')
    expect(fieldOf(calibrateVocabulary({ ...base, size: 0 }))).toBe('size')
    expect(fieldOf(calibrateVocabulary({ ...base, size: 2.5 }))).toBe('size')
    expect(fieldOf(calibrateVocabulary({ ...base, relation: replaceOne('document') }))).toBe('wordsPerDocument')
    expect(fieldOf(calibrateVocabulary({ ...base, relation: replaceOne('document'), wordsPerDocument: 0 }))).toBe('wordsPerDocument')
    expect(fieldOf(calibrateVocabulary({ ...base, wordsPerDocument: 3 }))).toBe('wordsPerDocument')
    expect(fieldOf(calibrateVocabulary({ ...base, relation: replaceOne('user') }))).toBe('relation')
    expect(fieldOf(calibrateVocabulary({ ...base, epsilon: 1e-20 }))).toBe('epsilon')
    const params: VocabularyParams = { size: 10, scale: 2, threshold: 8, relation: WORD }
    expect(fieldOf(dpVocabulary({ ...params, scale: Number.NaN }))).toBe('scale')
    expect(fieldOf(dpVocabulary({ ...params, threshold: 7.5 }))).toBe('threshold')
    // τ = 1 with almost no noise releases every word seen once: δ = 1 is no guarantee
    expect(fieldOf(dpVocabulary({ ...params, threshold: 1, scale: 0.01 }))).toBe('threshold')
    expect(fieldOf(vocabularySelectionEvent({ ...params, size: -1 }))).toBe('size')
    const e = calibrateVocabulary({ ...base, delta: 2 })
    expect(E.isLeft(e) && e.left._tag === 'InvalidParameter' && e.left.value).toBe(2)
  })

  const relations = fc.constantFrom<readonly [NeighbouringRelation, boolean]>(
    [replaceOne('word'), false],
    [addRemove('word'), false],
    [addRemove('document'), true],
    [replaceOne('document'), true],
  )

  it('property: calibration is monotone in ε (smaller ε, larger t), δ_fail ≤ δ, ε back within rounding, τ the smallest', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        fc.double({ min: 1e-12, max: 0.5, noNaN: true }),
        relations,
        fc.integer({ min: 1, max: 30 }),
        (e1, e2, delta, [relation, byDocument], m) => {
          fc.pre(e1 !== e2)
          const [lo, hi] = e1 < e2 ? [e1, e2] : [e2, e1]
          const budget = { delta, size: 100, relation, ...(byDocument ? { wordsPerDocument: m } : {}) }
          const a = calibrateVocabulary({ ...budget, epsilon: lo })
          const b = calibrateVocabulary({ ...budget, epsilon: hi })
          if (E.isLeft(a) || E.isLeft(b)) throw new Error('calibration failed')
          // strictly larger where the two ε differ by more than rounding (CI drew two ε one ulp apart: equal scales)
          if (hi > lo * (1 + 1e-9)) expect(a.right.scale).toBeGreaterThan(b.right.scale)
          else expect(a.right.scale).toBeGreaterThanOrEqual(b.right.scale)
          for (const [p, eps] of [[a.right, lo], [b.right, hi]] as const) {
            const g = vocabularyGuarantee(p)
            if (E.isLeft(g)) throw new Error('guarantee failed')
            expect(g.right.delta).toBeLessThanOrEqual(delta)
            expect(g.right.epsilon).toBeLessThanOrEqual(eps * (1 + 1e-12))
            if (p.threshold > 1) {
              const looser = vocabularyGuarantee({ ...p, threshold: p.threshold - 1 })
              expect(E.isLeft(looser) || looser.right.delta > delta).toBe(true)
            }
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
