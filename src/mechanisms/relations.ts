/**
 * The neighbouring relations of dpaudit/mechanisms, as one namespace value
 * (`Relations.addRemove('document')`, `Relations.replaceOne('word')`, `Relations.showRelation(r)`):
 * their constructors, kinds, units and text form (./neighbouring.ts; its types are exported flat).
 *
 * @module
 */
export { PRIVACY_UNITS, RELATION_KINDS, RELATION_SYNTAX, addOnly, addRemove, relation, removeOnly, replaceOne, replaceSpecial, sameRelation, showRelation } from './neighbouring.js'
