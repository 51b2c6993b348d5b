/**
 * The drawing entry points without loading vega up front: `dpaudit/report` stays light for users
 * who only read or build reports, and vega + vega-lite are imported on the first call.
 *
 * ```ts
 * import * as E from 'fp-ts/lib/Either.js'
 * import { buildReport, readReportInput, rendererVersionsLazy, writeReportFolder } from 'dpaudit/report'
 * const inputs = readReportInput('manifest.json')
 * if (E.isRight(inputs)) {
 *   const report = buildReport(inputs.right, await rendererVersionsLazy())
 *   if (E.isRight(report)) await writeReportFolder('out', report.right)
 * }
 * ```
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../../core/error.js'
import type { Versions } from './statement.js'
import type { ReportJson } from './document.js'
import type { WrittenReport } from './write.js'

/** Renders the charts and writes report.json, report.md, report.html and charts/*.svg into `dir`. */
export const writeReportFolder = async (dir: string, r: ReportJson): Promise<E.Either<DpError, WrittenReport>> => (await import('./write.js')).writeReport(dir, r)

/** The report's files as (name, content) with the charts drawn, without writing them. */
export const renderReportFiles = async (r: ReportJson): Promise<ReadonlyArray<{ readonly name: string; readonly content: string }>> => (await import('./write.js')).renderReport(r)

/** vega's and vega-lite's versions, for `buildReport`. */
export const rendererVersionsLazy = async (): Promise<Versions> => (await import('./svg.js')).rendererVersions()
