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
import type { LdaConfigBase, LdaTrainer } from '../../trainers/trainer.js'
import { certifiableCeiling } from '../bounds.js'
import { type Claim, validateClaim } from '../claim.js'
import { hashSeed } from '../stream.js'
import { chunkId, runTrainerChunk, type TrainerChunkResult, type TrainerChunkTask } from './chunk.js'
import { type FeatureName, type FeatureOptions, featuresFor } from './features.js'
import { buildGame, type TrainerGame, type TrainerGameSpec } from './game.js'
import type { AuditIssue, TrainerAuditResult } from '../result.js'
import { chooseTestAndBound } from './threshold-test.js'

/** What an executor needs to run this audit's chunks anywhere. */
export interface TrainerAuditContext {
  /** A digest of (game, seed, statistics): equal audits share it, so their chunks can be shared. */
  readonly auditId: string
  readonly game: TrainerGame
  readonly seed: string
  readonly features: ReadonlyArray<FeatureName>
}

export interface TrainerExecutor {
  /** Parallel runners (1 in this thread; queue workers are counted by the queue). */
  readonly workers: number
  /** Runs every task; calls `onResult` at least once per task (duplicates are ignored). A message if execution broke. */
  readonly run: (tasks: ReadonlyArray<TrainerChunkTask>, onResult: (r: TrainerChunkResult) => void) => Promise<string | null>
  readonly close: () => Promise<void>
}

export type ExecutorFactory = (ctx: TrainerAuditContext) => TrainerExecutor

export interface TrainerAuditSpec {
  readonly game: TrainerGameSpec
  readonly claim: Claim
  /** Training runs in all: selection and estimation, both sides. */
  readonly runs: number
  readonly seed: string | number
  readonly confidence?: number
  /** Share of runs spent choosing the test (default 0.3; half of it fits LiRA's shadow models). */
  readonly selectionFraction?: number
  /** Runs per chunk (default 25); does not change the result. */
  readonly chunkSize?: number
  /** A trainer object instead of the registry's (test-only variants; in-process only). */
  readonly trainer?: LdaTrainer<LdaConfigBase>
  readonly featureOptions?: FeatureOptions
  readonly executor?: ExecutorFactory
  readonly onProgress?: (p: { readonly phase: 'select' | 'estimate'; readonly done: number; readonly total: number }) => void
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

/** Runs tasks and assembles each side's features in run order (one column block per side). */
const collect = async (
  executor: TrainerExecutor,
  tasks: ReadonlyArray<TrainerChunkTask>,
  F: number,
  perSide: number,
  progress: (done: number) => void,
): Promise<{ features: [Float64Array, Float64Array]; n: [number, number]; failure: string | null }> => {
  const byId = new Map<string, TrainerChunkResult>()
  let done = 0
  const err = await executor.run(tasks, (r) => {
    if (byId.has(r.id) || !tasks.some((t) => t.id === r.id)) return // a retried chunk, counted once
    byId.set(r.id, r)
    done += r.completed
    progress(done)
  })
  const features: [Float64Array, Float64Array] = [new Float64Array(perSide * F), new Float64Array(perSide * F)]
  const n: [number, number] = [0, 0]
  let failure: string | null = err
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
  return { features: [features[0].subarray(0, n[0] * F), features[1].subarray(0, n[1] * F)], n, failure }
}

const num = (x: number): string => (x === Infinity ? '∞' : x.toFixed(3))

const validate = (spec: TrainerAuditSpec): E.Either<DpError, { claim: Claim; confidence: number; fraction: number; chunk: number }> => {
  const claim = validateClaim(spec.claim)
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

/** Audits a trainer on one distinguishing game; see the module comment. */
export const auditTrainer = async (spec: TrainerAuditSpec): Promise<E.Either<DpError, TrainerAuditResult>> => {
  const v = validate(spec)
  if (E.isLeft(v)) return v
  const { claim, confidence, fraction, chunk } = v.right
  const g = buildGame(spec.game, spec.trainer)
  // the game's fields are named from the audit spec: $.neighbour → $.game.neighbour
  if (E.isLeft(g)) return E.left({ ...g.left, path: g.left.path.replace(/^\$/, '$.game') } as DpError)
  const game = g.right
  const names = featuresFor(game, spec.featureOptions)
  const F = names.length
  const seed = String(spec.seed)
  const alpha = 1 - confidence
  const delta = claim.delta
  const selPerSide = Math.max(10, Math.floor((spec.runs * fraction) / 2))
  const estPerSide = Math.max(10, Math.floor((spec.runs - 2 * selPerSide) / 2))
  const ctx: TrainerAuditContext = { auditId: auditDigest(spec.game, seed, names), game, seed, features: names }
  const executor = spec.executor?.(ctx) ?? localExecutor(ctx, spec.featureOptions)
  const ceiling = certifiableCeiling(estPerSide, delta, alpha)
  const issues: AuditIssue[] = []
  const trials = (spent: number) => ({
    requested: spec.runs,
    spent,
    selection: Math.min(spent, 2 * selPerSide),
    estimation: Math.max(0, spent - 2 * selPerSide),
    selectionPerPairPerSide: selPerSide,
    estimationPerSide: estPerSide,
  })
  const base = {
    schemaVersion: 1 as const,
    subject: { kind: 'trainer' as const, name: game.trainer.name, game: game.description, view: game.spec.view },
    trainer: game.trainer.name,
    game: game.description,
    view: game.spec.view,
    claim,
    confidence,
    seed,
    ceiling,
    method: TRAINER_METHOD,
    release: SEEDED,
  }
  const empty = { falsePositives: 0, negatives: 0, falseNegatives: 0, positives: 0 }
  const failed = (message: string, spent: number): TrainerAuditResult => ({
    ...base,
    verdict: 'inconclusive',
    status: 'trainer-failed',
    epsilonLowerBound: 0,
    pointEstimate: 0,
    test: null,
    candidates: [],
    counts: empty,
    rates: { fpr: 0, fnr: 0, fprUpper: 1, fnrUpper: 1 },
    trials: trials(spent),
    issues: [...issues, { _tag: 'TrainerFailed', message }],
    interpretation: `Inconclusive: the audit stopped (${message}).`,
  })
  try {
    // ---------------------------------------------------------------- selection
    const sel = await collect(executor, tasksFor('select', selPerSide, chunk), F, selPerSide, (done) => spec.onProgress?.({ phase: 'select', done, total: 2 * selPerSide }))
    if (sel.failure !== null) return E.right(failed(sel.failure, sel.n[0] + sel.n[1]))
    // ---------------------------------------------------------------- estimation
    const est = await collect(executor, tasksFor('estimate', estPerSide, chunk), F, estPerSide, (done) => spec.onProgress?.({ phase: 'estimate', done, total: 2 * estPerSide }))
    if (est.failure !== null) return E.right(failed(est.failure, 2 * selPerSide + est.n[0] + est.n[1]))
    // ---------------------------------------------------------------- choice of test and bound
    const t = chooseTestAndBound({ statistics: names, selection: sel.features, estimation: est.features, claim, confidence })
    if (E.isLeft(t)) return E.right(failed(t.left.message, 2 * selPerSide + est.n[0] + est.n[1]))
    const { test, verdict, epsilonLowerBound: lb } = t.right
    const c = `${+(confidence * 100).toPrecision(6)}%`
    const interpretation =
      verdict === 'violation'
        ? `Violation: with ${c} confidence ${game.trainer.name}'s ε under this game is at least ${num(lb)}, above the claimed ${claim.epsilon} (test ${test.name}; ceiling ${num(ceiling)}).`
        : verdict === 'consistent'
          ? `Consistent: the best test reached ε_LB = ${num(lb)} ≤ ${claim.epsilon}; this run could have certified up to ${num(ceiling)}. An audit refutes claims; it cannot prove them.`
          : `Inconclusive: ${estPerSide} estimation runs per side certify at most ε = ${num(ceiling)}, not more than the claimed ${claim.epsilon} (ε_LB = ${num(lb)}).`
    return E.right({
      ...base,
      verdict,
      status: 'complete',
      epsilonLowerBound: lb,
      pointEstimate: t.right.pointEstimate,
      test,
      candidates: t.right.candidates,
      counts: t.right.counts,
      rates: t.right.rates,
      trials: trials(2 * selPerSide + est.n[0] + est.n[1]),
      issues,
      interpretation,
    })
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
