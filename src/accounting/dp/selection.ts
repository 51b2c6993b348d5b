/**
 * Private selection by repetition in the (ε, δ) accountants: run one mechanism K times (K random,
 * E[K] = μ) and release only the best run (`RepeatAndSelect`).
 *
 * Pure runs. A run that is ε-DP gives a (2 + η)ε-DP selection when K is truncated negative binomial
 * of shape η and any parameter γ ∈ (0, 1) (Papernot & Steinke 2022, "Hyperparameter tuning with Rényi
 * differential privacy", Cor. 3, their Thm 2 as λ, λ̂ → ∞); for the geometric K (η = 1) this is
 * Liu & Talwar 2019 ("Private selection from private candidates", STOC), 3ε for random stopping.
 *
 * Poisson runs. A run that is ε-DP gives an (ε + μ·tanh(ε/2))-DP selection when K is Poisson of mean μ:
 * Papernot & Steinke 2022, Thm 6, bounds the selection's Rényi divergence of order λ by
 * ε(λ) + μ·δ̂ + log(μ)/(λ − 1) with δ̂ the run's δ at ε̂ = log(1 + 1/(λ − 1)); an ε-DP run has
 * ε(λ) ≤ ε and δ̂ ≤ δ(0) = its total variation ≤ (e^ε − 1)/(e^ε + 1) = tanh(ε/2) (binary randomized
 * response is the worst ε-DP pair, Kairouz, Oh & Viswanath 2015), so letting λ → ∞ (D_∞ = lim D_λ: Rényi
 * divergence is continuous in its order up to ∞, van Erven & Harremoës 2014) the max-divergence is at most ε + μ·tanh(ε/2). It is tight in its
 * growth: for binary RR runs the selection outputs "no run said 1" with probabilities
 * e^{−μp} − e^{−μ} and e^{−μ(1−p)} − e^{−μ} (p = e^ε/(1 + e^ε)), a ratio → e^{μ·tanh(ε/2)}.
 *
 * Approximate runs. A run that is (ε, δ)-DP gives an (ε′, δ′)-DP selection, ε′ the pure bound of ε
 * above and
 *
 *     δ′ = 1 − E[(1 − δ)^K] = 1 − G_K(1 − δ) ≤ μ·δ,
 *
 * G_K the probability generating function of K, in closed form (the laws of Papernot & Steinke 2022,
 * Def. 1; each series summed): geometric δ/(γ + (1 − γ)δ); TNB of shape η > 0, with u = (1 − γ)δ/γ,
 * (1 − (1 + u)^{−η})/(1 − γ^η); logarithmic (η = 0) log(1 + u)/log(1/γ); Poisson 1 − e^{−μδ}.
 *
 * Liu & Talwar 2019 also state approximate-DP theorems for their random-stopping and threshold
 * algorithms (a number of runs capped at T, their δ-term growing with T). Their text could not be read
 * in this session (no copy of arXiv 1811.07971 beyond its first page was reachable), so no formula of
 * theirs is implemented from memory; their algorithms cap the runs at T, which RepeatAndSelect's
 * uncapped law does not, and the bound here is the exact cost of the δ branch under this event's law,
 * with the pure theorem's ε. The bound is derived here from two published results:
 * 1. Kairouz, Oh & Viswanath 2015 ("The composition theorem for differential privacy"), Thm 2.1 /
 *    Murtagh & Vadhan 2016, Lemma 3.2: for each pair of neighbours x, x′, the pair (M(x), M(x′)) of
 *    an (ε, δ)-DP mechanism is one randomized post-processing T of (V(x), V(x′)), where V outputs a
 *    revealing symbol with probability δ (⊤ on x, ⊥ on x′) and otherwise binary randomized response
 *    RR_ε of which side it is on. So a run is: with probability δ (the same on both sides, drawn
 *    independently of everything else) a revealing branch, otherwise T(RR_ε).
 * 2. The pure theorem above, for the pair (T∘RR_ε(x), T∘RR_ε(x′)), which is ε-DP in both directions.
 * Let A be "none of the K runs took the revealing branch": P(A) = E[(1 − δ)^K] on both sides. Given
 * A, the runs are i.i.d. T∘RR_ε and K has the tilted law P(K = k)(1 − δ)^k / P(A) — for the
 * truncated negative binomial, P(K = k) ∝ (1 − γ)^k·Γ(k + η)/(Γ(η)k!), again a truncated negative
 * binomial of the same shape η with 1 − γ′ = (1 − γ)(1 − δ) (η = 0, the logarithmic law ∝ (1 − γ)^k/k,
 * likewise). So the selection is P(A)·S_x + (1 − P(A))·B_x, with S_x against S_{x′} (2 + η)ε-DP by 2,
 * and for every event W
 *     Sel(x)(W) ≤ P(A)·e^{(2+η)ε}·S_{x′}(W) + 1 − P(A) ≤ e^{(2+η)ε}·Sel(x′)(W) + δ′,
 * with δ′ = 1 − P(A) = 1 − E[(1 − δ)^K] ≤ E[Kδ] = μδ (Bernoulli's inequality).
 *
 * Both directions of the run's guarantee are used (the pure theorem bounds the ratio of the runs'
 * tail probabilities in the reverse direction), so under a one-directional relation (add-only,
 * remove-only) each run is read under add/remove: a run that is ε-DP in one direction only can give a selection far above
 * (2 + η)ε (scores in {L, H}, P(L) = 1 on one side and e^{−ε} on the other: the selection outputs L
 * with probability 1 against E[e^{−εK}], ratio e^{5.15} at ε = 1, geometric mean 100).
 * For a Poisson K the tilted law is Poisson(μ(1 − δ)), and the Poisson pure bound above (monotone in
 * μ) is applied with μ.
 *
 * @module
 */
import { nextUp, roundUpLoss } from '../../core/numeric.js'
import { addRemove, type NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { repeatSelectPure, tnbGamma } from '../rdp/repeat-select.js'

/** The selection's ε from the run's pure ε (the pure theorems of the module note; ../rdp/repeat-select.ts). */
export const selectionEpsilon = (mean: number, shape: number, runEpsilon: number): number => repeatSelectPure(runEpsilon, mean, shape)

/**
 * 1 − G_K(1 − δ) from the closed forms of the module note, before rounding. γ is tnbGamma's, on its
 * small side: K is then stochastically no smaller than the stated law, so this is no smaller either.
 */
const branchCost = (mean: number, shape: number, delta: number): number => {
  if (shape === Infinity) return -Math.expm1(-mean * delta)
  const gamma = tnbGamma(shape, mean)
  if (gamma >= 1) return delta // K = 1 surely
  const logU = Math.log1p(((1 - gamma) * delta) / gamma)
  if (shape === 0) return logU / -Math.log(gamma)
  return -Math.expm1(-shape * logU) / -Math.expm1(shape * Math.log(gamma))
}

/**
 * δ′ of the selection from the run's δ: 1 − E[(1 − δ)^K] (module note), rounded up, and never above
 * μ·δ (Bernoulli's inequality, the bound used before) nor 1.
 */
export const selectionDelta = (mean: number, shape: number, delta: number): number => {
  if (delta === 0) return 0
  const exact = nextUp(roundUpLoss(branchCost(mean, shape, delta), 1e-10))
  return Math.min(1, mean * delta, Number.isNaN(exact) ? Infinity : exact)
}

/**
 * The largest run δ found whose selection δ′ is within `budget` (the inverse of `selectionDelta`): the
 * closed-form inverse of the branch cost, shrunk and checked forward, else budget/μ.
 */
export const runDeltaFor = (mean: number, shape: number, budget: number): number => {
  // budget/μ, lowered by 4 ulps so that μ times it never rounds above the budget.
  const linear = (budget / mean) * (1 - 4 * Number.EPSILON)
  if (!(budget > 0) || budget >= 1) return budget / mean
  let z: number // G_K(1 − δ) = 1 − budget, solved for δ
  if (shape === Infinity) z = -Math.log1p(-budget) / mean
  else {
    const gamma = tnbGamma(shape, mean)
    if (gamma >= 1) return budget
    // log(1 + u) from the branch cost, u = (1 − γ)δ/γ.
    const logU = shape === 0 ? budget * -Math.log(gamma) : -Math.log1p(-budget * -Math.expm1(shape * Math.log(gamma))) / shape
    z = (Math.expm1(logU) * gamma) / (1 - gamma)
  }
  // Shrunk until the rounded-up forward value is within the budget (where δ′ is flat in δ, by more).
  for (const shrink of [1e-9, 1e-7, 1e-5, 1e-3]) {
    const candidate = z * (1 - shrink)
    if (!(candidate > linear)) break
    if (selectionDelta(mean, shape, candidate) <= budget) return candidate
  }
  return linear
}

/**
 * The relation each run is read under: the selection needs the run's guarantee in both directions,
 * so under add-only / remove-only it is read under add/remove of the same unit (which bounds both;
 * a run stated in one direction only is then refused by the leaf's own relation check).
 */
export const selectionRunRelation = (relation: NeighbouringRelation): NeighbouringRelation =>
  relation.kind === 'add-only' || relation.kind === 'remove-only' ? addRemove(relation.unit) : relation
