/**
 * Trade-off functions (hypothesis-testing privacy: Dong, Roth & Su 2019), as one namespace value of
 * dpaudit/accounting: `TradeOff.tradeOffCurve(event)`, `TradeOff.tprAtFpr`, the GDP μ (../tradeoff.ts).
 *
 * @module
 */
export { defaultAlphas, gaussianTradeOff, gdpMu, profileTradeOff, tprAtFpr, tradeOffAt, tradeOffCurve } from '../tradeoff.js'
