/**
 * The digamma function ψ(x) = d/dx ln Γ(x) for x > 0, which online variational Bayes needs for
 * E_q[ln θ] and E_q[ln β] under Dirichlet posteriors. `@stdlib/math-base-special-digamma` is not
 * among the installed packages (only gamma, gammaln and their helpers are), and the trainers may
 * not add dependencies, so this is a small implementation: the recurrence ψ(x) = ψ(x + 1) − 1/x
 * up to x ≥ 10, then the asymptotic series ψ(x) = ln x − 1/(2x) − Σ B_2n/(2n x^2n) to x^-12
 * (the first omitted term, B14/(14x^14) = x^-14/12, is < 1e-15 at x ≥ 10; tested against mpmath
 * values to 1e-13). Defined
 * here only for x > 0 (the arguments are Dirichlet parameters); NaN otherwise.
 *
 * @module
 */

export const digamma = (x: number): number => {
  if (!(x > 0)) return Number.NaN
  let r = 0
  while (x < 10) {
    r -= 1 / x
    x += 1
  }
  const f = 1 / (x * x)
  // B2/2 = 1/12, B4/4 = −1/120, B6/6 = 1/252, B8/8 = −1/240, B10/10 = 1/132, B12/12 = −691/32760
  const t = f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f * (1 / 132 - f * (691 / 32760))))))
  return r + Math.log(x) - 0.5 / x - t
}
