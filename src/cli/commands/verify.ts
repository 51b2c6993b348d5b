/**
 * `dpaudit verify <claim-id> [--audit FILE] [--json]`, `--paper NAME` (a title-derived key, src/trainers/papers.ts), `--all [--write DIR]`,
 * `--list`: the verdict on a published claim (claims/), recomputed with dpaudit's accountants, with
 * its assumptions and evidence; `--write DIR` regenerates the per-paper pages (docs/claims/).
 *
 * @module
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { writeFileAtomic } from '../../core/atomic-file.js'
import { formatError } from '../../core/error.js'
import { parseJson, stringifyJson } from '../../core/json.js'
import { readBoundedText } from '../../core/read-file.js'
import { auditIsAbout } from '../../report/audit-check.js'
import { MAX_REPORT_INPUT_BYTES } from '../../report/audit/input.js'
import { guardOutputs } from '../output-guard.js'
import { table, wrap } from '../../report/format.js'
import { CLAIMS_DIR, type ClaimsFile, findClaim, loadClaims, type PaperClaim } from '../../report/claims/codec.js'
import { verdictText } from '../../report/claims/markdown.js'
import { auditEvidence, claimsPages, verifyOne, withAudit } from '../../report/claims/verify.js'
import { type ClaimVerdict, VERDICT_WORDS } from '../../report/claims/verdict.js'
import { PAPER_NAMES, type PaperName } from '../../trainers/papers.js'
import { type CommandResult, EXIT } from './result.js'

/** How a claims file's paper is named to the user: its title-derived key and its titles (src/trainers/papers.ts). */
const nameOf = (paper: ClaimsFile['paper']): PaperName =>
  PAPER_NAMES.find((p) => p.file === paper.id) ?? {
    key: paper.short.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''),
    aliases: [paper.id],
    file: paper.id,
    title: paper.title,
    short: paper.short,
  }

export const VERIFY_USAGE = `usage: dpaudit verify <claim-id> [--audit FILE] [--json] | --paper NAME | --all [--write DIR] | --list
  the verdict on a published claim (claims/*.json): holds / holds only under a stated reading / understated by X /
  not derivable as stated / not reproduced / unknown, with its assumptions (relation, sampling model, reading) and
  the evidence computed by dpaudit's accountants. --audit attaches an audit result (dpaudit audit --out) as
  empirical evidence: an audit of the claim's own mechanism (its name or module file names the claim's subject,
  e.g. lp-lda-flip.mjs for lp-lda.*; a zoo audit is refused), whose verdict and bound are re-derived from its numbers. --paper: every claim of one paper; --all: every claim; --write DIR writes the per-paper
  Markdown pages (docs/claims/) instead of printing; --list: the claim ids with their papers. Papers (NAME):
${PAPER_NAMES.map((p) => `    ${wrap(`${p.key.padEnd(12)} ${p.title}`, 96, 17)}`).join('\n')}
  (--paper also takes a claim id's prefix, e.g. lp-lda, svi.)`

/** A claim's subject: the prefix of its id (`lp-lda.theorem4` → `lp-lda`), the mechanism evidence must be about. */
const claimSubject = (id: string): string => id.split('.')[0] ?? id

/** The claims files verify reads (claims/*.json), for refusing a --write over one. */
const claimsFilePaths = (): ReadonlyArray<string> => {
  try {
    return readdirSync(CLAIMS_DIR).filter((n) => n.endsWith('.json')).map((n) => join(CLAIMS_DIR, n))
  } catch {
    return []
  }
}

const claimsOf = (papers: ReadonlyArray<ClaimsFile>, which: { id?: string; paper?: string; all: boolean }): E.Either<string, Array<{ paper: ClaimsFile['paper']; claim: PaperClaim }>> => {
  if (which.all) return E.right(papers.flatMap((p) => p.claims.map((claim) => ({ paper: p.paper, claim }))))
  if (which.paper !== undefined) {
    const wanted = which.paper.trim().toLowerCase()
    const p = papers.find((x) => {
      const n = nameOf(x.paper)
      return n.key === wanted || n.aliases.includes(wanted)
    })
    return p === undefined ? E.left(`--paper: unknown paper "${which.paper}" (one of ${papers.map((x) => nameOf(x.paper).key).join(', ')})`) : E.right(p.claims.map((claim) => ({ paper: p.paper, claim })))
  }
  const f = findClaim(papers, which.id ?? '')
  return E.isLeft(f) ? E.left(formatError(f.left)) : E.right([f.right])
}

export const runVerify = (args: ReadonlyArray<string>): CommandResult => {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      audit: { type: 'string' },
      json: { type: 'boolean', default: false },
      paper: { type: 'string' },
      all: { type: 'boolean', default: false },
      write: { type: 'string' },
      list: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) return { code: EXIT.ok, stdout: VERIFY_USAGE }
  const papers = loadClaims()
  if (E.isLeft(papers)) return { code: EXIT.input, stderr: formatError(papers.left) }
  // one line per claim: its id, the key of its paper (what --paper takes), its kind, its title and the paper's
  if (values.list)
    return {
      code: EXIT.ok,
      stdout: papers.right
        .flatMap((p) => p.claims.map((c) => `${c.id.padEnd(22)} ${nameOf(p.paper).key.padEnd(12)} ${c.kind.padEnd(8)} ${c.title} — ${nameOf(p.paper).short}`))
        .join('\n'),
    }
  const modes = [positionals.length > 0, values.paper !== undefined, values.all].filter(Boolean).length
  if (modes !== 1 || positionals.length > 1 || (values.write !== undefined && !values.all)) return { code: EXIT.input, stderr: VERIFY_USAGE }
  if (values.write !== undefined) {
    const pages = claimsPages(papers.right)
    if (E.isLeft(pages)) return { code: EXIT.accounting, stderr: formatError(pages.left) }
    // the pages may not overwrite a claims file or the --audit read, nor race another dpaudit
    const guard = guardOutputs(
      pages.right.map((p) => ({ what: '--write', path: join(values.write as string, p.name) })),
      [...(values.audit === undefined ? [] : [{ what: '--audit', path: values.audit }]), ...claimsFilePaths().map((path) => ({ what: 'the claims file', path }))],
    )
    if (E.isLeft(guard)) return { code: EXIT.input, stderr: `verify: ${guard.left}` }
    try {
      for (const p of pages.right) {
        const w = writeFileAtomic(join(values.write, p.name), p.text)
        if (E.isLeft(w)) return { code: EXIT.input, stderr: `--write: ${formatError(w.left)}` }
      }
    } finally {
      guard.right()
    }
    return { code: EXIT.ok, stdout: `wrote ${pages.right.map((p) => join(values.write as string, p.name)).join(', ')}` }
  }
  const which = claimsOf(papers.right, { ...(positionals[0] === undefined ? {} : { id: positionals[0] }), ...(values.paper === undefined ? {} : { paper: values.paper }), all: values.all })
  if (E.isLeft(which)) return { code: EXIT.input, stderr: which.left }
  let audit
  if (values.audit !== undefined) {
    const read = readBoundedText(values.audit, MAX_REPORT_INPUT_BYTES)
    if (E.isLeft(read)) return { code: EXIT.input, stderr: `--audit: ${read.left}` }
    const text = read.right
    const u = parseJson(text)
    if (E.isLeft(u)) return { code: EXIT.input, stderr: `--audit: ${values.audit}: ${u.left}` }
    const a = auditEvidence(values.audit, text, u.right)
    if (E.isLeft(a)) return { code: EXIT.input, stderr: `--audit: ${formatError(a.left)}` }
    audit = a.right
    // evidence is about the claim's subject, or it is no evidence: refused naming both
    const target = String((u.right as { target?: unknown }).target ?? '')
    const off = which.right.find(({ claim }) => !auditIsAbout(claimSubject(claim.id), a.right.mechanism, target))
    if (off !== undefined)
      return {
        code: EXIT.input,
        stderr: `--audit: ${values.audit} audits ${a.right.mechanism}${target !== '' && target !== a.right.mechanism ? ` (${target})` : ''}, not ${claimSubject(off.claim.id)}: it is no evidence about ${off.claim.id}; attach an audit of the claim's own mechanism (named after it, e.g. ${claimSubject(off.claim.id)}-….mjs)`,
      }
  }
  const verdicts: ClaimVerdict[] = []
  const texts: string[] = []
  for (const { paper, claim } of which.right) {
    const v = verifyOne(paper, claim)
    if (E.isLeft(v)) return { code: EXIT.accounting, stderr: `${claim.id}: ${formatError(v.left)}` }
    const verdict = audit === undefined ? v.right : withAudit(v.right, audit)
    verdicts.push(verdict)
    // where a claim stands is cited by the paper's title, not by the project's extraction file
    texts.push(verdictText(claim, nameOf(paper).short, verdict, table, (s) => wrap(s, 100, 2)))
  }
  if (values.json) return { code: EXIT.ok, stdout: stringifyJson({ schemaVersion: 1, tool: 'dpaudit verify', verdicts }, 1) }
  const summary = verdicts.length > 1 ? [`\n${verdicts.map((v) => `${v.claim.id}: ${VERDICT_WORDS[v.kind]}`).join('\n')}`] : []
  return { code: EXIT.ok, stdout: [texts.join(`\n\n${'═'.repeat(100)}\n\n`), ...summary].join('\n') }
}
