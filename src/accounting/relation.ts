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
 * The relation to account under when the spec does not state one: the one all leaves share;
 * otherwise, for leaves of one unit,
 * - add/remove with one direction (add-only or remove-only): that direction — add/remove leaves
 *   hold in it; with both directions, or mixed with replace-special, see below;
 * - the add/remove family mixed with replace-special: replace-special (add/remove leaves hold under
 *   it, ⊥ being the zero record);
 * - anything mixed with replace-one, or both directions: replace-one (every symmetric leaf converts
 *   to it; a one-directional stated guarantee is then refused by the accountant, naming its path).
 * Leaves of different units are an error. A tree without noise leaves defaults to add/remove one record.
 */
export const inferRelation = (e: PrivacyEvent, path = '$'): E.Either<DpError, NeighbouringRelation> => {
  const rs = leafRelations(e)
  const first = rs[0]
  if (first === undefined) return E.right({ kind: 'add-remove', unit: 'record' })
  if (rs.length === 1) return E.right(first)
  const units = new Set(rs.map((r) => r.unit))
  if (units.size !== 1)
    return E.left(
      incompatibleNeighbouring(
        path,
        `leaves protect different units (${rs.map(showRelation).join('; ')}); state the spec's "relation"`,
      ),
    )
  const kinds = new Set(rs.map((r) => r.kind))
  const unit = first.unit
  if (!kinds.has('replace-one') && !(kinds.has('add-only') && kinds.has('remove-only'))) {
    if (kinds.has('replace-special')) return E.right({ kind: 'replace-special', unit })
    if (kinds.has('add-only')) return E.right({ kind: 'add-only', unit })
    if (kinds.has('remove-only')) return E.right({ kind: 'remove-only', unit })
  }
  return E.right({ kind: 'replace-one', unit })
}

/**
 * Which relations each sampling scheme is amplified under:
 * - Poisson subsampling: add/remove (Balle, Barthe & Gaboardi 2018, Thm 8; Zhu & Wang 2019;
 *   Mironov, Talwar & Zhang 2019), each of its directions alone (the sampled pair in one direction
 *   depends only on the inner mechanism in that direction), and replace-special (⊥ the zero record:
 *   the sampled pairs are the add/remove ones; dp_accounting). Under replace-one only the PLD
 *   accountant amplifies it, by its own substitution pairs (pld/fold.ts); elsewhere it is refused;
 * - sampling without replacement: replace-one (Wang, Balle & Kasiviswanathan 2019); its analysis of
 *   a replacement by ⊥ would compare samples that differ in a real unit, so replace-special is not
 *   covered, nor add/remove (the sample size is fixed).
 * An accountant calls this before amplifying.
 */
export const checkSamplingRelation = (
  e: PrivacyEvent,
  target: NeighbouringRelation,
  path: string,
): E.Either<DpError, void> => {
  if (e._tag === 'PoissonSample' && target.kind === 'replace-one')
    return E.left(
      incompatibleNeighbouring(
        path,
        `Poisson subsampling is amplified under add/remove neighbours (or one of its directions, or replace-special); the guarantee is asked under ${showRelation(target)} ` +
          '(the pld accountant amplifies it under replace-one directly)',
      ),
    )
  if (e._tag === 'WithReplacementSample' && target.kind !== 'replace-one')
    return E.left(
      incompatibleNeighbouring(
        path,
        `sampling with replacement is amplified under replace-one neighbours (Balle, Barthe & Gaboardi 2018, Thm 10); the guarantee is asked under ${showRelation(target)}`,
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
