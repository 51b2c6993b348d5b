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
 * Without projection the E-step accumulates e^{E ln θ}·c/norm for the whole batch and multiplies by
 * e^{E ln β} once (./ovb.ts `endBatch`); with it, each document's term is finished on its own rows
 * (a begin/end per document, only the document's rows touched) so that its norm is known.
 *
 * @module
 */
import { type BagOfWords, OnlineLda } from './ovb.js'

export class BatchStatistic {
  /** The statistic, V×K word-major (the released vector before noise). */
  readonly stats: Float64Array
  private readonly term: Float64Array
  /** Documents whose term was projected in the current batch (for non-private evaluation only: never released). */
  projected = 0

  constructor(
    private readonly ovb: OnlineLda,
    /** C: each document's term is projected to L2 norm ≤ C; undefined: no projection. */
    private readonly clipNorm: number | undefined,
  ) {
    this.stats = new Float64Array(ovb.V * ovb.K)
    this.term = clipNorm === undefined ? new Float64Array(0) : new Float64Array(ovb.V * ovb.K)
  }

  /** Starts a mini-batch: the statistic is zeroed. */
  begin(): void {
    this.stats.fill(0)
    this.projected = 0
    if (this.clipNorm === undefined) this.ovb.beginBatch()
  }

  /** Adds one document's (possibly projected) term. */
  add(doc: BagOfWords): void {
    const { ovb, stats, clipNorm } = this
    if (clipNorm === undefined) {
      ovb.eStep(doc, stats)
      return
    }
    const { term } = this
    const K = ovb.K
    ovb.beginBatch()
    ovb.eStep(doc, term)
    ovb.endBatch(term) // only this document's rows were touched
    let sq = 0
    for (let j = 0; j < doc.n; j++) {
      const o = (doc.words[j] as number) * K
      for (let k = 0; k < K; k++) sq += (term[o + k] as number) ** 2
    }
    const norm = Math.sqrt(sq)
    const scale = norm > clipNorm ? clipNorm / norm : 1
    if (scale < 1) this.projected++
    for (let j = 0; j < doc.n; j++) {
      const o = (doc.words[j] as number) * K
      for (let k = 0; k < K; k++) {
        stats[o + k] = (stats[o + k] as number) + scale * (term[o + k] as number)
        term[o + k] = 0
      }
    }
  }

  /** Ends the batch: the statistic divided by the mini-batch size S (Algorithm 1's 1/S, S the expected size under Poisson sampling). */
  finish(batchSize: number): Float64Array {
    const { stats } = this
    if (this.clipNorm === undefined) this.ovb.endBatch(stats)
    const inv = 1 / batchSize
    for (let i = 0; i < stats.length; i++) stats[i] = (stats[i] as number) * inv
    return stats
  }
}
