/**
 * Verdicts as Markdown and as terminal text: one section per claim (the quote and where it stands,
 * the verdict in words, its assumptions, the evidence tables, how the numbers were computed), and
 * one page per paper for docs/claims/. The output depends only on the claims and the computed
 * numbers — no dates, versions or timings — so the committed pages can be checked for being current.
 *
 * @module
 */
import { showNumber } from '../format.js'
import { PAPER_NAMES } from '../../trainers/papers.js'
import type { ClaimsFile, PaperClaim } from './codec.js'
import { type Cell, type EvidenceTable, type ClaimVerdict, VERDICT_WORDS } from './verdict.js'

const showCell = (c: Cell): string => (typeof c === 'number' ? (Number.isInteger(c) && Math.abs(c) < 1e9 ? String(c) : Number.isFinite(c) ? String(c) : showNumber(c)) : c)
const esc = (s: string): string => s.replace(/\|/g, '\\|')

/** A Markdown table. */
export const markdownTable = (t: EvidenceTable): string =>
  [`*${t.title}*`, '', `| ${t.columns.map(esc).join(' | ')} |`, `|${t.columns.map(() => '---').join('|')}|`, ...t.rows.map((r) => `| ${r.map((c) => esc(showCell(c))).join(' | ')} |`)].join('\n')

const where = (c: PaperClaim, file: string): string => c.where.map((w) => `${w.what} (${file}, l. ${w.lines[0]}–${w.lines[1]}${w.page === undefined ? '' : `, p. ${w.page}`})`).join('; ')

/** One claim and its verdict as a Markdown section (level-2 heading). */
export const verdictMarkdown = (claim: PaperClaim, file: string, v: ClaimVerdict): string =>
  [
    `## \`${claim.id}\` — ${claim.title}`,
    '',
    `> ${claim.quote}`,
    '',
    `Where: ${where(claim, file)}.`,
    '',
    `**Verdict: ${VERDICT_WORDS[v.kind]}.** ${v.statement}`,
    ...(v.understatedBy === undefined ? [] : ['', `Understated by: ${v.understatedBy}.`]),
    '',
    'Assumptions:',
    '',
    `- relation: ${v.assumptions.relation}`,
    `- sampling: ${v.assumptions.sampling}`,
    `- reading: ${v.assumptions.reading}`,
    ...v.assumptions.other.map((o) => `- ${o}`),
    ...v.evidence.flatMap((t) => ['', markdownTable(t)]),
    ...(v.notes.length === 0 ? [] : ['', 'How the numbers were computed:', '', ...v.notes.map((n) => `- ${n}`)]),
  ].join('\n')

/** docs/claims/<paper>.md: every claim of one paper with its verdict. */
export const paperMarkdown = (file: ClaimsFile, verdicts: ReadonlyArray<ClaimVerdict>): string => {
  // the published title and short name (src/trainers/papers.ts); the claims file's own as a fallback
  const name = PAPER_NAMES.find((p) => p.file === file.paper.id) ?? { title: file.paper.title, short: file.paper.short }
  const capital = (x: string): string => x.charAt(0).toUpperCase() + x.slice(1)
  return [
    `# ${capital(name.short)}: claims and verdicts`,
    '',
    `${capital(name.title)}. Each claim names its section, table or equation; the line numbers beside them (l. N–M) are those of the plain-text reading of the paper the claims were taken from, which has no page numbers.`,
    '',
    `Generated from \`claims/${file.paper.id}-*.json\` by \`node examples/paper-claims.mjs\` (or \`dpaudit verify --all --write docs/claims\`); every number is computed by dpaudit's accountants or read from the measured example outputs. Do not edit by hand: \`test/report/claims-docs.test.ts\` checks that this page is current.`,
    '',
    '| claim | kind | verdict |',
    '|---|---|---|',
    ...file.claims.map((c, i) => `| \`${c.id}\` | ${c.kind} | ${VERDICT_WORDS[verdicts[i]?.kind ?? 'unknown']} |`),
    '',
    ...file.claims.flatMap((c, i) => {
      const v = verdicts[i]
      return v === undefined ? [] : [verdictMarkdown(c, name.short, v), '']
    }),
  ].join('\n')
}

/** The file name of a paper's page in docs/claims/. */
export const paperPageName = (file: ClaimsFile): string => `${file.paper.id}-${file.paper.short.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}.md`

/** The index page docs/claims/README.md. */
export const claimsIndexMarkdown = (files: ReadonlyArray<ClaimsFile>, verdicts: ReadonlyArray<ReadonlyArray<ClaimVerdict>>): string =>
  [
    '# Verdicts on the seed papers’ claims',
    '',
    'One page per paper, generated from the claims data in `claims/` (see docs/claims.md for how to read and regenerate them).',
    '',
    '| paper | claim | kind | verdict |',
    '|---|---|---|---|',
    ...files.flatMap((f, i) => f.claims.map((c, j) => `| [${f.paper.id} ${f.paper.short}](${paperPageName(f)}) | \`${c.id}\` | ${c.kind} | ${VERDICT_WORDS[verdicts[i]?.[j]?.kind ?? 'unknown']} |`)),
    '',
  ].join('\n')

/** A verdict for the terminal: the verdict line, the statement, the assumptions, the tables as text. */
export const verdictText = (claim: PaperClaim, file: string, v: ClaimVerdict, table: (h: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string, wrap: (s: string) => string): string =>
  [
    `${claim.id} — ${claim.title}`,
    wrap(`where: ${where(claim, file)}`),
    '',
    wrap(`VERDICT: ${VERDICT_WORDS[v.kind].toUpperCase()}. ${v.statement}`),
    ...(v.understatedBy === undefined ? [] : [wrap(`understated by: ${v.understatedBy}`)]),
    '',
    wrap(`relation: ${v.assumptions.relation}`),
    wrap(`sampling: ${v.assumptions.sampling}`),
    wrap(`reading: ${v.assumptions.reading}`),
    ...v.assumptions.other.map((o) => wrap(`assumes: ${o}`)),
    ...v.evidence.flatMap((t) => ['', t.title, table(t.columns, t.rows.map((r) => r.map(showCell)))]),
    ...(v.notes.length === 0 ? [] : ['', ...v.notes.map((n) => wrap(`· ${n}`))]),
  ].join('\n')
