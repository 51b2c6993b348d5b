/**
 * The bug zoo: deliberately broken mechanisms next to correct controls, to test the auditor
 * itself. Each entry builds its mechanism from a claim (the ε the implementation says it
 * provides), names the neighbouring pairs to audit, and states its true ε on those pairs —
 * computed independently of the auditor (zoo/exact.ts: closed forms, the analytic Gaussian curve,
 * or numerical integration over the output distribution) — so a test can check that every broken
 * entry is flagged and no control is.
 *
 * Entries are addressable by name (`zooEntry('histogram-inverted')`), which is how a worker
 * thread rebuilds a zoo mechanism from the compiled package.
 *
 * Sources for the bugs: StatDP (Ding et al., CCS 2018) and DP-Sniper (Bichsel et al., S&P 2021)
 * catalogue noisy max returning the value (their ReportNoisyMax3/4) and the sparse-vector variants
 * of Lyu, Su & Li (VLDB 2017: Alg. 1 correct; Alg. 3 outputs the noisy answer; Alg. 4 is Lee &
 * Clifton's; Alg. 5 has no query noise; Alg. 6 has no cutoff); the inverted histogram scale is
 * StatDP's "NoisyHist2"; floating-point Laplace is Mironov (CCS 2012); the classical Gaussian
 * σ = √(2 ln(1.25/δ))Δ/ε is only a theorem for ε < 1 (Dwork & Roth 2014, Thm A.1; Balle & Wang 2018
 * show how wrong it is at large ε); the replace-one and per-bit randomized response bugs are the ones
 * docs/claims.md finds in published topic-model trainers (the SUB-LDA paper's Gaussian, and Zhao et
 * al.'s CDP-LDA baselines and LP-LDA).
 *
 * Floating point. Every entry but the `*-float` ones adds noise snapped to the grid 2⁻²⁰ (noise.ts
 * `snapped`), or integer noise, so outputs carry nothing in their low bits and the true ε is the
 * algorithm's; the `*-float` entries do not snap, and their true ε is ∞ (Mironov 2012). Snapping
 * moves sparse vector's comparisons by at most 2⁻²¹, which the exact values ignore. Every sampler built on a 53-bit uniform draw has bounded
 * support, so even the controls are only (ε, 2⁻⁵²)-DP, not pure ε-DP: no audit can see that mass.
 *
 * @module
 */
import { analyticGaussian, loadAnalyticGaussian } from './analytic.js'
import type { AuditClaim } from '../claim.js'
import type { BlackBox } from '../output.js'
import { coordinatePairs, histogramPairs, type NeighbourPair, vectorPairs } from '../pairs.js'
import {
  argmaxProbabilities,
  exponentialMechanismProbabilities,
  maxLogRatio,
  pairsEpsilon,
  type SvtNoise,
  noisyMaxValueDensities,
  svtNoisyValueDensities,
  svtPatternProbabilities,
  valueGrid,
} from './exact.js'
import type { SupportOracle } from '../support.js'
import { bernoulli, exponentialNoise, gaussianNoise, gumbelNoise, laplaceNoise, SNAP_GRID, snapped, twoSidedGeometric } from './noise.js'

/** The mechanism classes of the zoo (issue 12), for tables. */
export type ZooClass =
  | 'laplace'
  | 'gaussian'
  | 'floating-point'
  | 'noisy-max'
  | 'sparse-vector'
  | 'exponential-mechanism'
  | 'histogram'
  | 'randomized-response'
  | 'prefix-sums'

export interface ZooEntry {
  readonly name: string
  readonly class: ZooClass
  /** True for the deliberately broken mechanisms. */
  readonly broken: boolean
  readonly summary: string
  /** What is wrong with it (null for controls). */
  readonly bug: string | null
  readonly defaultClaim: AuditClaim
  /** The true ε over `pairs()` for a mechanism built for `claim` (at the claim's δ); may be ∞. */
  readonly trueEpsilon: (claim: AuditClaim) => number
  /** How `trueEpsilon` is known: a closed form, the analytic Gaussian curve, numerical integration, a theorem. */
  readonly trueEpsilonMethod: string
  /** The implementation, calibrated (correctly or not) for the claim. */
  readonly make: (claim: AuditClaim) => BlackBox<never>
  readonly pairs: () => ReadonlyArray<NeighbourPair<unknown>>
  /**
   * Trials for a decisive audit at the default claim, at 99.9 % confidence: enough for the ceiling to
   * exceed the claim (controls) or to flag the bug with a margin (broken entries). Tests use it;
   * `dpaudit audit zoo:NAME` uses the command's own default, like any other audit.
   */
  readonly suggestedTrials: number
  /** An exact support oracle for the exact-support test (support.ts), where one is known. */
  readonly support?: (claim: AuditClaim) => SupportOracle<unknown>
  /** True where `make` or `trueEpsilon` uses the analytic Gaussian calibration (loaded by `prepareZooEntry`). */
  readonly analyticGaussian?: true
}

/**
 * Support of textbook floating-point x + Laplace(b) (noise.ts `laplaceNoise`): the output is a
 * non-decreasing function of the 53-bit uniform draw k/2⁵³ (ln is increasing and floating-point
 * addition is monotone), so a binary search over k finds whether any draw gives exactly o. The
 * window of ±8 draws around the search's end guards against a non-monotone step of Math.log.
 */
const laplaceFloatSupport =
  (b: number): SupportOracle<unknown> =>
  (x, o) => {
    if (typeof x !== 'number' || typeof o !== 'number') return false
    const out = (k: number): number => {
      const u = k === 0 ? 5.551115123125783e-17 : k / 2 ** 53
      return x + (u < 0.5 ? b * Math.log(2 * u) : -b * Math.log(2 * (1 - u)))
    }
    let lo = 0
    let hi = 2 ** 53 - 1
    while (lo < hi) {
      // lo + ⌊(hi − lo)/2⌋: lo + hi can exceed 2⁵³, where doubles skip integers
      const mid = lo + Math.floor((hi - lo) / 2)
      if (out(mid) >= o) hi = mid
      else lo = mid + 1
    }
    for (let k = Math.max(0, lo - 8); k <= Math.min(2 ** 53 - 1, lo + 8); k++) if (out(k) === o) return true
    return false
  }

/** Support of x + snapped Laplace(b): multiples of 2⁻²⁰ within 38·b of x (a superset: sound). */
const snappedLaplaceSupport =
  (b: number): SupportOracle<unknown> =>
  (x, o) =>
    typeof x === 'number' && typeof o === 'number' && Number.isInteger((o - x) / SNAP_GRID) && Math.abs(o - x) <= 38 * b

/** Noisy max with one-sided noise returns at least max_i q_i. */
const oneSidedMaxSupport: SupportOracle<unknown> = (q, o) =>
  Array.isArray(q) && typeof o === 'number' && o >= Math.max(...(q as number[]))

/**
 * Sparse vector without query noise (cutoff 1): pattern 0…0 1 −1… with the 1 at k is possible iff
 * some threshold noise ρ has q_i < T + ρ for i < k and q_k ≥ T + ρ; all zeros is always possible.
 */
const noQueryNoiseSupport: SupportOracle<unknown> = (q, o) => {
  if (!Array.isArray(q) || !Array.isArray(o) || o.length !== q.length) return false
  const k = o.indexOf(1)
  for (let i = 0; i < o.length; i++) {
    const want = k === -1 || i < k ? 0 : i === k ? 1 : -1
    if (o[i] !== want) return false
  }
  if (k === -1) return true
  let lower = -Infinity
  for (let i = 0; i < k; i++) lower = Math.max(lower, (q[i] as number) - THRESHOLD)
  return lower < (q[k] as number) - THRESHOLD
}

/** Number of queries / bins / bits in the vector-input entries. */
const D = 5
const BITS = 4
const COUNTS = [5, 5, 5, 5]
const QUERIES = Array<number>(D).fill(1)
/** Sparse vector's public threshold. */
const THRESHOLD = 1

const scalarPairs: ReadonlyArray<NeighbourPair<unknown>> = [{ input: 0, neighbour: 1, label: 'count 0 vs 1' }]

const bitPairs: ReadonlyArray<NeighbourPair<unknown>> = [
  { input: Array<number>(BITS).fill(0), neighbour: Array<number>(BITS).fill(1), label: 'document replaced (every bit differs)' },
  { input: Array<number>(BITS).fill(0), neighbour: [1, ...Array<number>(BITS - 1).fill(0)], label: 'one bit differs' },
]

const queryPairs = (): ReadonlyArray<NeighbourPair<ReadonlyArray<number>>> => vectorPairs(QUERIES)

/** Two counts; replacing a record moves it from one to the other (L1 2, L2 √2). */
const twoCountPairs: ReadonlyArray<NeighbourPair<unknown>> = [{ input: [5, 5], neighbour: [4, 6], label: 'one record moved between the two counts' }]

/** A length-5 vector of 0/1 records for prefix sums; neighbours change one record by one. */
const RECORDS = [1, 0, 1, 1, 0]
const recordPairs = (): ReadonlyArray<NeighbourPair<ReadonlyArray<number>>> => coordinatePairs(RECORDS, { positions: [0, 2, D - 1] })

/** Adds independent noise to every count. */
const noisyCounts =
  (noise: (rng: Parameters<BlackBox<never>>[1]) => number): BlackBox<ReadonlyArray<number>> =>
  (x, rng) => {
    const out = new Array<number>(x.length)
    for (let i = 0; i < x.length; i++) out[i] = (x[i] as number) + noise(rng)
    return out
  }

/** Reports each bit truthfully with probability e^e/(1 + e^e), flips it otherwise (Warner 1965). */
const bitwiseRR =
  (perBitEpsilon: number): BlackBox<ReadonlyArray<number>> =>
  (x, rng) => {
    const keep = 1 / (1 + Math.exp(-perBitEpsilon))
    const out = new Array<number>(x.length)
    for (let i = 0; i < x.length; i++) out[i] = bernoulli(rng, keep) ? (x[i] as number) : 1 - (x[i] as number)
    return out
  }

/** Exact ε of randomized response with per-bit ε on the bit pairs: (number of differing bits)·ε. */
const rrEpsilon = (perBit: number): number =>
  pairsEpsilon(bitPairs as ReadonlyArray<NeighbourPair<ReadonlyArray<number>>>, (x) => {
    // Distribution of the output pattern, enumerated: 2^BITS outcomes.
    const keep = 1 / (1 + Math.exp(-perBit))
    const ps: number[] = []
    for (let o = 0; o < 2 ** BITS; o++) {
      let p = 1
      for (let i = 0; i < BITS; i++) p *= ((o >> i) & 1) === x[i] ? keep : 1 - keep
      ps.push(p)
    }
    return ps
  })

/**
 * Sparse vector with cutoff 1 (Lyu, Su & Li 2017): ρ ~ Lap(bRho) on the threshold, ν_i ~ Lap(bNu)
 * on each query (none when bNu = 0); answers 1 (above) and, with `cutoff`, stops, else 0; −1 marks
 * queries not reached. With `noisyValue` the first "above" reports q_i + ν_i instead of 1 (Alg. 3).
 */
const sparseVector =
  (n: SvtNoise, options: { readonly cutoff: boolean; readonly noisyValue?: boolean }): BlackBox<ReadonlyArray<number>> =>
  (q, rng) => {
    // Snapped noise: the reported noisy answer of Alg. 3 must not leak through its low bits, or
    // its true ε would be ∞ for floating-point reasons rather than the algorithm's.
    const rho = snapped(laplaceNoise(rng, n.bRho))
    const out = new Array<number>(q.length).fill(-1)
    for (let i = 0; i < q.length; i++) {
      const nu = n.bNu > 0 ? snapped(laplaceNoise(rng, n.bNu)) : 0
      if ((q[i] as number) + nu >= n.threshold + rho) {
        out[i] = options.noisyValue === true ? (q[i] as number) + nu : 1
        if (options.cutoff) break
      } else out[i] = 0
    }
    return out
  }

/** Lyu et al.'s Alg. 1 (c = 1): ε₁ = ε₂ = ε/2, ρ ~ Lap(1/ε₁), ν ~ Lap(2c/ε₂). */
const svtAlg1 = (epsilon: number): SvtNoise => ({ threshold: THRESHOLD, bRho: 2 / epsilon, bNu: 4 / epsilon })
/** Lee & Clifton 2014 (Lyu et al.'s Alg. 4, c = 1): ε₁ = ε/4, ρ ~ Lap(1/ε₁), ν ~ Lap(1/ε₂) with ε₂ = 3ε/4, no factor c. */
const svtAlg4 = (epsilon: number): SvtNoise => ({ threshold: THRESHOLD, bRho: 4 / epsilon, bNu: 4 / (3 * epsilon) })

/** Lyu et al.'s Alg. 3 (Roth 2011) and Alg. 6 (Chen et al. 2015), c = 1: ε₁ = ε₂ = ε/2, ρ ~ Lap(1/ε₁), ν ~ Lap(c/ε₂). */
const svtAlg36 = (epsilon: number): SvtNoise => ({ threshold: THRESHOLD, bRho: 2 / epsilon, bNu: 2 / epsilon })

const svtEpsilon = (n: SvtNoise, cutoff: boolean): number => pairsEpsilon(queryPairs(), (q) => svtPatternProbabilities(q, n, cutoff))

/**
 * The queries' values on every audited pair (QUERIES ± 1) and the threshold: the kinks of the
 * densities of a reported noisy value, around which `valueGrid` looks for the supremum.
 */
const VALUE_BREAKS = [THRESHOLD, 0, 1, 2]

/** Alg. 3's true ε: sup over the first "above" query k and its reported value v of the density ratio, on a grid 30 noise scales wide. */
const svtNoisyValueEpsilon = (n: SvtNoise): number => {
  const grid = valueGrid(VALUE_BREAKS, n.bNu, 30, 240)
  return pairsEpsilon(queryPairs(), (q) => svtNoisyValueDensities(q, n, grid))
}

/** The noisy maximum's true ε: sup over the reported value of the density ratio (exact.ts), on a grid 30 noise scales wide. */
const noisyMaxValueEpsilon = (kind: 'laplace' | 'exponential', b: number): number => {
  const grid = valueGrid(VALUE_BREAKS, b)
  return pairsEpsilon(queryPairs(), (q) => noisyMaxValueDensities(q, kind, b, grid))
}

/** argmax_i (q_i + noise) (report noisy max; Dwork & Roth 2014, Claim 3.9, with the general-query scale). */
const noisyArgmax =
  (noise: (rng: Parameters<BlackBox<never>>[1]) => number): BlackBox<ReadonlyArray<number>> =>
  (q, rng) => {
    let best = 0
    let bestValue = -Infinity
    for (let i = 0; i < q.length; i++) {
      const v = (q[i] as number) + noise(rng)
      if (v > bestValue) {
        bestValue = v
        best = i
      }
    }
    return best
  }

/** The bug: max_i (q_i + noise) returns the noisy value, not the index. */
const noisyMaxValue =
  (noise: (rng: Parameters<BlackBox<never>>[1]) => number): BlackBox<ReadonlyArray<number>> =>
  (q, rng) => {
    let bestValue = -Infinity
    for (let i = 0; i < q.length; i++) bestValue = Math.max(bestValue, (q[i] as number) + noise(rng))
    return bestValue
  }

const argmaxEpsilon = (kind: 'laplace' | 'exponential', b: number): number => pairsEpsilon(queryPairs(), (q) => argmaxProbabilities(q, kind, b))

/** Gumbel-max: argmax_i (scale·u_i + G_i) has exactly the exponential mechanism's distribution (Gumbel 1954; McSherry & Talwar 2007). */
const gumbelMax =
  (scale: number, withValue: boolean): BlackBox<ReadonlyArray<number>> =>
  (u, rng) => {
    let best = 0
    let bestValue = -Infinity
    for (let i = 0; i < u.length; i++) {
      const v = scale * (u[i] as number) + snapped(gumbelNoise(rng))
      if (v > bestValue) {
        bestValue = v
        best = i
      }
    }
    return withValue ? [best, bestValue] : best
  }

/** The exponential mechanism by inverse CDF over the normalised weights exp(scale·u_i). */
const exponentialMechanism =
  (scale: number): BlackBox<ReadonlyArray<number>> =>
  (u, rng) => {
    const p = exponentialMechanismProbabilities(u, scale)
    const x = rng.next()
    let acc = 0
    for (let i = 0; i < p.length; i++) {
      acc += p[i] as number
      if (x < acc) return i
    }
    return p.length - 1
  }

const emEpsilon = (scale: number): number => pairsEpsilon(queryPairs(), (u) => exponentialMechanismProbabilities(u, scale))

/**
 * A correct way to report a value with a choice: the choice made at ε/2 (sparse vector Alg. 1 or
 * report noisy max), the chosen query's answer released again with *fresh* Laplace(2/ε) noise (the
 * other ε/2; Dwork & Roth 2014, Thm 3.16, basic composition). The output joins a pattern with a
 * continuous value as the broken Alg. 3 and ReportNoisyMax3 do: controls for selection on such outputs.
 */
const freshValue = (rng: Parameters<BlackBox<never>>[1], qk: number, epsilon: number): number => qk + snapped(laplaceNoise(rng, 2 / epsilon))

/** Sparse vector Alg. 1 at ε/2, the first "above" query reported as q_k + fresh Laplace(2/ε). */
const sparseVectorFreshValue =
  (epsilon: number): BlackBox<ReadonlyArray<number>> =>
  (q, rng) => {
    const out = sparseVector(svtAlg1(epsilon / 2), { cutoff: true })(q, rng) as number[]
    const k = out.indexOf(1)
    if (k >= 0) out[k] = freshValue(rng, q[k] as number, epsilon)
    return out
  }

/** Report noisy max (index) with Laplace(4/ε), then [index, q_index + fresh Laplace(2/ε)]. */
const noisyMaxFreshValue =
  (epsilon: number): BlackBox<ReadonlyArray<number>> =>
  (q, rng) => {
    const i = noisyArgmax((r) => snapped(laplaceNoise(r, 4 / epsilon)))(q, rng) as number
    return [i, freshValue(rng, q[i] as number, epsilon)]
  }

/**
 * True ε of a discrete choice k (probabilities p, p′) joined with q_k + Laplace(b) released with
 * independent noise: the density ratio at (k, v) is (p_k/p′_k)·f(v − q_k)/f(v − q′_k), whose log
 * ranges over ln(p_k/p′_k) ± |q_k − q′_k|/b (the Laplace log ratio attains both ends in its tails);
 * so the sup is max_k |ln(p_k/p′_k)| + |q_k − q′_k|/b. Outcomes with no value (index ≥ q.length:
 * "none above") contribute |ln(p_k/p′_k)|.
 */
const choiceWithFreshValueEpsilon = (dist: (q: ReadonlyArray<number>) => ReadonlyArray<number>, b: number): number =>
  queryPairs().reduce((m, pair) => {
    const p = dist(pair.input)
    const pp = dist(pair.neighbour)
    let e = 0
    p.forEach((pk, k) => {
      const shift = k < pair.input.length ? Math.abs((pair.input[k] as number) - (pair.neighbour[k] as number)) / b : 0
      e = Math.max(e, maxLogRatio([pk], [pp[k] as number]) + shift)
    })
    return Math.max(m, e)
  }, 0)

/** Public bounds of the clamped Laplace control. */
const CLAMP = 5

/** Prefix sums s_k = Σ_{i≤k} x_i. */
const prefix = (x: ReadonlyArray<number>): number[] => {
  const out = new Array<number>(x.length)
  let s = 0
  for (let i = 0; i < x.length; i++) out[i] = s += x[i] as number
  return out
}

/** Gaussian noise multiplier σ/Δ₂ by the classical bound √(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1: proved for ε < 1 only). */
const classicalMultiplier = (c: AuditClaim): number => Math.sqrt(2 * Math.log(1.25 / c.delta)) / c.epsilon
const analyticMultiplier = (c: AuditClaim): number => analyticGaussian().analyticGaussianNoiseMultiplier(c.epsilon, c.delta > 0 ? c.delta : 1e-12)
const analyticEpsilon = (multiplier: number, c: AuditClaim): number => analyticGaussian().analyticGaussianEpsilon(multiplier, c.delta)

const mech = <I>(m: BlackBox<I>): BlackBox<never> => m as BlackBox<never>

const CLOSED = 'closed form'
const NUMERIC = 'numerical integration over the output distribution on the audited pairs (zoo/exact.ts)'
const AGAUSS = 'analytic Gaussian curve (Balle & Wang 2018, Thm 8) at the claimed δ'

const entries: ReadonlyArray<ZooEntry> = [
  // ------------------------------------------------------------------ correct controls
  {
    name: 'laplace',
    class: 'laplace',
    broken: false,
    summary: 'a count plus Laplace(1/ε) noise snapped to 2⁻²⁰ (Dwork, McSherry, Nissim & Smith 2006)',
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech((x: number, rng) => x + snapped(laplaceNoise(rng, 1 / c.epsilon))),
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
    support: (c) => snappedLaplaceSupport(1 / c.epsilon),
  },
  {
    name: 'laplace-small-epsilon',
    class: 'laplace',
    broken: false,
    summary: 'a count plus snapped Laplace(1/ε) noise at ε = 0.1',
    bug: null,
    defaultClaim: { epsilon: 0.1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech((x: number, rng) => x + snapped(laplaceNoise(rng, 1 / c.epsilon))),
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'geometric',
    class: 'laplace',
    broken: false,
    summary: 'a count plus two-sided geometric noise, P(k) ∝ e^(−ε|k|) (Ghosh, Roughgarden & Sundararajan 2009)',
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech((x: number, rng) => x + twoSidedGeometric(rng, c.epsilon)),
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'gaussian',
    class: 'gaussian',
    broken: false,
    summary: 'a count plus N(0, σ²) noise snapped to 2⁻²⁰, σ from the analytic Gaussian calibration (Balle & Wang 2018)',
    bug: null,
    defaultClaim: { epsilon: 1, delta: 1e-5 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: AGAUSS,
    analyticGaussian: true,
    make: (c) => {
      const sigma = analyticMultiplier(c)
      return mech((x: number, rng) => x + snapped(gaussianNoise(rng, sigma)))
    },
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'gaussian-large-epsilon',
    class: 'gaussian',
    broken: false,
    summary: 'a count plus snapped Gaussian noise calibrated by the analytic Gaussian at ε = 10, δ = 0.05',
    bug: null,
    defaultClaim: { epsilon: 10, delta: 0.05 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: AGAUSS,
    analyticGaussian: true,
    make: (c) => {
      const sigma = analyticMultiplier(c)
      return mech((x: number, rng) => x + snapped(gaussianNoise(rng, sigma)))
    },
    pairs: () => scalarPairs,
    suggestedTrials: 4_000_000,
  },
  {
    name: 'gaussian-replace-one',
    class: 'gaussian',
    broken: false,
    summary: 'two counts plus snapped Gaussian noise calibrated for L2 sensitivity √2 under replace-one',
    bug: null,
    defaultClaim: { epsilon: 1, delta: 1e-5 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: AGAUSS,
    analyticGaussian: true,
    make: (c) => {
      const sigma = Math.SQRT2 * analyticMultiplier(c)
      return mech(noisyCounts((rng) => snapped(gaussianNoise(rng, sigma))))
    },
    pairs: () => twoCountPairs,
    suggestedTrials: 200_000,
  },
  {
    name: 'randomized-response',
    class: 'randomized-response',
    broken: false,
    summary: `randomized response on a document's ${BITS} presence bits, ε/${BITS} per bit so ε per document`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => rrEpsilon(c.epsilon / BITS),
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(bitwiseRR(c.epsilon / BITS)),
    pairs: () => bitPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'report-noisy-max',
    class: 'noisy-max',
    broken: false,
    summary: `the index of the largest of ${D} query answers plus Laplace(2/ε) noise`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => argmaxEpsilon('laplace', 2 / c.epsilon),
    trueEpsilonMethod: NUMERIC,
    make: (c) => mech(noisyArgmax((rng) => laplaceNoise(rng, 2 / c.epsilon))),
    pairs: queryPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'report-noisy-max-exponential',
    class: 'noisy-max',
    broken: false,
    summary: `the index of the largest of ${D} query answers plus Exponential(2/ε) noise (Ding et al. 2021: same distribution as permute-and-flip)`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => argmaxEpsilon('exponential', 2 / c.epsilon),
    trueEpsilonMethod: NUMERIC,
    make: (c) => mech(noisyArgmax((rng) => exponentialNoise(rng, 2 / c.epsilon))),
    pairs: queryPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'sparse-vector',
    class: 'sparse-vector',
    broken: false,
    summary: `sparse vector (c = 1) over ${D} queries, Laplace noise on the threshold and on every query (Lyu, Su & Li 2017, Alg. 1)`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => svtEpsilon(svtAlg1(c.epsilon), true),
    trueEpsilonMethod: NUMERIC,
    make: (c) => mech(sparseVector(svtAlg1(c.epsilon), { cutoff: true })),
    pairs: queryPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'exponential-mechanism',
    class: 'exponential-mechanism',
    broken: false,
    summary: `the exponential mechanism over ${D} candidates, P(i) ∝ exp(ε·u_i/2) for utilities of sensitivity 1, by inverse CDF`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => emEpsilon(c.epsilon / 2),
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(exponentialMechanism(c.epsilon / 2)),
    pairs: queryPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'exponential-mechanism-gumbel',
    class: 'exponential-mechanism',
    broken: false,
    summary: `the exponential mechanism over ${D} candidates by the Gumbel-max trick, returning the index`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => emEpsilon(c.epsilon / 2),
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(gumbelMax(c.epsilon / 2, false)),
    pairs: queryPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'histogram',
    class: 'histogram',
    broken: false,
    summary: `a histogram of ${COUNTS.length} counts, each plus snapped Laplace(1/ε), under add/remove-one`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(noisyCounts((rng) => snapped(laplaceNoise(rng, 1 / c.epsilon)))),
    pairs: () => histogramPairs(COUNTS, 'add-remove').slice(0, 2),
    suggestedTrials: 60_000,
  },
  {
    name: 'histogram-replace-one',
    class: 'histogram',
    broken: false,
    summary: `a histogram of ${COUNTS.length} counts, each plus snapped Laplace(2/ε), under replace-one (L1 sensitivity 2)`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(noisyCounts((rng) => snapped(laplaceNoise(rng, 2 / c.epsilon)))),
    pairs: () => histogramPairs(COUNTS, 'replace-one').slice(0, 2),
    suggestedTrials: 100_000,
  },
  {
    name: 'prefix-sums',
    class: 'prefix-sums',
    broken: false,
    summary: `prefix sums of ${D} records computed from the records plus snapped Laplace(1/ε) each (post-processing), under one-record change`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0, relation: 'one-coordinate' },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech((x: ReadonlyArray<number>, rng) => prefix(x.map((v) => v + snapped(laplaceNoise(rng, 1 / c.epsilon))))),
    pairs: recordPairs,
    suggestedTrials: 100_000,
  },
  // ------------------------------------------------------------------ broken
  {
    name: 'laplace-float',
    class: 'floating-point',
    broken: true,
    summary: 'a count plus textbook floating-point Laplace(1/ε): x + b·ln(2u) (Mironov 2012)',
    bug: 'the sum is rounded to the doubles near x: every output of 1 + Y is a multiple of 2⁻⁵³, while about 39 % of the outputs of 0 + Y are not — outputs possible on one input and impossible on the other, ε = ∞',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: () => Infinity,
    trueEpsilonMethod: 'support argument (Mironov 2012, §3)',
    make: (c) => mech((x: number, rng) => x + laplaceNoise(rng, 1 / c.epsilon)),
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
    support: (c) => laplaceFloatSupport(1 / c.epsilon),
  },
  {
    name: 'gaussian-float',
    class: 'floating-point',
    broken: true,
    summary: 'a count plus floating-point Box–Muller Gaussian noise, analytic calibration at (1, 10⁻⁵), not snapped',
    bug: 'as for Laplace: outputs of 1 + Z are multiples of 2⁻⁵³, outputs of 0 + Z with |Z| < ½ mostly are not; that mass (≈ 0.1) is far above δ, so no (ε, 10⁻⁵) holds',
    defaultClaim: { epsilon: 1, delta: 1e-5 },
    trueEpsilon: () => Infinity,
    trueEpsilonMethod: 'support argument (Mironov 2012, §3)',
    analyticGaussian: true,
    make: (c) => {
      const sigma = analyticMultiplier(c)
      return mech((x: number, rng) => x + gaussianNoise(rng, sigma))
    },
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'gaussian-classical-large-epsilon',
    class: 'gaussian',
    broken: true,
    summary: 'a count plus snapped Gaussian noise with the classical σ = √(2 ln(1.25/δ))/ε at ε = 10, δ = 0.05',
    bug: 'the classical calibration is a theorem only for ε < 1; at ε = 10 it understates the noise (σ 0.254 instead of 0.304) and the true ε at δ = 0.05 is 13.4',
    defaultClaim: { epsilon: 10, delta: 0.05 },
    trueEpsilon: (c) => analyticEpsilon(classicalMultiplier(c), c),
    trueEpsilonMethod: AGAUSS,
    analyticGaussian: true,
    make: (c) => {
      const sigma = classicalMultiplier(c)
      return mech((x: number, rng) => x + snapped(gaussianNoise(rng, sigma)))
    },
    pairs: () => scalarPairs,
    suggestedTrials: 4_000_000,
  },
  {
    name: 'gaussian-sqrt2',
    class: 'gaussian',
    broken: true,
    summary: 'two counts plus snapped Gaussian noise calibrated for L2 sensitivity 1, released under replace-one',
    bug: 'moving a record changes two counts by one each: L2 sensitivity √2, so the noise multiplier is √2 too small (true ε 1.47 at δ = 10⁻⁵)',
    defaultClaim: { epsilon: 1, delta: 1e-5 },
    trueEpsilon: (c) => analyticEpsilon(analyticMultiplier(c) / Math.SQRT2, c),
    trueEpsilonMethod: AGAUSS,
    analyticGaussian: true,
    make: (c) => {
      const sigma = analyticMultiplier(c)
      return mech(noisyCounts((rng) => snapped(gaussianNoise(rng, sigma))))
    },
    pairs: () => twoCountPairs,
    suggestedTrials: 4_000_000,
  },
  {
    name: 'noisy-max-value',
    class: 'noisy-max',
    broken: true,
    summary: `report noisy max over ${D} queries with Laplace(2/ε) noise that returns the noisy maximum instead of its index (StatDP's ReportNoisyMax3)`,
    bug: `the value of the maximum is not protected by the argmax analysis: when every query rises by 1 the left tail of the maximum's density shifts by a factor e^(${D}ε/2)`,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => (D * c.epsilon) / 2,
    trueEpsilonMethod: `${CLOSED}: the density of the maximum in its left tail is Π_i ½e^((y−q_i)ε/2)`,
    make: (c) => mech(noisyMaxValue((rng) => snapped(laplaceNoise(rng, 2 / c.epsilon)))),
    pairs: queryPairs,
    suggestedTrials: 200_000,
  },
  {
    name: 'noisy-max-exponential-value',
    class: 'noisy-max',
    broken: true,
    summary: `report noisy max over ${D} queries with Exponential(2/ε) noise returning the noisy maximum (StatDP's ReportNoisyMax4)`,
    bug: 'one-sided noise: the maximum is never below max_i q_i, so when every query rises by 1 the values in [max q, max q + 1) become impossible: ε = ∞',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: () => Infinity,
    trueEpsilonMethod: 'support argument',
    make: (c) => mech(noisyMaxValue((rng) => snapped(exponentialNoise(rng, 2 / c.epsilon)))),
    pairs: queryPairs,
    suggestedTrials: 60_000,
    support: () => oneSidedMaxSupport,
  },
  {
    name: 'noisy-max-half-noise',
    class: 'noisy-max',
    broken: true,
    summary: `report noisy max (index) over ${D} queries with Laplace(1/ε), the scale for monotone counting queries, on queries that move in opposite directions`,
    bug: 'Laplace(1/ε) is enough only when all queries move the same way (counting queries); for general queries of sensitivity 1 report noisy max needs Laplace(2/ε)',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => argmaxEpsilon('laplace', 1 / c.epsilon),
    trueEpsilonMethod: NUMERIC,
    make: (c) => mech(noisyArgmax((rng) => laplaceNoise(rng, 1 / c.epsilon))),
    pairs: queryPairs,
    suggestedTrials: 200_000,
  },
  {
    name: 'sparse-vector-no-query-noise',
    class: 'sparse-vector',
    broken: true,
    summary: `sparse vector (c = 1) over ${D} queries that perturbs the threshold but adds no noise to the queries (Lyu et al.'s Alg. 5)`,
    bug: 'without query noise some answer patterns are possible on one input and impossible on its neighbour: ε = ∞',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => svtEpsilon({ ...svtAlg1(c.epsilon), bNu: 0 }, true),
    trueEpsilonMethod: NUMERIC,
    make: (c) => mech(sparseVector({ ...svtAlg1(c.epsilon), bNu: 0 }, { cutoff: true })),
    pairs: queryPairs,
    suggestedTrials: 30_000,
    support: () => noQueryNoiseSupport,
  },
  {
    name: 'sparse-vector-lee-clifton',
    class: 'sparse-vector',
    broken: true,
    summary: `sparse vector (c = 1) over ${D} queries with ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε)) (Lee & Clifton 2014; Lyu et al.'s Alg. 4)`,
    bug: 'the query noise ignores that a "below" answer on a query that moved down and an "above" on one that moved up both cost privacy: (1 + 6c)/4 · ε in general (Lyu et al., Thm 5)',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => svtEpsilon(svtAlg4(c.epsilon), true),
    trueEpsilonMethod: NUMERIC,
    make: (c) => mech(sparseVector(svtAlg4(c.epsilon), { cutoff: true })),
    pairs: queryPairs,
    suggestedTrials: 1_000_000,
  },
  {
    name: 'sparse-vector-no-cutoff',
    class: 'sparse-vector',
    broken: true,
    summary: `sparse vector over ${D} queries with ρ ~ Lap(2/ε), ν ~ Lap(2/ε) that keeps answering after the first "above" (Lyu et al.'s Alg. 6, Chen et al. 2015)`,
    bug: 'the privacy cost grows with the number of "above" answers; without the cutoff it is unbounded in the number of queries',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => svtEpsilon(svtAlg36(c.epsilon), false),
    trueEpsilonMethod: NUMERIC,
    make: (c) => mech(sparseVector(svtAlg36(c.epsilon), { cutoff: false })),
    pairs: queryPairs,
    suggestedTrials: 200_000,
  },
  {
    name: 'sparse-vector-noisy-value',
    class: 'sparse-vector',
    broken: true,
    summary: `sparse vector (c = 1) over ${D} queries with ρ ~ Lap(2/ε), ν ~ Lap(2/ε) that reports the noisy answer q_i + ν_i of the query above the threshold (Lyu et al.'s Alg. 3, Roth 2011)`,
    bug: 'the reported noisy answer reuses the noise that decided "above", so it reveals how far above the noisy threshold the query was',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => svtNoisyValueEpsilon(svtAlg36(c.epsilon)),
    trueEpsilonMethod: `${NUMERIC}; sup over the reported value on a grid 30 noise scales either side of the queries and threshold`,
    make: (c) => mech(sparseVector(svtAlg36(c.epsilon), { cutoff: true, noisyValue: true })),
    pairs: queryPairs,
    suggestedTrials: 1_000_000,
  },
  {
    name: 'exponential-mechanism-no-half',
    class: 'exponential-mechanism',
    broken: true,
    summary: `the exponential mechanism over ${D} candidates with P(i) ∝ exp(ε·u_i), the factor ½ forgotten`,
    bug: 'the normalising constant moves too when utilities change in opposite directions: the exponential mechanism needs exp(ε·u/(2Δu)) (McSherry & Talwar 2007)',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => emEpsilon(c.epsilon),
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(exponentialMechanism(c.epsilon)),
    pairs: queryPairs,
    suggestedTrials: 200_000,
  },
  {
    name: 'exponential-mechanism-value',
    class: 'exponential-mechanism',
    broken: true,
    summary: `the exponential mechanism over ${D} candidates by Gumbel-max that returns the winning noisy score with the index`,
    bug: 'the winning score is Gumbel with location ln Σ exp(ε·u_i/2), which moves by ε/2 when every utility rises; Gumbel location families have unbounded density ratios in the left tail: ε = ∞',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: () => Infinity,
    trueEpsilonMethod: `${CLOSED}: f(x − s)/f(x) = e^s·exp(−e^(−x)(e^s − 1)) → 0 as x → −∞`,
    make: (c) => mech(gumbelMax(c.epsilon / 2, true)),
    pairs: queryPairs,
    suggestedTrials: 200_000,
  },
  {
    name: 'histogram-inverted',
    class: 'histogram',
    broken: true,
    summary: `a histogram of ${COUNTS.length} counts with snapped Laplace(ε) noise instead of Laplace(1/ε) (StatDP's NoisyHist2)`,
    bug: 'the noise scale is inverted: Lap(ε) on a sensitivity-1 count gives ε′ = 1/ε, larger than ε whenever ε < 1',
    defaultClaim: { epsilon: 0.5, delta: 0 },
    trueEpsilon: (c) => 1 / c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(noisyCounts((rng) => snapped(laplaceNoise(rng, c.epsilon)))),
    pairs: () => histogramPairs(COUNTS, 'add-remove').slice(0, 2),
    suggestedTrials: 60_000,
  },
  {
    name: 'counts-replace-one',
    class: 'histogram',
    broken: true,
    summary: `counts of ${COUNTS.length} bins with snapped Laplace(1/ε) noise, calibrated for sensitivity 1, released under replace-one`,
    bug: 'replacing a record moves it between two bins, so the L1 sensitivity is 2 and the true ε is 2ε',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => 2 * c.epsilon,
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(noisyCounts((rng) => snapped(laplaceNoise(rng, 1 / c.epsilon)))),
    pairs: () => histogramPairs(COUNTS, 'replace-one').slice(0, 2),
    suggestedTrials: 100_000,
  },
  {
    name: 'rr-per-bit',
    class: 'randomized-response',
    broken: true,
    summary: `randomized response with ε per presence bit, reported as ε per document of ${BITS} bits`,
    bug: `a document changes up to ${BITS} bits, so per-document ε is ${BITS}× the per-bit ε`,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => rrEpsilon(c.epsilon),
    trueEpsilonMethod: CLOSED,
    make: (c) => mech(bitwiseRR(c.epsilon)),
    pairs: () => bitPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'prefix-sums-naive',
    class: 'prefix-sums',
    broken: true,
    summary: `prefix sums of ${D} records, each sum plus snapped Laplace(1/ε), under one-record change`,
    bug: `changing record i moves every prefix sum from i on: L1 sensitivity up to ${D}, so the true ε is ${D}ε`,
    defaultClaim: { epsilon: 1, delta: 0, relation: 'one-coordinate' },
    trueEpsilon: (c) => D * c.epsilon,
    trueEpsilonMethod: `${CLOSED}: Laplace with L1 shift ${D} on the pair that changes the first record`,
    make: (c) => mech((x: ReadonlyArray<number>, rng) => prefix(x).map((s) => s + snapped(laplaceNoise(rng, 1 / c.epsilon)))),
    pairs: recordPairs,
    suggestedTrials: 100_000,
  },
]

/**
 * Small claims (issue 23). The families the auditor found at ε = 1 but missed at ε = 0.1, where the
 * distinguishing region is small beside the noise's spread (noise scales 10–40 for a change of 1):
 * the same implementations, built and claimed at `SMALL` (ε = 0.1 for the pure ones). Their support
 * oracles are left out on purpose, so an audit of them measures the statistical selection alone, as
 * it would for a user's module. Published figures of DP-Sniper and StatDP at ε = 0.1 for these
 * families are in bench/audit-zoo.mjs.
 */
const SMALL = 0.1

const smallClaim = (name: string, summary?: string): ZooEntry => {
  const e = entries.find((x) => x.name === name)
  if (e === undefined) throw new Error(`zoo: no entry ${name}`)
  const { support: _support, ...rest } = e
  return {
    ...rest,
    name: `${name}-small-epsilon`,
    summary: summary ?? `${e.summary}, at ε = ${SMALL}`,
    defaultClaim: { ...e.defaultClaim, epsilon: SMALL },
    suggestedTrials: 1_000_000,
  }
}

const small: ReadonlyArray<ZooEntry> = [
  smallClaim('report-noisy-max'),
  smallClaim('report-noisy-max-exponential'),
  smallClaim('sparse-vector'),
  {
    name: 'sparse-vector-fresh-value-small-epsilon',
    class: 'sparse-vector',
    broken: false,
    summary: `sparse vector Alg. 1 (c = 1) over ${D} queries at ε/2, the first query above reported as q_k + fresh Laplace(2/ε) (the other ε/2), at ε = ${SMALL}`,
    bug: null,
    defaultClaim: { epsilon: SMALL, delta: 0 },
    trueEpsilon: (c) => choiceWithFreshValueEpsilon((q) => svtPatternProbabilities(q, svtAlg1(c.epsilon / 2), true), 2 / c.epsilon),
    trueEpsilonMethod: `${NUMERIC}: pattern log ratio plus the fresh Laplace value's |shift|/b`,
    make: (c) => mech(sparseVectorFreshValue(c.epsilon)),
    pairs: queryPairs,
    suggestedTrials: 1_000_000,
  },
  {
    name: 'report-noisy-max-fresh-value-small-epsilon',
    class: 'noisy-max',
    broken: false,
    summary: `report noisy max over ${D} queries with Laplace(4/ε) (ε/2), returning [index, q_index + fresh Laplace(2/ε)] (the other ε/2), at ε = ${SMALL}`,
    bug: null,
    defaultClaim: { epsilon: SMALL, delta: 0 },
    trueEpsilon: (c) => choiceWithFreshValueEpsilon((q) => argmaxProbabilities(q, 'laplace', 4 / c.epsilon), 2 / c.epsilon),
    trueEpsilonMethod: `${NUMERIC}: argmax log ratio plus the fresh Laplace value's |shift|/b`,
    make: (c) => mech(noisyMaxFreshValue(c.epsilon)),
    pairs: queryPairs,
    suggestedTrials: 1_000_000,
  },
  {
    name: 'laplace-clamped-small-epsilon',
    class: 'laplace',
    broken: false,
    summary: `a count plus snapped Laplace(1/ε), clamped to the public range [−${CLAMP}, ${CLAMP}], at ε = ${SMALL}`,
    bug: null,
    defaultClaim: { epsilon: SMALL, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    trueEpsilonMethod: `${CLOSED}: clamping is post-processing (≤ ε), and the masses at −${CLAMP} are ½e^(−${CLAMP}ε) and ½e^(−${CLAMP + 1}ε), ratio e^ε`,
    make: (c) => mech((x: number, rng) => Math.min(CLAMP, Math.max(-CLAMP, x + snapped(laplaceNoise(rng, 1 / c.epsilon))))),
    pairs: () => scalarPairs,
    suggestedTrials: 1_000_000,
  },
  smallClaim('noisy-max-value'),
  smallClaim('noisy-max-exponential-value'),
  smallClaim('sparse-vector-lee-clifton'),
  smallClaim('sparse-vector-no-cutoff'),
  smallClaim('sparse-vector-noisy-value'),
  smallClaim('sparse-vector-no-query-noise'),
]

const all = [...entries, ...small]

/** Every zoo entry, controls first. */
export const ZOO: ReadonlyArray<ZooEntry> = [...all.filter((e) => !e.broken), ...all.filter((e) => e.broken)]

export const ZOO_NAMES: ReadonlyArray<string> = ZOO.map((e) => e.name)

/** The entry with this name, or undefined. */
export const zooEntry = (name: string): ZooEntry | undefined => ZOO.find((e) => e.name === name)

/**
 * The entry with this name, with what its `make` and `trueEpsilon` need loaded (the analytic
 * Gaussian only for the entries that use it); how a worker thread rebuilds a zoo mechanism.
 */
export const prepareZooEntry = async (name: string): Promise<ZooEntry | undefined> => {
  const e = zooEntry(name)
  if (e?.analyticGaussian === true) await loadAnalyticGaussian()
  return e
}
