/**
 * Measurements, the public unit of a private release: a randomized function together with the
 * privacy event it is, in one value — the pattern of OpenDP's measurements (a function and its
 * privacy map), carried over to dpaudit's event algebra. A private trainer (built in or plugged in)
 * builds every release it makes as a Measurement and runs it through the release gate (./gate.ts),
 * which draws the randomness and records the event in the same call. Every noise sampler of
 * ./noise is reachable through one of the measurements here, each carrying its event:
 * - integer tables: `discreteLaplaceTable`, `discreteGaussianTable` (exact discrete noise);
 * - real vectors: `gaussianVector` (continuous Gaussian, ./noise/normal.ts, with its caveat);
 * - sampled releases: `miniBatchRelease`, a Poisson or fixed-size batch (./noise/subsets.ts) whose
 *   event is the sampling wrapper around the inner measurement's;
 * - `randomizedStep` (randomness consumed inside a loop), `unprotected` (NonPrivate); no-cost
 *   post-processing of a corpus is `postProcessing` in dpaudit/trainers (it knows which corpora are public).
 *
 * The count tables of the Gibbs trainers are integers, so they are released with exact discrete
 * noise (Canonne, Kamath & Steinke 2020): the discrete Laplace (pure DP, the geometric mechanism
 * of Ghosh, Roughgarden & Sundararajan 2009) and the discrete Gaussian (CKS Thm 4/Cor. 9: the same
 * zCDP as the continuous Gaussian). Neither has a floating-point support to leak (Mironov 2012).
 *
 * @module
 */
import type { WordStream } from '../core/words.js'
import { discreteGaussian, discreteLaplace, gaussian, nonPrivate, poissonSample, type PrivacyEvent, sampleWithoutReplacement, selfCompose } from './event.js'
import type { NeighbouringRelation } from './neighbouring.js'
import { discreteGaussianSampler, discreteLaplaceSampler } from './noise/index.js'
import { checkCells } from './noise/discrete-laplace.js'
import { fillNormal } from './noise/normal.js'
import { fixedSubset, poissonSubset } from './noise/subsets.js'

export interface Measurement<I, O> {
  /** What is released, in words (its label in the ledger). */
  readonly label: string
  /** The privacy event the release is, under the trainer's relation. */
  readonly event: PrivacyEvent
  /** Computes the release from the input, drawing every random word from `words`. */
  readonly run: (input: I, words: WordStream) => O
}

/**
 * How far one neighbouring step moves an integer table: at most `cells` cells change, each by at
 * most `perCell`. Under word replacement a topic-word table moves one count down and one up
 * (cells 2, perCell 1).
 */
export interface TableSensitivity {
  readonly cells: number
  readonly perCell: number
  readonly relation: NeighbouringRelation
}

/**
 * The event of independent noise on every cell of a table with this sensitivity: the per-cell event
 * composed `cells` times. For a difference of ±perCell on `cells` cells this is the exact
 * privacy-loss distribution (the coordinates are independent), not only a bound.
 */
const tableEvent = (cell: PrivacyEvent, s: TableSensitivity): PrivacyEvent => (s.cells === 1 ? cell : selfCompose(cell, s.cells))

/** The discrete Laplace event of a table release (pure (cells·perCell/t)-DP). */
export const discreteLaplaceTableEvent = (scale: number, s: TableSensitivity): PrivacyEvent => tableEvent(discreteLaplace(scale, s.perCell, s.relation), s)

/** The discrete Gaussian event of a table release (ρ = cells·perCell²/(2σ²)-zCDP). */
export const discreteGaussianTableEvent = (sigma: number, s: TableSensitivity): PrivacyEvent => tableEvent(discreteGaussian(sigma, s.perCell, s.relation), s)

/** The exact integer noise of a table release, as data (so that another thread can build the same sampler). */
export type TableNoise =
  | { readonly kind: 'discrete-laplace'; readonly scale: number }
  | { readonly kind: 'discrete-gaussian'; readonly sigma: number }
  /** The continuous Gaussian of `gaussianVector` (./noise/normal.ts, with its caveat). */
  | { readonly kind: 'gaussian'; readonly sigma: number }

/** A table noise's sampler: draws into `out`, or added to counts cell by cell (./noise/discrete-laplace.ts `fillAdd`). */
export interface TableNoiseSampler {
  fill<A extends Float64Array>(s: WordStream, out: A): A
  fillAdd(s: WordStream, counts: ArrayLike<number>, out: Float64Array, from: number, to: number): void
}

/** The sampler of `n` (./noise). */
export const tableNoiseSampler = (n: TableNoise): TableNoiseSampler =>
  n.kind === 'discrete-laplace'
    ? discreteLaplaceSampler(n.scale)
    : n.kind === 'discrete-gaussian'
      ? discreteGaussianSampler(n.sigma)
      : {
          fill: <A extends Float64Array>(s: WordStream, out: A): A => {
            fillNormal(s, n.sigma, out)
            return out
          },
          // the normals of the cells' range, then the counts added (fillNormal may draw its normals in pairs)
          fillAdd: (s, counts, out, from, to) => {
            checkCells(counts, out, from, to)
            fillNormal(s, n.sigma, out.subarray(from, to))
            for (let c = from; c < to; c++) out[c] = (counts[c] as number) + (out[c] as number)
          },
        }

/**
 * How a table release draws its noise: `counts` plus noise `n` on every cell, every word drawn from
 * `words` or from streams derived from it. The default draws the cells in order from `words` on the
 * calling thread; the private Gibbs trainers pass their threads' (src/trainers/lda/parallel), which
 * draw blocks of cells at once. Either way the noisy table is computed inside the measurement's run,
 * i.e. inside the gate's release, and the noise never exists apart from it.
 */
export type TableNoiser = (n: TableNoise, counts: ArrayLike<number>, words: WordStream) => Float64Array

const tableRelease = (label: string, noise: TableNoise, event: PrivacyEvent, noiser: TableNoiser | undefined): Measurement<ArrayLike<number>, Float64Array> => {
  const sampler = tableNoiseSampler(noise) // built (and its scale checked, RangeError) now, not at the first release
  return {
    label,
    event,
    run:
      noiser === undefined
        ? (counts, words) => {
            const out = new Float64Array(counts.length)
            sampler.fillAdd(words, counts, out, 0, out.length)
            return out
          }
        : (counts, words) => noiser(noise, counts, words),
  }
}

/** Releases an integer table plus exact discrete Laplace noise of scale t on every cell (drawn by `noiser`, default in order on this thread). */
export const discreteLaplaceTable = (label: string, scale: number, s: TableSensitivity, noiser?: TableNoiser): Measurement<ArrayLike<number>, Float64Array> =>
  tableRelease(label, { kind: 'discrete-laplace', scale }, discreteLaplaceTableEvent(scale, s), noiser)

/** Releases an integer table plus exact discrete Gaussian noise N_ℤ(0, σ²) on every cell (drawn by `noiser`, default in order on this thread). */
export const discreteGaussianTable = (label: string, sigma: number, s: TableSensitivity, noiser?: TableNoiser): Measurement<ArrayLike<number>, Float64Array> =>
  tableRelease(label, { kind: 'discrete-gaussian', sigma }, discreteGaussianTableEvent(sigma, s), noiser)

/**
 * A mechanism whose randomness is consumed inside the trainer's own loop (the topic draws of a
 * Gibbs sweep, subsampling coins): `step` receives the gate's words and nothing else random.
 */
export const randomizedStep = <I, O>(label: string, event: PrivacyEvent, step: (input: I, words: WordStream) => O): Measurement<I, O> => ({ label, event, run: step })

/** A data-dependent value released with no guarantee (ε = ∞): it is still recorded, as NonPrivate. */
export const unprotected = <I, O>(label: string, compute: (input: I) => O): Measurement<I, O> => ({ label, event: nonPrivate, run: (input) => compute(input) })

export type Sampling = 'poisson' | 'without-replacement'

/**
 * Releases a real vector of L2 sensitivity Δ plus N(0, σ²) on every coordinate: Gaussian(σ, Δ), the
 * vector Gaussian mechanism (its privacy loss is that of the scalar shift by ‖difference‖₂ ≤ Δ).
 * The normals are drawn as ./noise/normal.ts describes (and with the floating-point caveat it states):
 * in order from the gate's words on this thread, or by `noiser` (private SVI's threads, in blocks of
 * cells from streams derived from the words), the noisy vector computed inside the measurement's run.
 */
export const gaussianVector = (label: string, sigma: number, sensitivity: number, relation: NeighbouringRelation, noiser?: TableNoiser): Measurement<ArrayLike<number>, Float64Array> => ({
  label,
  event: gaussian(sigma, sensitivity, relation),
  run:
    noiser === undefined
      ? (values, words) => {
          const out = fillNormal(words, sigma, new Float64Array(values.length))
          for (let i = 0; i < out.length; i++) out[i] = (values[i] as number) + (out[i] as number)
          return out
        }
      : (values, words) => noiser({ kind: 'gaussian', sigma }, values, words),
})

/**
 * The sampling event around `inner`: Poisson at q = S/D (amplified under add/remove) or a uniform
 * S-subset of the D documents (amplified under replace-one, Wang–Balle–Kasiviswanathan 2019).
 */
export const samplingEvent = (sampling: Sampling, batchSize: number, documents: number, inner: PrivacyEvent): PrivacyEvent =>
  sampling === 'poisson' ? poissonSample(batchSize / documents, inner) : sampleWithoutReplacement(batchSize, documents, inner)

/**
 * One iteration's release: draw the mini-batch from the gate's words (Poisson coins or a partial
 * Fisher–Yates shuffle) of `documents` records, compute `statistic` on it and the input (it may
 * draw further words, e.g. a truncation), and release it through `noise`. The data may also be in
 * the closure (private SVI's corpus), as long as the measurement's run is the only place it is read.
 */
export const miniBatchRelease = <I = undefined>(
  label: string,
  sampling: Sampling,
  batchSize: number,
  documents: number,
  noise: Measurement<ArrayLike<number>, Float64Array>,
  statistic: (batch: Int32Array, size: number, words: WordStream, input: I) => ArrayLike<number>,
  /** The public D the Poisson rate S/D is set from (the declared one; default `documents`). */
  rateDocuments: number = documents,
): Measurement<I, Float64Array> => {
  const batch = new Int32Array(sampling === 'poisson' ? documents : batchSize)
  const perm = sampling === 'poisson' ? new Int32Array(0) : Int32Array.from({ length: documents }, (_, i) => i)
  const q = batchSize / rateDocuments
  return {
    label,
    event: samplingEvent(sampling, batchSize, rateDocuments, noise.event),
    run: (input, words) => {
      let size: number
      if (sampling === 'poisson') size = poissonSubset(words, documents, q, batch)
      else {
        fixedSubset(words, perm, batchSize)
        batch.set(perm.subarray(0, batchSize))
        size = batchSize
      }
      return noise.run(statistic(batch, size, words, input), words)
    },
  }
}
