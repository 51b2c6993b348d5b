/**
 * The report's Markdown and its self-contained HTML page (inline CSS and SVG, no script that runs,
 * no external resource; the canonical JSON embedded as an inert data block), from ./sections.ts.
 *
 * @module
 */
import { stringifyJson } from '../../core/json.js'
import { markdownTable } from '../claims/markdown.js'
import type { Cell, EvidenceTable } from '../claims/verdict.js'
import type { ReportJson } from './document.js'
import type { Block, Section } from './sections.js'

/**
 * Text made inert in Markdown: titles, mechanism, corpus and file names come from the user, and a
 * renderer with HTML enabled would run a `<script>` left raw. HTML's special characters become
 * entities; Markdown's inline punctuation (emphasis, code, links, table bars) is backslash-escaped;
 * a line break, which would end a table row or start a block, becomes a space. Every string goes
 * through it, the generated ones too: they render the same, and no caller has to know which is whose.
 */
export const markdownText = (s: string, inTable = false): string => {
  const inline = s
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(inTable ? /[\\`*_[\]~]/g : /[\\`*_[\]~|]/g, (c) => `\\${c}`)
  // a line starting with # or a list/quote marker would open a block
  return inline.replace(/^(\s*)([#+-]|\d+[.)])(?=\s|$)/, (_, sp: string, m: string) => `${sp}${m.replace(/([#+\-.)])/, '\\$1')}`)
}

const mdTable = (t: EvidenceTable): EvidenceTable => ({
  title: markdownText(t.title, true),
  columns: t.columns.map((c) => markdownText(c, true)),
  rows: t.rows.map((r) => r.map((c) => (typeof c === 'string' ? markdownText(c, true) : c))),
})

const mdBlock = (b: Block): string => {
  switch (b.kind) {
    case 'text':
      return markdownText(b.text)
    case 'list':
      return b.items.map((i) => `- ${markdownText(i)}`).join('\n')
    case 'table':
      return markdownTable(mdTable(b.table))
    case 'chart':
      return `![${markdownText(b.chart.title)}](charts/${encodeURIComponent(b.chart.id)}.svg)\n\n*${markdownText(b.chart.caption)}*`
  }
}

/** The report as Markdown, every string escaped (`markdownText`); charts are referenced as charts/<id>.svg next to it. */
export const reportMarkdown = (r: ReportJson, sections: ReadonlyArray<Section>): string =>
  [`# ${markdownText(r.title)}`, '', ...sections.flatMap((s) => [`${s.level === 3 ? '###' : '##'} ${markdownText(s.title)}`, '', ...s.blocks.flatMap((b) => [mdBlock(b), ''])])].join('\n')

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const cellHtml = (c: Cell): string => esc(typeof c === 'number' ? (Number.isFinite(c) ? String(c) : c > 0 ? '∞' : c < 0 ? '−∞' : 'NaN') : c)
const tableHtml = (t: EvidenceTable): string =>
  `<table><caption>${esc(t.title)}</caption><thead><tr>${t.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${t.rows.map((r) => `<tr>${r.map((c) => `<td>${cellHtml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`

/** An SVG document made fit for inlining: the XML prolog dropped (none is written by vega), width kept. */
const inlineSvg = (svg: string): string => svg.replace(/^<\?xml[^>]*>\s*/, '')

const htmlBlock = (b: Block, svgs: ReadonlyMap<string, string>): string => {
  switch (b.kind) {
    case 'text':
      return `<p>${esc(b.text)}</p>`
    case 'list':
      return `<ul>${b.items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`
    case 'table':
      return tableHtml(b.table)
    case 'chart': {
      const svg = svgs.get(b.chart.id)
      return `<figure class="chart" id="chart-${b.chart.id}" data-chart="${b.chart.id}">${svg === undefined ? '<p>(chart not rendered)</p>' : inlineSvg(svg)}<figcaption>${esc(b.chart.caption)}</figcaption></figure>`
    }
  }
}

const CSS = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:.85em}caption{text-align:left;font-style:italic;padding:.3em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}th{background:#f3f3f3}
figure.chart{margin:1.5em 0}section.part{margin-left:1em}#summary table td:last-child{min-width:24em}figcaption{font-size:.85em;color:#555}nav a{margin-right:1em}`

/** The self-contained HTML page: inline SVG charts (`svgs` by chart id), no scripts, no external resources. */
export const reportHtml = (r: ReportJson, sections: ReadonlyArray<Section>, svgs: ReadonlyMap<string, string>): string =>
  [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="generator" content="dpaudit ${esc(r.reproducibility.versions.dpaudit)}">`,
    `<title>${esc(r.title)}</title><style>${CSS}</style></head><body>`,
    `<h1>${esc(r.title)}</h1>`,
    `<nav>${sections.filter((s) => s.level !== 3).map((s) => `<a href="#${esc(s.id)}">${esc(s.title)}</a>`).join('')}</nav>`,
    ...sections.map((s) => {
      const h = s.level === 3 ? 'h3' : 'h2'
      return `<section id="${esc(s.id)}"${s.level === 3 ? ' class="part"' : ''}><${h}>${esc(s.title)}</${h}>${s.blocks.map((b) => htmlBlock(b, svgs)).join('\n')}</section>`
    }),
    // the canonical report, inert (application/json is never executed); `<` escaped so it cannot close the element
    `<script type="application/json" id="dpaudit-report">${stringifyJson(r).replace(/</g, '\\u003c')}</script>`,
    '</body></html>',
    '',
  ].join('\n')
