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
  /**
   * Replace-one under Poisson subsampling answered directly (./pairs.ts): a Gaussian base is
   * discretised as the symmetric substitution pair (one direction covers both), an ε-DP base
   * arrives already amplified (q = 1).
   */
  readonly substitution?: boolean
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
  /** Some factor is a replace-one pair under Poisson subsampling (the route, for the method). */
  readonly substitution?: boolean
  readonly directions: ReadonlyArray<{ readonly direction: Direction; readonly upper: ComposedPld; readonly lower: ComposedPld }>
  /** The one direction composed under remove-only or add-only (see `PldState.direction`). */
  readonly oneWay?: Direction
}

/**
 * Compositions are kept across states by value (./build.ts `stateKey`): a field that the
 * composition (`buildComposition`) reads must be part of that key.
 */
export interface PldState {
  readonly factors: ReadonlyArray<PldFactorSpec>
  /** Σ count/m² of the unsampled Gaussians, composed exactly into one Gaussian. */
  readonly gaussianMuSquared: number
  readonly gaussianPath: string | undefined
  /** A NonPrivate release was composed: ε = ∞. */
  readonly nonPrivate: boolean
  /**
   * Under remove-only or add-only, the one direction of add/remove whose pairs are composed (the
   * other is not part of the guarantee); unset, both directions are composed and the worse δ taken
   * — so the add/remove answer is the larger of the two one-directional ones.
   */
  readonly direction?: Direction
  readonly notes: Notes
  /**
   * Replace-one states only (./group-route.ts): the same events folded under add/remove of the
   * same unit, for the group-privacy route (null when that fold was refused); whether a Poisson
   * sample was composed; and the direct route's refusal, when only the group route can answer.
   */
  readonly shadow?: PldState | null
  readonly sampled?: boolean
  readonly directRefusal?: DpError
  /**
   * Composition cache, keyed by interval and tail mass, with the window limit a refusal was found
   * under; filled by the first query (./build.ts).
   */
  readonly cache: Map<string, { readonly result: E.Either<DpError, PldComposition>; readonly limit: number }>
}

export const emptyPldState = (): PldState => ({
  factors: [],
  gaussianMuSquared: 0,
  gaussianPath: undefined,
  nonPrivate: false,
  notes: [],
  cache: new Map(),
})
