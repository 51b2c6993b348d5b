/**
 * Gibbs sweeps against released (noisy, clipped) topic-word counts, the sampler of the private
 * trainers. Each iteration the trainer releases n̂ (paper 001 Alg. 1 line 9; paper 000 Alg. 1)
 * and the topic of every visited token is drawn from
 *
 *   p(z_i = k | ·) ∝ q_wk · (n_dk^{¬i} + α),   q_wk = (min(max(n̂_wk, 0), C) + β) / (max(n̂_k, 0) + Vβ)
 *
 * (paper 001 Alg. 1 lines 12–13; negative noisy counts are clipped at 0 so p is a distribution).
 * The word factor q is a function of the release only and is fixed for the sweep: this is the
 * reading under which the proof of paper 001 Theorem 3 (eq. 30) holds — the related words'
 * sampling probabilities are identical under D and D′ because they see only privatised counts.
 * The document factor is exact and live. The true counts are updated as tokens move, for the
 * next release.
 *
 * The draw splits into a dense bucket α·Σ_k q_wk (searched through per-word prefix sums built
 * once per sweep, O(log K)) and a sparse bucket Σ_{k: n_dk > 0} n_dk q_wk over the document's
 * non-zero topics. No allocation per token.
 *
 * @module
 */
import type { FastUniform } from './random.js'
import type { GibbsState } from './state.js'

export interface SnapshotSampler {
  /** Rebuilds q from a release n̂ (V×K word-major), multiplied by `scale` first (1/γ for SUB-LDA). */
  readonly setRelease: (noisy: Float64Array, scale: number) => void
  /**
   * One sweep; `include` (optional) decides per token whether it is visited this iteration
   * (Poisson subsampling), as a 0/1 byte per token.
   */
  readonly sweep: (u: FastUniform, include?: Uint8Array) => void
  /**
   * One dense sweep in which the document factor is also noisy: (max(n_dk^{¬i} + η_dk, 0) + α),
   * η fixed for the sweep (CDP-LDA, CDP-LDA+: Laplace on the document-topic counts).
   */
  readonly sweepWithDocNoise: (u: FastUniform, docNoise: Float64Array) => void
}

export const makeSnapshotSampler = (state: GibbsState, alpha: number, beta: number, clip: number): SnapshotSampler => {
  const { K, V, D, tokens, docStart, z, ndk, nwk, nk } = state
  const q = new Float64Array(V * K)
  const prefix = new Float64Array(V * K)
  const qsum = new Float64Array(V) // Σ_k q_wk, the dense bucket's mass / α
  const scores = new Float64Array(K)
  const local = new Int32Array(K)
  const nzTopics = new Int32Array(K)
  const nzPos = new Int32Array(K)
  const tot = new Float64Array(K)

  const setRelease = (noisy: Float64Array, scale: number): void => {
    tot.fill(0)
    for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) tot[k] = (tot[k] as number) + (noisy[w * K + k] as number) * scale
    for (let k = 0; k < K; k++) tot[k] = 1 / (Math.max(0, tot[k] as number) + V * beta)
    for (let w = 0; w < V; w++) {
      let s = 0
      for (let k = 0; k < K; k++) {
        const c = Math.min(Math.max((noisy[w * K + k] as number) * scale, 0), clip)
        const v = (c + beta) * (tot[k] as number)
        q[w * K + k] = v
        s += v
        prefix[w * K + k] = s
      }
      qsum[w] = s
    }
  }

  const sweep = (u: FastUniform, include?: Uint8Array): void => {
    sparseSweep(K, D, tokens, docStart, z, ndk, nwk, nk, q, prefix, qsum, scores, local, nzTopics, nzPos, alpha, u, include)
  }
  const sweepWithDocNoise = (u: FastUniform, docNoise: Float64Array): void => {
    for (let d = 0; d < D; d++) {
      const a = docStart[d] as number
      const b = docStart[d + 1] as number
      const db = d * K
      for (let i = a; i < b; i++) {
        const w = tokens[i] as number
        const old = z[i] as number
        ndk[db + old] = (ndk[db + old] as number) - 1
        const base = w * K
        let s = 0
        for (let k = 0; k < K; k++) {
          s += (q[base + k] as number) * (Math.max((ndk[db + k] as number) + (docNoise[db + k] as number), 0) + alpha)
          scores[k] = s
        }
        const x = u.next() * s
        let nt = 0
        while (nt < K - 1 && (scores[nt] as number) <= x) nt++
        z[i] = nt
        ndk[db + nt] = (ndk[db + nt] as number) + 1
        if (nt !== old) {
          nwk[base + old] = (nwk[base + old] as number) - 1
          nwk[base + nt] = (nwk[base + nt] as number) + 1
          nk[old] = (nk[old] as number) - 1
          nk[nt] = (nk[nt] as number) + 1
        }
      }
    }
  }
  return { setRelease, sweep, sweepWithDocNoise }
}

/**
 * The sparse sweep of `makeSnapshotSampler`, a top-level function whose state arrives as
 * parameters (locals in the hot loop, not closure slots). Per token: the document bucket
 * Σ_{k: n_dk > 0} n_dk q_wk is accumulated into running prefix sums over the document's non-zero
 * topics, then the draw is located in it by a linear scan, or in the dense bucket α·q_w· by binary
 * search over the per-word prefix sums.
 */
const sparseSweep = (
  K: number,
  D: number,
  tokens: Int32Array,
  docStart: Int32Array,
  z: Int32Array,
  ndk: Int32Array,
  nwk: Int32Array,
  nk: Int32Array,
  q: Float64Array,
  prefix: Float64Array,
  qsum: Float64Array,
  cum: Float64Array,
  local: Int32Array,
  nzTopics: Int32Array,
  nzPos: Int32Array,
  alpha: number,
  u: FastUniform,
  include: Uint8Array | undefined,
): void => {
  const subsampled = include !== undefined
  for (let d = 0; d < D; d++) {
    const a = docStart[d] as number
    const b = docStart[d + 1] as number
    const db = d * K
    let nnz = 0
    for (let k = 0; k < K; k++) {
      const c = ndk[db + k] as number
      local[k] = c
      if (c > 0) {
        nzPos[k] = nnz
        nzTopics[nnz++] = k
      }
    }
    for (let i = a; i < b; i++) {
      if (subsampled && include[i] === 0) continue
      const w = tokens[i] as number
      const old = z[i] as number
      let c = (local[old] as number) - 1
      local[old] = c
      if (c === 0) {
        const p = nzPos[old] as number
        const last = nzTopics[--nnz] as number
        nzTopics[p] = last
        nzPos[last] = p
      }
      const base = w * K
      let rMass = 0
      for (let j = 0; j < nnz; j++) {
        const t = nzTopics[j] as number
        rMass += (local[t] as number) * (q[base + t] as number)
        cum[j] = rMass
      }
      const x = u.next() * (rMass + alpha * (qsum[w] as number))
      let nt: number
      if (x < rMass) {
        let j = 0
        while (j < nnz - 1 && (cum[j] as number) <= x) j++
        nt = nzTopics[j] as number
      } else {
        const y = (x - rMass) / alpha
        let lo = 0
        let hi = K - 1
        while (lo < hi) {
          const mid = (lo + hi) >> 1
          if ((prefix[base + mid] as number) > y) hi = mid
          else lo = mid + 1
        }
        nt = lo
      }
      z[i] = nt
      c = (local[nt] as number) + 1
      local[nt] = c
      if (c === 1) {
        nzPos[nt] = nnz
        nzTopics[nnz++] = nt
      }
      if (nt !== old) {
        nwk[base + old] = (nwk[base + old] as number) - 1
        nwk[base + nt] = (nwk[base + nt] as number) + 1
        nk[old] = (nk[old] as number) - 1
        nk[nt] = (nk[nt] as number) + 1
      }
    }
    for (let k = 0; k < K; k++) ndk[db + k] = local[k] as number
  }
}
