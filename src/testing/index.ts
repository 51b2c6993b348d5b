/**
 * dpaudit/testing: fast-check arbitraries for events and relations, for property tests of
 * accountants and pipelines built on dpaudit.
 *
 * @module
 */
export * from './arbitraries.js'
export * from './expect-private.js'
