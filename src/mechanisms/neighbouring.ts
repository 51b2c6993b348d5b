/**
 * The neighbouring relation as a first-class value: which datasets count as neighbours and what
 * the unit is (a word, a document, a user). Every noise event states the relation its sensitivity
 * (or its stated guarantee) was computed under; every accountant answers under one relation.
 *
 * The kinds (D ≃ D′ is the ordered pair whose outputs the guarantee compares, P(M(D) ∈ S) ≤
 * e^ε P(M(D′) ∈ S) + δ):
 * - `add-remove`: D′ = D ∪ {x} or D′ = D ∖ {x} — both ordered pairs (unbounded DP);
 * - `remove-only`: D′ = D ∖ {x} only — the loss of the output on the dataset *with* the unit
 *   against the one without it (dp_accounting's REMOVE adjacency: P = M(D), Q = M(D ∖ {x}));
 * - `add-only`: D′ = D ∪ {x} only (dp_accounting's ADD adjacency: P = M(D), Q = M(D ∪ {x}));
 * - `replace-one`: D′ = D with one unit replaced by another (bounded DP, the size is fixed);
 * - `replace-special`: D′ = D with one unit replaced by the special unit ⊥, or back (Kairouz et al.
 *   2021, "Practical and private (deep) learning without sampling or shuffling", Def. 1.1;
 *   dp_accounting's REPLACE_SPECIAL). As in dp_accounting, ⊥ is the zero record: it contributes
 *   nothing to any query, so as the mechanism sees it a replace-special pair is an add/remove pair
 *   at a fixed, public dataset size (dp_accounting gives the Gaussian, Laplace and their Poisson
 *   subsamplings the same PLD under both relations). Randomized response on ⊥ outputs uniformly.
 *
 * Which conversions between kinds are sound is decided in accounting/normalize.ts.
 *
 * @module
 */

/** How neighbouring datasets differ (see the module comment). */
export type RelationKind = 'add-remove' | 'remove-only' | 'add-only' | 'replace-one' | 'replace-special'

/** Every relation kind, in the order messages list them. */
export const RELATION_KINDS: ReadonlyArray<RelationKind> = ['add-remove', 'remove-only', 'add-only', 'replace-one', 'replace-special']

/** What one unit of protection is. */
export type PrivacyUnit = 'record' | 'word' | 'document' | 'user'

/** Every unit, in the order messages list them. */
export const PRIVACY_UNITS: ReadonlyArray<PrivacyUnit> = ['record', 'word', 'document', 'user']

export interface NeighbouringRelation {
  readonly kind: RelationKind
  readonly unit: PrivacyUnit
}

export const relation = (kind: RelationKind, unit: PrivacyUnit): NeighbouringRelation => ({ kind, unit })

export const addRemove = (unit: PrivacyUnit = 'record'): NeighbouringRelation => relation('add-remove', unit)
export const replaceOne = (unit: PrivacyUnit = 'record'): NeighbouringRelation => relation('replace-one', unit)
export const addOnly = (unit: PrivacyUnit = 'record'): NeighbouringRelation => relation('add-only', unit)
export const removeOnly = (unit: PrivacyUnit = 'record'): NeighbouringRelation => relation('remove-only', unit)
export const replaceSpecial = (unit: PrivacyUnit = 'record'): NeighbouringRelation => relation('replace-special', unit)

export const sameRelation = (a: NeighbouringRelation, b: NeighbouringRelation): boolean =>
  a.kind === b.kind && a.unit === b.unit

/**
 * The kinds whose neighbours are "the unit is there or not" (add/remove and its two directions):
 * their unordered pairs are the same, so a sensitivity computed under one holds under the others.
 */
export const isAddRemoveFamily = (k: RelationKind): boolean => k === 'add-remove' || k === 'add-only' || k === 'remove-only'

/** The one direction a one-directional kind keeps, or undefined for the symmetric kinds. */
export const directionOf = (k: RelationKind): 'add' | 'remove' | undefined =>
  k === 'add-only' ? 'add' : k === 'remove-only' ? 'remove' : undefined

export const showRelation = (r: NeighbouringRelation): string => `${r.kind} one ${r.unit}`

/** The expected shape of a relation, for messages: "<add-remove|…> one <record|…>". */
export const RELATION_SYNTAX = `<${RELATION_KINDS.join('|')}> one <${PRIVACY_UNITS.join('|')}>`
