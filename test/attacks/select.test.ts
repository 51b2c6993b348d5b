import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { auditMechanism } from '../../src/attacks/audit.js'
import { epsilonFromRates, wilsonUpper } from '../../src/attacks/bounds.js'
import type { BlackBox } from '../../src/attacks/output.js'
import { coordinatePairs, vectorPairs } from '../../src/attacks/pairs.js'
import { compileScorer, granularity } from '../../src/attacks/score.js'
import { betterHalf, thresholdForCount } from '../../src/attacks/search.js'
import { adaptiveEdges, fitFamily, gaussianTailThreshold, type PairSamples, projectedBound } from '../../src/attacks/select.js'
import { TrialRng } from '../../src/attacks/stream.js'
import { gaussianNoise, laplaceNoise, snapped } from '../../src/attacks/zoo/noise.js'

describe('granularity (the bits family feature)', () => {
  it('is the exponent of the lowest set bit, against an independent BigInt computation', () => {
    const reference = (y: number): number => {
      const view = new DataView(new ArrayBuffer(8))
      view.setFloat64(0, y)
      const bits = view.getBigUint64(0)
      const exp = Number((bits >> 52n) & 0x7ffn)
      let mant = bits & ((1n << 52n) - 1n)
      if (exp !== 0) mant |= 1n << 52n
      let tz = 0
      while ((mant & 1n) === 0n) {
        mant >>= 1n
        tz++
      }
      return (exp === 0 ? -1074 : exp - 1075) + tz
    }
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => x !== 0), (y) => granularity(y) === reference(y)),
      { seed: 5, numRuns: 2000 },
    )
    expect(granularity(1)).toBe(0)
    expect(granularity(0.75)).toBe(-2)
    expect(granularity(5e-324)).toBe(-1074)
    expect(granularity(0)).toBe(-1100)
  })
  it('separates textbook floating-point Laplace at 0 and 1: 1 + Y is always a multiple of 2⁻⁵³', () => {
    const rng = new TrialRng([9, 9])
    let fine0 = 0
    for (let i = 0; i < 20_000; i++) {
      rng.reset(i)
      if (granularity(0 + laplaceNoise(rng, 1)) < -53) fine0++
      rng.reset(i)
      expect(granularity(1 + laplaceNoise(rng, 1))).toBeGreaterThanOrEqual(-53)
    }
    expect(fine0 / 20_000).toBeGreaterThan(0.2)
  })
})

describe('selection', () => {
  it('projectedBound: at the tuning size it is ε̂ at upper bounds; more estimation trials never lower it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (n, a, b) => {
        const tp = Math.round(a * n)
        const fp = Math.round(b * n)
        const small = projectedBound(tp, n, fp, n, 0, { n: 1000, z: 2.24 })
        const large = projectedBound(tp, n, fp, n, 0, { n: 1_000_000, z: 2.24 })
        return large >= small - 1e-12 && large <= epsilonFromRates(wilsonUpper(fp, n, 2), wilsonUpper(n - tp, n, 2), 0) + 1e-12
      }),
      { seed: 3, numRuns: 300 },
    )
  })
  it('adaptive edges add tail quantiles only where enough points lie beyond them', () => {
    const x = Float64Array.from({ length: 100_000 }, (_, i) => i).sort()
    const e = adaptiveEdges(x, 16)
    expect(e).toContain(29) // the 3·10⁻⁴ quantile (⌊3·10⁻⁴·10⁵⌋ = 29 in floating point): ≥ 25 points below
    expect(e).toContain(99_970)
    expect(e).not.toContain(10) // 10⁻⁴ · 10⁵ = 10 < 25
    expect(adaptiveEdges(Float64Array.from({ length: 1000 }, (_, i) => i), 16)).not.toContain(1)
  })
  it('Gaussian tail extrapolation accepts Gaussian scores and refuses Laplace ones', () => {
    const rng = new TrialRng([1, 1])
    const draw = (f: () => number, shift: number): Float64Array =>
      Float64Array.from({ length: 20_000 }, (_, i) => {
        rng.reset(i + (shift > 0 ? 1e6 : 0))
        return shift + f()
      })
    const g = gaussianTailThreshold(draw(() => gaussianNoise(rng, 1), 4), draw(() => gaussianNoise(rng, 1), 0), 0.05, { n: 400_000, z: 2.24 })
    expect(g).not.toBeNull()
    expect(g?.orientation).toBe(1)
    expect(gaussianTailThreshold(draw(() => laplaceNoise(rng, 1), 1), draw(() => laplaceNoise(rng, 1), 0), 0, { n: 400_000, z: 2.24 })).toBeNull()
  })
  it('the joint family scores (pattern, continuous value) outputs and ignores pure patterns', () => {
    const rng = new TrialRng([2, 2])
    const mk = (n: number, shift: number): Float64Array => {
      const v = new Float64Array(n * 3)
      for (let i = 0; i < n; i++) {
        rng.reset(i)
        const k = rng.next() < 0.5 ? 0 : 1
        v[i * 3] = k === 0 ? 1.5 + shift + laplaceNoise(rng, 1) : 0
        v[i * 3 + 1] = k === 1 ? 1.5 + shift + laplaceNoise(rng, 1) : -1
        v[i * 3 + 2] = -1
      }
      return v
    }
    const s: PairSamples = { shape: { kind: 'vector', dim: 3 }, n: [4000, 4000], values: [mk(4000, 0), mk(4000, 1)], codes: [new Int32Array(0), new Int32Array(0)], categories: [] }
    const m = fitFamily('joint', s, 0, 2)
    expect(m?.family).toBe('joint')
    if (m?.family !== 'joint') return
    expect(m.discrete).toEqual([-1, 0])
    expect(m.keys).toEqual(['*,-1,-1', '0,*,-1'])
    const score = compileScorer(m, s.shape)
    if (score.kind !== 'vector') throw new Error('vector scorer expected')
    expect(score.score(Float64Array.of(-5, -1, -1), 0)).toBeGreaterThan(score.score(Float64Array.of(8, -1, -1), 0))
    const pure: PairSamples = { ...s, values: [Float64Array.from(s.values[0], (x) => (x === 0 || x === -1 ? x : 1)), Float64Array.from(s.values[1], (x) => (x === 0 || x === -1 ? x : 1))] }
    expect(fitFamily('joint', pure, 0, 2)).toBeNull()
  })
  it('the joint family\'s likelihood ratio is monotone in the value within every pattern (pool-adjacent-violators), whatever the data', () => {
    // Any two sides: a pattern chosen by a coin of bias p_side, then a Laplace value of scale b_side
    // and shift m_side in the pattern's slot; the fitted score of each pattern must be monotone in
    // the value (either direction), and a side with a lower shift must score higher at low values.
    const side = fc.record({ p: fc.double({ min: 0.2, max: 0.8, noNaN: true }), m: fc.double({ min: -2, max: 2, noNaN: true }), b: fc.double({ min: 0.5, max: 3, noNaN: true }) })
    fc.assert(
      fc.property(side, side, fc.integer({ min: 0, max: 1 << 30 }), (a, b, seed) => {
        const rng = new TrialRng([seed, 23])
        const mk = (q: { p: number; m: number; b: number }, n: number, salt: number): Float64Array => {
          const v = new Float64Array(n * 2)
          for (let i = 0; i < n; i++) {
            rng.reset(salt * n + i)
            const first = rng.next() < q.p
            v[i * 2] = first ? q.m + laplaceNoise(rng, q.b) : 0
            v[i * 2 + 1] = first ? -1 : q.m + laplaceNoise(rng, q.b)
          }
          return v
        }
        const n = 3000
        const s: PairSamples = { shape: { kind: 'vector', dim: 2 }, n: [n, n], values: [mk(a, n, 0), mk(b, n, 1)], codes: [new Int32Array(0), new Int32Array(0)], categories: [] }
        const m = fitFamily('joint', s, 0, 2)
        if (m?.family !== 'joint') return false
        return m.scores.every((sc) => {
          const up = sc.every((x, i) => i === 0 || x >= (sc[i - 1] as number) - 1e-12)
          const down = sc.every((x, i) => i === 0 || x <= (sc[i - 1] as number) + 1e-12)
          return up || down
        })
      }),
      { seed: 23, numRuns: 25 },
    )
  })
  it('thresholdForCount: the event holds the count nearest the target that the distinct scores allow', () => {
    const scores = fc.array(fc.integer({ min: -6, max: 6 }), { maxLength: 40 })
    fc.assert(
      fc.property(scores, scores, fc.constantFrom(1 as const, -1 as const), fc.nat(90), (a, b, sigma, target) => {
        const w0 = Float64Array.from(a)
        const w1 = Float64Array.from(b)
        const t = thresholdForCount(w0, w1, sigma, target)
        const held = [...a, ...b].filter((x) => sigma * x >= t).length
        // Every event {σ·w ≥ t′} the scores allow (the empty one included) is at least as far from the target.
        const counts = [0, ...new Set([...a, ...b])].map((u, i) => (i === 0 ? 0 : [...a, ...b].filter((x) => sigma * x >= sigma * u).length))
        expect(Math.abs(held - target)).toBe(Math.min(...counts.map((c) => Math.abs(c - target))))
        if (held === 0) expect(t).toBe(Infinity)
      }),
    )
  })

  it('successive halving keeps the better half, ties to the lower pair', () => {
    expect(betterHalf([{ pair: 0, objective: 1 }, { pair: 1, objective: 2 }, { pair: 2, objective: 2 }, { pair: 3, objective: 0 }])).toEqual([1, 2])
    expect(betterHalf([{ pair: 4, objective: 0 }])).toEqual([4])
  })
})

describe('claims with their relation', () => {
  const prefix: BlackBox<ReadonlyArray<number>> = (x, rng) => {
    let s = 0
    return x.map((v) => (s += v + snapped(laplaceNoise(rng, 1))))
  }
  const claim = { epsilon: 1, delta: 0, relation: 'one-coordinate' as const }
  it('refuses pairs the relation does not allow, naming the pair', () => {
    const r = auditMechanism({ mechanism: prefix, pairs: vectorPairs([1, 0, 1]), claim, trials: 20_000, seed: 1 })
    expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.path).toBe('$.pairs[2]')
    expect(E.isLeft(r) && r.left.message).toMatch(/one-coordinate neighbours differ in exactly one entry/)
  })
  it('vectorPairs under one-coordinate change gives only one-entry pairs, and a correct prefix-sum mechanism passes', () => {
    const pairs = vectorPairs([1, 0, 1], { relation: 'one-coordinate' })
    expect(pairs).toEqual(coordinatePairs([1, 0, 1]))
    const r = auditMechanism({ mechanism: prefix, pairs, claim, trials: 60_000, seed: 2, confidence: 0.999 })
    expect(E.isRight(r) && r.right.verdict).toBe('consistent')
  })
})

describe('Gaussian-DP test and claim profiles', () => {
  it('bounds μ below the true μ of a Gaussian mechanism and converts it only under the stated assumption', () => {
    const sigma = 2
    const g: BlackBox<number> = (x, rng) => x + snapped(gaussianNoise(rng, sigma))
    const r = auditMechanism({ mechanism: g, pairs: [{ input: 0, neighbour: 1 }], claim: { epsilon: 0.5, delta: 1e-5 }, trials: 200_000, seed: 4, confidence: 0.999 })
    if (E.isLeft(r)) throw new Error(r.left.message)
    const gdp = r.right.gdp
    expect(gdp?.muLowerBound).toBeGreaterThan(0.3)
    expect(gdp?.muLowerBound).toBeLessThanOrEqual(1 / sigma) // true μ = Δ/σ = 0.5
    expect(gdp?.refutesClaimIfGaussian).toBe(true) // 0.45-GDP would mean ε ≈ 1.5 at δ = 1e-5 > 0.5
    expect(gdp?.statement).toMatch(/assumption/)
  })
  it('a profile point the counts refute makes the verdict a violation even when the main claim stands', () => {
    const lap: BlackBox<number> = (x, rng) => x + snapped(laplaceNoise(rng, 1))
    const r = auditMechanism({
      mechanism: lap,
      pairs: [{ input: 0, neighbour: 1 }],
      claim: { epsilon: 1, delta: 0, profile: [{ epsilon: 0.5, delta: 0.01 }] },
      trials: 100_000,
      seed: 5,
    })
    if (E.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.epsilonLowerBound).toBeLessThanOrEqual(1)
    expect(r.right.profileViolations?.[0]?.epsilon).toBe(0.5)
    expect(r.right.verdict).toBe('violation')
  })
})

describe('family-wise audits', () => {
  it('p-values reproduce each audit verdict at its own level; Holm rejects what Bonferroni does and keeps the family level', async () => {
    const { auditFamily, auditPValue, familywise } = await import('../../src/attacks/family.js')
    const lap = (b: number): BlackBox<number> => (x, rng) => x + snapped(laplaceNoise(rng, b))
    const spec = (b: number, seed: number) => ({ mechanism: lap(b), pairs: [{ input: 0, neighbour: 1 }], claim: { epsilon: 1, delta: 0 }, trials: 60_000, seed })
    const fam = auditFamily([spec(1, 1), spec(0.5, 2), spec(0.6, 3), spec(1, 4)] as never, { confidence: 0.95 })
    if (E.isLeft(fam)) throw new Error(fam.left.message)
    const { results, family } = fam.right
    for (const r of results) expect(auditPValue(r) <= 0.05).toBe(r.verdict === 'violation')
    const bonf = familywise(results, 0.95, 'bonferroni')
    family.decisions.forEach((d, i) => {
      if (bonf.decisions[i]?.violation) expect(d.violation).toBe(true)
      if (d.violation) expect(d.epsilonLowerBound).toBeGreaterThan(1)
    })
    expect(family.decisions[0]?.violation).toBe(false) // Lap(1) is 1-DP
    expect(family.decisions[1]?.violation).toBe(true) // Lap(0.5) is 2-DP
    expect(family.statement).toMatch(/Holm/)
  })
})
