/**
 * Privacy claims taken from the papers, as data, with where they stand in the text. dpaudit
 * recomputes them (docs/claims.md, test/claims/); nothing here is used as a guarantee.
 *
 * @module
 */

/** One row of SUB-LDA's Table 3 as printed. */
export interface SubLdaTable3Row {
  /** Subsampling ratio γ (Poisson rate per token). */
  readonly gamma: number
  /** Iterations to convergence, as printed. */
  readonly iterations: number
  /** Claimed per-iteration RDP ε_sub(α) at α = 14. */
  readonly epsSub: number
  /** Claimed accumulated RDP, Iter · ε_sub(α), as printed. */
  readonly total: number
}

/**
 * SUB-LDA paper, Table 3 "Privacy Guarantee Difference under
 * Convergence (NIPS)", text lines 634–645; settings α = 14, ε(α) = 2 (§5.1, l. 649–651), so the
 * Gaussian has σ² = α/(2ε(α)) = 3.5 for L2 sensitivity 1 (§4.1, l. 497–499). Two printed totals
 * disagree with Iter × ε_sub (γ = 0.3: 83 × 0.73 = 60.59, printed 59.86; γ = 0.7: 97.68 printed
 * as 97.86); they are kept as printed.
 */
export const SUB_LDA_TABLE3 = {
  alpha: 14,
  epsAlpha: 2,
  sigma: Math.sqrt(3.5),
  sensitivity: 1,
  source: 'the SUB-LDA paper, Table 3',
  rows: [
    { gamma: 0.1, iterations: 92, epsSub: 0.05, total: 4.6 },
    { gamma: 0.3, iterations: 83, epsSub: 0.73, total: 59.86 },
    { gamma: 0.5, iterations: 70, epsSub: 1.18, total: 82.6 },
    { gamma: 0.7, iterations: 66, epsSub: 1.48, total: 97.86 },
    { gamma: 0.9, iterations: 61, epsSub: 1.63, total: 99.43 },
    { gamma: 1, iterations: 42, epsSub: 2, total: 84 },
  ] as ReadonlyArray<SubLdaTable3Row>,
} as const
