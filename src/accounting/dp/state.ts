/**
 * The shared fold of the (ε, δ) accountants: an event tree becomes a multiset of per-step terms
 * with multiplicities. SelfCompose multiplies a count (10,000 steps are one entry), Compose merges
 * multisets, sampling wraps the sampled sub-multiset. Terms whose (ε, δ) depends on how the query's
 * δ is split — Gaussians, discrete Gaussians, zCDP guarantees and subsampled compositions — stay
 * symbolic until a query fixes the split (./query.ts).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, unsupportedEvent } from '../../core/error.js'
import { absurd, childPath, isNoiseEvent, noOp, type PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Notes } from '../accountant.js'
import { mixtureMaxShift, type NormalizedLeaf, pureEpsilonOf, resolveLeaf } from '../normalize.js'
import { checkSamplingRelation } from '../relation.js'
import { TRUNCATION_SCOPE } from '../truncation.js'
import { amplify } from './amplification.js'
import { selectionDelta, selectionEpsilon, selectionRunRelation } from './selection.js'

const WITH_REPLACEMENT_NOTE =
  'sampling with replacement: Balle, Barthe & Gaboardi 2018, Thm 10 (ε′ = log(1 + η(e^ε − 1)), δ′ = Σ_k P(K = k)·δ_{M,k}(ε), K ~ Bin(m, 1/n)), the k-fold group profile from the inner profile'
import type { StatedCurve } from '../stated.js'

export type SamplingScheme = 'poisson' | 'without-replacement'

export type DpTerm =
  /** A fixed (ε, δ)-DP step. */
  | { readonly _tag: 'Fixed'; readonly epsilon: number; readonly delta: number }
  /** Gaussian with σ/Δ = noiseMultiplier: (ε, δ) on the analytic-Gaussian curve, chosen per query. */
  | { readonly _tag: 'Gaussian'; readonly noiseMultiplier: number }
  /**
   * A scalar discrete Gaussian (σ, integer shift Δ): (ε, δ) on its exact curve (Canonne, Kamath &
   * Steinke 2020, Thm 7), chosen per query. A vector one, whose differences the scalar shift need
   * not dominate, is a zCDP step instead.
   */
  | { readonly _tag: 'DiscreteGaussian'; readonly sigma: number; readonly sensitivity: number }
  /** A (ξ, ρ)-zCDP step (ξ = 0: ρ-zCDP): (ε, δ) from the zCDP conversion, chosen per query. */
  | { readonly _tag: 'Zcdp'; readonly rho: number; readonly xi: number }
  /** A stated RDP curve: (ε, δ) at the best stated order (CKS 2020, Prop. 12), chosen per query. */
  | { readonly _tag: 'Rdp'; readonly curve: StatedCurve }
  /** A stated privacy profile of several points: the least ε_i with δ_i within the share, per query. */
  | { readonly _tag: 'Profile'; readonly epsilons: ReadonlyArray<number>; readonly deltas: ReadonlyArray<number> }
  /** A subsampled sub-composition: composed to one (ε, δ) per query, then amplified by `rate`. */
  | { readonly _tag: 'Sampled'; readonly scheme: SamplingScheme; readonly rate: number; readonly inner: DpState }
  /**
   * m draws with replacement from n records: the inner sub-composition's profile, through group
   * privacy for each number of draws of the differing record (../with-replacement.ts), per query.
   */
  | { readonly _tag: 'WithReplacement'; readonly batchSize: number; readonly datasetSize: number; readonly inner: DpState }
  /**
   * Repeat-and-select of a run with δ > 0 (K truncated negative binomial of shape η, or Poisson for η = ∞; mean μ): the run
   * composed to one (ε, δ) per query, then selected (./selection.ts).
   */
  | { readonly _tag: 'Selected'; readonly mean: number; readonly shape: number; readonly inner: DpState }

export interface DpEntry {
  /** Canonical text of the term; equal terms merge. */
  readonly key: string
  readonly term: DpTerm
  readonly count: number
}

export interface DpState {
  /** Sorted by key. */
  readonly entries: ReadonlyArray<DpEntry>
  /** A NonPrivate release was composed (ε = ∞). */
  readonly nonPrivate: boolean
  readonly notes: Notes
}

export const emptyState: DpState = { entries: [], nonPrivate: false, notes: [] }

const termKey = (t: DpTerm): string => {
  switch (t._tag) {
    case 'Fixed':
      return `F(${t.epsilon},${t.delta})`
    case 'Gaussian':
      return `G(${t.noiseMultiplier})`
    case 'DiscreteGaussian':
      return `DG(${t.sigma},${t.sensitivity})`
    case 'Zcdp':
      return t.xi === 0 ? `Z(${t.rho})` : `Z(${t.rho},${t.xi})`
    case 'Rdp':
      return `R(${t.curve.orders.join(',')};${t.curve.rdp.join(',')})`
    case 'Profile':
      return `P(${t.epsilons.join(',')};${t.deltas.join(',')})`
    case 'Sampled':
      return `S(${t.scheme},${t.rate},[${t.inner.entries.map((e) => `${e.count}×${e.key}`).join(';')}])`
    case 'WithReplacement':
      return `W(${t.batchSize},${t.datasetSize},[${t.inner.entries.map((e) => `${e.count}×${e.key}`).join(';')}])`
    case 'Selected':
      return `Sel(${t.mean},${t.shape},[${t.inner.entries.map((e) => `${e.count}×${e.key}`).join(';')}])`
  }
}

/** Terms that release nothing about the data are dropped, so they never break homogeneity. */
const isTrivial = (t: DpTerm): boolean =>
  (t._tag === 'Fixed' && t.epsilon === 0 && t.delta === 0) ||
  (t._tag === 'Gaussian' && t.noiseMultiplier === Infinity) ||
  (t._tag === 'DiscreteGaussian' && t.sigma === Infinity) ||
  (t._tag === 'Zcdp' && t.rho === 0 && t.xi === 0)

const mergeNotes = (a: Notes, b: Notes): Notes => (b.length === 0 ? a : [...a, ...b.filter((n) => !a.includes(n))])

/** A state holding `count` copies of one term. */
export const single = (term: DpTerm, count = 1): DpState =>
  isTrivial(term) || count === 0 ? emptyState : { entries: [{ key: termKey(term), term, count }], nonPrivate: false, notes: [] }

/** Multiset union (adaptive composition) of any number of states, in one pass. */
export const mergeAll = (states: ReadonlyArray<DpState>): DpState => {
  const byKey = new Map<string, DpEntry>()
  let nonPrivate = false
  const notes = new Set<string>()
  for (const s of states) {
    for (const e of s.entries) {
      const prev = byKey.get(e.key)
      byKey.set(e.key, prev === undefined ? e : { ...prev, count: prev.count + e.count })
    }
    nonPrivate = nonPrivate || s.nonPrivate
    for (const n of s.notes) notes.add(n)
  }
  return {
    entries: [...byKey.values()].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0)),
    nonPrivate,
    notes: [...notes],
  }
}

/** Multiset union of two states. */
export const merge = (a: DpState, b: DpState): DpState => mergeAll([a, b])

/** `count` repetitions; zero repetitions release nothing (notes are kept). */
export const scale = (s: DpState, count: number): DpState =>
  count === 0
    ? { ...emptyState, notes: s.notes }
    : count === 1
      ? s
      : { entries: s.entries.map((e) => ({ ...e, count: e.count * count })), nonPrivate: s.nonPrivate, notes: s.notes }

const withNote = (s: DpState, note: string | undefined): DpState =>
  note === undefined ? s : { ...s, notes: mergeNotes(s.notes, [note]) }

/** Total number of non-trivial steps. */
export const totalCount = (s: DpState): number => s.entries.reduce((n, e) => n + e.count, 0)

/**
 * Leaf → term. Laplace is pure (1/noiseMultiplier)-DP and the discrete Laplace pure (Δ/t)-DP;
 * randomized response, bitwise RR, the exponential mechanism and PureDP are pure ε (see
 * `pureEpsilonOf`); ApproxDP is taken as stated; Gaussian, discrete Gaussian and zCDP have no single
 * (ε, δ) and stay symbolic — a discrete Gaussian on its exact scalar curve when the scalar shift
 * dominates its differences, else as the Δ²/(2σ²)-zCDP step it is (CKS 2020, Thm 4).
 */
const leafTerm = (l: NormalizedLeaf): DpTerm => {
  switch (l._tag) {
    case 'Gaussian':
      return { _tag: 'Gaussian', noiseMultiplier: l.noiseMultiplier }
    case 'DiscreteGaussian':
      return l.scalarShift
        ? { _tag: 'DiscreteGaussian', sigma: l.sigma, sensitivity: l.sensitivity }
        : { _tag: 'Zcdp', rho: (l.sensitivity * l.sensitivity) / (2 * l.sigma * l.sigma), xi: 0 }
    case 'ZCDP':
      // (ξ, 0)-zCDP is pure ξ-DP: a fixed step.
      return l.rho === 0 ? { _tag: 'Fixed', epsilon: l.xi, delta: 0 } : { _tag: 'Zcdp', rho: l.rho, xi: l.xi }
    case 'StatedRdp':
      return { _tag: 'Rdp', curve: l.curve }
    case 'StatedProfile':
      return l.epsilons.length === 1
        ? { _tag: 'Fixed', epsilon: l.epsilons[0] as number, delta: l.deltas[0] as number }
        : { _tag: 'Profile', epsilons: l.epsilons, deltas: l.deltas }
    case 'ApproxDP':
      return { _tag: 'Fixed', epsilon: l.epsilon, delta: l.delta }
    case 'MixtureOfGaussians': {
      // Dominated by the largest shift's Gaussian (hockey-stick divergence jointly convex; ../pld/pairs.ts).
      const m = mixtureMaxShift(l.shifts)
      return m === 0 ? { _tag: 'Fixed', epsilon: 0, delta: 0 } : { _tag: 'Gaussian', noiseMultiplier: 1 / m }
    }
    default:
      return { _tag: 'Fixed', epsilon: pureEpsilonOf(l) ?? Infinity, delta: 0 }
  }
}

/**
 * Subsampling. A non-private inner release stays non-private (sound; a subsampled non-private
 * release is in fact (0, γ)-DP, which we do not exploit). One fixed (ε, δ) step is amplified at
 * once — the same for every accountant; anything else is amplified per query, after the inner
 * multiset has been composed to a single (ε, δ).
 */
const sampled = (scheme: SamplingScheme, rate: number, inner: DpState): DpState => {
  if (inner.nonPrivate) return inner
  const only = inner.entries[0]
  if (inner.entries.length === 0) return inner
  if (inner.entries.length === 1 && only !== undefined && only.count === 1 && only.term._tag === 'Fixed')
    return { ...single({ _tag: 'Fixed', ...amplify(rate, only.term) }), notes: inner.notes }
  return { ...single({ _tag: 'Sampled', scheme, rate, inner: { ...inner, notes: [] } }), notes: inner.notes }
}

/**
 * Repeat-and-select (./selection.ts): a pure ε-DP run gives (2 + η)ε (Liu & Talwar 2019 for the geometric
 * K; Papernot & Steinke 2022, Cor. 3), or ε + μ·tanh(ε/2) for a Poisson K, at once; one fixed (ε, δ)
 * step gives (that ε, 1 − E[(1 − δ)^K]) at once; anything else is composed to one (ε, δ) per query,
 * then selected.
 */
const repeatAndSelect = (inner: DpState, mean: number, shape: number, path: string): DpState => {
  if (inner.nonPrivate || inner.entries.length === 0) return inner
  const law = shape === Infinity ? `Poisson, mean ${mean}` : `truncated negative binomial η = ${shape}, mean ${mean}`
  const pureRule = shape === Infinity ? 'ε + μ·tanh(ε/2) (Papernot & Steinke 2022, Thm 6 as λ → ∞)' : '(2 + η)ε (Liu & Talwar 2019; Papernot & Steinke 2022, Cor. 3)'
  if (inner.entries.every((en) => en.term._tag === 'Fixed' && en.term.delta === 0)) {
    const eps = inner.entries.reduce((acc, en) => acc + en.count * (en.term as { readonly epsilon: number }).epsilon, 0)
    const note = `${path}: repeat-and-select of a ${eps}-DP run, ${law}: ${pureRule}-DP`
    return { ...single({ _tag: 'Fixed', epsilon: selectionEpsilon(mean, shape, eps), delta: 0 }), notes: [...inner.notes, note] }
  }
  const note =
    `${path}: repeat-and-select of an (ε, δ)-DP run, ${law}: ε by ${pureRule}, δ′ = 1 − E[(1 − δ)^K] — the run split into its δ branch and a pure part ` +
    '(Kairouz, Oh & Viswanath 2015, Thm 2.1) and the pure theorem applied to the rest'
  const only = inner.entries[0]
  if (inner.entries.length === 1 && only !== undefined && only.count === 1 && only.term._tag === 'Fixed')
    return {
      ...single({ _tag: 'Fixed', epsilon: selectionEpsilon(mean, shape, only.term.epsilon), delta: selectionDelta(mean, shape, only.term.delta) }),
      notes: [...inner.notes, note],
    }
  return { ...single({ _tag: 'Selected', mean, shape, inner: { ...inner, notes: [] } }), notes: mergeNotes(inner.notes, [note]) }
}

/**
 * Folds an event tree into a state; every failure names the path of the offending sub-event.
 * Parameters are assumed valid (the accountant runs `validateEvent` first).
 */
export const foldEvent = (e: PrivacyEvent, relation: NeighbouringRelation, path: string): E.Either<DpError, DpState> => {
  if (isNoiseEvent(e)) {
    const r = resolveLeaf(e, relation, path)
    if (E.isLeft(r)) return r
    return E.right(withNote(single(leafTerm(r.right.leaf)), r.right.note))
  }
  switch (e._tag) {
    case 'NoOp':
      return E.right(emptyState)
    case 'NonPrivate':
      return E.right({ entries: [], nonPrivate: true, notes: [] })
    case 'Compose': {
      const parts: DpState[] = []
      for (let i = 0; i < e.events.length; i++) {
        const r = foldEvent(e.events[i] as PrivacyEvent, relation, childPath(path, e, i))
        if (E.isLeft(r)) return r
        parts.push(r.right)
      }
      return E.right(mergeAll(parts))
    }
    case 'SelfCompose': {
      const r = foldEvent(e.event, relation, childPath(path, e))
      return E.isLeft(r) ? r : E.right(scale(r.right, e.count))
    }
    case 'PoissonSample': {
      // q = 0 includes no unit: the inner event runs on the empty sample, independent of the data (a NoOp under any relation; issue 26).
      if (e.q === 0) return foldEvent(noOp, relation, path)
      const ok = checkSamplingRelation(e, relation, path)
      if (E.isLeft(ok)) return ok
      const r = foldEvent(e.event, relation, childPath(path, e))
      return E.isLeft(r) ? r : E.right(sampled('poisson', e.q, r.right))
    }
    case 'SampleWithoutReplacement': {
      const ok = checkSamplingRelation(e, relation, path)
      if (E.isLeft(ok)) return ok
      const r = foldEvent(e.event, relation, childPath(path, e))
      return E.isLeft(r) ? r : E.right(sampled('without-replacement', e.m / e.n, r.right))
    }
    case 'TruncatedPoissonSample':
      return E.left(unsupportedEvent(path, '(ε, δ) composition', e._tag, TRUNCATION_SCOPE))
    case 'WithReplacementSample': {
      const ok = checkSamplingRelation(e, relation, path)
      if (E.isLeft(ok)) return ok
      const r = foldEvent(e.event, relation, childPath(path, e))
      if (E.isLeft(r)) return r
      const inner = r.right
      if (inner.nonPrivate || inner.entries.length === 0) return E.right(inner)
      return E.right({
        ...single({ _tag: 'WithReplacement', batchSize: e.batchSize, datasetSize: e.datasetSize, inner: { ...inner, notes: [] } }),
        notes: mergeNotes(inner.notes, [WITH_REPLACEMENT_NOTE]),
      })
    }
    case 'Labeled':
      return foldEvent(e.event, relation, childPath(path, e))
    case 'RepeatAndSelect': {
      // K ≡ 1 (the truncated negative binomial with mean 1): one run.
      if (e.mean === 1 && e.shape !== Infinity) return foldEvent(e.event, relation, childPath(path, e))
      const r = foldEvent(e.event, selectionRunRelation(relation), childPath(path, e))
      return E.isLeft(r) ? r : E.right(repeatAndSelect(r.right, e.mean, e.shape, path))
    }
    default:
      return absurd(e)
  }
}
