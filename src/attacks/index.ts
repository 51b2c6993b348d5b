/**
 * dpaudit/attacks: black-box audits of mechanisms given as code, with statistically valid ε lower
 * bounds (Clopper–Pearson, attack chosen on separate trials), a worker-thread pool, checkpoints,
 * and a zoo of deliberately broken mechanisms next to correct controls. Guide: docs/auditing.md.
 *
 * @example
 * ```ts
 * import { auditMechanism, formatAuditResult, laplaceNoise, snapped } from 'dpaudit/attacks'
 * const r = auditMechanism({
 *   // the mechanism under audit; its noise is snapped: textbook floating-point Laplace leaks (Mironov 2012)
 *   mechanism: (x: number, rng) => x + snapped(laplaceNoise(rng, 1)),
 *   pairs: [{ input: 0, neighbour: 1 }],
 *   claim: { epsilon: 1, delta: 0 },
 *   trials: 200_000,
 *   seed: 'ci',
 * })
 * if (r._tag === 'Right') console.log(formatAuditResult(r.right))
 * ```
 *
 * @module
 */
export type { Rng } from '../core/rng.js'
export * from './bounds.js'
export * from './claim.js'
export * from './output.js'
export * from './pairs.js'
export * from './score.js'
export * from './roc.js'
export * from './stream.js'
export * from './trials.js'
export { sweep, type PairSamples, type SweepResult } from './select.js'
export * from './checkpoint.js'
export * from './executor.js'
export { acquireWorkerPool, closeSharedWorkerPool, createWorkerPool, DEFAULT_CHUNK_TIMEOUT_MS, describeModule, workerScriptUrl, type ModuleDescription, type PoolOptions } from './pool.js'
export * from './audit.js'
export { AuditResultCodec, decodeAuditResult, upgradeAuditResult, type AuditResultCore, type TrainerTestReport } from './result.js'
export * from './format.js'
export { ZOO, ZOO_NAMES, zooEntry, type ZooEntry } from './zoo/index.js'
export { gaussianNoise, laplaceNoise, bernoulli, exponentialNoise, gumbelNoise, twoSidedGeometric, snapped, SNAP_GRID } from './zoo/noise.js'
export { type ZooClass } from './zoo/index.js'
export { argmaxProbabilities, svtPatternProbabilities, exponentialMechanismProbabilities, maxLogRatio, pairsEpsilon } from './zoo/exact.js'
export { evaluatePair, betterHalf, type PairChoice } from './search.js'
export { projectedBound, gaussianTailThreshold, adaptiveEdges, type Projection } from './select.js'
export * from './family.js'
// Trainer audits (issue 16): distinguishing games on LDA training, one-run audits. The BullMQ queue
// (attacks/queue) is reached through the CLI (`dpaudit audit --queue`, `dpaudit worker`), so this
// barrel does not load bullmq.
export {
  auditTrainer,
  auditDigest,
  formatTrainerAudit,
  localExecutor,
  TRAINER_METHOD,
  type CandidateReport,
  type ExecutorFactory,
  type TrainerAuditContext,
  type TrainerAuditResult,
  type TrainerAuditSpec,
  type TrainerExecutor,
  type TrainerVerdict,
} from './trainers/audit.js'
export { buildGame, canaryDocument, corpusJson, decodeTrainerConfig, syntheticCorpus, type AttackedToken, type CorpusJson, type Neighbour, type SyntheticGameCorpus, type TrainerGame, type TrainerGameSpec, type View } from './trainers/game.js'
export { computeFeatures, featuresFor, topicPosteriorRatio, type FeatureName, type FeatureOptions, type SeedReplay } from './trainers/features.js'
export { fitLira, gaussianFit, liraScore, type GaussianFit, type LiraModel } from './trainers/lira.js'
export { chooseTestAndBound, type ThresholdTestInput, type ThresholdTestResult } from './trainers/threshold-test.js'
export { observe, observedGibbsFit, type Observation } from './trainers/observe.js'
export { chunkId, runTrainerChunk, type TrainerChunkResult, type TrainerChunkTask } from './trainers/chunk.js'
export { decodeTrainerAuditFile, type TrainerAuditFile } from './trainers/file.js'
export { auditTrainerOneRun, type TrainerOneRunResult, type TrainerOneRunSpec } from './trainers/one-run.js'
export { auditClassifierMembership, centroidClassifier, foldInTheta, labelLogProbability, predictLabel, type CentroidClassifier, type ClassifierMembershipResult, type ClassifierMembershipSpec, type LabelledCorpusJson } from './trainers/classifier-membership.js'
export * from './one-run.js'
export * from './input-search.js'
export * from './support.js'
