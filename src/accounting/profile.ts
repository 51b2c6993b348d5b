/**
 * A privacy profile δ(ε) on a grid of ε, the least of several accountants' sound answers at each
 * point (each is an upper bound on the true δ(ε), so their minimum is too). It feeds the f-DP
 * trade-off curve (./tradeoff.ts). Two accountants have a fast path that composes once and reads
 * every ε from the composed state (µs per point instead of ms per query):
 * - PLD at one fixed interval (no per-query refinement): max over the two directions of the
 *   pessimistic δ(ε) of the composed PLD (the same numbers `makePldAccountant({ interval })`
 *   answers), the exact Gaussian where the composition is one (Balle & Wang 2018, Thm 8);
 * - RDP on its grid of orders (no continuous refinement): Canonne, Kamath & Steinke 2020, Prop. 12
 *   at the best grid order, and 0 at or above the pure ε.
 * A state the fast path cannot read (PLD's replace-one group route, an interval whose grid is too
 * large) is asked through the accountant's own δ query; the others are always asked so.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../core/error.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import { analyticGaussianDelta } from './analytic-gaussian.js'
import { pldComposition } from './pld/build.js'
import { groupRouteApplies } from './pld/group-route.js'
import { DEFAULT_INTERVAL, DEFAULT_TAIL_MASS } from './pld/limits.js'
import { makePldAccountant } from './pld/accountant.js'
import { deltaAt } from './pld/queries.js'
import { makeRdpAccountant } from './rdp/accountant.js'
import { rdpToDelta } from './rdp/convert.js'
import { ACCOUNTANTS, type RegisteredAccountant } from './registry.js'

/** A privacy profile on a grid: δ[i] bounds the true δ at ε[i], read from `source[i]`. */
export interface PrivacyProfile {
  readonly epsilon: Float64Array
  readonly delta: Float64Array
  readonly source: ReadonlyArray<RegisteredAccountant>
}

export interface ProfileOptions {
  /** Which accountants to ask (default: pld, rdp and zcdp; the (ε, δ) ones only if all three refuse). */
  readonly accountants?: ReadonlyArray<RegisteredAccountant>
  /** Points of the finite ε grid (default 400), plus ε = ∞. */
  readonly epsilonPoints?: number
  /** PLD discretisation interval (default 1e-4). */
  readonly interval?: number
}

type DeltaReader = (eps: number) => number

/** PLD: compose once, read δ(ε) from the composed upper estimates. */
const pldReader = (event: PrivacyEvent, relation: NeighbouringRelation, interval: number): E.Either<DpError, DeltaReader> => {
  const acc = makePldAccountant({ relation, interval })
  const s = acc.compose(event, 1, '$')(acc.empty)
  if (E.isLeft(s)) return s
  const slow: DeltaReader = (eps) => {
    const d = acc.delta(eps)(s.right)
    return E.isRight(d) ? d.right.delta : 1
  }
  if (groupRouteApplies(s.right)) return E.right(slow)
  const c = pldComposition(s.right, { interval, tailMass: DEFAULT_TAIL_MASS })
  if (E.isLeft(c)) return E.right(slow)
  const comp = c.right
  switch (comp.kind) {
    case 'empty':
      return E.right(() => 0)
    case 'nonPrivate':
      return E.right((eps) => (eps === Infinity ? 0 : 1))
    case 'gaussian': {
      const mu = (comp.gaussianMu as { readonly hi: number }).hi
      return E.right((eps) => (eps === Infinity ? 0 : Math.min(1, analyticGaussianDelta(1 / mu, eps) * (1 + 1e-10))))
    }
    case 'pld':
      return E.right((eps) => {
        let d = 0
        for (const x of comp.directions) d = Math.max(d, deltaAt(x.upper, eps, 'upper'))
        return d
      })
  }
}

/** RDP: compose once, convert at the best grid order. */
const rdpReader = (event: PrivacyEvent, relation: NeighbouringRelation): E.Either<DpError, DeltaReader> => {
  const acc = makeRdpAccountant({ relation })
  const s = acc.compose(event, 1, '$')(acc.empty)
  if (E.isLeft(s)) return s
  const st = s.right
  return E.right((eps) => {
    if (st.pureEpsilon <= eps) return 0
    if (eps === Infinity) return st.curve.every((v) => v === Infinity) ? 1 : 0
    const r = rdpToDelta(st.orders, st.curve, eps)
    return E.isRight(r) ? Math.min(1, r.right.delta) : 1
  })
}

/** Any registered accountant, through its erased δ query. */
const genericReader = (name: RegisteredAccountant, event: PrivacyEvent, relation: NeighbouringRelation, interval?: number): E.Either<DpError, DeltaReader> => {
  const run = ACCOUNTANTS[name]({ relation, ...(interval === undefined ? {} : { interval }) }).run(event, '$')
  if (E.isLeft(run)) return run
  const s = run.right
  return E.right((eps) => {
    const d = s.delta(eps)
    return E.isRight(d) ? d.right.delta : 1
  })
}

const readerFor = (name: RegisteredAccountant, event: PrivacyEvent, relation: NeighbouringRelation, interval?: number): E.Either<DpError, DeltaReader> =>
  name === 'pld' ? pldReader(event, relation, interval ?? DEFAULT_INTERVAL) : name === 'rdp' ? rdpReader(event, relation) : genericReader(name, event, relation, interval)

const FAST: ReadonlyArray<RegisteredAccountant> = ['pld', 'rdp', 'zcdp']
const SLOW: ReadonlyArray<RegisteredAccountant> = ['optimal', 'advanced', 'basic']

/** The smallest ε of the grid where a reader's δ is at most `target` (bisection on [0, 60]). */
const epsilonWhere = (read: DeltaReader, target: number): number => {
  if (read(60) > target) return 60
  let lo = 0
  let hi = 60
  for (let i = 0; i < 40; i++) {
    const m = (lo + hi) / 2
    if (read(m) <= target) hi = m
    else lo = m
  }
  return hi
}

/**
 * δ(ε) on a linear grid from 0 to where the least δ falls to 1e-15 (at most 60), plus ε = ∞ (the
 * mass no ε covers). An accountant that refuses the event is skipped; if every one refuses, the
 * first refusal is returned.
 */
export const privacyProfileOf = (event: PrivacyEvent, relation: NeighbouringRelation, options: ProfileOptions = {}): E.Either<DpError, PrivacyProfile> => {
  const points = options.epsilonPoints ?? 400
  if (!(Number.isInteger(points) && points >= 2 && points <= 100_000))
    return E.left(invalidParameter('epsilonPoints', points, 'the ε grid needs an integer number of points in [2, 100000]'))
  const readers: Array<{ readonly name: RegisteredAccountant; readonly read: DeltaReader }> = []
  let firstError: DpError | undefined
  const tryAll = (names: ReadonlyArray<RegisteredAccountant>): void => {
    for (const name of names) {
      const r = readerFor(name, event, relation, options.interval)
      if (E.isLeft(r)) firstError ??= r.left
      else readers.push({ name, read: r.right })
    }
  }
  tryAll(options.accountants ?? FAST)
  if (readers.length === 0 && options.accountants === undefined) tryAll(SLOW)
  if (readers.length === 0) return E.left(firstError ?? invalidParameter('accountants', options.accountants, 'no accountant was chosen'))
  const least = (eps: number): { readonly delta: number; readonly name: RegisteredAccountant } => {
    let best = 1
    let name = (readers[0] as { readonly name: RegisteredAccountant }).name
    for (const r of readers) {
      const d = r.read(eps)
      if (d < best) {
        best = d
        name = r.name
      }
    }
    return { delta: best, name }
  }
  const top = Math.min(60, Math.max(1e-3, epsilonWhere((e) => least(e).delta, 1e-15) * 1.05))
  const epsilon = new Float64Array(points + 1)
  const delta = new Float64Array(points + 1)
  const source: RegisteredAccountant[] = []
  for (let i = 0; i <= points; i++) {
    const eps = i < points ? (top * i) / (points - 1) : Infinity
    const l = least(eps)
    epsilon[i] = eps
    delta[i] = l.delta
    source.push(l.name)
  }
  return E.right({ epsilon, delta, source })
}
