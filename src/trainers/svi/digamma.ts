/**
 * The digamma function ψ(x) = d/dx ln Γ(x) for x > 0, which online variational Bayes needs for
 * E_q[ln θ] and E_q[ln β] under Dirichlet posteriors: `@stdlib/math-base-special-digamma` (Boost's
 * rational approximation on [1, 2] with recurrences, the asymptotic series from x ≥ 10), restricted
 * to the domain the trainers use (Dirichlet parameters, x > 0; NaN otherwise, where stdlib would
 * reflect negative arguments).
 *
 * It replaced a hand-written recurrence + asymptotic series (kept in bench/svi.bench.mjs for the
 * comparison). Measured there on Brown (`node bench/svi.bench.mjs`, part 1): the two agree to
 * 1.8·10⁻¹⁵ relative on x ∈ [0.01, 10⁴]; per call stdlib's takes 1.2–1.7× the time on log-uniform
 * x (its ln is JavaScript, above x = 10), but batch VB with it (K = 20, 8 pairs of runs, order
 * alternated) took a median ×0.975 the wall time (0.86–1.03) and ×0.984 the CPU time of the
 * hand-written one: most E-step arguments are γ_k near α, where stdlib needs one recurrence step
 * and a rational function and the hand-written one up to ten recurrence steps.
 *
 * @module
 */
import digammaStdlib from '@stdlib/math-base-special-digamma'

export const digamma = (x: number): number => (x > 0 ? digammaStdlib(x) : Number.NaN)
