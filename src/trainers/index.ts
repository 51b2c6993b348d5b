/**
 * dpaudit/trainers: corpora, evaluation, and the collapsed-Gibbs LDA trainers (CGS, HDP-LDA,
 * CDP-LDA, CDP-LDA+, SUB-LDA, LP-LDA, OLP-LDA), private SVI and spectral LDA, as plug-ins that declare
 * their privacy (plan ≡ ledger; ε from the accountant, the paper's claim beside it).
 *
 * The export list is curated (issue 25): the trainers and the registry, the plug-in contract's helpers
 * (erase, planOf, the namespaces `Claims` and `Flags`), privacy statements, model files (`ModelFiles`),
 * corpus loading (UCI files: `Uci`) and evaluation; at most 40 runtime values. The
 * papers' analyses (SUB-LDA's σ and efficiency-privacy, LP-LDA's bits, OLP-LDA's Bayes steps, spectral
 * configurations), the samplers, the RNGs and numpy-compatible shuffles are reached by their module path
 * inside the package only. Every type of the modules below stays exported.
 *
 * @module
 */
export type * from './trainer.js'
export type { AnyTrainer, ConfiguredTrainer, TrainedModel } from './erase.js'
export type { NoCostInput } from './release/post-processing.js'
export type { CgsConfig } from './cgs.js'
export type { BaseConfig } from './config.js'
export type { HdpConfig } from './hdp.js'
export type { CdpConfig } from './cdp.js'
export type { SubConfig } from './sub.js'
export type { LpConfig } from './lp/lp-lda.js'
export type { OlpConfig, PriorCorpus } from './olp/olp-lda.js'
export type { SviConfig } from './svi/trainer.js'
export type { SpectralConfig } from './spectral/trainer.js'
export type { PrivacyStatement, AccountedEpsilon, ClaimedEpsilon } from './statement.js'
export type { TrainedFile, ModelFile, LoadedModel } from './model-file.js'
export type { Corpus, CorpusStats, PublicCorpus } from './corpus/corpus.js'
export type { ReadUciOptions } from './corpus/uci.js'
export type { Dataset, RawDocument, SplitOptions } from './corpus/dataset.js'
export type { LoadOptions } from './corpus/load.js'
export type { SyntheticSpec, SyntheticCorpus } from './corpus/synthetic.js'
export type { PerplexityOptions, PerplexityResult } from './eval/perplexity.js'
export type { RecoveryResult } from './eval/recovery.js'

// the plug-in contract: erasing, plans, the paper's claim beside the accountant's, flags
export { compositionAtoms, sameComposition, planOf } from './trainer.js'
export * as Claims from './public/claims.js'
export { erase } from './erase.js'
export * as Flags from './public/flags.js'
export { postProcessing } from './release/post-processing.js'
// the built-in trainers and their registry
// (TRAINER_LIST, the same trainers erased, and isTrainerName stay inside: TRAINERS, TRAINER_NAMES, trainerNamed)
export { TRAINERS, TRAINER_NAMES, trainerNamed } from './registry.js'
export { cgs } from './cgs.js'
export { hdpLda } from './hdp.js'
export { cdpLda, cdpLdaPlus } from './cdp.js'
export { subLda } from './sub.js'
export { lpLda } from './lp/lp-lda.js'
export { olpLda } from './olp/olp-lda.js'
export { sviLda, sviLdaWithoutReplacement } from './svi/trainer.js'
export { spectralLdaTrainer } from './spectral/trainer.js'
// what a run states and writes
export { privacyStatement } from './statement.js'
export * as ModelFiles from './public/model-files.js'
// corpora: loading, building, splitting, synthesising
export { declarePublic, corpusStats, validateCorpus, fromDocuments, selectDocuments, documentCount } from './corpus/corpus.js'
export * as Uci from './public/uci.js'
export { tokenize } from './corpus/text.js'
export { datasetFromRaw, datasetFromCorpus, completionHalves } from './corpus/dataset.js'
export { loadDataset, BUILTIN_CORPORA } from './corpus/load.js'
export { generateLda } from './corpus/synthetic.js'
// evaluation
export { heldOutPerplexity } from './eval/perplexity.js'
export { topicRecoveryError } from './eval/recovery.js'
