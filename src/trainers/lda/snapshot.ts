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
    }
  }

  const sweep = (u: FastUniform, include?: Uint8Array): void => {
    for (let d = 0; d < D; d++) {
      const a = docStart[d] as number
      const b = docStart[d + 1] as number
      let nnz = 0
      for (let k = 0; k < K; k++) {
        const c = ndk[d * K + k] as number
        local[k] = c
        if (c > 0) {
          nzPos[k] = nnz
          nzTopics[nnz++] = k
        }
      }
      for (let i = a; i < b; i++) {
        if (include !== undefined && include[i] === 0) continue
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
          const sc = (local[t] as number) * (q[base + t] as number)
          rMass += sc
          scores[j] = sc
        }
        const sMass = alpha * (prefix[base + K - 1] as number)
        let x = u.next() * (rMass + sMass)
        let nt: number
        if (x < rMass) {
          let j = 0
          while (j < nnz - 1) {
            x -= scores[j] as number
            if (x <= 0) break
            j++
          }
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
      for (let k = 0; k < K; k++) ndk[d * K + k] = local[k] as number
    }
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
