/**
 * Topic recovery error: the optimal one-to-one matching of estimated to true topics under the
 * L1 distance (Hungarian algorithm, Kuhn 1955 / Munkres 1957, O(K³) potentials form), and the
 * mean L1 distance of the matched pairs (0–2; the reference figures' measure on the synthetic
 * corpora, docs/trainers.md § The reference protocol and figures).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'

/** Minimum-cost perfect matching of an n×n cost matrix: assignment[row] = column. */
export const hungarian = (cost: Float64Array, n: number): Int32Array => {
  const INF = Number.POSITIVE_INFINITY
  const u = new Float64Array(n + 1)
  const v = new Float64Array(n + 1)
  const p = new Int32Array(n + 1) // p[j] = row matched to column j (1-based), 0 = none
  const way = new Int32Array(n + 1)
  const minv = new Float64Array(n + 1)
  const used = new Uint8Array(n + 1)
  for (let i = 1; i <= n; i++) {
    p[0] = i
    let j0 = 0
    minv.fill(INF)
    used.fill(0)
    do {
      used[j0] = 1
      const i0 = p[j0] as number
      let delta = INF
      let j1 = 0
      for (let j = 1; j <= n; j++) {
        if (used[j] === 1) continue
        const cur = (cost[(i0 - 1) * n + (j - 1)] as number) - (u[i0] as number) - (v[j] as number)
        if (cur < (minv[j] as number)) {
          minv[j] = cur
          way[j] = j0
        }
        if ((minv[j] as number) < delta) {
          delta = minv[j] as number
          j1 = j
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j] === 1) {
          const r = p[j] as number
          u[r] = (u[r] as number) + delta
          v[j] = (v[j] as number) - delta
        } else minv[j] = (minv[j] as number) - delta
      }
      j0 = j1
    } while (p[j0] !== 0)
    do {
      const j1 = way[j0] as number
      p[j0] = p[j1] as number
      j0 = j1
    } while (j0 !== 0)
  }
  const assignment = new Int32Array(n)
  for (let j = 1; j <= n; j++) assignment[(p[j] as number) - 1] = j - 1
  return assignment
}

export interface RecoveryResult {
  /** Mean L1 distance between matched topics, in [0, 2]. */
  readonly meanL1: number
  /** matching[k] = the true topic matched to estimated topic k. */
  readonly matching: Int32Array
  readonly distances: Float64Array
}

/** Recovery error of estimated topics against true ones (both K×V, row-normalised). */
export const topicRecoveryError = (estimated: Float64Array, truth: Float64Array, K: number, V: number): E.Either<DpError, RecoveryResult> => {
  if (estimated.length !== K * V) return E.left(invalidParameter('estimated', estimated.length, `expected K·V = ${K * V} entries`))
  if (truth.length !== K * V) return E.left(invalidParameter('truth', truth.length, `expected K·V = ${K * V} entries`))
  const cost = new Float64Array(K * K)
  for (let a = 0; a < K; a++)
    for (let b = 0; b < K; b++) {
      let s = 0
      for (let v = 0; v < V; v++) s += Math.abs((estimated[a * V + v] as number) - (truth[b * V + v] as number))
      cost[a * K + b] = s
    }
  const matching = hungarian(cost, K)
  const distances = new Float64Array(K)
  let total = 0
  for (let k = 0; k < K; k++) {
    const d = cost[k * K + (matching[k] as number)] as number
    distances[k] = d
    total += d
  }
  return E.right({ meanL1: total / K, matching, distances })
}
