/**
 * The docs, the README, the examples and `dpaudit verify` cite papers by title and sources a user
 * can find — never the file numbers of the project's paper folder ("paper 001"), its extraction
 * files, or design notes a user does not have (LDA-EVAL.md, design/AUDITING.md, ../shared/…)
 * (issue 11, "Docs that disagree with the code"). The trainers' descriptions and printed statements
 * are checked in test/trainers/paper-names.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { runVerify } from '../src/cli/commands/verify.js'
import { loadClaims } from '../src/report/claims/codec.js'
import { PAPER_NAMES } from '../src/trainers/papers.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** A citation a user cannot follow: a paper-folder number, an extraction file, an internal design note. */
const INTERNAL = /\b[Pp]apers? 00\d|\b00\d_[0-9a-f]{16}\.txt|LDA-EVAL|AUDITING\.md|\.\.\/shared\/|\bdesign\/[A-Z]/g

/**
 * The one exception: the claims data keeps, as provenance, the name of the plain-text extraction each
 * line reference points into (test/report/claims.test.ts checks the references against it); what a
 * user reads (docs/claims/, `dpaudit verify`) names the paper by its title. An entry ending in `/`
 * covers everything under that folder.
 */
const PROVENANCE: ReadonlyArray<string> = ['claims/']

const allowed = (path: string): boolean => PROVENANCE.some((a) => (a.endsWith('/') ? path.startsWith(a) : path === a))

const filesUnder = (dir: string, keep: (name: string) => boolean): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), keep) : keep(e.name) ? [join(dir, e.name)] : [],
  )

/** The internal citations in a text, each with its line. */
const internalCitations = (text: string): string[] =>
  text.split('\n').flatMap((line, i) => [...line.matchAll(INTERNAL)].map((m) => `l. ${i + 1}: …${line.slice(Math.max(0, (m.index ?? 0) - 30), (m.index ?? 0) + 40)}…`))

const userFacing = ['README.md', ...filesUnder('docs', (n) => n.endsWith('.md')), ...filesUnder('examples', (n) => /\.(mjs|json)$/.test(n))]

describe('docs, README and examples cite what a user can find', () => {
  it('the allow-list names files that exist', () => {
    for (const a of PROVENANCE) expect(existsSync(join(ROOT, a)), a).toBe(true)
  })

  it.each(userFacing.filter((f) => !allowed(f)))('%s names no paper by file number and no internal note', (file) => {
    expect(internalCitations(readFileSync(join(ROOT, file), 'utf8'))).toEqual([])
  })

  it.each(['README.md', ...filesUnder('docs', (n) => n.endsWith('.md')).filter((f) => !allowed(f))])('%s: its relative links point at files in the package', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8')
    const missing = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((m) => m[1] ?? '')
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => !existsSync(join(ROOT, dirname(file), target)))
    expect(missing).toEqual([])
  })
})

const normalise = (s: string): string => s.replace(/\\/g, '').replace(/[’‘]/g, "'").replace(/\s+/g, ' ')

/** The allow-listed sources verify's texts are built from, normalised for a verbatim search. */
const allowedSources = ['claims', 'src/report/claims']
  .flatMap((d) => filesUnder(d, (n) => /\.(json|ts)$/.test(n)))
  .filter(allowed)
  .map((f) => normalise(readFileSync(join(ROOT, f), 'utf8')))

/**
 * The internal citations in verify's text that do not come verbatim from an allow-listed source: with
 * the words just before or just after them (a sentence assembled in code keeps one side verbatim).
 * Every other one is verify's own doing.
 */
const notFromAllowListed = (text: string): string[] => {
  const s = normalise(text)
  return [...s.matchAll(INTERNAL)]
    .map((m) => {
      const at = m.index ?? 0
      return [s.slice(Math.max(0, at - 12), at + m[0].length), s.slice(at, at + m[0].length + 12)]
    })
    .filter((sides) => !sides.some((fragment) => allowedSources.some((src) => src.includes(fragment))))
    .map((sides) => sides.join(' | '))
}

const papers = loadClaims()
const claimFiles = E.isRight(papers) ? papers.right : []

describe('dpaudit verify names papers by title', () => {
  it('the claims load', () => expect(E.isRight(papers)).toBe(true))

  it('--help lists each paper by its title and the key --paper takes; --list cites no file number', () => {
    const help = runVerify(['--help'])
    expect(help.code).toBe(0)
    for (const p of PAPER_NAMES) expect(help.stdout).toMatch(new RegExp(`^    ${p.key} +${p.title.slice(0, 20).replace(/[()]/g, '\\$&')}`, 'm'))
    expect(internalCitations(help.stdout ?? '')).toEqual([])
    const list = runVerify(['--list'])
    expect(list.code).toBe(0)
    expect(internalCitations(list.stdout ?? '')).toEqual([])
    // one line per claim: id, the key of its paper, …, and the paper's short title at the end
    for (const f of claimFiles) {
      const name = PAPER_NAMES.find((p) => p.file === f.paper.id)
      expect(name, `claims file of paper ${f.paper.id} has a name in src/trainers/papers.ts`).toBeDefined()
      for (const c of f.claims) expect(list.stdout).toContain(`${c.id.padEnd(22)} ${name?.key.padEnd(12)} ${c.kind.padEnd(8)} ${c.title} — ${name?.short}`)
    }
  })

  it('--paper takes the title-derived key, a claim id prefix, or the old file number, case-insensitively; an unknown name lists the keys', () => {
    const ids = (args: string[]): string[] => {
      const r = runVerify([...args, '--json'])
      expect(r.code, r.stderr).toBe(0)
      return (JSON.parse(r.stdout ?? '') as { verdicts: Array<{ claim: { id: string } }> }).verdicts.map((v) => v.claim.id)
    }
    const sub = ids(['--paper', 'sub-lda'])
    expect(sub).toEqual(claimFiles.find((f) => f.paper.id === '000')?.claims.map((c) => c.id))
    expect(ids(['--paper', '000'])).toEqual(sub)
    expect(ids(['--paper', 'SUB-LDA'])).toEqual(sub)
    const lda = ids(['--paper', 'hdp-lda'])
    expect(lda).toEqual(claimFiles.find((f) => f.paper.id === '001')?.claims.map((c) => c.id))
    expect(ids(['--paper', 'lp-lda'])).toEqual(lda)
    expect(ids(['--paper', '001'])).toEqual(lda)
    // every claim id's prefix names its own paper
    for (const f of claimFiles)
      for (const c of f.claims) {
        const prefix = c.id.split('.')[0] ?? ''
        const p = PAPER_NAMES.find((n) => n.key === prefix || n.aliases.includes(prefix))
        expect(p?.file, c.id).toBe(f.paper.id)
      }
    const bad = runVerify(['--paper', 'nope'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe(`--paper: unknown paper "nope" (one of ${PAPER_NAMES.map((p) => p.key).join(', ')})`)
  })

  it.each(claimFiles.flatMap((f) => f.claims.map((c) => c.id)))('verify %s: cites the paper by title; no internal name comes from verify itself', (id) => {
    const r = runVerify([id])
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`
    expect(out).not.toMatch(/\b00\d_[0-9a-f]{16}\.txt/)
    // the "where:" paragraph (wrapped) cites the paper's short title
    const where = normalise(out.split('\n\n')[0] ?? '')
    if (r.code === 0) expect(where).toMatch(/^\S+ — .* where: /)
    if (r.code === 0) expect(PAPER_NAMES.some((p) => where.includes(`(${p.short}, l. `)), where).toBe(true)
    expect(notFromAllowListed(out)).toEqual([])
  })
})

describe('src/ cites what a user can find (its doc comments are the API site, its strings the CLI output)', () => {
  it('no other source file names a paper by file number, an extraction file or an internal note', () => {
    const hits = filesUnder('src', (n) => n.endsWith('.ts'))
      .flatMap((f) => internalCitations(readFileSync(join(ROOT, f), 'utf8')).map((c) => `${f} ${c}`))
    expect(hits).toEqual([])
  })
})
