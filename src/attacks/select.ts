/**
 * Attack search on selection samples. For each candidate pair and each applicable attack family,
 * a model is fitted on the first half of the pair's selection trials and the event (orientation
 * and threshold) is chosen on the second half; the best (pair, family, event) is then estimated
 * on fresh trials by the auditor. Choices made here affect power only, never validity: the final
 * bound uses none of these samples.
 *
 * The selection objective is ε̂ (Kairouz et al. 2015) at the Wilson upper bounds of both rates
 * (Wilson 1927) — a cheap stand-in for the Clopper–Pearson bound the estimate will use, which
 * likewise penalises events seen only a handful of times. Given the estimation sample size N
 * (`Projection`), it is instead the bound *expected at N*: the Wilson upper bounds at N of the
 * rates estimated on the tuning half (shrunk toward ½ by half a count, so an event never seen on
 * the tuning half is not assumed impossible). This is the criterion of DP-Opt (Lu et al. 2022) and
 * Delta-Siege (Lokna et al. 2023): the event that maximises the certified bound after estimation,
 * not the empirical ratio, which prefers events too rare for N trials to certify.
 *
 * @module
 */
import { createRequire } from 'node:module'
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'
import { epsilonFromRates, wilsonUpper } from './bounds.js'
import { SLOT, scratch } from './scratch.js'
import { ValueTable } from './value-table.js'
import { countBelow, nthOfMerged, sortedCopy, sortInPlace, valuesAtRanks } from './sorted.js'
import type { BoundForm } from './ratio-bound.js'
import type { OutputShape } from './output.js'
import { type AttackFamily, type AttackModel, type BinTable, type KeyTable, type Scorer, compileScorer, identity, countAtMost, edgeCounter, granularity, jointKey, patternKey } from './score.js'

/** Selection samples of one pair: outputs of both sides (side 0 = input D, side 1 = neighbour D′). */
export interface PairSamples {
  readonly shape: OutputShape
  /** Number of trials per side. */
  readonly n: readonly [number, number]
  /** Numbers/booleans (n) or vectors (n × dim) per side; empty for categories. */
  readonly values: readonly [Float64Array, Float64Array]
  /** Categories: codes into `categories` per side. */
  readonly codes: readonly [Int32Array, Int32Array]
  readonly categories: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------
// The selection budget rule (issue 23): it grows as the claim gets smaller.
//
// To see a violation of a claim ε the selection must tell a likelihood ratio of e^ε from 1 on the
// distinguishing event: the log ratio of counts k₀, k₁ has standard error ≈ √(1/k₀ + 1/k₁), so the
// counts needed grow as 1/ε², and at a fixed total the selection's share must grow as ε shrinks,
// or it picks its pair and event from noise (issue 23: at ε = 0.1, 12,500 outputs per pair and
// side; ε_LB 0.008–0.021 where the truth is 0.16–∞). The estimation needs ∝ 1/ε² too, which caps
// the share. Measured on the zoo's small-claim entries (bench/audit-zoo.mjs).

/** Selection share of the trials for claims ε ≥ 1 (dpaudit before issue 23), and its ceiling. */
const BASE_FRACTION = 0.2
const MAX_FRACTION = 0.35

/**
 * The share of the trials spent on selection for a claim ε: 0.2 at ε ≥ 1, growing as ε^(−1/4)
 * below, at most 0.35 (reached at ε ≈ 0.1). An explicit `selectionFraction` overrides it.
 */
export const selectionFraction = (claimEpsilon: number): number =>
  claimEpsilon >= 1 || !(claimEpsilon > 0) ? BASE_FRACTION : Math.min(MAX_FRACTION, BASE_FRACTION * claimEpsilon ** -0.25)

/**
 * Trials per pair and side that one successive-halving round adds (of `rounds`, with `alive`
 * pairs left) out of a selection budget. At claims ε ≥ 1 the rounds share half the budget and
 * deepening the winner gets the rest; below, the rounds get a growing share (all of it at
 * ε ≤ 0.5), since choosing the pair is what fails at small claims: the winner's event is
 * typically seen thousands of times already, so deepening rarely fires.
 */
export const halvingShare = (budget: number, rounds: number, alive: number, claimEpsilon: number): number => {
  const share = claimEpsilon >= 1 ? 0.5 : Math.min(1, 0.5 / Math.max(claimEpsilon, 0.5))
  return Math.floor((budget * share) / rounds / (2 * alive))
}

/**
 * The winner's sample keeps doubling (budget allowing) while the rarer count of its event on the
 * selection sample is below this: 50 at claims ε ≥ 0.8, else 32/ε², where the standard error of
 * the event's log ratio, ≈ √(2/k), is at most ε/4.
 */
export const resolutionCount = (claimEpsilon: number): number => Math.max(50, Math.ceil(32 / Math.max(claimEpsilon, 1e-3) ** 2))

/** The best event on a score: {orientation · score ≥ threshold}. */
export interface SweepResult {
  readonly objective: number
  readonly advantage: number
  readonly orientation: 1 | -1
  readonly threshold: number
}

/** The one-sided normal quantile for level a (upper bounds at confidence 1 − a). */
export const zFor = (a: number): number => normalQuantile(1 - a, 0, 1)

/**
 * Where the bound will be certified: N estimation trials per side at one-sided quantile z (each
 * rate of the rates bound), and, for pure claims, zRatio (the ratio bound's single interval).
 */
export interface Projection {
  readonly n: number
  readonly z: number
  readonly zRatio?: number
}

/**
 * The certified bound expected from N estimation trials per side for an event seen tp of n0 times
 * under the input and fp of n1 under the neighbour on tuning samples: ε̂ at Wilson upper bounds at
 * N of the tuning rates’ own 97.7 % upper bounds.
 */
const projectedRates = (tp: number, n0: number, fp: number, n1: number, delta: number, p: Projection): number => {
  const fpr = wilsonUpper(fp, n1, Z_TUNE)
  const fnr = wilsonUpper(n0 - tp, n0, Z_TUNE)
  return epsilonFromRates(wilsonUpper(fpr * p.n, p.n, p.z), wilsonUpper(fnr * p.n, p.n, p.z), delta)
}

/**
 * The ratio bound (bounds.ts `logRatioLowerBound`) expected at N trials per side for an event seen
 * k of n times on the numerator side and j of m on the other: the log ratio of the tuning rates
 * (each at its 97.7 % bound against the event) less zRatio standard errors of a log ratio
 * (the delta method: √((1−p)/(Np) + (1−q)/(Nq))).
 */
const projectedRatio = (k: number, n: number, j: number, m: number, zRatio: number, N: number): number => {
  if (Math.min(k, j) < RATIO_MIN_COUNT) return 0
  const p = 1 - wilsonUpper(n - k, n, Z_TUNE_RATIO)
  const q = wilsonUpper(j, m, Z_TUNE_RATIO)
  if (!(p > 0 && q > 0 && p > q)) return 0
  return Math.max(0, Math.log(p / q) - zRatio * Math.sqrt((1 - p) / (N * p) + (1 - q) / (N * q)))
}

/**
 * The ratio bound is projected only for events seen at least this often on both sides of the tuning
 * sample. It gains over the rates bound where both counts are large (a ratio near 1); where one is
 * small the rates bound does as well, and a ratio of small counts, maximised over thousands of
 * thresholds, is mostly luck (one run chose a tail seen 12 times against 0 on a pair whose true ε
 * is 0.05 and projected 0.28).
 */
const RATIO_MIN_COUNT = 50
/**
 * The ratio projection takes the tuning rates at one standard error against the event, not Z_TUNE's
 * two: the minimum count above already keeps lucky rare events out, and at z = 2 the penalty on
 * events seen ~10³ times (≈ 2·√(2/k) ≈ 0.09 in log ratio) hides ε = 0.1 violations from selection
 * (bench/audit-zoo.mjs: Lyu et al.'s Alg. 6 at ε = 0.1 certified at 0.105 with z = 2, 0.121 with z = 1).
 */
const Z_TUNE_RATIO = 1

/** The bound forms a claim at δ can use and what each is expected to certify (see `projectedBound`). */
const projections = (tp: number, n0: number, fp: number, n1: number, delta: number, p: Projection): ReadonlyArray<readonly [BoundForm, number]> => {
  const rates: readonly [BoundForm, number] = ['rates', projectedRates(tp, n0, fp, n1, delta, p)]
  if (delta > 0 || p.zRatio === undefined) return [rates]
  return [rates, ['ratio-in', projectedRatio(tp, n0, fp, n1, p.zRatio, p.n)], ['ratio-out', projectedRatio(n1 - fp, n1, n0 - tp, n0, p.zRatio, p.n)]]
}

/** The certified bound expected at the estimation size, under the best bound form for the claim. */
export const projectedBound = (tp: number, n0: number, fp: number, n1: number, delta: number, p: Projection): number => {
  let best = 0
  for (const [, v] of projections(tp, n0, fp, n1, delta, p)) if (v > best) best = v
  return best
}

/** The bound form `projectedBound` expects to certify most with (ties keep the rates bound). */
export const projectedForm = (tp: number, n0: number, fp: number, n1: number, delta: number, p: Projection): BoundForm => {
  let best: readonly [BoundForm, number] = ['rates', -1]
  for (const f of projections(tp, n0, fp, n1, delta, p)) if (f[1] > best[1] + 1e-12) best = f
  return best[0]
}

/**
 * What a sweep maximises over its thresholds, as a function of an event's counts (tp of n0 on side 0,
 * fp of n1 on side 1), and a bound on it over a block of events, so that a sweep can pass over blocks
 * that cannot matter (`sweepSorted`).
 */
export interface SweepObjective {
  /** The objective of the event with counts tp, fp (at least 0). */
  readonly at: (tp: number, fp: number) => number
  /**
   * At least the largest unclamped form (what `at` takes the larger of with 0) of every event with tp
   * in [tpA, tpB] and fp in [fpA, fpB]: each form grows with tp and falls with fp (Wilson bounds grow
   * with their count, ε̂ falls with both rates, and a variance term falls as its rate grows), so its
   * parts are taken at the corners that make it largest. −∞ where no form can be positive.
   */
  readonly upper: (tpA: number, tpB: number, fpA: number, fpB: number) => number
}

/** The two logs of ε̂ (bounds.ts `epsilonFromRates`) before it takes the larger with 0: NaN (a rate above 1 − δ) counts as −∞, a zero rate as +∞. */
const ratesUnclamped = (fpr: number, fnr: number, delta: number): number => {
  if (!(fpr > 0 && fnr > 0)) return Infinity
  const a = Math.log((1 - delta - fpr) / fnr)
  const b = Math.log((1 - delta - fnr) / fpr)
  return Math.max(a === a ? a : -Infinity, b === b ? b : -Infinity)
}

/**
 * The Wilson terms of a tp (see `projectedSweep`): rates' FNR term, ratio-in's p and its variance term,
 * ratio-out's q and its variance term, written to t.
 */
const tpTerms = (t: Float64Array, tp: number, n0: number, p: Projection): void => {
  const N = p.n
  t[0] = wilsonUpper(wilsonUpper(n0 - tp, n0, Z_TUNE) * N, N, p.z)
  // ratio-in's p and ratio-out's q are the same Wilson bound (computed once: the same number)
  const qOut = wilsonUpper(n0 - tp, n0, Z_TUNE_RATIO)
  const pIn = 1 - qOut
  t[1] = pIn
  t[2] = (1 - pIn) / (N * pIn)
  t[3] = qOut
  t[4] = (1 - qOut) / (N * qOut)
}

/** The mirror image for an fp: rates' FPR term, ratio-in's q and its variance term, ratio-out's p and its variance term. */
const fpTerms = (f: Float64Array, fp: number, n1: number, p: Projection): void => {
  const N = p.n
  f[0] = wilsonUpper(wilsonUpper(fp, n1, Z_TUNE) * N, N, p.z)
  const qIn = wilsonUpper(fp, n1, Z_TUNE_RATIO)
  const pOut = 1 - qIn
  f[1] = qIn
  f[2] = (1 - qIn) / (N * qIn)
  f[3] = pOut
  f[4] = (1 - pOut) / (N * pOut)
}

/**
 * `projectedBound(tp, n0, fp, n1, delta, p)` as a `SweepObjective` (issue 23: the sweep was most of
 * the longest fit job). Every Wilson bound in it depends on tp alone or on fp alone: a sweep's walk
 * asks for counts that only grow, so the terms of the last tp and of the last fp asked for are kept
 * and recomputed when that count changes, by the same expressions as in `projectedRates` and
 * `projectedRatio`; only the logs that join them are taken per threshold. `at` gives the same number
 * as `projectedBound` (test/attacks/sorted.test.ts checks it). It kept a table per count before (issue
 * 23, the fits' cold start): 8 MB a sweep of fresh memory, whose page faults cost a fresh worker more
 * than the sweep itself.
 */
export const projectedSweep = (n0: number, n1: number, delta: number, p: Projection): SweepObjective => {
  const ratio = !(delta > 0) && p.zRatio !== undefined
  const zRatio = p.zRatio ?? 0
  let tpAt = -1
  let fpAt = -1
  const T = new Float64Array(5)
  const F = new Float64Array(5)
  /** projectedRatio's value from its p, q and their variance terms (k, j: the counts it requires ≥ RATIO_MIN_COUNT). */
  const ratioOf = (k: number, j: number, pr: number, a: number, q: number, b: number): number => {
    if (Math.min(k, j) < RATIO_MIN_COUNT) return 0
    if (!(pr > 0 && q > 0 && pr > q)) return 0
    return Math.max(0, Math.log(pr / q) - zRatio * Math.sqrt(a + b))
  }
  const at = (tp: number, fp: number): number => {
    if (tp !== tpAt) {
      tpAt = tp
      tpTerms(T, tp, n0, p)
    }
    if (fp !== fpAt) {
      fpAt = fp
      fpTerms(F, fp, n1, p)
    }
    // projectedBound: the largest of the forms' values and 0, in the order of `projections`
    let best = 0
    const rates = epsilonFromRates(F[0] as number, T[0] as number, delta)
    if (rates > best) best = rates
    if (!ratio) return best
    const ratioIn = ratioOf(tp, fp, T[1] as number, T[2] as number, F[1] as number, F[2] as number)
    if (ratioIn > best) best = ratioIn
    const ratioOut = ratioOf(n1 - fp, n0 - tp, F[3] as number, F[4] as number, T[3] as number, T[4] as number)
    if (ratioOut > best) best = ratioOut
    return best
  }
  const TA = new Float64Array(5)
  const TB = new Float64Array(5)
  const FA = new Float64Array(5)
  const FB = new Float64Array(5)
  /** A ratio form's log p/q less its penalty, at the corners given; −∞ where p ≤ 0 (then every p of the block is). */
  const ratioUpper = (pr: number, q: number, a: number, b: number): number => (pr > 0 && q > 0 ? Math.log(pr / q) - zRatio * Math.sqrt(a + b) : -Infinity)
  const upper = (tpA: number, tpB: number, fpA: number, fpB: number): number => {
    tpTerms(TA, tpA, n0, p)
    tpTerms(TB, tpB, n0, p)
    fpTerms(FA, fpA, n1, p)
    fpTerms(FB, fpB, n1, p)
    // rates: the smallest FPR term (fpA) and FNR term (tpB)
    const rates = ratesUnclamped(FA[0] as number, TB[0] as number, delta)
    if (!ratio) return rates
    // ratio-in: p grows with tp, q with fp, both variance terms fall as their rate grows
    const ratioIn = ratioUpper(TB[1] as number, FA[1] as number, TB[2] as number, FB[2] as number)
    // ratio-out: p (1 − ratio-in's q) falls with fp, q (1 − ratio-in's p) falls with tp
    const ratioOut = ratioUpper(FA[3] as number, TB[3] as number, FA[4] as number, TA[4] as number)
    return Math.max(rates, ratioIn, ratioOut)
  }
  return { at, upper }
}

/** `projectedSweep`'s value as a plain function of the counts. */
export const projectedObjective = (n0: number, n1: number, delta: number, p: Projection): ((tp: number, fp: number) => number) => projectedSweep(n0, n1, delta, p).at

/**
 * ε̂ at the Wilson upper bounds of the tuning rates themselves (a sweep without a projection), as a
 * `SweepObjective`: wilsonUpper(fp, n1, z) and wilsonUpper(n0 − tp, n0, z) of the last counts kept.
 */
const tuningSweep = (n0: number, n1: number, delta: number, z: number): SweepObjective => {
  let tpAt = -1
  let fpAt = -1
  let fnr = 0
  let fpr = 0
  return {
    at: (tp, fp) => {
      if (tp !== tpAt) {
        tpAt = tp
        fnr = wilsonUpper(n0 - tp, n0, z)
      }
      if (fp !== fpAt) {
        fpAt = fp
        fpr = wilsonUpper(fp, n1, z)
      }
      return epsilonFromRates(fpr, fnr, delta)
    },
    upper: (_tpA, tpB, fpA) => ratesUnclamped(wilsonUpper(fpA, n1, z), wilsonUpper(n0 - tpB, n0, z), delta),
  }
}

/**
 * The tuning rates enter the projection at their one-sided 97.7 % Wilson upper bounds (z = 2): among
 * thousands of thresholds the one whose rare count came out lowest by chance would otherwise win
 * (the winner's curse), and a count of 0 would be taken for an impossible event.
 */
const Z_TUNE = 2

const better = (a: SweepResult, b: SweepResult | null): boolean =>
  b === null || a.objective > b.objective + 1e-12 || (Math.abs(a.objective - b.objective) <= 1e-12 && a.advantage > b.advantage + 1e-12)

/**
 * A sorted copy with NaN (which fitted models never produce) mapped below every threshold: what
 * `sweepSorted` takes. `slot`: the copy is made in that slot of the thread's working memory
 * (scratch.ts), for a caller that keeps nothing of it.
 */
export const sweepOrder = (s: Float64Array, slot?: number): Float64Array => {
  const out = slot === undefined ? new Float64Array(s.length) : scratch(slot, s.length)
  for (let i = 0; i < s.length; i++) {
    const x = s[i] as number
    out[i] = x === x ? x : -Infinity
  }
  return sortInPlace(out)
}

/**
 * Best event {σ·s ≥ t} separating scores s0 (side 0) from s1 (side 1), over both orientations and
 * every distinct threshold. One sort per side, then a linear walk per orientation (`walk`), which
 * evaluates the objective only in blocks of thresholds that can change the event.
 */
export const sweep = (s0: Float64Array, s1: Float64Array, delta: number, z: number, projection?: Projection): SweepResult =>
  sweepSorted(sweepOrder(s0, SLOT.up0), sweepOrder(s1, SLOT.up1), delta, z, projection)

/**
 * `sweep` on both sides' scores in `sweepOrder` (up0, up1), which a caller may share with other steps.
 * `only`: that orientation alone; `sweepSorted` of both is `betterOrientation` of the two.
 */
export const sweepSorted = (up0: Float64Array, up1: Float64Array, delta: number, z: number, projection?: Projection, only?: 1 | -1): SweepResult => {
  const n0 = up0.length
  const n1 = up1.length
  const objective = projection === undefined ? tuningSweep(n0, n1, delta, z) : projectedSweep(n0, n1, delta, projection)
  let best: SweepResult | null = null
  for (const sigma of only === undefined ? ([1, -1] as const) : [only]) {
    const r = walk(up0, up1, sigma, objective)
    if (n0 + n1 > 0 && better(r, best)) best = r
  }
  return best ?? { objective: 0, advantage: 0, orientation: 1, threshold: Infinity }
}

/** −∞ as a constant: a literal −Infinity in `walk` is a unary minus whose feedback only its last blocks gather. */
const NEG_INF = -Infinity

/** Thresholds a walk takes in one block (`walk`). */
const BLOCK = 32
/** How far the bound of a block must clear the best so far for the block to be passed over (the bound's rounding is ~10⁻¹⁵). */
const BOUND_MARGIN = 1e-9
const blockT = new Float64Array(BLOCK)
const blockTp = new Int32Array(BLOCK)
const blockFp = new Int32Array(BLOCK)

/**
 * One orientation's walk of `sweepSorted`: every distinct threshold from the largest score down (the
 * event {σ·x ≥ t} grows), keeping the first event of the largest objective (or, within 10⁻¹², of
 * larger advantage). Ascending σ·x of each side is up itself for σ = 1, for σ = −1 up negated and
 * reversed, read in place (the i-th of n is −up[n − 1 − i]; −1 · x is −x exactly).
 *
 * Thresholds go in blocks of BLOCK, and a block's counts bound its objectives (`SweepObjective.upper`):
 * a block whose bound is below the best so far (by BOUND_MARGIN) cannot change it, and is passed over;
 * one whose forms are all below 0 has objective 0 at every threshold, and only its advantages are
 * compared. Every other threshold is evaluated and compared as before, in the same order, so the walk
 * keeps the same event (issue 23: the objective's logs at each of ~2·10⁵ thresholds were most of the
 * longest fit job).
 */
const walk = (up0: Float64Array, up1: Float64Array, sigma: 1 | -1, objective: SweepObjective): SweepResult => {
  const n0 = up0.length
  const n1 = up1.length
  const last0 = sigma === 1 ? 0 : n0 - 1
  const last1 = sigma === 1 ? 0 : n1 - 1
  let bestObjective = -1
  let bestAdvantage = -Infinity
  let bestT = Infinity
  let i = n0 - 1
  let j = n1 - 1
  while (i >= 0 || j >= 0) {
    let m = 0
    for (; m < BLOCK && (i >= 0 || j >= 0); m++) {
      const ai = i >= 0 ? sigma * (up0[last0 + sigma * i] as number) : NEG_INF
      const bj = j >= 0 ? sigma * (up1[last1 + sigma * j] as number) : NEG_INF
      const t = ai > bj ? ai : bj
      while (i >= 0 && sigma * (up0[last0 + sigma * i] as number) >= t) i--
      while (j >= 0 && sigma * (up1[last1 + sigma * j] as number) >= t) j--
      blockT[m] = t
      blockTp[m] = n0 - 1 - i
      blockFp[m] = n1 - 1 - j
    }
    const bound = objective.upper(blockTp[0] as number, blockTp[m - 1] as number, blockFp[0] as number, blockFp[m - 1] as number)
    const zero = bound < -BOUND_MARGIN
    if (!zero && Math.max(0, bound) + BOUND_MARGIN < bestObjective - 1e-12) continue
    for (let k = 0; k < m; k++) {
      const tp = blockTp[k] as number
      const fp = blockFp[k] as number
      const o = zero ? 0 : objective.at(tp, fp)
      const advantage = tp / n0 - fp / n1
      if (o > bestObjective + 1e-12 || (Math.abs(o - bestObjective) <= 1e-12 && advantage > bestAdvantage + 1e-12)) {
        bestObjective = o
        bestAdvantage = advantage
        bestT = blockT[k] as number
      }
    }
  }
  return { objective: Math.max(0, bestObjective), advantage: bestAdvantage, orientation: sigma, threshold: bestT }
}

/**
 * V8's feedback for `walk`, gathered once as the module loads, on six scores: both orientations, both
 * objectives (the tuning sweep and the projected one, with and without a ratio form) and the walk's end,
 * where one side has run out (NEG_INF). A thread otherwise optimised `walk` on the stack of its first
 * long walk, knowing only what it had seen, and deoptimised and recompiled it at each path it met later;
 * in a process that runs audit after audit (a zoo, the benches' rounds) the fits took 284–311 ms a
 * 10⁷-trial Laplace audit on 1 worker against 230–235 ms with the feedback there, 189–193 against
 * 154–162 ms on 2 (medians of four audits a process, processes interleaved; a process's first audit
 * 219–267 against 210–234 ms on 1 worker). Nothing is kept: a sweep's result depends only on its arguments.
 */
const primeWalk = (): void => {
  const up0 = Float64Array.of(0, 1, 2, 3, 4, 5)
  const up1 = Float64Array.of(0.5, 1.5, 2.5)
  sweepSorted(up0, up1, 0, 1)
  sweepSorted(up0, up1, 0, 1, { n: 100, z: 1, zRatio: 1 })
  sweepSorted(up0, up1, 1e-5, 1, { n: 100, z: 1 })
}
primeWalk()

/**
 * Which of the two orientations' sweeps (`sweepSorted` with `only` 1 and −1, or events built on them)
 * `sweepSorted` over both would return: the same one, by the same comparison in the same order.
 */
export const betterOrientation = <T extends { readonly result: SweepResult }>(plus: T, minus: T): T => (better(minus.result, plus.result) ? minus : plus)

// ---------------------------------------------------------------------------------------------
// Model fitting on the fit half.

const HIST_EXACT_MAX = 64
const BITS_EXACT_MAX = 2200
const HIST_BINS = 32
const NB_EXACT_MAX = 16
const NB_BINS = 16
const PATTERN_MAX = 1024
const LOGISTIC_MAX_DIM = 32
const LOGISTIC_MAX_PER_SIDE = 20000
const COORDINATE_FULL_MAX = 64
const COORDINATE_SHORTLIST = 32

/** Log-likelihood ratio of a bin with counts c0, c1 out of n0, n1 over B bins, add-½ smoothed. */
const binScore = (c0: number, c1: number, n0: number, n1: number, bins: number): number =>
  Math.log((c0 + 0.5) / (n0 + bins / 2)) - Math.log((c1 + 0.5) / (n1 + bins / 2))

/** Tail levels at which extra bin edges go, on both ends, when the sample has ≥ TAIL_MIN points beyond them. */
const TAIL_LEVELS = [3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5]
const TAIL_MIN = 25

/**
 * Interior bin edges for a sorted pooled sample: nBins equal-mass quantiles, plus quantiles at the
 * tail levels 3·10⁻² … 10⁻⁵ on both ends where at least TAIL_MIN points lie beyond them. The
 * likelihood ratio of a Gaussian or Laplace shift is most extreme in the tails, where equal-mass
 * bins are coarsest; adaptive tail edges let the binned score see it (issue 12: "coarse tails").
 */
export const adaptiveEdges = (pooled: Float64Array, nBins: number): number[] => edgesAt(edgeRanks(pooled.length, nBins), (r) => pooled[r] as number)

/**
 * `adaptiveEdges` of the pool in any order: the same edges from its order statistics at the edges'
 * ranks (sorted.ts `valuesAtRanks`, a selection rather than a sort of the 2·10⁵ pooled outputs: issue
 * 23, the histogram family's fits).
 */
export const adaptiveEdgesOf = (pool: Float64Array, nBins: number): number[] => {
  const ranks = edgeRanks(pool.length, nBins)
  const values = valuesAtRanks(pool, ranks)
  return edgesAt(ranks, (_r, k) => values[k] as number)
}

/** The ranks in the sorted pool of N values at which `adaptiveEdges` reads its edges (ascending). */
const edgeRanks = (N: number, nBins: number): number[] => {
  const ps: number[] = []
  for (let k = 1; k < nBins; k++) ps.push(k / nBins)
  for (const q of TAIL_LEVELS) if (q * N >= TAIL_MIN) ps.push(q, 1 - q)
  ps.sort((a, b) => a - b)
  return ps.map((p) => Math.min(N - 1, Math.floor(p * N)))
}

/** The edges: the values at the ranks (the k-th read by `at(rank, k)`), each kept if above the last kept. */
const edgesAt = (ranks: ReadonlyArray<number>, at: (rank: number, k: number) => number): number[] => {
  const edges: number[] = []
  ranks.forEach((r, k) => {
    const e = at(r, k)
    if (edges.length === 0 || e > (edges[edges.length - 1] as number)) edges.push(e)
  })
  return edges
}

/**
 * Bins for a sample of numbers: exact values if few distinct, else pooled quantile edges (adaptive in
 * the tails). Each pass over the outputs is a function of its own (V8 compiles a loop once it has run;
 * a function whose later loops had not yet run when it was compiled went back to the interpreter at
 * each: issue 23, the fits' cold start), and the pool for the edges is the thread's working memory.
 */
const binTable = (x0: Float64Array, x1: Float64Array, exactMax: number, nBins: number): BinTable => {
  const n0 = x0.length
  const n1 = x1.length
  const bins = exactBins(x0, x1, exactMax)
  if (bins !== null) {
    const { exact, c0, c1 } = bins
    const B = exact.length + 1
    return {
      exact,
      edges: null,
      scores: exact.map((_, i) => binScore(c0[i] as number, c1[i] as number, n0, n1, B)),
      other: binScore(0, 0, n0, n1, B),
    }
  }
  const pooled = scratch(SLOT.pooled, n0 + n1)
  pooled.set(x0)
  pooled.set(x1, n0)
  // the pool is this fit's own: sorted in place (radix passes) rather than selected from, which was
  // slower (quickselect: a pass over the pool per level, for ~47 ranks) and the same edges
  const edges = adaptiveEdges(sortInPlace(pooled), nBins)
  const B = edges.length + 1
  const c0 = new Float64Array(B)
  const c1 = new Float64Array(B)
  const bin = edgeCounter(Float64Array.from(edges))
  countBins(x0, bin, c0)
  countBins(x1, bin, c1)
  return { exact: null, edges, scores: Array.from(c0, (c, k) => binScore(c, c1[k] as number, n0, n1, B)), other: 0 }
}

/** The exact bins' values, ascending, and each side's count per value. */
export interface ExactBins {
  readonly exact: number[]
  readonly c0: Float64Array
  readonly c1: Float64Array
}

/** The exact bins' table (value-table.ts), room for the most values any family bins exactly. */
const exactTable = new ValueTable(BITS_EXACT_MAX + 1)

/**
 * Exact bins of both sides' values (−0 as +0), or null when they take more than exactMax values: by a
 * table of typed arrays (issue 23: a Set's add and a Map's get per output were a fifth of the bits
 * family's fit); with NaN among them, or more values than the table holds, by the Set and Map as
 * before (`exactBinsByMap`: where NaN falls among the sorted values is the sort's).
 */
export const exactBins = (x0: Float64Array, x1: Float64Array, exactMax: number): ExactBins | null => {
  if (exactMax >= exactTable.limit) return exactBinsByMap(x0, x1, exactMax)
  exactTable.clear()
  if (!addValues(x0, exactMax) || !addValues(x1, exactMax)) return exactBinsByMap(x0, x1, exactMax)
  if (exactTable.size > exactMax) return null
  const exact = Array.from(exactTable.values.slice(0, exactTable.size).sort())
  // each value's bin: its rank among them
  exact.forEach((v, k) => (exactTable.tally[exactTable.indexOf(v)] = k))
  const c0 = new Float64Array(exact.length)
  const c1 = new Float64Array(exact.length)
  countByTable(x0, c0)
  countByTable(x1, c1)
  return { exact, c0, c1 }
}

/** Adds xs's values to `exactTable` until it holds more than `max`; false at a NaN. */
const addValues = (xs: Float64Array, max: number): boolean => {
  for (let i = 0; i < xs.length && exactTable.size <= max; i++) {
    const x = xs[i] as number
    if (x !== x) return false
    exactTable.indexOf(x)
  }
  return true
}

/** Counts each value of xs in its exact bin (its tally in `exactTable`). */
const countByTable = (xs: Float64Array, c: Float64Array): void => {
  for (let i = 0; i < xs.length; i++) c[exactTable.tally[exactTable.indexOf(xs[i] as number)] as number]! += 1
}

/** `exactBins` by a Set of the values and a Map to their bins. */
export const exactBinsByMap = (x0: Float64Array, x1: Float64Array, exactMax: number): ExactBins | null => {
  const distinct = new Set<number>()
  addDistinct(x0, distinct, exactMax)
  addDistinct(x1, distinct, exactMax)
  if (distinct.size > exactMax) return null
  const exact = [...distinct].sort((p, q) => p - q)
  const idx = new Map(exact.map((v, i) => [v, i] as const))
  const c0 = new Float64Array(exact.length)
  const c1 = new Float64Array(exact.length)
  countExact(x0, idx, c0)
  countExact(x1, idx, c1)
  return { exact, c0, c1 }
}

/** Adds xs's values to `distinct` until it holds more than `max`. */
const addDistinct = (xs: Float64Array, distinct: Set<number>, max: number): void => {
  for (let i = 0; i < xs.length && distinct.size <= max; i++) distinct.add(xs[i] as number)
}

/** Counts each value of xs in its exact value's bin. */
const countExact = (xs: Float64Array, idx: ReadonlyMap<number, number>, c: Float64Array): void => {
  for (let i = 0; i < xs.length; i++) c[idx.get(xs[i] as number) as number]! += 1
}

/** Counts each value of xs in its bin. */
const countBins = (xs: Float64Array, bin: (x: number) => number, c: Float64Array): void => {
  for (let i = 0; i < xs.length; i++) c[bin(xs[i] as number)]! += 1
}

const keyTable = (k0: ReadonlyArray<string>, k1: ReadonlyArray<string>): KeyTable => {
  const count = new Map<string, [number, number]>()
  for (const k of k0) {
    const c = count.get(k)
    if (c === undefined) count.set(k, [1, 0])
    else c[0]++
  }
  for (const k of k1) {
    const c = count.get(k)
    if (c === undefined) count.set(k, [0, 1])
    else c[1]++
  }
  const keys = [...count.keys()].sort()
  const B = keys.length + 1
  return {
    keys,
    scores: keys.map((k) => {
      const [c0, c1] = count.get(k) as [number, number]
      return binScore(c0, c1, k0.length, k1.length, B)
    }),
    other: binScore(0, 0, k0.length, k1.length, B),
  }
}

/** Column j of a row-major n × d matrix, in the given slot of the thread's working memory (scratch.ts). */
const column = (v: Float64Array, n: number, d: number, j: number, slot: number): Float64Array => {
  const out = scratch(slot, n)
  for (let i = 0; i < n; i++) out[i] = v[i * d + j] as number
  return out
}

/** Cholesky solve of the symmetric positive-definite system H x = g (H row-major, size m); null if not PD. */
const choleskySolve = (H: Float64Array, g: Float64Array, m: number): Float64Array | null => {
  const L = new Float64Array(m * m)
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= i; j++) {
      let s = H[i * m + j] as number
      for (let k = 0; k < j; k++) s -= (L[i * m + k] as number) * (L[j * m + k] as number)
      if (i === j) {
        if (!(s > 0)) return null
        L[i * m + i] = Math.sqrt(s)
      } else L[i * m + j] = s / (L[j * m + j] as number)
    }
  }
  const y = new Float64Array(m)
  for (let i = 0; i < m; i++) {
    let s = g[i] as number
    for (let k = 0; k < i; k++) s -= (L[i * m + k] as number) * (y[k] as number)
    y[i] = s / (L[i * m + i] as number)
  }
  const x = new Float64Array(m)
  for (let i = m - 1; i >= 0; i--) {
    let s = y[i] as number
    for (let k = i + 1; k < m; k++) s -= (L[k * m + i] as number) * (x[k] as number)
    x[i] = s / (L[i * m + i] as number)
  }
  return x
}

/**
 * Ridge-penalised logistic regression by Newton–Raphson (IRLS): label 1 for side 0. Features are
 * standardised with the pooled mean and standard deviation; λ = 1 on the weights, not the bias.
 */
const fitLogistic = (v0: Float64Array, n0: number, v1: Float64Array, n1: number, d: number): AttackModel => {
  const m0 = Math.min(n0, LOGISTIC_MAX_PER_SIDE)
  const m1 = Math.min(n1, LOGISTIC_MAX_PER_SIDE)
  const N = m0 + m1
  const mean = new Float64Array(d)
  const sq = new Float64Array(d)
  for (const [v, m] of [[v0, m0], [v1, m1]] as const)
    for (let i = 0; i < m; i++)
      for (let j = 0; j < d; j++) {
        const x = v[i * d + j] as number
        mean[j]! += x
        sq[j]! += x * x
      }
  const scale = new Float64Array(d)
  for (let j = 0; j < d; j++) {
    mean[j] = (mean[j] as number) / N
    const variance = (sq[j] as number) / N - (mean[j] as number) ** 2
    scale[j] = variance > 1e-24 ? Math.sqrt(variance) : 1
  }
  const m = d + 1
  // the design matrix and labels, in working memory (every entry written below)
  const X = scratch(SLOT.design, N * m)
  const t = scratch(SLOT.labels, N)
  let r = 0
  for (const [v, cnt, label] of [[v0, m0, 1], [v1, m1, 0]] as const)
    for (let i = 0; i < cnt; i++, r++) {
      X[r * m] = 1
      for (let j = 0; j < d; j++) X[r * m + 1 + j] = ((v[i * d + j] as number) - (mean[j] as number)) / (scale[j] as number)
      t[r] = label
    }
  const lambda = 1
  const beta = new Float64Array(m)
  const H = new Float64Array(m * m)
  const g = new Float64Array(m)
  for (let iter = 0; iter < 25; iter++) {
    H.fill(0)
    g.fill(0)
    for (let i = 0; i < N; i++) {
      let z = 0
      for (let k = 0; k < m; k++) z += (X[i * m + k] as number) * (beta[k] as number)
      const p = z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z))
      const w = p * (1 - p)
      const res = (t[i] as number) - p
      for (let k = 0; k < m; k++) {
        const xk = X[i * m + k] as number
        g[k]! += xk * res
        for (let l = 0; l <= k; l++) H[k * m + l]! += w * xk * (X[i * m + l] as number)
      }
    }
    for (let k = 0; k < m; k++) for (let l = 0; l < k; l++) H[l * m + k] = H[k * m + l] as number
    H[0]! += 1e-9
    for (let k = 1; k < m; k++) {
      H[k * m + k]! += lambda
      g[k]! -= lambda * (beta[k] as number)
    }
    const step = choleskySolve(H, g, m)
    if (step === null) break
    let maxStep = 0
    for (let k = 0; k < m; k++) {
      beta[k]! += step[k] as number
      maxStep = Math.max(maxStep, Math.abs(step[k] as number))
    }
    if (maxStep < 1e-7) break
  }
  return { family: 'logistic', mean: [...mean], scale: [...scale], weights: [...beta.subarray(1)], bias: beta[0] as number }
}

/** Fits one family on the fit half; null when the family does not apply to these outputs. */
export const fitFamily = (
  family: AttackFamily,
  fit: PairSamples,
  delta: number,
  z: number,
): AttackModel | null => {
  const { shape } = fit
  const [n0, n1] = fit.n
  const scalar = shape.kind === 'number' || shape.kind === 'boolean'
  switch (family) {
    case 'threshold':
      return scalar ? { family: 'threshold' } : null
    case 'histogram':
      if (scalar) return { family: 'histogram', bins: binTable(fit.values[0], fit.values[1], HIST_EXACT_MAX, HIST_BINS) }
      if (shape.kind === 'category') {
        const keys = (c: Int32Array): string[] => Array.from(c, (k) => fit.categories[k] as string)
        return { family: 'histogram', keys: keyTable(keys(fit.codes[0]), keys(fit.codes[1])) }
      }
      return null
    case 'coordinate': {
      if (shape.kind !== 'vector') return null
      const d = shape.dim
      let candidates = [...Array(d).keys()]
      if (d > COORDINATE_FULL_MAX) {
        // Shortlist by standardised mean difference and by log variance ratio, then sweep those.
        const stat = candidates.map((j) => {
          const a = column(fit.values[0], n0, d, j, SLOT.column0)
          const b = column(fit.values[1], n1, d, j, SLOT.column1)
          const mv = (x: Float64Array): [number, number] => {
            let s = 0
            let s2 = 0
            for (const y of x) {
              s += y
              s2 += y * y
            }
            const mu = s / x.length
            return [mu, Math.max(s2 / x.length - mu * mu, 1e-24)]
          }
          const [ma, va] = mv(a)
          const [mb, vb] = mv(b)
          return { j, diff: Math.abs(ma - mb) / Math.sqrt((va + vb) / 2), ratio: Math.abs(Math.log(va / vb)) }
        })
        const byDiff = [...stat].sort((p, q) => q.diff - p.diff || p.j - q.j).slice(0, COORDINATE_SHORTLIST / 2)
        const byRatio = [...stat].sort((p, q) => q.ratio - p.ratio || p.j - q.j).slice(0, COORDINATE_SHORTLIST / 2)
        candidates = [...new Set([...byDiff, ...byRatio].map((s) => s.j))].sort((p, q) => p - q)
      }
      let best: { j: number; r: SweepResult } | null = null
      for (const j of candidates) {
        const r = sweep(column(fit.values[0], n0, d, j, SLOT.column0), column(fit.values[1], n1, d, j, SLOT.column1), delta, z)
        if (best === null || better(r, best.r)) best = { j, r }
      }
      return best === null ? null : { family: 'coordinate', index: best.j }
    }
    case 'naive-bayes': {
      if (shape.kind !== 'vector') return null
      const d = shape.dim
      const tables: BinTable[] = []
      for (let j = 0; j < d; j++)
        tables.push(binTable(column(fit.values[0], n0, d, j, SLOT.column0), column(fit.values[1], n1, d, j, SLOT.column1), NB_EXACT_MAX, NB_BINS))
      return { family: 'naive-bayes', tables }
    }
    case 'pattern': {
      if (shape.kind !== 'vector') return null
      const d = shape.dim
      const keys: [string[], string[]] = [[], []]
      const seen = new Set<string>()
      for (const side of [0, 1] as const) {
        const v = fit.values[side]
        for (let i = 0; i < fit.n[side]; i++) {
          const k = patternKey(v, i * d, d)
          seen.add(k)
          if (seen.size > PATTERN_MAX) return null
          keys[side].push(k)
        }
      }
      return { family: 'pattern', keys: keyTable(keys[0], keys[1]) }
    }
    case 'logistic':
      if (shape.kind !== 'vector' || shape.dim > LOGISTIC_MAX_DIM) return null
      return fitLogistic(fit.values[0], n0, fit.values[1], n1, shape.dim)
    case 'bits': {
      if (shape.kind !== 'number') return null
      const g0 = granularities(fit.values[0], SLOT.gran0)
      const g1 = granularities(fit.values[1], SLOT.gran1)
      return { family: 'bits', bins: binTable(g0, g1, BITS_EXACT_MAX, HIST_BINS) }
    }
    case 'joint':
      return shape.kind === 'vector' ? fitJoint(fit) : null
  }
}


/** The granularity of each value, in a loop (`Float64Array.from` with a map function is V8's slow generic path). */
const granularities = (v: Float64Array, slot: number): Float64Array => {
  const out = scratch(slot, v.length)
  for (let i = 0; i < v.length; i++) out[i] = granularity(v[i] as number)
  return out
}
/** A value recurs if it makes up at least this share of all entries. */
const JOINT_RECUR = 0.005
const JOINT_MAX_KEYS = 256
const JOINT_BINS = 8
/** Fine bins per pattern before the monotone merge, each with about JOINT_FINE_MIN outputs. */
const JOINT_FINE_BINS = 64
const JOINT_FINE_MIN = 40

/**
 * The joint (pattern × continuous) model: values making up ≥ 0.5 % of all entries are symbols,
 * the rest continuous; each pattern of symbols gets its own bins on the sum of its continuous
 * entries (equal-mass, adaptive in the tails). Null when the outputs are all symbols (the pattern
 * family covers them) or all continuous, or the patterns are too many.
 */
const fitJoint = (fit: PairSamples): AttackModel | null => {
  const d = fit.shape.dim
  const { discrete, recurring, total } = jointSymbols(fit.values[0], fit.values[1])
  if (discrete.length === 0 || discrete.length > 16 || recurring === total) return null
  const set = new Set(discrete)
  const byKey = new Map<string, [number[], number[]]>()
  for (const side of [0, 1] as const) {
    const v = fit.values[side]
    for (let i = 0; i < fit.n[side]; i++) {
      const { key, sum } = jointKey(v, i * d, d, set)
      let cell = byKey.get(key)
      if (cell === undefined) {
        if (byKey.size >= JOINT_MAX_KEYS) return null
        cell = [[], []]
        byKey.set(key, cell)
      }
      cell[side].push(sum)
    }
  }
  const keys = [...byKey.keys()].sort()
  const [n0, n1] = fit.n
  const edgesOf: number[][] = []
  const cells: Array<[Float64Array, Float64Array]> = []
  let B = 1
  for (const k of keys) {
    const [a, b] = byKey.get(k) as [number[], number[]]
    const continuous = k.includes('*')
    const pooled = Float64Array.from([...a, ...b]).sort()
    const fine = continuous && pooled.length > 1 ? equalMassEdges(pooled, Math.max(JOINT_BINS, Math.min(JOINT_FINE_BINS, Math.floor(pooled.length / JOINT_FINE_MIN)))) : []
    const e = Float64Array.from(fine)
    const f0 = new Float64Array(fine.length + 1)
    const f1 = new Float64Array(fine.length + 1)
    for (const x of a) f0[countAtMost(e, x)]! += 1
    for (const x of b) f1[countAtMost(e, x)]! += 1
    const { edges, c0, c1 } = monotoneCells(fine, f0, f1)
    edgesOf.push(edges)
    cells.push([c0, c1])
    B += edges.length + 1
  }
  return {
    family: 'joint',
    discrete,
    keys,
    edges: edgesOf,
    scores: cells.map(([c0, c1]) => Array.from(c0, (c, i) => binScore(c, c1[i] as number, n0, n1, B))),
    other: binScore(0, 0, n0, n1, B),
  }
}

/** The joint family's symbols (`jointSymbols`). */
export interface JointSymbols {
  /** Values making up at least JOINT_RECUR of the entries counted, ascending (−0 counted as +0). */
  readonly discrete: number[]
  /** Entries that are one of them. */
  readonly recurring: number
  /** Entries counted: side 0's, and side 1's unless side 0's values are many and mostly distinct. */
  readonly total: number
}

/**
 * The joint family's symbols, as a map from each value to its count gives them (`jointSymbolsByMap`),
 * from the sides sorted in the thread's working memory instead: runs of equal values are the counts
 * (issue 23: the map of every entry of continuous vectors, 2.4·10⁵ keys, took 0.3 s in a fresh worker,
 * the longest fit job of vector audits, for a family that then does not apply). With NaN (its own
 * key in a map, unequal to itself in a run), by the map.
 */
export const jointSymbols = (v0: Float64Array, v1: Float64Array): JointSymbols => {
  const u0 = copyInto(v0, SLOT.values0)
  sortInPlace(u0)
  if (u0.length > 0 && Number.isNaN(u0[u0.length - 1])) return jointSymbolsByMap(v0, v1)
  const distinct0 = distinctSorted(u0)
  // the map stopped counting after side 0 where its values were many and mostly distinct
  if (distinct0 > 4 * JOINT_MAX_KEYS && distinct0 > v0.length / 2) return recurringRuns(u0, new Float64Array(0), v0.length)
  const u1 = copyInto(v1, SLOT.values1)
  sortInPlace(u1)
  if (u1.length > 0 && Number.isNaN(u1[u1.length - 1])) return jointSymbolsByMap(v0, v1)
  return recurringRuns(u0, u1, v0.length + v1.length)
}

/** v copied into a slot of the thread's working memory. */
const copyInto = (v: Float64Array, slot: number): Float64Array => {
  const out = scratch(slot, v.length)
  out.set(v)
  return out
}

/** Distinct values of an ascending array without NaN (−0 and +0 one value, as in a map). */
const distinctSorted = (u: Float64Array): number => {
  let k = 0
  for (let i = 0; i < u.length; i++) if (i === 0 || u[i] !== u[i - 1]) k++
  return k
}

/** The values of two ascending arrays (no NaN) whose runs together make up at least JOINT_RECUR of `total`, and their entries. */
const recurringRuns = (u0: Float64Array, u1: Float64Array, total: number): JointSymbols => {
  const discrete: number[] = []
  let recurring = 0
  let i = 0
  let j = 0
  while (i < u0.length || j < u1.length) {
    const x = i < u0.length && (j >= u1.length || (u0[i] as number) <= (u1[j] as number)) ? (u0[i] as number) : (u1[j] as number)
    let c = 0
    while (i < u0.length && u0[i] === x) {
      i++
      c++
    }
    while (j < u1.length && u1[j] === x) {
      j++
      c++
    }
    if (c >= JOINT_RECUR * total) {
      // a map keeps −0 as +0
      discrete.push(x === 0 ? 0 : x)
      recurring += c
    }
  }
  return { discrete, recurring, total }
}

/** `jointSymbols` by a map from each value to its count (the family's definition; used with NaN). */
export const jointSymbolsByMap = (v0: Float64Array, v1: Float64Array): JointSymbols => {
  const freq = new Map<number, number>()
  let total = 0
  for (const v of [v0, v1]) {
    for (let i = 0; i < v.length; i++) freq.set(v[i] as number, (freq.get(v[i] as number) ?? 0) + 1)
    total += v.length
    if (freq.size > 4 * JOINT_MAX_KEYS && freq.size > total / 2) break
  }
  const discrete = [...freq.entries()].filter(([, c]) => c >= JOINT_RECUR * total).map(([x]) => x).sort((a, b) => a - b)
  return { discrete, recurring: discrete.reduce((s, x) => s + (freq.get(x) ?? 0), 0), total }
}

/** Equal-mass interior edges of a sorted sample: at most nBins bins, repeated values merged. */
const equalMassEdges = (pooled: Float64Array, nBins: number): number[] => {
  const edges: number[] = []
  for (let k = 1; k < nBins; k++) {
    const e = pooled[Math.floor((k * pooled.length) / nBins)] as number
    if (e > (pooled[0] as number) && (edges.length === 0 || e > (edges[edges.length - 1] as number))) edges.push(e)
  }
  return edges
}

/** Binomial log-likelihood of side-0 shares fitted per block (blocks as [c0, c1] sums). */
const blocksLogLik = (blocks: ReadonlyArray<readonly [number, number]>): number => {
  let ll = 0
  for (const [x, y] of blocks) {
    const t = x + y
    if (x > 0) ll += x * Math.log(x / t)
    if (y > 0) ll += y * Math.log(y / t)
  }
  return ll
}

/**
 * Pool-adjacent-violators over bins in order: merges neighbouring bins until the side-0 share
 * (c0+½)/(c0+c1+1) is non-decreasing (`up`) or non-increasing; the isotonic maximum-likelihood fit of a
 * binomial share (Ayer et al. 1955; Barlow et al. 1972, §1.2). Returns each block's first bin and counts.
 */
const poolAdjacent = (c0: Float64Array, c1: Float64Array, up: boolean): Array<{ start: number; c: [number, number] }> => {
  const blocks: Array<{ start: number; c: [number, number] }> = []
  // The share with binScore's half counts, so that the cells' scores come out monotone too.
  const share = (c: readonly [number, number]): number => (c[0] + 0.5) / (c[0] + c[1] + 1)
  for (let i = 0; i < c0.length; i++) {
    blocks.push({ start: i, c: [c0[i] as number, c1[i] as number] })
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1] as { start: number; c: [number, number] }
      const prev = blocks[blocks.length - 2] as { start: number; c: [number, number] }
      const violates = up ? share(prev.c) > share(last.c) : share(prev.c) < share(last.c)
      if (!violates) break
      prev.c = [prev.c[0] + last.c[0], prev.c[1] + last.c[1]]
      blocks.pop()
    }
  }
  return blocks
}

/**
 * Fine bins of one pattern's continuous value merged into a likelihood ratio monotone in the value
 * (the direction, rising or falling, that fits the counts better). Within an output pattern the
 * likelihood ratio of a shifted log-concave noise is monotone in the reported value (Karlin &
 * Rubin 1956: monotone likelihood ratio of location families with log-concave density), as it is,
 * away from the threshold, for a sparse vector's noisy answer: the merged cells pool evidence that
 * fixed-width bins split, so the likelihood ratio of each cell is estimated from more outputs and
 * the event chosen on it is less the luck of a small cell (issue 23, Lyu et al.'s Alg. 3).
 */
const monotoneCells = (fine: ReadonlyArray<number>, f0: Float64Array, f1: Float64Array): { edges: number[]; c0: Float64Array; c1: Float64Array } => {
  if (fine.length === 0) return { edges: [], c0: f0, c1: f1 }
  const up = poolAdjacent(f0, f1, true)
  const down = poolAdjacent(f0, f1, false)
  const blocks = blocksLogLik(up.map((b) => b.c)) >= blocksLogLik(down.map((b) => b.c)) ? up : down
  return {
    edges: blocks.slice(1).map((b) => fine[b.start - 1] as number),
    c0: Float64Array.from(blocks, (b) => b.c[0]),
    c1: Float64Array.from(blocks, (b) => b.c[1]),
  }
}

/**
 * Normal upper tail Q(x) = P[Z ≥ x]. @stdlib's erfc is required on first use (issue 23, scale): its
 * 131 files were 70 of the ~100 ms a fresh audit worker spent importing the fits, and only the
 * Gaussian-tail threshold needs it.
 */
let erfc: ((x: number) => number) | null = null
const normalTail = (x: number): number => 0.5 * (erfc ??= createRequire(import.meta.url)('@stdlib/math-base-special-erfc') as (x: number) => number)(x / Math.SQRT2)

/** Mean and standard deviation. */
const moments = (x: Float64Array): [number, number] => {
  let s = 0
  let s2 = 0
  for (let i = 0; i < x.length; i++) {
    s += x[i] as number
    s2 += (x[i] as number) ** 2
  }
  const m = s / x.length
  return [m, Math.sqrt(Math.max(s2 / x.length - m * m, 0))]
}

/**
 * A threshold chosen by extrapolating Gaussian tails: fit N(m₀, s₀²) and N(m₁, s₁²) to the tuning
 * scores of each side, check the fit where the sample can check it (counts beyond the pooled
 * quantiles 1 %, 0.1 % and their mirror images within a factor 1.5 of the model's, or within
 * Poisson noise), and pick the threshold maximising the bound expected at N estimation trials under
 * the model. For Gaussian-like mechanisms the best event lies where the tuning sample has no
 * points (FPR ~ 1/N ≪ 1/n): the empirical sweep cannot find it, the extrapolation can. Null if the
 * fit fails. Only power depends on it: the estimate uses fresh trials whatever threshold is chosen.
 * `sorted`: s0 and s1 in `sweepOrder`, where the caller has them (spares two sorts).
 */
export const gaussianTailThreshold = (
  s0: Float64Array,
  s1: Float64Array,
  delta: number,
  projection: Projection,
  sorted?: readonly [Float64Array, Float64Array],
): SweepResult | null => {
  if (s0.length < 1000 || s1.length < 1000) return null
  const [m0, sd0] = moments(s0)
  const [m1, sd1] = moments(s1)
  if (!(sd0 > 0 && sd1 > 0) || !Number.isFinite(m0 + m1)) return null
  // Each side in ascending order: `sorted` (in `sweepOrder`, which differs from the scores only at
  // NaN, and a NaN or ±∞ score made m0 + m1 non-finite above). The pooled quantiles are read from both
  // without merging them, and the counts beyond them by binary search (issue 23: the merge was 1.6 MB
  // of fresh memory and the counts eight passes over the scores, in the longest fit job).
  const [u0, u1] = sorted ?? [sortedCopy(s0), sortedCopy(s1)]
  const N = u0.length + u1.length
  for (const q of [0.01, 0.001, 0.99, 0.999]) {
    const t = nthOfMerged(u0, u1, Math.floor(q * (N - 1)))
    for (const [u, m, sd] of [[u0, m0, sd0], [u1, m1, sd1]] as const) {
      const upper = q > 0.5
      // outputs ≥ t, or ≤ t
      const k = upper ? u.length - countBelow(u, t) : countAtMost(u, t)
      const expected = u.length * (upper ? normalTail((t - m) / sd) : normalTail((m - t) / sd))
      if (Math.abs(k - expected) > 3 * Math.sqrt(expected + 1) && (k > 1.5 * expected || k < expected / 1.5)) return null
    }
  }
  let best: SweepResult | null = null
  for (const sigma of [1, -1] as const) {
    const a0 = sigma * m0
    const a1 = sigma * m1
    const lo = Math.min(a0 - 12 * sd0, a1 - 12 * sd1)
    const hi = Math.max(a0 + 12 * sd0, a1 + 12 * sd1)
    for (let k = 0; k <= 4000; k++) {
      const t = lo + ((hi - lo) * k) / 4000
      const tpr = normalTail((t - a0) / sd0)
      const fpr = normalTail((t - a1) / sd1)
      const objective = epsilonFromRates(wilsonUpper(fpr * projection.n, projection.n, projection.z), wilsonUpper((1 - tpr) * projection.n, projection.n, projection.z), delta)
      const r: SweepResult = { objective, advantage: tpr - fpr, orientation: sigma, threshold: t }
      if (better(r, best)) best = r
    }
  }
  return best
}

/** Scores of every output of one side under a model. */
export const scoreSide = (model: AttackModel, s: PairSamples, side: 0 | 1): Float64Array => {
  const out = new Float64Array(s.n[side])
  scoreInto(compileScorer(model, s.shape), s, side, out, 0)
  return out
}

/**
 * Scores of every output of one side under a compiled scorer, written to out from `at` on: so that a
 * scorer is compiled once for both sides, and scores that belong together (cross-fitted halves, both
 * sides pooled) are written where they go instead of joined by copies (issue 23: fresh memory is most
 * of a fit's cost in a fresh worker). A loop per output kind, each in its own function.
 */
export const scoreInto = (scorer: Scorer, s: PairSamples, side: 0 | 1, out: Float64Array, at: number): void => {
  switch (scorer.kind) {
    case 'scalar':
      return scoreScalars(scorer.score, s.values[side], s.n[side], out, at)
    case 'vector':
      return scoreVectors(scorer.score, s.values[side], s.n[side], s.shape.dim, out, at)
    case 'category':
      return scoreCategories(scorer.score, s.codes[side], s.n[side], s.categories, out, at)
  }
}

const scoreScalars = (score: (y: number) => number, v: Float64Array, n: number, out: Float64Array, at: number): void => {
  // the identity's scores are the outputs: one copy (in a fresh thread, 10⁵ calls run uncompiled at first)
  if (score === identity) out.set(v.subarray(0, n), at)
  else for (let i = 0; i < n; i++) out[at + i] = score(v[i] as number)
}

const scoreVectors = (score: (v: Float64Array, offset: number) => number, v: Float64Array, n: number, d: number, out: Float64Array, at: number): void => {
  for (let i = 0; i < n; i++) out[at + i] = score(v, i * d)
}

const scoreCategories = (score: (c: string) => number, c: Int32Array, n: number, categories: ReadonlyArray<string>, out: Float64Array, at: number): void => {
  for (let i = 0; i < n; i++) out[at + i] = score(categories[c[i] as number] as string)
}

/** The first `k` (fit) or remaining (tune) trials of each side. */
export const splitSamples = (s: PairSamples, part: 'fit' | 'tune'): PairSamples => {
  const cut = (n: number): [number, number] => {
    const f = Math.floor(n / 2)
    return part === 'fit' ? [0, f] : [f, n]
  }
  const [a0, b0] = cut(s.n[0])
  const [a1, b1] = cut(s.n[1])
  const d = s.shape.kind === 'category' ? 0 : s.shape.dim
  return {
    shape: s.shape,
    n: [b0 - a0, b1 - a1],
    values: [s.values[0].subarray(a0 * d, b0 * d), s.values[1].subarray(a1 * d, b1 * d)],
    codes: s.shape.kind === 'category' ? [s.codes[0].subarray(a0, b0), s.codes[1].subarray(a1, b1)] : s.codes,
    categories: s.categories,
  }
}

/**
 * σ·x for both sides' scores together, ascending (typed-array order: −0 before +0, NaN last). From
 * `sorted`, both sides' x already ascending where the fit job gave them (search.ts `ModelScores`), in
 * one pass: ascending σ·x is x itself for σ = 1, and its negation reversed for σ = −1 (which keeps −0
 * before +0, but would put NaN first: then the sort). Without them, a sort of ~200k scores in the
 * calling thread, the largest step of an audit's serial part (issue 23).
 */
const orientedAscending = (tune0: Float64Array, tune1: Float64Array, sigma: 1 | -1, sorted?: Float64Array): Float64Array => {
  const N = tune0.length + tune1.length
  if (sorted !== undefined && sorted.length === N && (sigma === 1 || N === 0 || !Number.isNaN(sorted[N - 1]))) {
    if (sigma === 1) return sorted
    const out = new Float64Array(N)
    for (let i = 0; i < N; i++) out[i] = -(sorted[N - 1 - i] as number)
    return out
  }
  const pooled = new Float64Array(N)
  for (let i = 0; i < tune0.length; i++) pooled[i] = sigma * (tune0[i] as number)
  for (let i = 0; i < tune1.length; i++) pooled[tune0.length + i] = sigma * (tune1[i] as number)
  return sortedCopy(pooled)
}

/**
 * Thresholds at which the estimation phase counts scores: the chosen threshold, plus quantiles of
 * the pooled tuning scores σ·x (dense in both tails, for the low-FPR end of the ROC curve).
 * `sorted`, if given, is tune0 and tune1 together in ascending order (it spares a sort: `orientedAscending`).
 */
export const scoreGrid = (tune0: Float64Array, tune1: Float64Array, threshold: number, sigma: 1 | -1 = 1, sorted?: Float64Array): number[] =>
  gridOfAscending(orientedAscending(tune0, tune1, sigma, sorted), threshold)

/** `scoreGrid` from the pooled oriented scores in ascending order. */
export const gridOfAscending = (pooled: Float64Array, threshold: number): number[] => {
  const set = new Set<number>([threshold])
  const N = pooled.length
  if (N > 0) {
    // At most ~100 thresholds: each estimation trial binary-searches this grid, and its depth is
    // a visible share of the per-trial cost for cheap mechanisms.
    const distinct = new Set<number>()
    for (let i = 0; i < N && distinct.size <= 100; i++) distinct.add(pooled[i] as number)
    if (distinct.size <= 100) for (const v of distinct) set.add(v)
    else {
      const ps: number[] = []
      for (let k = 0; k <= 80; k++) ps.push(k / 80)
      for (let e = 2; e <= 6; e++) for (const m of [1, 2, 5]) ps.push(m * 10 ** -e, 1 - m * 10 ** -e)
      for (const p of ps) set.add(pooled[Math.min(N - 1, Math.max(0, Math.floor(p * (N - 1))))] as number)
    }
  }
  return [...set].filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
}
