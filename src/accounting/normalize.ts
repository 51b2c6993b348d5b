/**
 * Resolving a noise event against the accountant's neighbouring relation. Every leaf states the
 * relation its sensitivity assumes; an accountant states its answers under one relation. A leaf
 * under the same relation passes through; the sound conversions between relations of one unit are
 * listed at `resolveLeaf` (replace = remove then add, so by the triangle inequality the sensitivity
 * at most doubles; for stated guarantees, group privacy with group size 2); everything else is
 * refused with the path of the leaf and the reason.
 *
 * The result is relation-free: noise relative to sensitivity, or a guarantee. The discrete
 * mechanisms keep σ (or t) and Δ apart: on the integers a shift by Δ is not a rescaled shift by 1.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { MIN_NORMAL, roundUpLoss, roundUpSubnormal } from '../core/numeric.js'
import { type DpError, incompatibleNeighbouring } from '../core/error.js'
import { absurd, type MixtureOfGaussians, type NoiseEvent, type TreeAggregation } from '../mechanisms/event.js'
import { profileEpsilon, sortedCurve, type StatedCurve } from './stated.js'
import { directionOf, isAddRemoveFamily, type NeighbouringRelation, sameRelation, showRelation } from '../mechanisms/neighbouring.js'

export type NormalizedLeaf =
  /** Gaussian with σ/Δ₂ = noiseMultiplier. */
  | { readonly _tag: 'Gaussian'; readonly noiseMultiplier: number }
  /** Laplace with b/Δ₁ = noiseMultiplier: pure (1/noiseMultiplier)-DP. */
  | { readonly _tag: 'Laplace'; readonly noiseMultiplier: number }
  /** Discrete Laplace of scale t shifted by the integer Δ = `sensitivity`: pure (Δ/t)-DP. */
  | { readonly _tag: 'DiscreteLaplace'; readonly scale: number; readonly sensitivity: number }
  /**
   * Discrete Gaussian σ with integer L2 sensitivity Δ. `scalarShift`: every neighbouring difference
   * is k times one coordinate vector with |k| ≤ Δ, so the scalar shift by Δ dominates it (true for a
   * scalar query, and for Δ = 1 whatever the dimension).
   */
  | { readonly _tag: 'DiscreteGaussian'; readonly sigma: number; readonly sensitivity: number; readonly scalarShift: boolean }
  | { readonly _tag: 'RandomizedResponse'; readonly epsilon: number; readonly k: number }
  /**
   * k-ary randomized response under replace-special: the pair is its output on a value against its
   * uniform output on ⊥, in both orders (see `rrToUniformLosses`).
   */
  | { readonly _tag: 'RandomizedResponseToUniform'; readonly epsilon: number; readonly k: number }
  | { readonly _tag: 'BitwiseRandomizedResponse'; readonly flipProbability: number; readonly bits: number }
  /** ε-DP and ε-bounded-range. */
  | { readonly _tag: 'Exponential'; readonly epsilon: number }
  | { readonly _tag: 'PureDP'; readonly epsilon: number }
  | { readonly _tag: 'ApproxDP'; readonly epsilon: number; readonly delta: number }
  /** (ξ, ρ)-zCDP: D_α ≤ ξ + ρα (Bun & Steinke 2016, Def. 1.1); ξ = 0 is ρ-zCDP. */
  | { readonly _tag: 'ZCDP'; readonly rho: number; readonly xi: number }
  /**
   * A mixture of Gaussians (mechanisms/event.ts `MixtureOfGaussians`): shifts μ_i = c_i/σ with weights
   * w_i (the zero weights dropped, the rest divided by their sum if below 1), the pair (N(0, 1), Σ w_i N(μ_i, 1)).
   */
  | { readonly _tag: 'MixtureOfGaussians'; readonly shifts: ReadonlyArray<number>; readonly weights: ReadonlyArray<number> }
  /** A stated RDP curve, sorted by order (./stated.ts reads it between orders). */
  | { readonly _tag: 'StatedRdp'; readonly curve: StatedCurve }
  /** A stated privacy profile: (ε_i, δ_i)-DP for every i. */
  | { readonly _tag: 'StatedProfile'; readonly epsilons: ReadonlyArray<number>; readonly deltas: ReadonlyArray<number> }

export interface Resolved {
  readonly leaf: NormalizedLeaf
  /** Present when a conversion was applied; says which and where. */
  readonly note?: string
}

/**
 * Levels of a tree over T steps whose nodes complete within T steps: ⌈log₂(T + 1)⌉ (T = 1: the leaf
 * alone; T = 4: leaf, pair, root). A step's leaf lies under one node per level (Kairouz et al. 2021,
 * App. D; dp_accounting's tree aggregation takes the same depth).
 */
export const treeLevels = (steps: number): number => (steps <= 0 ? 0 : steps.toString(2).length) // bit length of T = ⌈log₂(T + 1)⌉

/**
 * L2 sensitivity of a tree-aggregation release under its stated relation: Δ·k·√levels of the
 * tallest tree (see `TreeAggregation`: each touched node moves by ≤ kΔ, at most k nodes per level).
 */
export const treeSensitivity = (e: TreeAggregation): number =>
  e.sensitivity * (e.participations ?? 1) * Math.sqrt(treeLevels(e.stepCounts.reduce((m, t) => Math.max(m, t), 0))) // no spread: lists may be long

/** The normalized mixture: shifts c_i/σ, zero weights dropped, weights divided by their sum when it is below 1 (never smaller). */
const mixtureLeaf = (e: MixtureOfGaussians): NormalizedLeaf => {
  const shifts: number[] = []
  const weights: number[] = []
  const total = Math.min(1, e.probabilities.reduce((a, b) => a + b, 0))
  e.sensitivities.forEach((c, i) => {
    const w = e.probabilities[i] as number
    if (w > 0) {
      shifts.push(c / e.sigma)
      weights.push(w / total)
    }
  })
  return { _tag: 'MixtureOfGaussians', shifts, weights }
}

/** The largest shift of a mixture: the Gaussian of that shift dominates it (rdp/closed-forms.ts, `mixtureRdp`). */
export const mixtureMaxShift = (shifts: ReadonlyArray<number>): number => shifts.reduce((m, x) => Math.max(m, x), 0)

/**
 * The noise multiplier noise/Δ of a noise event, never read as "no release" unless the noise is
 * infinite: a finite noise over a tiny Δ can overflow to ∞ (σ = 1e300, Δ = 1e-10), which every
 * accountant would read as a silent leaf (ε = 0 even at δ = 0, where a Gaussian has none). The
 * largest double then stands for it: a smaller multiplier than the true one, so a larger loss (sound).
 */
export const noiseMultiplierOf = (noise: number, sensitivity: number): number => {
  const m = noise / sensitivity
  return m === Infinity && Number.isFinite(noise) ? Number.MAX_VALUE : m
}

/**
 * x²/2 for x ≥ 0 (ε²/2, a pure leaf's zCDP ρ), rounded up where it falls below the normal doubles
 * (`roundUpSubnormal`: never 0 for x > 0, which would read as no release).
 */
export const halfSquareUp = (x: number): number => (x > 0 ? roundUpSubnormal((x * x) / 2) : 0)

/**
 * μ² = 1/m² for a noise multiplier m > 0, an upper bound also where it leaves the normal doubles: m² overflows
 * past m ≈ 1.3e154 and 1/∞ read 0 (then floored at the least positive double, 4.9e-324, below the true 1e-308 at
 * m = 1e154); there it is (1/m)², rounded up. In the normal range it is the same double as 1/(m·m). 0 for m = ∞.
 */
export const inverseSquareUp = (m: number): number => {
  if (m === Infinity) return 0
  const y = 1 / (m * m)
  return y >= MIN_NORMAL ? y : roundUpSubnormal((1 / m) * (1 / m))
}

/** 1/(2m²), a Gaussian's ρ (Bun & Steinke 2016, Prop. 1.6), as `inverseSquareUp` (halving is exact above the subnormals). */
export const halfInverseSquareUp = (m: number): number => (m === Infinity ? 0 : roundUpSubnormal(inverseSquareUp(m) / 2))

const asIs = (e: NoiseEvent): NormalizedLeaf => {
  switch (e._tag) {
    case 'Gaussian':
      return { _tag: 'Gaussian', noiseMultiplier: noiseMultiplierOf(e.sigma, e.sensitivity) }
    case 'Laplace':
      return { _tag: 'Laplace', noiseMultiplier: noiseMultiplierOf(e.scale, e.sensitivity) }
    case 'DiscreteLaplace':
      return { _tag: 'DiscreteLaplace', scale: e.scale, sensitivity: e.sensitivity }
    case 'DiscreteGaussian':
      return {
        _tag: 'DiscreteGaussian',
        sigma: e.sigma,
        sensitivity: e.sensitivity,
        scalarShift: e.scalar === true || e.sensitivity === 1,
      }
    case 'RandomizedResponse':
      return { _tag: 'RandomizedResponse', epsilon: e.epsilon, k: e.k }
    case 'BitwiseRandomizedResponse':
      return { _tag: 'BitwiseRandomizedResponse', flipProbability: e.flipProbability, bits: e.bits }
    case 'Exponential':
      return { _tag: 'Exponential', epsilon: e.epsilon }
    case 'PermuteAndFlip':
      // ε-DP (McKenna & Sheldon 2020, Thm 1): accounted as the stated pure guarantee.
      return { _tag: 'PureDP', epsilon: e.epsilon }
    case 'TreeAggregation':
      return { _tag: 'Gaussian', noiseMultiplier: noiseMultiplierOf(e.sigma, treeSensitivity(e)) }
    case 'MixtureOfGaussians':
      return mixtureLeaf(e)
    case 'StatedRdp':
      return { _tag: 'StatedRdp', curve: sortedCurve(e.orders, e.rdp) }
    case 'StatedProfile':
      return { _tag: 'StatedProfile', epsilons: e.epsilons, deltas: e.deltas }
    case 'PureDP':
      return { _tag: 'PureDP', epsilon: e.epsilon }
    case 'ApproxDP':
      return { _tag: 'ApproxDP', epsilon: e.epsilon, delta: e.delta }
    case 'ZCDP':
      return { _tag: 'ZCDP', rho: e.rho, xi: e.xi ?? 0 }
  }
}

/**
 * add/remove → replace-one (same unit). Noise events: sensitivity × 2 (triangle inequality
 * through the dataset with the unit removed). Stated guarantees: group privacy for groups of 2
 * — pure 2ε (Dwork & Roth 2014, Thm 2.2), (2ε, (1 + e^ε)δ) for approximate DP, 4ρ for zCDP
 * (Bun & Steinke 2016, Prop. 1.9 with k = 2). k-ary randomized response has no sensitivity to
 * double, so it becomes the pure 2ε guarantee; bitwise RR doubles the bits that can differ; the
 * exponential mechanism's utility range doubles, so 2ε (still bounded-range). The discrete
 * mechanisms double the integer Δ; a scalar discrete Gaussian stays scalar (differences k with
 * |k| ≤ 2Δ), a vector one does not (e_i − e_j has L2 norm √2 but is not a multiple of one
 * coordinate vector).
 */
const doubled = (e: NoiseEvent): NormalizedLeaf => {
  switch (e._tag) {
    case 'Gaussian':
      return { _tag: 'Gaussian', noiseMultiplier: noiseMultiplierOf(e.sigma, 2 * e.sensitivity) }
    case 'Laplace':
      return { _tag: 'Laplace', noiseMultiplier: noiseMultiplierOf(e.scale, 2 * e.sensitivity) }
    case 'DiscreteLaplace':
      return { _tag: 'DiscreteLaplace', scale: e.scale, sensitivity: 2 * e.sensitivity }
    case 'DiscreteGaussian':
      return { _tag: 'DiscreteGaussian', sigma: e.sigma, sensitivity: 2 * e.sensitivity, scalarShift: e.scalar === true }
    case 'RandomizedResponse':
      return { _tag: 'PureDP', epsilon: 2 * e.epsilon }
    case 'BitwiseRandomizedResponse':
      return { _tag: 'BitwiseRandomizedResponse', flipProbability: e.flipProbability, bits: 2 * e.bits }
    case 'Exponential':
      return { _tag: 'Exponential', epsilon: 2 * e.epsilon }
    case 'PermuteAndFlip':
      return { _tag: 'PureDP', epsilon: 2 * e.epsilon }
    case 'TreeAggregation':
      return { _tag: 'Gaussian', noiseMultiplier: noiseMultiplierOf(e.sigma, 2 * treeSensitivity(e)) }
    case 'MixtureOfGaussians':
    case 'StatedRdp':
      return absurd(e as never) // refused by `resolveLeaf` before conversion
    case 'StatedProfile':
      // Group privacy for groups of 2 at every point, as for ApproxDP.
      return {
        _tag: 'StatedProfile',
        epsilons: e.epsilons.map((x) => 2 * x),
        deltas: e.deltas.map((d, i) => Math.min(1, d * (1 + Math.exp(e.epsilons[i] as number)))),
      }
    case 'PureDP':
      return { _tag: 'PureDP', epsilon: 2 * e.epsilon }
    case 'ApproxDP':
      return {
        _tag: 'ApproxDP',
        epsilon: 2 * e.epsilon,
        delta: Math.min(1, e.delta * (1 + Math.exp(e.epsilon))),
      }
    case 'ZCDP':
      // ξ = 0 only: `resolveLeaf` refuses to convert a (ξ, ρ) guarantee with ξ > 0.
      return { _tag: 'ZCDP', rho: 4 * e.rho, xi: 0 }
  }
}

/**
 * Stated guarantees hold for exactly the ordered pairs their relation names; every other leaf is a
 * mechanism whose guarantee follows from a symmetric sensitivity (|f(D) − f(D′)| does not depend on
 * the order of the pair) or is symmetric by construction (randomized response, the exponential
 * mechanism, permute-and-flip), so it holds for both orders of every pair its relation relates.
 */
const isStatedGuarantee = (e: NoiseEvent): boolean =>
  e._tag === 'PureDP' || e._tag === 'ApproxDP' || e._tag === 'ZCDP' || e._tag === 'StatedRdp' || e._tag === 'StatedProfile'

const refuse = (e: NoiseEvent, target: NeighbouringRelation, path: string, why: string): E.Either<DpError, Resolved> =>
  E.left(
    incompatibleNeighbouring(path, `${e._tag} is stated under ${showRelation(e.relation)}; the guarantee is asked under ${showRelation(target)}, and ${why}`),
  )

const converted = (e: NoiseEvent, target: NeighbouringRelation, path: string, leaf: NormalizedLeaf, how: string): E.Either<DpError, Resolved> =>
  E.right({ leaf, note: `${path}: ${e._tag} stated under ${showRelation(e.relation)} converted to ${showRelation(target)} (${how})` })

/**
 * Resolves a leaf under the accountant's relation, or refuses with the leaf's path. The conversions
 * (same unit only; across units there is none without a bound on the group size):
 * - within add/remove, remove-only and add-only: a mechanism leaf passes unchanged — the three
 *   relations relate the same unordered pairs, so its sensitivity (and its symmetric guarantee)
 *   holds under each; a stated guarantee under add/remove holds for both ordered pairs, so it
 *   serves either direction; a stated one-directional guarantee serves only its own direction;
 * - add/remove family → replace-special: unchanged for mechanisms and add/remove guarantees (⊥ is
 *   the zero record, so a replace-special pair is an add/remove pair as the mechanism sees it — the
 *   reading of dp_accounting, which gives both relations the same PLD); a one-directional stated
 *   guarantee is refused (x → ⊥ is a removal, ⊥ → x an addition: both directions are needed);
 * - randomized response, replace-one → replace-special: unchanged — its output on ⊥ is uniform, the
 *   average of its outputs on all k values, and the hockey-stick divergence is jointly convex;
 * - add/remove (or a mechanism under one of its directions) → replace-one, and replace-special →
 *   replace-one: a replacement x → y is two steps (remove x, add y; or x → ⊥ → y), so group privacy
 *   for groups of 2 (`doubled`; Dwork & Roth 2014, Thm 2.2; Bun & Steinke 2016, Prop. 1.9). A
 *   one-directional stated guarantee is refused: the two steps need both directions;
 * - refused: replace-one → anything else (a replacement keeps the size, an addition changes it), and
 *   replace-special → the add/remove family (a replace-special guarantee holds at the one, public
 *   dataset size; an addition changes the size).
 * Note what is not claimed: a replace-one guarantee does not imply an add/remove one at any group
 * size (a mechanism that releases the dataset size exactly is 0-DP under replace-one).
 */
export const resolveLeaf = (
  e: NoiseEvent,
  target: NeighbouringRelation,
  path: string,
): E.Either<DpError, Resolved> => {
  // Randomized response against ⊥ (answered uniformly): its own pair, tighter than the replace-one
  // pair (the uniform law is the average of its outputs on all k values, its own value among them).
  if (e._tag === 'RandomizedResponse' && target.kind === 'replace-special' && e.relation.unit === target.unit) {
    const leaf: NormalizedLeaf = { _tag: 'RandomizedResponseToUniform', epsilon: e.epsilon, k: e.k }
    if (e.relation.kind === 'replace-special') return E.right({ leaf })
    if (e.relation.kind === 'replace-one') return converted(e, target, path, leaf, 'its output on ⊥ is uniform: the pair (RR(v), uniform), which the replace-one pair bounds by joint convexity')
  }
  if (sameRelation(e.relation, target)) return E.right({ leaf: asIs(e) })
  if (e.relation.unit !== target.unit)
    return E.left(
      incompatibleNeighbouring(
        path,
        `${e._tag} protects one ${e.relation.unit} but the guarantee is asked for one ${target.unit}; ` +
          'no sound conversion between units is known without a bound on the group size',
      ),
    )
  const from = e.relation.kind
  const to = target.kind
  const stated = isStatedGuarantee(e)
  const oneWay = directionOf(from) !== undefined
  if (isAddRemoveFamily(from) && isAddRemoveFamily(to)) {
    if (!stated) return converted(e, target, path, asIs(e), 'the same unordered neighbours: its sensitivity holds in both directions')
    if (from === 'add-remove') return converted(e, target, path, asIs(e), 'an add/remove guarantee bounds both ordered pairs')
    const [one, other] = directionOf(from) === 'add' ? ['addition', 'removal'] : ['removal', 'addition']
    return refuse(e, target, path, `the ${from} guarantee bounds only the ${one} of one ${e.relation.unit}, nothing about its ${other}`)
  }
  if (to === 'replace-special') {
    if (isAddRemoveFamily(from)) {
      if (stated && oneWay)
        return refuse(e, target, path, 'replacing a unit by ⊥ is a removal and back an addition: a one-directional guarantee covers only one of them')
      return converted(e, target, path, asIs(e), '⊥ is the zero record: a replace-special pair is an add/remove pair as the mechanism sees it, as in dp_accounting')
    }
    return refuse(e, target, path, '⊥ is not a unit a replace-one guarantee covers, so it bounds no replacement by ⊥')
  }
  if (to === 'replace-one') {
    if (stated && oneWay) return refuse(e, target, path, 'a replacement is a removal and an addition: a one-directional guarantee covers only one of them')
    if (e._tag === 'MixtureOfGaussians')
      return refuse(e, target, path, 'a mixture of Gaussians is a pair for one unit present or absent; no replacement pair follows from it here (state the mixture of the replacement, or account under add/remove)')
    if (e._tag === 'StatedRdp')
      return refuse(e, target, path, 'a stated RDP curve is not converted by group privacy: for RDP (Mironov 2017, Prop. 2) it needs orders 2α and 2α − 1 the curve may not state; state the curve under the relation asked')
    if (e._tag === 'ZCDP' && (e.xi ?? 0) > 0)
      return refuse(e, target, path, `a (ξ, ρ)-zCDP guarantee with ξ = ${e.xi} > 0 is converted by group privacy for groups of 2 (Bun & Steinke 2016, Prop. 1.9) here only for ξ = 0; state the guarantee under the relation asked`)
    return converted(e, target, path, doubled(e), from === 'replace-special' ? 'x → ⊥ → y: sensitivity ×2 / group of 2' : 'sensitivity ×2 / group of 2')
  }
  if (from === 'replace-special')
    return refuse(e, target, path, 'a replace-special guarantee holds at one fixed dataset size (⊥ pads it); adding or removing a unit changes the size')
  return refuse(e, target, path, 'a replace-one sensitivity does not bound the add/remove one (a replacement keeps the dataset size, an addition changes it)')
}

/**
 * k-ary randomized response under replace-special (dp_accounting's REPLACE_SPECIAL; ⊥ answered
 * uniformly, as ../mechanisms/neighbouring.ts states): P = RR(v) puts e^ε/Z on v and 1/Z on each
 * other value (Z = e^ε + k − 1), U = 1/k on each. The two privacy losses ln(P/U): at v,
 * ln(k e^ε/Z) ≥ 0; elsewhere, ln(k/Z) ≤ 0. Pure ε is the larger magnitude (for k = 2 the second).
 */
export const rrToUniformLosses = (epsilon: number, k: number): readonly [number, number] => {
  const logZ = epsilon + Math.log1p((k - 1) * Math.exp(-epsilon))
  return [Math.log(k) + epsilon - logZ, Math.log(k) - logZ]
}

/**
 * The symmetric randomized-response pair an accountant with one pair per step (the PLD) takes for
 * the replace-special one: both RR(ε, k)'s replace-one pair and binary RR(pure ε) dominate both
 * orders (joint convexity; every ε-DP pair is a post-processing of binary RR(ε), Kairouz, Oh &
 * Viswanath 2015); the one with the smaller KL divergence (what many compositions add up) is taken:
 * ε(e^ε − 1)/Z for RR(ε, k), L·tanh(L/2) for binary RR(L).
 */
export const rrToUniformPair = (epsilon: number, k: number): { readonly epsilon: number; readonly k: number } => {
  const pure = pureEpsilonOf({ _tag: 'RandomizedResponseToUniform', epsilon, k }) as number
  const klKary = (epsilon * -Math.expm1(-epsilon)) / (1 + (k - 1) * Math.exp(-epsilon)) // ε(e^ε − 1)/(e^ε + k − 1)
  const klBinary = pure * Math.tanh(pure / 2)
  return klBinary < klKary ? { epsilon: pure, k: 2 } : { epsilon, k }
}

/**
 * Pure ε of a normalized leaf, when it has one (undefined for the Gaussians, zCDP and approximate
 * DP). The discrete Laplace is (Δ/t)-DP: the ratio of its pmf at x and x − Δ is at most e^{Δ/t}
 * (the geometric mechanism, Ghosh, Roughgarden & Sundararajan 2009; per coordinate, the exponents
 * add up to at most ‖difference‖₁/t ≤ Δ/t).
 */
export const pureEpsilonOf = (l: NormalizedLeaf): number | undefined => {
  switch (l._tag) {
    case 'Laplace':
      return 1 / l.noiseMultiplier
    case 'DiscreteLaplace':
      return l.sensitivity / l.scale
    case 'RandomizedResponse':
    case 'Exponential':
    case 'PureDP':
      return l.epsilon
    case 'RandomizedResponseToUniform': {
      const [up, down] = rrToUniformLosses(l.epsilon, l.k)
      return roundUpLoss(Math.max(up, -down)) // logs of sums: rounded up, never below the exact loss
    }
    case 'BitwiseRandomizedResponse':
      return l.bits * Math.log((1 - l.flipProbability) / l.flipProbability)
    case 'ApproxDP':
      return l.delta === 0 ? l.epsilon : undefined
    case 'ZCDP':
      // (ξ, 0)-zCDP bounds D_α by ξ at every order, hence D_∞ = sup_α D_α ≤ ξ: pure ξ-DP.
      return l.rho === 0 ? l.xi : undefined
    case 'StatedRdp':
      return undefined
    case 'StatedProfile': {
      const e = profileEpsilon(l.epsilons, l.deltas, 0)
      return e < Infinity ? e : undefined
    }
    case 'Gaussian':
    case 'DiscreteGaussian':
      return undefined
    case 'MixtureOfGaussians':
      // A shift μ > 0 with weight > 0: the loss is unbounded (the Gaussian tails); all shifts 0: no loss.
      return l.shifts.every((m) => m === 0) ? 0 : undefined
  }
}

/**
 * A leaf whose two output laws coincide: infinite noise, ε = 0, ρ = 0. Every other leaf has a
 * positive privacy loss, so the accountants report a loss of theirs that underflows to 0 (ε²/2 for
 * ε ≲ 1e-162) as the least positive double instead — 0 would be an understatement (issue 30).
 */
export const isSilentLeaf = (leaf: NormalizedLeaf): boolean => {
  switch (leaf._tag) {
    case 'Gaussian':
    case 'Laplace':
      return leaf.noiseMultiplier === Infinity
    case 'DiscreteLaplace':
      return leaf.scale === Infinity
    case 'DiscreteGaussian':
      return leaf.sigma === Infinity
    case 'RandomizedResponse':
    case 'RandomizedResponseToUniform':
    case 'Exponential':
    case 'PureDP':
      return leaf.epsilon === 0
    case 'BitwiseRandomizedResponse':
      return leaf.bits === 0 || leaf.flipProbability === 0.5
    case 'ApproxDP':
      return leaf.epsilon === 0 && leaf.delta === 0
    case 'ZCDP':
      return leaf.rho === 0 && leaf.xi === 0
    case 'StatedRdp':
      // D_α = 0 at one order α > 1 means the two laws coincide.
      return leaf.curve.rdp.some((r) => r === 0)
    case 'StatedProfile':
      return profileEpsilon(leaf.epsilons, leaf.deltas, 0) === 0
    case 'MixtureOfGaussians':
      return leaf.shifts.every((m) => m === 0)
  }
}
