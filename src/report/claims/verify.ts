/**
 * `verify`: a claim id → its verdict, by the check the claims file names; `verifyPaper` for every
 * claim of a paper. An audit result (`dpaudit audit --out`) can be attached as empirical evidence:
 * its ε lower bound is compared with the claim it tested.
 *
 * ```ts
 * import * as E from 'fp-ts/lib/Either.js'
 * import { loadClaims, verifyClaim } from 'dpaudit/papers'
 * const papers = loadClaims()
 * if (E.isRight(papers)) {
 *   const v = verifyClaim(papers.right, 'hdp-lda.theorem3')
 *   if (E.isRight(v)) console.log(v.right.kind, v.right.statement)
 * }
 * ```
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { dirname } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../../core/error.js'
import { decodeFailure } from '../../core/error.js'
import { checkAuditResult } from '../audit-check.js'
import { AuditOutput } from '../schemas.js'
import { firstDecodeError } from '../../core/decode.js'
import { type CheckName, CLAIMS_DIR, type ClaimsFile, findClaim, type PaperClaim } from './codec.js'
import { checkCdpLabels, checkHdpTheorem3, checkLpTheorem4, checkSubLdaAlgorithm1, checkSubLdaTable3, checkSviChain, notYetChecked } from './privacy-checks.js'
import { checkSpectralConfiguration } from './spectral-privacy-checks.js'
import { checkLpFigure6, checkSubLdaFigure3, checkSviFigure1 } from './utility-checks.js'
import { checkSpectralFigure2, checkSpectralFigure4 } from './spectral-utility-checks.js'
import type { AuditEvidence, ClaimVerdict } from './verdict.js'
import { claimsIndexMarkdown, paperMarkdown, paperPageName } from './markdown.js'

/** The repository root the claims' data paths are relative to (the claims folder's parent). */
export const REPOSITORY_ROOT = dirname(CLAIMS_DIR.replace(/[\\/]$/, ''))

type Check = (claim: PaperClaim, paper: string, root: string) => E.Either<DpError, ClaimVerdict>

const CHECKS: Readonly<Record<CheckName, Check>> = {
  'sub-lda-table3': checkSubLdaTable3,
  'sub-lda-algorithm1': checkSubLdaAlgorithm1,
  'sub-lda-figure3': checkSubLdaFigure3,
  'hdp-lda-theorem3': checkHdpTheorem3,
  'cdp-lda-labels': checkCdpLabels,
  'lp-lda-theorem4': checkLpTheorem4,
  'lp-lda-figure6': checkLpFigure6,
  'svi-chain': checkSviChain,
  'svi-figure1': checkSviFigure1,
  'spectral-configuration': checkSpectralConfiguration,
  'spectral-figure2': checkSpectralFigure2,
  'spectral-figure4': checkSpectralFigure4,
  'not-yet-checked': notYetChecked,
}

/** The verdict on one claim of a paper. */
export const verifyOne = (paper: ClaimsFile['paper'], claim: PaperClaim, root = REPOSITORY_ROOT): E.Either<DpError, ClaimVerdict> => CHECKS[claim.check](claim, paper.id, root)

/** The verdict on the claim with this id. */
export const verifyClaim = (papers: ReadonlyArray<ClaimsFile>, id: string, root = REPOSITORY_ROOT): E.Either<DpError, ClaimVerdict> => {
  const f = findClaim(papers, id)
  return E.isLeft(f) ? f : verifyOne(f.right.paper, f.right.claim, root)
}

/** Every claim of one paper, in file order. */
export const verifyPaper = (file: ClaimsFile, root = REPOSITORY_ROOT): E.Either<DpError, ReadonlyArray<ClaimVerdict>> => {
  const out: ClaimVerdict[] = []
  for (const c of file.claims) {
    const v = verifyOne(file.paper, c, root)
    if (E.isLeft(v)) return v
    out.push(v.right)
  }
  return E.right(out)
}

/**
 * An audit result (the JSON of `dpaudit audit --out`, decoded by AuditOutput) as evidence for a
 * verdict: the ε lower bound it certified at its confidence, against the claim it tested.
 */
export const auditEvidence = (file: string, text: string, u: unknown): E.Either<DpError, AuditEvidence> => {
  const d = AuditOutput.decode(u)
  if (E.isLeft(d)) return E.left(firstDecodeError(d.left, `${file}:$`))
  const r = d.right.result
  const mechanism = typeof (r as Record<string, unknown>)['mechanism'] === 'string' ? ((r as Record<string, unknown>)['mechanism'] as string) : d.right.target
  const interpretation = typeof (r as Record<string, unknown>)['interpretation'] === 'string' ? ((r as Record<string, unknown>)['interpretation'] as string) : ''
  if (!Number.isFinite(r.claim.epsilon) && r.claim.epsilon !== Infinity) return E.left(decodeFailure(`${file}:$.result.claim.epsilon`, r.claim.epsilon, 'expected a number'))
  const consistent = checkAuditResult(file, r)
  if (E.isLeft(consistent)) return consistent
  return E.right({
    file,
    sha256: createHash('sha256').update(text).digest('hex'),
    mechanism,
    verdict: r.verdict,
    claimEpsilon: r.claim.epsilon,
    claimDelta: r.claim.delta,
    epsilonLowerBound: r.epsilonLowerBound,
    confidence: r.confidence,
    ceiling: r.ceiling,
    interpretation,
  })
}

/** The verdict with an audit attached (the audit's words are added to the notes). */
export const withAudit = (v: ClaimVerdict, a: AuditEvidence): ClaimVerdict => ({
  ...v,
  audit: a,
  notes: [
    ...v.notes,
    `audit ${a.file} (${a.mechanism}): ${a.verdict}; ε lower bound ${a.epsilonLowerBound.toPrecision(4)} at ${a.confidence} confidence against the claimed ε = ${a.claimEpsilon} (δ = ${a.claimDelta}); this run could certify at most ${a.ceiling.toPrecision(4)}`,
  ],
})

/** The pages of docs/claims/ from computed verdicts (one list per paper, in file order): README.md and one page per paper. */
export const pagesFromVerdicts = (
  papers: ReadonlyArray<ClaimsFile>,
  verdicts: ReadonlyArray<ReadonlyArray<ClaimVerdict>>,
): ReadonlyArray<{ readonly name: string; readonly text: string }> => [
  { name: 'README.md', text: claimsIndexMarkdown(papers, verdicts) },
  ...papers.map((p, i) => ({ name: paperPageName(p), text: `${paperMarkdown(p, verdicts[i] ?? []).trimEnd()}\n` })),
]

/** Every verdict of every paper, and the pages of docs/claims/ built from them. */
export const claimsPages = (papers: ReadonlyArray<ClaimsFile>, root = REPOSITORY_ROOT): E.Either<DpError, ReadonlyArray<{ readonly name: string; readonly text: string }>> => {
  const all: Array<ReadonlyArray<ClaimVerdict>> = []
  for (const p of papers) {
    const v = verifyPaper(p, root)
    if (E.isLeft(v)) return v
    all.push(v.right)
  }
  return E.right(pagesFromVerdicts(papers, all))
}
