/**
 * Claims as data: every file in claims/ decodes with the exported codec, ids are unique, every claim
 * names a check dpaudit has and points at lines inside its paper's extraction; bad files get one
 * message naming the path; `dpaudit verify` answers unknown ids and bad flags with exit 1.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAudit } from '../../src/cli/commands/audit.js'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { formatError } from '../../src/core/error.js'
import { CHECK_NAMES, ClaimsFile, decodeClaimsFile, findClaim, loadClaims } from '../../src/report/claims/codec.js'
import { VerifyOutput } from '../../src/report/claims/verdict.js'
import { runVerify } from '../../src/cli/commands/verify.js'
import { verifyOne } from '../../src/report/claims/verify.js'
import { SUB_LDA_TABLE3 } from '../../src/report/paper-claims.js'
import { dispatch } from '../../src/cli/command-table.js'
import { run } from '../../src/cli/run.js'

const PAPERS = '/work/shared/papers'
const dir = mkdtempSync(join(tmpdir(), 'dpaudit-verify-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const ROOT_CLAIMS = new URL('../../claims/', import.meta.url).pathname

const papers = (() => {
  const r = loadClaims()
  if (E.isLeft(r)) throw new Error(formatError(r.left))
  return r.right
})()

describe('claims/', () => {
  it('holds the seed papers’ claims the issue lists, each decodable by ClaimsFile', () => {
    expect(papers.map((p) => p.paper.id)).toEqual(['000', '001', '002', '004'])
    for (const p of papers) expect(E.isRight(ClaimsFile.decode(JSON.parse(JSON.stringify(p))))).toBe(true)
    const ids = papers.flatMap((p) => p.claims.map((c) => c.id))
    for (const id of ['sub-lda.table3', 'sub-lda.algorithm1', 'hdp-lda.theorem3', 'cdp-lda.noise-labels', 'lp-lda.theorem4', 'svi.eq5-6', 'svi.figure1', 'spectral.config1'])
      expect(ids).toContain(id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const p of papers) for (const c of p.claims) expect(CHECK_NAMES).toContain(c.check)
    // every paper has a utility claim (the spectral one's: Fig. 2 and Fig. 4)
    for (const p of papers) expect(p.claims.some((c) => c.kind === 'utility'), p.paper.id).toBe(true)
    for (const id of ['spectral.figure2', 'spectral.figure4']) expect(ids).toContain(id)
  })

  it.skipIf(!existsSync(PAPERS))('every reference lies inside its paper’s extraction', () => {
    for (const p of papers) {
      const lines = readFileSync(`${PAPERS}/${p.paper.file}`, 'utf8').split('\n').length
      for (const c of p.claims) for (const w of c.where) expect(w.lines[1], `${c.id}: ${w.what}`).toBeLessThanOrEqual(lines)
    }
  })

  it('SUB-LDA Table 3 in claims/ is the table src/report/paper-claims.ts exports (one source of the printed numbers)', () => {
    const c = papers[0]!.claims.find((x) => x.id === 'sub-lda.table3')!
    expect((c.parameters as { rows: unknown }).rows).toEqual(SUB_LDA_TABLE3.rows)
    expect((c.parameters as { alpha: number }).alpha).toBe(SUB_LDA_TABLE3.alpha)
  })

  it('refuses a bad claims file with one message naming the path and the value', () => {
    const good = JSON.parse(JSON.stringify(papers[0])) as { claims: Array<Record<string, unknown>> }
    const bad = (patch: (x: typeof good) => void): string => {
      const x = JSON.parse(JSON.stringify(good)) as typeof good
      patch(x)
      const r = decodeClaimsFile(x)
      return E.isLeft(r) ? formatError(r.left) : 'decoded'
    }
    expect(bad((x) => (x.claims[0]!['check'] = 'guess'))).toMatch(/\$\.claims\[0\]\.check.*"guess"/)
    expect(bad((x) => (x.claims[1]!['id'] = x.claims[0]!['id']))).toMatch(/duplicate claim id/)
    expect(bad((x) => ((x.claims[0]!['where'] as Array<{ lines: number[] }>)[0]!.lines = [9, 3]))).toMatch(/\$\.claims\[0\]\.where\[0\]\.lines/)
    expect(bad((x) => delete x.claims[0]!['quote'])).toMatch(/\$\.claims\[0\]\.quote: missing/)
  })

  it('findClaim names the known ids for an unknown one', () => {
    const r = findClaim(papers, 'no-such.claim')
    expect(E.isLeft(r) && formatError(r.left)).toMatch(/unknown claim; known: sub-lda\.table3/)
  })
})

describe('dpaudit verify', () => {
  it('--list prints every claim id; bad usage and unknown ids exit 1 with one line', () => {
    const list = runVerify(['--list'])
    expect(list.code).toBe(0)
    expect(list.stdout?.split('\n')).toHaveLength(papers.flatMap((p) => p.claims).length)
    expect(runVerify(['nope']).code).toBe(1)
    expect(runVerify(['nope']).stderr).toMatch(/unknown claim/)
    expect(runVerify([]).code).toBe(1)
    expect(runVerify(['--paper', '999']).stderr).toMatch(/unknown paper "999"/)
    expect(runVerify(['lp-lda.theorem4', '--audit', '/nonexistent.json']).stderr).toMatch(/^--audit: \/nonexistent\.json: cannot read the file \(no such file\)$/)
  })

  it('--json decodes with VerifyOutput and states the assumptions; --audit attaches an audit result', () => {
    const r = runVerify(['lp-lda.theorem4', '--json'])
    expect(r.code).toBe(0)
    const d = VerifyOutput.decode(JSON.parse(r.stdout ?? ''))
    expect(E.isRight(d)).toBe(true)
    if (E.isLeft(d)) return
    const v = d.right.verdicts[0]!
    expect(v.kind).toBe('holds-under-reading')
    // 2ε_b under replace-one word, computed by the accountant: 2 ln 3 at f = 0.5
    expect(v.evidence[0]!.rows[1]![2]).toBeCloseTo(2 * Math.log(3), 5)
    expect(v.assumptions.relation).toMatch(/one presence bit/)
  })

  it('--audit attaches an audit result: its ε lower bound, confidence and verdict against the claim it tested', () => {
    const zoo = join(dir, 'laplace.audit.json')
    const a = runAudit({ target: 'zoo:laplace', workers: '1', trials: '20000', seed: 'verify', out: zoo })
    expect([0, 4]).toContain(a.code)
    // an audit of a zoo mechanism is no evidence about LP-LDA: refused, naming both (issue 29)
    const unrelated = runVerify(['lp-lda.theorem4', '--audit', zoo])
    expect(unrelated.code).toBe(1)
    expect(unrelated.stderr).toMatch(/^--audit: .*laplace\.audit\.json audits laplace \(zoo:laplace\), not lp-lda: it is no evidence about lp-lda\.theorem4/)
    // the same numbers as the audit of a module named after the claim's mechanism are evidence
    const out = join(dir, 'lp-lda-flip.audit.json')
    const doc = JSON.parse(readFileSync(zoo, 'utf8')) as { target: string; result: { mechanism: string } }
    writeFileSync(out, JSON.stringify({ ...doc, target: 'lp-lda-flip.mjs', result: { ...doc.result, mechanism: 'lp-lda-flip' } }))
    const r = runVerify(['lp-lda.theorem4', '--audit', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const d = VerifyOutput.decode(JSON.parse(r.stdout ?? ''))
    if (E.isLeft(d)) throw new Error('does not decode')
    const v = d.right.verdicts[0]!
    const audit = JSON.parse(readFileSync(out, 'utf8')) as { result: { epsilonLowerBound: number; verdict: string } }
    expect(v.audit?.epsilonLowerBound).toBe(audit.result.epsilonLowerBound)
    expect(v.audit?.verdict).toBe(audit.result.verdict)
    expect(v.audit?.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(v.notes.at(-1)).toMatch(/ε lower bound .* at 0\.95 confidence against the claimed ε = 1/)
    // a file that is not an audit result is refused, naming the path
    expect(runVerify(['lp-lda.theorem4', '--audit', join(ROOT_CLAIMS, '000-sub-lda.json')]).stderr).toMatch(/--audit: .*000-sub-lda\.json:\$/)
  })

  it('is registered with the executable: verify and report dispatch as commands, with help', async () => {
    const v = await dispatch(['verify', '--list'])
    expect(v?.code).toBe(0)
    expect((await dispatch(['verify', '--help']))?.stdout).toMatch(/^usage: dpaudit verify/)
    expect((await dispatch(['report', '--help']))?.stdout).toMatch(/^usage: dpaudit report/)
    expect(run(['help', 'verify']).stdout).toMatch(/^usage: dpaudit verify/)
    expect(run(['help']).stdout).toMatch(/dpaudit report <input\.json> --out DIR/)
  })
})

describe('the spectral utility claims (paper 004 Fig. 2 and Fig. 4) read the measured files', () => {
  const spectral = papers.find((p) => p.paper.id === '004')!
  const claim = (id: string) => spectral.claims.find((c) => c.id === id)!
  const measured = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')) as Record<string, any>
  /** A repository root in the temporary folder holding the given example files. */
  const rootWith = (files: Record<string, unknown>): string => {
    const root = mkdtempSync(join(dir, 'root-'))
    mkdirSync(join(root, 'examples'))
    for (const [name, value] of Object.entries(files)) writeFileSync(join(root, 'examples', name), JSON.stringify(value))
    return root
  }

  it('--json decodes with VerifyOutput; the table is the data file’s numbers, rounded', () => {
    const r = runVerify(['spectral.figure2', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const d = VerifyOutput.decode(JSON.parse(r.stdout ?? ''))
    if (E.isLeft(d)) throw new Error('does not decode')
    const v = d.right.verdicts[0]!
    const rows = measured('spectral-figures.json')['synthetic']['figure2'] as Array<{ configuration: string; targetEpsilon: number; error?: number; released: boolean }>
    const t = v.evidence[0]!
    for (const row of t.rows)
      for (const c of ['1', '2', '3', '4']) {
        const m = rows.find((x) => x.configuration === c && x.targetEpsilon === row[0])!
        const cell = row[t.columns.indexOf(`config ${c}`)]
        if (m.released) expect(cell as number).toBeCloseTo(m.error!, 3)
        else expect(cell).toMatch(/^no model/)
      }
  })

  it('the verdict follows the data: a configuration 3 below both others, or configuration 1 best at small ε, is not the paper’s ordering', () => {
    const figures = measured('spectral-figures.json')
    const a10 = measured('spectral-figures-a10.json')
    const kind = (patch: (rows: Array<Record<string, unknown>>) => void): string => {
      const f = JSON.parse(JSON.stringify(figures)) as typeof figures
      patch(f['synthetic']['figure2'])
      const v = verifyOne(spectral.paper, claim('spectral.figure2'), rootWith({ 'spectral-figures.json': f, 'spectral-figures-a10.json': a10, 'spectral-calibrations.json': measured('spectral-calibrations.json') }))
      if (E.isLeft(v)) throw new Error(formatError(v.left))
      return v.right.kind
    }
    expect(kind(() => undefined)).toBe('holds-under-reading') // the measured file: config 3 below config 2 at some ε
    const at = (rows: Array<Record<string, unknown>>, c: string, e: number) => rows.find((r) => r['configuration'] === c && r['targetEpsilon'] === e)!
    expect(kind((rows) => (at(rows, '3', 1000)['error'] = 0.01))).toBe('not-reproduced')
    expect(kind((rows) => (at(rows, '1', 10)['error'] = 0.5))).toBe('not-reproduced')
    expect(
      kind((rows) => {
        for (const r of rows) if (r['configuration'] === '3' && typeof r['error'] === 'number') r['error'] = 2
      }),
    ).toBe('holds')
  })

  it('Fig. 4: configuration 1 below private SVI at every J and every ε, with configurations 2–4 releasing, would reproduce it', () => {
    const comparison = measured('spectral-brown-comparison.json')
    const figures = measured('spectral-figures.json')
    const v0 = verifyOne(spectral.paper, claim('spectral.figure4'), rootWith({ 'spectral-brown-comparison.json': comparison, 'spectral-figures.json': figures }))
    expect(E.isRight(v0) && v0.right.kind).toBe('not-reproduced')
    const better = JSON.parse(JSON.stringify(comparison)) as typeof comparison
    for (const r of better['rows']) r['spectral']['medianPerplexity'] = 100
    const releasing = JSON.parse(JSON.stringify(figures)) as typeof figures
    for (const r of releasing['brown']['rows']) Object.assign(r, { released: true, perplexity: 500 })
    const v1 = verifyOne(spectral.paper, claim('spectral.figure4'), rootWith({ 'spectral-brown-comparison.json': better, 'spectral-figures.json': releasing }))
    expect(E.isRight(v1) && v1.right.kind).toBe('holds')
  })

  it('a missing or malformed data file is one message naming the claim parameter or the JSON path', () => {
    const missing = verifyOne(spectral.paper, claim('spectral.figure4'), rootWith({}))
    expect(E.isLeft(missing) && formatError(missing.left)).toMatch(/spectral\.figure4\.parameters\.data.*cannot read the measured data \(run examples\/spectral-brown-comparison\.mjs/)
    const bad = measured('spectral-figures.json')
    bad['synthetic']['figure2'][0]['targetEpsilon'] = 'ten'
    const r = verifyOne(spectral.paper, claim('spectral.figure2'), rootWith({ 'spectral-figures.json': bad, 'spectral-figures-a10.json': measured('spectral-figures-a10.json') }))
    expect(E.isLeft(r) && formatError(r.left)).toMatch(/examples\/spectral-figures\.json:\$\.synthetic\.figure2\[0\]\.targetEpsilon.*"ten"/)
    const noA10 = verifyOne(spectral.paper, claim('spectral.figure2'), rootWith({ 'spectral-figures.json': measured('spectral-figures.json') }))
    expect(E.isLeft(noA10) && formatError(noA10.left)).toMatch(/spectral\.figure2\.parameters\.alpha0Data/)
  })
})
