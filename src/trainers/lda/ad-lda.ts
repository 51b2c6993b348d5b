/**
 * AD-LDA: approximate distributed collapsed Gibbs sampling for the non-private CGS on P threads
 * (Newman, Asuncion, Smyth & Welling, "Distributed Algorithms for Topic Models", JMLR 10, 2009, §3).
 *
 * The documents are cut into P runs of about N/P tokens. In each sweep every part copies the global
 * word-topic counts n_wk and totals n_k, runs the exact SparseLDA sweep (./sparse.ts) over its own
 * documents against its copy, and the copies are merged: n_wk ← n_wk + Σ_p (n_wk^(p) − n_wk)
 * (their eq. 5). **The approximation**: within a sweep a token's conditional sees its own part's
 * moves but not the other parts' (the counts it reads are stale by what the other parts moved since
 * the sweep began), so the chain is not the sequential Gibbs sampler and its stationary distribution
 * is not exactly the posterior; Newman et al. report perplexity indistinguishable from the sequential
 * sampler's (their §5), and docs/trainers.md gives this implementation's measured difference. With
 * P = 1 it is the sequential sampler. The document-topic counts and z stay exact per part.
 *
 * Randomness: the calling thread draws each part's xoshiro128** state from the run's FastUniform every
 * sweep, so a seeded run is reproducible for a given P — and differs between values of P (the chain
 * itself differs).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { adLdaPart, type AdLdaArrays } from './ad-lda-part.js'
import { cutByWeight } from './parallel/part.js'
import { startPool } from './parallel/pool.js'
import type { FastUniform } from './random.js'
import type { GibbsState } from './state.js'

/** The AD-LDA sampler: approximate (see the module comment), named so wherever it is used. */
export interface AdLdaSampler {
  readonly approximation: 'AD-LDA (Newman et al. 2009): each thread samples against the counts as of the sweep start, merged after it'
  /** Threads sweeping, the calling one included. */
  readonly workers: number
  /** One sweep on every part, then the merge of their counts into the state's n_wk and n_k. */
  readonly sweep: (u: FastUniform) => void
  /** Ends the worker threads. */
  readonly close: () => void
}

const APPROXIMATION = 'AD-LDA (Newman et al. 2009): each thread samples against the counts as of the sweep start, merged after it' as const

/**
 * AD-LDA on `workers` threads (the calling one included; at most one per document). The state's
 * arrays must live in SharedArrayBuffers (initState with `sharedInt32`) when there are several.
 */
export const makeAdLdaSampler = (state: GibbsState, alpha: number, beta: number, workers: number): E.Either<DpError, AdLdaSampler> => {
  const { K, V, D, tokens, docStart, z, ndk, nwk, nk } = state
  if (!(Number.isInteger(workers) && workers >= 1)) return E.left(invalidParameter('workers', workers, 'the number of worker threads must be an integer ≥ 1'))
  const parts = Math.max(1, Math.min(workers, D))
  const threaded = parts > 1
  if (threaded && ![tokens, docStart, z, ndk, nwk, nk].every((a) => a.buffer instanceof SharedArrayBuffer))
    return E.left(invalidParameter('workers', workers, 'AD-LDA on several threads needs the Gibbs state in shared memory (initState with sharedInt32)'))
  const i32 = (n: number): Int32Array => (threaded ? new Int32Array(new SharedArrayBuffer(4 * n)) : new Int32Array(n))
  const arrays: AdLdaArrays = {
    K,
    V,
    alpha,
    beta,
    tokens,
    docStart,
    z,
    ndk,
    nwk,
    nk,
    partNwk: i32(parts * V * K),
    partNk: i32(parts * K),
    seeds: i32(parts * 4),
    docCut: cutByWeight(docStart, parts),
  }
  // the threads of ./parallel/pool.ts (parked between fits, shared with the private trainers' fits)
  const pool = startPool(adLdaPart, arrays, parts)
  if (E.isLeft(pool)) return pool
  const { run, close } = pool.right
  const partNk = arrays.partNk
  const sweep = (u: FastUniform): void => {
    for (let i = 0; i < 4 * parts; i++) arrays.seeds[i] = u.nextUint32() | 0
    run('sweep')
    run('merge')
    for (let k = 0; k < K; k++) {
      let x = (1 - parts) * (nk[k] as number)
      for (let p = 0; p < parts; p++) x += partNk[p * K + k] as number
      nk[k] = x
    }
  }
  return E.right({ approximation: APPROXIMATION, workers: parts, sweep, close })
}
