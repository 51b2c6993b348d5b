/** ε at δ from a registered accountant, undefined when it refuses the event; a refused query throws. */
import * as E from 'fp-ts/lib/Either.js'
import { type ACCOUNTANT_NAMES, ACCOUNTANTS } from '../../src/accounting/registry.js'
import type * as ev from '../../src/mechanisms/event.js'
import { addRemove, type NeighbouringRelation } from '../../src/mechanisms/neighbouring.js'

export const epsAt = (
  name: (typeof ACCOUNTANT_NAMES)[number],
  e: ev.PrivacyEvent,
  delta: number,
  relation: NeighbouringRelation = addRemove('record'),
): number | undefined => {
  const run = ACCOUNTANTS[name]({ relation }).run(e)
  if (E.isLeft(run)) return undefined
  const a = run.right.epsilon(delta)
  if (E.isLeft(a)) throw new Error(`${name}: ${JSON.stringify(a.left)}`)
  return a.right.epsilon
}
