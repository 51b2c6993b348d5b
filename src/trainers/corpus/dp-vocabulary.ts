/**
 * Differentially private vocabulary selection (issue 22: the whole output of a private run is
 * private, the word list included): thresholded noisy counts — Korolova, Kenthapadi, Mishra &
 * Ntoulas 2009 (search logs), Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson 2020 (DP
 * SQL, §3) and the Laplace baseline of Desfontaines, Voss, Gipson & Mandayam 2022 ("Differentially
 * private partition selection") — with exact integer noise.
 *
 * The mechanism. Count every word of the training documents (c_w ≥ 1 for a word in the data, no
 * candidate otherwise); add independent discrete Laplace noise Z_w, P[Z = k] ∝ e^{−|k|/t}
 * (Canonne, Kamath & Steinke 2020; exact sampler ../../mechanisms/noise); keep the words with
 * c_w + Z_w ≥ τ (an integer); among them the V with the largest noisy counts, ties to the smaller
 * word; write them out sorted in code-unit order (a data-independent order). The top-V step and the
 * sort are post-processing of the thresholded noisy counts.
 *
 * What is counted, by relation (the unit the trainer protects):
 * - `word` (the LDA papers' unit): every token counts. Replace-one word (a → b in one position):
 *   c_a − 1, c_b + 1. Add/remove one word: one count ±1.
 * - `document`: c_w = the number of documents that contribute w, where a document contributes the
 *   first m distinct words of its reading order (m = `wordsPerDocument`), each once. The cap
 *   depends on that document alone, so one document changes at most m counts by 1 (add/remove) or
 *   2m (replace-one: m down, m up).
 *
 * The guarantee (derived here). Fix neighbours D, D′ and write the output as a post-processing of
 * one coordinate per word of supp(D) ∪ supp(D′): T_w = c_w + Z_w if that is ≥ τ, else ⊥, and T_w = ⊥
 * for a word absent from the corpus. The coordinates are independent, so the pair (M(D), M(D′)) is
 * a product of per-word pairs, and a product of pairs is dominated by the product of dominating
 * pairs (Zhu, Dong & Wang 2022, Thm 10; post-processing, Dwork & Roth 2014 Prop. 2.1):
 * - a word in both corpora whose count moves by d: the discrete Laplace shift by |d|, post-processed.
 *   Over all of them, at most `cells` coordinates move, each by 1: the event of `cells` independent
 *   discrete Laplace(t) shifts by 1 (src/mechanisms/measurement.ts), pure ε = cells/t.
 * - the words present in one corpus only ("new" words; each has count exactly 1 there, as one unit
 *   contributes at most 1 to a count). With β_D = 1 − (1 − p)^{ℓ_D} for the ℓ_D new words of D, and
 *   p = P[1 + Z ≥ τ], the new-word pair is P = (some new word of D released w.p. β_D, else all ⊥),
 *   Q = (all ⊥ w.p. 1 − β_D′, else some new word of D′): Q gives no mass to P's releases and the
 *   reverse, so H_{e^ε}(P‖Q) = β_D + max(0, (1 − β_D) − e^ε(1 − β_D′)) ≤ max(β_D, β_D′) for every
 *   ε ≥ 0: a (0, max(β_D, β_D′))-DP pair, dominated by the canonical (0, δ) pair (Kairouz, Oh &
 *   Viswanath 2015, Thm 2.1 — every (ε, δ)-DP pair is a post-processing of it).
 * So the selection is dominated by Compose[DiscreteLaplace(t, 1)×cells, ApproxDP(0, δ_fail)] with
 *   δ_fail = 1 − (1 − p)^{ℓ₀} ≤ ℓ₀·p,   p = P[Z ≥ τ − 1] = e^{−(τ−1)/t}/(1 + e^{−1/t})  (τ ≥ 2),
 * ℓ₀ the most new words on one side, and (cells, ℓ₀) by relation:
 *   replace-one word (2, 1) · add/remove word (1, 1) · add/remove document (m, m) · replace-one document (2m, m).
 * Hence (ε, δ) = (cells/t, δ_fail)-DP by basic composition; the PLD accountant composes the same
 * pair exactly (δ(ε) = δ_fail + (1 − δ_fail)·δ_DL(ε), the product with the canonical pair — no
 * doubling as in ../../mechanisms/ptr.ts, whose failure event is not a product). The
 * cells and ℓ₀ of one pair of neighbours add up to at most what the event charges both (a word
 * that changes count is not new), so the event is an upper bound, not the exact curve.
 * RDP and zCDP cannot fold the δ_fail leaf and say so; `account` answers from the others.
 *
 * Calibration (`calibrateVocabulary`): t = cells/ε_vocab; τ the smallest integer ≥ 1 with
 * δ_fail(τ) ≤ δ_vocab (closed form τ = ⌈1 + t·(ln(1/p*) − ln(1 + e^{−1/t}))⌉, p* = 1 − (1 − δ)^{1/ℓ₀},
 * then checked against the same δ_fail the event states, which is rounded up by 2^−40 relatively
 * for the floating-point error of exp/log).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, infeasible, invalidParameter } from '../../core/error.js'
import type { WordStream } from '../../core/words.js'
import { approxDP, compose, labeled, type PrivacyEvent } from '../../mechanisms/event.js'
import { type NeighbouringRelation, showRelation } from '../../mechanisms/neighbouring.js'
import { type DiscreteLaplaceSampler, discreteLaplaceSampler, MAX_DISCRETE_LAPLACE_SCALE } from '../../mechanisms/noise/index.js'
import { discreteLaplaceTableEvent, type Measurement } from '../../mechanisms/measurement.js'

/** The training documents as token lists (RawDocument.tokens), before any vocabulary exists. */
export type TokenDocuments = ReadonlyArray<ReadonlyArray<string>>

/** A selection's parameters: what `dpVocabulary` runs and `vocabularySelectionEvent` accounts. */
export interface VocabularyParams {
  /** V: at most this many words are released. */
  readonly size: number
  /** t: the discrete Laplace scale, P[Z = k] ∝ e^{−|k|/t}. */
  readonly scale: number
  /** τ: an integer; a word is a candidate when its noisy count is ≥ τ. */
  readonly threshold: number
  /** The trainer's relation: unit `word` (replace-one, add-remove) or `document` (needs `wordsPerDocument`). */
  readonly relation: NeighbouringRelation
  /** m: under the document unit, each document contributes its first m distinct words (reading order). */
  readonly wordsPerDocument?: number
}

/** What a selection costs and why. */
export interface VocabularyGuarantee {
  /** Pure part: cells/t. */
  readonly epsilon: number
  /** δ_fail = 1 − (1 − p)^{ℓ₀}, rounded up. */
  readonly delta: number
  /** Counts of words in both corpora that one neighbouring step moves (each by 1). */
  readonly cells: number
  /** ℓ₀: words one step can add to (or remove from) one corpus's support. */
  readonly newWords: number
  /** p = P[1 + Z ≥ τ]: the probability that a word of count 1 is released. */
  readonly newWordRelease: number
}

/** The label a gate and a plan give the selection. */
export const VOCABULARY_LABEL = 'vocabulary selection (thresholded noisy counts)'

/** Relative round-up of computed δ's (exp/log1p/expm1 are accurate to a few ulps). */
const ROUND_UP = 1 + 2 ** -40

/** P[c + Z ≥ τ] for Z discrete Laplace(t): e^{−k/t}/(1 + e^{−1/t}) for k = τ − c ≥ 1, else 1 − e^{−(1−k)/t}/(1 + e^{−1/t}). */
export const releaseProbability = (scale: number, threshold: number, count: number): number => {
  const k = threshold - count
  const tail = (j: number): number => Math.exp(-j / scale - Math.log1p(Math.exp(-1 / scale))) // P[Z ≥ j], j ≥ 1
  return k >= 1 ? tail(k) : 1 - tail(1 - k)
}

/** (cells, ℓ₀) of one neighbouring step, by relation (module comment), or an error naming the field. */
const shape = (relation: NeighbouringRelation, m: number | undefined): E.Either<DpError, { readonly cells: number; readonly newWords: number }> => {
  if (relation.unit === 'word') {
    if (m !== undefined) return E.left(invalidParameter('wordsPerDocument', m, 'applies to the document unit only (under the word unit every token counts)'))
    return E.right(relation.kind === 'replace-one' ? { cells: 2, newWords: 1 } : { cells: 1, newWords: 1 })
  }
  if (relation.unit === 'document') {
    if (m === undefined) return E.left(invalidParameter('wordsPerDocument', m, 'the document unit needs a cap m on the distinct words a document contributes'))
    if (!(Number.isSafeInteger(m) && m >= 1)) return E.left(invalidParameter('wordsPerDocument', m, 'm must be an integer ≥ 1'))
    return E.right(relation.kind === 'replace-one' ? { cells: 2 * m, newWords: m } : { cells: m, newWords: m })
  }
  return E.left(invalidParameter('relation', showRelation(relation), 'vocabulary selection protects one word or one document'))
}

/** δ_fail = 1 − (1 − p)^ℓ₀, rounded up (never below the smallest double: p > 0 even where exp underflows). */
const failure = (p: number, newWords: number): number => Math.min(1, Math.max(Number.MIN_VALUE, -Math.expm1(newWords * Math.log1p(-p)) * ROUND_UP))

const checkSize = (size: number): E.Either<DpError, number> =>
  Number.isSafeInteger(size) && size >= 1 ? E.right(size) : E.left(invalidParameter('size', size, 'V must be an integer ≥ 1'))

/** Checks every parameter (each error names its field and value) and states the guarantee. */
export const vocabularyGuarantee = (params: VocabularyParams): E.Either<DpError, VocabularyGuarantee> => {
  const size = checkSize(params.size)
  if (E.isLeft(size)) return size
  const { scale, threshold } = params
  if (!(scale > 0 && scale <= MAX_DISCRETE_LAPLACE_SCALE)) return E.left(invalidParameter('scale', scale, `t must be in (0, ${MAX_DISCRETE_LAPLACE_SCALE}]`))
  if (!(Number.isSafeInteger(threshold) && threshold >= 1)) return E.left(invalidParameter('threshold', threshold, 'τ must be an integer ≥ 1'))
  const s = shape(params.relation, params.wordsPerDocument)
  if (E.isLeft(s)) return s
  const p = releaseProbability(scale, threshold, 1)
  const delta = failure(p, s.right.newWords)
  if (!(delta < 1)) return E.left(invalidParameter('threshold', threshold, `a word seen once is released with probability ${p}: δ = ${delta} is no guarantee; raise τ`))
  return E.right({ epsilon: s.right.cells / scale, delta, cells: s.right.cells, newWords: s.right.newWords, newWordRelease: p })
}

const eventOf = (params: VocabularyParams, g: VocabularyGuarantee): PrivacyEvent =>
  compose([
    labeled(`noisy counts: discrete Laplace t = ${params.scale} on ${g.cells} moved count(s)`, discreteLaplaceTableEvent(params.scale, { cells: g.cells, perCell: 1, relation: params.relation })),
    labeled(
      `a word in one corpus only is released: 1 − (1 − p)^${g.newWords}, p = P[1 + Z ≥ ${params.threshold}] = ${p3(g.newWordRelease)}`,
      approxDP(0, g.delta, params.relation),
    ),
  ])

const p3 = (x: number): string => x.toExponential(3)

/** The selection's privacy event (module comment): Compose[DiscreteLaplace(t, 1)×cells, ApproxDP(0, δ_fail)]. */
export const vocabularySelectionEvent = (params: VocabularyParams): E.Either<DpError, PrivacyEvent> =>
  E.map((g: VocabularyGuarantee) => eventOf(params, g))(vocabularyGuarantee(params))

/** The candidates: each word of the documents once, in order of first appearance, with its count (per relation). */
export interface VocabularyCounts {
  readonly words: ReadonlyArray<string>
  readonly counts: Int32Array
}

/**
 * Counts the words: every token (`cap` undefined), or, per document, its first `cap` distinct words
 * in reading order, once each. One Map lookup a token; the arrays grow by doubling.
 */
export const vocabularyCounts = (docs: TokenDocuments, cap?: number): VocabularyCounts => {
  const index = new Map<string, number>()
  const words: string[] = []
  let counts: Int32Array = new Int32Array(1024)
  let stamp: Int32Array = cap === undefined ? new Int32Array(0) : new Int32Array(1024) // last document (1-based) that counted the word
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d] as ReadonlyArray<string>
    let taken = 0
    for (let j = 0; j < doc.length; j++) {
      const w = doc[j] as string
      let i = index.get(w)
      if (i === undefined) {
        i = words.length
        index.set(w, i)
        words.push(w)
        if (i === counts.length) {
          counts = grow(counts)
          if (cap !== undefined) stamp = grow(stamp)
        }
      }
      if (cap === undefined) counts[i] = (counts[i] as number) + 1
      else if (stamp[i] !== d + 1) {
        stamp[i] = d + 1
        counts[i] = (counts[i] as number) + 1
        if (++taken === cap) break
      }
    }
  }
  return { words, counts: counts.subarray(0, words.length) }
}

const grow = (a: Int32Array): Int32Array => {
  const b = new Int32Array(2 * a.length)
  b.set(a)
  return b
}

const byWord = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The selection on counted candidates: one discrete Laplace draw per candidate, in candidate order;
 * keep noisy ≥ τ; the V largest noisy counts (ties to the smaller word); sorted by code units.
 */
export const selectFromCounts = (c: VocabularyCounts, params: VocabularyParams, sampler: DiscreteLaplaceSampler, words: WordStream): string[] => {
  const n = c.words.length
  const noisy = sampler.fill(words, new Float64Array(n))
  const kept: number[] = []
  for (let i = 0; i < n; i++) {
    const x = (noisy[i] as number) + (c.counts[i] as number)
    noisy[i] = x
    if (x >= params.threshold) kept.push(i)
  }
  if (kept.length > params.size) {
    kept.sort((a, b) => (noisy[b] as number) - (noisy[a] as number) || byWord(c.words[a] as string, c.words[b] as string))
    kept.length = params.size
  }
  return kept.map((i) => c.words[i] as string).sort(byWord)
}

/** The selection as a measurement (run it through the release gate): documents → at most V words, sorted. */
export const dpVocabulary = (params: VocabularyParams): E.Either<DpError, Measurement<TokenDocuments, ReadonlyArray<string>>> => {
  const g = vocabularyGuarantee(params)
  if (E.isLeft(g)) return g
  const sampler = discreteLaplaceSampler(params.scale)
  const cap = params.relation.unit === 'document' ? params.wordsPerDocument : undefined
  return E.right({
    label: VOCABULARY_LABEL,
    event: eventOf(params, g.right),
    run: (docs, words) => selectFromCounts(vocabularyCounts(docs, cap), params, sampler, words),
  })
}

/** The budget of a selection: (ε, δ) for the whole step, under the trainer's relation. */
export interface VocabularyBudget {
  readonly epsilon: number
  readonly delta: number
  readonly size: number
  readonly relation: NeighbouringRelation
  readonly wordsPerDocument?: number
}

/**
 * (ε_vocab, δ_vocab) → (t, τ): t = cells/ε, τ the smallest integer ≥ 1 whose δ_fail is ≤ δ (module
 * comment). The result's `vocabularyGuarantee` is (≤ ε up to rounding of cells/t, ≤ δ).
 */
export const calibrateVocabulary = (budget: VocabularyBudget): E.Either<DpError, VocabularyParams> => {
  const { epsilon, delta } = budget
  if (!(epsilon > 0 && Number.isFinite(epsilon))) return E.left(invalidParameter('epsilon', epsilon, 'ε must be a finite number > 0'))
  if (!(delta > 0 && delta < 1)) return E.left(invalidParameter('delta', delta, 'δ must be in (0, 1)'))
  const size = checkSize(budget.size)
  if (E.isLeft(size)) return size
  const s = shape(budget.relation, budget.wordsPerDocument)
  if (E.isLeft(s)) return s
  const scale = s.right.cells / epsilon
  if (!(scale <= MAX_DISCRETE_LAPLACE_SCALE)) return E.left(infeasible('epsilon', `ε = ${epsilon} needs t = ${scale} > ${MAX_DISCRETE_LAPLACE_SCALE}, beyond the exact sampler`))
  const ell = s.right.newWords
  const pStar = -Math.expm1(Math.log1p(-delta) / ell)
  const fails = (tau: number): boolean => failure(releaseProbability(scale, tau, 1), ell) > delta
  let tau = Math.max(1, Math.ceil(1 + scale * (-Math.log(pStar) - Math.log1p(Math.exp(-1 / scale)))))
  if (!Number.isSafeInteger(tau + 2)) return E.left(infeasible('delta', `δ = ${delta} at t = ${scale} needs τ ≈ ${tau}, beyond 2^53`))
  while (fails(tau)) tau++
  while (tau > 1 && !fails(tau - 1)) tau--
  return E.right({
    size: budget.size,
    scale,
    threshold: tau,
    relation: budget.relation,
    ...(budget.wordsPerDocument === undefined ? {} : { wordsPerDocument: budget.wordsPerDocument }),
  })
}
