/**
 * dpaudit report: the canonical JSON decodes with ReportJson; the HTML is self-contained (inline
 * SVG with marks, no script that runs, no external resource); Markdown references charts that
 * exist; ε in the statement is the accountant's; seeds appear only for runs labelled not private;
 * bad inputs get one message naming the file and the path, before anything is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { runReport } from '../../src/cli/commands/report.js'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { parseJson } from '../../src/core/json.js'
import { ReportJson } from '../../src/report/audit/document.js'
import { curves, ledger } from '../../src/report/audit/build.js'
import { compose, gaussian, labeled, nonPrivate, selfCompose } from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { type ReportFixture, writeReportFixture } from './fixture.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let fx: ReportFixture
beforeAll(() => {
  fx = writeReportFixture(join(dir, 'in'))
}, 60_000)

const decode = (file: string): ReportJson => {
  const u = parseJson(readFileSync(file, 'utf8'))
  if (E.isLeft(u)) throw new Error(u.left)
  const d = ReportJson.decode(u.right)
  if (E.isLeft(d)) throw new Error('report.json does not decode with ReportJson')
  return d.right
}

describe('dpaudit report <manifest>', () => {
  let out: string
  let report: ReportJson
  beforeAll(async () => {
    out = join(dir, 'out')
    const r = await runReport([fx.manifest, '--out', out])
    expect(r.code, r.stderr).toBe(0)
    report = decode(join(out, 'report.json'))
  }, 60_000)

  it('writes the canonical JSON, Markdown, a self-contained HTML page and the charts', () => {
    expect(report.schemaVersion).toBe(1)
    expect(report.kind).toBe('dpaudit-report')
    const html = readFileSync(join(out, 'report.html'), 'utf8')
    // every chart inline, with marks drawn
    const figures = html.match(/<figure class="chart"[\s\S]*?<\/figure>/g) ?? []
    expect(figures.length).toBeGreaterThanOrEqual(6)
    for (const f of figures) {
      expect(f).toMatch(/<svg /)
      expect(f).toMatch(/class="mark-(line|symbol|rect)/)
    }
    // nothing fetched, nothing executed: no src/href to a resource, only the inert JSON block
    expect(html).not.toMatch(/\ssrc=/)
    expect(html).not.toMatch(/href="(https?:|\/\/)/)
    expect(html.match(/<script/g)).toHaveLength(1)
    expect(html).toMatch(/<script type="application\/json" id="dpaudit-report">/)
    const md = readFileSync(join(out, 'report.md'), 'utf8')
    for (const [, file] of md.matchAll(/\]\((charts\/[^)]+\.svg)\)/g)) expect(existsSync(join(out, file as string)), file).toBe(true)
    for (const section of ['Privacy statement', 'Mechanism ledger', 'Privacy curves', 'Empirical audit', 'Utility', 'Reproducibility']) expect(md).toContain(`## ${section}`)
  })

  it('states ε at several δ as the accountants compute it on the plan', () => {
    const p = report.privacy!
    expect(p.protects).toBe('replace-one one word')
    expect(p.epsilonAtDelta.map((x) => x.delta)).toEqual([1e-3, 1e-5, 1e-7, 1e-9])
    const model = JSON.parse(readFileSync(fx.models[0]!, 'utf8')) as { privacy: { plan: unknown } }
    const again = account({ schemaVersion: 1, relation: { kind: 'replace-one', unit: 'word' }, event: model.privacy.plan as never }, { deltas: [1e-5] })
    expect(E.isRight(again) && again.right.tightest[0]?.epsilon).toBe(p.epsilonAtDelta[1]?.epsilon)
    expect(p.assumptions.length).toBeGreaterThan(0)
    expect(report.curves?.byIteration.ok).toBe(true)
    expect(report.utility?.rows).toHaveLength(2)
    expect(report.claims?.[0]?.claim.id).toBe('lp-lda.theorem4')
  })

  it('shows the audit with its ROC, bound, ceiling and verdict in plain words', () => {
    const a = report.audit!
    expect(a.verdict).toMatch(/consistent|inconclusive/)
    expect(a.roc?.points.length).toBeGreaterThan(1)
    expect(a.roc!.points.length).toBeLessThanOrEqual(401)
    expect(a.epsilonLowerBound).toBeLessThanOrEqual(a.ceiling)
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/The audit (is consistent with|is inconclusive for) the claim/)
  })

  it('records versions and input hashes; a seed only for runs labelled not private', () => {
    const rep = report.reproducibility
    expect(rep.versions.vega).toMatch(/^\d+\.\d+/)
    expect(rep.inputs.map((i) => i.role).sort()).toEqual(['audit', 'manifest', 'model', 'model'])
    for (const i of rep.inputs) expect(i.sha256).toMatch(/^[0-9a-f]{64}$/)
    const models = rep.runs.filter((r) => r.input.endsWith('.json') && !r.input.endsWith('.audit.json'))
    for (const m of models) {
      expect(m.private).toBe(true)
      expect(m.seed).toBeUndefined()
    }
    const audit = rep.runs.find((r) => r.input.endsWith('.audit.json'))!
    expect(audit.private).toBe(false)
    expect(audit.seed).toBe('report-fixture')
    expect(audit.trials).toBeGreaterThan(0)
  })

  it('reproducibility: the audit’s wall time and trials as its file records them; a private run’s iterations but never its timing', () => {
    const rep = report.reproducibility
    const file = JSON.parse(readFileSync(fx.audit, 'utf8')) as { timing: { elapsedMs: number }; result: { trials: { spent: number } } }
    const audit = rep.runs.find((r) => r.input.endsWith('.audit.json'))!
    expect(audit.elapsedMs).toBe(file.timing.elapsedMs)
    expect(audit.trials).toBe(file.result.trials.spent)
    for (const m of rep.runs.filter((r) => r.private)) {
      expect(m.iterations).toBe(4) // the fixture's --iterations
      expect(m.elapsedMs).toBeUndefined() // a timing side channel: never in a private release's report
    }
    const md = readFileSync(join(out, 'report.md'), 'utf8')
    expect(md).toMatch(/\| withheld \(private release\) \| 4 iterations \|/)
    expect(md).toMatch(new RegExp(`\\| ${file.result.trials.spent} trials \\|`))
  })
})

describe('dpaudit report: timing of training runs', () => {
  const train = (name: string, extra: ReadonlyArray<string>): string => {
    const out = join(dir, name)
    const r = runTrainCli(['hdp-lda', '--corpus', join(fx.dir, 'uci'), '--topics', '2', '--iterations', '3', '--epsilon-l', '1', '--clip', '2', '--beta', '1', '--out', out, '--quiet', ...extra])
    expect(r.code, r.stderr).toBe(0)
    return out
  }

  it('a seeded run (not a private release) carries its per-iteration wall time; the report shows the run’s total, not a sum of running totals', async () => {
    const model = train('seeded.json', ['--seed', 'timing'])
    const f = JSON.parse(readFileSync(model, 'utf8')) as { release: { private: boolean }; trace?: Array<{ iteration: number; elapsedMs: number }> }
    expect(f.release.private).toBe(false)
    expect(f.trace?.map((x) => x.iteration)).toEqual([1, 2, 3])
    // the trace is cumulative
    for (let i = 1; i < f.trace!.length; i++) expect(f.trace![i]!.elapsedMs).toBeGreaterThanOrEqual(f.trace![i - 1]!.elapsedMs)
    const out = join(dir, 'seeded-out')
    const r = await runReport([model, '--out', out])
    expect(r.code, r.stderr).toBe(0)
    const run = decode(join(out, 'report.json')).reproducibility.runs[0]!
    expect(run.private).toBe(false)
    expect(run.iterations).toBe(3)
    expect(run.elapsedMs).toBe(f.trace!.at(-1)!.elapsedMs)
  })

  it('a private run’s model file has no trace; a private file that carries one (hand-made) still gets no time in the report', async () => {
    const model = train('private.json', [])
    const f = JSON.parse(readFileSync(model, 'utf8')) as Record<string, unknown> & { release: { private: boolean } }
    expect(f.release.private).toBe(true)
    expect(f['trace']).toBeUndefined()
    const forged = join(dir, 'private-with-trace.json')
    writeFileSync(forged, JSON.stringify({ ...f, trace: [{ iteration: 1, logLikelihood: 'NaN', elapsedMs: 12.5, tokensPerSecond: 1000 }] }))
    const out = join(dir, 'private-out')
    const r = await runReport([forged, '--out', out])
    expect(r.code, r.stderr).toBe(0)
    const run = decode(join(out, 'report.json')).reproducibility.runs[0]!
    expect(run.private).toBe(true)
    expect(run.elapsedMs).toBeUndefined()
    expect(readFileSync(join(out, 'report.md'), 'utf8')).not.toMatch(/12\.5|13 ms/)
  })
})

describe('dpaudit report: other inputs and bad ones', () => {
  it('a spec alone gives statement, ledger and curves (no audit, no utility)', async () => {
    const out = join(dir, 'spec-out')
    const r = await runReport([fx.spec, '--out', out, '--delta', '1e-5', '--delta', '1e-6'])
    expect(r.code, r.stderr).toBe(0)
    const rep = decode(join(out, 'report.json'))
    expect(rep.privacy?.epsilonAtDelta.map((x) => x.delta)).toEqual([1e-5, 1e-6])
    expect(rep.audit).toBeUndefined()
    expect(rep.curves?.rdp.ok).toBe(true)
  })

  it('a manifest with only claims gives a report of those verdicts', async () => {
    const man = join(dir, 'claims-manifest.json')
    writeFileSync(man, JSON.stringify({ kind: 'dpaudit-report-input', schemaVersion: 1, claims: ['lp-lda.theorem4'] }))
    const out = join(dir, 'claims-out')
    const r = await runReport([man, '--out', out])
    expect(r.code, r.stderr).toBe(0)
    const rep = decode(join(out, 'report.json'))
    expect(rep.title).toBe('Verdicts: lp-lda.theorem4')
    expect(rep.claims?.[0]?.kind).toBe('holds-under-reading')
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/## Claim lp-lda\.theorem4/)
    const none = join(dir, 'empty-manifest.json')
    writeFileSync(none, JSON.stringify({ kind: 'dpaudit-report-input', schemaVersion: 1 }))
    expect((await runReport([none, '--out', join(dir, 'o4')])).stderr).toMatch(/names no input/)
  })

  it('refuses unknown JSON, a missing manifest entry and an --out that is a file, naming what is wrong', async () => {
    const junk = join(dir, 'junk.json')
    writeFileSync(junk, '{"hello": 1}')
    const a = await runReport([junk, '--out', join(dir, 'o1')])
    expect(a.code).toBe(1)
    expect(a.stderr).toMatch(/junk\.json:\$: not a report input/)
    const man = join(dir, 'bad-manifest.json')
    writeFileSync(man, JSON.stringify({ kind: 'dpaudit-report-input', schemaVersion: 1, models: ['nope.json'] }))
    const b = await runReport([man, '--out', join(dir, 'o2')])
    expect(b.code).toBe(1)
    expect(b.stderr).toMatch(/nope\.json.*no such file/)
    const c = await runReport([fx.spec, '--out', junk])
    expect(c.code).toBe(1)
    expect(c.stderr).toMatch(/exists and is not a folder/)
    expect((await runReport([fx.spec])).stderr).toMatch(/^usage: dpaudit report/)
    expect((await runReport([fx.spec, '--out', join(dir, 'o3'), '--delta', '2'])).stderr).toMatch(/--delta: expected a number in \(0, 1\)/)
  })

  it('the ledger folds labels into their events, multiplies repeats and hashes the canonical plan', () => {
    const e = selfCompose(compose([labeled('noise', gaussian(1, 1, addRemove())), selfCompose(gaussian(2, 1, addRemove()), 3)]), 5)
    const l = ledger(e)
    expect(l.events).toBe(5)
    expect(l.rows.map((r) => [r.tag, r.label, r.repeats])).toEqual([
      ['SelfCompose', '', 1],
      ['Compose', '', 5],
      ['Gaussian', 'noise', 5],
      ['SelfCompose', '', 5],
      ['Gaussian', '', 15],
    ])
    expect(ledger(e).sha256).toBe(l.sha256)
    expect(ledger(selfCompose(e, 2)).sha256).not.toBe(l.sha256)
  })

  it('a plan with a NonPrivate part has no curve to draw, and says why instead of drawing ∞', () => {
    const c = curves(selfCompose(compose([gaussian(1, 1, addRemove()), nonPrivate]), 3), addRemove(), 1e-5)
    for (const x of [c.profile, c.rdp, c.byIteration]) {
      expect(x.ok).toBe(false)
      if (!x.ok) expect(x.reason).toMatch(/ε = ∞ at every point|NonPrivate|cannot/)
    }
  })
})
