/** ε at δ of a fresh registered accountant on one event (throws with the formatted error). */
import * as E from 'fp-ts/lib/Either.js'
import type { EpsilonAnswer } from '../../../src/accounting/accountant.js'
import { ACCOUNTANTS, type RegisteredAccountant } from '../../../src/accounting/registry.js'
import { formatError } from '../../../src/core/error.js'
import type { PrivacyEvent } from '../../../src/mechanisms/event.js'
import { addRemove, type NeighbouringRelation } from '../../../src/mechanisms/neighbouring.js'

export const REL = addRemove('record')
export const SEED = 20_261_123

export const epsOf = (name: RegisteredAccountant, e: PrivacyEvent, delta: number, relation: NeighbouringRelation = REL): EpsilonAnswer => {
  const run = ACCOUNTANTS[name]({ relation }).run(e)
  if (E.isLeft(run)) throw new Error(formatError(run.left))
  const a = run.right.epsilon(delta)
  if (E.isLeft(a)) throw new Error(formatError(a.left))
  return a.right
}
