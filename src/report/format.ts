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
export const showDelta = (d: number): string => (d === 0 || d >= 1e-3 ? String(d) : d.toExponential())

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

/** Width the human reports fit in. */
export const REPORT_WIDTH = 100

/**
 * ε rounded up (an upper bound stays an upper bound) to the digits it can carry: to the leading
 * digit of its accounting error when the accountant brackets the truth (PLD), else to 5
 * significant digits.
 */
export const roundEpsilon = (epsilon: number, error?: number): string => {
  if (!Number.isFinite(epsilon) || epsilon === 0) return showNumber(epsilon)
  const a = Math.abs(epsilon)
  if (a >= 1e6 || a < 1e-3) return showNumber(epsilon)
  const decimals =
    error !== undefined && error > 0 && Number.isFinite(error)
      ? Math.min(8, Math.max(0, Math.ceil(-Math.log10(error))))
      : Math.max(0, 4 - Math.floor(Math.log10(a)))
  const f = 10 ** decimals
  return (Math.ceil(epsilon * f - 1e-9) / f).toFixed(decimals)
}

/**
 * ε, with the accounting error bar when the accountant brackets the truth (PLD), rounded to it; a
 * bracket of width 0 (the lower end equal to the guarantee) has no bar to show ("(−0.0e+0)" said nothing).
 */
export const showEpsilonAnswer = (a: { readonly epsilon: number; readonly lower?: number }): string =>
  a.lower === undefined || !Number.isFinite(a.epsilon) || !(a.epsilon - a.lower > 0)
    ? roundEpsilon(a.epsilon)
    : `${roundEpsilon(a.epsilon, a.epsilon - a.lower)} (−${(a.epsilon - a.lower).toExponential(1)})`

/** The first clause of a method string, for a table cell; the full text is printed below the table. */
export const shortMethod = (method: string, max = 60): string => {
  const first = method.split(/; | — /)[0] ?? method
  if (first.length <= max) return first
  const cut = first.slice(0, max - 1)
  const space = cut.lastIndexOf(' ')
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`
}

/** Wraps text at word boundaries to `width`, continuation lines indented by `hang` spaces. */
export const wrap = (text: string, width = REPORT_WIDTH, hang = 4): string => {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    const limit = lines.length === 0 ? width : width - hang
    if (line !== '' && [...line].length + 1 + [...word].length > limit) {
      lines.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  lines.push(line)
  return lines.map((l, i) => (i === 0 ? l : ' '.repeat(hang) + l)).join('\n')
}

/** Splits a method text at its top-level "; " (not inside parentheses) into clauses. */
export const clauses = (method: string): ReadonlyArray<string> => {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < method.length; i++) {
    const ch = method[i]
    if (ch === '(' || ch === '[') depth++
    else if ((ch === ')' || ch === ']') && depth > 0) depth--
    else if (ch === ';' && depth === 0 && method[i + 1] === ' ') {
      out.push(method.slice(start, i))
      start = i + 2
    }
  }
  out.push(method.slice(start))
  return out.map((c) => c.trim()).filter((c) => c !== '')
}

/**
 * Numbered footnotes for method texts: each method is split into its clauses ("; "), and every
 * distinct clause is numbered once, so a clause shared by several accountants (the δ split of the
 * (ε, δ) composition theorems) is printed once. `refs` gives a method's footnote numbers.
 */
export const footnotes = (): { refs: (method: string) => ReadonlyArray<number>; render: (indent?: string) => ReadonlyArray<string> } => {
  const texts: string[] = []
  const index = new Map<string, number>()
  const number = (clause: string): number => {
    const known = index.get(clause)
    if (known !== undefined) return known
    texts.push(clause)
    index.set(clause, texts.length)
    return texts.length
  }
  return {
    refs: (method) => clauses(method).map(number),
    render: (indent = '  ') => texts.map((t, i) => indent + wrap(`[${i + 1}] ${t}`, REPORT_WIDTH - indent.length, indent.length + 4)),
  }
}

const refText = (refs: ReadonlyArray<number>): string => (refs.length === 0 ? '' : `[${refs.join(', ')}]`)

/**
 * The human report of `account`: per accountant, ε at each δ (rounded to its accounting error)
 * and its method as footnote numbers; then the tightest; then each distinct method clause and note
 * once, and why any accountant could not answer. Fits REPORT_WIDTH columns.
 */
export const renderAccountReport = (r: AccountReport): string => {
  const deltas = r.tightest.length > 0 ? r.tightest.map((t) => t.delta) : (r.results.find((x) => x.ok)?.answers.map((a) => a.delta) ?? [])
  const notes = footnotes()
  const header = ['accountant', ...deltas.map((d) => `ε at δ=${showDelta(d)}`), 'method (below)']
  const rows = r.results.map((res) => {
    if (!res.ok) return [res.accountant, ...deltas.map(() => '—'), 'cannot answer (below)']
    // the method at the first δ (at other δ it differs only in its numbers: the order, the δ split)
    const refs = [...new Set([...notes.refs(res.answers[0]?.method ?? ''), ...res.notes.map((n) => notes.refs(`note: ${n.replace(/; /g, ', ')}`)).flat()])]
    return [res.accountant, ...res.answers.map(showEpsilonAnswer), refText(refs)]
  })
  if (r.tightest.length > 0)
    rows.push([
      'tightest',
      ...r.tightest.map((t) => {
        const res = r.results.find((x) => x.ok && x.accountant === t.accountant)
        const a = res !== undefined && res.ok ? res.answers.find((x) => x.delta === t.delta) : undefined
        return a === undefined ? roundEpsilon(t.epsilon) : roundEpsilon(a.epsilon, a.lower === undefined ? undefined : a.epsilon - a.lower)
      }),
      r.tightest.map((t) => t.accountant).filter((a, i, xs) => xs.indexOf(a) === i).join(', '),
    ])
  const failures = r.results.flatMap((res) => (res.ok ? [] : [`  ${wrap(`${res.accountant}: cannot answer: ${res.message}`, REPORT_WIDTH - 2, 6)}`]))
  return [
    wrap(`${r.name ?? '(unnamed spec)'} — guarantee for ${showRelation(r.relation)}`, REPORT_WIDTH, 2),
    table(header, rows),
    ...renderBrackets(r),
    deltas.length > 1 ? `methods (at δ = ${showDelta(deltas[0] as number)}; at the other δ they differ only in their numbers):` : 'methods:',
    ...notes.render(),
    ...failures,
  ].join('\n')
}

/** x to 6 significant digits, rounded toward `dir` (a lower end stays below the truth, an upper end above). */
const sig6 = (x: number, dir: 'down' | 'up' | 'near'): string => {
  if (!Number.isFinite(x) || x === 0) return showNumber(x)
  const e = Math.floor(Math.log10(Math.abs(x))) - 5
  const f = 10 ** -e
  const v = dir === 'down' ? Math.floor(x * f) / f : dir === 'up' ? Math.ceil(x * f) / f : Math.round(x * f) / f
  return Number(v.toPrecision(6)).toString()
}

/**
 * The (lower, estimate, upper) triples of accountants that bracket the truth (PLD), one line per
 * accountant and δ, headed so that only the upper end reads as a guarantee.
 */
const renderBrackets = (r: AccountReport): ReadonlyArray<string> => {
  const lines: string[] = []
  for (const res of r.results) {
    if (!res.ok) continue
    for (const a of res.answers) {
      if (a.lower === undefined) continue
      const est = a.estimate === undefined ? '' : `, estimate ${sig6(a.estimate, 'near')}`
      lines.push(`  ${res.accountant} at δ=${showDelta(a.delta)}: lower ${sig6(a.lower, 'down')}${est}, guarantee ε ≤ ${sig6(a.epsilon, 'up')}`)
    }
  }
  return lines.length === 0
    ? []
    : [wrap('accounting brackets (the true ε of the accounted pairs lies between lower and the guarantee; lower and estimate are NOT guarantees):', REPORT_WIDTH, 2), ...lines]
}
