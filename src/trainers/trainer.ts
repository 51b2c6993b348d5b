/**
 * The trainer contract: a trainer declares the releases it will make (`schedule`, from which its
 * plan is derived) and records those it did make (the ledger returned by `fit`); the accountant,
 * not the trainer, turns them into ε. The paper's own claim travels beside them as an opaque stated guarantee
 * (`claimed`), so dpaudit can print both and show where they differ. A trainer also owns its
 * surface: its command-line flags, its config codec, its extra inputs, why a run of it cannot be a
 * private release, what its model file holds and how it is evaluated, and what it releases (for the
 * audit's choice of statistics). `erase` hides its configuration and model types behind `AnyTrainer`,
 * so the registry is a plain list and `dpaudit train` the same few steps for every trainer.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import type { DpError } from '../core/error.js'
import type { Rng } from '../core/rng.js'
import { approxDP, type PrivacyEvent, pureDP } from '../mechanisms/event.js'
import { type Schedule, schedulePlan } from '../mechanisms/schedule.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import type { ReleaseRecord } from '../mechanisms/gate.js'
import type { Corpus, CorpusStats, PublicCorpus } from './corpus/corpus.js'

export type TrainerName = 'cgs' | 'hdp-lda' | 'cdp-lda' | 'cdp-lda+' | 'sub-lda' | 'lp-lda' | 'olp-lda' | 'svi-lda' | 'svi-lda-wor' | 'spectral'

/** Hyper-parameters every LDA trainer has. */
export interface LdaConfigBase {
  readonly topics: number
  readonly iterations: number
  readonly alpha: number
  readonly beta: number
}

/**
 * A trained topic model: φ (K×V) and, for the non-private CGS only, θ of the training documents
 * (D×K), row-major. A private trainer's model holds only what passed through its release gate: φ.
 */
export interface LdaModel {
  readonly topics: number
  readonly vocabulary: number
  readonly phi: Float64Array
  readonly theta?: Float64Array
}

/** One line of the training trace. */
export interface IterationLog {
  readonly iteration: number
  /**
   * Collapsed joint log p(w, z) on the TRUE counts. A private trainer computes it only when
   * `diagnostics` is on, through its gate, which then records it as NonPrivate (the run is not a
   * private release); otherwise NaN.
   */
  readonly logLikelihood: number
  readonly elapsedMs: number
  readonly tokensPerSecond: number
}

export interface FitOptions {
  /** Called after every iteration (progress lines). */
  readonly onIteration?: (log: IterationLog) => void
  /** Compute the log-likelihood every n iterations (default 1; 0 = never, NaN in the trace). */
  readonly logLikelihoodEvery?: number
  /**
   * Private trainers: allow diagnostics on unprotected data (the true-count log-likelihood). Off by
   * default; when on, the ledger records them as NonPrivate and the run is not a private release.
   */
  readonly diagnostics?: boolean
  /** Private trainers: sees every value that leaves the release gate (audits, white-box tests). */
  readonly onRelease?: (r: ReleaseRecord) => void
  /**
   * Private Gibbs trainers: threads that sweep the documents; private SVI: threads of the mini-batch
   * E-step (the result does not depend on it). Default: the cores available, one per 100,000 tokens
   * (SVI: per 16 documents of the mini-batch) at most.
   */
  readonly workers?: number
  /**
   * The extra inputs the trainer declares (`Trainer.inputs`), loaded by the caller: corpora the user
   * declared public, read with the training corpus's vocabulary (OLP-LDA's `prior`).
   */
  readonly inputs?: Readonly<Record<string, PublicCorpus>>
}

/** Whether a run is a private release, and why not. */
export interface ReleaseVerdict {
  readonly private: boolean
  /** 'secure (node:crypto)' or 'seeded' — never the seed. */
  readonly randomness: string
  readonly notPrivateBecause: ReadonlyArray<string>
}

export interface FitResult<Model = LdaModel> {
  readonly model: Model
  readonly trace: ReadonlyArray<IterationLog>
  /** The privacy events the run executed, in order. ≡ the plan: the gate checks each release against the schedule. */
  readonly ledger: PrivacyEvent
  /** Tokens visited by the sampler over the run (Σ over iterations). */
  readonly tokensSampled: number
  readonly release: ReleaseVerdict
}

/**
 * The paper's guarantee, recorded verbatim and kept opaque: it is never used to compute the
 * accounted ε, only printed beside it.
 */
export interface ClaimedGuarantee {
  /** Paper and result the claim comes from. */
  readonly source: string
  /** The claim in words, with its numbers. */
  readonly statement: string
  /** The relation the paper states it under. */
  readonly relation: NeighbouringRelation
  /** The claim as an opaque stated event at δ (PureDP, ApproxDP), or undefined if none is made. */
  readonly event: (delta: number) => PrivacyEvent | undefined
}

export const pureClaim = (source: string, statement: string, epsilon: number, relation: NeighbouringRelation): ClaimedGuarantee => ({
  source,
  statement,
  relation,
  event: () => pureDP(epsilon, relation),
})

/** An RDP claim ε(α) at one order, stated at δ through ε + ln(1/δ)/(α − 1) (Mironov 2017, Prop. 3). */
export const rdpClaim = (source: string, statement: string, order: number, rdp: number, relation: NeighbouringRelation): ClaimedGuarantee => ({
  source,
  statement,
  relation,
  event: (delta) => approxDP(rdp + Math.log(1 / delta) / (order - 1), delta, relation),
})

export const noClaim = (source: string, statement: string, relation: NeighbouringRelation): ClaimedGuarantee => ({
  source,
  statement,
  relation,
  event: () => undefined,
})

/**
 * A command-line flag of a trainer: `--flag VALUE` sets config field `field` (a number unless `type`
 * says otherwise; a switch sets `true`). A flag without `field` is read by the trainer's `fromFlags`.
 */
export interface TrainerFlag {
  readonly flag: string
  readonly type?: 'number' | 'string' | 'switch'
  readonly field?: string
  /** The value's placeholder in the usage line (K, FRACTION|PATH). */
  readonly meta?: string
  /** The default as the usage line shows it, from the trainer's defaults; absent: the field's default, if any. */
  readonly shown?: (defaults: Readonly<Record<string, unknown>>) => string | undefined
  /** What the flag means, for the usage line. */
  readonly note?: string
  /** The run is refused without it. */
  readonly required?: boolean
  /** The largest value accepted (numbers), checked before decoding: a run is bounded in time by its flags. */
  readonly max?: number
}

/** The flag values `dpaudit train` parsed (strings, switches, the repeated --delta). */
export type FlagValues = Readonly<Record<string, string | boolean | ReadonlyArray<string> | undefined>>

/** A held-out evaluation of a model on whole test documents. */
export interface Evaluation {
  /** The numbers written to the model file's `evaluation` (before its protocol), in order. */
  readonly values: Readonly<Record<string, number>>
  /** The headline number as printed. */
  readonly shown: string
  /** What it was computed on, for the printed parenthesis ("1234 held-out tokens"). */
  readonly detail: string
  /** How it is computed (the caller adds on which corpus). */
  readonly protocol: string
}

/** How a trainer's model is written and evaluated. */
export interface ModelOutput<Model> {
  /** The model file's `kind` ("dpaudit-lda-model" for the LDA trainers; default "dpaudit-model"). */
  readonly kind?: string
  /** The model file's fields after the vocabulary, in order (φ's rows, a weight vector, …): JSON data. */
  readonly fields: (model: Model) => Readonly<Record<string, unknown>>
  /** What the evaluation measures, as printed ("held-out perplexity", "held-out accuracy"). */
  readonly metric: string
  /** Scores the model on whole test documents (a public corpus, or the run's own test split); absent: none. */
  readonly evaluate?: (model: Model, test: Corpus) => E.Either<DpError, Evaluation>
}

/** An extra input of a trainer: a public corpus named by a config field (a path), loaded with the training corpus's vocabulary. */
export interface ExtraInput<Config> {
  /** Its key in `FitOptions.inputs`. */
  readonly name: string
  /** The flag that names it (for the output guard and messages). */
  readonly flag: string
  /** The path the configuration names, if any. */
  path(config: Config): string | undefined
}

/** Public sizes the user declared on the command line (--documents, --tokens). */
export interface DeclaredSizes {
  readonly documents?: number
  readonly tokens?: number
}

/** What the trainer lets out, for the audit's choice of test statistics (attacks/trainers/features.ts). */
export type ReleaseKind =
  /** φ, the topic-word distributions (every LDA trainer's model). */
  | 'phi'
  /** noisy topic-word count tables, each iteration (white-box). */
  | 'count-tables'
  /** randomized-response reports of word presence, one per corpus document in corpus order (white-box). */
  | 'report-bits'
  /**
   * the topic draws, accounted as released: each sweep releases every token's topic (an Int32Array
   * with one entry per token, in the corpus's reading order), after that iteration's count table (white-box).
   */
  | 'topic-assignments'
  /**
   * releases that are vectors of one number per vocabulary word, each step (white-box): DP-SGD's
   * noisy gradient sums over bag-of-words features. An audit projects each on the differing
   * document's words.
   */
  | 'word-vectors'
  /**
   * a model file holding vectors of one number per vocabulary word (black-box): DP-SGD's weights.
   * An audit reads them from the model file's fields (`model.fields`), as a user of the file would.
   */
  | 'word-weights'

/**
 * A trainer, generic in its configuration and its model. The LDA trainers instantiate it as
 * `LdaTrainer<C>`; a third party writes one against `dpaudit/trainers` and `dpaudit/mechanisms`.
 *
 * A plug-in module for `dpaudit train ./my-trainer.js` exports one as `trainer` (or as the default
 * export, or the default export's `trainer`): a plain object of this shape, with
 * - `name`, `description`; `config`: an io-ts codec of its configuration, `defaults` merged under
 *   the flags before decoding, `validate` for ranges (naming the field and value);
 * - `flags`: its command-line flags (flag → config field, default, note); `dpaudit train --help`
 *   lists them, and any flag not declared (nor common to every trainer) is refused;
 * - `relation` (what it protects) and `accountingRelation` (what `plan` is accounted under);
 * - `schedule(config, stats)`: the releases one run will make, from public sizes only — the labels
 *   and events of the measurements `fit` runs through its `ReleaseGate` (dpaudit/mechanisms), once
 *   before the iterations, in the first iteration where it differs, in every iteration; the plan is
 *   derived from it (`planOf`), and `fit` passes it to its gate, which checks every release against it;
 * - `claimed`, `assumptions`: the paper's claim (opaque, printed beside the accounted ε) and what the
 *   accounted ε assumes, in words;
 * - `fit(corpus, config, rng, options)`: trains, every data-dependent value leaving through one
 *   `ReleaseGate` on `wordsFromRng(rng)` (passing `options` on, for diagnostics and observers), and
 *   returns the model, the trace, the gate's ledger and `release` verdict;
 * - `model`: the model file's fields and the held-out evaluation; `iterations(config)`: how many
 *   iterations `fit` reports (progress); `releases`: what an audit may observe.
 * Optional: `summary` (the configuration in a few words), `inputs` (public corpora it reads beside
 * the training corpus), `refusals` (why a run cannot be a private release, known before any work:
 * `--private` refuses it), `nonPrivate` (a non-private baseline: why), `statementNotes` (lines added
 * to the privacy statement), `withDeclared` (the configuration given the declared public sizes),
 * `fromFlags` (flags that set more than one field, or depend on each other), `workers` (what
 * `--workers W` does for it; absent, the flag is refused).
 * `dpaudit train` then accounts the plan, prints the statement, trains, refuses or labels a run that
 * is not a private release, writes the model file atomically, and the run can be audited, exactly
 * as for a built-in trainer.
 */
export interface Trainer<Config, Model> {
  readonly name: string
  readonly description: string
  /** Shape of the configuration (JSON); `validate` checks the ranges. */
  readonly config: t.Decoder<unknown, Config>
  /** Defaults for optional hyper-parameters, merged under user input before decoding. */
  readonly defaults: Readonly<Record<string, unknown>>
  /** Range checks, naming the field and value (K ≥ 2, ε > 0, γ ∈ (0, 1], …). */
  validate(config: Config, stats?: CorpusStats): E.Either<DpError, Config>
  /** The relation and unit the trainer protects (replace-one word for the LDA papers). */
  readonly relation: NeighbouringRelation
  /**
   * The relation the plan is accounted under. A plan accounted under add/remove for a replace-one
   * trainer is stated by group privacy (statement.ts).
   */
  readonly accountingRelation: NeighbouringRelation
  /**
   * The releases one run will make, from public sizes only: before the iterations, in the first where
   * it differs, in every iteration — each the label and event of a measurement `fit` runs through its
   * gate (given the same schedule, the gate checks each release against it). The plan is derived from
   * it (`planOf`), never declared beside `fit`.
   */
  schedule(config: Config, stats: CorpusStats): E.Either<DpError, Schedule>
  /** The paper's claim, opaque, for comparison with the accounted guarantee. */
  claimed(config: Config, stats: CorpusStats): ClaimedGuarantee
  /**
   * What the accounted ε assumes beyond the plan, in words: the reading of an ambiguous line, the
   * sampling model, what is treated as public. Printed with every statement.
   */
  assumptions(config: Config): ReadonlyArray<string>
  /**
   * Trains. `rng` chooses the randomness: `secure()` (node:crypto; the only private release) or a
   * seeded Rng (reproducible; the result says it is not a private release).
   */
  fit(data: Corpus, config: Config, rng: Rng, options?: FitOptions): E.Either<DpError, FitResult<Model>>
  /** Its command-line flags beyond those every trainer takes. */
  readonly flags: ReadonlyArray<TrainerFlag>
  /** How its model is written and evaluated. */
  readonly model: ModelOutput<Model>
  /** How many iterations `fit` reports through `onIteration` (progress: "iter i of T"). */
  iterations(config: Config): number
  /** What it lets out, for the audit's choice of statistics. */
  readonly releases: ReadonlyArray<ReleaseKind>
  /** The configuration in a few words, for the first line of the output ("K = 20, T = 100"). */
  summary?(config: Config): string
  /** A non-private baseline: why (a `--private` run is refused; the run is never meant private). */
  readonly nonPrivate?: string
  /** Public corpora it reads beside the training corpus (passed to `fit` in `options.inputs`). */
  readonly inputs?: ReadonlyArray<ExtraInput<Config>>
  /** Why a run cannot be a private release, known before it starts (refused under `--private`, else labelled). */
  refusals?(config: Config, declared: DeclaredSizes): ReadonlyArray<string>
  /** Why a configuration cannot be a private release; refused under `--private` before the corpus is read, not labelled (the gate records it). */
  unverified?(config: Config): ReadonlyArray<string>
  /** Lines added to the privacy statement's notes (per-unit guarantees). */
  statementNotes?(config: Config, stats: CorpusStats, deltas: ReadonlyArray<number>): E.Either<DpError, ReadonlyArray<string>>
  /** The configuration run, given the public sizes the user declared (default: unchanged). */
  withDeclared?(config: Config, declared: DeclaredSizes): Config
  /** Flags that set more than one field or depend on each other, into the raw configuration; an error message, or undefined. */
  fromFlags?(values: FlagValues, config: Record<string, unknown>): string | undefined
  /**
   * What `--workers W` (`options.workers`) does for it and its default, as `dpaudit train --help`
   * shows it; absent, it runs on the calling thread and `--workers` is refused as a flag it does not take.
   */
  readonly workers?: string
  /**
   * Starts the threads of a fit on `workers` threads ahead of it (dpaudit train calls it before it
   * reads the corpus, so that their start overlaps the reading); the fit takes them. Absent: nothing to start.
   */
  readonly prestart?: (workers: number) => void
}

export type LdaTrainer<C extends LdaConfigBase = LdaConfigBase> = Trainer<C, LdaModel>

/**
 * The trainer's plan: the events one run will execute, derived from its schedule (`schedulePlan`,
 * dpaudit/mechanisms) — the one place a plan comes from, for a built-in trainer and a plug-in alike.
 */
export const planOf = <C, M>(trainer: Pick<Trainer<C, M>, 'schedule'>, config: C, stats: CorpusStats): E.Either<DpError, PrivacyEvent> =>
  E.map(schedulePlan)(trainer.schedule(config, stats))

export { compositionAtoms, sameComposition, leafCount } from '../mechanisms/schedule.js'
