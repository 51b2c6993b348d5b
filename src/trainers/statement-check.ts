/**
 * A model file's privacy statement re-derived from its own plan: the accountants are run again on
 * `privacy.plan` under the relations the statement names, and a stated ε below what the plan gives
 * (an edited number, or one from an accountant that was later found unsound) is refused, naming the
 * field, the stated and the re-derived value. A stated ε above the re-derived one is accepted: it
 * is sound, only looser (an older, less tight accountant).
 *
 * What this does not protect: the plan itself. A file whose plan was edited to less noise, with its
 * ε recomputed to match, is consistent and passes — a model file carries no signature, and its plan
 * is the trainer's declaration, not evidence (docs/trainers.md § Threat model; audits test the
 * declaration against the running code).
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, decodeFailure, formatError } from '../core/error.js'
import { relationFromText } from '../mechanisms/codec.js'
import { type NeighbouringRelation, RELATION_SYNTAX, showRelation } from '../mechanisms/neighbouring.js'
import type { ModelFile } from './model-file.js'
import { accountPlan } from './statement.js'

/** The relation a statement names (`showRelation`'s text, e.g. "replace-one one word"), read by the spec codec's `RelationCodec`, or undefined. */
export const parseRelation = relationFromText

const UNKNOWN_RELATION = `not a neighbouring relation dpaudit knows ("KIND one UNIT", as a spec's relation: ${RELATION_SYNTAX})`

/** A stated ε is below the re-derived one beyond floating-point noise in the accountants' arithmetic. */
const understates = (stated: number, derived: number): boolean => stated < derived - 1e-9 * Math.max(1, Math.abs(derived))

/**
 * Refuses a statement whose ε at some δ is smaller than its plan's under the accountants
 * (`accounted` under `accountedUnder`, `guarantee` under `protects`). `root` prefixes JSON paths.
 */
export const checkStatement = (m: ModelFile, root = '$'): E.Either<DpError, ModelFile> => {
  const p = m.privacy
  const accountingRelation = parseRelation(p.accountedUnder)
  if (accountingRelation === undefined)
    return E.left(decodeFailure(`${root}.privacy.accountedUnder`, p.accountedUnder, UNKNOWN_RELATION))
  const relation = parseRelation(p.protects)
  if (relation === undefined) return E.left(decodeFailure(`${root}.privacy.protects`, p.protects, UNKNOWN_RELATION))
  const deltas = p.accounted.map((a) => a.delta)
  if (p.guarantee.length !== deltas.length || p.guarantee.some((g, i) => g.delta !== deltas[i]))
    return E.left(decodeFailure(`${root}.privacy.guarantee`, p.guarantee.map((g) => g.delta), `is not stated at the δ of $.privacy.accounted (${deltas.join(', ')})`))
  if (deltas.length === 0) return E.right(m)
  const derived = accountPlan(p.plan, accountingRelation, relation, deltas)
  if (E.isLeft(derived)) return E.left(decodeFailure(`${root}.privacy.plan`, '…', `cannot be accounted again: ${formatError(derived.left)}`))
  const lists = [
    ['accounted', p.accounted, derived.right.accounted, accountingRelation],
    ['guarantee', p.guarantee, derived.right.guarantee, relation],
  ] as const
  for (const [name, stated, again, r] of lists)
    for (let i = 0; i < stated.length; i++) {
      const s = stated[i] as { readonly delta: number; readonly epsilon: number }
      const d = again[i] as { readonly epsilon: number }
      if (understates(s.epsilon, d.epsilon))
        return E.left(
          decodeFailure(
            `${root}.privacy.${name}[${i}].epsilon`,
            s.epsilon,
            `is below what the file's own plan gives at δ = ${s.delta} under ${showRelation(r)} (ε = ${d.epsilon}); the statement was edited or is unsound, and is not believed`,
          ),
        )
    }
  return E.right(m)
}
