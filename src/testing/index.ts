/**
 * dpaudit/testing: fast-check arbitraries for events and relations, for property tests of
 * accountants and pipelines built on dpaudit; `expectPrivate` for a mechanism; and
 * neighbour-differential tests for a whole private program (`expectNeighbourIndistinguishable`,
 * neighbouring text corpora, and `stubbedSecureRng`, a test double of the secure source that must
 * never protect real data).
 *
 * @module
 */
export * from './arbitraries.js'
export * from './expect-private.js'
export * from './neighbour-differential.js'
export * from './neighbours.js'
export * from './stubbed-secure.js'
