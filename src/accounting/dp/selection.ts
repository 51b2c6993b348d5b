/**
 * Private selection by repetition in the (ε, δ) accountants: run one mechanism K times (K random,
 * E[K] = μ) and release only the best run (`RepeatAndSelect`).
 *
 * Pure runs. A run that is ε-DP gives a (2 + η)ε-DP selection when K is truncated negative binomial
 * of shape η and any parameter γ ∈ (0, 1) (Papernot & Steinke 2022, "Hyperparameter tuning with Rényi
 * differential privacy", Cor. 3, their Thm 2 as λ, λ̂ → ∞); for the geometric K (η = 1) this is
 * Liu & Talwar 2019 ("Private selection from private candidates", STOC), 3ε for random stopping.
 *
 * Approximate runs. A run that is (ε, δ)-DP gives a ((2 + η)ε, δ′)-DP selection with
 *
 *     δ′ = 1 − E[(1 − δ)^K] ≤ μ·δ          (this module uses μ·δ, capped at 1).
 *
 * Liu & Talwar 2019 also state an approximate-DP theorem for random stopping; its text (and so its
 * exact constants) could not be checked in this session, so it is not used. The bound above is
 * derived here instead, from two published results:
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
 * A Poisson K has no pure bound implemented (the tilted law is Poisson(μ(1 − δ)), so the same
 * argument would carry one over): refused, with the rdp accountant (Papernot & Steinke, Thm 6) named.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, unsupportedEvent } from '../../core/error.js'
import { addRemove, type NeighbouringRelation } from '../../mechanisms/neighbouring.js'

/** The selection's ε factor for a truncated negative binomial K of shape η: 2 + η (PS 2022, Cor. 3). */
export const selectionEpsilonFactor = (shape: number): number => 2 + shape

/** δ′ of the selection from the run's δ: μ·δ ≥ 1 − E[(1 − δ)^K] (module note), capped at 1. */
export const selectionDelta = (mean: number, delta: number): number => (delta === 0 ? 0 : Math.min(1, mean * delta))

/** The run's δ that leaves the selection within δ′ (the inverse of `selectionDelta`). */
export const runDeltaFor = (mean: number, selectionDeltaBudget: number): number => selectionDeltaBudget / mean

const ACCOUNTANT = 'basic/advanced/optimal'

/** The (ε, δ) accountants take a truncated negative binomial K only. */
export const checkSelection = (shape: number, path: string): E.Either<DpError, void> =>
  shape === Infinity
    ? E.left(
        unsupportedEvent(path, ACCOUNTANT, 'RepeatAndSelect', 'no (ε, δ) bound for a Poisson number of runs is implemented; use the rdp accountant (Papernot & Steinke 2022, Thm 6)'),
      )
    : E.right(undefined)

/**
 * The relation each run is read under: the selection needs the run's guarantee in both directions,
 * so under add-only / remove-only it is read under add/remove of the same unit (which bounds both;
 * a run stated in one direction only is then refused by the leaf's own relation check).
 */
export const selectionRunRelation = (relation: NeighbouringRelation): NeighbouringRelation =>
  relation.kind === 'add-only' || relation.kind === 'remove-only' ? addRemove(relation.unit) : relation
