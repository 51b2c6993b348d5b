/**
 * The examples of the typedoc site compile: every ```ts block in a doc comment under src/ (and in
 * README.md and every docs/*.md page) that is a complete program — it
 * imports from dpaudit — is typechecked with the TypeScript compiler API against the sources ('dpaudit' and 'dpaudit/<sub>' mapped to
 * src/), under the project's strict options. Fragments (no import: a line of a larger program) are
 * listed but not compiled. One program for all examples keeps this to a few seconds.
 *
 * A docs/ example whose `console.log(…)` line ends in a comment quoting what it prints is also run
 * (against the sources), and every quoted piece (pieces separated by ", ") must be in its output:
 * the numbers the prose quotes beside an example are the ones it prints now.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it, vi } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

interface Example {
  readonly where: string
  readonly code: string
}

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : []
  })

/** ```ts blocks of doc comments: the comment's leading " * " removed. */
const fromSource = (file: string): Example[] => {
  const lines = readFileSync(file, 'utf8').split('\n')
  const out: Example[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\*\s*```ts\s*$/.test(lines[i] as string)) continue
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length && !/^\s*\*\s*```\s*$/.test(lines[j] as string); j++) body.push((lines[j] as string).replace(/^\s*\* ?/, ''))
    out.push({ where: `${relative(ROOT, file)}:${i + 1}`, code: body.join('\n') })
    i = j
  }
  return out
}

/** ```ts blocks of a Markdown file. */
const fromMarkdown = (file: string): Example[] => {
  const lines = readFileSync(file, 'utf8').split('\n')
  const out: Example[] = []
  for (let i = 0; i < lines.length; i++) {
    if ((lines[i] as string).trim() !== '```ts') continue
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length && (lines[j] as string).trim() !== '```'; j++) body.push(lines[j] as string)
    out.push({ where: `${relative(ROOT, file)}:${i + 1}`, code: body.join('\n') })
    i = j
  }
  return out
}

const isProgram = (e: Example): boolean => /^import .* from 'dpaudit(\/[a-z]+)?'/m.test(e.code)

/** Every docs/*.md page: its complete examples compile like the typedoc site's (none is left out). */
const CHECKED_DOCS = readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md'))

const all = [
  ...walk(join(ROOT, 'src')).flatMap(fromSource),
  ...fromMarkdown(join(ROOT, 'README.md')),
  // the typedoc site is src/ and README.md; of docs/, the pages whose examples are kept compiling
  ...CHECKED_DOCS.flatMap((n) => fromMarkdown(join(ROOT, 'docs', n))),
]
const programs = all.filter(isProgram)

const typecheck = (examples: ReadonlyArray<Example>): Map<string, string[]> => {
  const cfg = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })
  if (cfg === undefined) throw new Error('cannot read tsconfig.json')
  const options: ts.CompilerOptions = {
    ...cfg.options,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    paths: { dpaudit: ['./src/index.ts'], 'dpaudit/papers': ['./src/report/claims/index.ts'], 'dpaudit/*': ['./src/*/index.ts'] },
    pathsBasePath: ROOT,
  }
  const dir = join(ROOT, 'test', 'report', '__doc_examples__')
  const files = new Map(examples.map((e, i) => [join(dir, `example-${i}.ts`), e]))
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, lang, onError, create) => {
    const e = files.get(name)
    return e !== undefined ? ts.createSourceFile(name, `${e.code}\nexport {}\n`, lang) : getSourceFile(name, lang, onError, create)
  }
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => files.has(name) || fileExists(name)
  const program = ts.createProgram([...files.keys()], options, host)
  const out = new Map<string, string[]>()
  for (const [name, e] of files) {
    const sf = program.getSourceFile(name)
    const diags = sf === undefined ? [] : [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]
    if (diags.length > 0) out.set(e.where, diags.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')))
  }
  return out
}

/** What an example's comments say it prints: `console.log(…) // piece, piece`. */
const quotedOutput = (code: string): string[] =>
  code
    .split('\n')
    .filter((l) => l.includes('console.log('))
    .flatMap((l) => {
      const m = / \/\/ (.+)$/.exec(l)
      return m === null ? [] : (m[1] as string).split(', ')
    })

/** Runs one example against the sources ('dpaudit' and 'dpaudit/<sub>' mapped to src/) and returns what it logged. */
const runExample = async (e: Example): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-doc-example-'))
  const file = join(dir, 'example.ts')
  writeFileSync(file, e.code.replace(/from 'dpaudit(?:\/([a-z]+))?'/g, (_, sub: string | undefined) => `from '${join(ROOT, 'src', sub ?? '', 'index.js')}'`))
  const lines: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation((...xs: unknown[]) => {
    lines.push(xs.map(String).join(' '))
  })
  try {
    await import(file)
  } finally {
    log.mockRestore()
    rmSync(dir, { recursive: true, force: true })
  }
  return lines.join('\n')
}

const quoting = programs.filter((e) => e.where.startsWith('docs/') && quotedOutput(e.code).length > 0)

describe('doc examples', () => {
  it('finds the examples of the typedoc site and the docs', () => {
    expect(programs.length).toBeGreaterThanOrEqual(7)
    expect(programs.some((e) => e.where.startsWith('src/report/'))).toBe(true)
    // the pages once left out for fragments and `.right` reads are complete programs now
    for (const page of ['docs/auditing.md', 'docs/pld.md']) expect(programs.some((e) => e.where.startsWith(page))).toBe(true)
    // a ```ts block of docs/ is a whole program, never a fragment that would escape the check
    expect(all.filter((e) => e.where.startsWith('docs/') && !isProgram(e)).map((e) => e.where)).toEqual([])
  })

  it('the docs examples that quote their output are found (pld.md, auditing.md)', () => {
    expect(quoting.map((e) => e.where.split(':')[0])).toEqual(expect.arrayContaining(['docs/auditing.md', 'docs/pld.md']))
  })

  it.each(quoting.map((e) => [e.where, e] as const))('%s prints what its comments quote', async (_, e) => {
    const out = await runExample(e)
    for (const piece of quotedOutput(e.code)) expect(out, piece).toContain(piece)
  })

  it('every complete example typechecks against the sources', () => {
    const errors = typecheck(programs)
    expect([...errors.entries()].map(([where, msgs]) => `${where}: ${msgs.join(' | ')}`)).toEqual([])
  })
})
