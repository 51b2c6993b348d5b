/**
 * Which relation a spec is accounted under, and the structural rules sampling events impose.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, incompatibleNeighbouring } from '../core/error.js'
import { children, isNoiseEvent, type PrivacyEvent } from '../mechanisms/event.js'
import { type NeighbouringRelation, sameRelation, showRelation } from '../mechanisms/neighbouring.js'

/** The relations stated by the leaves of a tree, in first-seen order, without duplicates. */
export const leafRelations = (e: PrivacyEvent): ReadonlyArray<NeighbouringRelation> => {
  const out: NeighbouringRelation[] = []
  const stack: PrivacyEvent[] = [e]
  while (stack.length > 0) {
    const v = stack.pop() as PrivacyEvent
    if (isNoiseEvent(v)) {
      if (!out.some((r) => sameRelation(r, v.relation))) out.push(v.relation)
    } else for (const c of [...children(v)].reverse()) stack.push(c)
  }
  return out
}

/**
 * The relation to account under when the spec does not state one: the one all leaves share; if
 * leaves mix add/remove and replace-one of one unit, replace-one (add/remove converts soundly);
 * otherwise an error. A tree without noise leaves defaults to add/remove one record.
 */
export const inferRelation = (e: PrivacyEvent, path = '$'): E.Either<DpError, NeighbouringRelation> => {
  const rs = leafRelations(e)
  const first = rs[0]
  if (first === undefined) return E.right({ kind: 'add-remove', unit: 'record' })
  if (rs.length === 1) return E.right(first)
  const units = new Set(rs.map((r) => r.unit))
  if (units.size === 1) return E.right({ kind: 'replace-one', unit: first.unit })
  return E.left(
    incompatibleNeighbouring(
      path,
      `leaves protect different units (${rs.map(showRelation).join('; ')}); state the spec's "relation"`,
    ),
  )
}

/**
 * Poisson-subsampling amplification theorems are stated for add/remove neighbours; sampling
 * without replacement for replace-one neighbours (Wang, Balle & Kasiviswanathan 2019). An
 * accountant calls this before amplifying.
 */
export const checkSamplingRelation = (
  e: PrivacyEvent,
  target: NeighbouringRelation,
  path: string,
): E.Either<DpError, void> => {
  if (e._tag === 'PoissonSample' && target.kind !== 'add-remove')
    return E.left(
      incompatibleNeighbouring(
        path,
        `Poisson subsampling is amplified under add/remove neighbours; the guarantee is asked under ${showRelation(target)}`,
      ),
    )
  if (e._tag === 'SampleWithoutReplacement' && target.kind !== 'replace-one')
    return E.left(
      incompatibleNeighbouring(
        path,
        `sampling without replacement is amplified under replace-one neighbours; the guarantee is asked under ${showRelation(target)}`,
      ),
    )
  return E.right(undefined)
}
