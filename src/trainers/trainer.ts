/**
 * The trainer contract: a trainer declares the privacy events it will execute (`plan`) and
 * records those it did execute (the ledger returned by `fit`); the accountant, not the trainer,
 * turns them into ε. The paper's own claim travels beside them as an opaque stated guarantee.
 *
 * @module
 */
import type * as t from 'io-ts'
import type * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../core/error.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'

export interface Trainer<Config, Stats, Data, Model> {
  readonly name: string
  readonly config: t.Type<Config, unknown, unknown>
  /** The relation and unit the trainer protects (e.g. replace-one word for the LDA papers). */
  readonly relation: NeighbouringRelation
  /** The mechanism graph the trainer will execute, as an event tree. */
  readonly plan: (config: Config, stats: Stats) => E.Either<DpError, PrivacyEvent>
  /** The paper's claim, opaque, for comparison with the accounted guarantee. */
  readonly claimed: (config: Config, stats: Stats) => PrivacyEvent
  readonly fit: (data: Data, config: Config, rng: () => number) => E.Either<DpError, { readonly model: Model; readonly ledger: PrivacyEvent }>
}
