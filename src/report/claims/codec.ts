/**
 * Published claims as data: the io-ts codec of the files in `claims/` (one per seed paper), and
 * their loading. A claim quotes the paper, says where it stands (section, theorem, equation, table,
 * figure, and the line range of the plain-text extraction in the papers folder — the extractions
 * carry no page numbers, so lines are the stable reference), names the check that recomputes it,
 * and carries the parameters the paper states. Nothing in a claims file is used as a guarantee: the
 * checks (./checks.ts) recompute every number with dpaudit's accountants.
 *
 * ```ts
 * import { loadClaims } from 'dpaudit/papers'
 * const papers = loadClaims()            // Either<DpError, ReadonlyArray<ClaimsFile>>
 * ```
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { firstDecodeError } from '../../core/decode.js'
import { type DpError, decodeFailure, invalidParameter } from '../../core/error.js'
import { parseJson } from '../../core/json.js'

/** The schema version of a claims file. */
export const CLAIMS_SCHEMA_VERSION = 1 as const
export const CLAIMS_KIND = 'dpaudit-claims'

/** Where a claim stands in the paper: what (section, theorem, equation, table, figure) and the extraction's lines. */
export const ClaimLocation = t.intersection([
  t.type({ what: t.string, lines: t.tuple([t.number, t.number]) }),
  t.partial({ page: t.number }),
])
export type ClaimLocation = t.TypeOf<typeof ClaimLocation>

/** The checks dpaudit knows (./checks.ts); a claim names one. */
export const CHECK_NAMES = [
  'sub-lda-table3',
  'sub-lda-algorithm1',
  'sub-lda-figure3',
  'hdp-lda-theorem3',
  'cdp-lda-labels',
  'lp-lda-theorem4',
  'lp-lda-figure6',
  'svi-chain',
  'svi-figure1',
  'spectral-configuration',
  'spectral-figure2',
  'spectral-figure4',
  'not-yet-checked',
] as const
export type CheckName = (typeof CHECK_NAMES)[number]
const CheckNameCodec = t.keyof(Object.fromEntries(CHECK_NAMES.map((n) => [n, null])) as Record<CheckName, null>, 'CheckName')

export const PaperClaim = t.type(
  {
    /** Stable id, `<trainer>.<where>`: what `dpaudit verify` takes. */
    id: t.string,
    kind: t.union([t.literal('privacy'), t.literal('utility')]),
    title: t.string,
    /** The paper's words (extraction spelling, formulas retyped). */
    quote: t.string,
    where: t.array(ClaimLocation),
    check: CheckNameCodec,
    /** The numbers and settings the paper states, as the check reads them. */
    parameters: t.UnknownRecord,
  },
  'PaperClaim',
)
export type PaperClaim = t.TypeOf<typeof PaperClaim>

export const ClaimsFile = t.type(
  {
    schemaVersion: t.literal(CLAIMS_SCHEMA_VERSION),
    kind: t.literal(CLAIMS_KIND),
    paper: t.type({ id: t.string, short: t.string, title: t.string, file: t.string }),
    claims: t.array(PaperClaim),
  },
  'ClaimsFile',
)
export type ClaimsFile = t.TypeOf<typeof ClaimsFile>

/** The repository's claims/ folder (three levels up from src/report/claims and dist/report/claims). */
export const CLAIMS_DIR = fileURLToPath(new URL('../../../claims/', import.meta.url))

/** Decodes one claims file's JSON; errors name the file, the JSON path and the value. */
export const decodeClaimsFile = (u: unknown, root = '$'): E.Either<DpError, ClaimsFile> => {
  const d = ClaimsFile.decode(u)
  if (E.isLeft(d)) return E.left(firstDecodeError(d.left, root))
  const ids = new Set<string>()
  for (const [i, c] of d.right.claims.entries()) {
    if (ids.has(c.id)) return E.left(decodeFailure(`${root}.claims[${i}].id`, c.id, 'duplicate claim id'))
    ids.add(c.id)
    for (const [j, w] of c.where.entries())
      if (!(Number.isInteger(w.lines[0]) && w.lines[0] >= 1 && w.lines[1] >= w.lines[0]))
        return E.left(decodeFailure(`${root}.claims[${i}].where[${j}].lines`, w.lines, 'expected [first, last] line numbers, 1 ≤ first ≤ last'))
  }
  return E.right(d.right)
}

/** Every claims file in `dir` (`*.json`, by name), decoded; ids unique across files. */
export const loadClaims = (dir: string = CLAIMS_DIR): E.Either<DpError, ReadonlyArray<ClaimsFile>> => {
  let names: string[]
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()
  } catch (e) {
    return E.left(invalidParameter('claims', dir, `cannot read the claims folder: ${(e as Error).message}`))
  }
  const out: ClaimsFile[] = []
  const seen = new Map<string, string>()
  for (const n of names) {
    const file = join(dir, n)
    const parsed = parseJson(readFileSync(file, 'utf8'))
    if (E.isLeft(parsed)) return E.left(decodeFailure(file, '…', parsed.left))
    const d = decodeClaimsFile(parsed.right, `${n}:$`)
    if (E.isLeft(d)) return d
    for (const c of d.right.claims) {
      const other = seen.get(c.id)
      if (other !== undefined) return E.left(decodeFailure(`${n}:$.claims`, c.id, `claim id also used in ${other}`))
      seen.set(c.id, n)
    }
    out.push(d.right)
  }
  return E.right(out)
}

/** The claim with this id and its paper, or an error listing the known ids. */
export const findClaim = (papers: ReadonlyArray<ClaimsFile>, id: string): E.Either<DpError, { readonly paper: ClaimsFile['paper']; readonly claim: PaperClaim }> => {
  for (const p of papers) for (const c of p.claims) if (c.id === id) return E.right({ paper: p.paper, claim: c })
  return E.left(invalidParameter('claim', id, `unknown claim; known: ${papers.flatMap((p) => p.claims.map((c) => c.id)).join(', ')}`))
}
