/**
 * Small accounting helpers the claim checks share: ε of an event by one accountant family or the
 * tightest, the pure ε by basic composition, and RDP at one order — all through dpaudit's own
 * accountants, so every number in a verdict is computed, never typed in.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../../accounting/account.js'
import type { RegisteredAccountant } from '../../accounting/registry.js'
import { rdpCurve } from '../../accounting/rdp/curve.js'
import type { DpError } from '../../core/error.js'
import type { PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type * as t from 'io-ts'
import { firstDecodeError } from '../../core/decode.js'
import type { PaperClaim } from './codec.js'
import type { ClaimVerdict } from './verdict.js'

export interface Accounted {
  readonly epsilon: number
  readonly delta: number
  readonly accountant: string
  readonly method: string
}

/** The smallest ε at δ among `accountants` (default: every registered one). ∞ when none answers. */
export const tightestEpsilon = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  delta: number,
  accountants?: ReadonlyArray<RegisteredAccountant>,
  interval?: number,
): E.Either<DpError, Accounted> => {
  const r = account(
    { schemaVersion: 1, relation, event },
    { deltas: [delta], ...(accountants === undefined ? {} : { accountants }), ...(interval === undefined ? {} : { interval }) },
  )
  if (E.isLeft(r)) return r
  const t = r.right.tightest[0]
  if (t !== undefined) return E.right({ epsilon: t.epsilon, delta, accountant: t.accountant, method: t.method })
  const why = r.right.results.flatMap((x) => (x.ok ? [] : [`${x.accountant}: ${x.message}`]))
  return E.right({ epsilon: Number.POSITIVE_INFINITY, delta, accountant: 'none', method: `no accountant could answer (${why.join('; ')})` })
}

/** The pure ε of an event by basic composition (Dwork & Roth 2014, Thm 3.16 with δ = 0). */
export const pureEpsilon = (event: PrivacyEvent, relation: NeighbouringRelation): E.Either<DpError, number> =>
  E.map((a: Accounted) => a.epsilon)(tightestEpsilon(event, relation, 1e-5, ['basic']))

/** RDP ε(α) of an event at one order (the RDP accountant's curve). */
export const rdpAt = (event: PrivacyEvent, relation: NeighbouringRelation, order: number): E.Either<DpError, number> =>
  E.map((c: Float64Array) => c[0] as number)(rdpCurve(event, relation, [order]))

/** Runs a list of Either-returning steps, stopping at the first Left. */
export const all = <A>(xs: ReadonlyArray<E.Either<DpError, A>>): E.Either<DpError, A[]> => {
  const out: A[] = []
  for (const x of xs) {
    if (E.isLeft(x)) return x
    out.push(x.right)
  }
  return E.right(out)
}

/** A number rounded for a verdict's sentence or table (significant digits; ∞ as "∞"). */
export const sig = (x: number, digits = 4): string => (Number.isFinite(x) ? String(Number(x.toPrecision(digits))) : x > 0 ? '∞' : x < 0 ? '−∞' : 'NaN')
/** A number for a table cell: rounded to `digits` significant digits (non-finite kept). */
export const cell = (x: number, digits = 6): number => (Number.isFinite(x) ? Number(x.toPrecision(digits)) : x)
/** A range "a–b" of rounded numbers, or one number when they round alike. */
export const range = (xs: ReadonlyArray<number>, digits = 3): string => {
  const lo = sig(Math.min(...xs), digits)
  const hi = sig(Math.max(...xs), digits)
  return lo === hi ? lo : `${lo}–${hi}`
}

/** Three significant digits, with an exponent for very large and very small values (2.06e8, 2.83e-5). */
export const sci = (x: number): string => (Number.isFinite(x) && (Math.abs(x) >= 1e5 || (x !== 0 && Math.abs(x) < 1e-3)) ? x.toExponential(2).replace('e+', 'e') : sig(x, 3))

/** Words joined for a sentence: "a", "a and b", "a, b and c". */
export const list = (xs: ReadonlyArray<string>): string => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`)

/** Decodes a value (a claim's parameters, a data file) with one message naming the path on failure. */
export const decodeAt = <A>(codec: t.Decoder<unknown, A>, u: unknown, root: string): E.Either<DpError, A> => {
  const d = codec.decode(u)
  return E.isLeft(d) ? E.left(firstDecodeError(d.left, root)) : d
}

/** The claim as a verdict names it. */
export const claimHead = (claim: PaperClaim, paper: string): ClaimVerdict['claim'] => ({ id: claim.id, paper, kind: claim.kind, title: claim.title })
