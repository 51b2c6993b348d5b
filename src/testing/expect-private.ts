/**
 * Property-test helpers for mechanisms: `expectPrivate` makes "this mechanism is not obviously
 * non-private at the claimed ε" one line of a test suite, and fast-check arbitraries generate
 * claims and neighbouring pairs.
 *
 * `expectPrivate` runs a small seeded audit in the calling thread and throws a
 * `PrivacyViolationError` (which vitest, jest and node:test print as a failure) when the audit
 * certifies ε_LB > ε, when the mechanism fails (throws, returns NaN, changes shape), or when the
 * input cannot be audited. With a fixed seed the outcome is deterministic; the chance that a
 * mechanism which truly satisfies the claim fails, over the choice of seed, is at most
 * 1 − confidence (default 1 %).
 *
 * @module
 */
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { type AuditResult, auditMechanism } from '../attacks/audit.js'
import type { AuditClaim } from '../attacks/claim.js'
import type { BlackBox } from '../attacks/output.js'
import type { NeighbourPair, PairsSource } from '../attacks/pairs.js'
import type { AttackFamily } from '../attacks/score.js'
import { formatError } from '../core/error.js'

export interface ExpectPrivateOptions<I> {
  /** Neighbouring inputs to audit (one pair, several, or a generator). */
  readonly pairs: PairsSource<I>
  /** Mechanism runs (default 20 000: well under a second for a cheap mechanism). */
  readonly trials?: number
  /** Default "expect-private". */
  readonly seed?: string | number
  /** Default 0.99. */
  readonly confidence?: number
  /** Also fail when the trials are too few to test the claim at all (default false). */
  readonly requirePower?: boolean
  readonly name?: string
  readonly families?: ReadonlyArray<AttackFamily>
}

/** Thrown by `expectPrivate`; carries the audit result when there is one. */
export class PrivacyViolationError extends Error {
  readonly result: AuditResult | null
  constructor(message: string, result: AuditResult | null) {
    super(message)
    this.name = 'PrivacyViolationError'
    this.result = result
  }
}

/**
 * Audits `mechanism` against `claim` and throws unless the audit is consistent with it. Returns the
 * audit result for further assertions.
 *
 * @example
 * ```ts
 * // the noise is snapped to a grid: textbook floating-point Laplace leaks through its low bits (Mironov 2012)
 * it('noisy count is 1-DP', () => {
 *   expectPrivate((x: number, rng) => x + snapped(laplaceNoise(rng, 1)), { epsilon: 1, delta: 0 }, { pairs: { input: 0, neighbour: 1 } })
 * })
 * ```
 */
export const expectPrivate = <I>(mechanism: BlackBox<I>, claim: AuditClaim, options: ExpectPrivateOptions<I>): AuditResult => {
  const seed = options.seed ?? 'expect-private'
  const r = auditMechanism<I>({
    mechanism,
    pairs: options.pairs,
    claim,
    trials: options.trials ?? 20_000,
    seed,
    confidence: options.confidence ?? 0.99,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.families === undefined ? {} : { families: options.families }),
  })
  if (E.isLeft(r)) throw new PrivacyViolationError(`expectPrivate: cannot audit: ${formatError(r.left)}`, null)
  const a = r.right
  const conf = `${+(a.confidence * 100).toPrecision(6)}%`
  const where = `seed ${JSON.stringify(a.seed)}, ${a.trials.spent.toLocaleString('en-US')} trials`
  if (a.verdict === 'violation')
    throw new PrivacyViolationError(
      `expectPrivate: ${a.mechanism} is not (${claim.epsilon}, ${claim.delta})-DP: with ${conf} confidence ε ≥ ${a.epsilonLowerBound.toFixed(4)} > ${claim.epsilon}\n` +
        `  attack: ${a.attack?.description ?? '?'} on pair ${a.attack?.pair ?? '?'} (${a.attack?.pairLabel ?? ''})\n` +
        `  FPR ${a.rates.fpr.toPrecision(4)} (≤ ${a.rates.fprUpper.toPrecision(4)}), FNR ${a.rates.fnr.toPrecision(4)} (≤ ${a.rates.fnrUpper.toPrecision(4)}); ${where}`,
      a,
    )
  if (a.status !== 'complete' && a.status !== 'too-few-trials')
    throw new PrivacyViolationError(`expectPrivate: the audit of ${a.mechanism} did not finish (${a.status}): ${a.issues.map((i) => i.message).join('; ')} (${where})`, a)
  if (options.requirePower === true && a.verdict === 'inconclusive')
    throw new PrivacyViolationError(
      `expectPrivate: ${a.trials.requested.toLocaleString('en-US')} trials cannot test ε = ${claim.epsilon} (they certify at most ${a.ceiling.toFixed(3)}); use at least ${a.trialsNeeded.forCeiling.toLocaleString('en-US')}`,
      a,
    )
  return a
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Claims with ε in [minEpsilon, maxEpsilon] and δ either 0 or in [1e-10, maxDelta]. */
export const arbClaim = (options: { readonly minEpsilon?: number; readonly maxEpsilon?: number; readonly maxDelta?: number } = {}): fc.Arbitrary<AuditClaim> =>
  fc.record({
    epsilon: fc.double({ min: options.minEpsilon ?? 0.01, max: options.maxEpsilon ?? 10, noNaN: true, noDefaultInfinity: true }),
    delta: fc.oneof(fc.constant(0), fc.double({ min: 1e-10, max: options.maxDelta ?? 1e-3, noNaN: true, noDefaultInfinity: true })),
  })

/** Scalar pairs (x, x ± Δ) with x an integer in [−100, 100] and Δ the sensitivity (default 1). */
export const arbScalarPair = (sensitivity = 1): fc.Arbitrary<NeighbourPair<number>> =>
  fc.tuple(fc.integer({ min: -100, max: 100 }), fc.boolean()).map(([x, up]) => ({ input: x, neighbour: x + (up ? sensitivity : -sensitivity) }))

/**
 * Vector pairs in which every entry moves by −Δ, 0 or +Δ and at least one moves: neighbours for
 * queries of ℓ∞-sensitivity Δ (the StatDP setting).
 */
export const arbVectorPair = (
  options: { readonly minLength?: number; readonly maxLength?: number; readonly change?: number } = {},
): fc.Arbitrary<NeighbourPair<ReadonlyArray<number>>> => {
  const change = options.change ?? 1
  return fc
    .array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.constantFrom(-1, 0, 1)), { minLength: options.minLength ?? 1, maxLength: options.maxLength ?? 8 })
    .filter((xs) => xs.some(([, s]) => s !== 0))
    .map((xs) => ({ input: xs.map(([b]) => b), neighbour: xs.map(([b, s]) => b + change * s) }))
}

/** Histogram pairs: add/remove-one changes one count by 1; replace-one moves one record between bins. */
export const arbHistogramPair = (
  relation: 'add-remove' | 'replace-one',
  options: { readonly minBins?: number; readonly maxBins?: number } = {},
): fc.Arbitrary<NeighbourPair<ReadonlyArray<number>>> =>
  fc
    .array(fc.integer({ min: 1, max: 50 }), { minLength: Math.max(relation === 'replace-one' ? 2 : 1, options.minBins ?? 1), maxLength: options.maxBins ?? 8 })
    .chain((counts) =>
      fc.tuple(fc.constant(counts), fc.nat({ max: counts.length - 1 }), fc.nat({ max: counts.length - 1 }), fc.boolean()),
    )
    .filter(([counts, i, j]) => relation === 'add-remove' || (i !== j && counts.length >= 2))
    .map(([counts, i, j, up]) => ({
      input: counts,
      neighbour:
        relation === 'add-remove'
          ? counts.map((c, k) => (k === i ? c + (up ? 1 : -1) : c))
          : counts.map((c, k) => (k === i ? c - 1 : k === j ? c + 1 : c)),
    }))
