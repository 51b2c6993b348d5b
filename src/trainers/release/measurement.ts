/**
 * Measurements: a randomized function together with the privacy event it is, in one value — the
 * pattern of OpenDP's measurements (a function and its privacy map), carried over to dpaudit's
 * event algebra. A private trainer builds every release it makes as a Measurement and runs it
 * through the release gate (./gate.ts), which draws the randomness and records the event in the
 * same call; `plan` declares the same measurements' events up front.
 *
 * The count tables of the Gibbs trainers are integers, so they are released with exact discrete
 * noise (Canonne, Kamath & Steinke 2020): the discrete Laplace (pure DP, the geometric mechanism
 * of Ghosh, Roughgarden & Sundararajan 2009) and the discrete Gaussian (CKS Thm 4/Cor. 9: the same
 * zCDP as the continuous Gaussian). Neither has a floating-point support to leak (Mironov 2012).
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { discreteGaussian, discreteLaplace, nonPrivate, noOp, type PrivacyEvent, selfCompose } from '../../mechanisms/event.js'
import type { Corpus, PublicCorpus } from '../corpus/corpus.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { discreteGaussianSampler, discreteLaplaceSampler } from '../../mechanisms/noise/index.js'

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

const addNoise = (counts: ArrayLike<number>, noise: Float64Array): Float64Array => {
  for (let i = 0; i < noise.length; i++) noise[i] = (counts[i] as number) + (noise[i] as number)
  return noise
}

/** Releases an integer table plus exact discrete Laplace noise of scale t on every cell. */
export const discreteLaplaceTable = (label: string, scale: number, s: TableSensitivity): Measurement<ArrayLike<number>, Float64Array> => {
  const sampler = discreteLaplaceSampler(scale)
  return {
    label,
    event: discreteLaplaceTableEvent(scale, s),
    run: (counts, words) => addNoise(counts, sampler.fill(words, new Float64Array(counts.length))),
  }
}

/** Releases an integer table plus exact discrete Gaussian noise N_ℤ(0, σ²) on every cell. */
export const discreteGaussianTable = (label: string, sigma: number, s: TableSensitivity): Measurement<ArrayLike<number>, Float64Array> => {
  const sampler = discreteGaussianSampler(sigma)
  return {
    label,
    event: discreteGaussianTableEvent(sigma, s),
    run: (counts, words) => addNoise(counts, sampler.fill(words, new Float64Array(counts.length))),
  }
}

/**
 * A mechanism whose randomness is consumed inside the trainer's own loop (the topic draws of a
 * Gibbs sweep, subsampling coins): `step` receives the gate's words and nothing else random.
 */
export const randomizedStep = <I, O>(label: string, event: PrivacyEvent, step: (input: I, words: WordStream) => O): Measurement<I, O> => ({ label, event, run: step })

/** A data-dependent value released with no guarantee (ε = ∞): it is still recorded, as NonPrivate. */
export const unprotected = <I, O>(label: string, compute: (input: I) => O): Measurement<I, O> => ({ label, event: nonPrivate, run: (input) => compute(input) })

/**
 * The input a no-cost step may read: anything but a private corpus. A `Corpus` is refused by the
 * compiler unless it carries the `PublicCorpus` brand (declared public by the user), and so is a
 * union that may hold one.
 */
export type NoCostInput<I> = [Extract<I, Corpus>] extends [never] ? I : [Exclude<Extract<I, Corpus>, PublicCorpus>] extends [never] ? I : never

/**
 * A step that costs nothing (NoOp): post-processing of earlier releases, or work on data the user
 * declared public. Its input type keeps private data out: a private `Corpus` does not compile here
 * (`NoCostInput`); what the step's closure captures is checked by the neighbour-differential tests.
 */
export const postProcessing = <I, O>(
  label: string,
  step: (input: I, words: WordStream) => O,
  // a private corpus in I asks for an argument nobody can give: the call does not compile
  ...privateCorpus: [NoCostInput<I>] extends [never] ? [never: 'a private Corpus is not the input of a no-cost step'] : []
): Measurement<I, O> => {
  void privateCorpus
  return { label, event: noOp, run: step }
}
