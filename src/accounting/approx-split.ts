/**
 * Approximate-DP steps in the Rényi and zCDP accountants (issue 26; dp_accounting's RDP accountant
 * takes EpsilonDeltaDpEvent the same way, keeping δ apart): each stated (ε_i, δ_i) step of a
 * composition is accounted as a pure ε_i step, and its δ_i kept aside as a revealing branch.
 *
 * Why it is sound. Every (ε, δ)-DP mechanism is, for each pair of neighbours, a post-processing of
 * the pair of Kairouz, Oh & Viswanath 2015 (Thm 2.1): with probability δ, on both sides, a branch
 * whose output tells the two apart; otherwise binary randomized response RR(ε), which is ε-DP.
 * Composition keeps that (adaptively: a composition of dominated pairs is dominated by the
 * composition of the dominating ones, Zhu, Dong & Wang 2022, Thm 10), so the composed pair is a
 * mixture: with probability η = 1 − Π(1 − δ_i)^{c_i} some branch revealed, and otherwise the
 * composition with each (ε_i, δ_i) step replaced by an ε_i-DP one. The hockey-stick divergence is
 * jointly convex, so for every ε
 *
 *     δ(ε) ≤ η·1 + (1 − η)·δ_pure(ε) = 1 − (1 − η)(1 − δ_pure(ε)),
 *
 * and ε(δ) ≤ ε_pure((δ − η)/(1 − η)) for δ ≥ η (ε = ∞ below: the worst pair has mass η at +∞).
 * η is computed with ./committed-delta.ts (rigorously rounded up); the δ handed on is rounded down.
 *
 * Only steps reachable through Compose, SelfCompose and Labeled are split (ApproxDP, and a
 * StatedProfile of one point), and only when stated under the accountant's relation (or add/remove
 * read in one direction or against ⊥, which leaves a stated guarantee unchanged): under sampling, selection or a change of relation the branch is
 * no longer data-independent in the same way, and such steps stay refused with their reason.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import { type NeighbouringRelation, sameRelation } from '../mechanisms/neighbouring.js'
import type { AccountedState } from './accountant.js'
import { committedDelta, coversCommittedDelta, type DeltaFactor } from './committed-delta.js'

export interface ApproxSplit {
  /** The event with each split step read as PureDP(ε_i). */
  readonly event: PrivacyEvent
  /** The δ_i kept aside, with their repetition counts. */
  readonly factors: ReadonlyArray<DeltaFactor>
}

/** Splits the (ε, δ > 0) steps of `e` reachable through composition (see the module note). */
export const splitApproxSteps = (e: PrivacyEvent, relation: NeighbouringRelation): ApproxSplit => {
  const factors: DeltaFactor[] = []
  const go = (x: PrivacyEvent, count: number): PrivacyEvent => {
    switch (x._tag) {
      case 'ApproxDP':
        if (!(x.delta > 0 && x.delta <= 1) || !unchangedUnder(x.relation, relation)) return x
        factors.push({ delta: x.delta, count })
        return { _tag: 'PureDP', epsilon: x.epsilon, relation: x.relation }
      case 'StatedProfile': {
        // One point is an (ε, δ) guarantee; several need the query to pick one, and stay refused.
        const [eps, delta] = [x.epsilons[0], x.deltas[0]]
        if (x.epsilons.length !== 1 || eps === undefined || delta === undefined || !(delta > 0 && delta <= 1) || !unchangedUnder(x.relation, relation)) return x
        factors.push({ delta, count })
        return { _tag: 'PureDP', epsilon: eps, relation: x.relation }
      }
      case 'Compose':
        return { ...x, events: x.events.map((c) => go(c, count)) }
      case 'SelfCompose':
        return { ...x, event: go(x.event, count * x.count) }
      case 'Labeled':
        return { ...x, event: go(x.event, count) }
      default:
        return x
    }
  }
  const event = go(e, 1)
  return { event, factors: factors.filter((f) => f.count > 0) }
}

/** A sampling or selection node, described for a message; undefined for any other node. */
const describeSampling = (x: PrivacyEvent): string | undefined => {
  switch (x._tag) {
    case 'PoissonSample':
      return `PoissonSample (q = ${x.q})`
    case 'TruncatedPoissonSample':
      return `TruncatedPoissonSample (q = ${x.q})`
    case 'SampleWithoutReplacement':
      return `SampleWithoutReplacement (${x.m} of ${x.n})`
    case 'WithReplacementSample':
      return `WithReplacementSample (${x.batchSize} of ${x.datasetSize})`
    case 'RepeatAndSelect':
      return `RepeatAndSelect (mean ${x.mean})`
    default:
      return undefined
  }
}

const describeStated = (x: PrivacyEvent): string | undefined => {
  if (x._tag === 'ApproxDP' && x.delta > 0) return `ApproxDP(ε = ${x.epsilon}, δ = ${x.delta})`
  if (x._tag === 'StatedProfile' && !x.deltas.some((d) => d === 0)) return `StatedProfile(${x.epsilons.length} point${x.epsilons.length === 1 ? '' : 's'}, no δ = 0)`
  return undefined
}

/**
 * Why the Rényi or zCDP accountant cannot take the stated (ε, δ > 0) step at `path`, when that step
 * sits under sampling or selection (where it is not split, see the module note): the message names
 * the step, the node around it and the ways out. Undefined for any other path.
 */
export const sampledApproxReason = (e: PrivacyEvent, root: string, path: string, accountant: 'rdp' | 'zcdp'): string | undefined => {
  const go = (x: PrivacyEvent, at: string, around: string | undefined): string | undefined => {
    if (at === path) {
      const what = describeStated(x)
      if (what === undefined || around === undefined) return undefined
      const measure = accountant === 'rdp' ? 'bounds no Rényi divergence' : 'implies no zCDP bound'
      return (
        `${what} under ${around}: the ${accountant === 'rdp' ? 'RDP' : 'zCDP'} of a sampled or selected (ε, δ) step is not defined — ` +
        `a guarantee with δ > 0 ${measure}, and its δ can be kept aside (accounting/approx-split.ts) only for a step composed outside ` +
        'any sampling or selection. Use the pld accountant (it samples the (ε, δ) pair of Kairouz, Oh & Viswanath 2015) or an (ε, δ) accountant ' +
        '(basic/advanced/optimal), state the mechanism itself (its noise) instead of its (ε, δ), or move the step out of the sampling'
      )
    }
    if (!path.startsWith(at)) return undefined
    const here = describeSampling(x)
    const next = here === undefined ? around : `${here} at ${at}`
    switch (x._tag) {
      case 'Compose':
        for (let i = 0; i < x.events.length; i++) {
          const r = go(x.events[i] as PrivacyEvent, `${at}.events[${i}]`, around)
          if (r !== undefined) return r
        }
        return undefined
      case 'SelfCompose':
      case 'Labeled':
        return go(x.event, `${at}.event`, around)
      case 'PoissonSample':
      case 'TruncatedPoissonSample':
      case 'SampleWithoutReplacement':
      case 'WithReplacementSample':
      case 'RepeatAndSelect':
        return go(x.event, `${at}.event`, next)
      default:
        return undefined
    }
  }
  return go(e, root, undefined)
}

/**
 * Whether a stated guarantee carries over to the accountant's relation unchanged (the table of
 * ../accounting/normalize.ts: the same relation, or add/remove read in one direction or against ⊥);
 * under a conversion that needs group privacy δ changes, and the step is left to the accountant.
 */
const unchangedUnder = (stated: NeighbouringRelation, asked: NeighbouringRelation): boolean =>
  sameRelation(stated, asked) ||
  (stated.kind === 'add-remove' && stated.unit === asked.unit && (asked.kind === 'add-only' || asked.kind === 'remove-only' || asked.kind === 'replace-special'))

const U = 2 ** -53

/**
 * The answers on the split event, with the kept δ added back: δ(ε) = 1 − (1 − η)(1 − δ_pure(ε))
 * rounded up, ε(δ) = ε_pure((δ − η)/(1 − η)) with that δ rounded down, ∞ when δ < η.
 */
export const withSplitDelta = (inner: AccountedState, factors: ReadonlyArray<DeltaFactor>): AccountedState => {
  const eta = committedDelta(factors, 'upper')
  const why = `each (ε_i, δ_i) step accounted as ε_i-DP with its δ_i kept aside: δ = 1 − (1 − η)(1 − δ_pure), η = 1 − Π(1 − δ_i) = ${eta.toPrecision(6)} (Kairouz, Oh & Viswanath 2015, Thm 2.1; joint convexity)`
  return {
    notes: [...inner.notes, why],
    delta: (epsilon) => {
      const d = inner.delta(epsilon)
      if (E.isLeft(d)) return d
      const total = Math.min(1, (d.right.delta + eta * (1 - d.right.delta)) * (1 + 8 * U))
      return E.right({ epsilon, delta: total, method: `${d.right.method}; ${why}` })
    },
    epsilon: (delta) => {
      if (!coversCommittedDelta(factors, delta))
        return E.right({ epsilon: Infinity, delta, method: `no finite ε: δ = ${delta} is below the kept δ η; ${why}` })
      const share = delta >= 1 ? 1 : Math.max(0, ((delta - eta) / (1 - eta)) * (1 - 8 * U))
      const a = inner.epsilon(share >= 1 ? 1 - U : share)
      if (E.isLeft(a)) return a
      // The pure part is answered at δ′; the answer is for the δ asked (the branch fills the rest).
      return E.right({ epsilon: a.right.epsilon, delta, method: `${a.right.method} at δ′ = (δ − η)/(1 − η) = ${share.toPrecision(6)}; ${why}` })
    },
  }
}
