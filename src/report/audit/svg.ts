/**
 * Charts drawn in Node: Vega-Lite compiled to Vega, a headless `vega.View` with the `none`
 * renderer, and `toSVG()` — no DOM, no canvas (ANCHORS.md §f). Text is measured by Vega's
 * estimates, so the SVG is the same on every machine for the same input.
 *
 * @module
 */
import * as vega from 'vega'
import * as vl from 'vega-lite'
import type { ChartSpec } from './charts.js'
import type { Versions } from './statement.js'

/** The renderer's versions, for the reproducibility section. */
export const rendererVersions = (): Versions => ({ vega: vega.version, vegaLite: vl.version })

/** One chart as an SVG document. */
export const renderSvg = async (chart: ChartSpec): Promise<string> => {
  const compiled = vl.compile(chart.spec as unknown as vl.TopLevelSpec).spec
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

/** Every chart, in order, as { id → SVG }. */
export const renderCharts = async (charts: ReadonlyArray<ChartSpec>): Promise<ReadonlyMap<string, string>> => {
  const out = new Map<string, string>()
  for (const c of charts) out.set(c.id, await renderSvg(c))
  return out
}
