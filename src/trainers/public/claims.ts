/**
 * The paper's claim a trainer plug-in states beside the accountant's ε, as one namespace value of
 * dpaudit/trainers: `Claims.pureClaim(source, statement, ε, relation)`, `Claims.rdpClaim`,
 * `Claims.noClaim` (../trainer.ts; the ClaimedGuarantee type is exported flat).
 *
 * @module
 */
export { pureClaim, rdpClaim, noClaim } from '../trainer.js'
