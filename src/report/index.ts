/**
 * dpaudit/report: human-readable renderings of accounting results, the CLI's output schemas, and
 * audit reports. The verification of the papers' claims (claims files, verdicts, their pages) is
 * paper-specific and has its own sub-path, dpaudit/papers (./claims/index.ts).
 *
 * The export list is curated (issue 25): the output schemas, the report's canonical JSON and its input
 * contract, the builder, the statements, the renderers and the one-call `report`; the pieces the pages
 * are assembled from (sections, chart pieces, table and wrapping helpers, section codecs) are reached by
 * their module path inside the package only. Every type of the modules below stays exported.
 *
 * @module
 */
export type * from './format.js'
export type * from './schemas.js'
export type * from './audit/document.js'
export type * from './audit/input.js'
export type * from './audit/statement.js'
export type * from './audit/charts.js'
export type * from './audit/sections.js'
export type * from './audit/report.js'
export type { AuditContext, AuditKind } from './audit/audits.js'
export type { WrittenReport } from './audit/write.js'

// renderings of accounting results
export { renderAccountReport, showEpsilonAnswer, showNumber, showDelta, roundEpsilon } from './format.js'
// the CLI's --json output schemas
export { OUTPUT_SCHEMA_VERSION, AccountOutput, CalibrateOutput, EvaluateOutput, TrainOutput, AuditOutput, DemoOutput, AccountReportJson, AccountantResultJson, AuditResultJson, EpsilonAnswerJson } from './schemas.js'
// audit reports: the canonical JSON, its input, building, statements, rendering
export { REPORT_SCHEMA_VERSION, REPORT_KIND, ReportJson } from './audit/document.js'
export { REPORT_INPUT_KIND, ReportManifest, MAX_REPORT_INPUT_BYTES, readReportInput } from './audit/input.js'
export { buildReport } from './audit/build.js'
export { REPORT_DELTAS, statementFromEvent, modelStatement, specStatement } from './audit/statement.js'
export { reportCharts } from './audit/charts.js'
export { reportSections } from './audit/sections.js'
export { reportMarkdown, reportHtml } from './audit/pages.js'
export { writeReportFolder, renderReportFiles, rendererVersionsLazy } from './audit/render-lazy.js'
export { report, reportInputs } from './audit/report.js'
