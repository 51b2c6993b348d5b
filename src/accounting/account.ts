/**
 * The single entry point: run every applicable accountant on a spec and report all of them, plus
 * the tightest sound answer at each δ. Every registered accountant returns a sound upper bound
 * (its answers pass the guard of ./guards.ts, or become refusals), so the minimum over them is
 * sound too; an accountant that cannot handle the spec reports why
 * (with the path of the offending event) and the others still answer.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, formatError, invalidParameter } from '../core/error.js'
import type { Spec } from '../mechanisms/codec.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import type { EpsilonAnswer } from './accountant.js'
import { checkEpsilonAnswer } from './guards.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS, type RegisteredAccountant } from './registry.js'
import { inferRelation } from './relation.js'

export interface AccountOptions {
  /** The δ values to report ε at. */
  readonly deltas: ReadonlyArray<number>
  /** Which accountants to run (default: all registered). */
  readonly accountants?: ReadonlyArray<RegisteredAccountant>
  /** RDP order grid override. */
  readonly orders?: ReadonlyArray<number>
  /** PLD discretisation interval override. */
  readonly interval?: number
}

/** One accountant's answer on one spec: ε at each δ, or the reason it could not answer. */
export type AccountantResult =
  | {
      readonly accountant: RegisteredAccountant
      readonly description: string
      readonly ok: true
      readonly answers: ReadonlyArray<EpsilonAnswer>
      readonly notes: ReadonlyArray<string>
    }
  | {
      readonly accountant: RegisteredAccountant
      readonly description: string
      readonly ok: false
      readonly error: DpError
      readonly message: string
    }

export interface Tightest {
  readonly delta: number
  readonly epsilon: number
  readonly accountant: RegisteredAccountant
  readonly method: string
}

export interface AccountReport {
  readonly name: string | undefined
  readonly relation: NeighbouringRelation
  readonly results: ReadonlyArray<AccountantResult>
  /** Per δ, the smallest ε among accountants that answered (all are sound upper bounds). */
  readonly tightest: ReadonlyArray<Tightest>
}

/** Checks a list of δ values: each in [0, 1) (δ = 0 asks for pure ε-DP). */
export const validateDeltas = (deltas: ReadonlyArray<number>, path = 'delta'): E.Either<DpError, ReadonlyArray<number>> => {
  if (deltas.length === 0) return E.left(invalidParameter(path, deltas, 'at least one δ is needed'))
  for (const [i, d] of deltas.entries())
    if (!(d >= 0 && d < 1)) return E.left(invalidParameter(`${path}[${i}]`, d, 'δ must be in [0, 1)'))
  return E.right(deltas)
}

/** Runs the chosen accountants on a spec (pure: every accountant is built fresh). */
export const account = (spec: Spec, options: AccountOptions): E.Either<DpError, AccountReport> => {
  const deltas = validateDeltas(options.deltas)
  if (E.isLeft(deltas)) return deltas
  const rel = spec.relation !== undefined ? E.right(spec.relation) : inferRelation(spec.event, '$.event')
  if (E.isLeft(rel)) return rel
  const relation = rel.right
  const names = options.accountants ?? ACCOUNTANT_NAMES
  const results: AccountantResult[] = names.map((name) => {
    const acc = ACCOUNTANTS[name]({
      relation,
      ...(options.orders === undefined ? {} : { orders: options.orders }),
      ...(options.interval === undefined ? {} : { interval: options.interval }),
    })
    const fail = (error: DpError): AccountantResult => ({
      accountant: name,
      description: acc.description,
      ok: false,
      error,
      message: formatError(error),
    })
    const run = acc.run(spec.event, '$.event')
    if (E.isLeft(run)) return fail(run.left)
    const answers: EpsilonAnswer[] = []
    for (const d of deltas.right) {
      const a = run.right.epsilon(d)
      if (E.isLeft(a)) return fail(a.left)
      answers.push(a.right)
    }
    return { accountant: name, description: acc.description, ok: true, answers, notes: run.right.notes }
  })
  const tightest: Tightest[] = []
  deltas.right.forEach((delta, i) => {
    let best: Tightest | undefined
    for (const r of results) {
      if (!r.ok) continue
      const a = r.answers[i]
      // Only sound answers compete: each passed `checkEpsilonAnswer` on its way out of `erase`,
      // checked again here so that no NaN (which loses every comparison) or negative ε can win.
      if (a === undefined || E.isLeft(checkEpsilonAnswer(r.accountant, delta, a))) continue
      if (best === undefined || a.epsilon < best.epsilon) best = { delta, epsilon: a.epsilon, accountant: r.accountant, method: a.method }
    }
    if (best !== undefined) tightest.push(best)
  })
  return E.right({ name: spec.name, relation, results, tightest })
}
