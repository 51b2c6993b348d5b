/**
 * The f-DP trade-off curve of an event: β(α), the smallest type-II error any test between
 * neighbouring outputs can have at type-I error α (Dong, Roth & Su 2022, "Gaussian differential
 * privacy", Def. 2.1–2.3), and the largest TPR an attack can reach at a given FPR, 1 − β(FPR). This
 * is the bridge to audits: an empirical ROC point above the accounted curve refutes the account.
 *
 * Sound means never above the true curve (no attack can beat it). Two methods, the method used is
 * named in every answer:
 * - `gaussian-closed-form`: when the event is exactly a composition of Gaussians (no subsampling,
 *   no other leaf), it is μ-GDP with μ = √(Σ k_i (Δ_i/σ_i)²) (DRS 2022, Thm 2.7 for one Gaussian,
 *   Cor. 3.3 for composition), and β(α) = G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) exactly. Evaluated as
 *   ½ erfc((μ − z)/√2) with z = √2 erfcinv(2α) (so small α keeps its digits), at μ rounded up and β
 *   shaded down by a relative 1e-12 for the special functions' rounding.
 * - `privacy-profile`: any event an accountant answers. An (ε, δ)-DP mechanism is f_{ε,δ}-DP with
 *   f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (DRS 2022, Prop. 2.5, after Kairouz, Oh &
 *   Viswanath 2015), and one that is (ε, δ(ε))-DP for every ε is f-DP with f = sup_ε f_{ε,δ(ε)}
 *   (DRS 2022, Prop. 2.12). Every accountant's δ(ε) is an upper bound on the true profile, so each
 *   f_{ε,δ(ε)} lies below the true curve; so does their supremum over any finite ε grid, and the
 *   pointwise least δ of several accountants. With the PLD accountant's pessimistic discretisation
 *   this is the curve of its dominating pair as the grid is refined; on a finite grid it is a sound
 *   under-estimate of it.
 *
 * Between grid points of α use `tradeOffAt` (it evaluates the bound at that α); a straight line
 * between two points of a convex curve lies above it, so a drawn curve is sound only at its points.
 *
 * @module
 */
import erfc from '@stdlib/math-base-special-erfc'
import erfcinv from '@stdlib/math-base-special-erfcinv'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter, unsupportedEvent } from '../core/error.js'
import { nextUp } from '../core/numeric.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import { inverseSquareUp, resolveLeaf } from './normalize.js'
import { withoutDegenerate } from '../mechanisms/degenerate.js'
import { type PrivacyProfile, privacyProfileOf } from './profile.js'
import type { RegisteredAccountant } from './registry.js'
import { checkSamplingRelation, inferRelation } from './relation.js'

export type TradeOffMethod = 'gaussian-closed-form' | 'privacy-profile'

export interface TradeOffOptions {
  /** The relation to account under (default: inferred from the leaves, as `account` does). */
  readonly relation?: NeighbouringRelation
  /** Type-I errors to evaluate β at, each in [0, 1] (default: `defaultAlphas()`). */
  readonly alphas?: ArrayLike<number>
  /** Which accountants give the privacy profile (default: see ./profile.ts). */
  readonly accountants?: ReadonlyArray<RegisteredAccountant>
  /** Points of the ε grid of the privacy profile (default 400). */
  readonly epsilonPoints?: number
  /** PLD discretisation interval override. */
  readonly interval?: number
  /** Use the privacy profile even where the closed form applies (for comparisons). */
  readonly method?: TradeOffMethod
}

export interface TradeOffCurve {
  readonly alpha: Float64Array
  readonly beta: Float64Array
  readonly method: TradeOffMethod
  /** What was computed and from which theorem. */
  readonly description: string
  /** μ of the μ-GDP closed form, when that was the method. */
  readonly mu?: number
  /** The profile the curve was read from, when that was the method. */
  readonly profile?: PrivacyProfile
}

const SQRT2 = Math.SQRT2

/** α grid: 0, 60 log-spaced points in [1e-6, 1e-2], then steps of 0.01 to 1. */
export const defaultAlphas = (): Float64Array => {
  const out: number[] = [0]
  for (let i = 0; i < 60; i++) out.push(10 ** (-6 + (4 * i) / 60))
  for (let i = 1; i <= 100; i++) out.push(i / 100)
  return Float64Array.from(out)
}

/** G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS 2022, Def. 2.6), shaded down for rounding. */
export const gaussianTradeOff = (mu: number, alpha: number): number => {
  if (alpha <= 0) return 1
  if (alpha >= 1) return 0
  if (mu === 0) return 1 - alpha
  if (mu === Infinity) return 0
  // Φ⁻¹(1 − α) = √2 erfcinv(2α); Φ(x) = ½ erfc(−x/√2).
  const z = SQRT2 * erfcinv(2 * alpha)
  const b = 0.5 * erfc((mu - z) / SQRT2)
  return Math.max(0, b * (1 - 1e-12))
}

/** β(α) ≥ sup_i f_{ε_i, δ_i}(α) (DRS 2022, Props. 2.5 and 2.12). */
export const profileTradeOff = (p: PrivacyProfile, alpha: number): number => {
  if (alpha >= 1) return 0
  let best = 0
  for (let i = 0; i < p.epsilon.length; i++) {
    const e = p.epsilon[i] as number
    const keep = 1 - (p.delta[i] as number)
    if (!(keep > 0)) continue
    // e^ε α with α = 0 is 0 even at ε = ∞.
    const a = keep - (alpha === 0 ? 0 : Math.exp(e) * alpha)
    const b = Math.exp(-e) * (keep - alpha)
    const v = Math.max(a, b)
    if (v > best) best = v
  }
  // One rounding per term above: shade by a few ulps of 1.
  return Math.max(0, best - 4 * Number.EPSILON)
}

/** β at any α of a computed curve, by its own method (sound; not an interpolation). */
export const tradeOffAt = (curve: TradeOffCurve, alpha: number): number =>
  curve.method === 'gaussian-closed-form' ? gaussianTradeOff(curve.mu as number, alpha) : profileTradeOff(curve.profile as PrivacyProfile, alpha)

// -------------------------------------------------------------------------------------------
// μ-GDP
// -------------------------------------------------------------------------------------------

export interface GdpBound {
  /** μ such that the event is μ-GDP (a sound upper bound; exact when `exact`). */
  readonly mu: number
  readonly exact: boolean
  readonly method: string
}

/**
 * Σ k (Δ/σ)² over a tree of Gaussians, or why the tree is not one. Subsampled Gaussians are bounded
 * by their unsampled μ: a Poisson-sampled output under add/remove is a mixture (1 − q)P + qQ against
 * P, and the hockey-stick divergence is jointly convex, so its whole privacy profile is at most that
 * of (P, Q) (likewise sampling without replacement under replace-one); sound, not tight — the CLT
 * μ of DRS 2022 Thm 3.5 is an approximation and is never reported as a bound.
 */
const gaussianMuSquared = (
  e: PrivacyEvent,
  relation: NeighbouringRelation,
  path: string,
): E.Either<DpError, { readonly mu2: number; readonly sampled: boolean }> => {
  switch (e._tag) {
    case 'NoOp':
      return E.right({ mu2: 0, sampled: false })
    case 'Gaussian': {
      const r = resolveLeaf(e, relation, path)
      if (E.isLeft(r)) return r
      const nm = (r.right.leaf as { readonly noiseMultiplier: number }).noiseMultiplier
      return E.right({ mu2: inverseSquareUp(nm), sampled: false })
    }
    case 'Labeled':
      return gaussianMuSquared(e.event, relation, `${path}.event`)
    case 'SelfCompose': {
      if (e.count === 0) return E.right({ mu2: 0, sampled: false })
      const r = gaussianMuSquared(e.event, relation, `${path}.event`)
      return E.isLeft(r) ? r : E.right({ mu2: e.count * r.right.mu2, sampled: r.right.sampled })
    }
    case 'Compose': {
      let mu2 = 0
      let sampled = false
      for (const [i, c] of e.events.entries()) {
        const r = gaussianMuSquared(c, relation, `${path}.events[${i}]`)
        if (E.isLeft(r)) return r
        mu2 += r.right.mu2
        sampled ||= r.right.sampled
      }
      return E.right({ mu2, sampled })
    }
    case 'PoissonSample':
    case 'SampleWithoutReplacement': {
      const ok = checkSamplingRelation(e, relation, path)
      if (E.isLeft(ok)) return ok
      const r = gaussianMuSquared(e.event, relation, `${path}.event`)
      return E.isLeft(r) ? r : E.right({ mu2: r.right.mu2, sampled: r.right.mu2 > 0 || r.right.sampled })
    }
    default:
      return E.left(unsupportedEvent(path, 'gdp', e._tag, `${e._tag} is not a Gaussian mechanism: no μ-GDP bound is derived for it`))
  }
}

/**
 * The μ of μ-GDP for an event built from Gaussians: exact for compositions of Gaussians (DRS 2022,
 * Cor. 3.3), a sound upper bound when some are subsampled (see `gaussianMuSquared`); refused
 * naming the first other leaf.
 */
export const gdpMu = (given: PrivacyEvent, options: { readonly relation?: NeighbouringRelation } = {}): E.Either<DpError, GdpBound> => {
  const event = withoutDegenerate(given)
  const rel = options.relation !== undefined ? E.right(options.relation) : inferRelation(event, '$')
  if (E.isLeft(rel)) return rel
  const r = gaussianMuSquared(event, rel.right, '$')
  if (E.isLeft(r)) return r
  const mu = r.right.mu2 === 0 ? 0 : nextUp(Math.sqrt(r.right.mu2) * (1 + 4 * Number.EPSILON))
  return E.right(
    r.right.sampled
      ? {
          mu,
          exact: false,
          method:
            'μ-GDP of the composed Gaussians with subsampling ignored (sound by joint convexity of the hockey-stick divergence; ' +
            'not tight, and not the CLT approximation of Dong, Roth & Su 2022, Thm 3.5)',
        }
      : { mu, exact: true, method: 'μ-GDP of composed Gaussians, μ = √(Σ k (Δ/σ)²) (Dong, Roth & Su 2022, Thm 2.7 and Cor. 3.3)' },
  )
}

// -------------------------------------------------------------------------------------------
// the curve
// -------------------------------------------------------------------------------------------

const checkAlphas = (alphas: ArrayLike<number>): E.Either<DpError, Float64Array> => {
  if (alphas.length === 0) return E.left(invalidParameter('alphas', alphas, 'at least one type-I error α is needed'))
  for (let i = 0; i < alphas.length; i++) {
    const a = alphas[i] as number
    if (!(a >= 0 && a <= 1)) return E.left(invalidParameter(`alphas[${i}]`, a, 'a type-I error α must be in [0, 1]'))
  }
  return E.right(Float64Array.from(alphas))
}

/**
 * The trade-off curve β(α) of an event on a grid of α (see the module note for the methods).
 * Sound: at every returned α, β is at most the true trade-off of the event under the relation.
 */
export const tradeOffCurve = (given: PrivacyEvent, options: TradeOffOptions = {}): E.Either<DpError, TradeOffCurve> => {
  const event = withoutDegenerate(given)
  const alphas = checkAlphas(options.alphas ?? defaultAlphas())
  if (E.isLeft(alphas)) return alphas
  const rel = options.relation !== undefined ? E.right(options.relation) : inferRelation(event, '$')
  if (E.isLeft(rel)) return rel
  const alpha = alphas.right
  const beta = new Float64Array(alpha.length)
  if (options.method !== 'privacy-profile') {
    const g = gdpMu(event, { relation: rel.right })
    if (E.isRight(g) && g.right.exact) {
      for (let i = 0; i < alpha.length; i++) beta[i] = gaussianTradeOff(g.right.mu, alpha[i] as number)
      return E.right({
        alpha,
        beta,
        method: 'gaussian-closed-form',
        mu: g.right.mu,
        description: `G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) with μ = ${g.right.mu.toPrecision(6)}: ${g.right.method}`,
      })
    }
    if (options.method === 'gaussian-closed-form')
      return E.left(
        E.isLeft(g) ? g.left : unsupportedEvent('$', 'gdp', event._tag, 'the event is not exactly a composition of Gaussians (it is subsampled): use the privacy profile'),
      )
  }
  const p = privacyProfileOf(event, rel.right, options)
  if (E.isLeft(p)) return p
  for (let i = 0; i < alpha.length; i++) beta[i] = profileTradeOff(p.right, alpha[i] as number)
  const used = [...new Set(p.right.source)].join(', ')
  return E.right({
    alpha,
    beta,
    method: 'privacy-profile',
    profile: p.right,
    description:
      `sup over ${p.right.epsilon.length} ε of f_{ε,δ(ε)}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Dong, Roth & Su 2022, Props. 2.5 and 2.12), ` +
      `δ(ε) the least of the accountants' sound answers (${used})`,
  })
}

/** The largest TPR any membership test reaches at this FPR: 1 − β(FPR), an upper bound (sound). */
export interface TprAnswer {
  readonly fpr: number
  readonly tpr: number
  readonly method: TradeOffMethod
  readonly description: string
}

export const tprAtFpr = (event: PrivacyEvent, fpr: number, options: Omit<TradeOffOptions, 'alphas'> = {}): E.Either<DpError, TprAnswer> => {
  if (!(fpr >= 0 && fpr <= 1)) return E.left(invalidParameter('fpr', fpr, 'a false-positive rate must be in [0, 1]'))
  const c = tradeOffCurve(event, { ...options, alphas: [fpr] })
  if (E.isLeft(c)) return c
  return E.right({ fpr, tpr: Math.min(1, 1 - (c.right.beta[0] as number)), method: c.right.method, description: c.right.description })
}
