/**
 * How a composite (ε, δ) is spent on a configuration, and the event that spends it.
 *
 * Every noised edge i is a Gaussian with noise multiplier z_i = s/w_i (σ_i = z_i·Δ_i, Δ_i its
 * sensitivity, or the sensitivity PTR's bounds imply), every PTR test j a Laplace with ε_j = w_j/s,
 * and the tests fail with total probability `failureShare`·δ/2 (charged as failureShare·δ:
 * ../../mechanisms/ptr.ts). The weights w (default 1 each) say how the budget is split; the one
 * scalar s is found by bisection so that the accountant's ε at δ on the whole event — tests,
 * Gaussians and the failure term together — is at most the target. The composite is what the
 * accountant says, never a sum written by hand; the paper's own sum (Procedure 1 and Prop. 18–19:
 * τ = √(2 ln(1.25/δ_i))/ε_i per edge, ε and δ added) is computed beside it as the claim.
 *
 * Calibration runs the PLD accountant at a 10⁻³ discretisation (an upper bound at any interval);
 * the statement then reports the tightest of every accountant, which is at most that.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../../accounting/account.js'
import { type DpError, infeasible, invalidParameter } from '../../core/error.js'
import { compose, gaussian, labeled, type PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { failureCharge, type PtrTest, ptrStep } from '../../mechanisms/ptr.js'
import { type Declared, schedulePlan } from '../../mechanisms/schedule.js'
import { edge, type EdgeId, neededQuantities, type NoiseConfiguration } from './graph.js'
import { eigenvalueSensitivity, gammaSensitivityAsStated, QUANTITY_TEXT, type QuantityName } from './sensitivity.js'

export interface BudgetSplit {
  /** Weight per noised edge and per PTR quantity (sigmaK, sigma1, gammaS); missing = 1. */
  readonly weights: Readonly<Record<string, number>>
  /** Fraction of δ charged for PTR failures (when the configuration has tests). */
  readonly failureShare: number
}

/** The calibrated spending: the scalar s, each edge's multiplier, each test. */
export interface Calibration {
  readonly scale: number
  readonly multipliers: ReadonlyArray<{ readonly edge: EdgeId; readonly z: number }>
  readonly tests: ReadonlyArray<PtrTest & { readonly quantity: QuantityName }>
  /** The releases, in order: the global edges, then PTR (the trainer's schedule). */
  readonly steps: ReadonlyArray<Declared>
  /** The event of the whole release (plan ≡ ledger): the steps composed. */
  readonly event: PrivacyEvent
}

export interface BudgetInput {
  readonly configuration: NoiseConfiguration
  readonly documents: number
  readonly alpha0: number
  readonly epsilon: number
  readonly delta: number
  readonly split: BudgetSplit
  readonly relation: NeighbouringRelation
}

const weight = (split: BudgetSplit, key: string): number => split.weights[key] ?? 1

/** Edges noised with a global sensitivity (outside PTR) and with a PTR-bounded one (inside). */
export const edgesByKind = (c: NoiseConfiguration): { readonly global: ReadonlyArray<EdgeId>; readonly local: ReadonlyArray<EdgeId> } => ({
  global: c.edges.filter((e) => edge(e).sensitivity.needs.length === 0),
  local: c.edges.filter((e) => edge(e).sensitivity.needs.length > 0),
})

export const edgeLabel = (id: EdgeId): string => {
  const e = edge(id)
  return `${id}: Gaussian noise on ${e.noised} (${e.sensitivity.status === 'proved' ? 'proved' : 'paper-stated'} sensitivity ${e.sensitivity.formula})`
}

/** The PTR step's release: the local edges' Gaussians at their fixed multipliers (σ = z·the sensitivity at the bounds). */
export const localReleaseEvent = (local: ReadonlyArray<EdgeId>, z: (e: EdgeId) => number, rel: NeighbouringRelation): PrivacyEvent =>
  compose(local.map((e) => labeled(`${edgeLabel(e)}, σ = z·(sensitivity at the bounds)`, gaussian(z(e), 1, rel))))

/** The event for a given scale s: global edges, then PTR (tests, the local edges, the failure term). */
export const spendingAt = (b: BudgetInput, scale: number): Omit<Calibration, 'scale'> => {
  const rel = b.relation
  const { global, local } = edgesByKind(b.configuration)
  const multipliers = b.configuration.edges.map((e) => ({ edge: e, z: scale / weight(b.split, e) }))
  const z = (e: EdgeId): number => multipliers.find((m) => m.edge === e)?.z as number
  const quantities = neededQuantities(b.configuration)
  const perTestFailure = quantities.length === 0 ? 0 : (b.split.failureShare * b.delta) / (2 * quantities.length)
  const tests = quantities.map((q) => ({
    quantity: q,
    label: `${QUANTITY_TEXT[q]} ${q === 'sigma1' ? 'upper' : 'lower'} bound`,
    sensitivity: q === 'gammaS' ? gammaSensitivityAsStated(b.documents) : eigenvalueSensitivity(b.documents, b.alpha0),
    epsilon: weight(b.split, q) / scale,
    failureDelta: perTestFailure,
    direction: (q === 'sigma1' ? 'upper' : 'lower') as 'upper' | 'lower',
  }))
  const steps: Declared[] = global.map((e) => ({ label: edgeLabel(e), event: gaussian(z(e), 1, rel) }))
  if (local.length > 0) steps.push(ptrStep(`${local.join(', ')} calibrated to the proposed bounds`, tests, localReleaseEvent(local, z, rel), rel))
  return { multipliers, tests, steps, event: schedulePlan({ before: steps, iterations: 0 }) }
}

const epsilonOf = (event: PrivacyEvent, b: BudgetInput): number => {
  const r = account({ schemaVersion: 1, relation: b.relation, event }, { deltas: [b.delta], accountants: ['pld'], interval: 1e-3 })
  return E.isLeft(r) ? Number.POSITIVE_INFINITY : (r.right.tightest[0]?.epsilon ?? Number.POSITIVE_INFINITY)
}

const memo = new Map<string, E.Either<DpError, Calibration>>()

/** The smallest scale s (to relative precision 10⁻³) whose whole event meets (ε, δ) under the PLD accountant; memoised per input (plan, claim and fit ask for the same one). */
export const calibrateBudget = (b: BudgetInput): E.Either<DpError, Calibration> => {
  const key = JSON.stringify({ ...b, configuration: b.configuration.edges })
  const known = memo.get(key)
  if (known !== undefined) return known
  const out = calibrateUncached(b)
  if (memo.size > 256) memo.clear()
  memo.set(key, out)
  return out
}

const calibrateUncached = (b: BudgetInput): E.Either<DpError, Calibration> => {
  if (!(b.epsilon > 0 && Number.isFinite(b.epsilon))) return E.left(invalidParameter('epsilon', b.epsilon, 'the composite ε must be a finite number > 0'))
  if (!(b.delta > 0 && b.delta <= 0.5)) return E.left(invalidParameter('delta', b.delta, 'the composite δ must be in (0, ½] (PTR’s failure charge is sound up to ½)'))
  if (!(b.split.failureShare > 0 && b.split.failureShare < 1)) return E.left(invalidParameter('failureShare', b.split.failureShare, 'the share of δ charged for PTR failures must be in (0, 1)'))
  for (const [k, w] of Object.entries(b.split.weights)) if (!(w > 0 && Number.isFinite(w))) return E.left(invalidParameter(`weights.${k}`, w, 'a budget weight must be a finite number > 0'))
  const meets = (s: number): boolean => epsilonOf(spendingAt(b, s).event, b) <= b.epsilon
  // bracket [lo, hi] with meets(hi) and not meets(lo), by factors of 4 from s = 1; then bisect in log scale
  let lo = 1
  let hi = 1
  if (meets(1)) {
    while (meets(lo)) {
      hi = lo
      lo /= 4
      if (lo < 1e-12) return E.right({ scale: hi, ...spendingAt(b, hi) })
    }
  } else {
    while (!meets(hi)) {
      lo = hi
      hi *= 4
      if (hi > 1e9) return E.left(infeasible('epsilon', `no noise level meets ε = ${b.epsilon} at δ = ${b.delta} for ${b.configuration.name}`))
    }
  }
  while (hi - lo > 1e-3 * hi) {
    const mid = Math.sqrt(lo * hi)
    if (meets(mid)) hi = mid
    else lo = mid
  }
  return E.right({ scale: hi, ...spendingAt(b, hi) })
}

/**
 * The paper's composite for the same noise (Procedure 1, Prop. 18–19): each Gaussian edge with
 * multiplier z at δ_i read as ε_i = √(2 ln(1.25/δ_i))/z, the tests' ε_j and the failure δ's, all
 * added. δ_i: what is left of δ after the failures, split evenly. Prop. 18 needs every ε_i ≤ 1.
 */
export const paperComposite = (b: BudgetInput, c: Calibration): { readonly epsilon: number; readonly delta: number; readonly perEdge: ReadonlyArray<number>; readonly valid: boolean } => {
  const failures = c.tests.reduce((s, t) => s + t.failureDelta, 0)
  const deltaEdge = (b.delta - failures) / c.multipliers.length
  const perEdge = c.multipliers.map((m) => Math.sqrt(2 * Math.log(1.25 / deltaEdge)) / m.z)
  const epsilon = perEdge.reduce((s, x) => s + x, 0) + c.tests.reduce((s, t) => s + t.epsilon, 0)
  return { epsilon, delta: b.delta, perEdge, valid: perEdge.every((e) => e <= 1) }
}

/** Total failure probability the tests run at, and what the event charges for it. */
export const failureSummary = (c: Calibration): { readonly run: number; readonly charged: number } => ({
  run: c.tests.reduce((s, t) => s + t.failureDelta, 0),
  charged: failureCharge(c.tests),
})
