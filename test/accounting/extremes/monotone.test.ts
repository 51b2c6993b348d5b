/**
 * Monotone at the extremes (issue 30): more noise, a smaller sampling rate, fewer repetitions or a
 * larger δ never make an accountant's ε larger — over σ and Laplace scales down to 1e-300, rates
 * from 1e-12 to 1, counts to 1e9 and δ from 1e-300 to ½. A collapse like the one reported (ε = 0 at
 * σ ≤ 1e-7, a huge ε at σ = 1e-6) breaks this before it breaks anything else.
 *
 * Answers are compared within a relative 1e-9 (the RDP accountant's search over real orders and the
 * (ε, δ) accountants' bisections stop at a relative 1e-12 or so). The PLD accountant chooses its
 * grid per answer, so its guarantees need not be exactly monotone; what must hold is that its two
 * brackets are consistent with a monotone truth: the guarantee of the less private mechanism is at
 * least the optimistic estimate of the more private one.
 */
import { describe, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS, type RegisteredAccountant } from '../../../src/accounting/registry.js'
import * as ev from '../../../src/mechanisms/event.js'
import type { PrivacyEvent } from '../../../src/mechanisms/event.js'
import { addRemove } from '../../../src/mechanisms/neighbouring.js'

const AR = addRemove('record')
const SEED = Number(process.env.EXTREMES_SEED ?? 20_261_131)
const SCALE = Number(process.env.EXTREMES_SCALE ?? 1)

const logUniform = (lo: number, hi: number): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(lo, hi) },
    { weight: 4, arbitrary: fc.double({ min: Math.log10(lo), max: Math.log10(hi), noNaN: true }).map((x) => Math.min(hi, Math.max(lo, 10 ** x))) },
  )
const noise = fc.oneof(fc.constantFrom(1e-300, 1e-12, 1e-8, 1e-7, 1e-6, 1e-3, 1, 1e8), logUniform(1e-300, 1e300))
const rate = fc.oneof(fc.constant(1), logUniform(1e-12, 1))
const count = fc.oneof(fc.constantFrom(1, 5, 1000, 1e9), logUniform(1, 1e9).map(Math.round))
const delta = fc.oneof(fc.constantFrom(1e-300, 1e-10, 1e-5, 0.5), logUniform(1e-300, 0.5))
const sorted = (a: fc.Arbitrary<number>): fc.Arbitrary<readonly [number, number]> =>
  fc.tuple(a, a).map(([x, y]) => (x <= y ? ([x, y] as const) : ([y, x] as const)))

type Leaf = 'Gaussian' | 'Laplace'
const leafOf = (kind: Leaf, scale: number): PrivacyEvent => (kind === 'Gaussian' ? ev.gaussian(scale, 1, AR) : ev.laplace(scale, 1, AR))
const eventOf = (kind: Leaf, scale: number, q: number, k: number): PrivacyEvent => {
  const l = leafOf(kind, scale)
  return ev.selfCompose(q === 1 ? l : ev.poissonSample(q, l), k)
}

/** ε at δ with its optimistic end (the guarantee itself when the accountant gives none), or undefined. */
const bracket = (name: RegisteredAccountant, e: PrivacyEvent, d: number): { readonly upper: number; readonly lower: number } | undefined => {
  const run = ACCOUNTANTS[name]({ relation: AR }).run(e)
  const a = E.isRight(run) ? run.right.epsilon(d) : run
  return E.isLeft(a) ? undefined : { upper: a.right.epsilon, lower: a.right.lower ?? a.right.epsilon }
}

/** Why `more` (the more private, at δ₁ ≥ δ₂ when δs differ) is not at most `less`, or undefined. */
const notMonotone = (name: RegisteredAccountant, more: PrivacyEvent, dMore: number, less: PrivacyEvent, dLess: number): string | undefined => {
  const m = bracket(name, more, dMore)
  const l = bracket(name, less, dLess)
  if (m === undefined || l === undefined) return undefined // a refusal is sound
  const lhs = name === 'pld' ? m.lower : m.upper
  return lhs <= l.upper * (1 + 1e-9) + 1e-300
    ? undefined
    : `${name}: ε = ${m.upper} (optimistic ${m.lower}) for ${JSON.stringify(more)} at δ = ${dMore} exceeds ε = ${l.upper} for ${JSON.stringify(less)} at δ = ${dLess}`
}

const RUNS: Readonly<Record<RegisteredAccountant, number>> = { basic: 50, advanced: 50, optimal: 50, zcdp: 80, rdp: 60, pld: 10 }
const leafKind = fc.constantFrom<Leaf>('Gaussian', 'Laplace')

describe('ε is monotone in the noise, the rate, the count and δ, over extreme parameters', () => {
  for (const name of ACCOUNTANT_NAMES)
    it(`${name}`, () => {
      const fail = (v: string | undefined): void => {
        if (v !== undefined) throw new Error(v)
      }
      const opts = (seed: number) => ({ seed, numRuns: RUNS[name] * SCALE })
      fc.assert(
        fc.property(leafKind, sorted(noise), rate, count, delta, (kind, [s1, s2], q, k, d) =>
          fail(notMonotone(name, eventOf(kind, s2, q, k), d, eventOf(kind, s1, q, k), d)),
        ),
        opts(SEED),
      )
      fc.assert(
        fc.property(leafKind, noise, sorted(rate), count, delta, (kind, s, [q1, q2], k, d) =>
          fail(notMonotone(name, eventOf(kind, s, q1, k), d, eventOf(kind, s, q2, k), d)),
        ),
        opts(SEED + 1),
      )
      fc.assert(
        fc.property(leafKind, noise, rate, sorted(count), delta, (kind, s, q, [k1, k2], d) =>
          fail(notMonotone(name, eventOf(kind, s, q, k1), d, eventOf(kind, s, q, k2), d)),
        ),
        opts(SEED + 2),
      )
      fc.assert(
        fc.property(leafKind, noise, rate, count, sorted(delta), (kind, s, q, k, [d1, d2]) =>
          fail(notMonotone(name, eventOf(kind, s, q, k), d2, eventOf(kind, s, q, k), d1)),
        ),
        opts(SEED + 3),
      )
    })
})
