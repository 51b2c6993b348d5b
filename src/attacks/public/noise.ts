/**
 * The noise the zoo's mechanisms are built from, as one namespace value of dpaudit/attacks:
 * `Noise.snapped(Noise.laplaceNoise(rng, b))` (Laplace snapped to the 2⁻²⁰ grid `Noise.SNAP_GRID`:
 * unsnapped floating-point Laplace is not DP, Mironov 2012), `Noise.gaussianNoise`, `Noise.bernoulli`,
 * `Noise.exponentialNoise`, `Noise.gumbelNoise`, `Noise.twoSidedGeometric` (../zoo/noise.ts).
 *
 * @module
 */
export { gaussianNoise, laplaceNoise, bernoulli, exponentialNoise, gumbelNoise, twoSidedGeometric, snapped, SNAP_GRID } from '../zoo/noise.js'
