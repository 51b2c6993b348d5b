/**
 * dpaudit/trainers: the contract private trainers implement (plan ≡ ledger; ε from the accountant).
 *
 * @module
 */
export type * from './trainer.js'
