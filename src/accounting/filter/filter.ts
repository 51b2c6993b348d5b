/**
 * Privacy filters: fully adaptive composition with a budget fixed in advance.
 *
 * An interactive pipeline chooses each next mechanism — and its privacy parameters — from the
 * outputs so far. Ordinary composition theorems assume the parameters are fixed in advance; a
 * privacy filter (Rogers, Roth, Ullman & Vadhan 2016, "Privacy odometers and filters: pay-as-you-go
 * composition") is a stopping rule that admits the next mechanism only while the running total stays
 * within the budget, and then the whole interaction — however the parameters were chosen — meets
 * the budget's guarantee. A filter here is an immutable value: `admit(event)` returns the filter
 * that has also spent `event`, or a refusal saying why (over budget, or an event this filter cannot
 * price) — the pipeline must then not run that mechanism, and may try a cheaper one.
 *
 * Four filters, each with the (ε, δ) guarantee of everything it ever admits:
 * - `rdpFilter` — Feldman & Zrnic 2021, "Individual privacy accounting via a Rényi filter",
 *   Thm 3.1: if the adaptively chosen RDP parameters at a fixed order α sum to at most B, the
 *   interaction is (α, B)-RDP. B is set from the target (ε, δ) by inverting the Canonne–Kamath–
 *   Steinke 2020 conversion at α (Prop. 12), so (α, B)-RDP ⇒ (ε, δ)-DP. Each event is priced by its
 *   RDP curve at α (../rdp/curve.ts, every tight bound included).
 * - `zcdpFilter` — the same argument at every order at once: a rule Σρ_i ≤ ρ keeps Σαρ_i ≤ αρ for
 *   all α, so the interaction is ρ-zCDP (the zCDP filter of Whitehouse, Ramdas, Rogers & Wu 2023,
 *   "Fully-adaptive composition in differential privacy"); ρ is the largest with ε(ρ, δ) ≤ ε under
 *   the zCDP conversion of ../zcdp/conversion.ts.
 * - `basicFilter` — basic composition holds as a filter (Rogers et al. 2016): admit while Σε_i ≤ ε
 *   and Σδ_i ≤ δ; the interaction is (ε, δ)-DP.
 * - `advancedFilter` — Whitehouse, Ramdas, Rogers & Wu 2023, the filter matching advanced
 *   composition with its constants: admit while √(2 log(1/δ′) Σε_i²) + ½Σε_i² ≤ ε and Σδ_i ≤ δ − δ′;
 *   the interaction is (ε, δ)-DP. For pure steps this is also the zCDP filter above with ρ_i = ε_i²/2
 *   (Bun & Steinke 2016, Prop. 1.4) and the conversion ρ + 2√(ρ log(1/δ′)) (ibid., Prop. 1.3).
 *   δ′ defaults to δ/2.
 * The (ε, δ) filters price an event by its fixed per-step (ε_i, δ_i): pure ε from the RDP fold's pure
 * ε, stated ApproxDP(ε, δ) steps, and subsampled compositions of those (amplified, Balle, Barthe &
 * Gaboardi 2018); a Gaussian or zCDP step has no fixed (ε, δ) and is refused with a pointer to the
 * RDP or zCDP filter.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, formatError, invalidParameter, numericFailure, unsupportedEvent } from '../../core/error.js'
import { nextUp } from '../../core/numeric.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { rdpEpsilonAtOrder } from '../conversions.js'
import { amplify, type Guarantee } from '../dp/amplification.js'
import { selectionDelta, selectionEpsilon } from '../dp/selection.js'
import { type DpState, foldEvent } from '../dp/state.js'
import { checkCompose } from '../guards.js'
import { rdpCurveDetailed } from '../rdp/curve.js'
import { MAX_ORDER } from '../rdp/orders.js'
import { makeZcdpAccountant } from '../zcdp/accountant.js'
import { zcdpToEpsilon } from '../zcdp/conversion.js'

export type FilterKind = 'rdp' | 'zcdp' | 'basic' | 'advanced'

export interface RdpSpend {
  readonly _tag: 'rdp'
  readonly order: number
  readonly rdp: number
  readonly budget: number
}
export interface ZcdpSpend {
  readonly _tag: 'zcdp'
  readonly rho: number
  readonly budget: number
}
export interface BasicSpend {
  readonly _tag: 'basic'
  readonly epsilon: number
  readonly delta: number
  readonly budget: Guarantee
}
export interface AdvancedSpend {
  readonly _tag: 'advanced'
  /** Σε_i² of the admitted steps. */
  readonly sumOfSquares: number
  /** √(2 log(1/δ′) Σε_i²) + ½Σε_i², the ε the admitted steps use. */
  readonly epsilon: number
  readonly delta: number
  readonly budget: Guarantee
  readonly deltaSlack: number
}

/** What a filter has spent, in its own currency, against its budget. */
export type FilterSpend = RdpSpend | ZcdpSpend | BasicSpend | AdvancedSpend

/** Why a filter did not admit an event. */
export type FilterRefusal =
  | {
      readonly _tag: 'OverBudget'
      /** The spend the filter would have reached, against the same budget. */
      readonly wouldSpend: FilterSpend
      readonly message: string
    }
  | { readonly _tag: 'Unpriced'; readonly error: DpError; readonly message: string }

export interface PrivacyFilter {
  readonly kind: FilterKind
  readonly relation: NeighbouringRelation
  /** The guarantee of every interaction this filter admits, whatever the adaptive choices. */
  readonly guarantee: Guarantee & { readonly method: string }
  /** Steps admitted so far (repetitions counted). */
  readonly admitted: number
  readonly spent: FilterSpend
  /** The filter that has also spent `count` runs of `event`, or why not. */
  readonly admit: (event: PrivacyEvent, count?: number, path?: string) => E.Either<FilterRefusal, PrivacyFilter>
}

export interface FilterTarget {
  readonly relation: NeighbouringRelation
  /** The (ε, δ) the whole interaction must meet. */
  readonly epsilon: number
  readonly delta: number
}

const fmt = (x: number): string => String(Number(x.toPrecision(6)))

const unpriced = (error: DpError): FilterRefusal => ({ _tag: 'Unpriced', error, message: formatError(error) })

/**
 * The soundness guard on a price (issue 30): every cost a filter adds is a number ≥ 0 (∞ allowed:
 * it is simply over any budget); NaN or a negative cost is a refusal, never spent.
 */
const unsoundCost = (cost: number | ReadonlyArray<FixedSteps>): string | undefined => {
  const ok = (x: number): boolean => x >= 0
  if (typeof cost === 'number') return ok(cost) ? undefined : `the price ${cost} is not a number ≥ 0`
  for (const x of cost)
    if (!ok(x.epsilon) || !(x.delta >= 0 && x.delta <= 1)) return `a step priced (ε, δ) = (${x.epsilon}, ${x.delta}) is not a guarantee`
  return undefined
}

/**
 * Spend + cost, where a positive cost always raises the spend: a cost below half an ulp of the
 * spend would otherwise vanish in the addition, and a run of such admissions could pass the budget
 * unseen (the absorption of issue 30); it raises the spend by one ulp instead. Other sums round to
 * nearest, as before (exact at the boundary: three 0.3 steps and a 0.1 step still fit ε = 1).
 */
export const addUp = (spent: number, cost: number): number => {
  if (!(cost > 0)) return spent
  const sum = spent + cost
  return sum === spent ? nextUp(spent) : sum
}

/** ε² of a step, at least the least positive double when ε > 0 (ε² underflows for ε ≲ 1e-162). */
const square = (epsilon: number): number => (epsilon > 0 ? Math.max(epsilon * epsilon, Number.MIN_VALUE) : 0)

const checkTarget = (t: FilterTarget, deltaMayBeZero: boolean): E.Either<DpError, void> => {
  if (!(t.epsilon > 0 && Number.isFinite(t.epsilon))) return E.left(invalidParameter('epsilon', t.epsilon, 'the budget ε must be a finite number > 0'))
  const okDelta = deltaMayBeZero ? t.delta >= 0 && t.delta < 1 : t.delta > 0 && t.delta < 1
  if (!okDelta) return E.left(invalidParameter('delta', t.delta, deltaMayBeZero ? 'the budget δ must be in [0, 1)' : 'the budget δ must be in (0, 1)'))
  return E.right(undefined)
}

/**
 * A filter over an additive spend: `price` turns an event into its cost, `step` adds it, `within`
 * is the budget rule. Shared by the four kinds, which differ only in currency.
 */
const makeFilter = <C extends number | ReadonlyArray<FixedSteps>, S extends FilterSpend>(
  kind: FilterKind,
  relation: NeighbouringRelation,
  guarantee: Guarantee & { readonly method: string },
  price: (event: PrivacyEvent, count: number, path: string) => E.Either<DpError, C>,
  step: (spent: S, cost: C) => S,
  within: (spent: S) => boolean,
  describe: (spent: S) => string,
) => {
  const build = (spent: S, admitted: number): PrivacyFilter => ({
    kind,
    relation,
    guarantee,
    admitted,
    spent,
    admit: (event, count = 1, path = '$') => {
      const ok = checkCompose(event, count, path)
      if (E.isLeft(ok)) return E.left(unpriced(ok.left))
      const cost = price(event, count, path)
      if (E.isLeft(cost)) return E.left(unpriced(cost.left))
      const bad = unsoundCost(cost.right)
      if (bad !== undefined) return E.left(unpriced(numericFailure(path, `${kind} filter: ${bad}; not admitted`)))
      const next = step(spent, cost.right)
      if (!within(next))
        return E.left({
          _tag: 'OverBudget',
          wouldSpend: next,
          message: `${path}: admitting ${count} run(s) would spend ${describe(next)}, over the ${kind} filter's budget; not admitted`,
        })
      return E.right(build(next, admitted + count))
    },
  })
  return build
}

/**
 * The budget B at order α that makes (α, B)-RDP imply (ε, δ)-DP under Canonne, Kamath & Steinke
 * 2020, Prop. 12: ε = B + log(1 − 1/α) − (log δ + log α)/(α − 1), solved for B.
 */
export const rdpBudgetFor = (order: number, epsilon: number, delta: number): number =>
  epsilon - Math.log1p(-1 / order) + (Math.log(delta) + Math.log(order)) / (order - 1)

/** Feldman & Zrnic 2021 Rényi filter at one order α (see the module comment). */
export const rdpFilter = (target: FilterTarget & { readonly order: number }): E.Either<DpError, PrivacyFilter> => {
  const ok = checkTarget(target, false)
  if (E.isLeft(ok)) return ok
  const { order, relation } = target
  if (!(order > 1 && order <= MAX_ORDER)) return E.left(invalidParameter('order', order, `the filter's Rényi order must be in (1, ${MAX_ORDER}]`))
  const budget = rdpBudgetFor(order, target.epsilon, target.delta)
  if (!(budget > 0))
    return E.left(
      invalidParameter('order', order, `at α = ${order}, (ε, δ) = (${target.epsilon}, ${target.delta}) leaves no RDP budget (B = ${fmt(budget)} ≤ 0); choose a larger order`),
    )
  // The guarantee is the conversion of the budget itself (≤ ε; equal up to rounding).
  const epsilon = rdpEpsilonAtOrder(order, budget, target.delta)
  const guarantee = {
    epsilon,
    delta: target.delta,
    method: `Rényi filter (Feldman & Zrnic 2021, Thm 3.1) at α = ${fmt(order)} with budget ${fmt(budget)}; → (ε, δ) by Canonne–Kamath–Steinke 2020`,
  }
  return E.right(
    makeFilter<number, RdpSpend>(
      'rdp',
      relation,
      guarantee,
      (event, count, path) => {
        const c = rdpCurveDetailed(event, relation, [order], path)
        return E.isLeft(c) ? c : E.right(count === 0 ? 0 : count * (c.right.curve[0] as number))
      },
      (s, cost) => ({ ...s, rdp: addUp(s.rdp, cost) }),
      (s) => s.rdp <= budget,
      (s) => `RDP ${fmt(s.rdp)} at α = ${fmt(order)} (budget ${fmt(budget)})`,
    )({ _tag: 'rdp', order, rdp: 0, budget }, 0),
  )
}

/** The largest ρ with zCDP ε(ρ, δ) ≤ ε (bisection; ε(ρ, δ) is increasing in ρ). */
export const zcdpBudgetFor = (epsilon: number, delta: number): number => {
  let lo = 0
  let hi = Math.max(1, epsilon)
  while (zcdpToEpsilon(hi, delta).epsilon <= epsilon) hi *= 2
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = (lo + hi) / 2
    if (zcdpToEpsilon(mid, delta).epsilon <= epsilon) lo = mid
    else hi = mid
  }
  return lo
}

/** zCDP filter: admit while Σρ_i ≤ ρ (see the module comment). */
export const zcdpFilter = (target: FilterTarget): E.Either<DpError, PrivacyFilter> => {
  const ok = checkTarget(target, false)
  if (E.isLeft(ok)) return ok
  const { relation } = target
  const budget = zcdpBudgetFor(target.epsilon, target.delta)
  const acct = makeZcdpAccountant({ relation })
  const guarantee = {
    epsilon: zcdpToEpsilon(budget, target.delta).epsilon,
    delta: target.delta,
    method: `zCDP filter (Feldman & Zrnic 2021 at every order; Whitehouse et al. 2023) with ρ = ${fmt(budget)}; → (ε, δ) by the zCDP conversion`,
  }
  return E.right(
    makeFilter<number, ZcdpSpend>(
      'zcdp',
      relation,
      guarantee,
      (event, count, path) => {
        const s = acct.compose(event, count, path)(acct.empty)
        if (E.isLeft(s)) return s
        // The filter's budget is on Σρ alone (its theorems are for ρ-zCDP): a (ξ, ρ) guarantee with ξ > 0 is refused.
        if (s.right.xi > 0)
          return E.left(unsupportedEvent(path, 'zcdp', 'ZCDP', `a (ξ, ρ)-zCDP guarantee with ξ = ${s.right.xi} > 0: the zCDP filter budgets ρ only; use the rdp filter`))
        return E.right(s.right.nonPrivate ? Infinity : s.right.rho)
      },
      (s, cost) => ({ ...s, rho: addUp(s.rho, cost) }),
      (s) => s.rho <= budget,
      (s) => `ρ = ${fmt(s.rho)} (budget ${fmt(budget)})`,
    )({ _tag: 'zcdp', rho: 0, budget }, 0),
  )
}

/** One fixed-(ε, δ) step with its multiplicity. */
interface FixedSteps {
  readonly epsilon: number
  readonly delta: number
  readonly count: number
}

/** Basic composition of fixed steps: Σ ε_i, Σ δ_i (Dwork & Roth 2014, Thm 3.16). */
const basicTotal = (steps: ReadonlyArray<FixedSteps>): Guarantee =>
  steps.reduce((g, x) => ({ epsilon: g.epsilon + x.count * x.epsilon, delta: g.delta + x.count * x.delta }), { epsilon: 0, delta: 0 })

/**
 * The fixed (ε_i, δ_i) steps of a folded event: stated and pure steps as they are, a subsampled
 * sub-composition composed by basic composition and amplified (Balle, Barthe & Gaboardi 2018, Thms
 * 8–9). Steps with no fixed (ε, δ) (Gaussian, discrete Gaussian, zCDP) are refused.
 */
const fixedSteps = (s: DpState, path: string): E.Either<DpError, ReadonlyArray<FixedSteps>> => {
  if (s.nonPrivate) return E.right([{ epsilon: Infinity, delta: 1, count: 1 }]) // no δ < 1 at any ε (as every accountant answers)
  const out: FixedSteps[] = []
  for (const e of s.entries) {
    const t = e.term
    if (t._tag === 'Fixed') out.push({ epsilon: t.epsilon, delta: t.delta, count: e.count })
    else if (t._tag === 'Sampled') {
      const inner = fixedSteps(t.inner, path)
      if (E.isLeft(inner)) return inner
      const total = basicTotal(inner.right)
      const amp = amplify(t.rate, total)
      out.push({ epsilon: amp.epsilon, delta: amp.delta, count: e.count })
    } else if (t._tag === 'Selected') {
      // Repeat-and-select of a basic-composed run (../dp/selection.ts).
      const inner = fixedSteps(t.inner, path)
      if (E.isLeft(inner)) return inner
      const total = basicTotal(inner.right)
      out.push({ epsilon: selectionEpsilon(t.mean, t.shape, total.epsilon), delta: selectionDelta(t.mean, t.shape, total.delta), count: e.count })
    } else
      return E.left(
        unsupportedEvent(
          path,
          'filter',
          t._tag,
          'a step with no fixed (ε, δ) (Gaussian, discrete Gaussian, zCDP); use rdpFilter or zcdpFilter, or state it as ApproxDP(ε, δ)',
        ),
      )
  }
  return E.right(out)
}

const priceFixed =
  (relation: NeighbouringRelation) =>
  (event: PrivacyEvent, count: number, path: string): E.Either<DpError, ReadonlyArray<FixedSteps>> => {
    const s = foldEvent(event, relation, path)
    if (E.isLeft(s)) return s
    const steps = fixedSteps(s.right, path)
    return E.isLeft(steps) ? steps : E.right(steps.right.map((x) => ({ ...x, count: x.count * count })))
  }

/** Basic-composition filter (Rogers et al. 2016): admit while Σε_i ≤ ε and Σδ_i ≤ δ. */
export const basicFilter = (target: FilterTarget): E.Either<DpError, PrivacyFilter> => {
  const ok = checkTarget(target, true)
  if (E.isLeft(ok)) return ok
  const budget = { epsilon: target.epsilon, delta: target.delta }
  return E.right(
    makeFilter<ReadonlyArray<FixedSteps>, BasicSpend>(
      'basic',
      target.relation,
      { ...budget, method: 'basic-composition filter (Rogers, Roth, Ullman & Vadhan 2016)' },
      priceFixed(target.relation),
      (s, steps) => {
        let { epsilon, delta } = s
        for (const x of steps) if (x.count > 0) (epsilon = addUp(epsilon, x.count * x.epsilon)), (delta = addUp(delta, x.count * x.delta))
        return { ...s, epsilon, delta }
      },
      (s) => s.epsilon <= budget.epsilon && s.delta <= budget.delta,
      (s) => `ε = ${fmt(s.epsilon)}, δ = ${fmt(s.delta)} (budget ${fmt(budget.epsilon)}, ${fmt(budget.delta)})`,
    )({ _tag: 'basic', epsilon: 0, delta: 0, budget }, 0),
  )
}

/** √(2 log(1/δ′) S) + S/2, the ε of advanced composition for Σε_i² = S. */
export const advancedFilterEpsilon = (sumOfSquares: number, deltaSlack: number): number =>
  Math.sqrt(2 * Math.log(1 / deltaSlack) * sumOfSquares) + sumOfSquares / 2

/** Whitehouse, Ramdas, Rogers & Wu 2023 advanced-composition filter (see the module comment). */
export const advancedFilter = (target: FilterTarget & { readonly deltaSlack?: number }): E.Either<DpError, PrivacyFilter> => {
  const ok = checkTarget(target, false)
  if (E.isLeft(ok)) return ok
  const deltaSlack = target.deltaSlack ?? target.delta / 2
  if (!(deltaSlack > 0 && deltaSlack <= target.delta))
    return E.left(invalidParameter('deltaSlack', deltaSlack, `δ′ must be in (0, δ = ${target.delta}]`))
  const budget = { epsilon: target.epsilon, delta: target.delta }
  const stepDelta = target.delta - deltaSlack
  return E.right(
    makeFilter<ReadonlyArray<FixedSteps>, AdvancedSpend>(
      'advanced',
      target.relation,
      {
        ...budget,
        method: `advanced-composition filter (Whitehouse, Ramdas, Rogers & Wu 2023): √(2 log(1/δ′) Σε²) + ½Σε² ≤ ε with δ′ = ${fmt(deltaSlack)}, Σδ_i ≤ ${fmt(stepDelta)}`,
      },
      priceFixed(target.relation),
      (s, steps) => {
        let { sumOfSquares, delta } = s
        for (const x of steps)
          if (x.count > 0) (sumOfSquares = addUp(sumOfSquares, x.count * square(x.epsilon))), (delta = addUp(delta, x.count * x.delta))
        return { ...s, sumOfSquares, epsilon: advancedFilterEpsilon(sumOfSquares, deltaSlack), delta }
      },
      (s) => s.epsilon <= budget.epsilon && s.delta <= stepDelta,
      (s) => `ε = ${fmt(s.epsilon)} (Σε² = ${fmt(s.sumOfSquares)}), Σδ = ${fmt(s.delta)} (budget ${fmt(budget.epsilon)}, ${fmt(stepDelta)})`,
    )({ _tag: 'advanced', sumOfSquares: 0, epsilon: 0, delta: 0, budget, deltaSlack }, 0),
  )
}
