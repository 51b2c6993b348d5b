/**
 * Audit reports: the canonical JSON model (ReportJson), its input contract, the builder, the chart
 * specs, the Markdown / HTML pages, and the drawing entry points (vega loaded on first use).
 *
 * @module
 */
export * from './document.js'
export * from './input.js'
export * from './build.js'
export * from './statement.js'
export { auditSection, auditKindOf, scoreHistogram, type AuditContext, type AuditKind } from './audits.js'
export { subjectVerdict, overallSentence } from './subjects.js'
export { portable } from './portable.js'
export * from './charts.js'
export * from './sections.js'
export * from './pages.js'
export type { WrittenReport } from './write.js'
export * from './render-lazy.js'
export * from './report.js'
