/** Shared helpers for the PLD tests. */
import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import normalCdf from '@stdlib/stats-base-dists-normal-cdf'
import { formatError } from '../../../src/core/error.js'
import { makePldAccountant, type PldAccountantOptions } from '../../../src/accounting/pld/index.js'
import type { DeltaAnswer, EpsilonAnswer } from '../../../src/accounting/accountant.js'
import type { PrivacyEvent } from '../../../src/mechanisms/event.js'
import { addRemove } from '../../../src/mechanisms/neighbouring.js'
import { arbNoiseLeaf } from '../../../src/testing/arbitraries.js'

export const REL = addRemove('record')
export const SEED = 20_261_121

export const readFixture = <A>(name: string): A =>
  JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8')) as A

type Opts = Omit<PldAccountantOptions, 'relation'> & { readonly relation?: PldAccountantOptions['relation'] }

/** ε(δ) answer of a fresh PLD accountant, or throws with the formatted error. */
export const pldEpsilon = (e: PrivacyEvent, delta: number, opts: Opts = {}): EpsilonAnswer => {
  const acc = makePldAccountant({ relation: REL, ...opts })
  const s = acc.compose(e)(acc.empty)
  if (E.isLeft(s)) throw new Error(formatError(s.left))
  const a = acc.epsilon(delta)(s.right)
  if (E.isLeft(a)) throw new Error(formatError(a.left))
  return a.right
}

export const pldDelta = (e: PrivacyEvent, eps: number, opts: Opts = {}): DeltaAnswer => {
  const acc = makePldAccountant({ relation: REL, ...opts })
  const s = acc.compose(e)(acc.empty)
  if (E.isLeft(s)) throw new Error(formatError(s.left))
  const a = acc.delta(eps)(s.right)
  if (E.isLeft(a)) throw new Error(formatError(a.left))
  return a.right
}

/** The error a fresh PLD accountant reports for an event (compose or query), formatted. */
export const pldError = (e: PrivacyEvent, opts: Opts = {}): string | undefined => {
  const acc = makePldAccountant({ relation: REL, ...opts })
  const s = acc.compose(e)(acc.empty)
  if (E.isLeft(s)) return formatError(s.left)
  const a = acc.epsilon(1e-5)(s.right)
  return E.isLeft(a) ? formatError(a.left) : undefined
}

const Phi = (x: number): number => normalCdf(x, 0, 1)
const PhiC = (x: number): number => normalCdf(-x, 0, 1)

/**
 * Exact δ(ε) of one Poisson-subsampled Gaussian step (noise multiplier m, rate q), worse of the
 * remove pair (qN(1/m) + (1−q)N(0), N(0)) and the add pair (N(0), qN(1/m) + (1−q)N(0)), from the
 * threshold form δ = P(L > ε) − e^ε Q(L > ε); written out here independently of src/.
 */
export const subsampledGaussianDeltaOneStep = (m: number, q: number, eps: number): number => {
  const mu = 1 / m
  const lam = (e: number): number => {
    const v = Math.expm1(e) + q
    return v > 0 ? Math.log(v / q) : -Infinity
  }
  // remove: {L > ε} = {X > x}, x = λ(ε)/μ + μ/2
  const xr = lam(eps) / mu + mu / 2
  const rem = q * PhiC(xr - mu) + (1 - q) * PhiC(xr) - Math.exp(eps) * PhiC(xr)
  // add: {L > ε} = {X < x}, x = λ(−ε)/μ + μ/2
  const la = lam(-eps)
  const xa = la === -Infinity ? -Infinity : la / mu + mu / 2
  const add = xa === -Infinity ? 0 : Phi(xa) - Math.exp(eps) * (q * Phi(xa - mu) + (1 - q) * Phi(xa))
  return Math.max(rem, add)
}

/**
 * Noise leaves with moderate parameters (the laws hold at any, but strong random mechanisms make wide
 * loss grids and slow tests).
 */
export const moderateLeaf = arbNoiseLeaf({ relation: REL }).filter((l) => {
  switch (l._tag) {
    case 'Gaussian':
      return l.sigma / l.sensitivity >= 0.5
    case 'Laplace':
      return l.scale / l.sensitivity >= 0.5
    case 'BitwiseRandomizedResponse':
      return l.flipProbability >= 0.1 && l.bits <= 4
    case 'RandomizedResponse':
    case 'Exponential':
    case 'PureDP':
    case 'ApproxDP':
      return l.epsilon <= 3
    default:
      return true
  }
})
