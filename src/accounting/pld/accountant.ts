/**
 * The PLD accountant: a fold over the event algebra (./fold.ts) whose state is a multiset of
 * dominating pairs with repetition counts plus the exactly composed Gaussians (./state.ts); the
 * first query composes them (./build.ts) and caches the result inside the state. Queries never
 * change what a state means.
 *
 * Every answer is a (lower, estimate, upper) triple, as the PRV accountant's (Gopi, Lee & Wutschitz
 * 2021): `epsilon` (or `delta`) is the pessimistic estimate — the guarantee — and `lower` the
 * optimistic one, a lower bound (not a guarantee); the true ε(δ) of the composed dominating pairs
 * lies between, and the gap is the accounting error, stated in `method` with the interval used;
 * `estimate` (not a guarantee either) is the bracket's centre (`bracketEstimate`). The interval is the
 * user's, or chosen per answer within a work budget (./interval.ts); a grid too large for memory
 * is coarsened, never refused. Under replace-one, states with Poisson samples are answered by the smaller of the direct
 * pairs and the group-privacy route (./group-route.ts), the method naming the route; the group route
 * has no optimistic estimate, so its answers carry no `lower` and no `estimate`.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { MIN_NORMAL } from '../../core/numeric.js'
import { type DpError, invalidParameter, numericFailure } from '../../core/error.js'
import { checkCompose, checkDeltaQuery, checkEpsilonQuery } from '../guards.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { type Accountant, bracketEstimate, type DeltaAnswer, type EpsilonAnswer } from '../accountant.js'
import {
  ANALYTIC_GAUSSIAN_REL_TOL,
  analyticGaussianDelta,
  analyticGaussianEpsilon,
} from '../analytic-gaussian.js'
import { foldReplaceOne, GROUP_METHOD, type GroupAnswer, groupDeltaAnswer, groupEpsilon, groupRouteApplies } from './group-route.js'
import { type Bracket, type ChosenAnswer, chooseAndAnswer, firstPassWindow, type IntervalPolicy, intervalForTarget, windowCap } from './interval.js'
import { foldIntoState, PLD_NAME } from './fold.js'
import {
  DEFAULT_INTERVAL,
  DEFAULT_TAIL_MASS,
  DEFAULT_TARGET_ERROR,
  DEFAULT_WORK_BUDGET,
  MIN_WORK_BUDGET,
  type PldOptions,
  AUTO_TAIL_MASS,
  AUTO_TAIL_MIN_DELTA,
  queryTailMass,
  validatePldOptions,
} from './limits.js'
import { belowPureEpsilon, pureEpsilonBound } from './pure-bound.js'
import { deltaAt, epsilonAt } from './queries.js'
import { emptyPldState, type PldComposition, type PldState } from './state.js'

export interface PldAccountantOptions {
  readonly relation: NeighbouringRelation
  /**
   * Discretisation interval of the privacy-loss grid. Unset (the default), the accountant starts at
   * 1e-4 and refines the grid toward `targetError` at the scale of each answer, within
   * `workBudget`; set, it is used as given. Either way a grid that would not fit in memory is
   * coarsened, never refused (./interval.ts).
   */
  readonly interval?: number
  /** Relative accounting error aimed at when the interval is unset (default 1e-3). */
  readonly targetError?: number
  /**
   * When the interval is unset: the composition-window points all passes of one answer may use
   * together (default 2^20, about a second of work at most). A finer pass that would pass it is not
   * run; the answer then says its bracket is wider than the target and which interval would
   * tighten it. Ignored when `interval` is set.
   */
  readonly workBudget?: number
  /**
   * Total mass the discretisation and the composition window may truncate (added to δ in the
   * guarantee). Unset (the default): 1e-11 where the query's δ (given, or answered) is at least
   * 1e-6, else 1e-15 (./limits.ts `queryTailMass`).
   */
  readonly tailMass?: number
  /**
   * Answer compositions made only of (unsampled) Gaussians with their exact closed-form profile
   * instead of discretising them (default true; false forces the numerical path, for testing).
   */
  readonly analyticGaussian?: boolean
}

/**
 * One point of the privacy profile: δ(ε) (the guarantee) with its optimistic lower bound and the
 * point estimate between them — neither of those two is a guarantee.
 */
export interface ProfilePoint {
  readonly epsilon: number
  readonly delta: number
  readonly lower: number
  readonly estimate: number
}

// -------------------------------------------------------------------------------------------
// answers
// -------------------------------------------------------------------------------------------

const show = (x: number): string => (Number.isFinite(x) ? x.toPrecision(6) : x === Infinity ? '∞' : String(x))

const methodOf = (c: PldComposition, what: 'ε' | 'δ', lower: number, upper: number, chosen?: ChosenAnswer, policy?: IntervalPolicy): string => {
  const grid = c.aligned ? `interval ${show(c.interval)} (aligned to the atom spacing)` : `interval ${show(c.interval)}`
  const dirs = c.directions.length === 2 ? ', worse of remove/add' : c.oneWay !== undefined ? `, the ${c.oneWay} direction only (${c.oneWay}-only relation)` : ''
  const sub = c.substitution ? ', replace-one under Poisson subsampling by the direct substitution pair (not group privacy)' : ''
  const gap = upper - lower
  return (
    `PLD at ${grid}${choice(chosen, policy)}: connect-the-dots upper / post-processing lower discretisation (Doroshenko et al. 2022), ` +
    `FFT composition (Koskela et al. 2020)${dirs}${sub}; ${what} ∈ [${show(lower)}, ${show(upper)}], accounting error ${Number.isFinite(gap) ? gap.toExponential(2) : 'unbounded'}` +
    imprecision(chosen, policy, { upper, lower }, chosen === undefined ? c.interval : (chosen.trail[chosen.trail.length - 1] as number))
  )
}

/** 2^k for a power of two, else the number. */
const points = (n: number): string => (Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : n.toLocaleString('en-US'))

/** How the interval was reached, when it is not simply the requested one. */
const choice = (chosen: ChosenAnswer | undefined, policy: IntervalPolicy | undefined): string => {
  if (chosen === undefined || policy === undefined) return ''
  const parts: string[] = []
  const from = `interval ${show(policy.interval)} ${policy.auto ? '(the default)' : 'requested'}`
  if (chosen.coarsened === 'limit') parts.push(`${from} would exceed the 2^22-point grid limit, coarsened to ${show(chosen.trail[0] as number)}`)
  if (chosen.coarsened === 'budget')
    parts.push(
      `${from} would need a window over the first pass's share of the work budget (${points(firstPassWindow(policy.workBudget))} of ` +
        `${points(policy.workBudget)} points), coarsened to ${show(chosen.trail[0] as number)}`,
    )
  if (chosen.trail.length > 1)
    parts.push(`refined from ${show(chosen.trail[0] as number)} through ${chosen.trail.slice(1).map(show).join(', ')} toward a relative error of ${policy.targetError}`)
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`
}

/** A hint when the bracket is wider than the target error: which interval would meet it. */
const imprecision = (chosen: ChosenAnswer | undefined, policy: IntervalPolicy | undefined, b: Bracket, interval: number): string => {
  if (chosen === undefined || policy === undefined) return ''
  const want = intervalForTarget(b, interval, policy.targetError)
  if (want === undefined) return ''
  if (policy.auto) {
    const budget = `the work budget of ${points(policy.workBudget)} points (${points(chosen.work)} used; raise workBudget or set the interval)`
    if (chosen.limited === 'budget')
      return `; wider than the ${policy.targetError} relative target: an interval of about ${show(want)} would tighten it, whose window would pass ${budget}`
    if (chosen.limited === 'settled')
      return (
        `; wider than the ${policy.targetError} relative target: the upper end (the guarantee) settled over the last refinement, ` +
        `and an interval of about ${show(want)}, which would raise the lower end, needs a window over ${budget}`
      )
    return ''
  }
  return `; wider than a ${policy.targetError} relative error: an interval of about ${show(want)} (or leaving the interval unset) would tighten it`
}

/**
 * The interval-independent error terms of a composition: the window's truncated mass and the
 * floating-point bound of both estimates, and the leaves' tails the upper estimate moved to +∞.
 */
const errorTerms = (c: PldComposition): number => {
  let t = 0
  for (const d of c.directions)
    t = Math.max(
      t,
      d.upper.truncatedMass + d.upper.fpError + d.lower.truncatedMass + d.lower.fpError + Math.max(0, d.upper.infinityMass - d.lower.infinityMass),
    )
  return t
}

const epsilonOf = (c: PldComposition, delta: number): Bracket => {
  let upper = 0
  let lower = 0
  for (const d of c.directions) {
    upper = Math.max(upper, epsilonAt(d.upper, delta, 'upper'))
    lower = Math.max(lower, epsilonAt(d.lower, delta, 'lower'))
  }
  // Within a factor 1000 of the error terms, δ is read through them, not through the grid.
  return { upper, lower: Math.min(lower, upper), refinable: delta > 1000 * errorTerms(c) }
}

const deltaOf = (c: PldComposition, eps: number): Bracket => {
  let upper = 0
  let lower = 0
  for (const d of c.directions) {
    upper = Math.max(upper, deltaAt(d.upper, eps, 'upper'))
    lower = Math.max(lower, deltaAt(d.lower, eps, 'lower'))
  }
  return { upper, lower: Math.min(lower, upper), refinable: upper - lower > 4 * errorTerms(c) }
}

const PURE_NOTE = (pure: number): string =>
  `the pairs' largest privacy losses add up to a pure ε = ${show(pure)} (δ(ε) = 0 from there; Poisson add direction −log(1 − q + q·e^{min loss}), ./pure-bound.ts)`

const gaussianMethod = (mu: number, what: 'ε' | 'δ'): string =>
  `PLD of the composed Gaussians: one Gaussian with μ = ${show(mu)} (GDP composition, Dong, Roth & Su 2022, Cor. 3.3), ` +
  `whose PLD N(μ²/2, μ²) has the exact profile of Balle & Wang 2018 (Thm 8): ${what} exact, no discretisation error` +
  // μ² below the normal doubles was rounded up (core/numeric.ts roundUpSubnormal): exact for that larger μ only
  (mu * mu < MIN_NORMAL ? ` (for this μ, an upper bound: μ² is below the normal doubles and was rounded up)` : '')

/** ε(δ) of the composed Gaussian: the analytic value's bisection bracket (relative width 1e-12). */
const gaussianEpsilon = (mu: { readonly lo: number; readonly hi: number }, delta: number): { readonly upper: number; readonly lower: number } => {
  // δ = 0: a Gaussian with μ > 0 has unbounded privacy loss, no pure ε.
  if (delta === 0) return mu.hi > 0 ? { upper: Infinity, lower: mu.lo > 0 ? Infinity : 0 } : { upper: 0, lower: 0 }
  const upper = analyticGaussianEpsilon(1 / mu.hi, delta)
  const lowerMu = analyticGaussianEpsilon(1 / mu.lo, delta)
  return { upper, lower: Math.max(0, lowerMu * (1 - 2 * ANALYTIC_GAUSSIAN_REL_TOL)) }
}

/**
 * δ(ε) of the composed Gaussian, widened by a relative 1e-10 for the evaluation's rounding. With
 * μ > 0 the true δ at a finite ε is positive: when it underflows the guarantee reports the least
 * positive double, not 0 (issue 30).
 */
const gaussianDelta = (mu: { readonly lo: number; readonly hi: number }, eps: number): { readonly upper: number; readonly lower: number } => {
  const upper = Math.min(1, analyticGaussianDelta(1 / mu.hi, eps) * (1 + 1e-10))
  const lower = analyticGaussianDelta(1 / mu.lo, eps) * (1 - 1e-10)
  return { upper: mu.hi > 0 && eps < Infinity ? Math.max(upper, Number.MIN_VALUE) : upper, lower: Math.min(lower, upper) }
}

/** The interval policy of a query: PldOptions alone fix the interval (no refinement). */
const policyOf = (options: PldOptions | IntervalPolicy): IntervalPolicy =>
  'auto' in options ? options : { ...options, auto: false, targetError: DEFAULT_TARGET_ERROR, workBudget: DEFAULT_WORK_BUDGET }

/** Options of the group route: the policy's interval, within the work budget when it is chosen. */
const groupOptions = (options: PldOptions | IntervalPolicy): PldOptions => {
  const p = policyOf(options)
  return p.auto ? { interval: p.interval, tailMass: p.tailMass, maxWindow: windowCap(p.workBudget) } : { interval: p.interval, tailMass: p.tailMass }
}

/** ε(δ) with its optimistic estimate, by the direct route. */
const directEpsilon = (
  s: PldState,
  delta: number,
  options: PldOptions | IntervalPolicy,
  analyticGaussian = true,
): E.Either<DpError, EpsilonAnswer> => {
  const d = checkDeltaQuery(delta)
  if (E.isLeft(d)) return d
  const given = policyOf(options)
  const policy = given.tailAuto === true ? { ...given, tailMass: queryTailMass(delta) } : given
  const chosen = chooseAndAnswer(s, policy, analyticGaussian, (c) => (c.kind === 'pld' ? epsilonOf(c, delta) : { upper: 0, lower: 0 }))
  if (E.isLeft(chosen)) return chosen
  const c = chosen.right.composition
  switch (c.kind) {
    case 'gaussian': {
      const mu = c.gaussianMu as { lo: number; hi: number }
      const e = gaussianEpsilon(mu, delta)
      return E.right({ epsilon: e.upper, delta, lower: e.lower, method: gaussianMethod(mu.hi, 'ε') })
    }
    case 'nonPrivate':
      return E.right({ epsilon: Infinity, delta, lower: Infinity, method: 'a NonPrivate release was composed: no finite ε' })
    case 'empty':
      return E.right({ epsilon: 0, delta, lower: 0, method: 'nothing private was released: ε = 0' })
    case 'pld': {
      const { upper, lower } = chosen.right
      const method = methodOf(c, 'ε', lower, upper, chosen.right, policy)
      // The pairs' largest losses bound ε at every δ (./pure-bound.ts). At δ = 0 they are the answer:
      // the grid cannot see loss mass that underflows (a sampled Gaussian's add-direction loss nears
      // its supremum only where the Gaussian tail is below 1e-308), and the supremum is exact.
      const pure = pureEpsilonBound(s)
      if (delta === 0) return E.right({ epsilon: pure, delta, lower: Math.min(lower, pure), method: `${method}; at δ = 0: ${PURE_NOTE(pure)}, answered` })
      if (pure < upper) return E.right({ epsilon: pure, delta, lower: Math.min(lower, pure), method: `${method}; ${PURE_NOTE(pure)}, smaller: answered` })
      return E.right({ epsilon: upper, delta, lower, method })
    }
  }
}

/** δ(ε) with its optimistic estimate, by the direct route. */
const directDelta = (
  s: PldState,
  epsilon: number,
  options: PldOptions | IntervalPolicy,
  analyticGaussian = true,
): E.Either<DpError, DeltaAnswer> => {
  const e = checkEpsilonQuery(epsilon)
  if (E.isLeft(e)) return e
  const given = policyOf(options)
  const answer = (policy: IntervalPolicy): E.Either<DpError, ChosenAnswer> =>
    chooseAndAnswer(s, policy, analyticGaussian, (c) => (c.kind === 'pld' ? deltaOf(c, epsilon) : { upper: 0, lower: 0 }))
  // With the tail unset: AUTO_TAIL_MASS, unless the answer is below AUTO_TAIL_MIN_DELTA, where the
  // default tail is taken instead (./limits.ts), so the tail stays below 1e-5·δ either way.
  let policy = given.tailAuto === true ? { ...given, tailMass: AUTO_TAIL_MASS } : given
  let chosen = answer(policy)
  if (given.tailAuto === true && E.isRight(chosen) && chosen.right.composition.kind === 'pld' && !(chosen.right.upper >= AUTO_TAIL_MIN_DELTA)) {
    policy = { ...given, tailMass: DEFAULT_TAIL_MASS }
    chosen = answer(policy)
  }
  if (E.isLeft(chosen)) return chosen
  const c = chosen.right.composition
  switch (c.kind) {
    case 'gaussian': {
      const mu = c.gaussianMu as { lo: number; hi: number }
      const d = gaussianDelta(mu, epsilon)
      return E.right({ epsilon, delta: d.upper, lower: d.lower, method: gaussianMethod(mu.hi, 'δ') })
    }
    case 'nonPrivate':
      // at ε = ∞ too: δ(∞) is the mass at +∞ (as for a sampled NonPrivate, q), here 1 — the output reveals the record
      return E.right({ epsilon, delta: 1, lower: 1, method: 'a NonPrivate release was composed: no δ < 1 at any ε (its loss is +∞ with probability 1)' })
    case 'empty':
      return E.right({ epsilon, delta: 0, lower: 0, method: 'nothing private was released: δ = 0' })
    case 'pld': {
      const { upper, lower } = chosen.right
      const method = methodOf(c, 'δ', lower, upper, chosen.right, policy)
      const pure = pureEpsilonBound(s)
      if (epsilon >= pure && pure < Infinity && upper > 0) return E.right({ epsilon, delta: 0, lower: 0, method: `${method}; ${PURE_NOTE(pure)} ≤ ε: δ = 0 answered` })
      // Below the largest loss the true δ is positive; a grid whose tail mass underflowed says 0.
      if (belowPureEpsilon(epsilon, pure) && upper === 0) return E.right({ epsilon, delta: Number.MIN_VALUE, lower: 0, method: `${method}; below the pure ε = ${show(pure)} δ > 0: the least positive double` })
      return E.right({ epsilon, delta: upper, lower, method })
    }
  }
}

/**
 * ε(δ) with its optimistic estimate. A replace-one state with Poisson samples is answered by the
 * smaller of the direct route and the group-privacy route (./group-route.ts), the method saying
 * which answered and what the other gave.
 */
export const pldEpsilon = (
  s: PldState,
  delta: number,
  options: PldOptions | IntervalPolicy,
  analyticGaussian = true,
): E.Either<DpError, EpsilonAnswer> => {
  if (!groupRouteApplies(s)) return noNaN(directEpsilon(s, delta, options, analyticGaussian), 'ε')
  const d = checkDeltaQuery(delta)
  if (E.isLeft(d)) return d
  const direct = s.directRefusal === undefined ? directEpsilon(s, delta, options, analyticGaussian) : undefined
  if (direct !== undefined && E.isLeft(direct)) return direct
  const group = groupEpsilon(s, delta, groupOptions(options))
  return noNaN(
    E.right(pickRoute(direct?.right, group, s.directRefusal, (a) => a.epsilon, (v, lower, method) => ({ epsilon: v, delta, method, ...(lower === undefined ? {} : { lower }) }), 'ε')),
    'ε',
  )
}

/** δ(ε) with its optimistic estimate; routes as for `pldEpsilon`. */
export const pldDelta = (
  s: PldState,
  epsilon: number,
  options: PldOptions | IntervalPolicy,
  analyticGaussian = true,
): E.Either<DpError, DeltaAnswer> => {
  if (!groupRouteApplies(s)) return noNaN(directDelta(s, epsilon, options, analyticGaussian), 'δ')
  const e = checkEpsilonQuery(epsilon)
  if (E.isLeft(e)) return e
  const direct = s.directRefusal === undefined ? directDelta(s, epsilon, options, analyticGaussian) : undefined
  if (direct !== undefined && E.isLeft(direct)) return direct
  const group = groupDeltaAnswer(s, epsilon, groupOptions(options))
  return noNaN(
    E.right(pickRoute(direct?.right, group, s.directRefusal, (a) => a.delta, (v, lower, method) => ({ epsilon, delta: v, method, ...(lower === undefined ? {} : { lower }) }), 'δ')),
    'δ',
  )
}

/**
 * Every answer is a number, ∞, or a refusal — never NaN (issue 11): a NaN here would be a defect in
 * a discretisation, reported as a numeric failure instead of being printed as a guarantee.
 */
const noNaN = <A extends { readonly epsilon: number; readonly delta: number; readonly lower?: number; readonly method: string }>(
  a: E.Either<DpError, A>,
  what: 'ε' | 'δ',
): E.Either<DpError, A> => {
  if (E.isLeft(a)) return a
  if (Number.isNaN(a.right.epsilon) || Number.isNaN(a.right.delta) || Number.isNaN(a.right.lower ?? 0))
    return E.left(numericFailure('$', `the PLD accountant computed NaN (${a.right.method}); no guarantee is stated — please report this event`))
  const { lower } = a.right
  if (lower === undefined) return a
  // The (lower, estimate, upper) triple, as PRV's accountant returns (Gopi, Lee & Wutschitz 2021).
  const upper = what === 'ε' ? a.right.epsilon : a.right.delta
  return E.right({ ...a.right, estimate: bracketEstimate(lower, upper) })
}

/** The smaller of the two routes' answers, with the route named in the method. */
const pickRoute = <A extends { readonly method: string; readonly lower?: number }>(
  direct: A | undefined,
  group: GroupAnswer | undefined,
  refusal: DpError | undefined,
  value: (a: A) => number,
  make: (v: number, lower: number | undefined, method: string) => A,
  what: 'ε' | 'δ',
): A => {
  const groupText = (g: GroupAnswer): string => `${GROUP_METHOD}, PLD at interval ${show(g.interval)}`
  if (direct === undefined) {
    const g = group as GroupAnswer
    return make(g.value, undefined, `route: group privacy (the direct route has no pair for ${refusal?.path ?? 'an event'}): ${groupText(g)}; ${what} ≤ ${show(g.value)} (no lower estimate)`)
  }
  if (group === undefined || !(group.value < value(direct)))
    return make(
      value(direct),
      direct.lower,
      `route: direct replace-one pairs under Poisson subsampling; ${direct.method}` +
        (group === undefined ? '' : `; the group-privacy route gave ${what} ≤ ${show(group.value)}`),
    )
  // The direct pairs were loose here, so their optimistic estimate bounds nothing: no lower end.
  return make(
    group.value,
    undefined,
    `route: group privacy (tighter here than the direct pairs, which gave ${what} ≤ ${show(value(direct))}): ${groupText(group)}`,
  )
}

const resolveOptions = (o: {
  readonly interval?: number
  readonly tailMass?: number
  readonly targetError?: number
  readonly workBudget?: number
}): E.Either<DpError, IntervalPolicy> => {
  const v = validatePldOptions(o.interval ?? DEFAULT_INTERVAL, o.tailMass ?? DEFAULT_TAIL_MASS)
  if (E.isLeft(v)) return v
  const targetError = o.targetError ?? DEFAULT_TARGET_ERROR
  if (!(targetError > 0 && targetError < 1))
    return E.left(invalidParameter('options.targetError', targetError, 'the PLD target relative error must be in (0, 1) (the default is 1e-3)'))
  const workBudget = o.workBudget ?? DEFAULT_WORK_BUDGET
  if (!(workBudget >= MIN_WORK_BUDGET && workBudget < Infinity))
    return E.left(
      invalidParameter('options.workBudget', workBudget, `the PLD work budget must be a finite number of grid points ≥ ${MIN_WORK_BUDGET} (the default is 2^20)`),
    )
  return E.right({ ...v.right, auto: o.interval === undefined, tailAuto: o.tailMass === undefined, targetError, workBudget })
}

/**
 * The privacy profile δ(ε) at each ε of a grid (for plotting), upper estimate with the optimistic
 * one beside it.
 */
export const privacyProfile = (
  s: PldState,
  epsilons: ReadonlyArray<number>,
  options: {
    readonly interval?: number
    readonly tailMass?: number
    readonly targetError?: number
    readonly workBudget?: number
    readonly analyticGaussian?: boolean
  } = {},
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
    out.push({ epsilon: eps, delta: d.right.delta, lower: d.right.lower ?? d.right.delta, estimate: d.right.estimate ?? d.right.delta })
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
        return relation.kind === 'replace-one' ? foldReplaceOne(s, event, count, path, relation) : foldIntoState(s, event, count, path, relation)
      },
    epsilon: (delta) => (s) => (E.isLeft(resolved) ? resolved : pldEpsilon(s, delta, resolved.right, analytic)),
    delta: (epsilon) => (s) => (E.isLeft(resolved) ? resolved : pldDelta(s, epsilon, resolved.right, analytic)),
    profile: (epsilons) => (s) =>
      E.isLeft(resolved) ? resolved : privacyProfile(s, epsilons, { ...options, analyticGaussian: analytic }),
    notes: (s) => s.notes,
  }
}
