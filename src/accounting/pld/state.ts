/**
 * The state of the PLD accountant: the dominating pairs composed so far, each with its repetition
 * count, the exactly composed Gaussians, and the cache of the query-time composition. Built by the
 * fold (./fold.ts), composed at query time (./build.ts), answered by ./accountant.ts.
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../../core/error.js'
import type { Notes } from '../accountant.js'
import type { BasePair, Direction } from './pairs.js'
import type { ComposedPld } from './queries.js'

/** One dominating pair with its repetition count. */
export interface PldFactorSpec {
  /** Identifies equal pairs, so repetitions merge into one count. */
  readonly key: string
  readonly base: BasePair
  /** Poisson sampling rate; 1 = not sampled (the pair is then the same in both directions). */
  readonly q: number
  readonly count: number
  /** Spacing of the pair's loss atoms when they lie on one lattice (used to align the grid). */
  readonly lattice: number | undefined
  /** Where the event first appeared, for errors found at query time. */
  readonly path: string
}

/**
 * The composed PLDs of a state: per direction, the pessimistic and the optimistic estimate; or,
 * for Gaussians only, the composed Gaussian's μ (its PLD is exactly N(μ²/2, μ²)).
 */
export interface PldComposition {
  readonly kind: 'empty' | 'nonPrivate' | 'gaussian' | 'pld'
  /** μ = √(Σ count/m²) of the composed Gaussian, rounded down and up. */
  readonly gaussianMu?: { readonly lo: number; readonly hi: number }
  /** Interval of the grid actually used (≤ the requested one when aligned to an atom spacing). */
  readonly interval: number
  readonly aligned: boolean
  readonly directions: ReadonlyArray<{ readonly direction: Direction; readonly upper: ComposedPld; readonly lower: ComposedPld }>
}

export interface PldState {
  readonly factors: ReadonlyArray<PldFactorSpec>
  /** Σ count/m² of the unsampled Gaussians, composed exactly into one Gaussian. */
  readonly gaussianMuSquared: number
  readonly gaussianPath: string | undefined
  /** A NonPrivate release was composed: ε = ∞. */
  readonly nonPrivate: boolean
  readonly notes: Notes
  /** Composition cache, keyed by interval and tail mass; filled by the first query. */
  readonly cache: Map<string, E.Either<DpError, PldComposition>>
}

export const emptyPldState = (): PldState => ({
  factors: [],
  gaussianMuSquared: 0,
  gaussianPath: undefined,
  nonPrivate: false,
  notes: [],
  cache: new Map(),
})
