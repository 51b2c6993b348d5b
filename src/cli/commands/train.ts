/**
 * `dpaudit train <trainer> --corpus brown|spam|<path> --topics K --iterations T [privacy parameters]
 *  --out model.json [--seed S | --private] [--diagnostics] [--vocabulary FILE] [--delta D ...] [--json]`
 *
 * Each trainer takes only its own privacy flags (`TRAINER_FLAGS`): a flag that does not apply to
 * the chosen trainer is refused, naming the flag and the trainer, so nothing unused is written into
 * the model file as if it had been used. Every trainer-specific flag is optional and its default is
 * shown in the usage line (derived from the trainer's `defaults`, so the two cannot drift).
 *
 * Prints a progress line per iteration on a terminal (stderr; quiet with --json), then the held-out
 * perplexity and the privacy statement: the accountant's ε on the trainer's plan at each δ, next to
 * the paper's claim, with what it assumes. The model file is written atomically, only after
 * everything succeeded.
 *
 * Randomness is secret by default: noise, sampling coins and topic draws come from node:crypto and
 * nothing that could regenerate them is written. `--seed S` makes the run reproducible and the file
 * and the output then say it is NOT a private release (the seed itself is never written).
 * `--diagnostics` prints the log-likelihood of the true counts, which also makes the run not
 * private. `--private` asks for a private release and refuses either.
 *
 * @module
 */
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, formatError, invalidParameter } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { type Rng, secure, seeded } from '../../core/rng.js'
import { DIAGNOSTICS_ASKED, ReleaseGate, type ReleaseRecord } from '../../mechanisms/gate.js'
import { calibrateVocabulary, dpVocabulary } from '../../trainers/corpus/dp-vocabulary.js'
import { wordsFromRng } from '../../core/words.js'
import { type NeighbouringRelation, showRelation } from '../../mechanisms/neighbouring.js'
import { type Corpus, corpusStats, declarePublic, documentCount, fromDocuments, type PublicCorpus } from '../../trainers/corpus/corpus.js'
import { type Dataset } from '../../trainers/corpus/dataset.js'
import { type DeclaredSizes, exactSizes, publicSizes, vocabularyNotPrivate } from '../../trainers/release/public-output.js'
import { DEFAULT_VOCABULARY, type LoadOptions, loadDataset, readVocabularyFile } from '../../trainers/corpus/load.js'
import { unmatchableWords } from '../../trainers/corpus/text.js'
import { heldOutPerplexity } from '../../trainers/eval/perplexity.js'
import { type ModelFile, trainedFile, writeModelFile } from '../../trainers/model-file.js'
import type { AnyTrainer, ConfiguredTrainer, TrainedModel } from '../../trainers/erase.js'
import { flagNumber as num } from '../../trainers/flags.js'
import { TRAINER_LIST, TRAINERS, trainerNamed } from '../../trainers/registry.js'
import { type PrivacyStatement, privacyStatement, releaseNotice } from '../../trainers/statement.js'
import { checkSameVocabulary } from '../../trainers/olp/olp-lda.js'
import type { FlagValues, IterationLog, TrainerFlag } from '../../trainers/trainer.js'
import { checkOutputPath } from '../io.js'
import { existingInputs, guardOutputs, holdingLocks } from '../output-guard.js'
import { progressLine } from '../progress.js'
import { type CommandResult, EXIT } from './result.js'

export { MAX_ITERATIONS } from '../../trainers/lda-surface.js'

/** The options every trainer takes (the generic train options), with their usage. */
const COMMON_OPTIONS = {
  corpus: { type: 'string' },
  out: { type: 'string' },
  seed: { type: 'string' },
  private: { type: 'boolean', default: false },
  diagnostics: { type: 'boolean', default: false },
  vocabulary: { type: 'string' },
  'vocabulary-size': { type: 'string' },
  'eval-corpus': { type: 'string' },
  'vocabulary-epsilon': { type: 'string' },
  'vocabulary-delta': { type: 'string' },
  'vocabulary-words-per-document': { type: 'string' },
  documents: { type: 'string' },
  tokens: { type: 'string' },
  delta: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  quiet: { type: 'boolean', default: false },
} as const

/** --workers is parsed for every trainer, and taken by those that declare threads (`Trainer.workers`). */
const WORKERS_OPTION = { workers: { type: 'string' } } as const
/** A --workers value taken: a whole number of threads from 1 to 9999. */
const WORKER_COUNT = /^[1-9][0-9]{0,3}$/

const COMMON_USAGE = `  [--vocabulary FILE | --vocabulary-size V] [--delta D ...] [--json] [--quiet]
  [--vocabulary dp [--vocabulary-size V] [--vocabulary-epsilon E (default 1)] [--vocabulary-delta D (default 1e-7)] [--vocabulary-words-per-document M (default 50; document relations)]] (a differentially private selection, charged in the plan)
  [--eval-corpus FILE] (public corpus to score the model on; a private release is scored on nothing else)
  [--documents D] [--tokens N] (declared public sizes; under a document-level relation the exact ones are never printed)
  [--private] (refuse anything that would make the release not private)
  [--seed S] (reproducible: NOT a private release) [--diagnostics] (true-count log-likelihood: NOT a private release)`

/** The parseArgs options of `dpaudit train` with these trainers' flags. */
export const trainOptions = (trainers: ReadonlyArray<AnyTrainer>): Record<string, { type: 'string' | 'boolean'; multiple?: boolean; default?: boolean }> => ({
  ...Object.fromEntries(trainers.flatMap((t) => t.flags.map((f) => [f.flag, f.type === 'switch' ? { type: 'boolean', default: false } : { type: 'string' }] as const))),
  ...COMMON_OPTIONS,
  ...WORKERS_OPTION,
})

export const TRAIN_OPTIONS = trainOptions(TRAINER_LIST)

const shownDefault = (f: TrainerFlag, defaults: Readonly<Record<string, unknown>>): string | undefined => {
  if (f.shown !== undefined) return f.shown(defaults)
  if (f.type === 'switch') return undefined
  const d = f.field === undefined ? undefined : defaults[f.field]
  return d === undefined || d === null ? undefined : String(d)
}

/** A trainer's flags as the usage line shows them, each with its default and what it means; then --workers if it takes threads. */
export const flagUsage = (trainer: AnyTrainer): string =>
  [
    ...trainer.flags.map((f) => {
      const d = shownDefault(f, trainer.defaults)
      const text = `--${f.flag}${f.meta === undefined ? '' : ` ${f.meta}`}${d === undefined ? '' : ` (default ${d})`}${f.note === undefined ? '' : ` (${f.note})`}`
      return f.required === true ? text : `[${text}]`
    }),
    ...(trainer.workers === undefined ? [] : [`[--workers W (${trainer.workers})]`]),
  ].join(' ')

/** `dpaudit train --help`, assembled from the trainers (each name in a column as wide as the longest, and a space). */
export const trainUsage = (trainers: ReadonlyArray<AnyTrainer>): string => `usage: dpaudit train <trainer | ./module.js> --corpus brown|spam|<path> --out model.json [trainer flags]
${COMMON_USAGE}
${trainers.map((t) => `  ${`${t.name}:`.padEnd(Math.max(...trainers.map((u) => u.name.length + 2)))}${flagUsage(t)}`).join('\n')}
  (./module.js: a module exporting a trainer, see the Trainer type in dpaudit/trainers; a flag that does not apply to the chosen trainer is refused; --out may not be an input, a file inside a corpus folder, or a file another dpaudit is writing)`

export const TRAIN_USAGE = trainUsage(TRAINER_LIST)

/** The flags `trainer` takes beyond the common ones: its own, and --workers when it declares threads. */
const ownFlags = (trainer: AnyTrainer): ReadonlyArray<string> => [...trainer.flags.map((f) => f.flag), ...(trainer.workers === undefined ? [] : ['workers'])]

/** The first flag given that `trainer` does not take, if any (a switch counts when it is on). */
export const inapplicableFlag = (trainer: AnyTrainer, values: Readonly<Record<string, unknown>>): string | undefined => {
  const own = new Set(ownFlags(trainer))
  return Object.keys(values).find((k) => values[k] !== undefined && values[k] !== false && !(k in COMMON_OPTIONS) && !own.has(k))
}

export interface TrainArgs {
  /** A built-in trainer's name, or a trainer loaded from a module. */
  readonly trainer: string | AnyTrainer | undefined
  readonly values: FlagValues
  /** Where progress lines go (default: stderr when it is a terminal and --json is off). */
  readonly progress?: (line: string) => void
  /**
   * The secret source of a run without --seed (default `secure()`, node:crypto). Tests stub it
   * (`stubbedSecureRng` in dpaudit/testing) to run two neighbouring corpora on the same noise.
   */
  readonly secureRng?: () => Rng
  /** Sees every value that leaves a release gate (neighbour-differential tests, white-box audits). */
  readonly onRelease?: (r: ReleaseRecord) => void
}

const fail = (message: string): CommandResult => ({ code: EXIT.input, stderr: message })

/** One step of a run: its value, or the result the run ends with. */
type Step<T> = E.Either<CommandResult, T>

const failed = (message: string): Step<never> => E.left(fail(message))

/** The trainer asked for: a name of the registry, or a trainer already loaded from a module; then no flag it does not take. */
const chooseTrainer = (args: TrainArgs): Step<AnyTrainer> => {
  if (args.trainer === undefined) return failed(TRAIN_USAGE)
  const trainer = typeof args.trainer === 'string' ? trainerNamed(args.trainer) : args.trainer
  if (trainer === undefined) return failed(`unknown trainer "${String(args.trainer)}" (one of ${TRAINER_LIST.map((t) => t.name).join(', ')}, or a module: ./my-trainer.js)`)
  const stray = inapplicableFlag(trainer, args.values)
  if (stray === undefined) return E.right(trainer)
  const own = ownFlags(trainer).map((f) => `--${f}`)
  return failed(`--${stray} does not apply to ${trainer.name} (${own.length === 0 ? 'it takes no privacy flags' : `its own flags: ${own.join(', ')}`})`)
}

/** --corpus and --out, checked before any work: no output over an input nor over another dpaudit's output. */
const chooseOutput = (trainer: AnyTrainer, v: FlagValues, hold: (release: () => void) => void): Step<{ readonly corpus: string; readonly out: string }> => {
  const corpus = v['corpus']
  if (typeof corpus !== 'string') return failed(`--corpus is required\n${TRAIN_USAGE}`)
  const out = v['out']
  if (typeof out !== 'string') return failed(`--out is required\n${TRAIN_USAGE}`)
  const outOk = checkOutputPath(out, 'out')
  if (E.isLeft(outOk)) return failed(outOk.left)
  const inputs = Object.fromEntries([['--corpus', corpus], ['--vocabulary', v['vocabulary']], ['--eval-corpus', v['eval-corpus']], ...trainer.flags.filter((f) => f.type === 'string' || f.type === undefined).map((f) => [`--${f.flag}`, v[f.flag]])])
  const guard = guardOutputs([{ what: '--out', path: out }], existingInputs(inputs))
  if (E.isLeft(guard)) return failed(guard.left)
  hold(guard.right)
  return E.right({ corpus, out })
}

/** The run's randomness and what it may claim: --seed, --diagnostics and --private against each other and the trainer. */
const chooseRandomness = (trainer: AnyTrainer, v: FlagValues): Step<{ readonly seed: string | undefined; readonly diagnostics: boolean; readonly intendsPrivate: boolean }> => {
  const seed = typeof v['seed'] === 'string' ? v['seed'] : undefined
  const diagnostics = v['diagnostics'] === true
  if (v['private'] === true) {
    if (seed !== undefined) return failed('--seed makes the noise reproducible by whoever knows the seed, so the run cannot be a private release; drop --seed or --private')
    if (diagnostics) return failed('--diagnostics reads the true counts, so the run cannot be a private release; drop --diagnostics or --private')
    if (trainer.nonPrivate !== undefined) return failed(`${trainer.name} is ${trainer.nonPrivate}; --private needs a private trainer`)
  }
  // a run meant as a private release trains on every document: the train/test split is a permutation of
  // all D documents, so under add/remove one document it would reshuffle which documents are trained on
  return E.right({ seed, diagnostics, intendsPrivate: seed === undefined && !diagnostics && trainer.nonPrivate === undefined })
}

/** The trainer's flags into its configuration (defaults under them), decoded and range-checked. */
const configure = (trainer: AnyTrainer, v: FlagValues): Step<ConfiguredTrainer> => {
  const config: Record<string, unknown> = { ...trainer.defaults }
  for (const f of trainer.flags) {
    const raw = v[f.flag]
    if (f.required === true && raw === undefined) return failed(`--${f.flag} is required`)
    if (f.field === undefined || raw === undefined || raw === false) continue
    if (f.type === 'switch' || f.type === 'string') {
      config[f.field] = raw
      continue
    }
    const x = num(f.flag, raw)
    if (E.isLeft(x)) return failed(x.left)
    if (f.max !== undefined && x.right !== undefined && x.right > f.max) return failed(`--${f.flag}: ${f.meta ?? 'the value'} must be at most ${f.max.toLocaleString('en-US')} (got ${String(raw)})`)
    config[f.field] = x.right
  }
  const more = trainer.fromFlags?.(v, config)
  if (more !== undefined) return failed(more)
  const decoded = trainer.decode(config)
  if (E.isLeft(decoded)) return failed(`${trainer.name}: invalid configuration: ${formatError(decoded.left)}`)
  const valid = decoded.right.validate()
  if (E.isLeft(valid)) return failed(`${trainer.name}: ${formatError(valid.left)}`)
  // a configuration resting on unverified theorems is never a private release: refused before any work
  if (v['private'] === true && valid.right.unverified.length > 0) return failed(`--private: ${valid.right.unverified.join('; ')}`)
  return E.right(valid.right)
}

/** The δs to state ε at (default 1e-5). */
const chooseDeltas = (v: FlagValues): Step<ReadonlyArray<number>> => {
  const deltas: number[] = []
  for (const raw of (v['delta'] as ReadonlyArray<string> | undefined) ?? ['1e-5']) {
    const d = num('delta', raw)
    if (E.isLeft(d)) return failed(d.left)
    if (!(d.right !== undefined && d.right >= 0 && d.right < 1)) return failed(`--delta: δ must be in [0, 1) (0: pure ε-DP) (got ${raw})`)
    deltas.push(d.right)
  }
  return E.right(deltas)
}

/** The training corpus, read with the vocabulary asked for (a file, a size, or a DP selection through its own gate on the run's randomness). */
const loadCorpus = (
  trainer: AnyTrainer,
  args: TrainArgs,
  corpus: string,
  rng: Rng,
  intendsPrivate: boolean,
): Step<{ readonly data: Dataset; readonly selection: ReleaseGate | undefined; readonly loadOptions: LoadOptions; readonly warning: string | undefined }> => {
  const v = args.values
  const vs = num('vocabulary-size', v['vocabulary-size'])
  if (E.isLeft(vs)) return failed(vs.left)
  const vocabFile = v['vocabulary']
  if (typeof vocabFile === 'string' && vocabFile !== 'dp' && vs.right !== undefined) return failed('--vocabulary FILE and --vocabulary-size go separately: the file fixes the vocabulary')
  if (!(vocabFile === 'dp') && ['vocabulary-epsilon', 'vocabulary-delta', 'vocabulary-words-per-document'].some((f) => v[f] !== undefined))
    return failed('--vocabulary-epsilon, --vocabulary-delta and --vocabulary-words-per-document go with --vocabulary dp')
  const vocabulary = typeof vocabFile === 'string' && vocabFile !== 'dp' ? readVocabularyFile(vocabFile) : E.right(undefined)
  if (E.isLeft(vocabulary)) return failed(formatError(vocabulary.left))
  const selection = vocabFile === 'dp' ? vocabularySelection(v, trainer.accountingRelation, rng, args.onRelease) : E.right(undefined)
  if (E.isLeft(selection)) return failed(selection.left)
  const loadOptions: LoadOptions = {
    ...(vs.right === undefined ? {} : { vocabularySize: vs.right }),
    ...(vocabulary.right === undefined ? {} : { vocabulary: vocabulary.right }),
    ...(selection.right === undefined ? {} : { select: selection.right.select(vs.right) }),
    ...(intendsPrivate ? { split: false } : {}),
  }
  const ds = loadDataset(corpus, loadOptions)
  // the loader's own '--corpus' errors already name the flag
  if (E.isLeft(ds)) return failed(ds.left._tag === 'InvalidParameter' && ['--vocabulary', '--vocabulary-size', '--corpus'].includes(ds.left.path) ? formatError(ds.left) : `--corpus: ${formatError(ds.left)}`)
  // a selected vocabulary is the corpus's: extra inputs are read with it, not selected again (one charge)
  const inputOptions: LoadOptions = selection.right === undefined ? loadOptions : { vocabulary: { words: ds.right.train.vocab, file: 'the selected vocabulary' } }
  return E.right({ data: ds.right, selection: selection.right?.gate, loadOptions: inputOptions, warning: vocabulary.right === undefined ? undefined : unmatchableNote(vocabulary.right, ds.right.tokenizer) })
}

/** A note on the words of a public --vocabulary list that the corpus's tokenizer can never produce (public: the list and the tokenizer only). */
const unmatchableNote = (list: { readonly words: ReadonlyArray<string>; readonly file: string }, tokenizer: Dataset['tokenizer']): string | undefined => {
  if (tokenizer === undefined || tokenizer === 'none') return undefined
  const never = unmatchableWords(list.words, tokenizer)
  if (never.length === 0) return undefined
  const shown = never.slice(0, 5).map((w) => JSON.stringify(w)).join(', ')
  return `note: --vocabulary ${list.file}: ${never.length} of its ${list.words.length} words can never match a token of this corpus (tokens are lowercase runs of 3 or more letters, stop words removed): ${shown}${never.length > 5 ? ', …' : ''}`
}

/** The trainer's extra inputs: public corpora read with the training corpus's vocabulary. */
const loadInputs = (trainer: AnyTrainer, cfg: ConfiguredTrainer, options: LoadOptions, train: Corpus): Step<Readonly<Record<string, PublicCorpus>>> => {
  const out: Record<string, PublicCorpus> = {}
  for (const input of cfg.inputs) {
    const p = loadInputCorpus(input.name, input.path, options, train)
    if (E.isLeft(p)) return failed(`${trainer.name}: ${formatError(p.left)}`)
    out[input.name] = p.right
  }
  return E.right(out)
}

/** What makes the run not a private release beyond what its gates record, known before training; refused under --private. */
const runReasons = (v: FlagValues, data: Dataset, cfg: ConfiguredTrainer, declared: DeclaredSizes, diagnostics: boolean): Step<ReadonlyArray<string>> => {
  // a vocabulary chosen from the private documents without a gate: the run is not a private release
  const vocabularyLeak = vocabularyNotPrivate(data.vocabularySource)
  const reasons = [...(vocabularyLeak === undefined ? [] : [vocabularyLeak]), ...cfg.refusals(declared)]
  if (v['private'] === true && reasons.length > 0) return failed(`--private: ${reasons[0] as string}`)
  return E.right([...reasons, ...(diagnostics ? [DIAGNOSTICS_ASKED] : [])])
}

/** The fit, with progress lines: a private run shows only the iterations done of T (public), no rate, time or log-likelihood. */
const train = (args: TrainArgs, trainer: AnyTrainer, cfg: ConfiguredTrainer, data: Dataset, rng: Rng, diagnostics: boolean, timing: boolean, inputs: Readonly<Record<string, PublicCorpus>>): Step<TrainedModel> => {
  const workers = args.values['workers']
  if (workers !== undefined && !(typeof workers === 'string' && WORKER_COUNT.test(workers.trim())))
    return failed(`--workers: "${String(workers)}" is not a whole number of threads from 1 to 9999`)
  const progress = args.progress
  const bar = progress === undefined ? progressLine({ label: `train ${trainer.name}`, unit: 'iterations', quiet: args.values['json'] === true || args.values['quiet'] === true, timing }) : undefined
  const onIteration = (l: IterationLog): void => {
    if (!timing) {
      progress?.(`iter ${String(l.iteration).padStart(4)} of ${cfg.iterations}`)
      bar?.update(l.iteration, cfg.iterations)
      return
    }
    const ll = Number.isNaN(l.logLikelihood) ? undefined : `log-likelihood ${l.logLikelihood.toFixed(1)}`
    const rate = Number.isFinite(l.tokensPerSecond) && l.tokensPerSecond > 0 ? `  ${(l.tokensPerSecond / 1e6).toFixed(2)} M tokens/s` : ''
    progress?.(`iter ${String(l.iteration).padStart(4)}  ${ll ?? 'log-likelihood —'}  elapsed ${(l.elapsedMs / 1000).toFixed(2)} s${rate}`)
    bar?.update(l.iteration, cfg.iterations, ll)
  }
  const fit = cfg.fit(data.train, rng, {
    diagnostics,
    ...(workers === undefined ? {} : { workers: Number(workers) }),
    ...(progress === undefined && bar?.active !== true ? {} : { onIteration }),
    ...(args.onRelease === undefined ? {} : { onRelease: args.onRelease }),
    ...(Object.keys(inputs).length === 0 ? {} : { inputs }),
  })
  bar?.done()
  return E.isLeft(fit) ? failed(`${trainer.name}: ${formatError(fit.left)}`) : E.right(fit.right)
}

export const runTrain = (args: TrainArgs): CommandResult => holdingLocks((hold) => E.getOrElse((r: CommandResult) => r)(trainHolding(args, hold)))

/** The same steps for every trainer: choose, configure, load, account, train, check the release, write. */
const trainHolding = (args: TrainArgs, hold: (release: () => void) => void): Step<CommandResult> => {
  const v = args.values
  const trainer = chooseTrainer(args)
  if (E.isLeft(trainer)) return trainer
  const t = trainer.right
  const io = chooseOutput(t, v, hold)
  if (E.isLeft(io)) return io
  const run = chooseRandomness(t, v)
  if (E.isLeft(run)) return run
  const configured = configure(t, v)
  if (E.isLeft(configured)) return configured
  const deltas = chooseDeltas(v)
  if (E.isLeft(deltas)) return deltas
  const declared = declaredSizes(v)
  if (E.isLeft(declared)) return failed(declared.left)
  const cfg = configured.right.withDeclared(declared.right)
  if (E.isLeft(cfg)) return failed(`${t.name}: ${formatError(cfg.left)}`)
  // the randomness of the whole run: a DP vocabulary selection draws from it first, then the trainer
  const rng = run.right.seed === undefined ? (args.secureRng ?? secure)() : seeded(run.right.seed)
  // threads asked for by number start now and load while the corpus is read (the fit takes them; checked again there);
  // not more than the cores: the fit lowers W to the corpus's documents, which are not known yet
  const workers = v['workers']
  if (t.workers !== undefined && typeof workers === 'string' && WORKER_COUNT.test(workers.trim()) && Number(workers) <= availableParallelism()) t.prestart(Number(workers))
  const loaded = loadCorpus(t, args, io.right.corpus, rng, run.right.intendsPrivate)
  if (E.isLeft(loaded)) return loaded
  const { data, selection } = loaded.right
  const reasons = runReasons(v, data, cfg.right, declared.right, run.right.diagnostics)
  if (E.isLeft(reasons)) return reasons
  const inputs = loadInputs(t, cfg.right, loaded.right.loadOptions, data.train)
  if (E.isLeft(inputs)) return inputs
  const evalCorpusArg = v['eval-corpus']
  const evalCorpus = typeof evalCorpusArg === 'string' ? loadEvalCorpus(evalCorpusArg, data.train.vocab) : E.right(undefined)
  if (E.isLeft(evalCorpus)) return failed(evalCorpus.left._tag === 'InvalidParameter' && evalCorpus.left.path === '--eval-corpus' ? formatError(evalCorpus.left) : `--eval-corpus: ${formatError(evalCorpus.left)}`)
  // account before training: a plan no accountant can answer is reported before any work
  const stats = corpusStats(data.train)
  const statement = cfg.right.statement(stats, deltas.right, data.vocabularySource, selection?.ledger())
  // a parameter the corpus rules out (spectral's k > V) is bad input (exit 1); no accountant answering is exit 2
  if (E.isLeft(statement)) return E.left({ code: statement.left._tag === 'InvalidParameter' ? EXIT.input : EXIT.accounting, stderr: `${t.name}: ${formatError(statement.left)}` })
  // δ = 0 asks for pure ε-DP: a plan without one (a Gaussian, a stated δ > 0) is refused, not stated as ε = ∞
  const noPure = statement.right.guarantee.find((g) => g.delta === 0 && !Number.isFinite(g.epsilon))
  if (noPure !== undefined)
    return failed(`${t.name}: --delta 0 asks for pure ε-DP, which this plan does not have: every accountant answers ε = ∞ at δ = 0 (some event has no pure ε: a Gaussian, a zCDP or (ε, δ > 0) step); ask for a δ > 0`)
  const infinite = statement.right.guarantee.find((g) => !Number.isFinite(g.epsilon))
  if (v['private'] === true && infinite !== undefined) return failed(`${t.name}: --private: the plan has no finite ε (${infinite.method}), so the run cannot be a private release`)
  const trained = train(args, t, cfg.right, data, rng, run.right.diagnostics, !run.right.intendsPrivate || reasons.right.length > 0, inputs.right)
  if (E.isLeft(trained)) return trained
  const why = [...new Set([...(selection?.notPrivateBecause() ?? []), ...trained.right.release.notPrivateBecause, ...reasons.right])]
  if (v['private'] === true && why.length > 0) return E.left({ code: EXIT.internal, stderr: `--private: the run turned out not to be a private release (${why.join('; ')}); nothing written` })
  const done = writeRun({ trainer: t, cfg: cfg.right, data, trained: trained.right, statement: statement.right, why, evalCorpus: evalCorpus.right, declared: declared.right, out: io.right.out, json: v['json'] === true })
  const warning = loaded.right.warning
  return E.right(warning === undefined || done.code !== EXIT.ok ? done : { ...done, stderr: done.stderr === undefined ? warning : `${warning}\n${done.stderr}` })
}

/** The release checked, the model evaluated, its file written, and what the command prints. */
const writeRun = (r: {
  readonly trainer: AnyTrainer
  readonly cfg: ConfiguredTrainer
  readonly data: Dataset
  readonly trained: TrainedModel
  readonly statement: PrivacyStatement
  readonly why: ReadonlyArray<string>
  readonly evalCorpus: Corpus | undefined
  readonly declared: DeclaredSizes
  readonly out: string
  readonly json: boolean
}): CommandResult => {
  const { trainer, trained, data } = r
  const isPrivate = r.why.length === 0
  const release = { private: isPrivate, randomness: trained.release.randomness, notice: releaseNotice({ private: isPrivate, notPrivateBecause: r.why }), notPrivateBecause: r.why }
  // the statement was made from the plan before the run; what the run did to it is said first
  const privacy: PrivacyStatement = isPrivate ? r.statement : { ...r.statement, notes: [release.notice, ...r.statement.notes] }
  // a private release is evaluated only on a public corpus (--eval-corpus): the model is a release, so
  // that is post-processing. A run that is not a private release may also be scored on its test split.
  const scored = scoreRun(trained, r.evalCorpus, isPrivate ? undefined : data.test)
  if (E.isLeft(scored)) return { code: EXIT.internal, stderr: `evaluation failed: ${formatError(scored.left)}` }
  const evaluation = scored.right
  const stats = corpusStats(data.train)
  const sizes = isPrivate ? publicSizes(trainer.accountingRelation, trainer.relation, stats, r.declared) : { ...exactSizes(stats), sizes: 'exact (not a private release)' }
  const corpus = { name: data.name, ...sizes }
  const file = trainedFile({
    kind: trainer.kind,
    trainer: trainer.name,
    config: r.cfg.config,
    release,
    corpus,
    vocab: data.train.vocab,
    fields: trained.fields(),
    ...(evaluation === undefined ? {} : { evaluation: evaluation.record }),
    privacy,
    // the per-iteration trace (cumulative wall time) only for a run that is not a private release:
    // the time a private run took depends on its data and would leak through the file (a side channel)
    ...(isPrivate ? {} : { trace: trained.trace }),
  })
  const w = writeModelFile(r.out, file)
  if (E.isLeft(w)) return fail(formatError(w.left))
  const totalMs = trained.trace[trained.trace.length - 1]?.elapsedMs ?? 0
  // timing only for a run that is not a private release (a private run's speed depends on its data)
  // a trainer that counts no tokens (tokensSampled 0: DP-SGD, whose lot sizes would reveal n) has no rate to show
  const rate = trained.tokensSampled > 0 ? (trained.tokensSampled / totalMs) * 1000 : undefined
  const timing = isPrivate ? {} : { ...(rate === undefined ? {} : { tokensPerSecond: rate }), seconds: totalMs / 1000 }
  if (r.json)
    return {
      code: EXIT.ok,
      stdout: stringifyJson({ schemaVersion: 1, tool: 'dpaudit train', trainer: trainer.name, config: r.cfg.config, release, corpus, out: r.out, evaluation: evaluation?.record ?? null, privacy, ...timing }, 2),
    }
  return {
    code: EXIT.ok,
    stdout: [
      `${trainer.name} on ${data.name}: ${sizeText(corpus)}${r.cfg.summary === undefined ? '' : `; ${r.cfg.summary}`}; randomness ${release.randomness}`,
      release.notice,
      ...(isPrivate ? [] : [`trained in ${(totalMs / 1000).toFixed(2)} s${rate === undefined ? '' : ` (${(rate / 1e6).toFixed(2)} M tokens/s)`}`]),
      evaluation === undefined
        ? `${trainer.metric}: not computed (a private release is evaluated only on a public corpus: --eval-corpus FILE)`
        : `${trainer.metric}${evaluation.corpus === undefined ? '' : ` on ${evaluation.corpus}`}: ${evaluation.shown} (${evaluation.detail}; ${evaluation.protocol})`,
      renderStatement(privacy),
      `model written to ${r.out}`,
    ].join('\n'),
  }
}

/**
 * A public corpus a trainer reads beside the training one (olp-lda's --prior PATH): every document of
 * `path`, loaded as the main corpus was but with no train/test split (an already split layout
 * contributes its test documents too); its vocabulary must be the corpus's.
 */
const loadInputCorpus = (name: string, path: string, options: LoadOptions, stream: Corpus): E.Either<DpError, PublicCorpus> => {
  const ds = loadDataset(path, { ...options, split: false })
  if (E.isLeft(ds)) return E.left(ds.left._tag === 'InvalidParameter' && ds.left.path === '--corpus' ? { ...ds.left, path: name } : ds.left)
  const { train, test } = ds.right
  const docs = (c: Corpus): Int32Array[] => Array.from({ length: documentCount(c) }, (_, d) => c.tokens.subarray(c.docStart[d] as number, c.docStart[d + 1] as number))
  const all = fromDocuments(train.vocab, [...docs(train), ...docs(test)], [...train.names, ...test.names], [...train.labels, ...test.labels])
  // naming the corpus on the command line is the user's declaration that it is public
  return E.map(() => declarePublic(all))(checkSameVocabulary(all, stream))
}

/** Held-out evaluation on the public evaluation corpus when one is given, else on the run's own test split when given, else none. */
const scoreRun = (
  trained: TrainedModel,
  evalCorpus: Corpus | undefined,
  split: Corpus | undefined,
): E.Either<DpError, { readonly record: Readonly<Record<string, unknown>>; readonly shown: string; readonly detail: string; readonly protocol: string; readonly corpus?: string } | undefined> => {
  const test = evalCorpus ?? split
  if (trained.evaluate === undefined || test === undefined || documentCount(test) === 0) return E.right(undefined)
  const where = evalCorpus === undefined ? "on the run's own test split (not a private release)" : 'on the public corpus given by --eval-corpus'
  const corpus = evalCorpus === undefined ? {} : { corpus: 'the --eval-corpus corpus' }
  return E.map((e: { values: Readonly<Record<string, number>>; shown: string; detail: string; protocol: string }) => {
    const protocol = `${e.protocol}; ${where}`
    return { record: { ...e.values, protocol, ...corpus }, shown: e.shown, detail: e.detail, protocol, ...corpus }
  })(trained.evaluate(test))
}

export const fmt = (x: number, digits = 4): string => (Number.isFinite(x) ? (Math.abs(x) >= 1e5 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(digits - 1) : x.toPrecision(digits)) : x > 0 ? '∞' : String(x))

/** Human text of a privacy statement. */
export const renderStatement = (s: PrivacyStatement): string => {
  const lines = [`privacy (${s.trainer}; protects ${s.protects}; plan accounted under ${s.accountedUnder}):`]
  for (const g of s.guarantee) {
    const c = s.claim.atDelta.find((x) => x.delta === g.delta)
    lines.push(
      `  δ = ${g.delta.toExponential(0)}: accounted ε = ${fmt(g.epsilon)}  [${g.accountant}: ${g.method}]` +
        (c === undefined ? '   claimed: none' : `   claimed ε = ${fmt(c.epsilon)} (${c.kind}${c.statedDelta > 0 ? `, δ = ${c.statedDelta.toExponential(2)}` : ''})`),
    )
  }
  if (s.accountedUnder !== s.protects)
    for (const a of s.accounted) lines.push(`  under ${s.accountedUnder}: ε = ${fmt(a.epsilon)} at δ = ${a.delta.toExponential(0)} [${a.accountant}: ${a.method}]`)
  lines.push(`  claim: ${s.claim.source}: ${s.claim.statement}`)
  for (const a of s.assumptions) lines.push(`  assumes: ${a}`)
  for (const n of s.notes) lines.push(`  note: ${n}`)
  return lines.join('\n')
}

/**
 * `--vocabulary dp`: a differentially private selection (trainers/corpus/dp-vocabulary.ts) calibrated
 * to (--vocabulary-epsilon, --vocabulary-delta) under the trainer's accounted relation, run through its
 * own release gate on the run's randomness; the gate's ledger is charged first in the plan.
 */
const vocabularySelection = (
  v: TrainArgs['values'],
  relation: NeighbouringRelation,
  rng: Rng,
  onRelease: TrainArgs['onRelease'],
): E.Either<string, { readonly gate: ReleaseGate; readonly select: (size: number | undefined) => NonNullable<LoadOptions['select']> }> => {
  const eps = num('vocabulary-epsilon', v['vocabulary-epsilon'])
  const del = num('vocabulary-delta', v['vocabulary-delta'])
  const m = num('vocabulary-words-per-document', v['vocabulary-words-per-document'])
  if (E.isLeft(eps)) return eps
  if (E.isLeft(del)) return del
  if (E.isLeft(m)) return m
  const epsilon = eps.right ?? DP_VOCABULARY.epsilon
  const delta = del.right ?? DP_VOCABULARY.delta
  const perDocument = relation.unit === 'document' ? { wordsPerDocument: m.right ?? DP_VOCABULARY.wordsPerDocument } : {}
  if (relation.unit !== 'document' && m.right !== undefined) return E.left(`--vocabulary-words-per-document applies to a trainer protecting documents; this one protects ${showRelation(relation)}`)
  const gate = new ReleaseGate(wordsFromRng(rng), onRelease === undefined ? {} : { onRelease })
  return E.right({
    gate,
    select: (size) => (training) => {
      const params = calibrateVocabulary({ epsilon, delta, size: size ?? DEFAULT_VOCABULARY.text, relation, ...perDocument })
      if (E.isLeft(params)) return params
      const measurement = dpVocabulary(params.right)
      if (E.isLeft(measurement)) return measurement
      const words = gate.release(measurement.right, training, 'vocabulary')
      return E.right({
        words,
        source: { kind: 'dp-selection', epsilon, delta, size: params.right.size, relation: showRelation(relation), scale: params.right.scale, threshold: params.right.threshold },
      })
    },
  })
}

/** `--vocabulary dp`'s defaults: (ε, δ) = (1, 1e-7); under a document relation each document contributes its first 50 distinct words. */
const DP_VOCABULARY = { epsilon: 1, delta: 1e-7, wordsPerDocument: 50 } as const

/** The public evaluation corpus: every document is a test document, read with the model's vocabulary. */
const loadEvalCorpus = (path: string, vocab: ReadonlyArray<string>): E.Either<DpError, Corpus> => {
  const withVocab = loadDataset(path, { vocabulary: { words: vocab, file: 'the model’s vocabulary' }, split: false, minTokens: 2 })
  if (E.isRight(withVocab)) return E.right(withVocab.right.train)
  // a bag-of-words corpus carries its own vocab.txt: it must be the model's, word for word
  const own = loadDataset(path, { split: false, minTokens: 2 })
  // the loader names the flag it reads for (--corpus); this file came from --eval-corpus
  if (E.isLeft(own)) return E.left(own.left._tag === 'InvalidParameter' && own.left.path === '--corpus' ? { ...own.left, path: '--eval-corpus' } : own.left)
  const a = own.right.train.vocab
  return a.length === vocab.length && a.every((w, i) => w === vocab[i])
    ? E.right(own.right.train)
    : E.left(invalidParameter('--eval-corpus', path, 'its vocab.txt is not the model’s vocabulary, word for word'))
}

/** Public sizes declared by the user (--documents, --tokens). */
const declaredSizes = (v: TrainArgs['values']): E.Either<string, DeclaredSizes> => {
  const out: { documents?: number; tokens?: number } = {}
  for (const [flag, field] of [['documents', 'documents'], ['tokens', 'tokens']] as const) {
    const x = num(flag, v[flag])
    if (E.isLeft(x)) return x
    if (x.right === undefined) continue
    if (!(Number.isInteger(x.right) && x.right >= 1)) return E.left(`--${flag}: the declared ${field === 'documents' ? 'number of documents D' : 'number of tokens N'} must be an integer ≥ 1 (got ${String(v[flag])})`)
    out[field] = x.right
  }
  return E.right(out)
}

const sizeText = (c: ModelFile['corpus']): string =>
  [
    c.documents === undefined ? 'D not public' : `D = ${c.documents}`,
    `V = ${c.vocabulary}`,
    c.tokens === undefined ? 'N not public' : `N = ${c.tokens}`,
  ].join(', ') + (c.sizes === undefined ? '' : ` (${c.sizes})`)

/** argv (after "train") → result, for the dispatcher. */
export const runTrainCli = (argv: ReadonlyArray<string>, plugin?: AnyTrainer): CommandResult => {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: plugin === undefined ? TRAIN_OPTIONS : trainOptions([plugin]) })
  if (positionals.length > (plugin === undefined ? 1 : 0)) return fail(plugin === undefined ? TRAIN_USAGE : trainUsage([plugin]))
  const flags: FlagValues = Object.fromEntries(Object.entries(values).map(([k, x]) => [k, Array.isArray(x) ? x.map(String) : x]))
  return runTrain({ trainer: plugin ?? positionals[0], values: flags })
}

/**
 * `dpaudit demo` section: HDP-LDA on Brown with its accounting, next to the non-private CGS's
 * perplexity (K = 20; 50 CGS sweeps, 20 HDP-LDA iterations; a few seconds).
 */
export const trainDemo = (): string => {
  const ds = loadDataset('brown')
  if (E.isLeft(ds)) return `demo: cannot load Brown: ${formatError(ds.left)}`
  const data = ds.right
  const stats = corpusStats(data.train)
  const lines = [`LDA on Brown (D = ${stats.documents} training documents, V = ${stats.vocabulary}, N = ${stats.tokens}; K = 20; held-out perplexity by document completion)`]
  const runs: ReadonlyArray<readonly [keyof typeof TRAINERS, Record<string, unknown>]> = [
    ['cgs', { topics: 20, iterations: 50, alpha: 0.1, beta: 0.01 }],
    ['hdp-lda', { topics: 20, iterations: 20, alpha: 0.1, beta: 0.01, epsilonL: 1, clip: 100, noise: 'fresh' }],
  ]
  for (const [name, raw] of runs) {
    const trainer = TRAINERS[name]
    const cfg = trainer.config.decode(raw)
    if (E.isLeft(cfg)) return `demo: bad configuration for ${name}`
    // the private trainer runs as a user's would: noise and draws from node:crypto
    const fit = trainer.fit(data.train, cfg.right, name === 'cgs' ? seeded(1) : secure(), { logLikelihoodEvery: 0 })
    if (E.isLeft(fit)) return `demo: ${formatError(fit.left)}`
    const p = heldOutPerplexity(fit.right.model.phi, 20, data.testObserved, data.testHeldOut)
    const st = privacyStatement(trainer, cfg.right, stats, [1e-5], data.vocabularySource)
    if (E.isLeft(p) || E.isLeft(st)) return 'demo: evaluation or accounting failed'
    // the demo is the operator's view: its score on Brown's own test split is not part of a release
    lines.push('', `${name}: ${trainer.description}; ${JSON.stringify(raw)}`, `  held-out perplexity ${p.right.perplexity.toFixed(1)} (the operator's evaluation on Brown's test split; a private release would be scored only on a public corpus)`, `  ${releaseNotice(fit.right.release)}`, renderStatement(st.right))
  }
  return lines.join('\n')
}
