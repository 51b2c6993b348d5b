/**
 * `auditTrainer`: an ε lower bound for a trainer from a distinguishing game (./game.ts), by the
 * auditor's procedure (Kairouz, Oh & Viswanath 2015; Jagielski, Ullman & Oprea 2020, as ../audit.ts does for mechanisms):
 *
 * 1. Selection. n_sel seeded runs per side (streams of phase "select"). Their first half are the
 *    shadow models: LiRA's IN/OUT Gaussians are fitted there (./lira.ts). On the second half every
 *    candidate test — each statistic of the game as it is, and its LiRA ratio — is swept over both
 *    orientations and every threshold (`sweep`, ε̂ at Wilson upper bounds), and the best is kept.
 * 2. Estimation. n_est fresh runs per side (phase "estimate", disjoint streams): false positives
 *    (D′ runs in the event) and false negatives (D runs outside it).
 * 3. Bound. ε_LB = max{0, ln((1−δ−FPR_hi)/FNR_hi), ln((1−δ−FNR_hi)/FPR_hi)} with Clopper–Pearson
 *    upper bounds at α/2 each (`epsilonLowerBound`), valid with probability ≥ 1 − α for every
 *    (ε, δ)-DP trainer under the game's neighbouring step; the ceiling (perfect separation) is
 *    printed beside it.
 * Steps 1 (the choice) and 3 are `chooseTestAndBound` (./threshold-test.ts), shared with the
 * classifier-membership audit; this module runs the training and gathers the statistics.
 *
 * Chunks of runs go to an executor: in this thread (default) or a BullMQ queue (../queue). Results
 * are stored by run index, so the answer is the same for any chunking and any number of machines,
 * and a chunk delivered twice (a retried job) is counted once.
 *
 * Every run is seeded: none is a private release (the result says so). The audit measures what the
 * trainer's code does with its randomness, which is the same code with node:crypto words.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { certifiableCeiling } from '../bounds.js'
import { type AuditClaim, validateClaim } from '../claim.js'
import { type Executor, runStepsAsync, type Steps } from '../executor.js'
import { hashSeed } from '../stream.js'
import { chunkId, runTrainerChunk, type TrainerChunkResult, type TrainerChunkTask } from './chunk.js'
import { type FeatureName, type FeatureOptions, featuresFor } from './features.js'
import { type AccountedClaim, accountedClaim, isAccountedClaim } from './accounted.js'
import { buildGame, type GameTrainer, type TrainerGame, type TrainerGameSpec } from './game.js'
import type { TrainerAuditResult } from '../result.js'
import { chooseTestAndBound } from './threshold-test.js'

/** What an executor needs to run this audit's chunks anywhere. */
export interface TrainerAuditContext {
  /** A digest of (game, seed, statistics): equal audits share it, so their chunks can be shared. */
  readonly auditId: string
  readonly game: TrainerGame
  readonly seed: string
  readonly features: ReadonlyArray<FeatureName>
}

/** The executor interface of every audit (../executor.ts), on trainer chunks. */
export type TrainerExecutor = Executor<TrainerChunkTask, TrainerChunkResult>

export type ExecutorFactory = (ctx: TrainerAuditContext) => TrainerExecutor

export interface TrainerAuditSpec {
  readonly game: TrainerGameSpec
  /** The claim to test, or `{ accounted: true, delta }`: the accountant's ε at δ for the trainer's plan (./accounted.ts). */
  readonly claim: AuditClaim | AccountedClaim
  /** Training runs in all: selection and estimation, both sides. */
  readonly runs: number
  readonly seed: string | number
  readonly confidence?: number
  /** Share of runs spent choosing the test (default 0.3; half of it fits LiRA's shadow models). */
  readonly selectionFraction?: number
  /** Runs per chunk (default 25); does not change the result. */
  readonly chunkSize?: number
  /** A trainer object instead of the registry's: a plug-in (`dpaudit audit` loads its module; a queue's workers load it from the `file:` URL or absolute path in `game.trainer`), a test-only variant (in-process only). */
  readonly trainer?: GameTrainer
  readonly featureOptions?: FeatureOptions
  readonly executor?: ExecutorFactory
  readonly onProgress?: (p: { readonly phase: 'select' | 'estimate'; readonly done: number; readonly total: number }) => void
  /**
   * Polled between batches of chunks; returning true ends the audit after the batch in flight with
   * status `interrupted` (a queued audit's finished chunks stay in Redis: the same audit reuses them).
   */
  readonly shouldStop?: () => boolean
}

export type { CandidateReport, TrainerVerdict } from './threshold-test.js'
export type { TrainerAuditResult } from '../result.js'

export const TRAINER_METHOD =
  'seeded training runs on D and D′; test chosen on selection runs (statistics and LiRA ratios fitted on the first half, threshold swept on the second); Clopper–Pearson upper bounds on FPR and FNR of fresh runs at α/2 each; ε_LB = max{0, ln((1−δ−FPR_hi)/FNR_hi), ln((1−δ−FNR_hi)/FPR_hi)}'

const SEEDED = 'every run is seeded from the audit seed (reproducible), so none is a private release: the audit measures what the trainer computes, not a deployment'

/** Runs chunks one after another in this thread, yielding to the event loop between them. */
export const localExecutor = (ctx: TrainerAuditContext, options: FeatureOptions = {}): TrainerExecutor => {
  const seed = hashSeed(ctx.seed)
  return {
    workers: 1,
    run: async (tasks, onResult) => {
      for (const t of tasks) {
        onResult(runTrainerChunk(ctx.game, ctx.features, seed, t, options))
        await new Promise<void>((r) => setImmediate(r))
      }
      return null
    },
    close: async () => undefined,
  }
}

/** The digest that names an audit's chunks: same game, seed and statistics ⇒ same chunks. */
export const auditDigest = (game: TrainerGameSpec, seed: string, features: ReadonlyArray<FeatureName>): string =>
  createHash('sha256').update(JSON.stringify({ v: 1, game, seed, features })).digest('hex').slice(0, 24)

const tasksFor = (phase: 'select' | 'estimate', perSide: number, chunk: number): TrainerChunkTask[] => {
  const out: TrainerChunkTask[] = []
  for (const side of [0, 1] as const)
    for (let s = 0; s < perSide; s += chunk) out.push({ id: chunkId(phase, side, s), phase, side, start: s, end: Math.min(perSide, s + chunk) })
  return out
}

/** Trainer-audit steps: batches of chunk tasks out, their outcomes in. */
type TrainerSteps<A> = Steps<TrainerChunkTask, TrainerChunkResult, A>

interface Collected {
  readonly features: [Float64Array, Float64Array]
  readonly n: [number, number]
  readonly failure: string | null
  /** Stopped by `shouldStop` before every chunk ran; `ran` runs had finished. */
  readonly stopped: boolean
  readonly ran: number
}

/**
 * A selection or estimation phase: runs the tasks in batches of `batch` (progress between them),
 * and assembles each side's features in run order.
 */
function* collect(
  tasks: ReadonlyArray<TrainerChunkTask>,
  batch: number,
  F: number,
  perSide: number,
  progress: (done: number) => void,
  shouldStop: () => boolean,
): TrainerSteps<Collected> {
  const byId = new Map<string, TrainerChunkResult>()
  const wanted = new Set(tasks.map((t) => t.id))
  let done = 0
  let error: string | null = null
  for (let b = 0; b < tasks.length && error === null; b += batch) {
    if (b > 0 && shouldStop()) return { features: [new Float64Array(0), new Float64Array(0)], n: [0, 0], failure: null, stopped: true, ran: done }
    const out = yield tasks.slice(b, b + batch)
    for (const r of out.results) {
      if (byId.has(r.id) || !wanted.has(r.id)) continue // a retried chunk, counted once
      byId.set(r.id, r)
      done += r.completed
    }
    progress(done)
    error = out.error
  }
  const features: [Float64Array, Float64Array] = [new Float64Array(perSide * F), new Float64Array(perSide * F)]
  const n: [number, number] = [0, 0]
  let failure: string | null = error
  for (const side of [0, 1] as const) {
    // in run order, up to the first missing or failed chunk
    for (const t of tasks.filter((x) => x.side === side).sort((a, b) => a.start - b.start)) {
      const r = byId.get(t.id)
      if (r === undefined) {
        failure ??= `chunk ${t.id} did not return`
        break
      }
      features[side].set(r.features, t.start * F)
      n[side] += r.completed
      if (r.failure !== null) {
        failure ??= r.failure
        break
      }
    }
  }
  return { features: [features[0].subarray(0, n[0] * F), features[1].subarray(0, n[1] * F)], n, failure, stopped: false, ran: done }
}

const num = (x: number): string => (x === Infinity ? '∞' : x.toFixed(3))

const validate = (spec: TrainerAuditSpec): E.Either<DpError, { claim: AuditClaim | AccountedClaim; confidence: number; fraction: number; chunk: number }> => {
  const claim = isAccountedClaim(spec.claim) ? E.right(spec.claim) : validateClaim(spec.claim)
  if (E.isLeft(claim)) return claim
  const confidence = spec.confidence ?? 0.95
  if (!(confidence > 0 && confidence < 1)) return E.left(invalidParameter('$.confidence', spec.confidence, 'the confidence must be in (0, 1), e.g. 0.95'))
  if (!(Number.isInteger(spec.runs) && spec.runs >= 40 && spec.runs <= 2 ** 31))
    return E.left(invalidParameter('$.runs', spec.runs, 'the number of training runs must be an integer ≥ 40 (at least 10 per side and phase)'))
  const fraction = spec.selectionFraction ?? 0.3
  if (!(fraction > 0 && fraction < 1)) return E.left(invalidParameter('$.selectionFraction', spec.selectionFraction, 'the selection fraction must be in (0, 1)'))
  const chunk = spec.chunkSize ?? 25
  if (!(Number.isInteger(chunk) && chunk >= 1)) return E.left(invalidParameter('$.chunkSize', spec.chunkSize, 'the chunk size must be a positive integer'))
  if (typeof spec.seed !== 'string' && !(typeof spec.seed === 'number' && Number.isFinite(spec.seed)))
    return E.left(invalidParameter('$.seed', spec.seed, 'the seed must be a string or a finite number'))
  return E.right({ claim: claim.right, confidence, fraction, chunk })
}

/** Phase 1 of a trainer audit, the budget: the validated spec, the game, and how the runs split. */
interface TrainerPlan {
  readonly spec: TrainerAuditSpec
  readonly claim: AuditClaim
  /** Whether the claim is the accountant's ε for the trainer's plan (`AccountedClaim`) or was given. */
  readonly accounted: boolean
  readonly confidence: number
  readonly chunk: number
  readonly game: TrainerGame
  readonly names: ReadonlyArray<FeatureName>
  readonly selPerSide: number
  readonly estPerSide: number
  readonly ceiling: number
  readonly ctx: TrainerAuditContext
}

const planTrainerAudit = (spec: TrainerAuditSpec): E.Either<DpError, TrainerPlan> => {
  const v = validate(spec)
  if (E.isLeft(v)) return v
  const { confidence, fraction, chunk } = v.right
  const g = buildGame(spec.game, spec.trainer)
  // the game's fields are named from the audit spec: $.neighbour → $.game.neighbour
  if (E.isLeft(g)) return E.left({ ...g.left, path: g.left.path.replace(/^\$/, '$.game') } as DpError)
  const game = g.right
  const given = v.right.claim
  const accounted = isAccountedClaim(given)
  const c = accounted ? accountedClaim(game, given.delta) : E.right(given)
  if (E.isLeft(c)) return c
  const claim = c.right
  const names = featuresFor(game, spec.featureOptions)
  if (names.length === 0)
    return E.left(
      invalidParameter('$.game.trainer', game.trainer.name, `the trainer declares no release an audit can score in a ${game.spec.view} game (releases: [${game.trainer.releases.join(', ')}])`),
    )
  const seed = String(spec.seed)
  const selPerSide = Math.max(10, Math.floor((spec.runs * fraction) / 2))
  const estPerSide = Math.max(10, Math.floor((spec.runs - 2 * selPerSide) / 2))
  const ceiling = certifiableCeiling(estPerSide, claim.delta, 1 - confidence)
  const ctx: TrainerAuditContext = { auditId: auditDigest(spec.game, seed, names), game, seed, features: names }
  return E.right({ spec, claim, accounted, confidence, chunk, game, names, selPerSide, estPerSide, ceiling, ctx })
}

/** The fields of every trainer result, given the runs spent. */
const header = (p: TrainerPlan, spent: number) => ({
  schemaVersion: 1 as const,
  subject: { kind: 'trainer' as const, name: p.game.trainer.name, game: p.game.description, view: p.game.spec.view },
  trainer: p.game.trainer.name,
  game: p.game.description,
  view: p.game.spec.view,
  claim: p.claim,
  confidence: p.confidence,
  seed: p.ctx.seed,
  ceiling: p.ceiling,
  method: TRAINER_METHOD,
  release: SEEDED,
  trials: {
    requested: p.spec.runs,
    spent,
    selection: Math.min(spent, 2 * p.selPerSide),
    estimation: Math.max(0, spent - 2 * p.selPerSide),
    selectionPerPairPerSide: p.selPerSide,
    estimationPerSide: p.estPerSide,
  },
})

/** The result of a trainer audit that stopped (a failed run, a broken executor). */
const trainerFailed = (p: TrainerPlan, message: string, spent: number): TrainerAuditResult => ({
  ...header(p, spent),
  verdict: 'inconclusive',
  status: 'trainer-failed',
  epsilonLowerBound: 0,
  pointEstimate: 0,
  test: null,
  candidates: [],
  counts: { falsePositives: 0, negatives: 0, falseNegatives: 0, positives: 0 },
  rates: { fpr: 0, fnr: 0, fprUpper: 1, fnrUpper: 1 },
  issues: [{ _tag: 'TrainerFailed', message }],
  interpretation: `Inconclusive: the audit stopped (${message}).`,
})

/** The result of a trainer audit stopped between batches (`shouldStop`): no test, no bound, status `interrupted`. */
const trainerInterrupted = (p: TrainerPlan, spent: number): TrainerAuditResult => {
  const message = `stopped after ${spent.toLocaleString('en-US')} of ${p.spec.runs.toLocaleString('en-US')} runs`
  return { ...trainerFailed(p, message, spent), status: 'interrupted', issues: [{ _tag: 'Interrupted', message }], interpretation: `Inconclusive: the audit was ${message}.` }
}

/** The last phase: the test chosen on the selection runs, its bound on the estimation runs, the verdict. */
const trainerVerdict = (p: TrainerPlan, sel: Collected, est: Collected): TrainerAuditResult => {
  const spent = 2 * p.selPerSide + est.n[0] + est.n[1]
  const t = chooseTestAndBound({ statistics: p.names, selection: sel.features, estimation: est.features, claim: p.claim, confidence: p.confidence })
  if (E.isLeft(t)) return trainerFailed(p, t.left.message, spent)
  const { test, verdict, epsilonLowerBound: lb } = t.right
  const { claim, ceiling } = p
  const c = `${+(p.confidence * 100).toPrecision(6)}%`
  const claimed = p.accounted ? `accounted ε ${claim.epsilon} (the accountant's for its plan, δ = ${claim.delta})` : `claimed ${claim.epsilon}`
  const interpretation =
    verdict === 'violation'
      ? `Violation: with ${c} confidence ${p.game.trainer.name}'s ε under this game is at least ${num(lb)}, above the ${claimed} (test ${test.name}; ceiling ${num(ceiling)}).`
      : verdict === 'consistent'
        ? `Consistent: the best test reached ε_LB = ${num(lb)} ≤ the ${claimed}; this run could have certified up to ${num(ceiling)}. An audit refutes claims; it cannot prove them.`
        : `Inconclusive: ${p.estPerSide} estimation runs per side certify at most ε = ${num(ceiling)}, not more than the ${claimed} (ε_LB = ${num(lb)}).`
  return {
    ...header(p, spent),
    verdict,
    status: 'complete',
    epsilonLowerBound: lb,
    pointEstimate: t.right.pointEstimate,
    test,
    candidates: t.right.candidates,
    counts: t.right.counts,
    rates: t.right.rates,
    scores: t.right.scores,
    issues: [],
    interpretation,
  }
}

/** The trainer audit: budget, selection runs, estimation runs, verdict — the mechanism audit's phases on training runs. */
function* driveTrainer(p: TrainerPlan, batch: number): TrainerSteps<TrainerAuditResult> {
  const report = (phase: 'select' | 'estimate', total: number) => (done: number) => p.spec.onProgress?.({ phase, done, total })
  const F = p.names.length
  const stop = p.spec.shouldStop ?? (() => false)
  const sel = yield* collect(tasksFor('select', p.selPerSide, p.chunk), batch, F, p.selPerSide, report('select', 2 * p.selPerSide), stop)
  if (sel.stopped) return trainerInterrupted(p, sel.ran)
  if (sel.failure !== null) return trainerFailed(p, sel.failure, sel.n[0] + sel.n[1])
  // Stopping between the phases too: selection's runs are on the queue (or lost, in this thread).
  if (stop()) return trainerInterrupted(p, 2 * p.selPerSide)
  const est = yield* collect(tasksFor('estimate', p.estPerSide, p.chunk), batch, F, p.estPerSide, report('estimate', 2 * p.estPerSide), stop)
  if (est.stopped) return trainerInterrupted(p, 2 * p.selPerSide + est.ran)
  if (est.failure !== null) return trainerFailed(p, est.failure, 2 * p.selPerSide + est.n[0] + est.n[1])
  return trainerVerdict(p, sel, est)
}

/** Audits a trainer on one distinguishing game; see the module comment. */
export const auditTrainer = async (spec: TrainerAuditSpec): Promise<E.Either<DpError, TrainerAuditResult>> => {
  const plan = planTrainerAudit(spec)
  if (E.isLeft(plan)) return plan
  const executor = spec.executor?.(plan.right.ctx) ?? localExecutor(plan.right.ctx, spec.featureOptions)
  try {
    return E.right(await runStepsAsync(driveTrainer(plan.right, Math.max(8, 4 * executor.workers)), executor))
  } finally {
    await executor.close()
  }
}

/** Plain-text report of a trainer audit. */
export const formatTrainerAudit = (r: TrainerAuditResult): string =>
  [
    `trainer audit: ${r.trainer} (${r.view}) — ${r.game}`,
    `claim: (${r.claim.epsilon}, ${r.claim.delta})-DP    verdict: ${r.verdict.toUpperCase()}`,
    `ε lower bound: ${num(r.epsilonLowerBound)} at ${+(r.confidence * 100).toPrecision(6)}% confidence (ceiling of this run: ${num(r.ceiling)}; point estimate ${num(r.pointEstimate)})`,
    r.test === null ? 'test: none' : `test: ${r.test.name}, event {${r.test.orientation === 1 ? '' : '−'}score ≥ ${r.test.threshold.toPrecision(6)}} (selection ε̂ ${num(r.test.selectionEpsilon)})`,
    `estimation: FP ${r.counts.falsePositives}/${r.counts.negatives}, FN ${r.counts.falseNegatives}/${r.counts.positives}; runs: ${r.trials.selectionPerPairPerSide} + ${r.trials.estimationPerSide} per side (${r.trials.spent} trained), seed "${r.seed}"`,
    `candidates: ${r.candidates.map((c) => `${c.test} ${num(c.tuneEpsilon)}`).join(', ')}`,
    `note: ${r.release}`,
    ...r.issues.map((i) => `issue: ${i.message}`),
    r.interpretation,
  ].join('\n')
