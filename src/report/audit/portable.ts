/**
 * A report is handed on: no absolute path of the machine that wrote it may appear in it. Inputs are
 * named relative to the manifest or the report (./input.ts); what the inputs themselves carry (a
 * model's corpus path, a note naming a prior file) is rewritten here: every occurrence of a known
 * folder (the manifest's, the report's, the working folder, the home folder) becomes the path from
 * `base` to it.
 *
 * @module
 */
import { homedir } from 'node:os'
import { relative, resolve, sep } from 'node:path'

const rewrite = (u: unknown, f: (s: string) => string): unknown => {
  if (typeof u === 'string') return f(u)
  if (Array.isArray(u)) return u.map((x) => rewrite(x, f))
  if (typeof u === 'object' && u !== null) return Object.fromEntries(Object.entries(u).map(([k, v]) => [k, rewrite(v, f)]))
  return u
}

/** `value` with every string's absolute folder prefixes (of `roots`, the working and home folders) made relative to `base`. */
export const portable = <A>(value: A, base: string, roots: ReadonlyArray<string> = []): A => {
  const folders = [...new Set([...roots, process.cwd(), homedir()].map((r) => resolve(r)).filter((r) => r !== sep))].sort((a, b) => b.length - a.length)
  const from = resolve(base)
  const f = (s: string): string => {
    if (!s.includes(sep)) return s
    let out = s
    for (const r of folders) {
      if (!out.includes(r)) continue
      const rel = relative(from, r).split(sep).join('/')
      out = out.split(`${r}${sep}`).join(rel === '' ? '' : `${rel}/`).split(r).join(rel === '' ? '.' : rel)
    }
    return out
  }
  return rewrite(value, f) as A
}
