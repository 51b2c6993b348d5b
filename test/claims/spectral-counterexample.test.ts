/**
 * The spectral-LDA paper's configurations: configuration 1 under each reading of §6.1's noise line,
 * recomputed here in closed form; configurations 2–4 against counterexamples built from the
 * trainer's own estimators. The last block is the guard the issue asks for: wherever a local
 * sensitivity the trainer calibrates to (eq. (64) and what is built on it) is exceeded by a pair
 * of neighbouring corpora, the verdict must say "does not hold" and the trainer must label the run
 * not a private release.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import erfc from '@stdlib/math-base-special-erfc'
import { describe, expect, it } from 'vitest'
import { formatError } from '../../src/core/error.js'
import { bisectPredicate } from '../../src/core/numeric.js'
import { loadClaims } from '../../src/report/claims/codec.js'
import { verifyClaim } from '../../src/report/claims/verify.js'
import type { ClaimVerdict } from '../../src/report/claims/verdict.js'
import { CONSTRUCTIONS, tensorCounterexample, type TensorCounterexample } from '../../src/report/claims/spectral-counterexample.js'
import { edgeTests } from '../../src/report/claims/spectral-privacy-checks.js'
import { BUILTIN_CONFIGURATIONS, edge } from '../../src/trainers/spectral/graph.js'
import { unverifiedReasons } from '../../src/trainers/spectral/trainer.js'
import { decompositionReleaseSensitivity, equation64, secondMomentSensitivity, thirdMomentNormBound, thirdMomentSensitivity, whitenedTensorSensitivity } from '../../src/trainers/spectral/sensitivity.js'

const papers = (() => {
  const r = loadClaims()
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
})()
const verdict = (id: string): ClaimVerdict => {
  const v = verifyClaim(papers, id)
  if (E.isLeft(v)) throw new Error(formatError(v.left))
  return v.right
}
const example = (name: keyof typeof CONSTRUCTIONS, N: number, alpha0: number): TensorCounterexample => {
  const x = tensorCounterexample(CONSTRUCTIONS[name], N, alpha0, [1, 2])
  if (E.isLeft(x)) throw new Error(formatError(x.left))
  return x.right
}
const column = (v: ClaimVerdict, table: number, name: string): ReadonlyArray<string | number> => {
  const t = v.evidence[table]!
  const i = t.columns.indexOf(name)
  expect(i, `column ${name} in ${t.title}`).toBeGreaterThanOrEqual(0)
  return t.rows.map((r) => r[i]!)
}

/** δ(ε) of a Gaussian mechanism with μ = Δ/σ (Balle & Wang 2018, Thm 8): exact, independent of dpaudit's accountants. */
const phi = (x: number): number => 0.5 * erfc(-x / Math.SQRT2)
const gaussianDelta = (mu: number, eps: number): number => phi(-eps / mu + mu / 2) - Math.exp(eps) * phi(-eps / mu - mu / 2)
const gaussianEpsilon = (mu: number, delta: number): number => bisectPredicate((eps) => gaussianDelta(mu, eps) <= delta, 0, 100, 1e-12).hi

describe('configuration 1: holds only under a stated reading of §6.1', () => {
  it('names each reading with its ε, recomputed here by the exact Gaussian formula: σ = τ/N (as printed) above the claim, σ = (2/N)τ within it', () => {
    const v = verdict('spectral.config1')
    expect(v.kind).toBe('holds-under-reading')
    const readings = column(v, 1, 'reading')
    const eps = column(v, 1, 'dpaudit ε at δ') as number[]
    // claims/004: N = 100,000, k = 10, α = 0.1 (α0 = 1), (ε, δ) = (1, 1e-7) split over e3, e4, e8
    const N = 100_000
    const tau = Math.sqrt(2 * Math.log(1.25 / (1e-7 / 3))) / (1 / 3)
    const d3 = thirdMomentSensitivity(N, 1)
    const d2 = secondMomentSensitivity(N, 1)
    const exact = (sigma: number): number => gaussianEpsilon(Math.hypot(d3 / sigma, d2 / sigma, d2 / sigma), 1e-7) // composition of Gaussians is a Gaussian with μ² = Σ μ_i²
    const printed = exact(tau / N)
    const theorem4 = exact((2 / N) * tau)
    expect(printed).toBeGreaterThan(1)
    expect(theorem4).toBeLessThan(1)
    const at = (re: RegExp): number => eps[readings.findIndex((r) => re.test(String(r)))]!
    // dpaudit's PLD answer is a certified upper bound: at or just above the exact value
    for (const [ours, truth] of [
      [at(/as printed/), printed],
      [at(/Theorem 4/), theorem4],
    ] as const) {
      expect(ours).toBeGreaterThanOrEqual(truth * (1 - 1e-6))
      expect(ours).toBeLessThan(truth * 1.01)
    }
    expect(v.statement).toContain(`ε = ${Number(at(/as printed/).toPrecision(4))} at δ = 1e-7`)
    expect(v.statement).toContain(`ε = ${Number(at(/Theorem 4/).toPrecision(4))} at δ = 1e-7`)
    expect(v.statement).toMatch(/holds only under "Theorem 4's sensitivity: σ = \(2\/N\)·τ"/)
    expect(v.assumptions.reading).toMatch(/N\(0, τ\/N²\) read as the Gaussian mechanism for sensitivity 1\/N/)
  })
})

describe('the counterexample to eq. (64): moments move by O(1/N), T̂ by O(1)', () => {
  it.each([1_000, 10_000])('cyclic, α0 = 1, N = %i: M̂2 moves by exactly 2/N in ℓ1, σ_k is large and separated, T̂ moves by > 1 at every seed and signed permutation', (N) => {
    const x = example('cyclic', N, 1)
    expect(x.momentChange.m2L1).toBeCloseTo(2 / N, 12)
    expect(x.momentChange.m2F).toBeLessThanOrEqual(secondMomentSensitivity(N, 1))
    expect(x.momentChange.m3F).toBeLessThanOrEqual(thirdMomentSensitivity(N, 1))
    expect(x.sigmas[1]).toBeGreaterThan(100 * secondMomentSensitivity(N, 1)) // σ_k ≫ Δ2: eq. (64) applies, PTR passes
    expect(x.sigmas[1] - x.sigmas[2]).toBeGreaterThan(0.1) // a clear gap to σ_{k+1}
    expect(x.tensorChange).toBeGreaterThan(2)
    expect(x.tensorChangeAligned).toBeGreaterThan(1)
    expect(x.tensorChange).toBeGreaterThan(25 * x.bound64Proved)
    expect(x.tensorChange).toBeGreaterThan(25 * x.bound64Theorem4)
  })

  it('the change does not shrink with N while the bound does (×10 documents: bound ÷ 10, change the same)', () => {
    const a = example('cyclic', 1_000, 1)
    const b = example('cyclic', 10_000, 1)
    expect(b.tensorChange / a.tensorChange).toBeGreaterThan(0.95)
    expect(a.bound64Proved / b.bound64Proved).toBeGreaterThan(9)
  })

  it('property: at any α0 and N the cyclic pair moves T̂ far above eq. (64) (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 34, max: 1_000 }), fc.double({ min: 0.05, max: 20, noNaN: true }), (n, alpha0) => {
        const N = 3 * n + 1
        const x = example('cyclic', N, alpha0)
        const bound = equation64(2, x.sigmas[1], secondMomentSensitivity(N, alpha0), thirdMomentSensitivity(N, alpha0), thirdMomentNormBound(alpha0))
        expect(x.tensorChangeAligned).toBeGreaterThan(0.5)
        expect(x.tensorChange).toBeGreaterThan(3 * bound)
      }),
      { numRuns: 12, seed: 28 },
    )
  })

  it('two-topic (α0 → 0, distinct tensor eigenvalues): μ̄ turns with W, above Theorem 6 from N = 10,000; the final μ does not (basis-free)', () => {
    const x = example('two-topic', 10_000, 1e-9)
    expect(x.gammaS).toBeGreaterThan(0.1)
    const bound = decompositionReleaseSensitivity({ documents: 10_000, topics: 2, alpha0: 1e-9, sigmaK: x.sigmas[1], sigma1: x.sigmas[0], gammaS: x.gammaS })
    expect(x.decompositionChange).toBeGreaterThan(5 * bound)
    expect(x.outputChange).toBeLessThan(1e-3)
  })

  it('refuses sizes the construction cannot have', () => {
    expect(E.isLeft(tensorCounterexample(CONSTRUCTIONS.cyclic, 1001, 1))).toBe(true)
    expect(E.isLeft(tensorCounterexample(CONSTRUCTIONS.cyclic, 1000, 0))).toBe(true)
  })
})

describe('guard: a sensitivity the counterexamples exceed is never used without "does not hold"', () => {
  it('e6 is calibrated to eq. (64) and is exceeded; every configuration with an exceeded edge says so, and its runs are not private releases', () => {
    const x = example('cyclic', 10_000, 1)
    const q = { documents: 10_000, topics: 2, alpha0: 1, sigmaK: x.sigmas[1] }
    // the trainer's e6 sensitivity is eq. (64) (if it ever changes, this states which bound is in use)
    expect(edge('e6').sensitivity.l2(q)).toBe(whitenedTensorSensitivity(q))
    for (const c of BUILTIN_CONFIGURATIONS) {
      const tests = edgeTests(c.edges)
      if (E.isLeft(tests)) throw new Error(formatError(tests.left))
      const exceeded = tests.right.filter((t) => t.change > t.sensitivity)
      const id = `spectral.config${BUILTIN_CONFIGURATIONS.indexOf(c) + 1}`
      const v = verdict(id)
      if (exceeded.length > 0) {
        expect(v.kind, `${id}: ${exceeded.map((t) => `${t.edge} ${t.construction} N = ${t.documents}`).join('; ')}`).toBe('does-not-hold')
        expect(column(v, 1, 'exceeded')).toContain('yes')
        expect(unverifiedReasons(c).length).toBeGreaterThan(0)
      } else expect(v.kind).not.toBe('holds')
      // a configuration on unproved sensitivities is never "holds"
      if (c.edges.some((e) => edge(e).sensitivity.status === 'paper')) expect(v.kind).not.toBe('holds')
    }
    expect(verdict('spectral.config2').kind).toBe('does-not-hold')
    expect(verdict('spectral.config3').kind).toBe('does-not-hold')
  })

  it('the verdict for configuration 2 carries the counterexample: T̂ change, both eq. (64) bounds and the printed rate, all from the computation', () => {
    const v = verdict('spectral.config2')
    const x = example('cyclic', 1_000, 1)
    expect(v.statement).toContain(`moves by ${Number(x.tensorChange.toPrecision(3))} in Frobenius norm at every N`)
    expect(v.statement).toContain(`${Number((x.tensorChange / x.bound64Proved).toPrecision(3))}×`)
    expect(v.statement).toContain(`${Number((x.tensorChange / x.bound64Theorem4).toPrecision(3))}×`)
    const t = v.evidence.find((e) => e.title.startsWith('counterexample "cyclic"'))
    expect(t).toBeDefined()
    expect(v.assumptions.relation).toMatch(/replace one document/)
  })
})
