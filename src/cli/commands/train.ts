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
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { firstDecodeError } from '../../core/decode.js'
import { type DpError, formatError, invalidParameter } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { type Rng, secure, seeded } from '../../core/rng.js'
import { DIAGNOSTICS_ASKED, ReleaseGate, type ReleaseRecord } from '../../mechanisms/gate.js'
import { calibrateVocabulary, dpVocabulary } from '../../trainers/corpus/dp-vocabulary.js'
import { wordsFromRng } from '../../core/words.js'
import { type NeighbouringRelation, showRelation } from '../../mechanisms/neighbouring.js'
import { type Corpus, type CorpusStats, corpusStats, declarePublic, documentCount, fromDocuments, type PublicCorpus } from '../../trainers/corpus/corpus.js'
import { completionHalves } from '../../trainers/corpus/dataset.js'
import { type DeclaredSizes, exactSizes, publicSizes, vocabularyNotPrivate } from '../../trainers/release/public-output.js'
import { DEFAULT_VOCABULARY, type LoadOptions, loadDataset, readVocabularyFile } from '../../trainers/corpus/load.js'
import { heldOutPerplexity } from '../../trainers/eval/perplexity.js'
import { type ModelFile, modelFile, writeModelFile } from '../../trainers/model-file.js'
import { BASE_DEFAULTS } from '../../trainers/config.js'
import { isTrainerName, TRAINER_NAMES, TRAINERS } from '../../trainers/registry.js'
import { type PrivacyStatement, privacyStatement, releaseNotice } from '../../trainers/statement.js'
import { type LpConfig, lpLda, unitGuarantees, unitNotes } from '../../trainers/lp/lp-lda.js'
import { checkSameVocabulary, fitOnline, type OlpConfig, olpLda } from '../../trainers/olp/olp-lda.js'
import { configurationOf, unverifiedReasons } from '../../trainers/spectral/trainer.js'
import type { IterationLog, LdaTrainer, TrainerName } from '../../trainers/trainer.js'
import { checkOutputPath } from '../io.js'
import { existingInputs, guardOutputs, holdingLocks } from '../output-guard.js'
import { progressLine } from '../progress.js'
import { type CommandResult, EXIT } from './result.js'

/** The largest T accepted: a run is bounded in time by its flags (issue 29). */
export const MAX_ITERATIONS = 1_000_000

/** Numeric flags every trainer takes, and the config field each sets. */
const COMMON_NUMERIC: ReadonlyArray<readonly [flag: string, field: string]> = [
  ['topics', 'topics'],
  ['iterations', 'iterations'],
  ['alpha', 'alpha'],
  ['beta', 'beta'],
]

/** Flags every trainer takes. */
const COMMON_FLAGS: ReadonlySet<string> = new Set(['corpus', 'out', 'seed', 'private', 'diagnostics', 'vocabulary', 'vocabulary-size', 'vocabulary-epsilon', 'vocabulary-delta', 'vocabulary-words-per-document', 'eval-corpus', 'documents', 'tokens', 'delta', 'json', 'quiet', 'workers', ...COMMON_NUMERIC.map(([f]) => f)])

/** A trainer-specific flag: the config field a numeric flag sets, and how its default reads in the usage line. */
interface TrainerFlag {
  readonly flag: string
  readonly meta?: string
  /** Numeric flags: the config field set from the number. */
  readonly field?: string
  /** The default as shown in the usage line, from the trainer's defaults; absent: no default (a switch, or an alternative). */
  readonly shown?: (defaults: Readonly<Record<string, unknown>>) => string
}

const fieldDefault =
  (field: string) =>
  (d: Readonly<Record<string, unknown>>): string =>
    String(d[field])

const numeric = (flag: string, field: string, meta: string): TrainerFlag => ({ flag, field, meta, shown: fieldDefault(field) })

/** Private SVI's flags (both sampling models; the trainer's name chooses the model). */
const SVI_FLAGS: ReadonlyArray<TrainerFlag> = [
  numeric('batch-size', 'batchSize', 'S'),
  numeric('truncation', 'truncation', 'N'),
  numeric('tau0', 'tau0', 'T0'),
  numeric('kappa', 'kappa', 'K'),
  numeric('epsilon-total', 'epsilonTotal', 'E'),
  numeric('delta-total', 'deltaTotal', 'D'),
  { flag: 'delta-reading', meta: 'total-over-J|per-iteration', shown: fieldDefault('deltaReading') },
  numeric('delta-iteration', 'deltaIteration', 'D'),
  { flag: 'noise', meta: 'chain|as-written|multiplier', shown: fieldDefault('noise') },
  numeric('multiplier', 'multiplier', 'Z'),
  { flag: 'clip-norm', field: 'clipNorm', meta: 'C', shown: () => 'off' },
]

/** The flags each trainer takes beyond COMMON_FLAGS. */
export const TRAINER_FLAGS: Readonly<Record<TrainerName, ReadonlyArray<TrainerFlag>>> = {
  cgs: [],
  'hdp-lda': [numeric('epsilon-l', 'epsilonL', 'E'), numeric('clip', 'clip', 'C'), { flag: 'noise', meta: 'fresh|accumulate', shown: fieldDefault('noise') }],
  'cdp-lda': [numeric('epsilon', 'epsilon', 'E')],
  'cdp-lda+': [numeric('epsilon', 'epsilon', 'E')],
  'sub-lda': [
    numeric('gamma', 'gamma', 'G'),
    numeric('clip', 'clip', 'C'),
    numeric('order', 'order', 'A'),
    numeric('rdp-epsilon', 'rdpEpsilon', 'E'),
    { flag: 'adaptive-q', meta: 'Q', shown: () => 'off' },
    { flag: 'adaptive-eta', meta: 'H', shown: () => 'off' },
  ],
  'lp-lda': [numeric('flip', 'flip', 'F'), { flag: 'shuffler' }],
  'olp-lda': [
    numeric('flip', 'flip', 'F'),
    { flag: 'prior', meta: 'FRACTION|PATH', shown: fieldDefault('prior') },
    numeric('batch', 'batch', 'B'),
    numeric('lambda', 'lambda', 'L'),
    { flag: 'omega', meta: 'W', shown: (d) => String((d['denoise'] as { omega?: number }).omega) },
    { flag: 'prior-sd', meta: 'S' },
  ],
  'svi-lda': SVI_FLAGS,
  'svi-lda-wor': SVI_FLAGS,
  spectral: [
    { flag: 'config', meta: '1|2|3|4|e3,e4,e8|…', shown: fieldDefault('configuration') },
    numeric('epsilon', 'epsilon', 'E'),
    { flag: 'weights', meta: 'e3=2,sigmaK=0.5,…', shown: () => 'all 1' },
    numeric('failure-share', 'failureShare', 'F'),
    numeric('oversampling', 'oversampling', 'P'),
    numeric('range-iterations', 'rangeIterations', 'Q'),
    numeric('restarts', 'restarts', 'L'),
  ],
}

/** What each trainer-specific flag means, for the usage line. */
const FLAG_NOTES: Readonly<Record<string, string>> = {
  shuffler: 'reports reach the server through a shuffler',
  flip: 'keep each presence bit with probability 1 − F',
  prior: 'public prior corpus: a fraction of the training documents split off, or a corpus with the same vocabulary',
  batch: 'reports per mini-batch',
  lambda: 'O-LDA correlation factor, eq. 10',
  omega: 'weight of the prior μ_t in B(n_t), eq. 19',
  'prior-sd': 'instead of --omega: prior σ, ω per batch by Theorem 6',
  'batch-size': 'documents per mini-batch (Poisson rate S/D for svi-lda)',
  truncation: 'words kept per document',
  'clip-norm': 'project each document’s statistic to L2 norm ≤ C (the authors’ code; sensitivity min(C, N)/S)',
  'delta-reading': 'how the paper’s δ′ is read',
  noise: 'hdp-lda: line 9 reading; svi-lda: σ from the paper’s chain, as written, or --multiplier × sensitivity',
  'adaptive-q': 'with --adaptive-eta',
  config: 'noised edges: paper configuration 1–4 or a cut of e0–e9',
  weights: 'budget weight per noised edge and PTR quantity',
  'failure-share': 'share of δ charged for PTR failures',
}

const usageOf = (name: TrainerName): string =>
  TRAINER_FLAGS[name]
    .map((f) => {
      const d = f.shown?.(TRAINERS[name].defaults)
      const note = FLAG_NOTES[f.flag]
      return `[--${f.flag}${f.meta === undefined ? '' : ` ${f.meta}`}${d === undefined ? '' : ` (default ${d})`}${note === undefined ? '' : ` (${note})`}]`
    })
    .join(' ')

const NUMERIC: ReadonlyArray<readonly [flag: string, field: string]> = [
  ...COMMON_NUMERIC,
  ...[...new Map(Object.values(TRAINER_FLAGS).flatMap((fs) => fs.flatMap((f): Array<[string, string]> => (f.field === undefined ? [] : [[f.flag, f.field]])))).entries()],
]

export const TRAIN_USAGE = `usage: dpaudit train <${TRAINER_NAMES.join('|')}> --corpus brown|spam|<path> --topics K --iterations T --out model.json
  (spectral: --iterations counts power-method iterations and defaults to 30)
  [--alpha A (default ${BASE_DEFAULTS.alpha})] [--beta B (default ${BASE_DEFAULTS.beta})] [--vocabulary FILE | --vocabulary-size V] [--delta D ...] [--json] [--quiet]
  [--vocabulary dp [--vocabulary-size V] [--vocabulary-epsilon E (default 1)] [--vocabulary-delta D (default 1e-7)] [--vocabulary-words-per-document M (default 50; document relations)]] (a differentially private selection, charged in the plan)
  [--eval-corpus FILE] (public corpus to score φ on; a private release is scored on nothing else)
  [--documents D] [--tokens N] (declared public sizes; under a document-level relation the exact ones are never printed)
  [--private] (refuse anything that would make the release not private)
  [--seed S] (reproducible: NOT a private release) [--diagnostics] (true-count log-likelihood: NOT a private release)
  [--workers W] (threads of the private Gibbs sweeps; default: the cores available, one per 100,000 tokens at most; the result does not depend on it)
${TRAINER_NAMES.filter((n) => TRAINER_FLAGS[n].length > 0)
  .map((n) => `  ${`${n}:`.padEnd(10)}${usageOf(n)}`)
  .join('\n')}
  (a flag that does not apply to the chosen trainer is refused; T ≤ ${MAX_ITERATIONS.toLocaleString('en-US')}; --out may not be an input, a file inside a corpus folder, or a file another dpaudit is writing)`

export const TRAIN_OPTIONS = {
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
  noise: { type: 'string' },
  'adaptive-q': { type: 'string' },
  'adaptive-eta': { type: 'string' },
  shuffler: { type: 'boolean', default: false },
  prior: { type: 'string' },
  omega: { type: 'string' },
  'prior-sd': { type: 'string' },
  'delta-reading': { type: 'string' },
  config: { type: 'string' },
  weights: { type: 'string' },
  delta: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  quiet: { type: 'boolean', default: false },
  workers: { type: 'string' },
  ...Object.fromEntries(NUMERIC.map(([f]) => [f, { type: 'string' }])),
} as const

/** The first flag given that `trainer` does not take, if any (a switch counts when it is on). */
export const inapplicableFlag = (trainer: TrainerName, values: Readonly<Record<string, unknown>>): string | undefined => {
  const own = new Set(TRAINER_FLAGS[trainer].map((f) => f.flag))
  return Object.keys(values).find((k) => values[k] !== undefined && values[k] !== false && !COMMON_FLAGS.has(k) && !own.has(k))
}

export interface TrainArgs {
  readonly trainer: string | undefined
  readonly values: Readonly<Record<string, string | boolean | ReadonlyArray<string> | undefined>>
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

const num = (flag: string, raw: unknown): E.Either<string, number | undefined> => {
  if (raw === undefined) return E.right(undefined)
  const x = Number(raw)
  return typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(x) ? E.right(x) : E.left(`--${flag}: "${String(raw)}" is not a number`)
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
 * LP-LDA's and OLP-LDA's statements also give its guarantee per unit (per bit, per document under word and under
 * document replacement, and shuffled when asked), each from the accountant, as notes.
 */
const withUnits = (
  trainer: LdaTrainer,
  cfg: unknown,
  stats: CorpusStats,
  deltas: ReadonlyArray<number>,
  statement: E.Either<DpError, PrivacyStatement>,
): E.Either<DpError, PrivacyStatement> => {
  if ((trainer.name !== lpLda.name && trainer.name !== olpLda.name) || E.isLeft(statement)) return statement
  const units = unitGuarantees({ ...(cfg as LpConfig), shuffler: (cfg as Partial<LpConfig>).shuffler === true }, stats, deltas)
  if (E.isLeft(units)) return units
  return E.right({ ...statement.right, notes: [...statement.right.notes, ...unitNotes(units.right)] })
}

/**
 * olp-lda's flags into the config: --prior as a fraction (a number) or a path; --omega or --prior-sd
 * (not both) as `denoise`. Returns an error message, or undefined.
 */
const onlineFlags = (v: TrainArgs['values'], config: Record<string, unknown>): string | undefined => {
  const prior = v['prior']
  if (typeof prior === 'string') {
    const x = num('prior', prior)
    config['prior'] = E.isRight(x) && x.right !== undefined ? x.right : prior
  }
  const omega = num('omega', v['omega'])
  const sd = num('prior-sd', v['prior-sd'])
  if (E.isLeft(omega)) return omega.left
  if (E.isLeft(sd)) return sd.left
  if (omega.right !== undefined && sd.right !== undefined) return '--omega and --prior-sd are alternatives: ω is given, or derived from σ by Theorem 6'
  if (omega.right !== undefined) config['denoise'] = { omega: omega.right }
  if (sd.right !== undefined) config['denoise'] = { priorSd: sd.right }
  return undefined
}

/**
 * spectral's flags into the config: --config as the configuration text, --weights "key=w,…" as the
 * budget weights, and the first --delta as the composite δ the noise is calibrated to (every --delta
 * is still reported). Returns an error message, or undefined.
 */
const spectralFlags = (v: TrainArgs['values'], config: Record<string, unknown>): string | undefined => {
  if (typeof v['config'] === 'string') config['configuration'] = v['config']
  const deltas = v['delta'] as ReadonlyArray<string> | undefined
  if (deltas !== undefined && deltas.length > 0) {
    const d = num('delta', deltas[0])
    if (E.isLeft(d)) return d.left
    config['delta'] = d.right
  }
  const w = v['weights']
  if (typeof w === 'string') {
    const weights: Record<string, number> = {}
    for (const part of w.split(',')) {
      const [key, value, ...rest] = part.split('=').map((x) => x.trim())
      const x = num('weights', value)
      if (key === undefined || key === '' || rest.length > 0 || E.isLeft(x) || x.right === undefined) return `--weights: "${part}" is not KEY=NUMBER (e.g. e3=2,sigmaK=0.5)`
      weights[key] = x.right
    }
    config['weights'] = weights
  }
  return undefined
}

/**
 * A public prior corpus for olp-lda: every document of `path`, loaded as the main corpus was but with
 * no train/test split (D0 is only trained on, so one document is enough; an already split layout
 * contributes its test documents too); its vocabulary must be the corpus's.
 */
const loadPriorCorpus = (path: string, options: LoadOptions, stream: Corpus): E.Either<DpError, PublicCorpus> => {
  const ds = loadDataset(path, { ...options, split: false })
  if (E.isLeft(ds)) return E.left(ds.left._tag === 'InvalidParameter' && ds.left.path === '--corpus' ? { ...ds.left, path: 'prior' } : ds.left)
  const { train, test } = ds.right
  const docs = (c: Corpus): Int32Array[] => Array.from({ length: documentCount(c) }, (_, d) => c.tokens.subarray(c.docStart[d] as number, c.docStart[d + 1] as number))
  const all = fromDocuments(train.vocab, [...docs(train), ...docs(test)], [...train.names, ...test.names], [...train.labels, ...test.labels])
  // --prior PATH is the user's declaration that this corpus is public
  return E.map(() => declarePublic(all))(checkSameVocabulary(all, stream))
}

export const runTrain = (args: TrainArgs): CommandResult => holdingLocks((hold) => trainHolding(args, hold))

const trainHolding = (args: TrainArgs, hold: (release: () => void) => void): CommandResult => {
  const v = args.values
  const json = v['json'] === true
  if (args.trainer === undefined) return fail(TRAIN_USAGE)
  if (!isTrainerName(args.trainer)) return fail(`unknown trainer "${args.trainer}" (one of ${TRAINER_NAMES.join(', ')})`)
  const trainer = TRAINERS[args.trainer]
  const stray = inapplicableFlag(trainer.name, v)
  if (stray !== undefined) {
    const own = TRAINER_FLAGS[trainer.name].map((f) => `--${f.flag}`)
    return fail(`--${stray} does not apply to ${trainer.name} (${own.length === 0 ? 'it takes no privacy flags' : `its own flags: ${own.join(', ')}`})`)
  }
  const corpusArg = v['corpus']
  if (typeof corpusArg !== 'string') return fail(`--corpus is required\n${TRAIN_USAGE}`)
  const out = v['out']
  if (typeof out !== 'string') return fail(`--out is required\n${TRAIN_USAGE}`)
  // a directory, a device or an unwritable folder is refused before any work
  const outOk = checkOutputPath(out, 'out')
  if (E.isLeft(outOk)) return fail(outOk.left)
  // no output over an input (--corpus same.jsonl --out same.jsonl, --vocabulary vocab.txt --out vocab.txt), nor over another dpaudit's output
  const guard = guardOutputs([{ what: '--out', path: out }], existingInputs({ '--corpus': corpusArg, '--vocabulary': v['vocabulary'], '--eval-corpus': v['eval-corpus'], '--prior': v['prior'] }))
  if (E.isLeft(guard)) return fail(guard.left)
  hold(guard.right)
  const seed = typeof v['seed'] === 'string' ? v['seed'] : undefined
  const diagnostics = v['diagnostics'] === true
  if (v['private'] === true) {
    if (seed !== undefined) return fail('--seed makes the noise reproducible by whoever knows the seed, so the run cannot be a private release; drop --seed or --private')
    if (diagnostics) return fail('--diagnostics reads the true counts, so the run cannot be a private release; drop --diagnostics or --private')
    if (trainer.name === 'cgs') return fail(`${trainer.name} is the non-private baseline; --private needs a private trainer`)
  }
  const config: Record<string, unknown> = { ...trainer.defaults }
  for (const [flag, field] of NUMERIC) {
    const x = num(flag, v[flag])
    if (E.isLeft(x)) return fail(x.left)
    if (x.right !== undefined) config[field] = x.right
  }
  if (v['topics'] === undefined) return fail('--topics is required')
  if (v['iterations'] === undefined && trainer.name !== 'spectral') return fail('--iterations is required')
  if (typeof config['iterations'] === 'number' && config['iterations'] > MAX_ITERATIONS) return fail(`--iterations: T must be at most ${MAX_ITERATIONS.toLocaleString('en-US')} (got ${String(v['iterations'])})`)
  if (trainer.name === 'spectral') {
    const sp = spectralFlags(v, config)
    if (sp !== undefined) return fail(sp)
    // a configuration resting on the paper's unverified sensitivity theorems is never a private release: refuse before any work
    const conf = configurationOf({ configuration: String(config['configuration']) })
    if (v['private'] === true && E.isRight(conf) && unverifiedReasons(conf.right).length > 0) return fail(`--private: ${unverifiedReasons(conf.right).join('; ')}`)
  }
  if (typeof v['noise'] === 'string') config['noise'] = v['noise']
  if (typeof v['delta-reading'] === 'string') config['deltaReading'] = v['delta-reading']
  if (v['shuffler'] === true) config['shuffler'] = true
  const online = onlineFlags(v, config)
  if (online !== undefined) return fail(online)
  const aq = num('adaptive-q', v['adaptive-q'])
  const ae = num('adaptive-eta', v['adaptive-eta'])
  if (E.isLeft(aq)) return fail(aq.left)
  if (E.isLeft(ae)) return fail(ae.left)
  if ((aq.right === undefined) !== (ae.right === undefined)) return fail('--adaptive-q and --adaptive-eta go together')
  if (aq.right !== undefined && ae.right !== undefined) config['adaptive'] = { q: aq.right, eta: ae.right }
  const decoded = trainer.config.decode(config)
  if (E.isLeft(decoded)) return fail(`${args.trainer}: invalid configuration: ${formatError(firstDecodeError(decoded.left, 'config'))}`)
  const cfg = decoded.right
  const valid = trainer.validate(cfg)
  if (E.isLeft(valid)) return fail(`${args.trainer}: ${formatError(valid.left)}`)
  const deltas: number[] = []
  for (const raw of (v['delta'] as ReadonlyArray<string> | undefined) ?? ['1e-5']) {
    const d = num('delta', raw)
    if (E.isLeft(d)) return fail(d.left)
    if (!(d.right !== undefined && d.right > 0 && d.right < 1)) return fail(`--delta: δ must be in (0, 1) (got ${raw})`)
    deltas.push(d.right)
  }
  const vs = num('vocabulary-size', v['vocabulary-size'])
  if (E.isLeft(vs)) return fail(vs.left)
  const vocabFile = v['vocabulary']
  if (typeof vocabFile === 'string' && vocabFile !== 'dp' && vs.right !== undefined) return fail('--vocabulary FILE and --vocabulary-size go separately: the file fixes the vocabulary')
  if (!(vocabFile === 'dp') && ['vocabulary-epsilon', 'vocabulary-delta', 'vocabulary-words-per-document'].some((f) => v[f] !== undefined))
    return fail('--vocabulary-epsilon, --vocabulary-delta and --vocabulary-words-per-document go with --vocabulary dp')
  const dpSelection = vocabFile === 'dp'
  const vocabulary = typeof vocabFile === 'string' && !dpSelection ? readVocabularyFile(vocabFile) : E.right(undefined)
  if (E.isLeft(vocabulary)) return fail(formatError(vocabulary.left))
  const declared = declaredSizes(v)
  if (E.isLeft(declared)) return fail(declared.left)
  // private SVI uses the declared D for ν = S/D, σ and the M-step, never the exact one
  const sviDeclared = declared.right.documents !== undefined && trainer.name === 'svi-lda'
  const cfgRun = (sviDeclared ? { ...cfg, documents: declared.right.documents } : cfg) as typeof cfg
  if (sviDeclared) {
    const ok = trainer.validate(cfgRun)
    if (E.isLeft(ok)) return fail(`${args.trainer}: ${formatError(ok.left)}`)
  }
  // A run meant as a private release trains on every document: the train/test split is a permutation
  // of all D documents, so under add/remove one document it would reshuffle which documents are
  // trained on, and the test split may not be evaluated anyway (only --eval-corpus, a public corpus).
  const intendsPrivate = seed === undefined && !diagnostics && trainer.name !== 'cgs'
  // the randomness of the whole run: a DP vocabulary selection draws from it first, then the trainer
  const rng = seed === undefined ? (args.secureRng ?? secure)() : seeded(seed)
  const selection = dpSelection ? vocabularySelection(v, trainer.accountingRelation, rng, args.onRelease) : E.right(undefined)
  if (E.isLeft(selection)) return fail(selection.left)
  const loadOptions: LoadOptions = {
    ...(vs.right === undefined ? {} : { vocabularySize: vs.right }),
    ...(vocabulary.right === undefined ? {} : { vocabulary: vocabulary.right }),
    ...(selection.right === undefined ? {} : { select: selection.right.select(vs.right) }),
    ...(intendsPrivate ? { split: false } : {}),
  }
  const ds = loadDataset(corpusArg, loadOptions)
  if (E.isLeft(ds)) return fail(ds.left._tag === 'InvalidParameter' && (ds.left.path === '--vocabulary' || ds.left.path === '--vocabulary-size') ? formatError(ds.left) : `--corpus: ${formatError(ds.left)}`)
  const data = ds.right
  const stats = corpusStats(data.train)
  // a vocabulary chosen from the private documents without a gate: the run is not a private release
  const vocabularyLeak = vocabularyNotPrivate(data.vocabularySource)
  if (v['private'] === true && vocabularyLeak !== undefined) return fail(`--private: ${vocabularyLeak}`)
  // svi-lda (add/remove one document) without a declared D computes ν = S/D, σ and the M-step from the
  // exact D, which differs between neighbours: not post-processing of a release
  const exactD = trainer.name === 'svi-lda' && declared.right.documents === undefined ? SVI_EXACT_D : undefined
  if (v['private'] === true && exactD !== undefined) return fail(`--private: ${exactD}`)
  // what makes this run not a private release beyond what its gate records (every trainer alike)
  const runReasons = [
    ...(vocabularyLeak === undefined ? [] : [vocabularyLeak]),
    ...(exactD === undefined ? [] : [exactD]),
    ...(diagnostics ? [DIAGNOSTICS_ASKED] : []),
  ]
  const evalCorpusArg = v['eval-corpus']
  // olp-lda --prior PATH: a public corpus loaded as the main one is, with the same vocabulary
  const priorArg = (cfg as { prior?: unknown }).prior
  let priorCorpus: PublicCorpus | undefined
  if (trainer.name === 'olp-lda' && typeof priorArg === 'string') {
    // a selected vocabulary is the corpus's: the prior is read with it, not selected again (one charge)
    const priorOptions: LoadOptions = selection.right === undefined ? loadOptions : { vocabulary: { words: data.train.vocab, file: 'the selected vocabulary' } }
    const p = loadPriorCorpus(priorArg, priorOptions, data.train)
    if (E.isLeft(p)) return fail(`${args.trainer}: ${formatError(p.left)}`)
    priorCorpus = p.right
  }
  const evalCorpus = typeof evalCorpusArg === 'string' ? loadEvalCorpus(evalCorpusArg, data.train.vocab) : E.right(undefined)
  if (E.isLeft(evalCorpus)) return fail(`--eval-corpus: ${formatError(evalCorpus.left)}`)
  // Account before training: a plan no accountant can answer is reported before any work.
  const statement = withUnits(trainer, cfgRun, stats, deltas, privacyStatement(trainer, cfgRun, stats, deltas, data.vocabularySource, selection.right?.gate.ledger()))
  // a parameter the corpus rules out (spectral's k > V) is bad input (exit 1); no accountant answering is exit 2
  if (E.isLeft(statement))
    return { code: statement.left._tag === 'InvalidParameter' ? EXIT.input : EXIT.accounting, stderr: `${args.trainer}: ${formatError(statement.left)}` }
  if (v['private'] === true && statement.right.guarantee.some((g) => !Number.isFinite(g.epsilon)))
    return fail(`${trainer.name}: --private: the plan has no finite ε (${statement.right.guarantee.find((g) => !Number.isFinite(g.epsilon))?.method ?? ''}), so the run cannot be a private release`)
  const progress = args.progress
  // on a terminal: one progress line. A private run shows only the iterations done of T (public): no
  // rate, no time left, no log-likelihood (its timing depends on the data)
  const bar = progress === undefined ? progressLine({ label: `train ${trainer.name}`, unit: 'iterations', quiet: json || v['quiet'] === true, timing: !intendsPrivate || runReasons.length > 0 }) : undefined
  const onIteration = (l: IterationLog): void => {
    if (intendsPrivate && runReasons.length === 0) {
      progress?.(`iter ${String(l.iteration).padStart(4)} of ${cfg.iterations}`)
      bar?.update(l.iteration, cfg.iterations)
      return
    }
    const ll = Number.isNaN(l.logLikelihood) ? undefined : `log-likelihood ${l.logLikelihood.toFixed(1)}`
    progress?.(`iter ${String(l.iteration).padStart(4)}  ${ll ?? 'log-likelihood —'}  elapsed ${(l.elapsedMs / 1000).toFixed(2)} s  ${(l.tokensPerSecond / 1e6).toFixed(2)} M tokens/s`)
    bar?.update(l.iteration, cfg.iterations, ll)
  }
  const workers = v['workers']
  if (workers !== undefined && !(typeof workers === 'string' && /^[1-9][0-9]{0,3}$/.test(workers.trim())))
    return fail(`--workers: "${String(workers)}" is not a whole number of threads from 1 to 9999`)
  const fitOptions = {
    diagnostics,
    ...(workers === undefined ? {} : { workers: Number(workers) }),
    ...(progress === undefined && bar?.active !== true ? {} : { onIteration }),
    ...(args.onRelease === undefined ? {} : { onRelease: args.onRelease }),
  }
  const fit = priorCorpus === undefined ? trainer.fit(data.train, cfgRun, rng, fitOptions) : fitOnline(priorCorpus, data.train, cfgRun as unknown as OlpConfig, rng, fitOptions)
  bar?.done()
  if (E.isLeft(fit)) return fail(`${args.trainer}: ${formatError(fit.left)}`)
  const reasons = [...new Set([...(selection.right?.gate.notPrivateBecause() ?? []), ...fit.right.release.notPrivateBecause, ...runReasons])]
  const verdict = { ...fit.right.release, private: reasons.length === 0, notPrivateBecause: reasons }
  if (v['private'] === true && !verdict.private) return { code: EXIT.internal, stderr: `--private: the run turned out not to be a private release (${verdict.notPrivateBecause.join('; ')}); nothing written` }
  const release = { private: verdict.private, randomness: verdict.randomness, notice: releaseNotice(verdict), notPrivateBecause: verdict.notPrivateBecause }
  // the statement was made from the plan before the run; what the run did to it is said first
  const privacy: PrivacyStatement = verdict.private ? statement.right : { ...statement.right, notes: [release.notice, ...statement.right.notes] }
  // Evaluation. A private release is evaluated only on a public corpus (--eval-corpus): φ is a release,
  // so that is post-processing. A run that is not a private release may also be scored on its test split.
  const scored = scoreRun(fit.right.model.phi, cfg.topics, evalCorpus.right, verdict.private ? undefined : data)
  if (E.isLeft(scored)) return { code: EXIT.internal, stderr: `evaluation failed: ${formatError(scored.left)}` }
  const evaluation = scored.right
  const sizes = verdict.private ? publicSizes(trainer.accountingRelation, trainer.relation, stats, declared.right) : { ...exactSizes(stats), sizes: 'exact (not a private release)' }
  const file = modelFile({
    trainer: trainer.name,
    config: cfgRun,
    release,
    corpus: { name: data.name, ...sizes },
    vocab: data.train.vocab,
    model: fit.right.model,
    ...(evaluation === undefined ? {} : { evaluation }),
    privacy,
    // the per-iteration trace (cumulative wall time) only for a run that is not a private release:
    // the time a private run took depends on its data and would leak through the file (a side channel)
    ...(verdict.private ? {} : { trace: fit.right.trace }),
  })
  const w = writeModelFile(out, file)
  if (E.isLeft(w)) return fail(formatError(w.left))
  const last = fit.right.trace[fit.right.trace.length - 1]
  const totalMs = last?.elapsedMs ?? 0
  // timing only for a run that is not a private release (a private run's speed depends on its data)
  const timing = verdict.private ? {} : { tokensPerSecond: (fit.right.tokensSampled / totalMs) * 1000, seconds: totalMs / 1000 }
  if (json)
    return {
      code: EXIT.ok,
      stdout: stringifyJson({ schemaVersion: 1, tool: 'dpaudit train', trainer: trainer.name, config: cfgRun, release, corpus: file.corpus, out, evaluation: evaluation ?? null, privacy, ...timing }, 2),
    }
  return {
    code: EXIT.ok,
    stdout: [
      `${trainer.name} on ${data.name}: ${sizeText(file.corpus)}; K = ${cfg.topics}, T = ${cfg.iterations}; randomness ${verdict.randomness}`,
      release.notice,
      ...(verdict.private ? [] : [`trained in ${(totalMs / 1000).toFixed(2)} s (${((fit.right.tokensSampled / totalMs) / 1000).toFixed(2)} M tokens/s)`]),
      evaluation === undefined
        ? `held-out perplexity: not computed (a private release is evaluated only on a public corpus: --eval-corpus FILE)`
        : `held-out perplexity${evaluation.corpus === undefined ? '' : ` on ${evaluation.corpus}`}: ${evaluation.perplexity.toFixed(1)} (${evaluation.heldOutTokens} held-out tokens; ${evaluation.protocol})`,
      renderStatement(privacy),
      `model written to ${out}`,
    ].join('\n'),
  }
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

const SVI_EXACT_D =
  'svi-lda protects add/remove one document, and without --documents D the exact number of documents sets ν = S/D, σ and the M-step, though it differs between neighbours (declare the public D with --documents)'


const PROTOCOL = 'document completion: θ folded in on the first half of each test document (α_eval = 0.1, 100 fixed-point iterations), the second half scored'

/**
 * Held-out perplexity of φ: on the public evaluation corpus when one is given, else on the run's own
 * test split when `split` is given (a run that is not a private release), else none.
 */
const scoreRun = (
  phi: Float64Array,
  K: number,
  evalCorpus: Corpus | undefined,
  split: { readonly testObserved: Corpus; readonly testHeldOut: Corpus } | undefined,
): E.Either<DpError, (ModelFileEvaluation & { readonly corpus?: string }) | undefined> => {
  if (evalCorpus !== undefined) {
    const { observed, heldOut } = completionHalves(evalCorpus)
    return E.map((p: { perplexity: number; heldOutTokens: number }) => ({ perplexity: p.perplexity, heldOutTokens: p.heldOutTokens, protocol: `${PROTOCOL}; on the public corpus given by --eval-corpus`, corpus: 'the --eval-corpus corpus' }))(
      heldOutPerplexity(phi, K, observed, heldOut),
    )
  }
  if (split === undefined || documentCount(split.testObserved) === 0) return E.right(undefined)
  return E.map((p: { perplexity: number; heldOutTokens: number }) => ({ perplexity: p.perplexity, heldOutTokens: p.heldOutTokens, protocol: `${PROTOCOL}; on the run's own test split (not a private release)` }))(
    heldOutPerplexity(phi, K, split.testObserved, split.testHeldOut),
  )
}

type ModelFileEvaluation = NonNullable<ModelFile['evaluation']>

/** The public evaluation corpus: every document is a test document, read with the model's vocabulary. */
const loadEvalCorpus = (path: string, vocab: ReadonlyArray<string>): E.Either<DpError, Corpus> => {
  const withVocab = loadDataset(path, { vocabulary: { words: vocab, file: 'the model’s vocabulary' }, split: false, minTokens: 2 })
  if (E.isRight(withVocab)) return E.right(withVocab.right.train)
  // a bag-of-words corpus carries its own vocab.txt: it must be the model's, word for word
  const own = loadDataset(path, { split: false, minTokens: 2 })
  if (E.isLeft(own)) return own
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
export const runTrainCli = (argv: ReadonlyArray<string>): CommandResult => {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: TRAIN_OPTIONS })
  if (positionals.length > 1) return fail(TRAIN_USAGE)
  return runTrain({ trainer: positionals[0], values })
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
