/**
 * Choosing the attack on selection samples: every attack family is fitted on the first half of a
 * pair's samples and its event chosen on the second half, by the bound expected at the estimation
 * sample size (select.ts `projectedBound`), with a second threshold candidate from Gaussian tail
 * extrapolation for scores that look Gaussian. `successiveHalving` spends a selection budget over
 * many pairs: all pairs get a small sample, the better half get twice as much, and so on (Jamieson &
 * Talwalkar 2016; the budget allocation of Delta-Siege, Lokna et al. 2023), and the survivor's sample
 * grows while its expected bound does not yet clear the claim.
 *
 * Nothing here touches validity: the bound is computed on fresh estimation trials.
 *
 * @module
 */
import type { BoundForm } from './ratio-bound.js'
import type { CandidateSummary } from './checkpoint.js'
import { type AttackFamily, type AttackModel, type ChosenAttack, compileScorer } from './score.js'
import { betterOrientation, fitFamily, gaussianTailThreshold, type PairSamples, type Projection, projectedForm, scoreInto, splitSamples, sweepOrder, sweepSorted, type SweepResult } from './select.js'
import { SLOT, scratch } from './scratch.js'
import { sortInPlace } from './sorted.js'

/** The best attack found on one pair. */
export interface PairChoice {
  readonly pair: number
  readonly family: AttackFamily
  readonly attack: ChosenAttack
  /** Oriented scores of the tuning half (for the estimation grid). */
  readonly tune0: Float64Array
  readonly tune1: Float64Array
  /** tune0 and tune1 together in ascending order, where the model job sorted them (spares the score grid a sort). */
  readonly sortedTune?: Float64Array
  /** Expected certified bound at the estimation size (the selection objective). */
  readonly objective: number
  readonly advantage: number
  /** How the threshold was chosen. */
  readonly rule: 'empirical' | 'gaussian-tail'
  /** The bound the estimate will use (bounds.ts `boundFromCounts`), the one expected to certify most. */
  readonly form: BoundForm
}

/** Fits one family, or null when it does not apply or cannot fit these outputs (degenerate data): skipped, not fatal. */
const tryFit = (family: AttackFamily, fit: PairSamples, delta: number, z: number): AttackModel | null => {
  try {
    return fitFamily(family, fit, delta, z)
  } catch {
    return null
  }
}

/**
 * Both sides' scores under one model, each fresh, and both together in ascending order (the
 * whole-sample model's `ModelScores`): the scorer compiled once, the pooled scores written in place
 * and sorted there.
 */
const modelScores = (model: AttackModel, s: PairSamples): ModelScores => {
  const scorer = compileScorer(model, s.shape)
  const [n0, n1] = s.n
  const w0 = new Float64Array(n0)
  const w1 = new Float64Array(n1)
  scoreInto(scorer, s, 0, w0, 0)
  scoreInto(scorer, s, 1, w1, 0)
  const sorted = new Float64Array(n0 + n1)
  sorted.set(w0)
  sorted.set(w1, n0)
  return { w0, w1, sorted: sortInPlace(sorted) }
}

/**
 * Out-of-sample scores of every selection output by two-fold cross-fitting: a model fitted on the
 * first half scores the second, one fitted on the second half scores the first (Chernozhukov et al.
 * 2018, "double/debiased machine learning", §3). Every output is scored by a model that never saw
 * it, so the event is chosen on the whole sample, not half of it: at small claims the selection is
 * limited by the sampling noise of the likelihood ratio on the event, ∝ 1/√n, and halving n costs
 * a factor √2 in the smallest violation it can see. Both models estimate the same log-likelihood
 * ratio (or log-odds), so their scores share a scale and pool. Null if either half cannot be fitted.
 * The scores are in the thread's working memory (scratch.ts: slots tune0, tune1), for this fit only.
 */
const crossFitScores = (family: AttackFamily, s: PairSamples, delta: number, z: number): { readonly s0: Float64Array; readonly s1: Float64Array } | null => {
  const a = splitSamples(s, 'fit')
  const b = splitSamples(s, 'tune')
  const ma = tryFit(family, a, delta, z)
  const mb = ma === null ? null : tryFit(family, b, delta, z)
  if (ma === null || mb === null) return null
  // each half scored by the other half's model, written where it goes in the side's scores
  const byA = compileScorer(ma, s.shape)
  const byB = compileScorer(mb, s.shape)
  const side = (k: 0 | 1): Float64Array => {
    const out = scratch(k === 0 ? SLOT.tune0 : SLOT.tune1, s.n[k])
    scoreInto(byB, a, k, out, 0)
    scoreInto(byA, b, k, out, a.n[k])
    return out
  }
  return { s0: side(0), s1: side(1) }
}

/**
 * A family fit to run, possibly on another thread: every field is plain data (the samples are typed
 * arrays, which the worker pool shares through a SharedArrayBuffer), and the fit is a pure function
 * of them, so where it runs cannot change its result. Each family is two jobs that can run at once:
 * its model on the whole sample (`model`, what estimation will score with) and its event chosen on
 * cross-fitted scores (`event`), the latter split in two by orientation where that costs no fit
 * (`eventOrientations`).
 */
export interface FitJob {
  readonly pair: number
  readonly samples: PairSamples
  readonly family: AttackFamily
  readonly part: 'model' | 'event'
  /** An event job's one orientation (absent: both, and the Gaussian tail); see `eventOrientations`. */
  readonly orientation?: 1 | -1
  readonly delta: number
  readonly z: number
  readonly projection: Projection
}

/**
 * A family's event on one pair, chosen on the cross-fitted scores (see `evaluateFamily`). An
 * empirical event carries its size there (`moveBy`), by which `bestOfPair` moves it to the
 * whole-sample model, whose scores it then uses: the cross-fitted ones are not kept. A Gaussian-tail
 * threshold stays on the cross-fitted scores, and carries them (`tune0`, `tune1`).
 */
export type FamilyEvent =
  | { readonly rule: 'empirical'; readonly result: SweepResult; readonly form: BoundForm; readonly moveBy: number }
  | { readonly rule: 'gaussian-tail'; readonly result: SweepResult; readonly form: BoundForm; readonly tune0: Float64Array; readonly tune1: Float64Array }

/**
 * The whole-sample model's scores of the selection outputs, and both sides' together in ascending
 * order: what moving an event to that model needs (`thresholdForCountSorted`). The model job
 * computes them, so the event job, which runs at the same time, does not fit the model again.
 */
export interface ModelScores {
  readonly w0: Float64Array
  readonly w1: Float64Array
  readonly sorted: Float64Array
}

/**
 * What a fit job gives; null when the family does not apply or cannot fit these outputs. An event
 * job of one orientation gives that orientation's empirical event, and the orientation 1 job also
 * the Gaussian-tail candidate (`tail`, null where there is none): `bestOfPair` joins them (`joinEvents`).
 */
export type FitPart =
  | { readonly part: 'model'; readonly model: AttackModel; readonly scores: ModelScores }
  | { readonly part: 'event'; readonly event: FamilyEvent; readonly tail?: FamilyEvent | null }

/**
 * Runs fit jobs and returns one outcome per job, in the jobs' order: in this thread
 * (`fitInline`) or on an executor's worker threads (pool.ts).
 */
export type FitRunner = (jobs: ReadonlyArray<FitJob>) => ReadonlyArray<FitPart | null>

/**
 * One fit job. `model`: the family fitted on the whole sample. `event`: the event chosen on
 * cross-fitted scores of the whole sample, with a Gaussian-tail threshold as second candidate for
 * scores that can look Gaussian. The attack shipped to estimation is the whole-sample model (its
 * likelihood ratios estimated from twice the data) with the event of the same size under it
 * (`thresholdForCount`); its tune0, tune1 are then that model's scores of the selection outputs.
 */
export const evaluateFamily = (job: FitJob): FitPart | null => {
  const { samples: s, family, delta, z, projection } = job
  if (job.part === 'model') {
    const model = tryFit(family, s, delta, z)
    if (model === null) return null
    return { part: 'model', model, scores: modelScores(model, s) }
  }
  const scores = crossFitScores(family, s, delta, z)
  if (scores === null) return null
  const { s0: t0, s1: t1 } = scores
  // sorted once, for the sweep and the Gaussian tail (in working memory: nothing of them is kept)
  const sorted = [sweepOrder(t0, SLOT.up0), sweepOrder(t1, SLOT.up1)] as const
  const only = job.orientation
  const r = sweepSorted(sorted[0], sorted[1], delta, z, projection, only)
  // The estimate scores with the whole-sample model (the `model` job, run at the same time), whose
  // scores are not on the cross-fitted models' scale: the event moves to it by its size (`bestOfPair`).
  const tp = eventCount(t0, r.orientation, r.threshold)
  const fp = eventCount(t1, r.orientation, r.threshold)
  // the bound form is the projection's best at the event's counts
  const event: FamilyEvent = { result: r, rule: 'empirical', form: projectedForm(tp, t0.length, fp, t1.length, delta, projection), moveBy: tp + fp }
  // Bins and patterns have few distinct scores: extrapolating a Gaussian there means nothing.
  const g = only !== -1 && (family === 'threshold' || family === 'coordinate' || family === 'logistic') ? gaussianTailThreshold(t0, t1, delta, projection, sorted) : null
  // The Gaussian-tail threshold's objective is the rates bound's, under the fitted model; it keeps
  // the cross-fitted scores, copied out of working memory only where it may be used.
  const tail = (): FamilyEvent | null => (g === null ? null : { result: g, rule: 'gaussian-tail', form: 'rates', tune0: t0.slice(), tune1: t1.slice() })
  if (only === undefined) return { part: 'event', event: tailWins(event, g) ? (tail() as FamilyEvent) : event }
  return { part: 'event', event, ...(only === 1 ? { tail: tail() } : {}) }
}

/** Whether the Gaussian-tail threshold's objective is clearly above the empirical event's (it is used then). */
const tailWins = (event: FamilyEvent, tail: SweepResult | null): boolean => tail !== null && tail.objective > event.result.objective + 1e-9

/** The empirical event, or the Gaussian-tail one where it wins (`tailWins`). */
const withTail = (event: FamilyEvent, tail: FamilyEvent | null): FamilyEvent => (tail !== null && tailWins(event, tail.result) ? tail : event)

/**
 * The event jobs of a family, by orientation (undefined: one job for both). The threshold family's
 * cross-fit is the identity, so a job per orientation repeats no fit, only the sort, and halves its
 * event's longest job, the longest of all the fits (issue 23: on 16 workers the longest fit job is the
 * fits' wall time); other families would fit their cross-fitted models twice.
 */
const eventOrientations = (family: AttackFamily): ReadonlyArray<1 | -1 | undefined> => (family === 'threshold' ? [1, -1] : [undefined])

/** How many fit jobs `pairJobs` makes for one pair of these families. */
export const pairJobCount = (families: ReadonlyArray<AttackFamily>): number => families.reduce((k, f) => k + 1 + eventOrientations(f).length, 0)

/**
 * A family's event from its event jobs' parts: the one job's, or the two orientations' joined as the
 * one job would have (the same sweep result and the same Gaussian-tail comparison: the same event).
 */
export const joinEvents = (parts: ReadonlyArray<FitPart | null>): FamilyEvent | null => {
  const events = parts.map((p) => (p?.part === 'event' ? p : null))
  const [plus, minus] = events
  if (plus === null || plus === undefined) return null
  if (events.length === 1) return plus.event
  if (minus === null || minus === undefined) return null
  return withTail(betterOrientation(plus.event, minus.event), plus.tail ?? null)
}

/** Outputs in the event {σ·score ≥ t}. */
const eventCount = (scores: Float64Array, sigma: number, t: number): number => {
  let k = 0
  for (let i = 0; i < scores.length; i++) if (sigma * (scores[i] as number) >= t) k++
  return k
}

/**
 * The threshold t′ whose event {σ·w ≥ t′} holds, of both sides' outputs w0, w1 together, the count
 * nearest `target` that the distinct scores allow (ties go to the smaller event; Infinity for the
 * empty one). Two fits of a binned likelihood ratio give its extreme bins different values, so the
 * same number t can name an event several times smaller or larger under the other fit: the event
 * chosen on cross-fitted scores moves to the whole-sample model by its size, the quantity the
 * selection judged.
 */
export const thresholdForCount = (w0: Float64Array, w1: Float64Array, sigma: 1 | -1, target: number): number => {
  const u = new Float64Array(w0.length + w1.length)
  for (let i = 0; i < w0.length; i++) u[i] = -sigma * (w0[i] as number)
  for (let i = 0; i < w1.length; i++) u[w0.length + i] = -sigma * (w1[i] as number)
  u.sort() // ascending −σ·w: the event {σ·w ≥ t′} is a prefix
  return nearestPrefix(u, false, target)
}

/**
 * The walk of `thresholdForCount` over ascending u: −u at the end of the prefix nearest `target`, with
 * u = v, or u = v negated and reversed (`reversed`: u[i] = −v[n − 1 − i], read in place). A NaN score
 * (sorted last) is in no event {σ·w ≥ t′}: the walk stops at the first one (it would otherwise never
 * advance: NaN ≠ NaN makes its group of equal values empty). It runs in the calling thread, once per
 * family, over up to the whole selection sample (issue 23: the serial part), so it reads the array
 * directly rather than through a function per element.
 */
const nearestPrefix = (v: Float64Array, reversed: boolean, target: number): number => {
  const n = v.length
  // u[i] = sign · v[first + step · i]; −1 · x is −x exactly (±0 included)
  const sign = reversed ? -1 : 1
  const first = reversed ? n - 1 : 0
  const step = reversed ? -1 : 1
  let best = Infinity
  let bestGap = target // the empty event
  for (let i = 0; i < n; ) {
    const x = sign * (v[first + step * i] as number)
    if (x !== x) break
    let j = i + 1
    while (j < n && sign * (v[first + step * j] as number) === x) j++
    if (Math.abs(j - target) < bestGap) {
      bestGap = Math.abs(j - target)
      best = -x
    }
    if (j >= target) break
    i = j
  }
  return best
}

/**
 * `thresholdForCount` from the model job's scores (the same number, without a sort): ascending −σ·w
 * is the ascending w itself for σ = −1, and its negation reversed for σ = 1 (typed-array order puts
 * −0 before +0, which negation and reversal keep). NaN, sorted last, would not be: then the plain way.
 */
export const thresholdForCountSorted = (scores: ModelScores, sigma: 1 | -1, target: number): number => {
  const v = scores.sorted
  const n = v.length
  if (n > 0 && Number.isNaN(v[n - 1])) return thresholdForCount(scores.w0, scores.w1, sigma, target)
  return nearestPrefix(v, sigma === 1, target)
}

/** Runs the jobs one after another in this thread. */
export const fitInline: FitRunner = (jobs) => jobs.map(evaluateFamily)

/** The jobs of one pair: a model job and its event jobs per family, in the families' order (which breaks ties in `bestOfPair`). */
export const pairJobs = (pair: number, samples: PairSamples, families: ReadonlyArray<AttackFamily>, delta: number, z: number, projection: Projection): FitJob[] =>
  families.flatMap((family) => [
    { pair, samples, family, part: 'model' as const, delta, z, projection },
    ...eventOrientations(family).map((o) => ({ pair, samples, family, part: 'event' as const, delta, z, projection, ...(o === undefined ? {} : { orientation: o }) })),
  ])

/**
 * A pair's best (family, event) from the outcomes of its `pairJobs`, and a summary of each family
 * that applies (both its model and its event fitted).
 */
export const bestOfPair = (
  pair: number,
  label: string,
  shape: PairSamples['shape'],
  families: ReadonlyArray<AttackFamily>,
  parts: ReadonlyArray<FitPart | null>,
): { readonly best: PairChoice | null; readonly candidates: CandidateSummary[] } => {
  const candidates: CandidateSummary[] = []
  let best: PairChoice | null = null
  let k = 0
  families.forEach((family) => {
    const m = parts[k]
    const e = joinEvents(parts.slice(k + 1, k + 1 + eventOrientations(family).length))
    k += 1 + eventOrientations(family).length
    if (m?.part !== 'model' || e === null) return
    const { rule, form } = e
    // An event chosen on cross-fitted scores moves to the whole-sample model by its size (see `evaluateFamily`).
    const moved = e.rule === 'empirical'
    const r = moved ? { ...e.result, threshold: thresholdForCountSorted(m.scores, e.result.orientation, e.moveBy) } : e.result
    const tune0 = moved ? m.scores.w0 : e.tune0
    const tune1 = moved ? m.scores.w1 : e.tune1
    candidates.push({ pair, label, family, tuneEpsilon: r.objective, advantage: r.advantage })
    if (best === null || r.objective > best.objective + 1e-12 || (Math.abs(r.objective - best.objective) <= 1e-12 && r.advantage > best.advantage + 1e-12))
      best = {
        pair,
        family,
        attack: { shape, model: m.model, orientation: r.orientation, threshold: r.threshold },
        tune0,
        tune1,
        ...(moved ? { sortedTune: m.scores.sorted } : {}),
        objective: r.objective,
        advantage: r.advantage,
        rule,
        form,
      }
  })
  return { best, candidates }
}

/** Fits every family on one pair in this thread and returns its best (family, event), and a summary of each family. */
export const evaluatePair = (
  pair: number,
  label: string,
  s: PairSamples,
  families: ReadonlyArray<AttackFamily>,
  delta: number,
  z: number,
  projection: Projection,
): { readonly best: PairChoice | null; readonly candidates: CandidateSummary[] } =>
  bestOfPair(pair, label, s.shape, families, fitInline(pairJobs(pair, s, families, delta, z, projection)))

/** Keeps the better half (at least one) of the pairs by objective; ties go to the lower index. */
export const betterHalf = (scored: ReadonlyArray<{ readonly pair: number; readonly objective: number }>): number[] => {
  const sorted = [...scored].sort((a, b) => b.objective - a.objective || a.pair - b.pair)
  return sorted.slice(0, Math.max(1, Math.ceil(sorted.length / 2))).map((x) => x.pair).sort((a, b) => a - b)
}
