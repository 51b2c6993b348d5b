/**
 * The bug zoo: deliberately broken mechanisms next to correct controls, to test the auditor
 * itself. Each entry builds its mechanism from a claim (the ε the implementation says it
 * provides), names the neighbouring pairs to audit, and states its true ε on those pairs, so a test
 * can check that every broken entry is flagged and no control is.
 *
 * Entries are addressable by name (`zooEntry('histogram-inverted')`), which is how a worker
 * thread rebuilds a zoo mechanism from the compiled package.
 *
 * Sources for the bugs: StatDP (Ding et al., CCS 2018) and DP-Sniper (Bichsel et al., S&P 2021)
 * catalogue noisy max returning the value and sparse vector without query noise; Lyu, Su & Li
 * (VLDB 2017) give the correct sparse vector; the inverted histogram scale is StatDP's
 * "NoisyHist2"; the replace-one and per-bit randomized response bugs are the ones design/AUDITING.md
 * finds in published topic-model trainers.
 *
 * @module
 */
import { analyticGaussianNoiseMultiplier } from '../../accounting/analytic-gaussian.js'
import type { Claim } from '../claim.js'
import type { Mechanism } from '../output.js'
import { histogramPairs, type NeighbourPair, vectorPairs } from '../pairs.js'
import { bernoulli, gaussianNoise, laplaceNoise } from './noise.js'

export interface ZooEntry {
  readonly name: string
  /** True for the deliberately broken mechanisms. */
  readonly broken: boolean
  readonly summary: string
  /** What is wrong with it (null for controls). */
  readonly bug: string | null
  readonly defaultClaim: Claim
  /** The true ε over `pairs()` for a mechanism built for `claim` (at the claim's δ); may be ∞. */
  readonly trueEpsilon: (claim: Claim) => number
  /** The implementation, calibrated (correctly or not) for the claim. */
  readonly make: (claim: Claim) => Mechanism<never>
  readonly pairs: () => ReadonlyArray<NeighbourPair<unknown>>
  /**
   * Trials for a decisive audit at the default claim, at 99.9 % confidence: enough for the ceiling to
   * exceed the claim (controls) or to flag the bug with a margin (broken entries).
   */
  readonly suggestedTrials: number
}

/** Number of queries / bins / bits in the vector-input entries. */
const D = 5
const BITS = 4
const COUNTS = [5, 5, 5, 5]
const QUERIES = Array<number>(D).fill(1)

const scalarPairs: ReadonlyArray<NeighbourPair<unknown>> = [{ input: 0, neighbour: 1, label: 'count 0 vs 1' }]

const bitPairs: ReadonlyArray<NeighbourPair<unknown>> = [
  { input: Array<number>(BITS).fill(0), neighbour: Array<number>(BITS).fill(1), label: 'document replaced (every bit differs)' },
  { input: Array<number>(BITS).fill(0), neighbour: [1, ...Array<number>(BITS - 1).fill(0)], label: 'one bit differs' },
]

/** Adds independent Laplace(b) noise to every count. */
const noisyCounts =
  (b: number): Mechanism<ReadonlyArray<number>> =>
  (x, rng) => {
    const out = new Array<number>(x.length)
    for (let i = 0; i < x.length; i++) out[i] = (x[i] as number) + laplaceNoise(rng, b)
    return out
  }

/** Reports each bit truthfully with probability e^e/(1 + e^e), flips it otherwise (Warner 1965). */
const bitwiseRR =
  (perBitEpsilon: number): Mechanism<ReadonlyArray<number>> =>
  (x, rng) => {
    const keep = 1 / (1 + Math.exp(-perBitEpsilon))
    const out = new Array<number>(x.length)
    for (let i = 0; i < x.length; i++) out[i] = bernoulli(rng, keep) ? (x[i] as number) : 1 - (x[i] as number)
    return out
  }

/**
 * Sparse vector with c = 1 (Lyu, Su & Li 2017, Alg. 1): ρ ~ Lap(2/ε) on the threshold T,
 * ν_i ~ Lap(4/ε) on each query; answers 1 (above) and stops, else 0; -1 marks queries not reached.
 * With `queryNoise` false the ν_i are omitted (Lyu et al.'s Alg. 5 family): ε = ∞.
 */
const sparseVector =
  (epsilon: number, queryNoise: boolean, threshold = 1): Mechanism<ReadonlyArray<number>> =>
  (q, rng) => {
    const rho = laplaceNoise(rng, 2 / epsilon)
    const out = new Array<number>(q.length).fill(-1)
    for (let i = 0; i < q.length; i++) {
      const nu = queryNoise ? laplaceNoise(rng, 4 / epsilon) : 0
      if ((q[i] as number) + nu >= threshold + rho) {
        out[i] = 1
        break
      }
      out[i] = 0
    }
    return out
  }

/** argmax_i (q_i + Lap(2/ε)) (report noisy max; Dwork & Roth 2014, Claim 3.9, with the general-query scale). */
const noisyArgmax =
  (epsilon: number): Mechanism<ReadonlyArray<number>> =>
  (q, rng) => {
    let best = 0
    let bestValue = -Infinity
    for (let i = 0; i < q.length; i++) {
      const v = (q[i] as number) + laplaceNoise(rng, 2 / epsilon)
      if (v > bestValue) {
        bestValue = v
        best = i
      }
    }
    return best
  }

/** The bug: max_i (q_i + Lap(2/ε)) returns the noisy value, not the index. */
const noisyMaxValue =
  (epsilon: number): Mechanism<ReadonlyArray<number>> =>
  (q, rng) => {
    let bestValue = -Infinity
    for (let i = 0; i < q.length; i++) bestValue = Math.max(bestValue, (q[i] as number) + laplaceNoise(rng, 2 / epsilon))
    return bestValue
  }

const entries: ReadonlyArray<ZooEntry> = [
  // ------------------------------------------------------------------ correct controls
  {
    name: 'laplace',
    broken: false,
    summary: 'a count plus Laplace(1/ε) noise (Dwork, McSherry, Nissim & Smith 2006)',
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    make: (c) => ((x: number, rng) => x + laplaceNoise(rng, 1 / c.epsilon)) as Mechanism<never>,
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'gaussian',
    broken: false,
    summary: 'a count plus N(0, σ²) noise, σ from the analytic Gaussian calibration (Balle & Wang 2018)',
    bug: null,
    defaultClaim: { epsilon: 1, delta: 1e-5 },
    trueEpsilon: (c) => c.epsilon,
    make: (c) => {
      const sigma = analyticGaussianNoiseMultiplier(c.epsilon, c.delta > 0 ? c.delta : 1e-12)
      return ((x: number, rng) => x + gaussianNoise(rng, sigma)) as Mechanism<never>
    },
    pairs: () => scalarPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'randomized-response',
    broken: false,
    summary: `randomized response on a document's ${BITS} presence bits, ε/${BITS} per bit so ε per document`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    make: (c) => bitwiseRR(c.epsilon / BITS) as Mechanism<never>,
    pairs: () => bitPairs,
    suggestedTrials: 60_000,
  },
  {
    name: 'report-noisy-max',
    broken: false,
    summary: `the index of the largest of ${D} query answers plus Laplace(2/ε) noise`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    make: (c) => noisyArgmax(c.epsilon) as Mechanism<never>,
    pairs: () => vectorPairs(QUERIES),
    suggestedTrials: 60_000,
  },
  {
    name: 'sparse-vector',
    broken: false,
    summary: `sparse vector (c = 1) over ${D} queries, Laplace noise on the threshold and on every query (Lyu, Su & Li 2017, Alg. 1)`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    make: (c) => sparseVector(c.epsilon, true) as Mechanism<never>,
    pairs: () => vectorPairs(QUERIES),
    suggestedTrials: 60_000,
  },
  {
    name: 'histogram',
    broken: false,
    summary: `a histogram of ${COUNTS.length} counts, each plus Laplace(1/ε), under add/remove-one`,
    bug: null,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => c.epsilon,
    make: (c) => noisyCounts(1 / c.epsilon) as Mechanism<never>,
    pairs: () => histogramPairs(COUNTS, 'add-remove').slice(0, 2),
    suggestedTrials: 60_000,
  },
  // ------------------------------------------------------------------ broken
  {
    name: 'noisy-max-value',
    broken: true,
    summary: `report noisy max over ${D} queries with Laplace(2/ε) noise that returns the noisy maximum instead of its index`,
    bug: `the value of the maximum is not protected by the argmax analysis: when every query rises by 1 the left tail of the maximum's density shifts by a factor e^(${D}ε/2)`,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => (D * c.epsilon) / 2,
    make: (c) => noisyMaxValue(c.epsilon) as Mechanism<never>,
    pairs: () => vectorPairs(QUERIES),
    suggestedTrials: 200_000,
  },
  {
    name: 'sparse-vector-no-query-noise',
    broken: true,
    summary: `sparse vector (c = 1) over ${D} queries that perturbs the threshold but adds no noise to the queries`,
    bug: 'without query noise some answer patterns are possible on one input and impossible on its neighbour: ε = ∞',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: () => Infinity,
    make: (c) => sparseVector(c.epsilon, false) as Mechanism<never>,
    pairs: () => vectorPairs(QUERIES),
    suggestedTrials: 30_000,
  },
  {
    name: 'histogram-inverted',
    broken: true,
    summary: `a histogram of ${COUNTS.length} counts with Laplace(ε) noise instead of Laplace(1/ε)`,
    bug: 'the noise scale is inverted: Lap(ε) on a sensitivity-1 count gives ε′ = 1/ε, larger than ε whenever ε < 1',
    defaultClaim: { epsilon: 0.5, delta: 0 },
    trueEpsilon: (c) => 1 / c.epsilon,
    make: (c) => noisyCounts(c.epsilon) as Mechanism<never>,
    pairs: () => histogramPairs(COUNTS, 'add-remove').slice(0, 2),
    suggestedTrials: 60_000,
  },
  {
    name: 'counts-replace-one',
    broken: true,
    summary: `counts of ${COUNTS.length} bins with Laplace(1/ε) noise, calibrated for sensitivity 1, released under replace-one`,
    bug: 'replacing a record moves it between two bins, so the L1 sensitivity is 2 and the true ε is 2ε',
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => 2 * c.epsilon,
    make: (c) => noisyCounts(1 / c.epsilon) as Mechanism<never>,
    pairs: () => histogramPairs(COUNTS, 'replace-one').slice(0, 2),
    suggestedTrials: 100_000,
  },
  {
    name: 'rr-per-bit',
    broken: true,
    summary: `randomized response with ε per presence bit, reported as ε per document of ${BITS} bits`,
    bug: `a document changes up to ${BITS} bits, so per-document ε is ${BITS}× the per-bit ε`,
    defaultClaim: { epsilon: 1, delta: 0 },
    trueEpsilon: (c) => BITS * c.epsilon,
    make: (c) => bitwiseRR(c.epsilon) as Mechanism<never>,
    pairs: () => bitPairs,
    suggestedTrials: 60_000,
  },
]

/** Every zoo entry, controls first. */
export const ZOO: ReadonlyArray<ZooEntry> = entries

export const ZOO_NAMES: ReadonlyArray<string> = entries.map((e) => e.name)

/** The entry with this name, or undefined. */
export const zooEntry = (name: string): ZooEntry | undefined => entries.find((e) => e.name === name)
