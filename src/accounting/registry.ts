/**
 * Accountants by name, so a CLI flag or a config file can pick one. Each entry is a factory:
 * every use gets a fresh accountant, so no query can ever see another's state.
 *
 * @module
 */
import type { AccountantName, AnyAccountant } from './accountant.js'
import { erase } from './accountant.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import { makeRdpAccountant } from './rdp/index.js'
import { makeAdvancedAccountant, makeBasicAccountant, makeOptimalAccountant } from './dp/index.js'
import { makeZcdpAccountant } from './zcdp/index.js'
import { makePldAccountant } from './pld/index.js'

export interface AccountantOptions {
  readonly relation: NeighbouringRelation
  /** RDP orders to optimise the conversion over (default: the RDP module's grid). */
  readonly orders?: ReadonlyArray<number>
  /** PLD discretisation interval (default 1e-4). */
  readonly interval?: number
}

export type AccountantFactory = (options: AccountantOptions) => AnyAccountant

/** Every registered accountant, in the order reports list them (loosest families first). */
export const ACCOUNTANTS: Readonly<Record<AccountantName, AccountantFactory>> = {
  basic: (o) => erase(makeBasicAccountant({ relation: o.relation })),
  advanced: (o) => erase(makeAdvancedAccountant({ relation: o.relation })),
  optimal: (o) => erase(makeOptimalAccountant({ relation: o.relation })),
  zcdp: (o) => erase(makeZcdpAccountant({ relation: o.relation })),
  pld: (o) => erase(o.interval === undefined ? makePldAccountant({ relation: o.relation }) : makePldAccountant({ relation: o.relation, interval: o.interval })),
  rdp: (o) =>
    erase(o.orders === undefined ? makeRdpAccountant({ relation: o.relation }) : makeRdpAccountant({ relation: o.relation, orders: o.orders })),
}

export const ACCOUNTANT_NAMES = Object.keys(ACCOUNTANTS) as ReadonlyArray<keyof typeof ACCOUNTANTS>

export type RegisteredAccountant = keyof typeof ACCOUNTANTS

export const isAccountantName = (s: string): s is RegisteredAccountant => s in ACCOUNTANTS
