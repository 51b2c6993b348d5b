/**
 * Dominating pairs: for each mechanism the PLD accountant supports, a pair of distributions
 * (P, Q) whose hockey-stick divergence H_{e^ε}(P‖Q) = sup_S P(S) − e^ε Q(S) bounds δ(ε) of the
 * mechanism on every neighbouring pair, in one direction of the add/remove relation (Zhu, Dong &
 * Wang 2022, "Optimal accounting of differential privacy via characteristic function").
 * Composition of mechanisms composes dominating pairs by product (ibid., adaptive composition), so the privacy
 * loss L = log(dP/dQ)(X), X ~ P, of a composition is the sum of independent per-step losses — the
 * privacy-loss distribution (PLD) of Meiser & Mohammadi 2018 and Sommer, Meiser & Mohammadi 2019,
 * and δ(ε) = E_P[(1 − e^{ε−L})₊] (Sommer et al. 2019, §4.4; L = +∞ counts fully).
 *
 * Three shapes cover every supported leaf:
 * - additive noise (Gaussian, Laplace), optionally Poisson-subsampled: P and Q are mixtures of a
 *   noise law and its shift by μ = Δ/scale, and the loss is monotone in the output x, so every tail
 *   P(L > ε) is a noise tail at a threshold x*(ε) — no numerical integration;
 * - integer noise (discrete Gaussian, discrete Laplace) shifted by an integer Δ, optionally
 *   Poisson-subsampled: one atom per integer output, streamed into the grid without being stored
 *   (./lattice.ts);
 * - finitely many atoms (randomized response, stated (ε, δ) guarantees, and their subsampled forms).
 *
 * Poisson subsampling with rate q under add/remove neighbours, for a base mechanism with a
 * symmetric dominating pair (P, Q) (the reflection that swaps the neighbours maps P to Q):
 * remove direction (qP + (1 − q)Q, Q), add direction (Q, qP + (1 − q)Q) — Zhu, Dong & Wang 2022,
 * their Poisson-subsampling theorem (also Koskela et al. 2020 for the Gaussian, and dp_accounting).
 * Both directions are composed and the worse δ is taken at query time.
 *
 * @module
 */
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import erfc from '@stdlib/math-base-special-erfc'
import erfcx from '@stdlib/math-base-special-erfcx'
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'
import { bisectPredicate } from '../../core/numeric.js'
import { absurd } from '../../mechanisms/event.js'
import { mixtureMaxShift, type NormalizedLeaf, rrToUniformPair } from '../normalize.js'
import { profilePair } from './profile-pair.js'

export type Direction = 'remove' | 'add'

/** One outcome of a discrete pair: its P-mass and its privacy loss log(P/Q) (+∞ when Q = 0). */
export interface Atom {
  readonly p: number
  readonly loss: number
}

/** A pair with finitely many outcomes; `qOnly` is Q's mass where P has none (loss −∞). */
export interface DiscretePair {
  readonly _tag: 'Discrete'
  readonly atoms: ReadonlyArray<Atom>
  readonly qOnly: number
}

export type NoiseFamily = 'gaussian' | 'laplace'

/**
 * Additive noise of unit scale and shift μ: A = law of Z + μ, B = law of Z with Z standard normal
 * or standard Laplace (density e^{−|z|}/2), Poisson-subsampled at rate q (q = 1: not subsampled).
 * remove: P = qA + (1 − q)B, Q = B; add: P = B, Q = qA + (1 − q)B.
 */
export interface AdditivePair {
  readonly _tag: 'Additive'
  readonly noise: NoiseFamily
  readonly mu: number
  readonly q: number
  readonly direction: Direction
}

/**
 * Integer noise and its shift by the integer Δ = `shift`: A = law of Z + Δ, B = law of Z with Z
 * discrete Gaussian (`scale` = σ) or discrete Laplace (`scale` = t) on ℤ, Poisson-subsampled at rate
 * q as for `AdditivePair` (remove: P = qA + (1 − q)B, Q = B; add: P = B, Q = qA + (1 − q)B).
 */
export interface LatticePair {
  readonly _tag: 'Lattice'
  readonly noise: NoiseFamily
  readonly scale: number
  readonly shift: number
  readonly q: number
  readonly direction: Direction
}

/**
 * A mixture of Gaussians (normalize.ts `MixtureOfGaussians`, Poisson sampling folded into its
 * weights): remove P = Σ w_i N(μ_i, 1), Q = N(0, 1); add P = N(0, 1), Q = Σ w_i N(μ_i, 1). Its loss
 * L(x) = log Σ w_i e^{μ_i x − μ_i²/2} (remove; −L(x) add) is increasing in x (every μ_i ≥ 0), so its
 * tails are Gaussian tails at a threshold found numerically (`mixtureTails`).
 */
export interface MixturePair {
  readonly _tag: 'Mixture'
  readonly shifts: ReadonlyArray<number>
  readonly weights: ReadonlyArray<number>
  readonly direction: Direction
}

export type DominatingPair = AdditivePair | LatticePair | DiscretePair | MixturePair

/** Unsampled integer noise with an integer shift (see `LatticePair`). */
export interface LatticeBase {
  readonly _tag: 'DiscreteNoise'
  readonly noise: NoiseFamily
  readonly scale: number
  readonly shift: number
}

/** The dominating pair of an unsampled mechanism (symmetric: both directions are the same pair). */
export type BasePair =
  | { readonly _tag: 'Gaussian'; readonly mu: number }
  | { readonly _tag: 'Laplace'; readonly mu: number }
  | LatticeBase
  | DiscretePair
  /** A mixture of Gaussians: the pair (N(0, 1), Σ w_i N(μ_i, 1)), in both orders (not symmetric). */
  | { readonly _tag: 'Mixture'; readonly shifts: ReadonlyArray<number>; readonly weights: ReadonlyArray<number> }

// -------------------------------------------------------------------------------------------
// base pairs of the supported leaves
// -------------------------------------------------------------------------------------------

/** P-mass 1 at loss +∞ and Q-mass 1 elsewhere: no privacy at all. */
export const NON_PRIVATE_PAIR: DiscretePair = { _tag: 'Discrete', atoms: [{ p: 1, loss: Infinity }], qOnly: 1 }

/**
 * k-ary randomized response with parameter ε: P = (e^ε, 1, 1, …)/Z, Q = (1, e^ε, 1, …)/Z with
 * Z = e^ε + k − 1 — the mechanism's own pair, the same for any two distinct inputs, so it dominates.
 * Binary randomized response (k = 2) dominates every ε-DP mechanism (Kairouz, Oh & Viswanath 2015;
 * Zhu, Dong & Wang 2022) and stands for stated pure-DP guarantees.
 */
export const randomizedResponsePair = (epsilon: number, k: number): DiscretePair => {
  if (epsilon === Infinity) return NON_PRIVATE_PAIR
  const e = Math.exp(-epsilon)
  const z = 1 + (k - 1) * e
  const outcomes: Outcome[] = [
    { p: 1 / z, q: e / z, loss: epsilon },
    { p: e / z, q: 1 / z, loss: -epsilon },
  ]
  if (k > 2) outcomes.push({ p: ((k - 2) * e) / z, q: ((k - 2) * e) / z, loss: 0 })
  return fromOutcomes(outcomes)
}

/** One outcome of a discrete pair with both masses (its Q-mass is not always p·e^{−loss} in doubles). */
interface Outcome {
  readonly p: number
  readonly q: number
  readonly loss: number
}

/**
 * A discrete pair from outcomes with both masses. An outcome whose P-mass underflows to 0 keeps its
 * Q-mass, as Q-only mass (loss −∞): for ε ≳ 745, e^{−ε} = 0 and randomized response's second
 * outcome (P-mass e^{−ε}/Z, Q-mass 1/Z ≈ 1) would otherwise vanish from Q altogether — harmless
 * unsampled, but under Poisson sampling Q then had almost no mass and the sampled pair answered
 * ε = 0 for a release that reveals the sampled record (issue 30). Dropping the underflowed P-mass
 * itself is sound: at loss −ε it adds nothing to δ(ε′) for any ε′ > −ε.
 */
const fromOutcomes = (outcomes: ReadonlyArray<Outcome>, qOnly = 0): DiscretePair => {
  const atoms: Atom[] = []
  let rest = qOnly
  for (const o of outcomes) {
    if (o.p > 0) atoms.push({ p: o.p, loss: o.loss })
    else rest += o.q
  }
  return { _tag: 'Discrete', atoms, qOnly: rest }
}

/**
 * The dominating pair of every (ε, δ)-DP mechanism: P = (δ, (1 − δ)e^ε/(1 + e^ε), (1 − δ)/(1 + e^ε), 0),
 * Q = (0, (1 − δ)/(1 + e^ε), (1 − δ)e^ε/(1 + e^ε), δ) — Kairouz, Oh & Viswanath 2015 (and Murtagh
 * & Vadhan 2016); Zhu, Dong & Wang 2022.
 */
export const approxDpPair = (epsilon: number, delta: number): DiscretePair => {
  if (delta === 0) return randomizedResponsePair(epsilon, 2)
  if (epsilon === Infinity || delta >= 1) return NON_PRIVATE_PAIR
  const e = Math.exp(-epsilon)
  return fromOutcomes(
    [
      { p: delta, q: 0, loss: Infinity },
      { p: (1 - delta) / (1 + e), q: ((1 - delta) * e) / (1 + e), loss: epsilon },
      { p: ((1 - delta) * e) / (1 + e), q: (1 - delta) / (1 + e), loss: -epsilon },
    ],
    delta,
  )
}

/**
 * Bitwise randomized response: `bits` independent bits, each flipped with probability f, differ
 * between neighbours; the pair is the product of `bits` binary randomized responses with
 * ε_b = ln((1 − f)/f), i.e. loss (bits − 2l)ε_b with P-mass C(bits, l)(1 − f)^{bits−l} f^l.
 */
export const bitwiseRandomizedResponsePair = (flipProbability: number, bits: number): DiscretePair => {
  const f = flipProbability
  const eb = Math.log1p(-f) - Math.log(f)
  const outcomes: Outcome[] = []
  for (let l = 0; l <= bits; l++) {
    const logC = binomcoefln(bits, l)
    const logP = logC + (bits - l) * Math.log1p(-f) + l * Math.log(f)
    const logQ = logC + l * Math.log1p(-f) + (bits - l) * Math.log(f)
    outcomes.push({ p: Math.exp(logP), q: Math.exp(logQ), loss: (bits - 2 * l) * eb })
  }
  return fromOutcomes(outcomes)
}

/**
 * The base pair of a normalized leaf; `undefined` for ρ-zCDP, which has no dominating pair the
 * accountant could use soundly (a Gaussian with σ = 1/√(2ρ) has the same Rényi curve but does not
 * dominate every ρ-zCDP mechanism in the hockey-stick sense), and for a discrete Gaussian whose
 * differences the scalar shift need not dominate (a vector query with Δ ≥ 2; see
 * mechanisms/event.ts). Gaussian and Laplace with σ/Δ = ∞, and the discrete ones with σ or t = ∞,
 * release nothing and map to `null` (the identity).
 *
 * The discrete pairs are those of the scalar shift by Δ, which dominates every shift by |k| ≤ Δ
 * (log-concave noise; see accounting/discrete-noise.ts). For the discrete Laplace on a vector query
 * of L1 sensitivity Δ this is the reading the continuous Laplace takes here too: its Rényi
 * divergences are provably no larger (rdp/closed-forms.ts), its δ(ε) is checked numerically against
 * every integer difference of L1 norm ≤ 4 (test/accounting/discrete.test.ts), not proven.
 */
export const basePairOfLeaf = (leaf: NormalizedLeaf): BasePair | null | undefined => {
  switch (leaf._tag) {
    case 'Gaussian':
      // No noise at all (σ/Δ = 0, or so small that 1/m overflows): the release is not private.
      if (leaf.noiseMultiplier === Infinity) return null
      return 1 / leaf.noiseMultiplier === Infinity ? NON_PRIVATE_PAIR : { _tag: 'Gaussian', mu: 1 / leaf.noiseMultiplier }
    case 'Laplace':
      if (leaf.noiseMultiplier === Infinity) return null
      return 1 / leaf.noiseMultiplier === Infinity ? NON_PRIVATE_PAIR : { _tag: 'Laplace', mu: 1 / leaf.noiseMultiplier }
    case 'DiscreteLaplace':
      return leaf.scale === Infinity ? null : { _tag: 'DiscreteNoise', noise: 'laplace', scale: leaf.scale, shift: leaf.sensitivity }
    case 'DiscreteGaussian':
      if (leaf.sigma === Infinity) return null
      return leaf.scalarShift ? { _tag: 'DiscreteNoise', noise: 'gaussian', scale: leaf.sigma, shift: leaf.sensitivity } : undefined
    case 'RandomizedResponse':
      return randomizedResponsePair(leaf.epsilon, leaf.k)
    case 'RandomizedResponseToUniform': {
      // One pair for both orders of (RR(v), uniform): the tighter of two symmetric pairs that dominate them.
      const { epsilon, k } = rrToUniformPair(leaf.epsilon, leaf.k)
      return randomizedResponsePair(epsilon, k)
    }
    case 'BitwiseRandomizedResponse':
      return bitwiseRandomizedResponsePair(leaf.flipProbability, leaf.bits)
    case 'Exponential':
    case 'PureDP':
      // The exponential mechanism is ε-DP; binary RR(ε) dominates every ε-DP mechanism.
      return leaf.epsilon === 0 ? null : randomizedResponsePair(leaf.epsilon, 2)
    case 'ApproxDP':
      return leaf.epsilon === 0 && leaf.delta === 0 ? null : approxDpPair(leaf.epsilon, leaf.delta)
    case 'MixtureOfGaussians': {
      // The mixture's own pair (Choquette-Choo et al. 2023; dp_accounting's MixtureGaussianPrivacyLoss).
      const m = mixtureMaxShift(leaf.shifts)
      if (m === 0) return null
      return m === Infinity ? NON_PRIVATE_PAIR : { _tag: 'Mixture', shifts: leaf.shifts, weights: leaf.weights }
    }
    case 'StatedRdp':
      return undefined
    case 'StatedProfile': {
      // One point is an (ε, δ) guarantee and its pair; several, the pair of their f-DP envelope (./profile-pair.ts).
      if (leaf.epsilons.length !== 1) return profilePair(leaf.epsilons, leaf.deltas)
      const [e, d] = [leaf.epsilons[0] as number, leaf.deltas[0] as number]
      return e === 0 && d === 0 ? null : approxDpPair(e, d)
    }
    case 'ZCDP':
      // (ξ, 0)-zCDP is pure ξ-DP (D_∞ = sup_α D_α ≤ ξ), dominated by binary RR(ξ); with ρ > 0 no pair is known.
      return leaf.rho > 0 ? undefined : leaf.xi === 0 ? null : randomizedResponsePair(leaf.xi, 2)
    default:
      return absurd(leaf)
  }
}

// -------------------------------------------------------------------------------------------
// subsampling
// -------------------------------------------------------------------------------------------

/** Q-mass p·e^{−loss} of an atom, without overflow. */
export const atomQ = (a: Atom): number => {
  if (a.p === 0 || a.loss === Infinity) return 0
  return a.loss > -700 ? a.p * Math.exp(-a.loss) : Math.exp(Math.log(a.p) - a.loss)
}

/**
 * log(1 − q + q·e^ℓ) for ℓ ∈ [−∞, ∞], accurately (the remove-direction loss of a sampled outcome):
 * log1p(q·expm1(ℓ)) while q·expm1(ℓ) is finite — full relative precision, also at small q and
 * ℓ > 1, where the older ℓ + log(q + (1 − q)e^{−ℓ}) cancelled to an absolute 1e-16 (a relative
 * 2e-5 at q = 1e-12, issue 30) — and that form only where e^ℓ overflows (the result is then ≥ 1,
 * no cancellation left to fear).
 */
export const mixLoss = (q: number, l: number): number => {
  if (q === 1 || l === Infinity) return l
  if (l === -Infinity) return Math.log1p(-q)
  const x = q * Math.expm1(l)
  return x < Infinity ? Math.log1p(x) : l + Math.log(q + (1 - q) * Math.exp(-l))
}

/** The subsampled pair of a discrete base pair (Zhu, Dong & Wang 2022, Poisson subsampling). */
const subsampleDiscrete = (base: DiscretePair, q: number, direction: Direction): DiscretePair => {
  const atoms: Atom[] = []
  let qOnly = 0
  for (const a of base.atoms) {
    if (a.p === 0) continue
    const qa = atomQ(a)
    if (direction === 'remove') {
      // P' = qP + (1 − q)Q, Q' = Q: P'-mass qp + (1 − q)q_a, loss log(1 − q + q e^ℓ).
      atoms.push({ p: a.loss === Infinity ? q * a.p : q * a.p + (1 - q) * qa, loss: mixLoss(q, a.loss) })
    } else if (a.loss === Infinity) {
      // P'' = Q has no mass here: the mixture's mass q·p is Q-only.
      qOnly += q * a.p
    } else {
      // P'' = Q, Q'' = qP + (1 − q)Q: P''-mass q_a, loss −log(1 − q + q e^ℓ).
      atoms.push({ p: qa, loss: -mixLoss(q, a.loss) })
    }
  }
  if (base.qOnly > 0) {
    if (direction === 'remove') atoms.push({ p: (1 - q) * base.qOnly, loss: Math.log1p(-q) })
    else atoms.push({ p: base.qOnly, loss: -Math.log1p(-q) })
  }
  return { _tag: 'Discrete', atoms, qOnly }
}

/** The dominating pair of Poisson sampling at rate q ∈ (0, 1] followed by the base mechanism. */
export const subsampledPair = (base: BasePair, q: number, direction: Direction): DominatingPair => {
  switch (base._tag) {
    case 'Gaussian':
      return { _tag: 'Additive', noise: 'gaussian', mu: base.mu, q, direction: q === 1 ? 'remove' : direction }
    case 'Laplace':
      return { _tag: 'Additive', noise: 'laplace', mu: base.mu, q, direction: q === 1 ? 'remove' : direction }
    case 'DiscreteNoise':
      return { _tag: 'Lattice', noise: base.noise, scale: base.scale, shift: base.shift, q, direction: q === 1 ? 'remove' : direction }
    case 'Discrete':
      return q === 1 ? base : subsampleDiscrete(base, q, direction)
    case 'Mixture': {
      // Poisson sampling mixes in N(0, 1) with weight 1 − q: a mixture again (the shift 0 gains 1 − q).
      if (q === 1) return { _tag: 'Mixture', shifts: base.shifts, weights: base.weights, direction }
      const shifts = [...base.shifts]
      const weights = base.weights.map((w) => q * w)
      const zero = shifts.indexOf(0)
      if (zero >= 0) weights[zero] = (weights[zero] as number) + (1 - q)
      else {
        shifts.push(0)
        weights.push(1 - q)
      }
      return { _tag: 'Mixture', shifts, weights, direction }
    }
  }
}

// -------------------------------------------------------------------------------------------
// the mixture of Gaussians
// -------------------------------------------------------------------------------------------

/** L(x) = log Σ w_i e^{μ_i x − μ_i²/2}: the remove-direction loss at output x (increasing in x). */
export const mixtureLoss = (pair: MixturePair, x: number): number => lossAt(prepared(pair), x)

/** A mixture's coefficients c_i = log w_i − μ_i²/2, so L(x) = log Σ e^{c_i + μ_i x}; and the last root found (a warm start). */
interface PreparedMixture {
  readonly mu: Float64Array
  readonly c: Float64Array
  /** log of the weight of the shift 0 (L's infimum), −∞ without one. */
  readonly logW0: number
  last: number
}

const PREPARED = new WeakMap<MixturePair, PreparedMixture>()

const prepared = (pair: MixturePair): PreparedMixture => {
  const hit = PREPARED.get(pair)
  if (hit !== undefined) return hit
  const n = pair.shifts.length
  const mu = new Float64Array(n)
  const c = new Float64Array(n)
  let w0 = 0
  for (let i = 0; i < n; i++) {
    const m = pair.shifts[i] as number
    const w = pair.weights[i] as number
    mu[i] = m
    c[i] = Math.log(w) - (m * m) / 2
    if (m === 0) w0 += w
  }
  const p: PreparedMixture = { mu, c, logW0: w0 > 0 ? Math.log(w0) : -Infinity, last: 0 }
  PREPARED.set(pair, p)
  return p
}

const lossAt = (p: PreparedMixture, x: number): number => {
  let m = -Infinity
  const n = p.mu.length
  for (let i = 0; i < n; i++) {
    const t = (p.c[i] as number) + (p.mu[i] as number) * x
    if (t > m) m = t
  }
  if (m === -Infinity || m === Infinity) return m
  let s = 0
  for (let i = 0; i < n; i++) s += Math.exp((p.c[i] as number) + (p.mu[i] as number) * x - m)
  return m + Math.log(s)
}

/** L(x) and L′(x) = Σ μ_i e^{c_i + μ_i x}/Σ e^{c_i + μ_i x} (the posterior mean shift) in one pass, into out[0..1]. */
const lossAndSlope = (p: PreparedMixture, x: number, out: Float64Array): void => {
  let m = -Infinity
  const n = p.mu.length
  for (let i = 0; i < n; i++) {
    const t = (p.c[i] as number) + (p.mu[i] as number) * x
    if (t > m) m = t
  }
  let s = 0
  let sm = 0
  for (let i = 0; i < n; i++) {
    const e = Math.exp((p.c[i] as number) + (p.mu[i] as number) * x - m)
    s += e
    sm += (p.mu[i] as number) * e
  }
  out[0] = m + Math.log(s)
  out[1] = sm / s
}

const LS = new Float64Array(2)

/** The loss margin the thresholds give away, far above the rounding of L and of the root. */
const MIXTURE_MARGIN = 1e-11

/**
 * An x with L(x) = target to within rounding (L is increasing and convex): Newton steps from the
 * last root found (the grid's targets come in order), kept inside a bracket that bisection shrinks
 * when a step leaves it. −∞ when L > target everywhere (target at or below L's infimum, the log of
 * the shift 0's weight), +∞ when nowhere.
 */
const mixtureThreshold = (p: PreparedMixture, target: number): number => {
  if (target === Infinity) return Infinity
  if (target === -Infinity || target <= p.logW0) return -Infinity
  let x = Number.isFinite(p.last) ? p.last : 0
  let lo = -Infinity
  let hi = Infinity
  // Close enough: within 1e-13 of the target in loss, far inside the margin the callers give away.
  const tol = 1e-13 * Math.max(1, Math.abs(target))
  for (let i = 0; i < 400; i++) {
    lossAndSlope(p, x, LS)
    const f = (LS[0] as number) - target
    if (f <= 0 && f >= -tol) break
    if (f < 0) lo = x
    else hi = x
    if (Number.isFinite(lo) && Number.isFinite(hi) && hi - lo <= 4 * Number.EPSILON * Math.max(1, Math.abs(x))) {
      x = lo
      break
    }
    let next = x - f / (LS[1] as number)
    if (!(next > lo && next < hi)) {
      // Outside the bracket (or no slope): expand an open side, else bisect.
      next = lo === -Infinity ? hi - 2 * Math.max(1, Math.abs(hi)) : hi === Infinity ? lo + 2 * Math.max(1, Math.abs(lo)) : lo + (hi - lo) / 2
    }
    x = next
  }
  p.last = x
  return x
}

/**
 * Tails of a mixture pair's loss at ε, as `additiveTails` writes them: P(L > ε), P(L ≤ ε), Q(L > ε),
 * Q(L ≤ ε). The threshold is taken at ε − margin (remove: {L > ε} grows; add: {L_add > ε} =
 * {L < −ε} at −ε + margin, grows too), so each cell's mass is read over an interval of outputs whose
 * losses reach at most the cell's top plus the margin — a pessimistic reading, since the margin
 * (1e-11·max(1, |ε|)) is far above the rounding of L and of the root. `scratch` holds 2 numbers.
 */
export const mixtureTails = (pair: MixturePair, eps: number, out: Float64Array, at: number, scratch: Float64Array): void => {
  const margin = MIXTURE_MARGIN * Math.max(1, Math.abs(eps))
  const p = prepared(pair)
  const n = pair.shifts.length
  let pAbove = 0
  let pBelow = 0
  if (pair.direction === 'remove') {
    const x = mixtureThreshold(p, eps - margin) // {L > ε} ⊆ {X > x}
    for (let i = 0; i < n; i++) {
      noiseTails('gaussian', x - (pair.shifts[i] as number), scratch, 0)
      pAbove += (pair.weights[i] as number) * scratch[0]!
      pBelow += (pair.weights[i] as number) * scratch[1]!
    }
    noiseTails('gaussian', x, scratch, 0)
    out[at] = pAbove
    out[at + 1] = pBelow
    out[at + 2] = scratch[0]!
    out[at + 3] = scratch[1]!
  } else {
    const x = mixtureThreshold(p, -eps + margin) // {L_add > ε} = {L < −ε} ⊆ {X < x}
    for (let i = 0; i < n; i++) {
      noiseTails('gaussian', x - (pair.shifts[i] as number), scratch, 0)
      pAbove += (pair.weights[i] as number) * scratch[1]!
      pBelow += (pair.weights[i] as number) * scratch[0]!
    }
    noiseTails('gaussian', x, scratch, 0)
    out[at] = scratch[1]!
    out[at + 1] = scratch[0]!
    out[at + 2] = pAbove
    out[at + 3] = pBelow
  }
}

/**
 * The loss range holding all of P's mass but `tail`: every component of the mixture has its mean in
 * [0, μ_max], so P(X < −z) ≤ Φ(−z) and P(X > μ_max + z) ≤ Φc(z) on either side.
 */
export const mixtureLossRange = (pair: MixturePair, tail: number): { readonly lo: number; readonly hi: number } => {
  const z = gaussianTailPoint(tail / 2)
  const top = pair.shifts.reduce((a, m) => Math.max(a, m), 0)
  const lo = mixtureLoss(pair, -z)
  const hi = mixtureLoss(pair, top + z)
  return pair.direction === 'remove' ? { lo, hi } : { lo: -hi, hi: -lo }
}

// -------------------------------------------------------------------------------------------
// tails of additive pairs
// -------------------------------------------------------------------------------------------

const SQRT1_2 = Math.SQRT1_2

/**
 * Upper and lower tails of the standard noise at z, each to full relative accuracy where it is
 * below ½ (the other as 1 − it): out[0] = P(Z > z), out[1] = P(Z ≤ z).
 */
const noiseTails = (noise: NoiseFamily, z: number, out: Float64Array, at: number): void => {
  if (z === Infinity) {
    out[at] = 0
    out[at + 1] = 1
    return
  }
  if (z === -Infinity) {
    out[at] = 1
    out[at + 1] = 0
    return
  }
  if (noise === 'gaussian') {
    const t = normalTail(Math.abs(z))
    out[at] = z >= 0 ? t : 1 - t
    out[at + 1] = z >= 0 ? 1 - t : t
  } else if (z >= 0) {
    const s = 0.5 * Math.exp(-z)
    out[at] = s
    out[at + 1] = 1 - s
  } else {
    const c = 0.5 * Math.exp(z)
    out[at] = 1 - c
    out[at + 1] = c
  }
}

/** 2^27 + 1: Veltkamp splitting constant (a double's top 26 bits). */
const SPLITTER = 134217729

/**
 * Φc(z) = P(Z > z) for z ≥ 0, as ½·erfcx(x)·e^{−x²} with x = z/√2 (about twice as fast as erfc and
 * as accurate): x² is split exactly (Veltkamp: x = a + b with a² exact), so e^{−x²} =
 * e^{−a²}·e^{−y}, y = 2ab + b², keeps full relative accuracy however large x is; |y| < 2^{−24}x²,
 * so e^{−y} is its Taylor polynomial to degree 3 (remainder y⁴/24 < 1e-20 for x ≤ 27, where the tail
 * underflows).
 */
const normalTail = (z: number): number => {
  const x = z * SQRT1_2
  if (x < 0.5) return 0.5 * erfc(x)
  // Φc(z) < 1e-330 underflows to 0 here; beyond, the splitting below would overflow (z ~ 1e200).
  if (x > 27.5) return 0
  const c = SPLITTER * x
  const a = c - (c - x)
  const b = x - a
  const y = 2 * a * b + b * b
  return 0.5 * erfcx(x) * Math.exp(-a * a) * (1 - y * (1 - (y / 2) * (1 - y / 3)))
}

/** log(r(x)) = log of the likelihood ratio dA/dB at x. */
const logRatio = (pair: AdditivePair, x: number): number =>
  pair.noise === 'gaussian' ? pair.mu * (x - pair.mu / 2) : Math.abs(x) - Math.abs(x - pair.mu)

/** The threshold λ on log r such that the remove-direction loss exceeds ε iff log r > λ. */
const ratioThreshold = (q: number, eps: number): number => {
  if (q === 1) return eps
  if (eps > 1) return eps - Math.log(q) + Math.log1p(-(1 - q) * Math.exp(-eps))
  const v = Math.expm1(eps) + q
  return v > 0 ? Math.log(v) - Math.log(q) : -Infinity
}

/**
 * The set {x : log r(x) > λ} is (x*, ∞) and {x : log r(x) < λ} is (−∞, x*) for these x*; ±∞ for
 * empty or full sets (Laplace: r is flat, e^{∓μ}, on the half-lines x ≤ 0 and x ≥ μ).
 */
const thresholdAbove = (pair: AdditivePair, lambda: number): number => {
  if (pair.noise === 'gaussian') return lambda === -Infinity ? -Infinity : lambda / pair.mu + pair.mu / 2
  if (lambda >= pair.mu) return Infinity
  if (lambda < -pair.mu) return -Infinity
  return (lambda + pair.mu) / 2
}
const thresholdBelow = (pair: AdditivePair, lambda: number): number => {
  if (pair.noise === 'gaussian') return lambda === -Infinity ? -Infinity : lambda / pair.mu + pair.mu / 2
  if (lambda > pair.mu) return Infinity
  if (lambda <= -pair.mu) return -Infinity
  return (lambda + pair.mu) / 2
}

/** P-mass of (a, b) ⊆ [0, μ] under B = Laplace(0, 1) and under A = Laplace(μ, 1), without cancellation. */
const laplaceB = (a: number, b: number): number => (b <= a ? 0 : -0.5 * Math.exp(-a) * Math.expm1(a - b))
const laplaceA = (mu: number, a: number, b: number): number => (b <= a ? 0 : -0.5 * Math.exp(b - mu) * Math.expm1(a - b))

/**
 * The atoms of a Laplace pair: the likelihood ratio is flat (e^{∓μ}) on x ≤ 0 and x ≥ μ, so the
 * loss has point masses at its two extremes; `laplaceTails` covers the continuous rest.
 */
export const laplaceAtoms = (pair: AdditivePair): ReadonlyArray<Atom> => {
  const { mu, q } = pair
  const e = Math.exp(-mu)
  // x ≥ μ: A-mass ½, B-mass e^{−μ}/2; x ≤ 0: A-mass e^{−μ}/2, B-mass ½.
  const hiP = q * 0.5 + (1 - q) * 0.5 * e
  const loP = q * 0.5 * e + (1 - q) * 0.5
  if (pair.direction === 'remove')
    return [
      { p: hiP, loss: mixLoss(q, mu) },
      { p: loP, loss: mixLoss(q, -mu) },
    ]
  return [
    { p: 0.5 * e, loss: -mixLoss(q, mu) },
    { p: 0.5, loss: -mixLoss(q, -mu) },
  ]
}

/**
 * Tails of the continuous part (0 < x < μ) of a Laplace pair's loss at ε, as `additiveTails`
 * writes them; the atoms (`laplaceAtoms`) are excluded.
 */
export const laplaceTails = (pair: AdditivePair, eps: number, out: Float64Array, at: number): void => {
  const { mu, q } = pair
  if (pair.direction === 'remove') {
    // {L > ε} ∩ (0, μ) = (x*, μ)
    const x = Math.min(mu, Math.max(0, thresholdAbove(pair, ratioThreshold(q, eps))))
    const bHi = laplaceB(x, mu)
    const bLo = laplaceB(0, x)
    out[at] = q === 1 ? laplaceA(mu, x, mu) : q * laplaceA(mu, x, mu) + (1 - q) * bHi
    out[at + 1] = q === 1 ? laplaceA(mu, 0, x) : q * laplaceA(mu, 0, x) + (1 - q) * bLo
    out[at + 2] = bHi
    out[at + 3] = bLo
  } else {
    // {L > ε} ∩ (0, μ) = (0, x*)
    const x = Math.min(mu, Math.max(0, thresholdBelow(pair, ratioThreshold(q, -eps))))
    const bLo = laplaceB(0, x)
    const bHi = laplaceB(x, mu)
    out[at] = bLo
    out[at + 1] = bHi
    out[at + 2] = q * laplaceA(mu, 0, x) + (1 - q) * bLo
    out[at + 3] = q * laplaceA(mu, x, mu) + (1 - q) * bHi
  }
}

/**
 * Tails of the privacy loss at ε for an additive pair, written to out[at..at+3]:
 * P(L > ε), P(L ≤ ε), Q(L > ε), Q(L ≤ ε) — each a (mixture of) noise tail(s) at a threshold, so the
 * smaller of each pair is accurate to a few ulps relative. `scratch` holds 4 numbers.
 */
export const additiveTails = (pair: AdditivePair, eps: number, out: Float64Array, at: number, scratch: Float64Array): void => {
  const q = pair.q
  if (pair.direction === 'remove') {
    const x = thresholdAbove(pair, ratioThreshold(q, eps)) // {L > ε} = {X > x}
    noiseTails(pair.noise, x, scratch, 0) // B
    noiseTails(pair.noise, x - pair.mu, scratch, 2) // A
    const sB = scratch[0]!
    const cB = scratch[1]!
    const sA = scratch[2]!
    const cA = scratch[3]!
    out[at] = q === 1 ? sA : q * sA + (1 - q) * sB
    out[at + 1] = q === 1 ? cA : q * cA + (1 - q) * cB
    out[at + 2] = sB
    out[at + 3] = cB
  } else {
    const x = thresholdBelow(pair, ratioThreshold(q, -eps)) // {L > ε} = {X < x}
    noiseTails(pair.noise, x, scratch, 0)
    noiseTails(pair.noise, x - pair.mu, scratch, 2)
    const sB = scratch[0]!
    const cB = scratch[1]!
    const sA = scratch[2]!
    const cA = scratch[3]!
    out[at] = cB
    out[at + 1] = sB
    out[at + 2] = q * cA + (1 - q) * cB
    out[at + 3] = q * sA + (1 - q) * sB
  }
}

/**
 * A z with Φc(z) ≤ p (and not much larger than the exact quantile): the normal quantile where it
 * is accurate, else bisection on erfc (the quantile loses all precision below p ≈ 1e-17).
 */
export const gaussianTailPoint = (p: number): number => {
  if (p >= 1e-12) {
    const z = -normalQuantile(p, 0, 1)
    if (0.5 * erfc(z * SQRT1_2) <= p) return z
  }
  const ok = (z: number): boolean => 0.5 * erfc(z * SQRT1_2) <= p
  let hi = 8
  while (!ok(hi)) hi *= 1.5
  return bisectPredicate(ok, 0, hi, 1e-6).hi
}

/**
 * The normal tails at the remove-direction threshold x*(ε) of a Poisson-subsampled Gaussian (rate
 * q, shift μ), written to out[0..3]: B(X > x*), B(X ≤ x*), A(X > x*), A(X ≤ x*) with A = N(μ, 1),
 * B = N(0, 1). `expEps` is e^ε to a few dozen ulps (the caller walks it along the grid); it is
 * used for ε ≥ 0.1, where e^ε − (1 − q) has no cancellation (threshold error ≲ 1e-13).
 */
export const gaussianThresholdTails = (mu: number, q: number, logQ: number, eps: number, expEps: number, out: Float64Array): void => {
  const lambda = q !== 1 && eps >= 0.1 && eps < 700 ? Math.log(expEps - (1 - q)) - logQ : ratioThreshold(q, eps)
  const x = lambda === -Infinity ? -Infinity : lambda / mu + mu / 2
  noiseTails('gaussian', x, out, 0)
  noiseTails('gaussian', x - mu, out, 2)
}

/** The remove-direction loss at output x. */
const removeLoss = (pair: AdditivePair, x: number): number => mixLoss(pair.q, logRatio(pair, x))

/**
 * The loss range the grid must cover for an additive pair: [lo, hi] holds all of P's mass except
 * at most `tail` in total (none when the loss is bounded there), with `bounded` telling which ends
 * are hard bounds of the loss.
 */
export const additiveLossRange = (
  pair: AdditivePair,
  tail: number,
): { readonly lo: number; readonly hi: number } => {
  const mu = pair.mu
  if (pair.noise === 'laplace') {
    // Bounded: log r ∈ [−μ, μ].
    const lo = mixLoss(pair.q, -mu)
    const hi = mixLoss(pair.q, mu)
    return pair.direction === 'remove' ? { lo, hi } : { lo: -hi, hi: -lo }
  }
  // Gaussian: x-quantiles with tail/2 of P's mass beyond each (the mixture's tails are bounded by
  // those of its components: P(X < x) ≤ Φ(x) and P(X > x) ≤ Φc(x − μ) for μ ≥ 0).
  const z = gaussianTailPoint(tail / 2)
  if (pair.direction === 'remove') {
    const lo = removeLoss(pair, -z)
    const hi = removeLoss(pair, mu + z)
    return { lo, hi }
  }
  return { lo: -removeLoss(pair, z), hi: -removeLoss(pair, -z) }
}

// -------------------------------------------------------------------------------------------
// replace-one under Poisson subsampling (the substitution pair of a Gaussian)
// -------------------------------------------------------------------------------------------

/*
 * Poisson subsampling under replace-one. Neighbours D = S ∪ {x} and D′ = S ∪ {x′}; couple the two
 * samplings with one coin for x and x′ (each dataset's own sampling is unchanged, so the output
 * distributions are). Given the sample T of S, the outputs are P_T = (1 − q)M(T) + q·M(T ∪ {x}) and
 * Q_T = (1 − q)M(T) + q·M(T ∪ {x′}), and by the joint convexity of the hockey-stick divergence
 * H_γ(P‖Q) ≤ sup_T H_γ(P_T‖Q_T) (Balle, Barthe & Gaboardi 2018, the coupling argument of their
 * Thm 2; Zhu, Dong & Wang 2022 for dominating pairs of subsampled mechanisms). For the Gaussian
 * mechanism with add/remove sensitivity Δ and noise σ (μ = Δ/σ, unit noise after scaling), M(T) =
 * N(f(T), I), M(T ∪ {x}) = N(f(T) + u, I), M(T ∪ {x′}) = N(f(T) + v, I) with ‖u‖, ‖v‖ ≤ μ, so P_T, Q_T
 * are the translates of
 *   P_{u,v} = (1 − q)N(0, I) + qN(u, I),   Q_{u,v} = (1 − q)N(0, I) + qN(v, I),
 * which live in the plane of u and v. The worst case is antipodal, u = μe₁ = −v, the one-dimensional
 * pair
 *   P = (1 − q)N(0, 1) + qN(μ, 1),   Q = (1 − q)N(0, 1) + qN(−μ, 1)
 * (to my reading the pair Lebeda, Regehr, Kamath & Steinke 2024 and Schuchardt et al. 2024 discuss
 * for Poisson subsampling under substitution; their statements were not available to check against,
 * so this rests on the numerical check below). It is attained (a scalar sum whose records contribute values in [−Δ, Δ],
 * with x contributing +Δ and x′ −Δ), so nothing tighter holds for the class; that it dominates
 * every other configuration (angle between u and v, shorter u or v) is checked by 2-D quadrature
 * (test/fixtures/pld-substitution.json, scripts/ in test/fixtures) rather than proven here. The pair
 * is symmetric (P(x) = Q(−x)), so one direction covers both orders of the neighbours.
 *
 * Its privacy loss is increasing in x:
 *   L(x) = log((1 − q) + a·e^{μx}) − log((1 − q) + a·e^{−μx}),   a = q·e^{−μ²/2},
 * and L(x) = ε solves a quadratic in s = e^{μx}: a s² − (1 − q)(e^ε − 1)s − a e^ε = 0.
 */

/** log(e^x + e^y) without overflow. */
const logAddExp = (x: number, y: number): number => {
  if (x === -Infinity) return y
  if (y === -Infinity) return x
  const m = Math.max(x, y)
  return m + Math.log1p(Math.exp(-Math.abs(x - y)))
}

/** The loss L(x) of the substitution pair at output x. */
export const substitutionLoss = (mu: number, q: number, x: number): number => {
  const lr = Math.log1p(-q)
  const la = Math.log(q) - (mu * mu) / 2
  return logAddExp(lr, la + mu * x) - logAddExp(lr, la - mu * x)
}

/** The x* with L(x*) = ε (L is increasing and odd: x*(−ε) = −x*(ε)). */
export const substitutionThreshold = (mu: number, q: number, eps: number): number => {
  if (eps === 0) return 0
  if (eps === Infinity) return Infinity
  if (eps === -Infinity) return -Infinity
  if (eps < 0) return -substitutionThreshold(mu, q, -eps)
  // s = (b + √(b² + 4a²e^ε))/(2a) = b(1 + √(1 + e^t))/(2a), b = (1 − q)(e^ε − 1) > 0,
  // t = log(4a²e^ε/b²): all in logs, so a tiny a (large μ) or a large ε cannot overflow.
  const la = Math.log(q) - (mu * mu) / 2
  const lb = Math.log1p(-q) + (eps > 30 ? eps + Math.log1p(-Math.exp(-eps)) : Math.log(Math.expm1(eps)))
  const t = 2 * (la - lb) + eps + Math.log(4) // log(4a²e^ε/b²)
  // log(1 + √(1 + e^t)), accurate for every t
  const root = t > 40 ? t / 2 + Math.log(Math.exp(-t / 2) + Math.sqrt(1 + Math.exp(-t))) : Math.log1p(Math.sqrt(1 + Math.exp(t)))
  const logS = lb + root - Math.LN2 - la
  return logS / mu
}

/**
 * Tails of the substitution pair's loss at ε, as `additiveTails` writes them: P(L > ε), P(L ≤ ε),
 * Q(L > ε), Q(L ≤ ε). `scratch` holds 2 numbers.
 */
export const substitutionTails = (mu: number, q: number, eps: number, out: Float64Array, at: number, scratch: Float64Array): void => {
  const x = substitutionThreshold(mu, q, eps)
  const r = 1 - q
  noiseTails('gaussian', x, scratch, 0)
  const s0 = scratch[0]!
  const c0 = scratch[1]!
  noiseTails('gaussian', x - mu, scratch, 0)
  out[at] = r * s0 + q * scratch[0]!
  out[at + 1] = r * c0 + q * scratch[1]!
  noiseTails('gaussian', x + mu, scratch, 0)
  out[at + 2] = r * s0 + q * scratch[0]!
  out[at + 3] = r * c0 + q * scratch[1]!
}

/**
 * The loss range holding all of P's mass but `tail` (P(X < x) ≤ Φ(x) and P(X > x) ≤ Φc(x − μ): both
 * components of P have means in [0, μ]).
 */
export const substitutionLossRange = (mu: number, q: number, tail: number): { readonly lo: number; readonly hi: number } => {
  const z = gaussianTailPoint(tail / 2)
  return { lo: substitutionLoss(mu, q, -z), hi: substitutionLoss(mu, q, mu + z) }
}

/**
 * An ε-DP mechanism (under add/remove) Poisson-sampled at rate q is ε′-DP under replace-one with
 * e^{ε′} = (1 − q + q e^ε)/(1 − q + q e^{−ε}): in the coupling above, P_T/Q_T =
 * ((1 − q)a + q b)/((1 − q)a + q c) with b/a ≤ e^ε and c/a ≥ e^{−ε} pointwise. Binary randomized
 * response with ε′ then dominates it (Kairouz, Oh & Viswanath 2015).
 */
export const substitutionPureEpsilon = (eps: number, q: number): number => {
  if (eps === Infinity) return Infinity
  // log(1 − q + q e^ε) − log(1 − q + q e^{−ε}), each by mixLoss
  return mixLoss(q, eps) - mixLoss(q, -eps)
}
