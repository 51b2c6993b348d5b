/**
 * `erase`: a trainer with its configuration and model types hidden behind `AnyTrainer`, as the
 * accountants' `erase` hides their state (../accounting/accountant.ts). The registry is then a plain
 * list, and `dpaudit train` runs any trainer — built in or loaded from a module — through the same
 * steps: decode the flags into a configuration (`decode`), check it against the corpus
 * (`ConfiguredTrainer.validate`), make the privacy statement from the plan, train (`fit`), and write
 * what the model output declares. The types meet only inside the closures made here.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { Rng } from '../core/rng.js'
import { firstDecodeError } from '../core/decode.js'
import type { DpError } from '../core/error.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import type { VocabularySource } from './assumptions.js'
import type { Corpus, CorpusStats } from './corpus/corpus.js'
import { type PrivacyStatement, privacyStatement } from './statement.js'
import type { DeclaredSizes, Evaluation, FitOptions, FitResult, FlagValues, ReleaseKind, Trainer, TrainerFlag } from './trainer.js'

/** A trained model with its type hidden: what the model file and the evaluation need. */
export interface TrainedModel extends Omit<FitResult<unknown>, 'model'> {
  /** The model file's fields after the vocabulary. */
  readonly fields: () => Readonly<Record<string, unknown>>
  /** The held-out evaluation on whole test documents, if the trainer has one. */
  readonly evaluate?: (test: Corpus) => E.Either<DpError, Evaluation>
}

/** A trainer with a decoded configuration. */
export interface ConfiguredTrainer {
  /** The decoded configuration, as written to the model file. */
  readonly config: unknown
  readonly summary: string | undefined
  readonly iterations: number
  /** Range checks, with the corpus's public sizes when known. */
  readonly validate: (stats?: CorpusStats) => E.Either<DpError, ConfiguredTrainer>
  /** The configuration run, given the public sizes the user declared. */
  readonly withDeclared: (declared: DeclaredSizes) => E.Either<DpError, ConfiguredTrainer>
  /** The paths of the extra inputs this configuration names, by input name, with their flags. */
  readonly inputs: ReadonlyArray<{ readonly name: string; readonly flag: string; readonly path: string }>
  readonly refusals: (declared: DeclaredSizes) => ReadonlyArray<string>
  readonly unverified: ReadonlyArray<string>
  /** The privacy statement of the plan (the releases made before training charged first), with the trainer's own notes. */
  readonly statement: (stats: CorpusStats, deltas: ReadonlyArray<number>, vocabulary?: VocabularySource, before?: PrivacyEvent) => E.Either<DpError, PrivacyStatement>
  readonly fit: (data: Corpus, rng: Rng, options?: FitOptions) => E.Either<DpError, TrainedModel>
}

/** A trainer whose configuration and model types are hidden, for the registry and the CLI. */
export interface AnyTrainer {
  readonly name: string
  readonly description: string
  readonly relation: NeighbouringRelation
  readonly accountingRelation: NeighbouringRelation
  readonly defaults: Readonly<Record<string, unknown>>
  readonly flags: ReadonlyArray<TrainerFlag>
  /** The model file's kind. */
  readonly kind: string
  readonly metric: string
  readonly releases: ReadonlyArray<ReleaseKind>
  readonly nonPrivate: string | undefined
  readonly fromFlags: ((values: FlagValues, config: Record<string, unknown>) => string | undefined) | undefined
  /** What `--workers W` does for it (undefined: it takes no threads, and the flag is refused). */
  readonly workers: string | undefined
  /** Starts the threads of a fit on W threads ahead of it (`Trainer.prestart`; nothing to do when absent). */
  readonly prestart: (workers: number) => void
  /** Decodes a raw configuration (the defaults already merged under it) with the trainer's codec; the error names the field. */
  readonly decode: (raw: unknown) => E.Either<DpError, ConfiguredTrainer>
}

const configured = <C, M>(trainer: Trainer<C, M>, config: C): ConfiguredTrainer => {
  const self: ConfiguredTrainer = {
    config,
    summary: trainer.summary?.(config),
    iterations: trainer.iterations(config),
    validate: (stats) => E.map((c: C) => configured(trainer, c))(trainer.validate(config, stats)),
    withDeclared: (declared) => (trainer.withDeclared === undefined ? E.right(self) : configured(trainer, trainer.withDeclared(config, declared)).validate()),
    inputs: (trainer.inputs ?? []).flatMap((i) => {
      const path = i.path(config)
      return path === undefined ? [] : [{ name: i.name, flag: i.flag, path }]
    }),
    refusals: (declared) => trainer.refusals?.(config, declared) ?? [],
    unverified: trainer.unverified?.(config) ?? [],
    statement: (stats, deltas, vocabulary, before) => {
      const st = privacyStatement(trainer, config, stats, deltas, vocabulary, before)
      if (E.isLeft(st) || trainer.statementNotes === undefined) return st
      const notes = trainer.statementNotes(config, stats, deltas)
      return E.isLeft(notes) ? notes : E.right({ ...st.right, notes: [...st.right.notes, ...notes.right] })
    },
    fit: (data, rng, options) =>
      E.map(({ model, ...rest }: FitResult<M>): TrainedModel => {
        const evaluate = trainer.model.evaluate
        return { ...rest, fields: () => trainer.model.fields(model), ...(evaluate === undefined ? {} : { evaluate: (test: Corpus) => evaluate(model, test) }) }
      })(trainer.fit(data, config, rng, options)),
  }
  return self
}

/** Hides a trainer's configuration and model types behind `AnyTrainer`. */
export const erase = <C, M>(trainer: Trainer<C, M>): AnyTrainer => ({
  name: trainer.name,
  description: trainer.description,
  relation: trainer.relation,
  accountingRelation: trainer.accountingRelation,
  defaults: trainer.defaults,
  flags: trainer.flags,
  kind: trainer.model.kind ?? 'dpaudit-model',
  metric: trainer.model.metric,
  releases: trainer.releases,
  nonPrivate: trainer.nonPrivate,
  fromFlags: trainer.fromFlags,
  workers: trainer.workers,
  prestart: trainer.prestart ?? (() => undefined),
  decode: (raw) => {
    const d = trainer.config.decode(raw)
    return E.isLeft(d) ? E.left(firstDecodeError(d.left, 'config')) : E.right(configured(trainer, d.right))
  },
})
