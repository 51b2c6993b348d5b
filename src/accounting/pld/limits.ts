/**
 * Options of the PLD accountant and the memory limit on its grids, checked before anything is
 * allocated: a discretisation interval h puts one probability mass on every multiple of h over
 * the loss range, so a small h or a wide loss range (a strong mechanism, a long composition)
 * means a long array, and the FFT doubles it again.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'

/** Default discretisation interval of the privacy-loss grid (as in dp_accounting). */
export const DEFAULT_INTERVAL = 1e-4

/**
 * Default total probability mass the accountant may truncate: half for the leaves' tails (split
 * over all composed steps), half for the composition window. Truncated mass is added to δ in the
 * upper estimate and dropped in the lower one, so this only trades size for tightness.
 */
export const DEFAULT_TAIL_MASS = 1e-15

/**
 * Largest number of grid points in one array: a leaf PLD, or the FFT length of a composition.
 * 2^22 points are 32 MiB per real array; a composition keeps up to four half-spectra plus two
 * complex work buffers of this length (about 300 MiB in the worst case), well under 1 GiB.
 */
export const MAX_GRID_POINTS = 2 ** 22

/** Largest repetition count of one factor (SelfCompose counts multiply). */
export const MAX_COUNT = 2 ** 40

export interface PldOptions {
  readonly interval: number
  readonly tailMass: number
}

/** Checks the interval and tail mass; the path names the option. */
export const validatePldOptions = (interval: number, tailMass: number): E.Either<DpError, PldOptions> => {
  if (!(interval > 0) || !Number.isFinite(interval))
    return E.left(
      invalidParameter(
        'options.interval',
        interval,
        'the PLD discretisation interval must be a finite number > 0 (the default is 1e-4)',
      ),
    )
  if (!(tailMass > 0 && tailMass < 1e-3))
    return E.left(
      invalidParameter('options.tailMass', tailMass, 'the PLD tail-truncation mass must be in (0, 1e-3) (the default is 1e-15)'),
    )
  return E.right({ interval, tailMass })
}

/**
 * Refuses a grid of `points` points before it is allocated, naming the limit and the smallest
 * interval that would fit (`span` is the loss range the grid must cover).
 */
export const checkGridSize = (
  points: number,
  interval: number,
  span: number,
  path: string,
  what: string,
): E.Either<DpError, number> => {
  if (Number.isFinite(points) && points <= MAX_GRID_POINTS) return E.right(points)
  const need = Number.isFinite(span) && span > 0 ? roundUp3(span / (MAX_GRID_POINTS / 2)) : Number.NaN
  const hint = Number.isFinite(need) ? `; an interval of about ${need} or more would fit` : ''
  return E.left(
    invalidParameter(
      path,
      interval,
      `${what} would need ${Number.isFinite(points) ? Math.ceil(points).toLocaleString('en-US') : 'unboundedly many'} grid points at ` +
        `interval ${interval}, over the limit of ${MAX_GRID_POINTS.toLocaleString('en-US')} (2^22) points per array${hint}`,
    ),
  )
}

/** x rounded up to three significant digits. */
const roundUp3 = (x: number): number => {
  const e = 10 ** (Math.floor(Math.log10(x)) - 2)
  return Number((Math.ceil(x / e) * e).toPrecision(3))
}

/** Smallest power of two ≥ n (n ≥ 1), at least 4. */
export const nextPow2 = (n: number): number => {
  let p = 4
  while (p < n) p *= 2
  return p
}
