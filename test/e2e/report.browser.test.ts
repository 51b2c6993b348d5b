/**
 * The report page in a real browser: Debian's headless Chromium (driven by playwright-core, no
 * browser download) opens report.html from disk. The report holds a trainer audit, three mechanism
 * audits and two models: every chart's SVG is laid out with marks drawn, the summary table's
 * numbers are the inputs' (as the page rounds them), no output file holds an absolute path,
 * nothing is fetched from the network, no script error occurs, and a full-page screenshot is saved
 * (path printed; DPAUDIT_SCREENSHOT overrides it). Skipped, with the reason, when /usr/bin/chromium
 * is absent. Run: `npm run test:browser`.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { runReport } from '../../src/cli/commands/report.js'
import { reportCharts } from '../../src/report/audit/charts.js'
import type { ReportJson } from '../../src/report/audit/document.js'
import { roundEpsilon } from '../../src/report/format.js'
import { writeReportFixture } from '../report/fixture.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const present = existsSync(CHROMIUM)
if (!present) console.warn(`report.browser.test: skipped — ${CHROMIUM} not found (install Debian's chromium package to run the browser test)`)

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-e2e-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.skipIf(!present)('report.html in headless Chromium', () => {
  it('renders every chart with marks, fetches nothing, and is saved as a screenshot', async () => {
    const fx = await writeReportFixture(join(dir, 'in'))
    const out = join(dir, 'out')
    const r = await runReport([fx.manifest, '--out', out])
    expect(r.code, r.stderr).toBe(0)

    const profile = mkdtempSync(join(dir, 'profile-')) // a new, empty user-data-dir
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS })
    try {
      const page = await context.newPage()
      const requests: string[] = []
      const errors: string[] = []
      page.on('request', (q) => {
        if (!q.url().startsWith('file:')) requests.push(q.url())
      })
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(pathToFileURL(join(out, 'report.html')).href, { waitUntil: 'load' })

      const charts = await page.$$eval('figure.chart', (figs) =>
        figs.map((f) => {
          const svg = f.querySelector('svg')
          const box = svg?.getBoundingClientRect()
          return {
            id: f.getAttribute('data-chart'),
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            marks: svg === null ? 0 : svg.querySelectorAll('g.mark-line path, g.mark-symbol path, g.mark-rect path, g.mark-area path, g.mark-rule line').length,
            axes: svg === null ? 0 : svg.querySelectorAll('g.mark-text text').length,
          }
        }),
      )
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ReportJson
      // every chart the report model calls for is on the page
      expect(charts.map((c) => c.id).sort()).toEqual(reportCharts(report).map((c) => c.id).sort())
      const audits = report.subjects.flatMap((s) => s.audits)
      expect(audits.filter((a) => a.kind === 'trainer')).toHaveLength(1)
      expect(audits.filter((a) => a.kind === 'mechanism')).toHaveLength(3)
      const kinds = ['summary', 'privacy-profile', 'rdp-curve', 'epsilon-by-iteration', 'roc-linear', 'trade-off', 'scores', 'audit-vs-claim', 'utility']
      for (const k of kinds) expect(charts.some((c) => c.id === k || c.id?.endsWith(`-${k}`)), k).toBe(true)
      for (const c of charts) {
        expect(c.width, c.id ?? '').toBeGreaterThan(100)
        expect(c.height, c.id ?? '').toBeGreaterThan(50)
        expect(c.marks, `${c.id}: marks`).toBeGreaterThan(0)
        expect(c.axes, `${c.id}: axis labels`).toBeGreaterThan(0)
      }
      const sections = await page.$$eval('section > h2', (hs) => hs.map((h) => h.textContent))
      expect(sections[0]).toBe('Summary')
      expect(sections).toEqual(expect.arrayContaining([...report.subjects.map((s) => s.name), 'Utility', 'Reproducibility']))
      // the summary table as the browser shows it: one row per subject, its numbers the inputs'
      const cells = await page.$$eval('#summary table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')))
      expect(cells.map((c) => c[0])).toEqual(report.subjects.map((s) => s.name))
      const laplace = JSON.parse(readFileSync(fx.audit, 'utf8')) as { result: { epsilonLowerBound: number; ceiling: number } }
      const row = cells.find((c) => c[0] === 'Laplace, b = 1')!
      expect(row[1]).toContain(`${roundEpsilon(1)} at δ = 0 (the textbook Laplace mechanism)`)
      expect(row[3]).toContain(`${roundEpsilon(laplace.result.epsilonLowerBound)} (95 %; ceiling ${roundEpsilon(laplace.result.ceiling)}; laplace.audit.json)`)
      const trainer = JSON.parse(readFileSync(fx.trainerAudit, 'utf8')) as { epsilonLowerBound: number; ceiling: number }
      const hdp = cells.find((c) => c[0] === 'HDP-LDA, ε_L = 0.5')!
      expect(hdp[3]).toContain(`${roundEpsilon(trainer.epsilonLowerBound)} (95 %; ceiling ${roundEpsilon(trainer.ceiling)}; hdp.trainer-audit.json)`)
      for (const [i, r] of report.summary.rows.entries()) {
        const c = cells[i]!
        if (r.accounted !== undefined) expect(c[2]).toContain(roundEpsilon(r.accounted.epsilon))
        if (r.knownTrueEpsilon !== undefined) expect(c[4]).toBe(roundEpsilon(r.knownTrueEpsilon.epsilon))
        expect(c[5]).toBe(r.verdict)
      }
      // no absolute path in any output file
      const files = ['report.json', 'report.md', 'report.html', ...readdirSync(join(out, 'charts')).map((f) => join('charts', f))]
      for (const f of files) {
        const text = readFileSync(join(out, f), 'utf8')
        expect(text, f).not.toContain(dir)
        expect(text, f).not.toContain(process.cwd())
      }
      expect(requests).toEqual([])
      expect(errors).toEqual([])

      const shot = process.env['DPAUDIT_SCREENSHOT'] ?? join(tmpdir(), 'dpaudit-report-e2e', 'report.png')
      mkdirSync(dirname(shot), { recursive: true })
      await page.screenshot({ path: shot, fullPage: true })
      expect(statSync(shot).size).toBeGreaterThan(10_000)
      console.log(`report.browser.test: screenshot saved to ${shot}`)
    } finally {
      await context.close()
    }
  })
})
