/**
 * Propose-test-release as events of the algebra (Dwork & Lei 2009; the spectral-LDA paper's Procedure 1
 * and Lemma 8), for any release whose sensitivity is a data-dependent quantity that can itself be
 * released.
 *
 * The mechanism. Each test j releases a statistic s_j(D) of global sensitivity Δ_j with Laplace
 * noise of scale b_j, and turns it into a one-sided confidence bound that fails with probability
 * δ_j: lower bound ŝ_j − b_j·ln(1/(2δ_j)), upper bound ŝ_j + b_j·ln(1/(2δ_j)) (P(Lap(b) > t) =
 * ½e^{−t/b}). Every bound is clipped to the statistic's public range. The release is then any
 * mechanism whose noise is calibrated to the sensitivity the bounds imply (for the Gaussian,
 * σ = z·L̃S with the multiplier z fixed in advance, so its event is Gaussian(z, 1) whatever L̃S is).
 * If a bound makes the sensitivity infinite (a lower bound ≤ 0 under a 1/σ_k law, say), the test
 * fails and nothing but the test results is released.
 *
 * The guarantee (Lemma 8, proof in App. H.6, stated here for every ε): on the event E that every
 * bound holds for D, the release is the fixed-multiplier mechanism with a valid sensitivity, so
 * δ_PTR(ε) ≤ δ_c(ε) + P(Eᶜ) ≤ δ_c(ε) + Σ_j δ_j, where δ_c is the hockey-stick curve of the
 * adaptive composition of the Laplace tests and the release.
 *
 * As events: Compose[Laplace tests…, release event, ApproxDP(0, δ_event)]. Which accountant answers:
 * - basic/optimal/advanced (ε, δ) composition add the ApproxDP's δ to the rest: ≥ Lemma 8's bound;
 * - PLD composes ApproxDP(0, δ) as the dominating pair of (0, δ)-DP, which gives δ + (1 − δ)·δ_c(ε),
 *   below Lemma 8's δ + δ_c(ε) by δ·δ_c(ε). To keep every accountant's answer an upper bound, the
 *   event carries δ_event = 2·Σ_j δ_j: then δ_event + (1 − δ_event)δ_c ≥ Σ_j δ_j + δ_c whenever
 *   δ_c ≤ ½, which holds at every reported δ ≤ ½ (δ_c ≤ the reported δ). The tests run at δ_j.
 * - RDP and zCDP cannot fold an (ε, δ) leaf with δ > 0 (no Rényi bound exists) and say so; the
 *   composite then comes from the accountants that can, by `account`'s tightest-sound rule.
 *
 * Floating point: the Laplace draw is ±b·(−ln U) in double precision (the caveat of
 * ./noise/normal.ts applies; the event is the exact Laplace's).
 *
 * @module
 */
import type { WordStream } from '../core/words.js'
import { approxDP, compose, labeled, laplace, type PrivacyEvent } from './event.js'
import type { NeighbouringRelation } from './neighbouring.js'

/** One test: a statistic of global sensitivity Δ, released with Laplace(Δ/ε) and bounded one-sidedly. */
export interface PtrTest {
  readonly label: string
  /** Global sensitivity of the tested statistic under the relation. */
  readonly sensitivity: number
  /** ε of the Laplace release: scale b = sensitivity/epsilon. */
  readonly epsilon: number
  /** Probability that the bound is wrong (the test's failure probability δ_j). */
  readonly failureDelta: number
  /** 'lower': the bound is below the statistic w.p. ≥ 1 − δ; 'upper': above. */
  readonly direction: 'lower' | 'upper'
  /** Public range the bound is clipped to (a lower bound of a non-negative statistic never goes below 0). */
  readonly range?: readonly [number, number]
}

/** The Laplace scale of a test. */
export const testScale = (t: PtrTest): number => t.sensitivity / t.epsilon

/** The margin t with P(Lap(b) > t) = δ: b·ln(1/(2δ)). */
export const testMargin = (t: PtrTest): number => testScale(t) * Math.log(1 / (2 * t.failureDelta))

/** The δ the event charges for the failures of `tests`: 2·Σδ_j (module comment: sound under PLD's product form for δ ≤ ½). */
export const failureCharge = (tests: ReadonlyArray<PtrTest>): number => 2 * tests.reduce((s, t) => s + t.failureDelta, 0)

/**
 * The PTR event: the Laplace tests, the release (calibrated to the proposed bounds, so its event
 * does not depend on them) and the failure probability, composed.
 */
export const ptrEvent = (label: string, tests: ReadonlyArray<PtrTest>, release: PrivacyEvent, relation: NeighbouringRelation): PrivacyEvent => {
  const step = ptrStep(label, tests, release, relation)
  return labeled(step.label, step.event)
}

/** `ptrEvent` as the label and event of one release (a trainer's schedule declares it so). */
export const ptrStep = (label: string, tests: ReadonlyArray<PtrTest>, release: PrivacyEvent, relation: NeighbouringRelation): { readonly label: string; readonly event: PrivacyEvent } => ({
  label: `propose-test-release: ${label}`,
  event: compose([
    ...tests.map((t) => labeled(`test: ${t.label} (Laplace, ε = ${Number(t.epsilon.toPrecision(6))}, fails w.p. ${t.failureDelta.toExponential(2)})`, laplace(testScale(t), t.sensitivity, relation))),
    labeled(`release: ${label}`, release),
    labeled(`failure: some bound is wrong (2·Σδ_j = ${failureCharge(tests).toExponential(2)}, Lemma 8)`, approxDP(0, failureCharge(tests), relation)),
  ]),
})

/** Laplace(b) as ±b·Exp(1): the sign from one word, the exponential from −ln of a uniform in (0, 1]. */
export const laplaceDraw = (words: WordStream, b: number): number => {
  const sign = (words.nextUint32() & 1) === 0 ? 1 : -1
  return sign * b * -Math.log(1 - words.nextDouble())
}

/** One test as run: the noisy statistic and the bound. */
export interface TestOutcome {
  readonly label: string
  readonly noisy: number
  readonly bound: number
}

/** Runs one test on the true statistic: the Laplace release and its one-sided bound, clipped to the range. */
export const runTest = (t: PtrTest, statistic: number, words: WordStream): TestOutcome => {
  const noisy = statistic + laplaceDraw(words, testScale(t))
  let bound = t.direction === 'lower' ? noisy - testMargin(t) : noisy + testMargin(t)
  if (t.range !== undefined) bound = Math.min(t.range[1], Math.max(t.range[0], bound))
  return { label: t.label, noisy, bound }
}

/**
 * The verdict of a run: either every test passed and `release` ran with the bounds, or a test
 * failed (the sensitivity it implies is not finite) and nothing else was released.
 */
export type PtrOutcome<O> =
  | { readonly passed: true; readonly tests: ReadonlyArray<TestOutcome>; readonly value: O }
  | { readonly passed: false; readonly tests: ReadonlyArray<TestOutcome>; readonly reason: string }

/**
 * A propose-test-release step as a measurement (the shape of ./measurement.ts):
 * `statistics` are the true tested values, in test order; `accept` maps the bounds to the
 * release's input or to a reason for refusing; `release` draws the calibrated noise. Run it
 * through a release gate so the event is recorded as the words are drawn.
 */
export const ptrMeasurement = <I, O, C>(args: {
  readonly label: string
  readonly tests: ReadonlyArray<PtrTest>
  readonly relation: NeighbouringRelation
  /** The release's event for any accepted bounds (a fixed noise multiplier). */
  readonly releaseEvent: PrivacyEvent
  readonly statistics: (input: I) => ReadonlyArray<number>
  readonly accept: (bounds: ReadonlyArray<number>) => { readonly ok: true; readonly calibration: C } | { readonly ok: false; readonly reason: string }
  readonly release: (input: I, calibration: C, words: WordStream) => O
}): { readonly label: string; readonly event: PrivacyEvent; readonly run: (input: I, words: WordStream) => PtrOutcome<O> } => ({
  label: args.label,
  event: ptrEvent(args.label, args.tests, args.releaseEvent, args.relation),
  run: (input, words) => {
    const stats = args.statistics(input)
    const outcomes = args.tests.map((t, j) => runTest(t, stats[j] as number, words))
    const verdict = args.accept(outcomes.map((o) => o.bound))
    if (!verdict.ok) return { passed: false, tests: outcomes, reason: verdict.reason }
    return { passed: true, tests: outcomes, value: args.release(input, verdict.calibration, words) }
  },
})
