/**
 * dpaudit/attacks: turning attack success into statistically valid ε lower bounds.
 *
 * @module
 */
export * from './bounds.js'
