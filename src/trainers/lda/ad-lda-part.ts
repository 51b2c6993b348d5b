/**
 * One part of an AD-LDA sweep (./ad-lda.ts), a part module of ./parallel/pool.ts: the arrays its
 * threads share and what part j does for each command. The calling thread runs part 0 and the pool's
 * worker threads (./parallel/worker.ts) parts 1..P−1, with this same code.
 *
 * - `sweep`: copy the global word-topic counts n_wk and totals n_k (as of the sweep's start) into the
 *   part's own tables, then SparseLDA (./sparse.ts) over the part's documents [docCut[j], docCut[j+1])
 *   against those tables alone — the other parts' moves in this sweep are not seen (the AD-LDA
 *   approximation, Newman, Asuncion, Smyth & Welling, JMLR 10, 2009, §3, eq. 4) — and write the
 *   part's final counts back densely.
 * - `merge`: n_wk ← n_wk + Σ_p (n_wk^(p) − n_wk), each part a run of cells (Newman et al. eq. 5, the
 *   global update); the calling thread sums the K topic totals the same way.
 *
 * @module
 */
import { namedCommands, type PartModule } from './parallel/pool.js'
import { makeSparseSampler } from './sparse.js'

/** The typed arrays of an AD-LDA run, in SharedArrayBuffers when there are worker threads. */
export interface AdLdaArrays {
  readonly K: number
  readonly V: number
  readonly alpha: number
  readonly beta: number
  readonly tokens: Int32Array
  readonly docStart: Int32Array
  readonly z: Int32Array
  readonly ndk: Int32Array
  /** The global counts, merged after every sweep. */
  readonly nwk: Int32Array
  readonly nk: Int32Array
  /** Each part's own copy of n_wk (P×V×K) and n_k (P×K) during a sweep. */
  readonly partNwk: Int32Array
  readonly partNk: Int32Array
  /** Each part's xoshiro128** state for the sweep (P×4), drawn by the calling thread. */
  readonly seeds: Int32Array
  /** Document boundaries of the parts (P + 1). */
  readonly docCut: Int32Array
}

export type AdLdaCommand = 'sweep' | 'merge'
const commands = namedCommands<AdLdaCommand>('AD-LDA', ['sweep', 'merge'])
export const readCommand = commands.readCommand

/** Part j of every command. */
export const makePart = (s: AdLdaArrays, j: number): ((command: AdLdaCommand) => void) => {
  const { K, V } = s
  const P = s.docCut.length - 1
  const cells = V * K
  const d0 = s.docCut[j] as number
  const d1 = s.docCut[j + 1] as number
  const a = s.docStart[d0] as number
  const b = s.docStart[d1] as number
  const nwk = s.partNwk.subarray(j * cells, (j + 1) * cells)
  const nk = s.partNk.subarray(j * K, (j + 1) * K)
  nwk.set(s.nwk)
  nk.set(s.nk)
  const docStart = new Int32Array(d1 - d0 + 1)
  for (let d = d0; d <= d1; d++) docStart[d - d0] = (s.docStart[d] as number) - a
  const state = { K, V, D: d1 - d0, tokens: s.tokens.subarray(a, b), docStart, z: s.z.subarray(a, b), ndk: s.ndk.subarray(d0 * K, d1 * K), nwk, nk }
  // The WebAssembly sweep (./sparse-wasm.ts). It was switched off here for a while: in stress runs of many AD-LDA
  // fits in one process it trapped out of bounds now and then. The cause was the pool, not the sweep: a pooled
  // worker's Atomics.wait sometimes returned without a new generation and re-ran its last command (a second merge
  // broke n_wk's row sums and so the lists' capacities). ./parallel/pool.ts now acknowledges each generation per
  // worker; 150 such fits (W = 2, 3, 4, under load) then ran clean with this sweep (docs/trainers.md).
  const sampler = makeSparseSampler(state, s.alpha, s.beta)
  const c0 = Math.floor((cells * j) / P)
  const c1 = Math.floor((cells * (j + 1)) / P)
  return (command) => {
    if (command === 'sweep') {
      nwk.set(s.nwk)
      nk.set(s.nk)
      sampler.reload()
      const r = s.seeds
      sampler.sweepFrom(r[4 * j] as number, r[4 * j + 1] as number, r[4 * j + 2] as number, r[4 * j + 3] as number)
      sampler.syncDense()
    } else {
      const g = s.nwk
      const parts = s.partNwk
      for (let c = c0; c < c1; c++) {
        let x = (1 - P) * (g[c] as number)
        for (let p = 0; p < P; p++) x += parts[p * cells + c] as number
        g[c] = x
      }
    }
  }
}

/** AD-LDA as a part module of ./parallel/pool.ts. */
export const adLdaPart: PartModule<AdLdaArrays, AdLdaCommand, object> = { url: new URL('./ad-lda-part.js', import.meta.url), makePart, writeCommand: commands.writeCommand }
