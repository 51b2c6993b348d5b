/**
 * dpaudit/trainers: corpora, evaluation, and the collapsed-Gibbs LDA trainers (CGS, HDP-LDA,
 * CDP-LDA, CDP-LDA+, SUB-LDA, LP-LDA, OLP-LDA) as plug-ins that declare their privacy (plan ≡ ledger; ε from the
 * accountant, the paper's claim beside it).
 *
 * @module
 */
export type * from './trainer.js'
export { compositionAtoms, sameComposition, planOf, pureClaim, rdpClaim, noClaim } from './trainer.js'
export { TRAINERS, TRAINER_LIST, TRAINER_NAMES, isTrainerName, trainerNamed } from './registry.js'
export { erase, type AnyTrainer, type ConfiguredTrainer, type TrainedModel } from './erase.js'
export { flagNumber, numericFlag } from './flags.js'
export { ldaFlags, ldaSurface, LDA_MODEL, LDA_MODEL_KIND, MAX_ITERATIONS } from './lda-surface.js'
export { postProcessing, type NoCostInput } from './release/post-processing.js'
export { cgs, type CgsConfig } from './cgs.js'
export { BaseConfig, BASE_DEFAULTS } from './config.js'
export { hdpLda, HdpConfig, inherentEpsilon, paperInherentEpsilon, topicDrawEvent } from './hdp.js'
export { cdpLda, cdpLdaPlus, CdpConfig } from './cdp.js'
export { subLda, SubConfig, adaptiveMultiplier } from './sub.js'
export { lpLda, LpConfig, bitEpsilon, presenceEvent, perturbation, unitGuarantees, unitNotes, WORD_BITS, type LpUnits, type UnitGuarantee } from './lp/lp-lda.js'
export {
  type LocalReports,
  type UserDocuments,
  flipProbability,
  checkFlip,
  binaryDigits,
  bernoulliWord,
  encodePresence,
  perturbPresence,
  perturbDocuments,
  strideOf,
} from './lp/perturb.js'
export { onesPerWord, estimateCounts, estimateVariance, reconstruct, reconstructToward, presenceCorpus, type PresenceColumns } from './lp/estimate.js'
export { olpLda, OlpConfig, Denoise, type PriorCorpus, splitPrior, checkSameVocabulary, streamSize, batchCount, PRIOR_SPLIT_SEED } from './olp/olp-lda.js'
export { theoremSixOmega, bayesEstimate, bayesVariance, nextPrior } from './olp/bayes.js'
export { type TopicWordPrior, flatPrior, updatePrior, sweepWithPrior, phiWithPrior, wordTotals, presenceDocuments, onlineLda } from './olp/online.js'
export {
  subLdaSigma,
  paperSubsampledRdp,
  gaussianRdp,
  efficiencyPrivacy,
  efficiencyPrivacyMaximiser,
  adaptiveSubsamplingClaim,
  type EfficiencyPrivacyMaximum,
} from './sub-analysis.js'
export { privacyStatement, replaceOneByApproxGroup, replaceOneByRdpGroup, replaceOneDirect, type PrivacyStatement, type AccountedEpsilon, type ClaimedEpsilon } from './statement.js'
export { modelFile, trainedFile, type TrainedFile, writeModelFile, readModelFile, decodeModelFile, ModelFileCodec, MODEL_KIND, reindexPhi, type ModelFile, type LoadedModel } from './model-file.js'
export { writeFileAtomic } from './io.js'
export {
  type Corpus,
  type CorpusStats,
  type PublicCorpus,
  declarePublic,
  corpusStats,
  validateCorpus,
  fromDocuments,
  selectDocuments,
  documentCount,
  nonZeros,
} from './corpus/corpus.js'
export { readUci, readVocab, writeUci, docwordText, type ReadUciOptions } from './corpus/uci.js'
export { tokenize, stopWords, topVocabulary } from './corpus/text.js'
export {
  type TokenDocuments,
  type VocabularyParams,
  type VocabularyGuarantee,
  type VocabularyBudget,
  type VocabularyCounts,
  VOCABULARY_LABEL,
  dpVocabulary,
  vocabularySelectionEvent,
  vocabularyGuarantee,
  calibrateVocabulary,
  releaseProbability,
  vocabularyCounts,
  selectFromCounts,
} from './corpus/dp-vocabulary.js'
export { loadBrownRaw, loadSpamRaw, emailBody } from './corpus/builtin.js'
export {
  type Dataset,
  type RawDocument,
  type SplitOptions,
  SPLIT_SEED,
  datasetFromRaw,
  datasetFromCorpus,
  completionHalves,
  testMask,
  pythonRound,
} from './corpus/dataset.js'
export { loadDataset, readJsonLines, BUILTIN_CORPORA, DEFAULT_VOCABULARY, type LoadOptions } from './corpus/load.js'
export { numpyPermutation, Mt19937 } from './corpus/mt19937.js'
export { generateLda, type SyntheticSpec, type SyntheticCorpus } from './corpus/synthetic.js'
export { heldOutPerplexity, validatePhi, type PerplexityOptions, type PerplexityResult } from './eval/perplexity.js'
export { topicRecoveryError, hungarian, type RecoveryResult } from './eval/recovery.js'
export { jointLogLikelihood } from './lda/loglik.js'
export { initState, phiFromCounts, thetaFromCounts, type GibbsState } from './lda/state.js'
export { makeSparseSampler, type SparseSampler } from './lda/sparse.js'
export { makeSnapshotSampler, type SnapshotSampler } from './lda/snapshot.js'
export { FastUniform, NoiseSource, fillLaplace, fillGaussian } from './lda/random.js'
export { sviLda, sviLdaWithoutReplacement, sviTrainerFor, makeSviTrainer, SviConfig, SVI_DEFAULTS, statisticSensitivity, documentNormBound, noiseSigma, samplingRelation, validateSvi } from './svi/trainer.js'
export { BatchStatistic } from './svi/statistic.js'
export { spectralLdaTrainer, SpectralConfig, SPECTRAL_DEFAULTS, validateSpectral, calibrationFor, configurationOf } from './spectral/trainer.js'
export { EDGES, NODES, BUILTIN_CONFIGURATIONS, parseConfiguration, checkCut, unprotectedPath, renderGraph, type NoiseConfiguration, type EdgeId, type GraphEdge } from './spectral/graph.js'
export { spectralLda, type SpectralResult } from './spectral/pipeline.js'
export { countDocuments, type CountDocuments } from './spectral/moments.js'
