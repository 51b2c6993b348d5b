/**
 * The releases of private SVI as measurements (the function and its privacy event in one value;
 * ../release/measurement.ts is the pattern): a real vector plus continuous Gaussian noise on every
 * coordinate, and the mini-batch release that samples its documents from the gate's words, computes
 * the statistic on them and adds that noise — its event is the sampling wrapper around the Gaussian's.
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { gaussian, poissonSample, type PrivacyEvent, sampleWithoutReplacement } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Measurement } from '../release/measurement.js'
import { fillNormal, fixedSubset, poissonSubset } from './random.js'

export type Sampling = 'poisson' | 'without-replacement'

/**
 * Releases a real vector of L2 sensitivity Δ plus N(0, σ²) on every coordinate: Gaussian(σ, Δ), the
 * vector Gaussian mechanism (its privacy loss is that of the scalar shift by ‖difference‖₂ ≤ Δ).
 * The normals are drawn as random.ts describes (and with the floating-point caveat it states).
 */
export const gaussianVector = (label: string, sigma: number, sensitivity: number, relation: NeighbouringRelation): Measurement<ArrayLike<number>, Float64Array> => ({
  label,
  event: gaussian(sigma, sensitivity, relation),
  run: (values, words) => {
    const out = fillNormal(words, sigma, new Float64Array(values.length))
    for (let i = 0; i < out.length; i++) out[i] = (values[i] as number) + (out[i] as number)
    return out
  },
})

/**
 * The sampling event around `inner`: Poisson at q = S/D (amplified under add/remove) or a uniform
 * S-subset of the D documents (amplified under replace-one, Wang–Balle–Kasiviswanathan 2019).
 */
export const samplingEvent = (sampling: Sampling, batchSize: number, documents: number, inner: PrivacyEvent): PrivacyEvent =>
  sampling === 'poisson' ? poissonSample(batchSize / documents, inner) : sampleWithoutReplacement(batchSize, documents, inner)

/**
 * One iteration's release: draw the mini-batch from the gate's words (Poisson coins or a partial
 * Fisher–Yates shuffle), compute `statistic` on it (which may draw further words, e.g. the
 * truncation), and release it through `noise`. The input is nothing: the corpus is in the closure,
 * and the measurement's run is the only place it is read.
 */
export const miniBatchRelease = (
  label: string,
  sampling: Sampling,
  batchSize: number,
  documents: number,
  noise: Measurement<ArrayLike<number>, Float64Array>,
  statistic: (batch: Int32Array, size: number, words: WordStream) => ArrayLike<number>,
  /** The public D the Poisson rate S/D is set from (the declared one; default `documents`). */
  rateDocuments: number = documents,
): Measurement<undefined, Float64Array> => {
  const batch = new Int32Array(sampling === 'poisson' ? documents : batchSize)
  const perm = sampling === 'poisson' ? new Int32Array(0) : Int32Array.from({ length: documents }, (_, i) => i)
  const q = batchSize / rateDocuments
  return {
    label,
    event: samplingEvent(sampling, batchSize, rateDocuments, noise.event),
    run: (_, words) => {
      let size: number
      if (sampling === 'poisson') size = poissonSubset(words, documents, q, batch)
      else {
        fixedSubset(words, perm, batchSize)
        batch.set(perm.subarray(0, batchSize))
        size = batchSize
      }
      return noise.run(statistic(batch, size, words), words)
    },
  }
}
