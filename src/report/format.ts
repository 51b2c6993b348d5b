/**
 * Plain-text rendering of accounting results for terminals and Markdown: numbers that never
 * print as `null` or `NaN` without saying so, and aligned tables.
 *
 * @module
 */
import type { AccountReport } from '../accounting/account.js'
import { showRelation } from '../mechanisms/neighbouring.js'

/** A privacy number for humans: ∞ for Infinity, fixed decimals for moderate values. */
export const showNumber = (x: number, digits = 4): string => {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return '∞'
  if (x === -Infinity) return '−∞'
  if (x === 0) return '0'
  const a = Math.abs(x)
  if (a >= 1e6 || a < 1e-3) return x.toExponential(digits - 1)
  return x.toFixed(digits)
}

/** δ values are usually powers of ten: print them compactly. */
export const showDelta = (d: number): string => (d >= 1e-3 ? String(d) : d.toExponential().replace('e-', 'e-'))

/** Renders rows as an aligned text table with a header rule. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? '')].length)))
  const line = (cells: ReadonlyArray<string>): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - [...c].length)))
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

/** ε, with the accounting error bar when the accountant brackets the truth (PLD). */
export const showEpsilonAnswer = (a: { readonly epsilon: number; readonly lower?: number }): string =>
  a.lower === undefined || !Number.isFinite(a.epsilon) ? showNumber(a.epsilon) : `${showNumber(a.epsilon)} (−${(a.epsilon - a.lower).toExponential(1)})`

/** The first clause of a method string, for a table cell; the full text is printed below the table. */
export const shortMethod = (method: string, max = 60): string => {
  const first = method.split(/; | — /)[0] ?? method
  return first.length <= max ? first : `${first.slice(0, max - 1)}…`
}

/** The human report of `account`: per accountant, ε at each δ; then the tightest and the full methods. */
export const renderAccountReport = (r: AccountReport): string => {
  const deltas = r.tightest.length > 0 ? r.tightest.map((t) => t.delta) : (r.results.find((x) => x.ok)?.answers.map((a) => a.delta) ?? [])
  const header = ['accountant', ...deltas.map((d) => `ε at δ=${showDelta(d)}`), 'method']
  const rows = r.results.map((res) =>
    res.ok
      ? [res.accountant, ...res.answers.map(showEpsilonAnswer), shortMethod(res.answers[0]?.method ?? '')]
      : [res.accountant, ...deltas.map(() => '—'), 'cannot answer (see below)'],
  )
  if (r.tightest.length > 0)
    rows.push(['tightest', ...r.tightest.map((t) => showNumber(t.epsilon)), r.tightest.map((t) => t.accountant).filter((a, i, xs) => xs.indexOf(a) === i).join(', ')])
  const details = r.results.flatMap((res) =>
    res.ok
      ? [`  ${res.accountant}: ${res.answers[0]?.method ?? ''}`, ...res.notes.map((n) => `    note: ${n}`)]
      : [`  ${res.accountant}: cannot answer: ${res.message}`],
  )
  return [
    `${r.name ?? '(unnamed spec)'} — guarantee for ${showRelation(r.relation)}`,
    table(header, rows),
    'methods:',
    ...details,
  ].join('\n')
}
