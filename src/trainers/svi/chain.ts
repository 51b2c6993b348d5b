/**
 * The private-SVI paper's budget chain (eq. 3, 5, 6) and its linear and advanced baselines, as the paper
 * computes the per-iteration noise: given (ε_tot, δ_tot), J iterations and the sampling ratio ν,
 * each returns the per-step (ε′, δ′), the per-iteration (ε_iter, δ_iter) and the noise multiplier
 * z = σ/Δ of the classical calibration σ² = 2 ln(1.25/δ_iter)Δ²/ε_iter² (eq. 3).
 *
 * The zCDP chain: ρ = the Bun–Steinke inverse of (ε_tot, δ_tot), ρ′ = ρ/J; the amplified step is
 * treated as a Gaussian of variance τ = 2 ln(1.25/δ′)Δ²/ε′², i.e. ε′ = √(4ρ′ ln(1.25/δ′)); eq. (6)
 * inverted gives ε_iter = ln(1 + (e^{ε′} − 1)/ν), δ_iter = δ′/ν. Where it is not a proof (also
 * docs/claims.md §2): an (ε′, δ′)-DP step is not ρ′-zCDP (and zCDP does not amplify under
 * subsampling), and eq. (3) is proved only for ε_iter < 1 while the chain puts ε_iter at 3.5–6.
 *
 * Eq. (5) leaves δ′ free. Two readings:
 * - 'total-over-J': δ′ = δ_tot/J (the one that keeps δ_iter ≤ 1 at every S of the paper);
 * - 'per-iteration': δ_iter fixed (10⁻⁶ in the issue's reading of the authors' code), δ′ = ν·δ_iter.
 * The same recomputation, with the reading 'total-over-J', is pinned against mpmath in
 * test/claims/svi.test.ts.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'

export type DeltaReading = 'total-over-J' | 'per-iteration'

export interface ChainInput {
  readonly epsilonTotal: number
  readonly deltaTotal: number
  readonly iterations: number
  /** ν = S/D. */
  readonly rate: number
  readonly deltaReading: DeltaReading
  /** δ_iter under the 'per-iteration' reading. */
  readonly deltaIteration: number
}

export interface ChainStep {
  readonly epsPrime: number
  readonly deltaPrime: number
  readonly epsIter: number
  readonly deltaIter: number
  /** σ/Δ by eq. (3). */
  readonly z: number
}

/** Inverse of Bun–Steinke Prop. 1.3, ε = ρ + 2√(ρ ln(1/δ)). */
export const rhoFromEpsilon = (eps: number, delta: number): number => {
  const L = -Math.log(delta)
  const r = Math.sqrt(L + eps) - Math.sqrt(L)
  return r * r
}

/** eq. (3): σ/Δ = √(2 ln(1.25/δ_iter))/ε_iter. */
export const classicalMultiplier = (epsIter: number, deltaIter: number): number => Math.sqrt(2 * Math.log(1.25 / deltaIter)) / epsIter

const step = (epsPrime: number, deltaPrime: number, nu: number): ChainStep => {
  const epsIter = Math.log1p(Math.expm1(epsPrime) / nu)
  const deltaIter = deltaPrime / nu
  return { epsPrime, deltaPrime, epsIter, deltaIter, z: classicalMultiplier(epsIter, deltaIter) }
}

/** δ′ under the reading, for a step that gets `share` of δ_tot (1 for the zCDP and linear chains, ½ for the advanced). */
const deltaPrimeOf = (c: ChainInput, share: number): number =>
  c.deltaReading === 'per-iteration' ? c.rate * c.deltaIteration : (share * c.deltaTotal) / c.iterations

/** A step the classical calibration can use, or the cause named: δ_iter not a probability (the δ reading), or ε_iter too large for any noise (the budget). */
const checkStep = (s: ChainStep, which: string, epsilonTotal: number): E.Either<DpError, ChainStep> =>
  !(s.deltaIter < 1)
    ? E.left(invalidParameter('deltaReading', s.deltaIter, `the ${which} chain gives δ_iter = ${s.deltaIter}, not a probability (δ_iter = δ′/ν must be below 1); read δ′ per iteration or lower --delta-total`))
    : s.z > 0 && Number.isFinite(s.z)
      ? E.right(s)
      : E.left(
          invalidParameter(
            'epsilonTotal',
            epsilonTotal,
            `the ${which} chain's per-iteration ε_iter = ${s.epsIter} leaves σ = √(2 ln(1.25/δ_iter))·Δ/ε_iter = ${s.z}·Δ: no finite, positive noise; give a smaller --epsilon-total`,
          ),
        )

/** The paper's zCDP chain, eq. (5)–(6). */
export const zcdpChain = (c: ChainInput): E.Either<DpError, ChainStep & { readonly rhoPerIteration: number }> => {
  const rhoPerIteration = rhoFromEpsilon(c.epsilonTotal, c.deltaTotal) / c.iterations
  const deltaPrime = deltaPrimeOf(c, 1)
  const s = checkStep(step(Math.sqrt(4 * rhoPerIteration * Math.log(1.25 / deltaPrime)), deltaPrime, c.rate), 'zCDP', c.epsilonTotal)
  return E.map((x: ChainStep) => ({ ...x, rhoPerIteration }))(s)
}

/** Linear composition: (Jε′, Jδ′) = (ε_tot, δ_tot) under 'total-over-J'; ε′ = ε_tot/J always. */
export const linearChain = (c: ChainInput): E.Either<DpError, ChainStep> => checkStep(step(c.epsilonTotal / c.iterations, deltaPrimeOf(c, 1), c.rate), 'linear', c.epsilonTotal)

/** Advanced composition (Dwork–Roth Thm 3.20): Jε′(e^{ε′} − 1) + √(2J ln(1/δ″))ε′ = ε_tot with δ″ = δ_tot/2. */
export const advancedChain = (c: ChainInput): E.Either<DpError, ChainStep> => {
  const J = c.iterations
  const root = Math.sqrt(2 * J * Math.log(2 / c.deltaTotal))
  const f = (e: number): number => J * e * Math.expm1(e) + root * e - c.epsilonTotal
  let lo = 0
  let hi = c.epsilonTotal
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2
    if (f(mid) > 0) hi = mid
    else lo = mid
  }
  return checkStep(step(lo, deltaPrimeOf(c, 0.5), c.rate), 'advanced', c.epsilonTotal)
}
