/**
 * The neighbouring relation as a first-class value: which datasets count as neighbours
 * (add/remove one unit, or replace one unit) and what the unit is (a word, a document, a user).
 * Every noise event states the relation its sensitivity was computed under.
 *
 * @module
 */

/** Neighbours differ by adding or removing one unit. */
export type RelationKind = 'add-remove' | 'replace-one'

/** What one unit of protection is. */
export type PrivacyUnit = 'record' | 'word' | 'document' | 'user'

export interface NeighbouringRelation {
  readonly kind: RelationKind
  readonly unit: PrivacyUnit
}

export const relation = (kind: RelationKind, unit: PrivacyUnit): NeighbouringRelation => ({ kind, unit })

export const addRemove = (unit: PrivacyUnit = 'record'): NeighbouringRelation => relation('add-remove', unit)
export const replaceOne = (unit: PrivacyUnit = 'record'): NeighbouringRelation => relation('replace-one', unit)

export const sameRelation = (a: NeighbouringRelation, b: NeighbouringRelation): boolean =>
  a.kind === b.kind && a.unit === b.unit

export const showRelation = (r: NeighbouringRelation): string => `${r.kind} one ${r.unit}`
