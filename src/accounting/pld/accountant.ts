/**
 * The PLD accountant: a fold over the event algebra (./fold.ts) whose state is a multiset of
 * dominating pairs with repetition counts plus the exactly composed Gaussians (./state.ts); the
 * first query composes them (./build.ts) and caches the result inside the state. Queries never
 * change what a state means.
 *
 * Every answer is a bracket: `epsilon` (or `delta`) is the pessimistic estimate — the guarantee —
 * and `lower` the optimistic one; the true ε(δ) of the composed dominating pairs lies between, and
 * the gap is the accounting error, stated in `method` with the interval used.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { checkCompose, checkDeltaQuery, checkEpsilonQuery } from '../guards.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Accountant, DeltaAnswer, EpsilonAnswer } from '../accountant.js'
import {
  ANALYTIC_GAUSSIAN_REL_TOL,
  analyticGaussianDelta,
  analyticGaussianEpsilon,
} from '../analytic-gaussian.js'
import { pldComposition } from './build.js'
import { foldIntoState, PLD_NAME } from './fold.js'
import { DEFAULT_INTERVAL, DEFAULT_TAIL_MASS, type PldOptions, validatePldOptions } from './limits.js'
import { deltaAt, epsilonAt } from './queries.js'
import { emptyPldState, type PldComposition, type PldState } from './state.js'

export interface PldAccountantOptions {
  readonly relation: NeighbouringRelation
  /** Discretisation interval of the privacy-loss grid (default 1e-4). */
  readonly interval?: number
  /** Total mass the discretisation and the composition window may truncate (default 1e-15). */
  readonly tailMass?: number
  /**
   * Answer compositions made only of (unsampled) Gaussians with their exact closed-form profile
   * instead of discretising them (default true; false forces the numerical path, for testing).
   */
  readonly analyticGaussian?: boolean
}

/** One point of the privacy profile: δ(ε) with its optimistic estimate. */
export interface ProfilePoint {
  readonly epsilon: number
  readonly delta: number
  readonly lower: number
}

// -------------------------------------------------------------------------------------------
// answers
// -------------------------------------------------------------------------------------------

const show = (x: number): string => (Number.isFinite(x) ? x.toPrecision(6) : String(x))

const methodOf = (c: PldComposition, what: 'ε' | 'δ', lower: number, upper: number): string => {
  const grid = c.aligned ? `interval ${show(c.interval)} (aligned to the atom spacing)` : `interval ${show(c.interval)}`
  const dirs = c.directions.length === 2 ? ', worse of remove/add' : ''
  const gap = upper - lower
  return (
    `PLD at ${grid}: connect-the-dots upper / post-processing lower discretisation (Doroshenko et al. 2022), ` +
    `FFT composition (Koskela et al. 2020)${dirs}; ${what} ∈ [${show(lower)}, ${show(upper)}], accounting error ${Number.isFinite(gap) ? gap.toExponential(2) : 'unbounded'}`
  )
}

const epsilonOf = (c: PldComposition, delta: number): { readonly upper: number; readonly lower: number } => {
  let upper = 0
  let lower = 0
  for (const d of c.directions) {
    upper = Math.max(upper, epsilonAt(d.upper, delta, 'upper'))
    lower = Math.max(lower, epsilonAt(d.lower, delta, 'lower'))
  }
  return { upper, lower: Math.min(lower, upper) }
}

const deltaOf = (c: PldComposition, eps: number): { readonly upper: number; readonly lower: number } => {
  let upper = 0
  let lower = 0
  for (const d of c.directions) {
    upper = Math.max(upper, deltaAt(d.upper, eps, 'upper'))
    lower = Math.max(lower, deltaAt(d.lower, eps, 'lower'))
  }
  return { upper, lower: Math.min(lower, upper) }
}

const gaussianMethod = (mu: number, what: 'ε' | 'δ'): string =>
  `PLD of the composed Gaussians: one Gaussian with μ = ${show(mu)} (GDP composition, Dong, Roth & Su 2022, Cor. 3.3), ` +
  `whose PLD N(μ²/2, μ²) has the exact profile of Balle & Wang 2018 (Thm 8): ${what} exact, no discretisation error`

/** ε(δ) of the composed Gaussian: the analytic value's bisection bracket (relative width 1e-12). */
const gaussianEpsilon = (mu: { readonly lo: number; readonly hi: number }, delta: number): { readonly upper: number; readonly lower: number } => {
  const upper = analyticGaussianEpsilon(1 / mu.hi, delta)
  const lowerMu = analyticGaussianEpsilon(1 / mu.lo, delta)
  return { upper, lower: Math.max(0, lowerMu * (1 - 2 * ANALYTIC_GAUSSIAN_REL_TOL)) }
}

/** δ(ε) of the composed Gaussian, widened by a relative 1e-10 for the evaluation's rounding. */
const gaussianDelta = (mu: { readonly lo: number; readonly hi: number }, eps: number): { readonly upper: number; readonly lower: number } => ({
  upper: Math.min(1, analyticGaussianDelta(1 / mu.hi, eps) * (1 + 1e-10)),
  lower: analyticGaussianDelta(1 / mu.lo, eps) * (1 - 1e-10),
})

/** ε(δ) with its optimistic estimate. */
export const pldEpsilon = (
  s: PldState,
  delta: number,
  options: PldOptions,
  analyticGaussian = true,
): E.Either<DpError, EpsilonAnswer> => {
  const d = checkDeltaQuery(delta)
  if (E.isLeft(d)) return d
  const c = pldComposition(s, options, analyticGaussian)
  if (E.isLeft(c)) return c
  switch (c.right.kind) {
    case 'gaussian': {
      const mu = c.right.gaussianMu as { lo: number; hi: number }
      const e = gaussianEpsilon(mu, delta)
      return E.right({ epsilon: e.upper, delta, lower: e.lower, method: gaussianMethod(mu.hi, 'ε') })
    }
    case 'nonPrivate':
      return E.right({ epsilon: Infinity, delta, lower: Infinity, method: 'a NonPrivate release was composed: no finite ε' })
    case 'empty':
      return E.right({ epsilon: 0, delta, lower: 0, method: 'nothing private was released: ε = 0' })
    case 'pld': {
      const e = epsilonOf(c.right, delta)
      return E.right({ epsilon: e.upper, delta, lower: e.lower, method: methodOf(c.right, 'ε', e.lower, e.upper) })
    }
  }
}

/** δ(ε) with its optimistic estimate. */
export const pldDelta = (
  s: PldState,
  epsilon: number,
  options: PldOptions,
  analyticGaussian = true,
): E.Either<DpError, DeltaAnswer> => {
  const e = checkEpsilonQuery(epsilon)
  if (E.isLeft(e)) return e
  const c = pldComposition(s, options, analyticGaussian)
  if (E.isLeft(c)) return c
  switch (c.right.kind) {
    case 'gaussian': {
      const mu = c.right.gaussianMu as { lo: number; hi: number }
      const d = gaussianDelta(mu, epsilon)
      return E.right({ epsilon, delta: d.upper, lower: d.lower, method: gaussianMethod(mu.hi, 'δ') })
    }
    case 'nonPrivate': {
      const d = epsilon === Infinity ? 0 : 1
      return E.right({ epsilon, delta: d, lower: d, method: 'a NonPrivate release was composed: no δ < 1 at finite ε' })
    }
    case 'empty':
      return E.right({ epsilon, delta: 0, lower: 0, method: 'nothing private was released: δ = 0' })
    case 'pld': {
      const d = deltaOf(c.right, epsilon)
      return E.right({ epsilon, delta: d.upper, lower: d.lower, method: methodOf(c.right, 'δ', d.lower, d.upper) })
    }
  }
}

const resolveOptions = (o: { readonly interval?: number; readonly tailMass?: number }): E.Either<DpError, PldOptions> =>
  validatePldOptions(o.interval ?? DEFAULT_INTERVAL, o.tailMass ?? DEFAULT_TAIL_MASS)

/**
 * The privacy profile δ(ε) at each ε of a grid (for plotting), upper estimate with the optimistic
 * one beside it.
 */
export const privacyProfile = (
  s: PldState,
  epsilons: ReadonlyArray<number>,
  options: { readonly interval?: number; readonly tailMass?: number; readonly analyticGaussian?: boolean } = {},
): E.Either<DpError, ReadonlyArray<ProfilePoint>> => {
  const o = resolveOptions(options)
  if (E.isLeft(o)) return o
  for (const [i, eps] of epsilons.entries()) {
    const ok = checkEpsilonQuery(eps)
    if (E.isLeft(ok)) return E.left(invalidParameter(`epsilons[${i}]`, eps, 'ε must be ≥ 0'))
  }
  const out: ProfilePoint[] = []
  for (const eps of epsilons) {
    const d = pldDelta(s, eps, o.right, options.analyticGaussian ?? true)
    if (E.isLeft(d)) return d
    out.push({ epsilon: eps, delta: d.right.delta, lower: d.right.lower ?? d.right.delta })
  }
  return E.right(out)
}

/** The PLD accountant with its profile query. */
export interface PldAccountant extends Accountant<PldState> {
  readonly interval: number
  readonly tailMass: number
  /** δ(ε) over a grid of ε (upper estimate, with the lower one). */
  readonly profile: (epsilons: ReadonlyArray<number>) => (s: PldState) => E.Either<DpError, ReadonlyArray<ProfilePoint>>
}

/**
 * The PLD accountant. Invalid options (interval ≤ 0, tail mass outside (0, 1e-3)) are reported by
 * the first `compose`/query, naming the option.
 */
export const makePldAccountant = (options: PldAccountantOptions): PldAccountant => {
  const resolved = resolveOptions(options)
  const analytic = options.analyticGaussian ?? true
  const interval = options.interval ?? DEFAULT_INTERVAL
  const tailMass = options.tailMass ?? DEFAULT_TAIL_MASS
  const relation = options.relation
  return {
    name: PLD_NAME,
    description:
      'privacy loss distributions (Meiser & Mohammadi 2018; Koskela, Jälkö & Honkela 2020): connect-the-dots discretisation ' +
      '(Doroshenko et al. 2022) with an optimistic counterpart, composed by FFT — ε with a lower estimate and the accounting error',
    relation,
    empty: emptyPldState(),
    interval,
    tailMass,
    compose:
      (event, count = 1, path = '$') =>
      (s) => {
        if (E.isLeft(resolved)) return resolved
        const valid = checkCompose(event, count, path)
        if (E.isLeft(valid)) return valid
        return foldIntoState(s, event, count, path, relation)
      },
    epsilon: (delta) => (s) => (E.isLeft(resolved) ? resolved : pldEpsilon(s, delta, resolved.right, analytic)),
    delta: (epsilon) => (s) => (E.isLeft(resolved) ? resolved : pldDelta(s, epsilon, resolved.right, analytic)),
    profile: (epsilons) => (s) =>
      E.isLeft(resolved) ? resolved : privacyProfile(s, epsilons, { ...resolved.right, analyticGaussian: analytic }),
    notes: (s) => s.notes,
  }
}
