/**
 * The claim a trainer audit tests when none is given: the accountant's ε at δ for the trainer's
 * plan — the ε its privacy statement prints (`privacyStatement`: the plan derived from the
 * trainer's schedule for the game's configuration and the sizes of D, accounted under the relation
 * the trainer protects). An audit then checks the statement of the code that ships.
 *
 * The statement's ε is for the trainer's relation; the game's neighbouring step must be one of its
 * pairs (add-document for add/remove one document, replace-word for replace-one word, …), or the ε
 * compared would be about other neighbours. Otherwise the claim must be given explicitly.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { showRelation } from '../../mechanisms/neighbouring.js'
import { type Corpus, corpusStats } from '../../trainers/corpus/corpus.js'
import { privacyStatement } from '../../trainers/statement.js'
import type { AuditClaim } from '../claim.js'
import type { GameTrainer, Neighbour, TrainerGame } from './game.js'

/** "Test the accountant's ε at δ for the trainer's plan" (a trainer-audit file's `"claim": { "accounted": true, "delta": δ }`). */
export interface AccountedClaim {
  readonly accounted: true
  readonly delta: number
}

export const isAccountedClaim = (c: unknown): c is AccountedClaim => typeof c === 'object' && c !== null && (c as { accounted?: unknown }).accounted === true

/** The relation kind and unit a neighbouring step is a pair of. */
const stepRelation: Readonly<Record<Neighbour['kind'], { kind: string; unit: string }>> = {
  'add-document': { kind: 'add-remove', unit: 'document' },
  'replace-document': { kind: 'replace-one', unit: 'document' },
  'replace-word': { kind: 'replace-one', unit: 'word' },
}

/** The accountant's ε at `delta` for the game's trainer, configuration and D, as an audit claim (see the module comment). */
export const accountedClaim = (game: TrainerGame, delta: number): E.Either<DpError, AuditClaim> =>
  accountedClaimFor(game.trainer, game.config, game.corpora[0], game.spec.neighbour.kind, delta)

/** The same for a trainer, its decoded configuration and a corpus, tested on pairs of one `step` (a one-run audit: add-document). */
export const accountedClaimFor = (trainer: GameTrainer, config: unknown, corpus: Corpus, kind: Neighbour['kind'], delta: number): E.Either<DpError, AuditClaim> => {
  if (!(typeof delta === 'number' && delta > 0 && delta < 1)) return E.left(invalidParameter('$.claim.delta', delta, 'the δ at which the accounted ε is taken: a number in (0, 1)'))
  const { relation } = trainer
  const step = stepRelation[kind]
  if (step.kind !== relation.kind || step.unit !== relation.unit)
    return E.left(
      invalidParameter(
        '$.claim',
        'accounted',
        `${trainer.name} protects ${showRelation(relation)}, but a ${kind} game is a ${step.kind} pair of one ${step.unit}: give the claim { epsilon, delta } to test under it`,
      ),
    )
  const s = privacyStatement(trainer, config, corpusStats(corpus), [delta])
  if (E.isLeft(s)) return s
  const epsilon = s.right.guarantee[0]?.epsilon
  if (epsilon === undefined || !Number.isFinite(epsilon))
    return E.left(invalidParameter('$.claim', 'accounted', `the accountant gives ${trainer.name}'s plan no finite ε at δ = ${delta}: there is no claim to test`))
  return E.right({ epsilon, delta })
}
