/**
 * `dpaudit report <input> --out DIR [--title T] [--claim ID ...] [--delta D ...] [--json]`: an
 * audit report a person can read (report.html, report.md, charts/*.svg) and its canonical JSON
 * (report.json). The input is a model file, an audit result, a spec, or a manifest combining them
 * (../../report/audit/input.ts).
 *
 * @module
 */
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { formatError } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { buildReport } from '../../report/audit/build.js'
import { readReportInput } from '../../report/audit/input.js'
import { portable } from '../../report/audit/portable.js'
import { parseNumber } from '../io.js'
import { guardOutputs } from '../output-guard.js'
import { type CommandResult, EXIT } from './result.js'

export const REPORT_USAGE = `usage: dpaudit report <input.json> --out DIR [--title T] [--claim ID ...] [--delta D ...] [--json]
  writes DIR/report.json (canonical, decodable by ReportJson), DIR/report.md, DIR/report.html (self-contained,
  inline SVG charts) and DIR/charts/*.svg. The input is a model file (dpaudit train), an audit result
  (dpaudit audit --out), a spec, or a manifest {"kind": "dpaudit-report-input", "schemaVersion": 1, "title"?,
  "models"?, "audits"?, "specs"?: [path or {path, subject?, claim?}], "claims"?: [...], "subjects"?: [{name, claim?,
  models?, audits?, specs?, claims?}], "deltas"?: [...]} with paths relative to it; parts of one subject that cannot
  belong together are an error naming them. Audits of every kind are read: mechanism (dpaudit audit --out), trainer
  (local or --queue --json), one-run and classifier membership. The report opens with a summary: per subject the
  claimed, accounted and audited ε, the known true ε (zoo) and the verdict in words.
  --claim adds a claim's verdict (dpaudit verify --list); --delta sets the statement's δ values
  (default 1e-3, 1e-5, 1e-7, 1e-9); --json prints report.json on stdout as well. A manifest with only "claims"
  gives a report of those verdicts.`

export const runReport = async (args: ReadonlyArray<string>): Promise<CommandResult> => {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      title: { type: 'string' },
      claim: { type: 'string', multiple: true },
      delta: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) return { code: EXIT.ok, stdout: REPORT_USAGE }
  const input = positionals[0]
  if (input === undefined || positionals.length > 1 || values.out === undefined) return { code: EXIT.input, stderr: REPORT_USAGE }
  const deltas: number[] = []
  for (const raw of values.delta ?? []) {
    const d = parseNumber('delta', raw)
    if (E.isLeft(d)) return { code: EXIT.input, stderr: d.left }
    if (!(d.right >= 0 && d.right < 1)) return { code: EXIT.input, stderr: `--delta: expected a number in [0, 1) (0: pure ε-DP) (got ${raw})` }
    deltas.push(d.right)
  }
  // the renderer (vega) is loaded only here, so `dpaudit help` does not pay for it
  const { checkReportDir, reportFileNames, writeReport } = await import('../../report/audit/write.js')
  const { rendererVersions } = await import('../../report/audit/svg.js')
  const dir = checkReportDir(values.out)
  if (E.isLeft(dir)) return { code: EXIT.input, stderr: formatError(dir.left) }
  const inputs = readReportInput(input, { reportDir: values.out })
  if (E.isLeft(inputs)) return { code: EXIT.input, stderr: formatError(inputs.left) }
  const started = Date.now()
  const report = buildReport(
    {
      ...inputs.right,
      ...(values.title === undefined ? {} : { title: values.title }),
      claims: [...inputs.right.claims, ...(values.claim ?? [])],
      ...(deltas.length === 0 ? {} : { deltas }),
    },
    rendererVersions(),
  )
  if (E.isLeft(report)) return { code: report.left._tag === 'DecodeFailure' || report.left._tag === 'InvalidParameter' ? EXIT.input : EXIT.accounting, stderr: formatError(report.left) }
  // paths the inputs carry (a corpus, a prior) are shown relative to the manifest, never absolute
  const handedOn = portable(report.right, inputs.right.manifest === undefined ? values.out : dirname(input), [dirname(input), values.out])
  // the report's files may not be any file it read (`report DIR/report.json --out DIR`), nor be
  // written by another dpaudit at the same time
  const read = [
    { what: 'the input', path: input },
    ...inputs.right.models.map((m) => ({ what: 'the model', path: m.file ?? m.input })),
    ...inputs.right.audits.map((a) => ({ what: 'the audit', path: a.file ?? a.input })),
    ...inputs.right.specs.map((s) => ({ what: 'the spec', path: s.file ?? s.input })),
  ]
  const guard = guardOutputs(
    reportFileNames(handedOn).map((name) => ({ what: '--out', path: join(values.out as string, name) })),
    read,
  )
  if (E.isLeft(guard)) return { code: EXIT.input, stderr: `report: ${guard.left}` }
  const written = await writeReport(values.out, handedOn).finally(guard.right)
  if (E.isLeft(written)) return { code: EXIT.input, stderr: formatError(written.left) }
  const summary = `wrote ${written.right.files.length} files in ${written.right.dir} (${((Date.now() - started) / 1000).toFixed(1)} s): report.html, report.md, report.json, charts/`
  return values.json ? { code: EXIT.ok, stdout: stringifyJson(handedOn, 1), stderr: summary } : { code: EXIT.ok, stdout: summary }
}
