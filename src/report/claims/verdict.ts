/**
 * A verdict on a published claim, as data: the kind (one of the words the issue fixes), the
 * sentence that states it, what it assumes (relation, sampling model, reading of the paper), and
 * the evidence — tables of numbers computed by dpaudit's accountants (or read from the measured
 * example outputs, for utility claims), never typed in. `VerdictJson` is its io-ts codec, the
 * schema of `dpaudit verify --json`.
 *
 * @module
 */
import * as t from 'io-ts'
import { ExtendedNumber as Num } from '../../core/json.js'

/**
 * - holds: the claim follows under the paper's own model;
 * - holds-under-reading: it follows only under a reading the verdict states;
 * - understated: the true loss is larger, by the amount in `understatedBy`;
 * - not-derivable: it cannot be derived as stated (the argument does not apply), and whether it holds is unknown;
 * - does-not-hold: it is false: a counterexample (in the evidence) violates it;
 * - not-reproduced: (utility) the stated result did not reproduce at the stated scale;
 * - unknown: not checked, or the evidence does not decide.
 */
export const VERDICT_KINDS = ['holds', 'holds-under-reading', 'understated', 'not-derivable', 'does-not-hold', 'not-reproduced', 'unknown'] as const
export type VerdictKind = (typeof VERDICT_KINDS)[number]

/** The kind in plain words, as reports print it. */
export const VERDICT_WORDS: Readonly<Record<VerdictKind, string>> = {
  holds: 'holds',
  'holds-under-reading': 'holds only under a stated reading',
  understated: 'understated',
  'not-derivable': 'not derivable as stated',
  'does-not-hold': 'does not hold',
  'not-reproduced': 'not reproduced',
  unknown: 'unknown',
}

/** A table cell: a number (∞ allowed, written "Infinity" in JSON) or text. */
export type Cell = string | number
export interface EvidenceTable {
  readonly title: string
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<Cell>>
}

export interface VerdictAssumptions {
  /** The neighbouring relation and unit the numbers are stated under. */
  readonly relation: string
  /** How the data are sampled (or "none"). */
  readonly sampling: string
  /** The reading of the paper the verdict takes where the text is ambiguous. */
  readonly reading: string
  readonly other: ReadonlyArray<string>
}

/** An empirical audit attached to a verdict (`dpaudit verify --audit FILE`). */
export interface AuditEvidence {
  readonly file: string
  readonly sha256: string
  readonly mechanism: string
  readonly verdict: string
  readonly claimEpsilon: number
  readonly claimDelta: number
  readonly epsilonLowerBound: number
  readonly confidence: number
  readonly ceiling: number
  readonly interpretation: string
}

export interface ClaimVerdict {
  readonly claim: { readonly id: string; readonly paper: string; readonly kind: 'privacy' | 'utility'; readonly title: string }
  readonly kind: VerdictKind
  /** The verdict in one or a few sentences, with the computed numbers. */
  readonly statement: string
  /** For `understated`: by how much, in words and numbers. */
  readonly understatedBy?: string
  readonly assumptions: VerdictAssumptions
  readonly evidence: ReadonlyArray<EvidenceTable>
  /** How each number was computed (accountants, methods, data files). */
  readonly notes: ReadonlyArray<string>
  readonly audit?: AuditEvidence
}

const CellCodec = t.union([Num, t.string])

export const EvidenceTableJson = t.type({ title: t.string, columns: t.readonlyArray(t.string), rows: t.readonlyArray(t.readonlyArray(CellCodec)) })

export const VerdictJson = t.intersection([
  t.type({
    claim: t.type({ id: t.string, paper: t.string, kind: t.union([t.literal('privacy'), t.literal('utility')]), title: t.string }),
    kind: t.keyof(Object.fromEntries(VERDICT_KINDS.map((k) => [k, null])) as Record<VerdictKind, null>),
    statement: t.string,
    assumptions: t.type({ relation: t.string, sampling: t.string, reading: t.string, other: t.readonlyArray(t.string) }),
    evidence: t.readonlyArray(EvidenceTableJson),
    notes: t.readonlyArray(t.string),
  }),
  t.partial({
    understatedBy: t.string,
    audit: t.type({
      file: t.string,
      sha256: t.string,
      mechanism: t.string,
      verdict: t.string,
      claimEpsilon: Num,
      claimDelta: Num,
      epsilonLowerBound: Num,
      confidence: Num,
      ceiling: Num,
      interpretation: t.string,
    }),
  }),
])

/** `dpaudit verify --json`: the verdicts asked for. */
export const VerifyOutput = t.type({
  schemaVersion: t.literal(1),
  tool: t.literal('dpaudit verify'),
  verdicts: t.readonlyArray(VerdictJson),
})
export type VerifyOutput = t.TypeOf<typeof VerifyOutput>
