/**
 * The digamma function ψ(x) = d/dx ln Γ(x) for x > 0, which online variational Bayes needs for
 * E_q[ln θ] and E_q[ln β] under Dirichlet posteriors: `@stdlib/math-base-special-digamma` (Boost's
 * rational approximation on [1, 2] with recurrences, the asymptotic series from x ≥ 10), restricted
 * to the domain the trainers use (Dirichlet parameters, x > 0; NaN otherwise, where stdlib would
 * reflect negative arguments).
 *
 * It replaced a hand-written recurrence + asymptotic series (kept in bench/svi.bench.mjs for the
 * comparison). Measured there on Brown (`node bench/svi.bench.mjs`, part 1): the two agree to
 * 2·10⁻¹⁵ relative on x ∈ [0.01, 10⁴], and batch VB with stdlib's ψ ran in 0.98–1.02× the time of
 * the hand-written one (the E-step calls ψ K + 1 times per γ iteration against 2·m·K multiply–adds
 * for m distinct words, so ψ is a few per cent of it either way).
 *
 * @module
 */
import digammaStdlib from '@stdlib/math-base-special-digamma'

export const digamma = (x: number): number => (x > 0 ? digammaStdlib(x) : Number.NaN)
