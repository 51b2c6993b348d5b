/**
 * dpaudit/attacks: black-box audits of mechanisms given as code, with statistically valid ε lower
 * bounds (Clopper–Pearson, attack chosen on separate trials), a worker-thread pool, checkpoints,
 * and a zoo of deliberately broken mechanisms next to correct controls. Guide: docs/auditing.md.
 *
 * @example
 * ```ts
 * import { auditMechanism, formatAuditResult, Noise } from 'dpaudit/attacks'
 * const r = auditMechanism({
 *   // the mechanism under audit; its noise is snapped: textbook floating-point Laplace leaks (Mironov 2012)
 *   mechanism: (x: number, rng) => x + Noise.snapped(Noise.laplaceNoise(rng, 1)),
 *   pairs: [{ input: 0, neighbour: 1 }],
 *   claim: { epsilon: 1, delta: 0 },
 *   trials: 200_000,
 *   seed: 'ci',
 * })
 * if (r._tag === 'Right') console.log(formatAuditResult(r.right))
 * ```
 *
 * The export list is curated (issue 25): the audits, their results and bounds (`Bounds`), the zoo and
 * its noise helpers (`Noise`), the trainer games and the executors; at most 40 runtime values. The
 * machinery behind them (trial streams, selection, checkpoints, chunk shapes, LiRA's fits) is reached
 * by its module path inside the package only.
 * Every type of the modules below stays exported.
 *
 * @module
 */
export type { Rng } from '../core/rng.js'
export type * from './bounds.js'
export type * from './claim.js'
export type * from './output.js'
export type * from './pairs.js'
export type * from './score.js'
export type * from './roc.js'
export type * from './stream.js'
export type * from './trials.js'
export type * from './checkpoint.js'
export type * from './executor.js'
export type * from './audit.js'
export type * from './format.js'
export type * from './family.js'
export type * from './one-run.js'
export type * from './input-search.js'
export type * from './support.js'
export type { ModuleDescription, PoolOptions, PoolTimeline } from './pool.js'
export type { AuditResultCore, TrainerTestReport } from './result.js'
export type { ZooEntry, ZooClass } from './zoo/index.js'
export type { CandidateReport, ExecutorFactory, TrainerAuditContext, TrainerAuditResult, TrainerAuditSpec, TrainerExecutor, TrainerVerdict } from './trainers/audit.js'
export type { AttackedToken, ChangedWords, CorpusJson, GameTrainer, Neighbour, SyntheticGameCorpus, TrainerGame, TrainerGameSpec, View } from './trainers/game.js'
export type { DatasetGameCorpus, TrainerAuditFile } from './trainers/file.js'
export type { AccountedClaim } from './trainers/accounted.js'
export type { TrainerOneRunResult, TrainerOneRunSpec } from './trainers/one-run.js'
export type { ClassifierMembershipResult, ClassifierMembershipSpec, LabelledCorpusJson } from './trainers/classifier-membership.js'

// audits of a mechanism given as code, and of a family of them
export { auditMechanism, auditMechanismAsync, auditZoo, zooAuditSpec } from './audit.js'
export { auditFamily, auditPValue } from './family.js'
export { searchInputs } from './input-search.js'
export { supportTest } from './support.js'
export { auditOneRun, oneRunEpsilonLowerBound, oneRunPValue } from './one-run.js'
// claims, results and their files
export { validateClaim, showClaim } from './claim.js'
export { formatAuditResult } from './format.js'
export { AuditResultCodec, decodeAuditResult, upgradeAuditResult } from './result.js'
// the statistics an ε lower bound rests on
export * as Bounds from './public/bounds.js'
// the zoo: deliberately broken mechanisms beside correct controls, and the noise they are built from
export { ZOO, ZOO_NAMES, zooEntry } from './zoo/index.js'
export { zooMechanism, inProcessExecutor } from './executor.js'
export * as Noise from './public/noise.js'
// running trials: worker pools, a chunk of trials, the seed of a stream
export { acquireWorkerPool, closeSharedWorkerPool, createWorkerPool } from './pool.js'
export { runChunk } from './trials.js'
export { hashSeed } from './stream.js'
// trainer audits (issue 16): distinguishing games on training, one-run audits, membership of a classifier.
// The BullMQ queue (attacks/queue) is reached through the CLI (`dpaudit audit --queue`, `dpaudit worker`),
// so this barrel does not load bullmq.
export { auditTrainer, formatTrainerAudit, localExecutor } from './trainers/audit.js'
export { buildGame, canaryDocument, syntheticCorpus } from './trainers/game.js'
export { decodeTrainerAuditFile } from './trainers/file.js'
export { auditTrainerOneRun } from './trainers/one-run.js'
export { auditClassifierMembership } from './trainers/classifier-membership.js'
