/**
 * The statistics an audit's ε lower bound rests on, as one namespace value of dpaudit/attacks:
 * `Bounds.clopperPearson(k, n, α)`, `Bounds.epsilonFromRates(fpr, fnr, δ)`, `Bounds.epsilonLowerBound`,
 * and how many trials a bound needs, `Bounds.certifiableCeiling` and `Bounds.trialsForCeiling`
 * (../bounds.ts; its types are exported flat).
 *
 * @module
 */
export { clopperPearson, epsilonFromRates, epsilonLowerBound, certifiableCeiling, trialsForCeiling } from '../bounds.js'
