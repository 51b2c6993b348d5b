/**
 * Writes a report folder: report.json (the canonical model, decodable by ReportJson), report.md,
 * report.html (self-contained) and charts/<id>.svg. The charts are all drawn before anything is
 * written, and every file is written atomically, so a failure leaves no partial file.
 *
 * @module
 */
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { writeFileAtomic } from '../../core/atomic-file.js'
import { type DpError, invalidParameter } from '../../core/error.js'
import { stringifyJson } from '../../core/json.js'
import { reportCharts } from './charts.js'
import type { ReportJson } from './document.js'
import { reportHtml, reportMarkdown } from './pages.js'
import { reportSections } from './sections.js'
import { renderCharts } from './svg.js'

export interface WrittenReport {
  readonly dir: string
  readonly files: ReadonlyArray<string>
}

/** The report's files as (relative name, content), charts drawn: what `writeReport` writes. */
export const renderReport = async (r: ReportJson): Promise<ReadonlyArray<{ readonly name: string; readonly content: string }>> => {
  const charts = reportCharts(r)
  const svgs = await renderCharts(charts)
  const sections = reportSections(r, charts)
  return [
    { name: 'report.json', content: `${stringifyJson(r, 1)}\n` },
    { name: 'report.md', content: reportMarkdown(r, sections) },
    { name: 'report.html', content: reportHtml(r, sections, svgs) },
    ...charts.map((c) => ({ name: join('charts', `${c.id}.svg`), content: svgs.get(c.id) ?? '' })),
  ]
}

/**
 * Checks that `dir` is a writable folder, or that the nearest folder above it that exists is
 * writable so it can be made, before any work is done. Nothing is created here: a report that
 * fails later leaves no empty folder behind.
 */
export const checkReportDir = (dir: string): E.Either<DpError, string> => {
  const fail = (why: string) => E.left(invalidParameter('--out', dir, why))
  let at = resolve(dir)
  for (;;) {
    try {
      const s = statSync(at)
      if (!s.isDirectory()) return fail(at === resolve(dir) ? 'exists and is not a folder' : `${at} is not a folder`)
      accessSync(at, constants.W_OK | constants.X_OK)
      return E.right(dir)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return fail(`cannot write in ${at} (${code === 'EROFS' ? 'read-only file system' : 'permission denied'})`)
      if (code !== 'ENOENT') return fail(`cannot use the folder: ${(e as Error).message}`)
      const up = dirname(at)
      if (up === at) return fail('no folder above it exists')
      at = up
    }
  }
}

/** The files a report writes into its folder (for refusing an output that is one of its inputs). */
export const reportFileNames = (r: ReportJson): ReadonlyArray<string> => ['report.json', 'report.md', 'report.html', ...reportCharts(r).map((c) => join('charts', `${c.id}.svg`))]

/** Renders and writes the report folder; a folder it made is removed again when nothing could be written. */
export const writeReport = async (dir: string, r: ReportJson): Promise<E.Either<DpError, WrittenReport>> => {
  const d = checkReportDir(dir)
  if (E.isLeft(d)) return d
  const files = await renderReport(r)
  const existed = existsSync(dir)
  const undo = (): void => {
    if (existed) return
    try {
      rmSync(dir, { recursive: true })
    } catch {
      // best effort: the error reported is the write's
    }
  }
  try {
    mkdirSync(join(dir, 'charts'), { recursive: true })
  } catch (e) {
    undo()
    return E.left(invalidParameter('--out', dir, `cannot create the charts folder: ${(e as Error).message}`))
  }
  for (const f of files) {
    const w = writeFileAtomic(join(dir, f.name), f.content)
    if (E.isLeft(w)) {
      undo()
      return w
    }
  }
  return E.right({ dir, files: files.map((f) => join(dir, f.name)) })
}
