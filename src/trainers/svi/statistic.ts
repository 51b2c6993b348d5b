/**
 * The mini-batch expected sufficient statistic that private SVI releases (the private-SVI paper, Algorithm 1):
 * s̄ = (1/S)·Σ_{d ∈ batch} t_d with t_d = (c_dw φ_dwk)_{w,k}, one document's V×K term.
 *
 * Optional projection (`clipNorm` C). The authors' code (mijungi/vips_code, PPVI_LDA/onlineldavb.py,
 * `clippingProportion`, by J. Foulds) projects each document's term onto the L2 ball of radius
 * C = clippingProportion·maxLen (0.1·N there): t_d ← t_d·min(1, C/‖t_d‖₂), and divides the
 * sensitivity by the same factor. The paper does not describe it. Since ‖t_d‖₂ ≤ N_d ≤ N anyway
 * (a non-negative matrix of mass N_d), the projected term has norm ≤ min(C, N), so the sensitivity of
 * s̄ is min(C, N)/S under add/remove and √2·min(C, N)/S under replace-one (two non-negative matrices
 * of norm ≤ r are at most √2·r apart). The projection reads only the document and λ, so no other
 * document's term moves. It biases s̄ (long or repetitive documents weigh less): a utility choice,
 * not a privacy one.
 *
 * Without projection each cell is 0 + Σ_d e^{E ln θ_dk}·c_dw/norm_dw over the batch, then × e^{E ln β_kw}
 * (./ovb.ts); with it, each document's term is finished on its own rows so that its norm is known,
 * and its projected term added.
 *
 * Threads: the E-step runs on W threads (./e-step-part.ts, on the pool of ../lda/parallel/pool.ts):
 * this class, on the calling thread, gathers the batch as bags of words into shared arrays, then the
 * threads compute e^{E ln β} for its words, the documents' E-steps and the statistic, each cell summed
 * in batch order — the same vector, bit for bit, with any W (./e-step-part.ts says why).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { cutByWeight } from '../lda/parallel/part.js'
import { type Pool, startPool } from '../lda/parallel/pool.js'
import { type BatchArrays, DOCUMENTS, type EStepArrays, type EStepBatch, type EStepCommand, eStepPart, INVERSE_BATCH, ROWS } from './e-step-part.js'
import type { BagOfWords, OnlineLda } from './ovb.js'
import type { TableNoiser } from '../../mechanisms/measurement.js'
import { streamKeyOf } from '../lda/snapshot.js'

/** The threads of a statistic and the arrays they were bound to. */
interface Threads {
  readonly pool: Pool<EStepCommand, EStepBatch>
  readonly arrays: EStepArrays
}

const threadsFor = (ovb: OnlineLda, clipNorm: number | undefined, workers: number): E.Either<DpError, Threads> => {
  if (!(Number.isInteger(workers) && workers >= 1)) return E.left(invalidParameter('workers', workers, 'the number of worker threads must be an integer ≥ 1'))
  const shared = workers > 1
  if (shared && ![ovb.lambda, ovb.psiColSum, ovb.expElogBeta].every((a) => a.buffer instanceof SharedArrayBuffer))
    return E.left(invalidParameter('workers', workers, 'an E-step on several threads needs λ in shared memory (OnlineLda with shared: true)'))
  const f64 = (n: number): Float64Array => (shared ? new Float64Array(new SharedArrayBuffer(8 * n)) : new Float64Array(n))
  const i32 = (n: number): Int32Array => (shared ? new Int32Array(new SharedArrayBuffer(4 * n)) : new Int32Array(n))
  const { K, V, alpha, options } = ovb
  const arrays: EStepArrays = {
    K,
    V,
    alpha,
    maxIterations: options.maxIterations ?? 100,
    tolerance: options.tolerance ?? 0.001,
    kernel: options.kernel ?? 'wasm-simd',
    clipNorm: clipNorm ?? 0,
    lambda: ovb.lambda,
    psiColSum: ovb.psiColSum,
    expElogBeta: ovb.expElogBeta,
    stats: f64(V * K),
    rows: i32(V),
    sizes: i32(2),
    params: f64(1),
    docCut: i32(workers + 1),
    noiseKey: i32(5),
  }
  return E.map((pool: Pool<EStepCommand, EStepBatch>) => ({ pool, arrays }))(startPool(eStepPart, arrays, workers))
}

export class BatchStatistic {
  /** The statistic, V×K word-major (the released vector before noise); valid after `finish`. */
  readonly stats: Float64Array
  /** Documents whose term was projected in the current batch (for non-private evaluation only: never released). */
  projected = 0
  /** γ iterations of the current batch's documents, summed (for benchmarks: never released). */
  eStepIterations = 0
  private readonly pool: Pool<EStepCommand, EStepBatch>
  private readonly arrays: EStepArrays
  private readonly shared: boolean
  private batch: BatchArrays
  /** The batch's bags do not fit the attached arrays any more: attach the grown ones before the next command. */
  private grown = true
  private documents = 0
  private readonly wordStamp: Int32Array
  private stamp = 0

  /**
   * The statistic on the calling thread alone. `BatchStatistic.onThreads` runs it on W threads (the
   * same numbers).
   */
  constructor(ovb: OnlineLda, clipNorm: number | undefined)
  /** @internal (from `onThreads`) */
  constructor(ovb: OnlineLda, clipNorm: number | undefined, threads: Threads)
  constructor(
    ovb: OnlineLda,
    /** C: each document's term is projected to L2 norm ≤ C; undefined: no projection. */
    clipNorm: number | undefined,
    threads?: Threads,
  ) {
    const one = threads === undefined ? threadsFor(ovb, clipNorm, 1) : E.right(threads)
    if (E.isLeft(one)) throw new Error(one.left.message) // one thread starts no worker: cannot fail
    const { pool, arrays } = one.right
    this.pool = pool
    this.arrays = arrays
    this.stats = arrays.stats
    this.shared = pool.parts > 1
    this.wordStamp = new Int32Array(ovb.V)
    this.batch = this.allocate(16, 16 * 64) // grown (doubled) on demand
  }

  /**
   * The statistic on `workers` threads (the calling one included); λ must be shared (OnlineLda with
   * `shared: true`) when workers > 1. `close` releases the threads.
   */
  static onThreads(ovb: OnlineLda, clipNorm: number | undefined, workers: number): E.Either<DpError, BatchStatistic> {
    return E.map((t: Threads) => new BatchStatistic(ovb, clipNorm, t))(threadsFor(ovb, clipNorm, workers))
  }

  /** Threads of the E-step (1: the calling thread alone). */
  get workers(): number {
    return this.pool.parts
  }

  /** Arrays for `documents` documents of `words` distinct words in all, the current batch copied in. */
  private allocate(documents: number, words: number): BatchArrays {
    const f64 = (n: number): Float64Array => (this.shared ? new Float64Array(new SharedArrayBuffer(8 * n)) : new Float64Array(n))
    const i32 = (n: number): Int32Array => (this.shared ? new Int32Array(new SharedArrayBuffer(4 * n)) : new Int32Array(n))
    const K = this.arrays.K
    const b: BatchArrays = {
      bagStart: i32(documents + 1),
      bagWords: i32(words),
      bagCounts: f64(words),
      ratio: f64(words),
      theta: f64(documents * K),
      scale: f64(documents),
      iterations: i32(documents),
    }
    const old = this.batch as BatchArrays | undefined
    if (old !== undefined) {
      const n = old.bagStart[this.documents] as number
      b.bagStart.set(old.bagStart.subarray(0, this.documents + 1))
      b.bagWords.set(old.bagWords.subarray(0, n))
      b.bagCounts.set(old.bagCounts.subarray(0, n))
    }
    this.grown = true
    return b
  }

  /** Starts a mini-batch. */
  begin(): void {
    this.documents = 0
    this.arrays.sizes[ROWS] = 0
    this.stamp++
    this.projected = 0
    this.eStepIterations = 0
  }

  /** Adds one document (its bag is copied: `doc` may be reused). */
  add(doc: BagOfWords): void {
    const d = this.documents
    let b = this.batch
    const from = b.bagStart[d] as number
    if (d + 1 >= b.bagStart.length || from + doc.n > b.bagWords.length)
      b = this.batch = this.allocate(Math.max(b.scale.length, 2 * (d + 1)), Math.max(b.bagWords.length, 2 * (from + doc.n)))
    const { rows, sizes } = this.arrays
    const { wordStamp, stamp } = this
    for (let j = 0; j < doc.n; j++) {
      const w = doc.words[j] as number
      b.bagWords[from + j] = w
      b.bagCounts[from + j] = doc.counts[j] as number
      if (wordStamp[w] !== stamp) {
        wordStamp[w] = stamp
        rows[sizes[ROWS] as number] = w
        sizes[ROWS] = (sizes[ROWS] as number) + 1
      }
    }
    b.bagStart[d + 1] = from + doc.n
    this.documents = d + 1
  }

  /** Ends the batch: the statistic divided by the mini-batch size S (Algorithm 1's 1/S, S the expected size under Poisson sampling). */
  finish(batchSize: number): Float64Array {
    const { pool, arrays, batch, documents } = this
    if (this.grown) {
      pool.attach(batch)
      this.grown = false
    }
    arrays.sizes[DOCUMENTS] = documents
    arrays.params[INVERSE_BATCH] = 1 / batchSize
    // the documents cut into runs of about equal numbers of distinct words (the E-step's work)
    arrays.docCut.set(cutByWeight(batch.bagStart.subarray(0, documents + 1), pool.parts))
    pool.run('rows')
    pool.run('e-step')
    pool.run('reduce')
    for (let b = 0; b < documents; b++) {
      if ((batch.scale[b] as number) < 1) this.projected++
      this.eStepIterations += batch.iterations[b] as number
    }
    return this.stats
  }

  /**
   * The release's noise on the threads (pass it to gaussianVector): `counts` — the statistic `finish`
   * returned — plus noise, computed inside the gate's release in fixed blocks of cells, so a keyed
   * (seeded) run draws the same noise with any number of threads.
   */
  readonly noiser: TableNoiser = (noise, counts, words) => {
    if (counts !== this.stats) throw new RangeError('the E-step threads noise only their own statistic')
    const random = streamKeyOf(words)
    const key = this.arrays.noiseKey
    key[0] = random.kind === 'keyed' ? 1 : 0
    if (random.kind === 'keyed') key.set(random.key, 1)
    const noisy = this.shared ? new Float64Array(new SharedArrayBuffer(8 * counts.length)) : new Float64Array(counts.length)
    this.pool.attach({ noise, noisy })
    this.pool.run('noise')
    return noisy
  }

  /** Releases the threads (parked for the next fit); the statistic is unusable after it. */
  close(): void {
    this.pool.close()
  }
}
