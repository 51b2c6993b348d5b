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
import normalCdf from '@stdlib/stats-base-dists-normal-cdf'
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildReport } from '../../src/report/audit/build.js'
import { report } from '../../src/report/audit/report.js'
import { account } from '../../src/accounting/account.js'
import { runReport } from '../../src/cli/commands/report.js'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { parseJson, stringifyJson } from '../../src/core/json.js'
import { ReportJson } from '../../src/report/audit/document.js'
import { curves, ledger } from '../../src/report/audit/statement.js'
import { compose, gaussian, labeled, nonPrivate, selfCompose } from '../../src/mechanisms/event.js'
import { addRemove } from '../../src/mechanisms/neighbouring.js'
import { type ReportFixture, writeReportFixture } from './fixture.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let fx: ReportFixture
beforeAll(async () => {
  fx = await writeReportFixture(join(dir, 'in'))
}, 120_000)

const decode = (file: string): ReportJson => {
  const u = parseJson(readFileSync(file, 'utf8'))
  if (E.isLeft(u)) throw new Error(u.left)
  const d = ReportJson.decode(u.right)
  if (E.isLeft(d)) throw new Error('report.json does not decode with ReportJson')
  return d.right
}

const subject = (r: ReportJson, name: string) => {
  const s = r.subjects.find((x) => x.name === name)
  if (s === undefined) throw new Error(`no subject ${name} in ${r.subjects.map((x) => x.name).join(', ')}`)
  return s
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
    expect(report.schemaVersion).toBe(2)
    expect(report.kind).toBe('dpaudit-report')
    const html = readFileSync(join(out, 'report.html'), 'utf8')
    // every chart inline, with marks drawn
    const figures = html.match(/<figure class="chart"[\s\S]*?<\/figure>/g) ?? []
    expect(figures.length).toBeGreaterThanOrEqual(12)
    for (const f of figures) {
      expect(f).toMatch(/<svg /)
      expect(f).toMatch(/class="mark-(line|symbol|rect|rule)/)
    }
    // nothing fetched, nothing executed: no src/href to a resource, only the inert JSON block
    expect(html).not.toMatch(/\ssrc=/)
    expect(html).not.toMatch(/href="(https?:|\/\/)/)
    expect(html.match(/<script/g)).toHaveLength(1)
    expect(html).toMatch(/<script type="application\/json" id="dpaudit-report">/)
    const md = readFileSync(join(out, 'report.md'), 'utf8')
    for (const [, file] of md.matchAll(/\]\((charts\/[^)]+\.svg)\)/g)) expect(existsSync(join(out, file as string)), file).toBe(true)
    // the summary opens the report
    expect(md.split('\n').find((l) => l.startsWith('## '))).toBe('## Summary')
    for (const section of ['Summary', 'Laplace, b = 1', 'HDP-LDA, ε\\_L = 0.5', 'DP-SGD, 200 steps', 'hdp-lda on uci', 'zoo:gaussian', 'Utility', 'Reproducibility']) expect(md).toContain(`## ${section}`)
    for (const part of ['Mechanism ledger', 'Privacy curves', 'Empirical audit']) expect(md).toContain(`### ${part}`)
  })

  it('groups inputs by subject: declared subjects first, then the ones the inputs name', () => {
    expect(report.subjects.map((s) => s.name)).toEqual(['Laplace, b = 1', 'HDP-LDA, ε_L = 0.5', 'DP-SGD, 200 steps', 'hdp-lda on uci', 'zoo:gaussian', 'zoo:histogram-inverted'])
    expect(subject(report, 'HDP-LDA, ε_L = 0.5').audits.map((a) => a.kind)).toEqual(['trainer'])
    expect(subject(report, 'Laplace, b = 1').audits.map((a) => a.kind)).toEqual(['mechanism'])
    expect(report.summary.rows.map((r) => r.subject)).toEqual(report.subjects.map((s) => s.name))
  })

  it('the summary row puts the claimed, accounted and audited ε of a subject side by side, as the inputs give them', () => {
    const row = report.summary.rows.find((r) => r.subject === 'Laplace, b = 1')!
    expect(row.claimed).toEqual({ epsilon: 1, delta: 0, source: 'the textbook Laplace mechanism' })
    expect(row.accounted?.delta).toBe(0)
    expect(row.accounted?.epsilon).toBeCloseTo(1, 6)
    expect(row.accounted?.epsilon).toBeGreaterThanOrEqual(1)
    const audit = JSON.parse(readFileSync(fx.audit, 'utf8')) as { result: { epsilonLowerBound: number; ceiling: number; confidence: number } }
    expect(row.audited?.epsilonLowerBound).toBe(audit.result.epsilonLowerBound)
    expect(row.audited?.ceiling).toBe(audit.result.ceiling)
    expect(row.audited?.confidence).toBe(audit.result.confidence)
    expect(row.knownTrueEpsilon?.epsilon).toBe(1)
    expect(row.verdict).toMatch(/accounting supports the claim/)
    const broken = report.summary.rows.find((r) => r.subject === 'zoo:histogram-inverted')!
    expect(broken.verdict).toMatch(/refutes its claim/)
    expect(broken.knownTrueEpsilon!.epsilon).toBeGreaterThan(broken.claimed!.epsilon)
    expect(report.summary.sentence).toMatch(/refuted by an audit \(zoo:histogram-inverted\)/)
  })

  it('a model’s statement keeps its paper claim, and its trainer audit shows the chosen test, the counts and the scores per side', () => {
    const s = subject(report, 'HDP-LDA, ε_L = 0.5')
    expect(s.privacy?.protects).toBe('replace-one one word')
    expect(s.privacy?.claim).toBeDefined()
    const row = report.summary.rows.find((r) => r.subject === s.name)!
    expect(row.claimed?.source).toBe(s.privacy?.claim?.source)
    const a = s.audits[0]!
    const file = JSON.parse(readFileSync(fx.trainerAudit, 'utf8')) as { counts: { falsePositives: number; negatives: number; falseNegatives: number; positives: number }; test: { name: string } }
    expect(a.evidence.attack).toBe(file.test.name)
    expect(a.evidence.counts).toEqual({ truePositives: file.counts.positives - file.counts.falseNegatives, falsePositives: file.counts.falsePositives, falseNegatives: file.counts.falseNegatives, trueNegatives: file.counts.negatives - file.counts.falsePositives })
    const h = a.histogram!
    expect(h.bins.reduce((n, b) => n + b.withTarget, 0)).toBe(file.counts.positives)
    expect(h.bins.reduce((n, b) => n + b.withoutTarget, 0)).toBe(file.counts.negatives)
    expect(a.evidence.clopperPearson?.alphaPerSide).toBeCloseTo(0.025, 12)
  })

  it('mechanism audits carry the attack, the event, the four counts, the Clopper–Pearson inputs and the μ-GDP fit', () => {
    const a = subject(report, 'zoo:gaussian').audits[0]!
    expect(a.evidence.attack).not.toBe('none chosen')
    expect(a.evidence.event.length).toBeGreaterThan(5)
    const c = a.evidence.counts!
    expect(c.truePositives + c.falseNegatives + c.falsePositives + c.trueNegatives).toBeGreaterThan(0)
    expect(a.evidence.gdp?.muLowerBound).toBeGreaterThanOrEqual(0)
    expect(a.roc?.points.length).toBeGreaterThan(1)
    expect(a.roc!.points.length).toBeLessThanOrEqual(401)
  })

  it('no absolute path in any output file: inputs are named relative to the manifest, with their hashes', () => {
    for (const f of ['report.json', 'report.md', 'report.html']) {
      const text = readFileSync(join(out, f), 'utf8')
      expect(text, f).not.toContain(dir)
      expect(text, f).not.toContain(process.cwd())
    }
    const rep = report.reproducibility
    expect(rep.inputs.map((i) => i.path)).toEqual(expect.arrayContaining(['hdp-0.5.json', 'hdp-2.json', 'laplace.audit.json', 'hdp.trainer-audit.json', 'spec.json']))
    for (const i of rep.inputs) expect(i.sha256).toMatch(/^[0-9a-f]{64}$/)
  })

  it('records versions and input hashes; a seed only for runs labelled not private', () => {
    const rep = report.reproducibility
    expect(rep.versions.vega).toMatch(/^\d+\.\d+/)
    expect(rep.inputs.map((i) => i.role).sort()).toEqual(['audit', 'audit', 'audit', 'audit', 'manifest', 'model', 'model', 'spec', 'spec'])
    for (const m of rep.runs.filter((r) => r.input.startsWith('hdp-'))) {
      expect(m.private).toBe(true)
      expect(m.seed).toBeUndefined()
    }
    const audit = rep.runs.find((r) => r.input === 'laplace.audit.json')!
    expect(audit.private).toBe(false)
    expect(audit.seed).toBe('report-fixture')
    expect(audit.trials).toBeGreaterThan(0)
  })

  it('reproducibility: the audit’s wall time and trials as its file records them; a private run’s iterations but never its timing', () => {
    const rep = report.reproducibility
    const file = JSON.parse(readFileSync(fx.audit, 'utf8')) as { timing: { elapsedMs: number }; result: { trials: { spent: number } } }
    const audit = rep.runs.find((r) => r.input === 'laplace.audit.json')!
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

  it('the report JSON round-trips through its codec', () => {
    const text = readFileSync(join(out, 'report.json'), 'utf8')
    const again = ReportJson.encode(report)
    expect(JSON.parse(stringifyJson(again))).toEqual(JSON.parse(text))
    const twice = ReportJson.decode(JSON.parse(stringifyJson(again)))
    expect(E.isRight(twice) && twice.right).toEqual(report)
  })
})

describe('a manifest whose parts do not belong together is refused, naming them', () => {
  const manifest = (name: string, body: Record<string, unknown>): string => {
    const p = join(fx.dir, name)
    writeFileSync(p, JSON.stringify({ kind: 'dpaudit-report-input', schemaVersion: 1, ...body }))
    return p
  }
  it('two plans in one subject, a zoo audit beside a model, a claim about another trainer', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ subjects: [{ name: 'x', specs: ['spec.json', 'laplace.spec.json'] }] }, /subject "x".*spec\.json and laplace\.spec\.json do not belong together: they account different plans/],
      [{ subjects: [{ name: 'y', models: ['hdp-0.5.json'], audits: ['laplace.audit.json'] }] }, /hdp-0\.5\.json and laplace\.audit\.json do not belong together: a zoo mechanism/],
      [{ subjects: [{ name: 'z', models: ['hdp-0.5.json'], claims: ['lp-lda.theorem4'] }] }, /claim lp-lda\.theorem4 and hdp-0\.5\.json do not belong together/],
      [{ subjects: [{ name: 'w', audits: ['laplace.audit.json'] }], audits: ['laplace.audit.json'] }, /laplace\.audit\.json is already listed under no subject/],
    ]
    for (const [i, [body, why]] of cases.entries()) {
      const r = await runReport([manifest(`bad-${i}.json`, body), '--out', join(dir, `bad-out-${i}`)])
      expect(r.code, JSON.stringify(body)).toBe(1)
      expect(r.stderr).toMatch(why)
      expect(existsSync(join(dir, `bad-out-${i}`))).toBe(false)
    }
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
    expect(rep.subjects).toHaveLength(1)
    expect(rep.subjects[0]!.privacy?.epsilonAtDelta.map((x) => x.delta)).toEqual([1e-5, 1e-6])
    expect(rep.subjects[0]!.audits).toEqual([])
    expect(rep.subjects[0]!.curves?.rdp.ok).toBe(true)
    // a single input is named relative to the report's folder
    expect(rep.reproducibility.inputs[0]!.path).toBe('../in/spec.json')
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
    // a bad δ names the manifest and its place in "deltas"
    const badDelta = join(dir, 'bad-delta-manifest.json')
    writeFileSync(badDelta, JSON.stringify({ kind: 'dpaudit-report-input', schemaVersion: 1, claims: ['lp-lda.theorem4'], deltas: [1e-5, 2] }))
    const bd = await runReport([badDelta, '--out', join(dir, 'o5')])
    expect(bd.code).toBe(1)
    expect(bd.stderr).toBe(`${badDelta}:$.deltas[1]: a δ in [0, 1) (0: pure ε-DP) (got 2)`)
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
    expect((await runReport([fx.spec, '--out', join(dir, 'o3'), '--delta', '2'])).stderr).toMatch(/--delta: expected a number in \[0, 1\)/)
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

describe('the trade-off curve beside the audit', () => {
  const versions = { vega: 'test', vegaLite: 'test' }
  it('for a Gaussian plan, the accounted curve is Φ(Φ⁻¹(1 − α) − μ), μ = kΔ²/σ² summed, within 1e-6 (fast-check over σ, Δ and repeats)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 8, noNaN: true }), fc.double({ min: 0.25, max: 2, noNaN: true }), fc.integer({ min: 1, max: 20 }), (sigma, sensitivity, count) => {
        const spec = { schemaVersion: 1 as const, name: 'Gaussian', event: selfCompose(gaussian(sigma, sensitivity, addRemove()), count) }
        const r = buildReport({ models: [], audits: [], specs: [{ value: spec, input: 'gaussian' }], claims: [] }, versions)
        if (E.isLeft(r)) throw new Error(r.left.message)
        const t = r.right.subjects[0]!.tradeOff!
        expect(t.method).toBe('gaussian-closed-form')
        const mu = Math.sqrt(count) * (sensitivity / sigma)
        expect(t.points.length).toBeGreaterThan(100)
        for (const p of t.points) expect(Math.abs(p.beta - normalCdf(normalQuantile(1 - p.alpha, 0, 1) - mu, 0, 1)), `α = ${p.alpha}`).toBeLessThanOrEqual(1e-6)
      }),
      { numRuns: 12, seed: 24 },
    )
  })

  it('no operating point of a correct zoo mechanism lies below its accounted curve; the broken one’s do', async () => {
    const out = join(dir, 'out')
    const report = decode(join(out, 'report.json'))
    const audit = (name: string) => report.subjects.find((s) => s.name === name)!.audits[0]!
    for (const name of ['Laplace, b = 1', 'zoo:gaussian']) {
      const t = audit(name).tradeOff!
      expect(t.empirical.length, name).toBeGreaterThan(10)
      expect(t.pointsBelow, name).toBe(0)
      for (const p of t.empirical) expect(p.below).toBe(false)
    }
    const broken = audit('zoo:histogram-inverted').tradeOff!
    expect(broken.source).toMatch(/claim \(ε = 0\.5, δ = 0\)/)
    expect(broken.pointsBelow).toBeGreaterThan(0)
    // a point below is below at its Clopper–Pearson corner, not only at its raw rates
    for (const p of broken.empirical.filter((x) => x.below)) {
      expect(p.fnrUpper).toBeGreaterThanOrEqual(p.fnr)
      expect(p.fnr).toBeLessThan(p.accountedBeta)
    }
    // the Laplace audit is drawn against its spec's plan, whose curve the report carries with the subject
    expect(audit('Laplace, b = 1').tradeOff!.source).toBe('the accounted plan of Laplace, b = 1')
    expect(report.subjects.find((s) => s.name === 'Laplace, b = 1')!.tradeOff!.points.length).toBeGreaterThan(100)
  })
})

describe('every audit kind is a report input', () => {
  it('a trainer audit as `dpaudit audit --out` writes it is read with its timing; an edited verdict or scores that do not give the counts are refused', async () => {
    const result = JSON.parse(readFileSync(fx.trainerAudit, 'utf8')) as Record<string, unknown> & { trials: { requested: number }; seed: string; confidence: number; verdict: string; scores: { withTarget: number[] } }
    const doc = (r: Record<string, unknown>) => ({ schemaVersion: 1, tool: 'dpaudit audit', target: 'game.json', node: 'v20', options: { trials: result.trials.requested, seed: result.seed, confidence: result.confidence, workers: 1 }, timing: { elapsedMs: 10, trialsPerSecond: 12 }, result: r })
    const file = join(dir, 'trainer-doc.json')
    writeFileSync(file, JSON.stringify(doc(result)))
    const r = await runReport([file, '--out', join(dir, 'trainer-doc-out')])
    expect(r.code, r.stderr).toBe(0)
    const a = decode(join(dir, 'trainer-doc-out', 'report.json')).subjects[0]!.audits[0]!
    expect(a.kind).toBe('trainer')
    expect(a.timing?.elapsedMs).toBe(10)
    expect(a.histogram).toBeDefined()
    const flipped = join(dir, 'trainer-flipped.json')
    writeFileSync(flipped, JSON.stringify(doc({ ...result, verdict: result.verdict === 'violation' ? 'consistent' : 'violation' })))
    expect((await runReport([flipped, '--out', join(dir, 'o-flipped')])).stderr).toMatch(/verdict: contradicts the result's own numbers/)
    const moved = join(dir, 'trainer-scores.json')
    writeFileSync(moved, JSON.stringify({ ...result, scores: { ...result.scores, withTarget: result.scores.withTarget.map((x) => x + 1e6) } }))
    expect((await runReport([moved, '--out', join(dir, 'o-scores')])).stderr).toMatch(/\$\.scores: the recorded scores at threshold .* not the recorded counts/)
  })

  it('a one-run mechanism audit needs the claim it was tested against; its bound is re-derived from the guesses', async () => {
    const oneRun = { canaries: 1000, guesses: 100, correct: 100, epsilonLowerBound: 0, confidence: 0.95, statement: 'all right' }
    const { oneRunEpsilonLowerBound } = await import('../../src/attacks/one-run.js')
    const lb = oneRunEpsilonLowerBound(1000, 100, 100, 1e-5, 0.05)
    const r = await report({ audits: [{ name: 'one run', value: { ...oneRun, epsilonLowerBound: lb } }] })
    expect(E.isLeft(r) && r.left.message).toMatch(/records no claim/)
    const ok = await report({ subjects: [{ name: 'canaries', audits: [{ name: 'one run', value: { ...oneRun, epsilonLowerBound: lb }, claim: { epsilon: 1, delta: 1e-5 } }] }] })
    if (E.isLeft(ok)) throw new Error(ok.left.message)
    const a = ok.right.json.subjects[0]!.audits[0]!
    expect(a.evidence.oneRun).toEqual({ canaries: 1000, guesses: 100, correct: 100 })
    expect(a.epsilonLowerBound).toBe(lb)
    expect(a.verdict).toBe(lb > 1 ? 'violation' : 'consistent')
    const forged = await report({ audits: [{ name: 'forged', value: { ...oneRun, epsilonLowerBound: lb + 1 }, claim: { epsilon: 1, delta: 1e-5 } }] })
    expect(E.isLeft(forged) && forged.left.message).toMatch(/does not follow from 100 of 100 guesses/)
  })
})
