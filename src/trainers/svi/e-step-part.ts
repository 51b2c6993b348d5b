/**
 * One part of private SVI's mini-batch E-step on W threads (a part module of
 * ../lda/parallel/pool.ts; the calling thread runs part 0, the pool's workers the others, with this
 * same code). Given the batch as bags of words (built on the calling thread, ./statistic.ts):
 *
 * - `rows`: e^{E ln β} for the batch's distinct words, part j a run of them (a function of λ only);
 * - `e-step`: the per-document γ/φ iterations (./ovb.ts `DocumentEStep`) for part j's run of
 *   documents (cut by distinct words): each document's e^{E ln θ} and c_w/norm_w, and with the
 *   projection (`clipNorm` C) the factor min(1, C/‖t_d‖₂) of its term t_d (./statistic.ts);
 * - `reduce`: the statistic s̄ = (1/S)·Σ_d t_d, part j the rows of a run of the vocabulary, each cell
 *   summed over the documents in batch order;
 * - `noise`: inside the gate's release, s̄ plus the Gaussian noise, part j a run of fixed blocks of
 *   cells (../lda/parallel/release-work.ts `addBlockNoise`, as the private Gibbs trainers' releases):
 *   node:crypto on each thread, or (a keyed run) block b's normals from a stream keyed by (key, b).
 *
 * Why the sum does not depend on W: every cell (w, k) is computed by one thread with the very
 * operations the one-thread E-step performs, in the same order — 0 + Σ_d e^{E ln θ_dk}·c_dw/norm_dw
 * over the batch's documents in order, then × e^{E ln β_kw}, then × 1/S (with the projection,
 * 0 + Σ_d scale_d·((e^{E ln θ_dk}·c_dw/norm_dw)·e^{E ln β_kw}), then × 1/S) — and every document's
 * factors are computed alone from λ and the document. So the statistic is the same double-precision
 * vector, bit for bit, with any number of threads.
 *
 * What crosses: λ, e^{E ln β} (from λ), the batch's bags and the per-document factors live in
 * SharedArrayBuffers of the process; the threads run only inside the release gate's measurement
 * (the mini-batch release's statistic, on the calling thread, waits for them), and the statistic
 * leaves only as the gate's noisy release. The batch and the truncation are drawn on the calling
 * thread from the gate's words; the noise here, from node:crypto or from a key the gate's words give.
 *
 * @module
 */
import type { TableNoise } from '../../mechanisms/measurement.js'
import { namedCommands, type PartModule } from '../lda/parallel/pool.js'
import { addBlockNoise, blockCount, NOISE_BLOCK, partRange, samplerCache } from '../lda/parallel/release-work.js'
import { DocumentEStep, expElogBetaRow, type GammaKernel } from './ovb.js'

/** The arrays of an E-step on W threads, bound once per fit (shared when W > 1). */
export interface EStepArrays {
  readonly K: number
  readonly V: number
  readonly alpha: number
  readonly maxIterations: number
  readonly tolerance: number
  readonly kernel: GammaKernel
  /** C of the projection, or 0 for none. */
  readonly clipNorm: number
  /** λ and ψ(Σ_w λ_wk), read; e^{E ln β}, rows written by `rows` and read by `e-step` and `reduce`. */
  readonly lambda: Float64Array
  readonly psiColSum: Float64Array
  readonly expElogBeta: Float64Array
  /** The statistic, V×K word-major: written by `reduce`. */
  readonly stats: Float64Array
  /** The batch's distinct words (the first `sizes[ROWS]`). */
  readonly rows: Int32Array
  /** [DOCUMENTS, ROWS] of the current batch. */
  readonly sizes: Int32Array
  /** [INVERSE_BATCH]: 1/S. */
  readonly params: Float64Array
  /** The parts' runs of documents (W + 1), set for each batch. */
  readonly docCut: Int32Array
  /** The noise's randomness: [0] 1 for keyed streams (then [1..4] the key), 0 for node:crypto. */
  readonly noiseKey: Int32Array
}
export const DOCUMENTS = 0
export const ROWS = 1
export const INVERSE_BATCH = 0

/** The batch and the per-document factors, attached again whenever they grow. */
export interface EStepBatch {
  /** Document b's words are bagWords[bagStart[b] .. bagStart[b + 1]), with their counts in bagCounts. */
  bagStart?: Int32Array
  bagWords?: Int32Array
  bagCounts?: Float64Array
  /** c_w/norm_w per word of the batch (indexed as bagWords), e^{E ln θ} per document (b·K + k). */
  ratio?: Float64Array
  theta?: Float64Array
  /** Per document: the projection's factor (1 without), γ iterations run. */
  scale?: Float64Array
  iterations?: Int32Array
  /** The release's noise and the noisy statistic it writes (a fresh array per release). */
  noise?: TableNoise
  noisy?: Float64Array
}
/** The batch's arrays of `EStepBatch`, all of them. */
export type BatchArrays = Required<Omit<EStepBatch, 'noise' | 'noisy'>>

export type EStepCommand = 'rows' | 'e-step' | 'reduce' | 'noise'
const commands = namedCommands<EStepCommand>('E-step', ['rows', 'e-step', 'reduce', 'noise'])
export const readCommand = commands.readCommand

/** The attached batch, all of it (attached together by ./statistic.ts). */
const attachedBatch = (t: EStepBatch): BatchArrays => {
  const { bagStart, bagWords, bagCounts, ratio, theta, scale, iterations } = t
  if (bagStart === undefined || bagWords === undefined || bagCounts === undefined || ratio === undefined || theta === undefined || scale === undefined || iterations === undefined)
    throw new RangeError('the batch was not attached')
  return { bagStart, bagWords, bagCounts, ratio, theta, scale, iterations }
}

/** Part j of every command, with its own E-step scratch. */
export const makePart = (s: EStepArrays, j: number) => {
  const { K, V } = s
  const W = s.docCut.length - 1
  const document = new DocumentEStep(K, s.alpha, { maxIterations: s.maxIterations, tolerance: s.tolerance, kernel: s.kernel })
  // this part's rows of the statistic: words [w0, w1)
  const w0 = Math.floor((V * j) / W)
  const w1 = Math.floor((V * (j + 1)) / W)
  const [b0, b1] = partRange(blockCount(V * K, NOISE_BLOCK), j, W)
  const samplers = samplerCache()
  return (c: EStepCommand, t: EStepBatch): void => {
    const eb = s.expElogBeta
    switch (c) {
      case 'rows': {
        const n = s.sizes[ROWS] as number
        const to = Math.floor((n * (j + 1)) / W)
        for (let i = Math.floor((n * j) / W); i < to; i++) expElogBetaRow(K, s.lambda, s.psiColSum, eb, s.rows[i] as number)
        return
      }
      case 'e-step': {
        const { bagStart, bagWords, bagCounts, ratio, theta, scale, iterations } = attachedBatch(t)
        const C = s.clipNorm
        for (let b = s.docCut[j] as number; b < (s.docCut[j + 1] as number); b++) {
          const from = bagStart[b] as number
          const m = (bagStart[b + 1] as number) - from
          iterations[b] = document.run(bagWords, bagCounts, from, m, eb, ratio, from)
          const th = document.theta
          const o = b * K
          for (let k = 0; k < K; k++) theta[o + k] = th[k] as number
          if (C === 0) {
            scale[b] = 1
            continue
          }
          // ‖t_d‖₂ of the document's finished term (r·e^{E ln θ})·e^{E ln β}, in ./statistic.ts's order
          let sq = 0
          for (let i = from; i < from + m; i++) {
            const r = ratio[i] as number
            const e = (bagWords[i] as number) * K
            for (let k = 0; k < K; k++) sq += ((r * (th[k] as number)) * (eb[e + k] as number)) ** 2
          }
          const norm = Math.sqrt(sq)
          scale[b] = norm > C ? C / norm : 1
        }
        return
      }
      case 'reduce': {
        const { bagStart, bagWords, ratio, theta, scale } = attachedBatch(t)
        const stats = s.stats
        const clip = s.clipNorm !== 0
        stats.fill(0, w0 * K, w1 * K)
        const docs = s.sizes[DOCUMENTS] as number
        for (let b = 0; b < docs; b++) {
          const th = b * K
          const f = scale[b] as number
          for (let i = bagStart[b] as number; i < (bagStart[b + 1] as number); i++) {
            const w = bagWords[i] as number
            if (w < w0 || w >= w1) continue
            const o = w * K
            const r = ratio[i] as number
            if (clip) for (let k = 0; k < K; k++) stats[o + k] = (stats[o + k] as number) + f * ((r * (theta[th + k] as number)) * (eb[o + k] as number))
            else for (let k = 0; k < K; k++) stats[o + k] = (stats[o + k] as number) + r * (theta[th + k] as number)
          }
        }
        // the factor e^{E ln β} (applied per document above under the projection), then 1/S
        const inv = s.params[INVERSE_BATCH] as number
        const n = s.sizes[ROWS] as number
        for (let i = 0; i < n; i++) {
          const w = s.rows[i] as number
          if (w < w0 || w >= w1) continue
          const o = w * K
          if (clip) for (let k = 0; k < K; k++) stats[o + k] = (stats[o + k] as number) * inv
          else for (let k = 0; k < K; k++) stats[o + k] = (stats[o + k] as number) * (eb[o + k] as number) * inv
        }
        return
      }
      case 'noise': {
        const { noise, noisy } = t
        if (noise === undefined || noisy === undefined) throw new RangeError('the noise was not attached')
        const k = s.noiseKey
        const random = k[0] === 1 ? { kind: 'keyed' as const, key: Uint32Array.from(k.subarray(1, 5)) } : { kind: 'crypto' as const }
        addBlockNoise(samplers(noise), random, s.stats, noisy, b0, b1)
        return
      }
    }
  }
}

/** The E-step as a part module of ../lda/parallel/pool.ts. */
export const eStepPart: PartModule<EStepArrays, EStepCommand, EStepBatch> = { url: new URL('./e-step-part.js', import.meta.url), makePart, writeCommand: commands.writeCommand }
