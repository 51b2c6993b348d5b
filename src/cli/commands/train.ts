/**
 * `dpaudit train <trainer> --corpus brown|spam|<path> --topics K --iterations T [privacy parameters]
 *  --out model.json [--seed S | --private] [--diagnostics] [--vocabulary FILE] [--delta D ...] [--json]`
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
import { type DpError, formatError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { secure, seeded } from '../../core/rng.js'
import { type CorpusStats, corpusStats } from '../../trainers/corpus/corpus.js'
import { loadDataset, readVocabularyFile } from '../../trainers/corpus/load.js'
import { heldOutPerplexity } from '../../trainers/eval/perplexity.js'
import { modelFile, writeModelFile } from '../../trainers/model-file.js'
import { isTrainerName, TRAINER_NAMES, TRAINERS } from '../../trainers/registry.js'
import { type PrivacyStatement, privacyStatement, releaseNotice } from '../../trainers/statement.js'
import { type LpConfig, lpLda, unitGuarantees, unitNotes } from '../../trainers/lp/lp-lda.js'
import type { IterationLog, LdaTrainer } from '../../trainers/trainer.js'
import { type CommandResult, EXIT } from './result.js'

/** Numeric flags and the config field each sets. */
const NUMERIC: ReadonlyArray<readonly [flag: string, field: string]> = [
  ['topics', 'topics'],
  ['iterations', 'iterations'],
  ['alpha', 'alpha'],
  ['beta', 'beta'],
  ['epsilon-l', 'epsilonL'],
  ['epsilon', 'epsilon'],
  ['clip', 'clip'],
  ['gamma', 'gamma'],
  ['order', 'order'],
  ['rdp-epsilon', 'rdpEpsilon'],
  ['flip', 'flip'],
]

export const TRAIN_USAGE = `usage: dpaudit train <${TRAINER_NAMES.join('|')}> --corpus brown|spam|<path> --topics K --iterations T --out model.json
  [--alpha A] [--beta B] [--vocabulary FILE | --vocabulary-size V] [--delta D ...] [--json]
  [--private] (refuse anything that would make the release not private)
  [--seed S] (reproducible: NOT a private release) [--diagnostics] (true-count log-likelihood: NOT a private release)
  hdp-lda:  --epsilon-l E --clip C [--noise fresh|accumulate]
  cdp-lda, cdp-lda+: --epsilon E
  sub-lda:  --gamma G --clip C [--order A --rdp-epsilon E] [--adaptive-q Q --adaptive-eta H]
  lp-lda:   --flip F (keep each presence bit with probability 1 − F) [--shuffler] (reports reach the server through a shuffler)`

export const TRAIN_OPTIONS = {
  corpus: { type: 'string' },
  out: { type: 'string' },
  seed: { type: 'string' },
  private: { type: 'boolean', default: false },
  diagnostics: { type: 'boolean', default: false },
  vocabulary: { type: 'string' },
  'vocabulary-size': { type: 'string' },
  noise: { type: 'string' },
  'adaptive-q': { type: 'string' },
  'adaptive-eta': { type: 'string' },
  shuffler: { type: 'boolean', default: false },
  delta: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  ...Object.fromEntries(NUMERIC.map(([f]) => [f, { type: 'string' }])),
} as const

export interface TrainArgs {
  readonly trainer: string | undefined
  readonly values: Readonly<Record<string, string | boolean | ReadonlyArray<string> | undefined>>
  /** Where progress lines go (default: stderr when it is a terminal and --json is off). */
  readonly progress?: (line: string) => void
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
 * LP-LDA's statement also gives its guarantee per unit (per bit, per document under word and under
 * document replacement, and shuffled when asked), each from the accountant, as notes.
 */
const withUnits = (
  trainer: LdaTrainer,
  cfg: unknown,
  stats: CorpusStats,
  deltas: ReadonlyArray<number>,
  statement: E.Either<DpError, PrivacyStatement>,
): E.Either<DpError, PrivacyStatement> => {
  if (trainer.name !== lpLda.name || E.isLeft(statement)) return statement
  const units = unitGuarantees(cfg as LpConfig, stats, deltas)
  if (E.isLeft(units)) return units
  return E.right({ ...statement.right, notes: [...statement.right.notes, ...unitNotes(units.right)] })
}

export const runTrain = (args: TrainArgs): CommandResult => {
  const v = args.values
  const json = v['json'] === true
  if (args.trainer === undefined) return fail(TRAIN_USAGE)
  if (!isTrainerName(args.trainer)) return fail(`unknown trainer "${args.trainer}" (one of ${TRAINER_NAMES.join(', ')})`)
  const trainer = TRAINERS[args.trainer]
  const corpusArg = v['corpus']
  if (typeof corpusArg !== 'string') return fail(`--corpus is required\n${TRAIN_USAGE}`)
  const out = v['out']
  if (typeof out !== 'string') return fail(`--out is required\n${TRAIN_USAGE}`)
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
  if (v['iterations'] === undefined) return fail('--iterations is required')
  if (typeof v['noise'] === 'string') config['noise'] = v['noise']
  if (v['shuffler'] === true) {
    if (trainer.name !== 'lp-lda') return fail(`--shuffler applies to lp-lda only (a shuffler permutes locally private reports; ${trainer.name} has none)`)
    config['shuffler'] = true
  }
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
  if (typeof vocabFile === 'string' && vs.right !== undefined) return fail('--vocabulary FILE and --vocabulary-size go separately: the file fixes the vocabulary')
  const vocabulary = typeof vocabFile === 'string' ? readVocabularyFile(vocabFile) : E.right(undefined)
  if (E.isLeft(vocabulary)) return fail(formatError(vocabulary.left))
  const ds = loadDataset(corpusArg, { ...(vs.right === undefined ? {} : { vocabularySize: vs.right }), ...(vocabulary.right === undefined ? {} : { vocabulary: vocabulary.right }) })
  if (E.isLeft(ds)) return fail(ds.left._tag === 'InvalidParameter' && ds.left.path === '--vocabulary' ? formatError(ds.left) : `--corpus: ${formatError(ds.left)}`)
  const data = ds.right
  const stats = corpusStats(data.train)
  // Account before training: a plan no accountant can answer is reported before any work.
  const statement = withUnits(trainer, cfg, stats, deltas, privacyStatement(trainer, cfg, stats, deltas, data.vocabularySource))
  if (E.isLeft(statement)) return { code: EXIT.accounting, stderr: `${args.trainer}: ${formatError(statement.left)}` }
  if (v['private'] === true && statement.right.guarantee.some((g) => !Number.isFinite(g.epsilon)))
    return fail(`${trainer.name}: --private: the plan has no finite ε (${statement.right.guarantee.find((g) => !Number.isFinite(g.epsilon))?.method ?? ''}), so the run cannot be a private release`)
  const progress = args.progress ?? (!json && process.stderr.isTTY ? (line: string) => process.stderr.write(`${line}\n`) : undefined)
  const onIteration = (l: IterationLog): void =>
    progress?.(`iter ${String(l.iteration).padStart(4)}  log-likelihood ${Number.isNaN(l.logLikelihood) ? '—' : l.logLikelihood.toFixed(1)}  elapsed ${(l.elapsedMs / 1000).toFixed(2)} s  ${(l.tokensPerSecond / 1e6).toFixed(2)} M tokens/s`)
  const fit = trainer.fit(data.train, cfg, seed === undefined ? secure() : seeded(seed), { diagnostics, ...(progress === undefined ? {} : { onIteration }) })
  if (E.isLeft(fit)) return fail(`${args.trainer}: ${formatError(fit.left)}`)
  const verdict = fit.right.release
  if (v['private'] === true && !verdict.private) return { code: EXIT.internal, stderr: `--private: the run turned out not to be a private release (${verdict.notPrivateBecause.join('; ')}); nothing written` }
  const release = { private: verdict.private, randomness: verdict.randomness, notice: releaseNotice(verdict), notPrivateBecause: verdict.notPrivateBecause }
  // the statement was made from the plan before the run; what the run did to it is said first
  const privacy: PrivacyStatement = verdict.private ? statement.right : { ...statement.right, notes: [release.notice, ...statement.right.notes] }
  const ppl = heldOutPerplexity(fit.right.model.phi, cfg.topics, data.testObserved, data.testHeldOut)
  if (E.isLeft(ppl)) return { code: EXIT.internal, stderr: `evaluation failed: ${formatError(ppl.left)}` }
  const evaluation = { perplexity: ppl.right.perplexity, heldOutTokens: ppl.right.heldOutTokens, protocol: 'LDA-EVAL.md §3 document completion, α_eval = 0.1, 100 fixed-point iterations' }
  const file = modelFile({
    trainer: trainer.name,
    config: cfg,
    release,
    corpus: { name: data.name, documents: stats.documents, vocabulary: stats.vocabulary, tokens: stats.tokens },
    vocab: data.train.vocab,
    model: fit.right.model,
    evaluation,
    privacy,
    ...(trainer.name === 'cgs' || diagnostics ? { trace: fit.right.trace } : {}),
  })
  const w = writeModelFile(out, file)
  if (E.isLeft(w)) return fail(formatError(w.left))
  const last = fit.right.trace[fit.right.trace.length - 1]
  const totalMs = last?.elapsedMs ?? 0
  if (json)
    return {
      code: EXIT.ok,
      stdout: stringifyJson(
        { schemaVersion: 1, tool: 'dpaudit train', trainer: trainer.name, config: cfg, release, corpus: file.corpus, out, evaluation, privacy, tokensPerSecond: (fit.right.tokensSampled / totalMs) * 1000 },
        2,
      ),
    }
  return {
    code: EXIT.ok,
    stdout: [
      `${trainer.name} on ${data.name}: D = ${stats.documents}, V = ${stats.vocabulary}, N = ${stats.tokens}; K = ${cfg.topics}, T = ${cfg.iterations}; randomness ${verdict.randomness}`,
      release.notice,
      `trained in ${(totalMs / 1000).toFixed(2)} s (${((fit.right.tokensSampled / totalMs) / 1000).toFixed(2)} M tokens/s)`,
      `held-out perplexity: ${ppl.right.perplexity.toFixed(1)} (${ppl.right.heldOutTokens} held-out tokens; ${evaluation.protocol})`,
      renderStatement(privacy),
      `model written to ${out}`,
    ].join('\n'),
  }
}

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
    lines.push('', `${name}: ${trainer.description}; ${JSON.stringify(raw)}`, `  held-out perplexity ${p.right.perplexity.toFixed(1)}`, `  ${releaseNotice(fit.right.release)}`, renderStatement(st.right))
  }
  return lines.join('\n')
}
