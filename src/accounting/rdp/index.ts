/**
 * The RDP accountant and its parts: order grids, closed-form curves, the exact sampled Gaussian,
 * general subsampling bounds, the curve fold, the (ε, δ) conversion, and replace-one from add/remove
 * by the weak triangle inequality.
 *
 * @module
 */
export { DEFAULT_ORDERS, MAX_ORDER, validateOrders } from './orders.js'
export {
  CLOSED_FORM_MARGIN,
  bitwiseRandomizedResponseRdp,
  discreteGaussianRdp,
  discreteLaplaceRdp,
  exponentialRdp,
  gaussianRdp,
  laplaceLogMomentMinus1,
  laplaceRdp,
  leafCurve,
  leafPureEpsilon,
  leafRdp,
  pureDpRdp,
  randomizedResponseRdp,
  zcdpRdp,
} from './closed-forms.js'
export {
  MAX_QUADRATURE_POINTS,
  MIN_FRACTIONAL_ORDER,
  SAMPLED_GAUSSIAN_MARGIN,
  makeSampledGaussian,
  subsampledGaussianCurve,
  subsampledGaussianRdp,
  subsampledGaussianRdpWithMethod,
  type QuadratureResult,
  type SampledGaussian,
  type SampledGaussianMethod,
} from './subsampled-gaussian.js'
export {
  SUBSAMPLED_LAPLACE_MARGIN,
  subsampledLaplaceCurve,
  subsampledLaplaceIntegerRdp,
  type SubsampledLaplaceMethod,
} from './subsampled-laplace.js'
export {
  SUBSAMPLED_DISCRETE_GAUSSIAN_MARGIN,
  subsampledDiscreteGaussianCurve,
  subsampledDiscreteGaussianIntegerRdp,
  type SubsampledDiscreteGaussianMethod,
} from './subsampled-discrete-gaussian.js'
export { fromIntegerOrders, integerOrdersFor } from './integer-orders.js'
export { poissonGeneralCurve, zhuWangBound, zhuWangPoissonRdp } from './poisson-general.js'
export {
  logPearsonVajdaGaussian,
  wbkBound,
  wbkGaussianBound,
  withoutReplacementCurve,
  withoutReplacementGaussianCurve,
} from './without-replacement.js'
export {
  WBK_GAUSSIAN_NOTE,
  WBK_NOTE,
  ZHU_WANG_NOTE,
  rdpCurve,
  rdpCurveDetailed,
  rdpEvaluator,
  type RdpCurveResult,
  type RdpOrderEvaluator,
} from './curve.js'
export { CONTINUOUS_ITERATIONS, refineOrder, type OrderSearchResult } from './continuous.js'
export { rdpToDelta, rdpToEpsilon } from './convert.js'
export { KL_PROXY_ORDER, rdpAtOrder, type RenyiBound } from './extreme-orders.js'
export {
  REPLACE_ONE_ORDERS,
  replaceOneCurve,
  replaceOneEvaluator,
  replaceOneFromAddRemove,
  replaceOneInnerOrders,
  replaceOneToEpsilon,
  weakTriangleWeight,
  type ReplaceOneCurve,
  type ReplaceOneEpsilon,
} from './group.js'
export {
  MAX_TERMS,
  makeRdpAccountant,
  rdpAt,
  rdpCurveAtOrders,
  type RdpAccountantOptions,
  type RdpState,
  type RdpTerm,
} from './accountant.js'
