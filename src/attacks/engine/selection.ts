/**
 * Phase 3 of a mechanism audit, selection: which (pair, family, event) separates the neighbours
 * best, chosen on selection trials only (fresh streams are used for estimation).
 *
 * Successive halving over the pairs (../search.ts), then a growing sample for the survivor while
 * its expected bound does not clear the claim and the event is at the tuning sample's resolution.
 * Trials [n_before, n_after) of each (pair, side) selection stream run in each round, so the result
 * is the same for any chunking and any number of workers.
 *
 * @module
 */
import type { CandidateSummary, SelectionOutcome } from '../checkpoint.js'
import { sameShape, showShape } from '../output.js'
import type { AuditIssue } from '../result.js'
import { halvingShare, type PairSamples, resolutionCount, scoreGrid, zFor } from '../select.js'
import { bestOfPair, betterHalf, type FitJob, type PairChoice, pairJobCount, pairJobs } from '../search.js'
import { type SupportTest, supportTest } from '../support.js'
import type { ChunkResult, ChunkTask, SelectChunkResult } from '../trials.js'
import { earliest, failureIssue, mergeSelection, unifyCategories } from './merge.js'
import { CHUNK_BYTES, HALVING_CAP_PER_SIDE, int, MIN_AUTO_CHUNK, MIN_SELECTION_PER_SIDE } from './spec.js'
import { type AuditState, type AuditSteps, runBatches } from './state.js'

export type SelectionPhaseOutcome =
  | { readonly _tag: 'found'; readonly selection: SelectionOutcome }
  | { readonly _tag: 'stopped'; readonly trials: number }
  | { readonly _tag: 'failed'; readonly trials: number; readonly issue: AuditIssue }
  | { readonly _tag: 'refused'; readonly message: string }

/** The selection's own record: samples per pair, trials spent, the candidates seen. */
interface Search {
  readonly z: number
  readonly chunksOf: SelectChunkResult[][][]
  readonly have: number[]
  readonly samples: Array<PairSamples | null>
  readonly candidates: Map<string, CandidateSummary>
  spent: number
  nextId: number
  /** Selection trials allowed in all (shrunk for long vector outputs) and trials per selection chunk. */
  budget: number
  selChunk: number
}

type Ended = Exclude<SelectionPhaseOutcome, { _tag: 'found' }>

/** Phase 3: chooses the attack; see the module comment. */
export function* selectionPhase<I>(st: AuditState<I>): AuditSteps<SelectionPhaseOutcome> {
  const P = st.cfg.pairs.length
  const s: Search = {
    z: zFor(st.cfg.alpha / 2),
    chunksOf: Array.from({ length: P }, () => [[], []]),
    have: new Array<number>(P).fill(0),
    samples: new Array(P).fill(null),
    candidates: new Map(),
    spent: 0,
    nextId: 0,
    budget: st.budget.selectionBudget,
    selChunk: st.cfg.chunk,
  }
  const refused = yield* sizeToMemory(st, s)
  if (refused !== null) return refused
  const halved = yield* halving(st, s)
  if (halved._tag !== 'best') return halved
  const deepened = yield* deepen(st, s, halved.best)
  if (deepened !== null && deepened._tag !== 'best') return deepened
  const best = deepened?.best ?? halved.best
  if (best === null)
    return { _tag: 'failed', trials: s.spent, issue: { _tag: 'InvalidOutput', message: `no attack family among ${st.cfg.families.join(', ')} applies to outputs of this shape` } }
  return { _tag: 'found', selection: outcome(st, s, best) }
}

/**
 * Memory before the run: one probe trial gives the output size; selection keeps its outputs (twice,
 * while merging), so a long vector output shrinks the selection sample, or the audit is refused
 * before any memory is spent (a 10⁶-length output would need gigabytes per 100 trials).
 */
function* sizeToMemory<I>(st: AuditState<I>, s: Search): AuditSteps<Ended | null> {
  const P = st.cfg.pairs.length
  const probe = yield [{ id: -1, phase: 'select', pair: 0, side: 0, seed: st.seed, start: 0, end: 1 }]
  const first: ChunkResult | undefined = probe.results[0]
  const shape = probe.error === null && first?.phase === 'select' ? first.shape : null
  // A failing probe is not reported here: the same trial fails again in the first round, which says why.
  if (shape === null) return null
  const bytes = shape.kind === 'category' ? 64 : 8 * shape.dim
  const fits = Math.floor(st.cfg.maxMemory / (2 * bytes))
  if (fits < 2 * P * MIN_SELECTION_PER_SIDE)
    return {
      _tag: 'refused',
      message: `outputs are a ${showShape(shape)} (${int(bytes)} bytes each); choosing an attack needs at least ${MIN_SELECTION_PER_SIDE} outputs per pair and side in memory, ${int(2 * P * MIN_SELECTION_PER_SIDE * 2 * bytes)} bytes in all, above the limit of ${int(st.cfg.maxMemory)} (maxMemoryBytes); audit a shorter summary of the output, fewer pairs, or raise the limit`,
    }
  if (fits < s.budget) {
    s.budget = fits - (fits % (2 * P))
    st.issues.push({ _tag: 'TooFewTrials', message: `outputs are a ${showShape(shape)}: the selection sample is limited to ${int(s.budget)} trials to stay within ${int(st.cfg.maxMemory)} bytes (maxMemoryBytes)` })
  }
  s.selChunk = Math.max(1, Math.min(st.cfg.chunk, Math.floor(CHUNK_BYTES / bytes)))
  return null
}

/**
 * Trials per chunk in a round of selection: the audit's chunk, but small enough that every worker
 * gets about four chunks (issue 23: a round is a few hundred thousand trials, capped per side, so the
 * audit's chunk, sized for estimation, gave 16 workers two chunks of 100k while 14 idled), and no
 * smaller than MIN_AUTO_CHUNK (a chunk's message and merge). Chunking never changes a result:
 * trials are seeded by index and merged in trial order.
 */
const roundChunk = <I>(st: AuditState<I>, s: Search, targets: ReadonlyArray<readonly [number, number]>): number => {
  let trials = 0
  for (const [p, target] of targets) trials += 2 * Math.max(0, target - (s.have[p] as number))
  return Math.min(s.selChunk, Math.max(MIN_AUTO_CHUNK, Math.ceil(trials / (4 * st.workers))))
}

/** Runs each listed pair up to `target` trials per side and merges its samples; an outcome to end with, or null. */
function* grow<I>(st: AuditState<I>, s: Search, targets: ReadonlyArray<readonly [number, number]>): AuditSteps<Ended | null> {
  const chunk = roundChunk(st, s, targets)
  const tasks: ChunkTask[] = []
  for (const [p, target] of targets)
    for (const side of [0, 1] as const)
      for (let t = s.have[p] as number; t < target; t += chunk)
        tasks.push({ id: s.nextId++, phase: 'select', pair: p, side, seed: st.seed, start: t, end: Math.min(target, t + chunk) })
  const got = new Map<number, SelectChunkResult>()
  const ran = yield* runBatches(st, 'select', tasks, (r) => {
    if (r.phase === 'select') got.set(r.id, r)
  }, () => undefined)
  for (const r of got.values()) s.spent += r.completed
  if (ran === 'stopped') return { _tag: 'stopped', trials: s.spent }
  if (ran !== 'done') return { _tag: 'failed', trials: s.spent, issue: { _tag: 'WorkerFailed', message: ran, phase: 'select' } }
  for (const t of tasks) (s.chunksOf[t.pair] as SelectChunkResult[][])[t.side]!.push(got.get(t.id) as SelectChunkResult)
  const failures: AuditIssue[] = []
  for (const [p, target] of targets) {
    s.have[p] = target
    const [c0, c1] = s.chunksOf[p] as [SelectChunkResult[], SelectChunkResult[]]
    const m0 = mergeSelection(c0, null)
    if (m0.failure !== null) failures.push(failureIssue(m0.failure, 'select', p, 0))
    const m1 = mergeSelection(c1, m0.shape)
    if (m1.failure !== null) failures.push(failureIssue(m1.failure, 'select', p, 1))
    if (m0.shape !== null && m1.shape !== null && !sameShape(m0.shape, m1.shape) && m1.failure === null)
      failures.push({ _tag: 'ShapeChanged', message: `pair ${p}: outputs on the input are a ${showShape(m0.shape)} but on the neighbour a ${showShape(m1.shape)}`, phase: 'select', pair: p, side: 1, trial: 0 })
    if (m0.shape === null) continue
    const cats = m0.shape.kind === 'category' ? unifyCategories(m0, m1) : { categories: [], codes: [m0.codes, m1.codes] as [Int32Array, Int32Array] }
    s.samples[p] = { shape: m0.shape, n: [m0.n, m1.n], values: [m0.values, m1.values], codes: cats.codes, categories: cats.categories }
  }
  const first = earliest(failures)
  return first === null ? null : { _tag: 'failed', trials: s.spent, issue: first }
}

/**
 * The best (family, event) of each listed pair on its current sample (null where no family applies);
 * records the candidates. All the pairs' family fits go to the executor's fit runner at once, so
 * they run in parallel on worker threads; the choice among them is made here, in the families' order.
 */
const evaluate = <I>(st: AuditState<I>, s: Search, pairs: ReadonlyArray<number>): Map<number, PairChoice | null> => {
  // The bound is expected at the estimation size left if selection stopped now.
  const projection = { n: Math.max(1, Math.floor((st.cfg.trials - s.spent) / 2)), z: s.z, ...(st.cfg.claim.delta === 0 ? { zRatio: zFor(st.cfg.alpha) } : {}) }
  const jobs: FitJob[] = []
  const sampled = pairs.filter((p) => s.samples[p] !== null && s.samples[p] !== undefined)
  for (const p of sampled)
    jobs.push(...pairJobs(p, s.samples[p] as PairSamples, st.cfg.families, st.cfg.claim.delta, s.z, projection))
  const fits = jobs.length === 0 ? [] : st.fit(jobs)
  const J = pairJobCount(st.cfg.families)
  const out = new Map<number, PairChoice | null>(pairs.map((p) => [p, null]))
  sampled.forEach((p, k) => {
    const e = bestOfPair(p, st.cfg.pairs[p]?.label ?? `pair ${p}`, (s.samples[p] as PairSamples).shape, st.cfg.families, fits.slice(k * J, (k + 1) * J))
    for (const c of e.candidates) s.candidates.set(`${c.pair}/${c.family}`, c)
    out.set(p, e.best)
  })
  return out
}

/**
 * Halving: ⌈log₂ P⌉ rounds (one if P = 1) share half the budget; each round gives every surviving
 * pair an equal share (capped: a first look at 100k outputs per side is plenty) and keeps the better half.
 */
function* halving<I>(st: AuditState<I>, s: Search): AuditSteps<Ended | { readonly _tag: 'best'; readonly best: PairChoice | null }> {
  const P = st.cfg.pairs.length
  const rounds = Math.max(1, Math.ceil(Math.log2(P)))
  let alive = [...Array(P).keys()]
  let choices = new Map<number, PairChoice>()
  for (let r = 0; r < rounds; r++) {
    const share = Math.min(HALVING_CAP_PER_SIDE, halvingShare(s.budget, rounds, alive.length, st.cfg.claim.epsilon))
    const end = yield* grow(st, s, alive.map((p) => [p, Math.min(st.cfg.maxSelection, (s.have[p] as number) + Math.max(MIN_SELECTION_PER_SIDE, share))] as const))
    if (end !== null) return end
    choices = new Map()
    for (const [p, c] of evaluate(st, s, alive)) if (c !== null) choices.set(p, c)
    if (r + 1 < rounds) alive = betterHalf([...choices.values()].map((c) => ({ pair: c.pair, objective: c.objective })))
  }
  let best: PairChoice | null = null
  for (const c of choices.values())
    if (best === null || c.objective > best.objective + 1e-12 || (Math.abs(c.objective - best.objective) <= 1e-12 && c.advantage > best.advantage + 1e-12)) best = c
  return { _tag: 'best', best }
}

/**
 * More samples help only if the event is at the resolution of the tuning half: its rarer count
 * (false positives or false negatives) is small, so a rarer, better event may be unseen.
 */
const resolutionLimited = (c: PairChoice, claimEpsilon: number): boolean => {
  if (c.rule === 'gaussian-tail') return false
  const t = c.attack.threshold
  const o = c.attack.orientation
  let fp = 0
  let fn = 0
  for (let i = 0; i < c.tune1.length; i++) if (o * (c.tune1[i] as number) >= t) fp++
  for (let i = 0; i < c.tune0.length; i++) if (o * (c.tune0[i] as number) < t) fn++
  return Math.min(fp, fn) < resolutionCount(claimEpsilon)
}

/**
 * Deepening: doubles the winner's sample while its expected bound does not clear the claim (with a
 * margin), the event is resolution-limited, and the budget and the per-side cap allow. Null when
 * there was nothing to deepen.
 */
function* deepen<I>(st: AuditState<I>, s: Search, start: PairChoice | null): AuditSteps<Ended | { readonly _tag: 'best'; readonly best: PairChoice } | null> {
  const clears = (c: PairChoice): boolean => c.objective >= st.cfg.claim.epsilon * 1.05 + 0.02
  let best = start
  while (best !== null && !clears(best) && resolutionLimited(best, st.cfg.claim.epsilon)) {
    const p = best.pair
    const n = s.have[p] as number
    const next = Math.min(st.cfg.maxSelection, 2 * n)
    if (next <= n || s.spent + 2 * (next - n) > s.budget) break
    const end = yield* grow(st, s, [[p, next]])
    if (end !== null) return end
    best = evaluate(st, s, [p]).get(p) ?? best
  }
  return best === null ? null : { _tag: 'best', best }
}

/** The exact-support test on the chosen pair's selection outputs, when the spec has an oracle. */
const supportOf = <I>(st: AuditState<I>, s: Search, best: PairChoice): SupportTest | undefined => {
  const chosen = s.samples[best.pair]
  const pair = st.cfg.pairs[best.pair]
  if (st.spec.support === undefined || chosen === null || chosen === undefined || pair === undefined) return undefined
  const d = chosen.shape.dim
  const at =
    (side: 0 | 1) =>
    (i: number): unknown => {
      switch (chosen.shape.kind) {
        case 'number':
          return chosen.values[side][i]
        case 'boolean':
          return chosen.values[side][i] !== 0
        case 'vector':
          return Array.from(chosen.values[side].subarray(i * d, (i + 1) * d))
        case 'category':
          return chosen.categories[chosen.codes[side][i] as number]
      }
    }
  return supportTest(st.spec.support, pair.input, pair.neighbour, [at(0), at(1)], chosen.n, st.cfg.alpha)
}

/** What selection hands to estimation (and to the checkpoint): the attack, its score grid, the candidates. */
const outcome = <I>(st: AuditState<I>, s: Search, best: PairChoice): SelectionOutcome => {
  const grid = scoreGrid(best.tune0, best.tune1, best.attack.threshold, best.attack.orientation, best.sortedTune)
  st.selPerPairSide = Math.max(...s.have)
  const support = supportOf(st, s, best)
  return {
    pair: best.pair,
    family: best.family,
    attack: best.attack,
    grid,
    tuneEpsilon: best.objective,
    candidates: [...s.candidates.values()],
    trials: s.spent,
    perPairPerSide: st.selPerPairSide,
    bound: best.form,
    ...(support === undefined ? {} : { support }),
  }
}
