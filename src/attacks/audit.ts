/**
 * `auditMechanism`: a black-box audit of a mechanism given as code. An accountant bounds ε from
 * above; an audit bounds it from below, with a stated confidence, by what an attacker can
 * actually distinguish between neighbouring inputs.
 *
 * Procedure (the Clopper–Pearson audit of Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021):
 * 1. Selection. For every candidate pair, run the mechanism on both inputs; fit each applicable
 *    attack family on the first half of those trials and choose the event {σ·score ≥ t} on the
 *    second half. Keep the best (pair, family, event).
 * 2. Estimation. On fresh trials of the chosen pair (new random streams), count false positives
 *    (neighbour's outputs in the event) and false negatives (input's outputs outside it).
 * 3. Bound. ε_LB = max{0, ln((1−δ−FPR_hi)/FNR_hi), ln((1−δ−FNR_hi)/FPR_hi)} with FPR_hi, FNR_hi the
 *    one-sided Clopper–Pearson upper bounds at α/2 each, so ε_LB ≤ ε holds with probability ≥ 1−α
 *    for every (ε, δ)-DP mechanism (union bound over the two rates; Kairouz, Oh & Viswanath 2015).
 * 4. Verdict. `violation` if ε_LB > claimed ε; `inconclusive` if the run could not have certified
 *    more than the claim (its ceiling ≤ ε) or did not finish; `consistent` otherwise.
 *
 * Every random choice comes from the audit seed: trial i of (phase, pair, side) has its own stream,
 * so the result is the same for any chunking and any number of workers.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../core/error.js'
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'
import { analyticGaussianEpsilon } from '../accounting/analytic-gaussian.js'
import { certifiableCeiling, clopperPearson, epsilonFromRates, epsilonLowerBound, projectedTrials, trialsForCeiling } from './bounds.js'
import { type CandidateSummary, type Checkpoint, checkpointProblem, type EstimationChunkRecord, fingerprint, readCheckpoint, type SelectionOutcome, writeCheckpoint } from './checkpoint.js'
import { type Claim, validateClaim } from './claim.js'
import { type Executor, inProcessExecutor, type MechanismRef, zooMechanism } from './executor.js'
import { ZOO_NAMES, zooEntry } from './zoo/index.js'
import { type BlackBox, type OutputShape, sameShape, showShape, type TrialFailure, type TrialFailureTag } from './output.js'
import { isIdenticalPair, MAX_PAIRS, materializePairs, type NeighbourPair, pairViolation, type PairsSource } from './pairs.js'
import { acquireWorkerPool } from './pool.js'
import { type RocData, rocFromCounts } from './roc.js'
import type { AttackReport, AuditIssue, AuditResult, AuditStatus, GdpTest, Verdict } from './result.js'
import { ATTACK_FAMILIES, type AttackFamily, type ChosenAttack, describeAttack } from './score.js'
import { type PairSamples, scoreGrid, zFor } from './select.js'
import { betterHalf, evaluatePair, type PairChoice } from './search.js'
import { type SupportOracle, type SupportTest, supportTest } from './support.js'
import { hashSeed } from './stream.js'
import { type ChunkResult, type ChunkTask, chunkShapeFailure, type EstimateChunkResult, type SelectChunkResult } from './trials.js'

export type { AnyAuditResult, AttackReport, AuditIssue, AuditIssueTag, AuditResult, AuditStatus, AuditSubject, GdpTest, Verdict } from './result.js'

export interface AuditProgress {
  readonly phase: 'select' | 'estimate'
  /** Trials finished, including those restored from a checkpoint. */
  readonly trialsDone: number
  readonly trialsTotal: number
  /** Trials restored from a checkpoint (not run in this session). */
  readonly trialsResumed: number
}

export interface AuditSpec<I> {
  /** The mechanism: a function (runs in this thread) or a reference a worker thread can load. */
  readonly mechanism: BlackBox<I> | MechanismRef
  /** Neighbouring pairs to try; the audit picks the most revealing on selection trials. */
  readonly pairs: PairsSource<I>
  readonly claim: Claim
  /** Total mechanism runs: selection (all pairs, both sides) plus estimation (both sides). */
  readonly trials: number
  readonly seed: string | number
  /** Confidence of the lower bound (default 0.95). */
  readonly confidence?: number
  /** A name for reports (default: the zoo name, module export or function name). */
  readonly name?: string
  /** Worker threads (default 1, in this thread; more needs a MechanismRef and the compiled package). */
  readonly workers?: number
  /** Share of trials spent choosing the attack (default 0.2). */
  readonly selectionFraction?: number
  /** Cap on selection trials per pair and side (default 1 000 000): beyond it, trials go to estimation. */
  readonly maxSelectionPerSide?: number
  /** Attack families to try (default: every family that applies to the outputs). */
  readonly families?: ReadonlyArray<AttackFamily>
  /** Trials per work unit (default 65 536, fewer for long vector outputs); does not change the result. */
  readonly chunkSize?: number
  /**
   * Memory the selection samples may take (default 1 GiB). Selection keeps its outputs to fit
   * attacks on; estimation streams. Long vector outputs shrink the selection sample to fit, and an
   * audit whose smallest useful selection sample would not fit is refused with a message.
   */
  readonly maxMemoryBytes?: number
  /**
   * Watchdog for worker threads (default 10 minutes): when no chunk of trials finishes for this
   * long, the threads are stopped and the audit ends as `mechanism-failed` with the trials that
   * finished. A mechanism running in this thread (workers: 1 with a function or zoo entry) cannot
   * be interrupted: audit untrusted code on worker threads.
   */
  readonly chunkTimeoutMs?: number
  /** A checkpoint file: written while running, resumed from if it exists and matches this audit. */
  readonly checkpoint?: string
  readonly onProgress?: (p: AuditProgress) => void
  /** Polled between batches of chunks; returning true stops the audit (checkpointed) with status `interrupted`. */
  readonly shouldStop?: () => boolean
  /** Runs the chunks instead of the default executor (testing, custom schedulers). */
  readonly executor?: Executor
  /**
   * A support oracle, "can this input produce this output?" (support.ts): the exact-support test
   * runs it on the chosen pair's selection outputs. An output impossible on the other input refutes
   * every pure ε with certainty (given a correct oracle). Runs in this thread, whatever the workers.
   */
  readonly support?: SupportOracle<I>
}

export const DEFAULT_CONFIDENCE = 0.95
export const DEFAULT_SELECTION_FRACTION = 0.2
export const DEFAULT_CHUNK = 65_536
export const DEFAULT_MAX_MEMORY_BYTES = 2 ** 30
/** Largest per-pair, per-side sample of a halving round (deepening may go beyond it). */
const HALVING_CAP_PER_SIDE = 100_000
/** Deepening continues only while the chosen event's rarer tuning count is below this. */
const RESOLUTION_COUNT = 50
/** A selection chunk holds at most this many bytes of outputs (a worker's message). */
const CHUNK_BYTES = 64 * 2 ** 20
export const DEFAULT_MAX_SELECTION_PER_SIDE = 1_000_000
/** Fewer selection trials per pair and side than this cannot choose an attack. */
export const MIN_SELECTION_PER_SIDE = 50
/** Largest trial index a stream supports. */
export const MAX_TRIALS = 2 ** 32

/**
 * Part of every checkpoint fingerprint: bump it whenever a change to the audit code would give a
 * different result for the same spec, so a checkpoint written by older code is refused.
 */
export const AUDIT_CODE_VERSION = 'audit-3 (issue 12: successive halving capped at 1e5 per side, deepening while resolution-limited, projected objective, bits/joint families)'

export const METHOD =
  'Clopper–Pearson upper bounds on FPR and FNR at α/2 each (union bound), ε_LB = max{0, ln((1−δ−FPR_hi)/FNR_hi), ln((1−δ−FNR_hi)/FPR_hi)}; attack chosen on separate selection trials'

const pct = (c: number): string => `${+(c * 100).toPrecision(6)}%`
const int = (x: number): string => (Number.isFinite(x) ? x.toLocaleString('en-US') : '∞')
const num = (x: number, d = 3): string => (x === Infinity ? '∞' : Number.isInteger(x) ? String(x) : x.toFixed(d))

const mechanismName = <I>(spec: AuditSpec<I>): string => {
  if (spec.name !== undefined) return spec.name
  const m = spec.mechanism
  if (typeof m === 'function') return m.name !== '' ? m.name : 'anonymous mechanism'
  return m._tag === 'ZooRef' ? m.name : m.exportName
}

interface Validated<I> {
  readonly claim: Claim
  readonly confidence: number
  readonly alpha: number
  readonly pairs: ReadonlyArray<NeighbourPair<I>>
  readonly trials: number
  readonly fraction: number
  readonly maxSelection: number
  readonly chunk: number
  readonly families: ReadonlyArray<AttackFamily>
  readonly workers: number
  readonly maxMemory: number
}

const validate = <I>(spec: AuditSpec<I>): E.Either<DpError, Validated<I>> => {
  const claim = validateClaim(spec.claim)
  if (E.isLeft(claim)) return claim
  const confidence = spec.confidence ?? DEFAULT_CONFIDENCE
  if (!(confidence > 0 && confidence < 1))
    return E.left(invalidParameter('$.confidence', spec.confidence, 'the confidence must be in (0, 1), e.g. 0.95'))
  if (!(Number.isInteger(spec.trials) && spec.trials >= 1 && spec.trials <= MAX_TRIALS))
    return E.left(invalidParameter('$.trials', spec.trials, `the number of trials must be an integer in [1, 2^32]`))
  const fraction = spec.selectionFraction ?? DEFAULT_SELECTION_FRACTION
  if (!(fraction > 0 && fraction < 1))
    return E.left(invalidParameter('$.selectionFraction', spec.selectionFraction, 'the selection fraction must be in (0, 1)'))
  const maxSelection = spec.maxSelectionPerSide ?? DEFAULT_MAX_SELECTION_PER_SIDE
  if (!(Number.isInteger(maxSelection) && maxSelection >= MIN_SELECTION_PER_SIDE))
    return E.left(invalidParameter('$.maxSelectionPerSide', spec.maxSelectionPerSide, `the selection cap must be an integer ≥ ${MIN_SELECTION_PER_SIDE}`))
  const chunk = spec.chunkSize ?? DEFAULT_CHUNK
  if (!(Number.isInteger(chunk) && chunk >= 1))
    return E.left(invalidParameter('$.chunkSize', spec.chunkSize, 'the chunk size must be a positive integer'))
  if (spec.chunkTimeoutMs !== undefined && !(typeof spec.chunkTimeoutMs === 'number' && spec.chunkTimeoutMs >= 1))
    return E.left(invalidParameter('$.chunkTimeoutMs', spec.chunkTimeoutMs, 'the chunk timeout must be a number of milliseconds ≥ 1'))
  const maxMemory = spec.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES
  if (!(typeof maxMemory === 'number' && maxMemory >= 2 ** 20))
    return E.left(invalidParameter('$.maxMemoryBytes', spec.maxMemoryBytes, 'the memory limit must be a number of bytes ≥ 1 MiB'))
  const workers = spec.workers ?? 1
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 1024))
    return E.left(invalidParameter('$.workers', spec.workers, 'the number of workers must be an integer ≥ 1'))
  const families = spec.families ?? ATTACK_FAMILIES
  const unknown = families.find((f) => !ATTACK_FAMILIES.includes(f))
  if (unknown !== undefined || families.length === 0)
    return E.left(invalidParameter('$.families', spec.families, `attack families are some of ${ATTACK_FAMILIES.join(', ')}`))
  if (typeof spec.seed !== 'string' && !(typeof spec.seed === 'number' && Number.isFinite(spec.seed)))
    return E.left(invalidParameter('$.seed', spec.seed, 'the seed must be a string or a finite number'))
  let pairs: ReadonlyArray<NeighbourPair<I>>
  try {
    pairs = materializePairs(spec.pairs)
  } catch (e) {
    return E.left(invalidParameter('$.pairs', undefined, `the pair generator threw: ${e instanceof Error ? e.message : String(e)}`))
  }
  if (pairs.length === 0) return E.left(invalidParameter('$.pairs', [], 'at least one neighbouring pair is needed'))
  if (pairs.length > MAX_PAIRS) return E.left(invalidParameter('$.pairs', pairs.length, `at most ${MAX_PAIRS} candidate pairs`))
  for (const [i, p] of pairs.entries()) {
    if (typeof p !== 'object' || p === null || !('input' in p) || !('neighbour' in p))
      return E.left(invalidParameter(`$.pairs[${i}]`, p, 'a pair is an object { input, neighbour, label? }'))
    if (isIdenticalPair(p))
      return E.left(
        invalidParameter(`$.pairs[${i}]`, p.input, 'the two inputs of this pair are identical; a neighbouring pair must differ in one unit of privacy, or no attack can tell them apart'),
      )
    // A pair the claim's relation does not allow would test a claim nobody made.
    const bad = pairViolation(claim.right.relation, claim.right.change ?? 1, p)
    if (bad !== null)
      return E.left(invalidParameter(`$.pairs[${i}]`, { input: p.input, neighbour: p.neighbour }, `not neighbours under the claim's relation: ${bad}`))
  }
  return E.right({ claim: claim.right, confidence, alpha: 1 - confidence, pairs, trials: spec.trials, fraction, maxSelection, chunk, families, workers, maxMemory })
}

/** Splits [0, n) into chunk tasks of one (phase, pair, side) stream. */
const chunkTasks = (
  firstId: number,
  base: Omit<ChunkTask, 'id' | 'start' | 'end'>,
  n: number,
  chunk: number,
): ChunkTask[] => {
  const out: ChunkTask[] = []
  for (let s = 0, k = 0; s < n; s += chunk, k++) out.push({ ...base, id: firstId + k, start: s, end: Math.min(n, s + chunk) })
  return out
}

const failureIssue = (f: TrialFailure, phase: 'select' | 'estimate', pair: number, side: 0 | 1): AuditIssue => ({
  _tag: f._tag,
  message: `${phase === 'select' ? 'selection' : 'estimation'}, pair ${pair}, ${side === 0 ? 'input' : 'neighbour'} side: ${f.message}`,
  phase,
  pair,
  side,
  trial: f.trial,
})

/** The earliest failure in canonical (pair, side, trial) order. */
const earliest = (xs: ReadonlyArray<AuditIssue>): AuditIssue | null => {
  let best: AuditIssue | null = null
  for (const x of xs) {
    if (
      best === null ||
      (x.pair ?? 0) < (best.pair ?? 0) ||
      ((x.pair ?? 0) === (best.pair ?? 0) && ((x.side ?? 0) < (best.side ?? 0) || ((x.side ?? 0) === (best.side ?? 0) && (x.trial ?? 0) < (best.trial ?? 0))))
    )
      best = x
  }
  return best
}

/** Merges a stream's selection chunks (in trial order) up to its first failure. */
const mergeSelection = (
  chunks: ReadonlyArray<SelectChunkResult>,
  reference: OutputShape | null,
): { shape: OutputShape | null; values: Float64Array; categories: string[]; codes: Int32Array; n: number; failure: TrialFailure | null } => {
  let shape = reference
  let n = 0
  let failure: TrialFailure | null = null
  const used: SelectChunkResult[] = []
  for (const c of chunks) {
    if (shape === null && c.shape !== null) shape = c.shape
    const sf = shape === null ? null : chunkShapeFailure(c, shape)
    if (sf !== null) {
      failure = sf
      break
    }
    used.push(c)
    n += c.completed
    if (c.failure !== null) {
      failure = c.failure
      break
    }
  }
  if (shape === null) return { shape, values: new Float64Array(0), categories: [], codes: new Int32Array(0), n: 0, failure }
  const dim = shape.kind === 'category' ? 0 : shape.dim
  const values = new Float64Array(n * dim)
  const codes = new Int32Array(shape.kind === 'category' ? n : 0)
  const categories: string[] = []
  const dict = new Map<string, number>()
  let at = 0
  for (const c of used) {
    if (shape.kind === 'category') {
      const remap = c.categories.map((k) => {
        let g = dict.get(k)
        if (g === undefined) {
          g = categories.length
          dict.set(k, g)
          categories.push(k)
        }
        return g
      })
      for (let i = 0; i < c.completed; i++) codes[at + i] = remap[c.codes[i] as number] as number
    } else values.set(c.values.subarray(0, c.completed * dim), at * dim)
    at += c.completed
  }
  return { shape, values, categories, codes, n, failure }
}

/** Re-codes side 1's categories into side 0's dictionary (extended), so both sides share codes. */
const unifyCategories = (
  a: { categories: string[]; codes: Int32Array },
  b: { categories: string[]; codes: Int32Array },
): { categories: string[]; codes: [Int32Array, Int32Array] } => {
  const categories = [...a.categories]
  const dict = new Map(categories.map((k, i) => [k, i] as const))
  const remap = b.categories.map((k) => {
    let g = dict.get(k)
    if (g === undefined) {
      g = categories.length
      dict.set(k, g)
      categories.push(k)
    }
    return g
  })
  return { categories, codes: [a.codes, Int32Array.from(b.codes, (c) => remap[c] as number)] }
}

interface EstimationTotals {
  readonly counts: readonly [Float64Array, Float64Array]
  readonly n: readonly [number, number]
  readonly failure: AuditIssue | null
}

/** Sums estimation chunks of each side in trial order, up to that side's first failure. */
const sumEstimation = (records: ReadonlyArray<EstimationChunkRecord>, gridLength: number, pair: number): EstimationTotals => {
  const counts: [Float64Array, Float64Array] = [new Float64Array(gridLength + 1), new Float64Array(gridLength + 1)]
  const n: [number, number] = [0, 0]
  const failures: AuditIssue[] = []
  for (const side of [0, 1] as const) {
    const mine = records.filter((r) => r.side === side).sort((p, q) => p.start - q.start)
    let expected = 0
    for (const r of mine) {
      if (r.start !== expected) break // a gap (interrupted run): count only the contiguous prefix
      for (let k = 0; k <= gridLength; k++) counts[side][k] = (counts[side][k] as number) + (r.counts[k] as number)
      n[side] += r.completed
      expected = r.start + r.completed
      if (r.failure !== null) {
        failures.push(failureIssue(r.failure, 'estimate', pair, side))
        break
      }
    }
  }
  return { counts, n, failure: earliest(failures) }
}

/** The μ-GDP test over every threshold of the estimation grid (see GdpTest). */
const gdpTest = (G: number, c0: Float64Array, c1: Float64Array, delta: number, alpha: number, claimed: number, confidence: number): GdpTest => {
  let n0 = 0
  let n1 = 0
  for (let k = 0; k <= G; k++) {
    n0 += c0[k] as number
    n1 += c1[k] as number
  }
  const a = alpha / (2 * G)
  let mu = 0
  for (let k = 0; k < G; k++) {
    const tp = aboveCount(c0, k)
    const fp = aboveCount(c1, k)
    const fprHi = clopperPearson(fp, n1, a).hi
    const fnrHi = clopperPearson(n0 - tp, n0, a).hi
    // Both orientations: a test and its complement.
    const fprHi2 = clopperPearson(n1 - fp, n1, a).hi
    const fnrHi2 = clopperPearson(tp, n0, a).hi
    for (const [f, g] of [[fprHi, fnrHi], [fnrHi2, fprHi2]] as const)
      if (f < 1 && g < 1) mu = Math.max(mu, normalQuantile(1 - f, 0, 1) - normalQuantile(g, 0, 1))
  }
  const eps = mu > 0 && delta > 0 ? analyticGaussianEpsilon(1 / mu, delta) : null
  const pctc = `${+(confidence * 100).toPrecision(6)}%`
  return {
    muLowerBound: mu,
    epsilonIfGaussian: eps,
    refutesClaimIfGaussian: eps !== null && eps > claimed,
    statement:
      `With ${pctc} confidence the mechanism is not μ-GDP for any μ < ${mu.toFixed(3)} (Clopper–Pearson at α/(2·${G}) per threshold, Bonferroni over the grid).` +
      (eps === null ? '' : ` If its trade-off curve were exactly Gaussian (an assumption), that μ would mean ε ≥ ${num(eps)} at δ = ${delta}.`),
  }
}

const aboveCount = (c: Float64Array, k: number): number => {
  let s = 0
  for (let b = k + 1; b < c.length; b++) s += c[b] as number
  return s
}

/**
 * Audits a mechanism against a claim. Left for input that cannot be audited (invalid claim,
 * identical pair, bad options, worker pool unavailable); otherwise a result, marked with its
 * status, that keeps every trial that ran — a mechanism that throws or returns NaN stops the run
 * with status `mechanism-failed`, never with an exception.
 */
export const auditMechanism = <I>(spec: AuditSpec<I>): E.Either<DpError, AuditResult> => {
  const v = validate(spec)
  if (E.isLeft(v)) return v
  const cfg = v.right
  let executor: Executor
  if (spec.executor !== undefined) executor = spec.executor
  else if (typeof spec.mechanism === 'function') {
    if (cfg.workers > 1)
      return E.left(
        invalidParameter('$.workers', cfg.workers, 'a mechanism given as a function runs in this thread; to use worker threads pass a MechanismRef ({ _tag: "ModuleRef", url, exportName } or a zoo name)'),
      )
    executor = inProcessExecutor(spec.mechanism, cfg.pairs)
  } else if (spec.mechanism._tag === 'ZooRef' && cfg.workers === 1) {
    const m = zooMechanism(spec.mechanism.name, spec.mechanism.claim)
    if (typeof m === 'string') return E.left(invalidParameter('$.mechanism.name', spec.mechanism.name, m))
    executor = inProcessExecutor(m as BlackBox<I>, cfg.pairs)
  } else {
    const pool = acquireWorkerPool(spec.mechanism, cfg.pairs, cfg.workers, spec.chunkTimeoutMs === undefined ? {} : { chunkTimeoutMs: spec.chunkTimeoutMs })
    if (E.isLeft(pool)) return pool
    executor = pool.right
  }
  try {
    return drive(spec, cfg, executor)
  } finally {
    if (spec.executor === undefined) executor.close()
  }
}

const drive = <I>(spec: AuditSpec<I>, cfg: Validated<I>, executor: Executor): E.Either<DpError, AuditResult> => {
  const { claim, alpha, pairs, trials, fraction, chunk } = cfg
  const delta = claim.delta
  const P = pairs.length
  const seed = hashSeed(spec.seed)
  const name = mechanismName(spec)
  // The selection budget, as before issue 12: `fraction` of the trials, at most maxSelection per
  // pair and side. Successive halving spends it unevenly (more on promising pairs) and may stop
  // early; estimation gets whatever selection leaves.
  const selPerSide = Math.min(cfg.maxSelection, Math.floor((trials * fraction) / (2 * P)))
  const selectionBudget = selPerSide * 2 * P
  let estPerSide = Math.floor((trials - selectionBudget) / 2)
  let ceiling = estPerSide >= 1 ? certifiableCeiling(estPerSide, delta, alpha) : 0
  const nCeil = trialsForCeiling(claim.epsilon, delta, alpha)
  /** Total trials for `perSide` estimation trials per side (and enough selection trials). */
  const totalFor = (perSide: number): number => {
    if (!Number.isFinite(perSide)) return Infinity
    const minTotal = Math.ceil((2 * P * MIN_SELECTION_PER_SIDE) / fraction)
    const uncapped = Math.ceil((2 * perSide) / (1 - fraction))
    return Math.max(minTotal, Math.floor((uncapped * fraction) / (2 * P)) > cfg.maxSelection ? 2 * perSide + 2 * P * cfg.maxSelection : uncapped)
  }
  const forCeiling = totalFor(nCeil)
  const issues: AuditIssue[] = []

  const base = {
    schemaVersion: 1 as const,
    subject: { kind: 'mechanism' as const, name, pairs: P },
    mechanism: name,
    claim,
    confidence: cfg.confidence,
    seed: String(spec.seed),
    method: METHOD,
    pairs: P,
  }
  const emptyCounts = { falsePositives: 0, negatives: 0, falseNegatives: 0, positives: 0 }
  const emptyRates = { fpr: Number.NaN, fnr: Number.NaN, fprUpper: 1, fnrUpper: 1 }

  if (selPerSide < MIN_SELECTION_PER_SIDE || !(ceiling > 0)) {
    const needed = Math.max(forCeiling, totalFor(MIN_SELECTION_PER_SIDE))
    const msg =
      selPerSide < MIN_SELECTION_PER_SIDE
        ? `${int(trials)} trials leave ${int(selPerSide)} selection trials per side for each of ${P} pair${P === 1 ? '' : 's'}; at least ${MIN_SELECTION_PER_SIDE} are needed to choose an attack, so at least ${int(needed)} trials in all`
        : `${int(trials)} trials cannot certify any ε > 0 at ${pct(cfg.confidence)} confidence; at least ${int(needed)} trials are needed to test ε = ${claim.epsilon}`
    return E.right({
      ...base,
      ceiling,
      verdict: 'inconclusive',
      status: 'too-few-trials',
      epsilonLowerBound: 0,
      pointEstimate: 0,
      attack: null,
      counts: emptyCounts,
      rates: emptyRates,
      trials: { requested: trials, spent: 0, selection: 0, estimation: 0, selectionPerPairPerSide: selPerSide, estimationPerSide: estPerSide },
      trialsNeeded: { forCeiling: needed, projectedViolation: null },
      roc: null,
      candidates: [],
      issues: [{ _tag: 'TooFewTrials', message: msg }],
      interpretation: `Not run: ${msg}.`,
    })
  }

  // ------------------------------------------------------------------ checkpoint
  const fp = fingerprint({
    v: 2,
    code: AUDIT_CODE_VERSION,
    mechanism: typeof spec.mechanism === 'function' ? { fn: name, source: spec.mechanism.toString() } : spec.mechanism,
    pairs: pairs.map((p) => [p.input, p.neighbour]),
    claim,
    trials,
    seed: String(spec.seed),
    confidence: cfg.confidence,
    fraction,
    maxSelection: cfg.maxSelection,
    chunk,
    families: cfg.families,
  })
  let restored: Checkpoint | null = null
  if (spec.checkpoint !== undefined) {
    const c = readCheckpoint(spec.checkpoint)
    if (E.isLeft(c)) return c
    if (c.right !== null && c.right.fingerprint !== fp)
      return E.left(
        invalidParameter('$.checkpoint', spec.checkpoint, 'this checkpoint belongs to a different audit (mechanism, pairs, claim, trials, seed or options differ); delete it or name another file'),
      )
    if (c.right !== null) {
      const problem = checkpointProblem(c.right, { pairs: P, trials })
      if (problem !== null)
        return E.left(invalidParameter('$.checkpoint', spec.checkpoint, `this checkpoint cannot be resumed: ${problem}; delete it to start the audit afresh`))
    }
    restored = c.right
  }
  let lastWrite = 0
  const save = (selection: SelectionOutcome | null, estimation: ReadonlyArray<EstimationChunkRecord>, force: boolean): void => {
    if (spec.checkpoint === undefined) return
    const now = Date.now()
    if (!force && now - lastWrite < 1000) return
    lastWrite = now
    const err = writeCheckpoint(spec.checkpoint, { kind: 'dpaudit-audit-checkpoint', version: 1, fingerprint: fp, selection, estimation })
    if (err !== null && !issues.some((i) => i._tag === 'CheckpointFailed')) issues.push({ _tag: 'CheckpointFailed', message: err })
  }

  let trialsTotal = selectionBudget + estPerSide * 2
  /** Largest selection sample of one pair and side (successive halving gives pairs different sizes). */
  let selPerPairSide = selPerSide
  let trialsDone = 0
  let trialsResumed = 0
  const stop = (): boolean => spec.shouldStop !== undefined && spec.shouldStop()
  const batchSize = Math.max(4, 4 * executor.workers)

  /** Runs tasks in batches; returns 'stopped' if asked to stop, or an error message. */
  const runBatches = (phase: 'select' | 'estimate', tasks: ReadonlyArray<ChunkTask>, onResult: (r: ChunkResult) => void, afterBatch: () => void): 'done' | 'stopped' | string => {
    for (let b = 0; b < tasks.length; b += batchSize) {
      const err = executor.run(tasks.slice(b, b + batchSize), (r) => {
        trialsDone += r.completed
        onResult(r)
      })
      afterBatch()
      spec.onProgress?.({ phase, trialsDone, trialsTotal, trialsResumed })
      if (err !== null) return err
      if (b + batchSize < tasks.length && stop()) return 'stopped'
    }
    return 'done'
  }

  const result = (
    status: AuditStatus,
    parts: {
      readonly selection: SelectionOutcome | null
      readonly selectionTrials: number
      readonly totals: EstimationTotals | null
    },
  ): AuditResult => {
    const sel = parts.selection
    const tot = parts.totals
    let counts = emptyCounts
    let rates = emptyRates
    let lb = 0
    let point = 0
    let roc: RocData | null = null
    let gdp: GdpTest | null = null
    let profileViolations: Array<{ epsilon: number; delta: number; epsilonLowerBound: number }> = []
    let projected: number | null = null
    const estimated = tot === null ? 0 : tot.n[0] + tot.n[1]
    if (sel !== null && tot !== null && tot.n[0] > 0 && tot.n[1] > 0) {
      const k = sel.grid.indexOf(sel.attack.threshold)
      const tp = aboveCount(tot.counts[0], k)
      const fpC = aboveCount(tot.counts[1], k)
      const fnC = tot.n[0] - tp
      counts = { falsePositives: fpC, negatives: tot.n[1], falseNegatives: fnC, positives: tot.n[0] }
      const fprUpper = clopperPearson(fpC, tot.n[1], alpha / 2).hi
      const fnrUpper = clopperPearson(fnC, tot.n[0], alpha / 2).hi
      rates = { fpr: fpC / tot.n[1], fnr: fnC / tot.n[0], fprUpper, fnrUpper }
      lb = epsilonLowerBound(fpC, tot.n[1], fnC, tot.n[0], delta, alpha)
      point = epsilonFromRates(rates.fpr, rates.fnr, delta)
      roc = rocFromCounts(sel.grid, tot.counts[0], tot.counts[1])
      gdp = gdpTest(sel.grid.length, tot.counts[0], tot.counts[1], delta, alpha, claim.epsilon, cfg.confidence)
      profileViolations = (claim.profile ?? [])
        .map((q) => ({ epsilon: q.epsilon, delta: q.delta, epsilonLowerBound: epsilonFromRates(fprUpper, fnrUpper, q.delta) }))
        .filter((q) => q.epsilonLowerBound > q.epsilon)
      if (lb <= claim.epsilon) {
        const n = projectedTrials(rates.fpr, rates.fnr, claim.epsilon, delta, alpha)
        projected = n === null ? null : totalFor(n)
      }
    }
    // The support test's pure-ε refutation is certain (given the oracle): it adds no error to the verdict.
    const supportRefutes = claim.delta === 0 && sel?.support?.refutesEveryPureEpsilon === true
    const refuted = lb > claim.epsilon || profileViolations.length > 0 || supportRefutes
    const verdict: Verdict = status === 'complete' ? (refuted ? 'violation' : ceiling > claim.epsilon ? 'consistent' : 'inconclusive') : 'inconclusive'
    const attack: AttackReport | null =
      sel === null
        ? null
        : {
            family: sel.family,
            pair: sel.pair,
            pairLabel: pairs[sel.pair]?.label ?? `pair ${sel.pair}`,
            outputShape: sel.attack.shape,
            description: describeAttack(sel.attack),
            selectionEpsilon: sel.tuneEpsilon,
            chosen: sel.attack,
          }
    const perSideDone = tot === null ? 0 : Math.min(tot.n[0], tot.n[1])
    const c = pct(cfg.confidence)
    let interpretation: string
    switch (status) {
      case 'complete':
        interpretation =
          verdict === 'violation'
            ? `Violation: the mechanism is not (${claim.epsilon}, ${delta})-DP on these inputs. With ${c} confidence its ε is at least ${num(lb)}, above the claimed ${claim.epsilon}.`
            : verdict === 'consistent'
              ? `Consistent: no violation found. This run could have certified up to ε = ${num(ceiling)} but the best attack reached ${num(lb)} ≤ ${claim.epsilon}. An audit refutes claims; it cannot prove them.`
              : `Inconclusive: ${int(perSideDone)} trials per side can certify at most ε = ${num(ceiling)}, not more than the claimed ${claim.epsilon}; run at least ${int(forCeiling)} trials.` +
                (projected !== null ? ` At the observed rates about ${int(projected)} trials would certify a violation.` : '')
        break
      case 'mechanism-failed':
      case 'trainer-failed':
        interpretation = `Inconclusive: the audit stopped because the mechanism failed (${issues[issues.length - 1]?.message ?? 'see issues'}). The ${int(trialsDone)} trials that ran are kept in the counts; fix the mechanism and re-run.`
        break
      case 'interrupted':
        interpretation = `Inconclusive: interrupted after ${int(trialsDone)} of ${int(trialsTotal)} trials${spec.checkpoint !== undefined ? `; run again with the same options to resume from ${spec.checkpoint}` : ''}. The bound shown covers only the trials finished.`
        break
      case 'too-few-trials':
        interpretation = 'Not run: too few trials.'
        break
    }
    return {
      ...base,
      ceiling,
      verdict,
      status,
      epsilonLowerBound: lb,
      pointEstimate: point,
      attack,
      counts,
      rates,
      trials: {
        requested: trials,
        spent: parts.selectionTrials + estimated,
        selection: parts.selectionTrials,
        estimation: estimated,
        selectionPerPairPerSide: selPerPairSide,
        estimationPerSide: estPerSide,
      },
      trialsNeeded: { forCeiling, projectedViolation: projected },
      roc,
      candidates: sel?.candidates ?? [],
      issues,
      interpretation:
        supportRefutes && lb <= claim.epsilon && status === 'complete'
          ? `Violation: ${sel?.support?.statement ?? ''}`
          : profileViolations.length > 0 && lb <= claim.epsilon && status === 'complete'
          ? `Violation of the claimed profile: with ${c} confidence the mechanism is not (${profileViolations[0]?.epsilon}, ${profileViolations[0]?.delta})-DP (ε ≥ ${num(profileViolations[0]?.epsilonLowerBound ?? 0)} at that δ), a point the claim includes.`
          : interpretation,
      gdp,
      profileViolations,
      support: sel?.support ?? null,
    }
  }

  // ------------------------------------------------------------------ selection
  type SearchOutcome =
    | { readonly _tag: 'found'; readonly selection: SelectionOutcome }
    | { readonly _tag: 'stopped'; readonly trials: number }
    | { readonly _tag: 'failed'; readonly trials: number; readonly issue: AuditIssue }
    | { readonly _tag: 'refused'; readonly message: string }
  /**
   * Successive halving over the pairs (search.ts), then a growing sample for the survivor while its
   * expected bound does not clear the claim. Trials [n_before, n_after) of each (pair, side)
   * selection stream run in each round, so the result is the same for any chunking and workers.
   */
  const searchAttack = (): SearchOutcome => {
    const z = zFor(alpha / 2)
    const chunksOf: SelectChunkResult[][][] = Array.from({ length: P }, () => [[], []])
    const have = new Array<number>(P).fill(0)
    let spent = 0
    let nextId = 0
    const samples: Array<PairSamples | null> = new Array(P).fill(null)
    /** Runs each listed pair up to `target` trials per side; returns an outcome to end with, or null. */
    const grow = (targets: ReadonlyArray<readonly [number, number]>): SearchOutcome | null => {
      const tasks: ChunkTask[] = []
      for (const [p, target] of targets)
        for (const side of [0, 1] as const) {
          const from = have[p] as number
          for (let s = from; s < target; s += selChunk) tasks.push({ id: nextId++, phase: 'select', pair: p, side, seed, start: s, end: Math.min(target, s + selChunk) })
        }
      const got = new Map<number, SelectChunkResult>()
      const outcome = runBatches('select', tasks, (r) => {
        if (r.phase === 'select') got.set(r.id, r)
      }, () => undefined)
      for (const r of got.values()) spent += r.completed
      if (outcome === 'stopped') return { _tag: 'stopped', trials: spent }
      if (outcome !== 'done') return { _tag: 'failed', trials: spent, issue: { _tag: 'WorkerFailed', message: outcome, phase: 'select' } }
      for (const t of tasks) (chunksOf[t.pair] as SelectChunkResult[][])[t.side]!.push(got.get(t.id) as SelectChunkResult)
      const failures: AuditIssue[] = []
      for (const [p, target] of targets) {
        have[p] = target
        const [c0, c1] = chunksOf[p] as [SelectChunkResult[], SelectChunkResult[]]
        const m0 = mergeSelection(c0, null)
        if (m0.failure !== null) failures.push(failureIssue(m0.failure, 'select', p, 0))
        const m1 = mergeSelection(c1, m0.shape)
        if (m1.failure !== null) failures.push(failureIssue(m1.failure, 'select', p, 1))
        if (m0.shape !== null && m1.shape !== null && !sameShape(m0.shape, m1.shape) && m1.failure === null)
          failures.push({ _tag: 'ShapeChanged', message: `pair ${p}: outputs on the input are a ${showShape(m0.shape)} but on the neighbour a ${showShape(m1.shape)}`, phase: 'select', pair: p, side: 1, trial: 0 })
        if (m0.shape === null) continue
        const cats = m0.shape.kind === 'category' ? unifyCategories(m0, m1) : { categories: [], codes: [m0.codes, m1.codes] as [Int32Array, Int32Array] }
        samples[p] = { shape: m0.shape, n: [m0.n, m1.n], values: [m0.values, m1.values], codes: cats.codes, categories: cats.categories }
      }
      const first = earliest(failures)
      return first === null ? null : { _tag: 'failed', trials: spent, issue: first }
    }
    // Memory before the run: one probe trial gives the output size; selection keeps its outputs
    // (twice, while merging), so a long vector output shrinks the selection sample, or the audit
    // is refused before any memory is spent (a 10⁶-length output would need gigabytes per 100 trials).
    let budget = selectionBudget
    let selChunk = chunk
    {
      const probe: ChunkResult[] = []
      const err = executor.run([{ id: -1, phase: 'select', pair: 0, side: 0, seed, start: 0, end: 1 }], (r) => probe.push(r))
      const shape = probe[0]?.phase === 'select' ? probe[0].shape : null
      if (err === null && shape !== null) {
        const bytes = shape.kind === 'category' ? 64 : 8 * shape.dim
        const fits = Math.floor(cfg.maxMemory / (2 * bytes))
        if (fits < 2 * P * MIN_SELECTION_PER_SIDE)
          return {
            _tag: 'refused',
            message: `outputs are a ${showShape(shape)} (${int(bytes)} bytes each); choosing an attack needs at least ${MIN_SELECTION_PER_SIDE} outputs per pair and side in memory, ${int(2 * P * MIN_SELECTION_PER_SIDE * 2 * bytes)} bytes in all, above the limit of ${int(cfg.maxMemory)} (maxMemoryBytes); audit a shorter summary of the output, fewer pairs, or raise the limit`,
          }
        if (fits < budget) {
          budget = fits - (fits % (2 * P))
          issues.push({ _tag: 'TooFewTrials', message: `outputs are a ${showShape(shape)}: the selection sample is limited to ${int(budget)} trials to stay within ${int(cfg.maxMemory)} bytes (maxMemoryBytes)` })
        }
        selChunk = Math.max(1, Math.min(chunk, Math.floor(CHUNK_BYTES / bytes)))
      }
      // A failing probe is not reported here: the same trial fails again in the first round, which says why.
    }
    const candidates = new Map<string, CandidateSummary>()
    const evaluate = (p: number): PairChoice | null => {
      const s = samples[p]
      if (s === null || s === undefined) return null
      // The bound is expected at the estimation size left if selection stopped now.
      const projection = { n: Math.max(1, Math.floor((trials - spent) / 2)), z }
      const e = evaluatePair(p, pairs[p]?.label ?? `pair ${p}`, s, cfg.families, delta, z, projection)
      for (const c of e.candidates) candidates.set(`${c.pair}/${c.family}`, c)
      return e.best
    }
    // Halving: ⌈log₂ P⌉ rounds (one if P = 1) share half the budget; each round gives every
    // surviving pair an equal share and keeps the better half.
    const rounds = Math.max(1, Math.ceil(Math.log2(P)))
    let alive = [...Array(P).keys()]
    let choices = new Map<number, PairChoice>()
    for (let r = 0; r < rounds; r++) {
      // Capped: a first look at 100k outputs per side is plenty; deepening adds more where it helps.
      const share = Math.min(HALVING_CAP_PER_SIDE, Math.floor(budget / 2 / rounds / (2 * alive.length)))
      const end = grow(alive.map((p) => [p, Math.min(cfg.maxSelection, (have[p] as number) + Math.max(MIN_SELECTION_PER_SIDE, share))] as const))
      if (end !== null) return end
      choices = new Map()
      for (const p of alive) {
        const c = evaluate(p)
        if (c !== null) choices.set(p, c)
      }
      if (r + 1 < rounds) alive = betterHalf([...choices.values()].map((c) => ({ pair: c.pair, objective: c.objective })))
    }
    let best: PairChoice | null = null
    for (const c of choices.values())
      if (best === null || c.objective > best.objective + 1e-12 || (Math.abs(c.objective - best.objective) <= 1e-12 && c.advantage > best.advantage + 1e-12)) best = c
    // Deepening: double the winner's sample while its expected bound does not clear the claim
    // (with a margin) and the budget and the per-side cap allow.
    const clears = (c: PairChoice): boolean => c.objective >= claim.epsilon * 1.05 + 0.02
    // More samples help only if the event is at the resolution of the tuning half: its rarer
    // count (false positives or false negatives) is small, so a rarer, better event may be unseen.
    const resolutionLimited = (c: PairChoice): boolean => {
      if (c.rule === 'gaussian-tail') return false
      const t = c.attack.threshold
      const o = c.attack.orientation
      let fp = 0
      let fn = 0
      for (let i = 0; i < c.tune1.length; i++) if (o * (c.tune1[i] as number) >= t) fp++
      for (let i = 0; i < c.tune0.length; i++) if (o * (c.tune0[i] as number) < t) fn++
      return Math.min(fp, fn) < RESOLUTION_COUNT
    }
    while (best !== null && !clears(best) && resolutionLimited(best)) {
      const p = best.pair
      const n = have[p] as number
      const next = Math.min(cfg.maxSelection, 2 * n)
      if (next <= n || spent + 2 * (next - n) > budget) break
      const end = grow([[p, next]])
      if (end !== null) return end
      best = evaluate(p) ?? best
    }
    if (best === null)
      return { _tag: 'failed', trials: spent, issue: { _tag: 'InvalidOutput', message: `no attack family among ${cfg.families.join(', ')} applies to outputs of this shape` } }
    const sigma = best.attack.orientation
    const t0 = best.tune0
    const t1 = best.tune1
    const grid = scoreGrid(Float64Array.from(t0, (x) => sigma * x), Float64Array.from(t1, (x) => sigma * x), best.attack.threshold)
    selPerPairSide = Math.max(...have)
    const chosen = samples[best.pair]
    const pair = pairs[best.pair]
    let support: SupportTest | undefined
    if (spec.support !== undefined && chosen !== null && chosen !== undefined && pair !== undefined) {
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
      support = supportTest(spec.support, pair.input, pair.neighbour, [at(0), at(1)], chosen.n, alpha)
    }
    return {
      _tag: 'found',
      selection: {
        pair: best.pair,
        family: best.family,
        attack: best.attack,
        grid,
        tuneEpsilon: best.objective,
        candidates: [...candidates.values()],
        trials: spent,
        perPairPerSide: selPerPairSide,
        ...(support === undefined ? {} : { support }),
      },
    }
  }

  let selection: SelectionOutcome | null = restored?.selection ?? null
  if (selection === null) {
    const found = searchAttack()
    if (found._tag === 'refused') return E.left(invalidParameter('$.mechanism', name, found.message))
    if (found._tag === 'stopped') {
      issues.push({ _tag: 'Interrupted', message: `stopped during selection after ${int(trialsDone)} trials (selection restarts on resume)` })
      return E.right(result('interrupted', { selection: null, selectionTrials: found.trials, totals: null }))
    }
    if (found._tag === 'failed') {
      issues.push(found.issue)
      return E.right(result('mechanism-failed', { selection: null, selectionTrials: found.trials, totals: null }))
    }
    selection = found.selection
    save(selection, [], true)
  } else {
    trialsDone += selection.trials
    selPerPairSide = selection.perPairPerSide ?? selPerPairSide
  }
  // What selection left over goes to estimation.
  estPerSide = Math.floor((trials - selection.trials) / 2)
  ceiling = estPerSide >= 1 ? certifiableCeiling(estPerSide, delta, alpha) : 0
  trialsTotal = selection.trials + 2 * estPerSide
  if (ceiling <= claim.epsilon)
    issues.push({
      _tag: 'TooFewTrials',
      message: `${int(estPerSide)} estimation trials per side can certify at most ε = ${num(ceiling)} at ${pct(cfg.confidence)} confidence, not more than the claimed ${claim.epsilon}; ${int(forCeiling)} trials in all would be needed`,
    })


  // ------------------------------------------------------------------ estimation
  const sel = selection
  const records: EstimationChunkRecord[] = [...(restored?.estimation ?? [])]
  const doneIds = new Set(records.map((r) => r.id))
  for (const r of records) trialsDone += r.completed
  if (restored !== null) trialsResumed = trialsDone
  const estTasks = [
    ...chunkTasks(0, { phase: 'estimate', pair: sel.pair, side: 0, seed, attack: sel.attack, grid: sel.grid }, estPerSide, chunk),
  ]
  estTasks.push(...chunkTasks(estTasks.length, { phase: 'estimate', pair: sel.pair, side: 1, seed, attack: sel.attack, grid: sel.grid }, estPerSide, chunk))
  // A failure already recorded ends the run: later chunks of that side would not count.
  const failedBefore = sumEstimation(records, sel.grid.length, sel.pair).failure
  const todo = failedBefore === null ? estTasks.filter((t) => !doneIds.has(t.id)) : []
  spec.onProgress?.({ phase: 'estimate', trialsDone, trialsTotal, trialsResumed })
  const outcome = runBatches(
    'estimate',
    todo,
    (r) => {
      if (r.phase !== 'estimate') return
      const e = r as EstimateChunkResult
      records.push({ id: e.id, side: e.side, start: e.start, completed: e.completed, counts: Array.from(e.counts), failure: e.failure })
    },
    () => save(sel, records, false),
  )
  save(sel, records, true)
  const totals = sumEstimation(records, sel.grid.length, sel.pair)
  if (totals.failure !== null) {
    issues.push(totals.failure)
    return E.right(result('mechanism-failed', { selection: sel, selectionTrials: sel.trials, totals }))
  }
  if (outcome === 'stopped') {
    issues.push({ _tag: 'Interrupted', message: `stopped after ${int(trialsDone)} of ${int(trialsTotal)} trials` })
    return E.right(result('interrupted', { selection: sel, selectionTrials: sel.trials, totals }))
  }
  if (outcome !== 'done') {
    issues.push({ _tag: 'WorkerFailed', message: outcome, phase: 'estimate' })
    return E.right(result('mechanism-failed', { selection: sel, selectionTrials: sel.trials, totals }))
  }
  return E.right(result('complete', { selection: sel, selectionTrials: sel.trials, totals }))
}

/** Options for auditing a zoo entry (defaults: its own claim and pairs, its suggested trials, seed "dpaudit"). */
export interface ZooAuditOptions extends Omit<AuditSpec<unknown>, 'mechanism' | 'pairs' | 'claim' | 'trials' | 'seed'> {
  /** The claim audited against (default: the entry's). */
  readonly claim?: Claim
  /** The claim the implementation is built for (default: `claim`). Apart from `claim` when a
   * claim is tested against the mechanism as shipped (`dpaudit audit zoo:NAME --epsilon E`). */
  readonly builtFor?: Claim
  readonly trials?: number
  readonly seed?: string | number
}

/** Audits a zoo entry by name (in this thread, or on `workers` threads from the compiled package). */
export const auditZoo = (name: string, options: ZooAuditOptions = {}): E.Either<DpError, AuditResult> => {
  const entry = zooEntry(name)
  if (entry === undefined) return E.left(invalidParameter('$.mechanism', name, `no zoo mechanism named "${name}" (one of ${ZOO_NAMES.join(', ')})`))
  const { builtFor: _builtFor, ...rest } = options
  const claim = options.claim ?? entry.defaultClaim
  const built = options.builtFor ?? claim
  return auditMechanism<unknown>({
    ...rest,
    mechanism: { _tag: 'ZooRef', name, claim: built },
    ...(entry.support === undefined || options.support !== undefined ? {} : { support: entry.support(built) }),
    pairs: entry.pairs(),
    claim,
    trials: options.trials ?? entry.suggestedTrials,
    seed: options.seed ?? 'dpaudit',
    name: options.name ?? name,
  })
}
