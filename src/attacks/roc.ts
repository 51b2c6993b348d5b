/**
 * ROC data of the chosen attack on the estimation trials, from the per-threshold counts the
 * estimation phase collects. Each grid threshold t gives one operating point of the test
 * "guess the input (side 0) when the oriented score ≥ t":
 *   TPR(t) = #{side-0 scores ≥ t}/n₀,  FPR(t) = #{side-1 scores ≥ t}/n₁.
 * The curve is exact at the grid points (fresh trials, no refitting); AUC is the trapezoid area
 * through them, a slight underestimate of the full-resolution AUC. Low-FPR summaries follow the
 * convention of reporting TPR at fixed FPR (Carlini et al., "Membership inference attacks from
 * first principles", S&P 2022): the largest TPR among grid points with FPR ≤ the level.
 *
 * @module
 */

export interface RocPoint {
  readonly threshold: number
  readonly fpr: number
  readonly tpr: number
}

export interface RocData {
  /** Operating points by increasing FPR, from (0, 0) to (1, 1). */
  readonly points: ReadonlyArray<RocPoint>
  readonly auc: number
  readonly tprAtFpr1pct: number
  readonly tprAtFpr01pct: number
}

/** ROC from per-bin counts: counts[k] = #{scores s with exactly k grid points ≤ s}. */
export const rocFromCounts = (grid: ReadonlyArray<number>, counts0: ArrayLike<number>, counts1: ArrayLike<number>): RocData => {
  const G = grid.length
  let n0 = 0
  let n1 = 0
  for (let k = 0; k <= G; k++) {
    n0 += counts0[k] as number
    n1 += counts1[k] as number
  }
  // above[k] = #{s ≥ grid[k]} = Σ_{b > k} counts[b], accumulated from the top.
  const points: RocPoint[] = [{ threshold: Infinity, fpr: 0, tpr: 0 }]
  let a0 = 0
  let a1 = 0
  for (let k = G - 1; k >= 0; k--) {
    a0 += counts0[k + 1] as number
    a1 += counts1[k + 1] as number
    points.push({ threshold: grid[k] as number, fpr: n1 > 0 ? a1 / n1 : 0, tpr: n0 > 0 ? a0 / n0 : 0 })
  }
  points.push({ threshold: -Infinity, fpr: 1, tpr: 1 })
  let auc = 0
  for (let i = 1; i < points.length; i++) {
    const p = points[i - 1] as RocPoint
    const q = points[i] as RocPoint
    auc += ((q.fpr - p.fpr) * (q.tpr + p.tpr)) / 2
  }
  const tprAt = (level: number): number => points.reduce((m, p) => (p.fpr <= level && p.tpr > m ? p.tpr : m), 0)
  return { points, auc, tprAtFpr1pct: tprAt(0.01), tprAtFpr01pct: tprAt(0.001) }
}
