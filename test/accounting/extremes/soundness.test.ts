/**
 * Sound at the extremes (issue 30): no accountant answers below an independently computed lower
 * bound on the true ε(δ) (./lower-bound.ts), for every event type, with σ and Laplace scales down to
 * 1e-300, sampling rates from 1e-12 to 1, counts to 1e9, ε near 0 and near 700, δ from 1e-300 to ½ —
 * and the sibling paths of the reported collapse (./reported.test.ts) that the property tests found:
 * digits lost to cancellation (the analytic Gaussian at σ/Δ ≥ 10⁸, amplification by sampling at
 * small rates), masses and losses that underflow to 0 (randomized response's unlikely outcome at
 * ε ≥ 745 under PLD sampling, ε²/2, δ at ε = 700, sums of ε²), a loop that never ends (the PLD grid
 * index of a loss beyond 2⁵² intervals), and the PLD's spectral read-back, which lost δ ≈ 1e-12 to
 * 1 − e^{−x} at small x.
 *
 * Seeds are fixed; EXTREMES_SEED and EXTREMES_SCALE (a multiplier of the runs) explore further.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { analyticGaussianEpsilon, analyticGaussianLogDelta } from '../../../src/accounting/analytic-gaussian.js'
import { amplifiedEpsilon } from '../../../src/accounting/dp/amplification.js'
import { gdpMu } from '../../../src/accounting/tradeoff.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS, type RegisteredAccountant } from '../../../src/accounting/registry.js'
import * as ev from '../../../src/mechanisms/event.js'
import type { PrivacyEvent } from '../../../src/mechanisms/event.js'
import { addRemove, replaceOne } from '../../../src/mechanisms/neighbouring.js'
import { deltaViolation, epsilonViolation } from './lower-bound.js'

const AR = addRemove('record')
const RO = replaceOne('record')
const SEED = 20_261_130

describe('sibling paths of the same kind', () => {
  it('the analytic Gaussian keeps its digits when the signal 1/m is small (mpmath, 80 digits)', () => {
    // log δ(ε) at m = 10⁸ and 10¹²: Φ(a) − e^εΦ(b) once lost a relative 1e-16·m to cancellation.
    for (const [m, eps, want] of [
      [1e8, 0, -19.339619277157038],
      [1e8, 1e-17, -19.339619278410352],
      [1e8, 2e-7, -225.33851915337746],
      [1e4, 0.05, -125022.53350710311],
      [1e12, 0, -28.549959649133221],
    ] as const)
      expect(Math.abs(analyticGaussianLogDelta(m, eps) - want) / Math.abs(want), `m = ${m}, ε = ${eps}`).toBeLessThan(1e-12)
    // ε(δ) never below the exact value (which the older kernel undercut by 2e-8 relative at m = 10⁸).
    for (const [m, d, want] of [
      [1e8, 1e-100, 2.024331896002393353117363e-7],
      [1000, 1e-300, 0.03676291669948786100039776],
    ] as const) {
      const got = analyticGaussianEpsilon(m, d)
      expect(got).toBeGreaterThanOrEqual(want)
      expect(got / want - 1).toBeLessThan(1e-11)
    }
  })

  it('the PLD of a discrete Gaussian or Laplace with σ ≤ 1e-9 answers (∞) instead of looping forever', () => {
    for (const sigma of [2.6e-9, 1e-100]) {
      for (const e of [ev.discreteGaussian(sigma, 1, RO), ev.discreteLaplace(sigma, 1, RO)]) {
        const run = ACCOUNTANTS.pld({ relation: RO }).run(ev.selfCompose(e, 2))
        const a = E.isRight(run) ? run.right.epsilon(1e-5) : run
        expect(E.isRight(a) && a.right.epsilon).toBe(Infinity)
      }
    }
  })

  it('PLD: randomized response with ε ≥ 745 keeps the Q-mass of its unlikely outcome under Poisson sampling', () => {
    // e^{−1000} = 0: the outcome with P-mass e^{−ε}/Z and Q-mass ≈ 1 once vanished from both laws, and
    // the sampled pair answered ε = 0 at δ = 0.1 for q = 0.5 (truth ≈ 999: the record is revealed
    // whenever it is sampled).
    for (const leaf of [ev.randomizedResponse(1000, 3, AR), ev.pureDP(1000, AR), ev.approxDP(1000, 1e-9, AR), ev.bitwiseRandomizedResponse(1e-300, 3, AR)])
      for (const q of [0.5, 1e-3]) {
        const e = ev.selfCompose(ev.poissonSample(q, leaf), 5)
        const run = ACCOUNTANTS.pld({ relation: AR }).run(e)
        for (const d of [0.1, 1e-5]) {
          const a = E.isRight(run) ? run.right.epsilon(d) : run
          expect(E.isRight(a) && epsilonViolation(e, d, a.right.epsilon), `${JSON.stringify(e)} at δ = ${d}`).toBeUndefined()
        }
      }
  })

  it('PLD: the spectral read-back keeps δ of a composition at q = 1e-12 (exact values, mpmath)', () => {
    // Bitwise RR (one bit, f = 0.0434…) sampled at q = 1e-12, composed k times: δ(0) exactly, from the
    // 2^k outcomes. 1 − r^{N−i} cancelled in the spectral suffix sums, an absolute ~1e-12 error in B:
    // the PLD answered δ(0) = 6.8e-14 for k = 2, below even the single step's 9.1e-13.
    const f = 0.04341996904929371
    for (const [k, exact] of [
      [2, 1.747021361e-12],
      [3, 2.506748621e-12],
    ] as const)
      for (const interval of [undefined, 1e-5, 1e-8]) {
        const e = ev.selfCompose(ev.poissonSample(1e-12, ev.bitwiseRandomizedResponse(f, 1, AR)), k)
        const acc = interval === undefined ? ACCOUNTANTS.pld({ relation: AR }) : ACCOUNTANTS.pld({ relation: AR, interval })
        const run = acc.run(e)
        const a = E.isRight(run) ? run.right.delta(0) : run
        expect(E.isRight(a) && a.right.delta, `k = ${k}, interval ${interval}`).toBeGreaterThanOrEqual(exact * (1 - 1e-9))
      }
  })

  it('losses that underflow are reported as the least positive double, never 0: ε near 0 and δ near 0', () => {
    // PureDP(1e-200): ε²/2 = 0 in doubles; zCDP and RDP once answered ε = 0 at δ = 1e-300 (truth ≈ 1e-200).
    for (const name of ['zcdp', 'rdp', 'basic', 'advanced', 'optimal'] as const) {
      const run = ACCOUNTANTS[name]({ relation: AR }).run(ev.selfCompose(ev.pureDP(1e-200, AR), 1e9))
      const a = E.isRight(run) ? run.right.epsilon(1e-300) : run
      expect(E.isRight(a) && a.right.epsilon, name).toBeGreaterThan(0)
    }
    // A Gaussian's δ at ε = 700 underflows (truth e^{-244664}): reported as the least positive double.
    for (const name of ['rdp', 'pld', 'zcdp'] as const) {
      const run = ACCOUNTANTS[name]({ relation: AR }).run(ev.gaussian(1, 1, AR))
      const a = E.isRight(run) ? run.right.delta(700) : run
      expect(E.isRight(a) && a.right.delta, name).toBeGreaterThan(0)
    }
  })

  it('noise far above the sensitivity is still a release: a Gaussian has no finite ε at δ = 0, a Laplace a positive one', () => {
    // σ/Δ past ~1e154 (μ² underflows) or past the doubles (σ/Δ = ∞): the PLD once dropped the Gaussian as "nothing
    // released" and every accountant read σ = 1e300, Δ = 1e-10 as a silent leaf, answering ε = 0 at δ = 0.
    const gaussians = [ev.gaussian(1e160, 1, AR), ev.gaussian(1e300, 1, AR), ev.gaussian(1e300, 1e-10, AR), ev.gaussian(1.7e308, 1e-300, AR)]
    for (const e of [...gaussians, ...gaussians.map((g) => ev.selfCompose(g, 1000)), ev.compose([ev.gaussian(1e300, 1, AR), ev.gaussian(1e200, 1, AR)])])
      for (const name of ACCOUNTANT_NAMES) {
        const run = ACCOUNTANTS[name]({ relation: AR }).run(e)
        if (E.isLeft(run)) continue // an accountant that does not take the event says so; it does not answer 0
        const a = run.right.epsilon(0)
        expect(E.isLeft(a) || a.right.epsilon, `${name} on ${JSON.stringify(e)}`).toBe(Infinity)
        // and at δ > 0 never below the exact analytic Gaussian (0 here: δ(0) ≈ 0.4·Δ/σ < 1e-100)
        const b = run.right.epsilon(1e-100)
        expect(E.isRight(b) && b.right.epsilon >= 0, name).toBe(true)
      }
    // μ-GDP of such a Gaussian: positive, not 0 (a μ of 0 is the trade-off curve of no release)
    for (const g of gaussians) {
      const mu = gdpMu(g)
      expect(E.isRight(mu) && mu.right.mu, JSON.stringify(g)).toBeGreaterThan(0)
      expect(E.isRight(mu) && mu.right.mu, JSON.stringify(g)).toBeGreaterThanOrEqual(g.sensitivity / g.sigma) // μ = Δ/σ (1e-160 at σ = 1e160)
    }
    // Laplace with b/Δ past the doubles: ε = Δ/b is 1e-310, a subnormal double; no accountant answers 0
    for (const name of ACCOUNTANT_NAMES) {
      const run = ACCOUNTANTS[name]({ relation: AR }).run(ev.laplace(1e300, 1e-10, AR))
      if (E.isLeft(run)) continue
      const a = run.right.epsilon(0)
      if (E.isRight(a)) expect(a.right.epsilon, name).toBeGreaterThanOrEqual(1e-310)
    }
  })

  it('ρ and D_α of a Gaussian past σ/Δ ≈ 1e154 are not read as the least positive double (2σ² overflowed), nor a sampled pure loss as 0', () => {
    // zCDP and RDP computed 1/(2m²) and α/(2m²): 2m² = ∞ past m ≈ 1.3e154, floored at 4.9e-324 where the truth is
    // ~5e-309: ε at δ = 1e-300 came out 7.9e-161 against a true ≥ 2.6e-153, δ at ε = 0 7 orders low; the subsampled
    // Gaussian's RDP lost the same way. The PLD's pure bound of a Laplace sampled at q = 1e-300 read 0 at δ = 0.
    const cases: Array<[PrivacyEvent, ReadonlyArray<'zcdp' | 'rdp' | 'pld'>]> = [
      [ev.gaussian(1e154, 1, AR), ['zcdp', 'rdp']],
      [ev.gaussian(1e160, 1, AR), ['zcdp', 'rdp']],
      [ev.selfCompose(ev.gaussian(1e160, 1, AR), 1000), ['zcdp', 'rdp']],
      [ev.poissonSample(0.5, ev.gaussian(1e154, 1, AR)), ['zcdp', 'rdp']],
      [ev.poissonSample(0.5, ev.gaussian(1e160, 1, AR)), ['zcdp', 'rdp']],
    ]
    for (const [e, names] of cases)
      for (const name of names) {
        const run = ACCOUNTANTS[name]({ relation: AR }).run(e)
        if (E.isLeft(run)) throw new Error(run.left.message)
        const a = run.right.epsilon(1e-300)
        expect(E.isRight(a) && epsilonViolation(e, 1e-300, a.right.epsilon), `${name} ε at δ = 1e-300 of ${JSON.stringify(e)}`).toBeUndefined()
        for (const x of [0, 1e-300]) {
          const d = run.right.delta(x)
          expect(E.isRight(d) && deltaViolation(e, x, d.right.delta), `${name} δ at ε = ${x} of ${JSON.stringify(e)}`).toBeUndefined()
        }
      }
    // sampled without replacement (replace-one): Theorem 27's terms underflowed the same way (δ(0) read 2.2e-162, truth ≈ 2e-155)
    for (const sigma of [1e154, 1e160]) {
      const e = ev.sampleWithoutReplacement(1, 2, ev.gaussian(sigma, 1, RO))
      const run = ACCOUNTANTS.rdp({ relation: RO }).run(e)
      const d = E.isRight(run) ? run.right.delta(0) : run
      expect(E.isRight(d) && deltaViolation(e, 0, d.right.delta), `rdp δ at ε = 0 of ${JSON.stringify(e)}`).toBeUndefined()
    }
    for (const leaf of [ev.laplace(1e100, 1, AR), ev.discreteLaplace(1e100, 1, AR), ev.laplace(1e300, 1e-10, AR)]) {
      const run = ACCOUNTANTS.pld({ relation: AR }).run(ev.poissonSample(1e-300, leaf))
      const a = E.isRight(run) ? run.right.epsilon(0) : run
      expect(E.isRight(a) && a.right.epsilon, JSON.stringify(leaf)).toBeGreaterThan(0)
    }
  })

  it('PLD: a loss near 745 keeps its grid point (a subnormal Q-mass rounded up moved it one interval down); a sampled δ never underflows to 0', () => {
    // e^{−744} = 1.55 × the least positive double, rounded to 2×: e^{ε}·q then outweighed p and pure 744-DP read
    // 743.976 at δ = 1e-5 (one grid interval low); the discrete Laplace of scale 1/745 the same.
    for (const e of [ev.pureDP(744, AR), ev.randomizedResponse(745, 3, AR), ev.approxDP(745, 1e-300, AR), ev.discreteLaplace(1 / 744, 1, AR), ev.discreteLaplace(1 / 745, 1, AR)]) {
      const run = ACCOUNTANTS.pld({ relation: AR }).run(e)
      if (E.isLeft(run)) throw new Error(run.left.message)
      for (const d of [1e-300, 1e-5, 0.5]) {
        const a = run.right.epsilon(d)
        expect(E.isRight(a) && epsilonViolation(e, d, a.right.epsilon), `${JSON.stringify(e)} at δ = ${d}`).toBeUndefined()
      }
    }
    // (ε, 1e-300)-DP sampled at 1e-300: qδ = 1e-600 underflowed to 0 and the step read as pure ε-DP, ε finite at δ = 0
    for (const name of ['basic', 'advanced', 'optimal'] as const) {
      const run = ACCOUNTANTS[name]({ relation: AR }).run(ev.poissonSample(1e-300, ev.approxDP(30, 1e-300, AR)))
      const a = E.isRight(run) ? run.right.epsilon(0) : run
      expect(E.isRight(a) && a.right.epsilon, name).toBe(Infinity)
    }
  })

  it('δ at ε = ∞ is the probability of an infinite loss in every accountant that answers it (it was 0 from some)', () => {
    // (∞, δ)-DP still asks P(S) ≤ δ where the neighbour's probability is 0 (e^∞·0 = 0): a NonPrivate release needs
    // δ = 1 and an (ε, δ) step may put its δ there. The (ε, δ) accountants answered 0 ("ε = ∞ holds for any
    // release") and the PLD and zCDP 0 for NonPrivate, where the PLD gave q for the same release sampled at q.
    for (const name of ACCOUNTANT_NAMES) {
      const at = (e: PrivacyEvent): number | undefined => {
        const run = ACCOUNTANTS[name]({ relation: AR }).run(e)
        const d = E.isRight(run) ? run.right.delta(Infinity) : run
        return E.isRight(d) ? d.right.delta : undefined // RDP refuses ε = ∞ (its conversions need a finite ε)
      }
      const np = at(ev.nonPrivate)
      if (np === undefined) continue
      expect(np, name).toBe(1)
      expect(at(ev.approxDP(1, 1e-6, AR)), name).toBeGreaterThanOrEqual(1e-6)
      expect(at(ev.approxDP(1, 1e-6, AR)), name).toBeLessThan(1.01e-6)
      expect(at(ev.laplace(1, 1, AR)), name).toBe(0)
    }
  })

  it('amplification by sampling keeps its digits at small rates and large ε (was 1e-11 relative low)', () => {
    // log(1 + q(e^ε − 1)) at q = 1e-6, ε = 3.73: the older ε + log(q + (1 − q)e^{−ε}) cancelled.
    const q = 1e-6
    const eps = 3.7276
    const exact = Math.log1p(q * Math.expm1(eps)) // both factors and log1p exact to an ulp here
    expect(amplifiedEpsilon(q, eps)).toBeGreaterThanOrEqual(exact)
    expect(Math.abs(amplifiedEpsilon(q, eps) / exact - 1)).toBeLessThan(1e-15)
    // Never 0 for a positive rate and ε; never above ε; e^ε beyond the doubles is handled in log space.
    expect(amplifiedEpsilon(1e-300, 1e-300)).toBeGreaterThan(0)
    expect(amplifiedEpsilon(1e-300, 720)).toBeCloseTo(720 - 300 * Math.LN10 + Math.log1p(Math.exp(-(720 - 300 * Math.LN10))), 9)
    expect(amplifiedEpsilon(0.5, 1e300)).toBe(1e300 + Math.log(0.5))
  })
})

// -------------------------------------------------------------------------------------------
// property tests over extreme parameters
// -------------------------------------------------------------------------------------------

/** Log-uniform on [lo, hi], with the ends themselves likely. */
const logUniform = (lo: number, hi: number): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(lo, hi) },
    { weight: 4, arbitrary: fc.double({ min: Math.log10(lo), max: Math.log10(hi), noNaN: true }).map((x) => Math.min(hi, Math.max(lo, 10 ** x))) },
  )

const noise = fc.oneof(fc.constantFrom(1e-300, 1e-100, 1e-12, 1e-8, 1e-7, 1e-6, 1, 1e8), logUniform(1e-300, 1e300))
const leafEpsilon = fc.oneof(fc.constantFrom(1e-300, 1e-200, 1e-12, 1, 700, 746, 1000, 1e300), logUniform(1e-300, 700), logUniform(700, 1e300))
const rate = fc.oneof(fc.constant(1), logUniform(1e-12, 1))
const count = fc.oneof(fc.constantFrom(1, 2, 5, 1000, 1e9), logUniform(1, 1e9).map(Math.round))
const deltaQuery = fc.oneof(fc.constantFrom(1e-300, 1e-100, 1e-10, 1e-5, 0.1, 0.5), logUniform(1e-300, 0.5))
const epsilonQuery = fc.oneof(fc.constantFrom(0, 1e-300, 1e-12, 1, 700), logUniform(1e-12, 700))

/** Every leaf type, stated under `rel`, with parameters from the extremes. */
const leafUnder = (rel: typeof AR | typeof RO): fc.Arbitrary<PrivacyEvent> =>
  fc.oneof(
    { weight: 4, arbitrary: noise.map((s) => ev.gaussian(s, 1, rel)) },
    { weight: 3, arbitrary: noise.map((b) => ev.laplace(b, 1, rel)) },
    fc.tuple(leafEpsilon, fc.integer({ min: 2, max: 1000 })).map(([e, k]) => ev.randomizedResponse(e, k, rel)),
    leafEpsilon.map((e) => ev.pureDP(e, rel)),
    fc.tuple(leafEpsilon, fc.oneof(fc.constant(0), logUniform(1e-300, 0.5))).map(([e, d]) => ev.approxDP(e, d, rel)),
    logUniform(1e-300, 1e300).map((r) => ev.zcdp(r, rel)),
    leafEpsilon.map((e) => ev.exponential(e, 1, rel)),
    noise.map((t) => ev.discreteLaplace(t, 1, rel)),
    logUniform(1e-300, 10).map((s) => ev.discreteGaussian(s, 1, rel)),
    fc.tuple(logUniform(1e-300, 0.4999), fc.constantFrom(1, 3)).map(([f, b]) => ev.bitwiseRandomizedResponse(f, b, rel)),
  )

/** Add/remove: a leaf, Poisson-subsampled or not, repeated. */
const poissonEvent: fc.Arbitrary<PrivacyEvent> = fc
  .tuple(leafUnder(AR), rate, count)
  .map(([l, q, k]) => ev.selfCompose(q === 1 ? l : ev.poissonSample(q, l), k))

/** Replace-one: a leaf sampled m of n without replacement (m/n down to 1e-12), repeated. */
const worEvent: fc.Arbitrary<PrivacyEvent> = fc
  .tuple(leafUnder(RO), logUniform(1, 1e12).map(Math.round), fc.integer({ min: 1, max: 3 }), count)
  .map(([l, n, m, k]) => ev.selfCompose(ev.sampleWithoutReplacement(Math.min(m, n), n, l), k))

/** Add/remove: a composition of two or three such steps (heterogeneous, mixed with Gaussians). */
const mixedEvent: fc.Arbitrary<PrivacyEvent> = fc.array(poissonEvent, { minLength: 2, maxLength: 3 }).map((es) => ev.compose(es))

/** The first answer below the lower bound on `event`, or undefined. */
const violation = (
  name: RegisteredAccountant,
  relation: typeof AR | typeof RO,
  event: PrivacyEvent,
  deltas: ReadonlyArray<number>,
  epsilons: ReadonlyArray<number>,
): string | undefined => {
  const run = ACCOUNTANTS[name]({ relation }).run(event)
  if (E.isLeft(run)) return undefined // a refusal is always sound
  for (const d of deltas) {
    const a = run.right.epsilon(d)
    if (E.isLeft(a)) continue
    const v = epsilonViolation(event, d, a.right.epsilon)
    if (v !== undefined) return `${name}: ${v} (${a.right.method}) on ${JSON.stringify(event)}`
  }
  for (const x of epsilons) {
    const a = run.right.delta(x)
    if (E.isLeft(a)) continue
    const v = deltaViolation(event, x, a.right.delta)
    if (v !== undefined) return `${name}: ${v} (${a.right.method}) on ${JSON.stringify(event)}`
  }
  return undefined
}

// The PLD accountant costs up to a second or two per extreme event: fewer runs.
const SCALE = Number(process.env.EXTREMES_SCALE ?? 1)
const RUNS: Readonly<Record<RegisteredAccountant, number>> = { basic: 120 * SCALE, advanced: 120 * SCALE, optimal: 120 * SCALE, zcdp: 240 * SCALE, rdp: 160 * SCALE, pld: 24 * SCALE }

describe('every accountant is at or above the lower bound over extreme parameters', () => {
  for (const name of ACCOUNTANT_NAMES)
    it(`${name}: ε(δ) and δ(ε), Poisson-subsampled or not (add/remove), without replacement (replace-one), and mixed compositions`, () => {
      fc.assert(
        fc.property(poissonEvent, deltaQuery, epsilonQuery, (e, d, x) => {
          const v = violation(name, AR, e, [d], [x])
          if (v !== undefined) throw new Error(v)
        }),
        { seed: Number(process.env.EXTREMES_SEED ?? SEED), numRuns: RUNS[name] },
      )
      fc.assert(
        fc.property(worEvent, deltaQuery, epsilonQuery, (e, d, x) => {
          const v = violation(name, RO, e, [d], [x])
          if (v !== undefined) throw new Error(v)
        }),
        { seed: Number(process.env.EXTREMES_SEED ?? SEED) + 1, numRuns: Math.ceil(RUNS[name] / 3) },
      )
      fc.assert(
        fc.property(mixedEvent, deltaQuery, epsilonQuery, (e, d, x) => {
          const v = violation(name, AR, e, [d], [x])
          if (v !== undefined) throw new Error(v)
        }),
        { seed: Number(process.env.EXTREMES_SEED ?? SEED) + 2, numRuns: Math.ceil(RUNS[name] / 3) },
      )
    })
})
