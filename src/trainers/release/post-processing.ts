/**
 * The no-cost step of a trainer: post-processing of earlier releases, or work on data the user
 * declared public. Its input type keeps a private corpus out (`NoCostInput`): the release boundary
 * in the types (issue 22, item 7).
 *
 * @module
 */
import type { WordStream } from '../../core/words.js'
import { noOp } from '../../mechanisms/event.js'
import type { Measurement } from '../../mechanisms/measurement.js'
import type { Corpus, PublicCorpus } from '../corpus/corpus.js'

/**
 * The input a no-cost step may read: anything but a private corpus. A `Corpus` is refused by the
 * compiler unless it carries the `PublicCorpus` brand (declared public by the user), and so is a
 * union that may hold one.
 */
export type NoCostInput<I> = [Extract<I, Corpus>] extends [never] ? I : [Exclude<Extract<I, Corpus>, PublicCorpus>] extends [never] ? I : never

/**
 * A step that costs nothing (NoOp): post-processing of earlier releases, or work on data the user
 * declared public. Its input type keeps private data out: a private `Corpus` does not compile here
 * (`NoCostInput`); what the step's closure captures is checked by the neighbour-differential tests.
 */
export const postProcessing = <I, O>(
  label: string,
  step: (input: I, words: WordStream) => O,
  // a private corpus in I asks for an argument nobody can give: the call does not compile
  ...privateCorpus: [NoCostInput<I>] extends [never] ? [never: 'a private Corpus is not the input of a no-cost step'] : []
): Measurement<I, O> => {
  void privateCorpus
  return { label, event: noOp, run: step }
}
