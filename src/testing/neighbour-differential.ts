/**
 * Neighbour-differential tests: run a whole private program twice, on two neighbouring inputs and
 * on the same (stubbed) secret randomness, and require every output to be identical except what a
 * release gate let out — and a released value to move by no more than its declared sensitivity.
 *
 * The invariant (docs/HOUSE: "the output is the boundary, not only the noise"): a private run's
 * whole output — exit status, stdout, stderr, every file it writes — is assembled from gate
 * releases and public inputs. With the noise words held equal (`stubbedSecureRng`, a test double
 * that never protects real data), anything that differs between neighbours outside a declared
 * release is a leak that no noise covers: a count printed exactly, a vocabulary in frequency
 * order, a timing, an evaluation on private documents, an error message that names a document.
 *
 * The rules, in order (`compareNeighbourOutputs`):
 * 1. exit status equal;
 * 2. stdout, stderr and each file byte-identical, except the parts the caller declares
 *    release-derived (`releaseDerived`): JSON paths (e.g. `phi` of a model file, whose subtree is
 *    then not compared; the rest of the document is compared value by value and key by key) or
 *    whole text lines matching a pattern (e.g. a perplexity computed from φ on a public corpus);
 *    the same files must be written;
 * 3. the release ledgers equal: the same labels and events in the same order (the plan of a
 *    private run must not depend on its data);
 * 4. releases the caller asserts to depend on public data only (`publicReleases`) carry equal values;
 * 5. releases the caller marks `comparable` (the same noise words were drawn before them, so the
 *    shared noise cancels and the difference of the released values is the difference of the true
 *    values) differ by at most the declared sensitivity in each norm given (L1, L2, L∞).
 *
 * Trainer-agnostic: the harness knows nothing of the CLI. A third-party trainer's author writes a
 * `run(input, rng)` that trains with `rng` as its secret source and returns what the program would
 * print and write, and calls `expectNeighbourIndistinguishable(run, pair, options)` in a test.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import type { NeighbourPair } from '../attacks/pairs.js'
import type { ReleaseRecord } from '../mechanisms/gate.js'
import { type StubbedSecureRng, stubbedSecureRng } from './stubbed-secure.js'

/** Everything a run lets out: what a user sees and keeps, and what left its release gate. */
export interface RunOutputs {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** Files written, by a name the caller chooses (e.g. 'model.json'), with their bytes or text. */
  readonly files: Readonly<Record<string, Uint8Array | string>>
  /** The gate's releases in order (collect them with the gate's `onRelease`). */
  readonly releases: ReadonlyArray<ReleaseRecord>
}

/** A program under test: runs `input` with `rng` as its only secret randomness. */
export type NeighbourRun<I> = (input: I, rng: StubbedSecureRng) => RunOutputs | Promise<RunOutputs>

/** Parts of one output (stdout, stderr or a file) whose content comes from gate releases. */
export interface ReleaseDerived {
  /**
   * JSON paths, compared when both sides parse as JSON: `phi`, `evaluation.perplexity`,
   * `rows[*].value`, `["odd key"]` (a leading `$` is allowed). The subtree at a matching path is not
   * compared; everything else is, value by value and in key order.
   */
  readonly jsonPaths?: ReadonlyArray<string>
  /** Whole lines (without the newline) that are release-derived: two lines matching the same pattern compare equal. */
  readonly lines?: ReadonlyArray<RegExp>
}

/** A release whose two values must lie within the declared sensitivity of each other. */
export interface ComparableRelease {
  /** The release: its index in the ledger, or its label (the first release with that label, or whose label matches). */
  readonly release: number | string | RegExp
  /** Bounds on ‖a − b‖ in the norms given (at least one). */
  readonly l1?: number
  readonly l2?: number
  readonly linf?: number
  /** The numbers to compare, from a released value (default: a numeric array, typed or nested, as is). */
  readonly select?: (value: unknown) => ArrayLike<number>
}

export interface NeighbourOptions {
  /** By output: 'stdout', 'stderr', or a key of `files`. */
  readonly releaseDerived?: Readonly<Record<string, ReleaseDerived>>
  readonly comparable?: ReadonlyArray<ComparableRelease>
  /** Releases asserted to depend only on public inputs and the randomness: their values must be equal. */
  readonly publicReleases?: (release: ReleaseRecord, index: number) => boolean
  /** Seed of the stubbed secure source both runs get (default 'neighbour-differential'). */
  readonly seed?: string | number
  /** Differences reported per output at most (default 20; the rest are counted in one line). */
  readonly maxPerOutput?: number
}

/** One way the two runs differ. */
export interface Difference {
  /** 'exit code', 'stdout', 'stderr', 'file <name>', 'ledger', or 'release <i> (<label>)'. */
  readonly stream: string
  /** Where in it: a JSON path ('$.corpus.tokens'), 'line 3', 'byte 120', a ledger index, a norm. */
  readonly path: string
  /** The value in the run on `pair.input`. */
  readonly a: unknown
  /** The value in the run on `pair.neighbour`. */
  readonly b: unknown
  /** Why it counts, where the two values do not say it (a bound exceeded). */
  readonly note?: string
}

/** The distances measured for one comparable release. */
export interface ReleaseDistance {
  readonly index: number
  readonly label: string
  readonly l1: number
  readonly l2: number
  readonly linf: number
}

export interface NeighbourReport {
  readonly label: string
  /** Empty: the neighbours are indistinguishable by these rules. */
  readonly differences: ReadonlyArray<Difference>
  readonly distances: ReadonlyArray<ReleaseDistance>
  readonly a: RunOutputs
  readonly b: RunOutputs
}

/** Runs `pair.input` and `pair.neighbour`, each on a fresh `stubbedSecureRng(seed)`, and compares their outputs. */
export const neighbourDifferential = async <I>(run: NeighbourRun<I>, pair: NeighbourPair<I>, options: NeighbourOptions = {}): Promise<NeighbourReport> => {
  const seed = options.seed ?? 'neighbour-differential'
  const a = await run(pair.input, stubbedSecureRng(seed))
  const b = await run(pair.neighbour, stubbedSecureRng(seed))
  return { label: pair.label ?? 'neighbours', ...compareNeighbourOutputs(a, b, options), a, b }
}

/** Thrown by `expectNeighbourIndistinguishable`; carries the report. */
export class NeighbourLeakError extends Error {
  readonly report: NeighbourReport
  constructor(message: string, report: NeighbourReport) {
    super(message)
    this.name = 'NeighbourLeakError'
    this.report = report
  }
}

/**
 * `neighbourDifferential`, throwing a `NeighbourLeakError` that lists every difference when there is
 * one (vitest, jest and node:test print it as a failure). Returns the report otherwise.
 *
 * @example
 * ```ts
 * it('my trainer lets nothing out but its release', async () => {
 *   await expectNeighbourIndistinguishable(
 *     (docs, rng) => runMyTrainer(docs, rng),                  // → { code, stdout, stderr, files, releases }
 *     replaceWithVocabularyWord(corpus, vocabulary, 3),
 *     { releaseDerived: { 'model.json': { jsonPaths: ['phi'] } }, comparable: [{ release: 0, l1: 2, linf: 1 }] },
 *   )
 * })
 * ```
 */
export const expectNeighbourIndistinguishable = async <I>(run: NeighbourRun<I>, pair: NeighbourPair<I>, options: NeighbourOptions = {}): Promise<NeighbourReport> => {
  const report = await neighbourDifferential(run, pair, options)
  if (report.differences.length > 0) throw new NeighbourLeakError(formatNeighbourReport(report), report)
  return report
}

/** The report in words: one line per difference. */
export const formatNeighbourReport = (r: NeighbourReport): string => {
  if (r.differences.length === 0) return `neighbours indistinguishable (${r.label})`
  const head = `the outputs tell the neighbours apart (${r.label}): ${r.differences.length} difference${r.differences.length === 1 ? '' : 's'}`
  return [head, ...r.differences.map((d) => `  ${d.stream} ${d.path}: ${show(d.a)} vs ${show(d.b)}${d.note === undefined ? '' : ` (${d.note})`}`)].join('\n')
}

// ---------------------------------------------------------------------------------------------
// The comparison

/** The rules of the module comment applied to two runs' outputs (pure; no run). */
export const compareNeighbourOutputs = (
  a: RunOutputs,
  b: RunOutputs,
  options: NeighbourOptions = {},
): { readonly differences: ReadonlyArray<Difference>; readonly distances: ReadonlyArray<ReleaseDistance> } => {
  const max = options.maxPerOutput ?? 20
  const derived = options.releaseDerived ?? {}
  const out: Difference[] = []
  if (a.code !== b.code) out.push({ stream: 'exit code', path: '', a: a.code, b: b.code })
  out.push(...capped(compareOutput('stdout', a.stdout, b.stdout, derived['stdout']), max))
  out.push(...capped(compareOutput('stderr', a.stderr, b.stderr, derived['stderr']), max))
  const names = [...new Set([...Object.keys(a.files), ...Object.keys(b.files)])].sort()
  for (const name of names) {
    const fa = a.files[name]
    const fb = b.files[name]
    if (fa === undefined || fb === undefined) out.push({ stream: `file ${name}`, path: '', a: fa === undefined ? '(not written)' : '(written)', b: fb === undefined ? '(not written)' : '(written)' })
    else out.push(...capped(compareOutput(`file ${name}`, fa, fb, derived[name]), max))
  }
  out.push(...capped(compareLedgers(a.releases, b.releases), max))
  if (options.publicReleases !== undefined) {
    const n = Math.min(a.releases.length, b.releases.length)
    for (let i = 0; i < n; i++) {
      const ra = a.releases[i] as ReleaseRecord
      const rb = b.releases[i] as ReleaseRecord
      if (options.publicReleases(ra, i) && !isDeepStrictEqual(ra.value, rb.value))
        out.push({ stream: `release ${i} (${ra.label})`, path: 'value', a: ra.value, b: rb.value, note: 'declared public: its value must not depend on the private data' })
    }
  }
  const distances: ReleaseDistance[] = []
  for (const c of options.comparable ?? []) {
    const r = compareRelease(a.releases, b.releases, c)
    out.push(...r.differences)
    if (r.distance !== undefined) distances.push(r.distance)
  }
  return { differences: out, distances }
}

const capped = (ds: ReadonlyArray<Difference>, max: number): ReadonlyArray<Difference> =>
  ds.length <= max ? ds : [...ds.slice(0, max), { stream: ds[0]?.stream ?? '', path: '…', a: `${ds.length - max} more differences`, b: '' }]

const decoder = new TextDecoder('utf-8', { fatal: true })

const asText = (x: Uint8Array | string): string | undefined => {
  if (typeof x === 'string') return x
  try {
    return decoder.decode(x)
  } catch {
    return undefined
  }
}

const bytesOf = (x: Uint8Array | string): Uint8Array => (typeof x === 'string' ? new TextEncoder().encode(x) : x)

const parseJsonOrUndefined = (s: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(s) as unknown }
  } catch {
    return undefined
  }
}

/** One output: equal bytes; else JSON paths (when both parse), text lines, or the first differing byte. */
const compareOutput = (stream: string, x: Uint8Array | string, y: Uint8Array | string, derived: ReleaseDerived | undefined): Difference[] => {
  const bx = bytesOf(x)
  const by = bytesOf(y)
  if (bx.length === by.length && bx.every((v, i) => v === by[i])) return []
  const tx = asText(x)
  const ty = asText(y)
  if (tx === undefined || ty === undefined) {
    let i = 0
    while (i < bx.length && i < by.length && bx[i] === by[i]) i++
    return [{ stream, path: `byte ${i}`, a: bx[i] ?? '(end)', b: by[i] ?? '(end)' }]
  }
  const jx = tx.trim() === '' ? undefined : parseJsonOrUndefined(tx)
  const jy = ty.trim() === '' ? undefined : parseJsonOrUndefined(ty)
  if (jx !== undefined && jy !== undefined) {
    const patterns = (derived?.jsonPaths ?? []).map(parsePattern)
    const ds: Difference[] = []
    compareJson(stream, [], jx.value, jy.value, patterns, ds)
    // equal values written differently (spacing, number format) outside any declared part still tell the runs apart
    if (ds.length === 0 && patterns.length === 0) ds.push(firstTextDifference(stream, tx, ty))
    return ds
  }
  return compareLines(stream, tx, ty, derived?.lines ?? [])
}

const lineKey = (line: string, patterns: ReadonlyArray<RegExp>): string => {
  const i = patterns.findIndex((p) => wholeMatch(p, line))
  return i < 0 ? `=${line}` : `~${i}`
}

const wholeMatch = (p: RegExp, line: string): boolean => {
  const m = new RegExp(p.source, p.flags.replace(/[gy]/g, '')).exec(line)
  return m !== null && m.index === 0 && m[0].length === line.length
}

/** Line by line (release-derived lines compare by the pattern they match); a changed line count is one more difference. */
const compareLines = (stream: string, x: string, y: string, patterns: ReadonlyArray<RegExp>): Difference[] => {
  const lx = x.split('\n')
  const ly = y.split('\n')
  const ds: Difference[] = []
  for (let i = 0; i < Math.max(lx.length, ly.length); i++) {
    const a = lx[i]
    const b = ly[i]
    if (a === undefined || b === undefined || lineKey(a, patterns) !== lineKey(b, patterns)) ds.push({ stream, path: `line ${i + 1}`, a: a ?? '(no line)', b: b ?? '(no line)' })
  }
  return ds
}

const firstTextDifference = (stream: string, x: string, y: string): Difference => {
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  return { stream, path: `character ${i}`, a: x.slice(Math.max(0, i - 20), i + 40), b: y.slice(Math.max(0, i - 20), i + 40), note: 'the same content, written differently' }
}

type Segment = string | number
type PatternSegment = string | number | '*'

/** `a.b[3]["odd key"][*]` (a leading `$` allowed) → segments; `*` matches any key or index. */
const parsePattern = (p: string): ReadonlyArray<PatternSegment> => {
  const segs: PatternSegment[] = []
  const re = /\.?([^.[\]]+)|\[(\d+|\*|"(?:[^"\\]|\\.)*")\]/gy
  const src = p.startsWith('$') ? p.slice(1) : p
  let m: RegExpExecArray | null
  let at = 0
  re.lastIndex = 0
  while ((m = re.exec(src)) !== null) {
    at = re.lastIndex
    if (m[1] !== undefined) segs.push(m[1])
    else {
      const s = m[2] as string
      segs.push(s === '*' ? '*' : s.startsWith('"') ? (JSON.parse(s) as string) : Number(s))
    }
    if (re.lastIndex === src.length) break
  }
  if (at !== src.length) throw new SyntaxError(`releaseDerived: cannot read the JSON path "${p}" (use a.b[3]["odd key"][*])`)
  return segs
}

const matchesPrefix = (path: ReadonlyArray<Segment>, pattern: ReadonlyArray<PatternSegment>): boolean =>
  pattern.length <= path.length && pattern.every((s, i) => s === '*' || s === path[i] || (typeof s === 'number' && String(s) === String(path[i])))

export const showPath = (path: ReadonlyArray<Segment>): string =>
  `$${path.map((s) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)).join('')}`

const compareJson = (stream: string, path: Segment[], x: unknown, y: unknown, patterns: ReadonlyArray<ReadonlyArray<PatternSegment>>, out: Difference[]): void => {
  if (patterns.some((p) => matchesPrefix(path, p))) return
  const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
  if (kind(x) !== kind(y)) {
    out.push({ stream, path: showPath(path), a: x, b: y })
    return
  }
  if (Array.isArray(x) && Array.isArray(y)) {
    if (x.length !== y.length) out.push({ stream, path: `${showPath(path)}.length`, a: x.length, b: y.length })
    for (let i = 0; i < Math.min(x.length, y.length); i++) compareJson(stream, [...path, i], x[i], y[i], patterns, out)
    return
  }
  if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null) {
    const kx = Object.keys(x)
    const ky = Object.keys(y)
    for (const k of kx) if (!(k in y)) out.push({ stream, path: showPath([...path, k]), a: (x as Record<string, unknown>)[k], b: '(absent)' })
    for (const k of ky) if (!(k in x)) out.push({ stream, path: showPath([...path, k]), a: '(absent)', b: (y as Record<string, unknown>)[k] })
    const common = kx.filter((k) => k in y)
    const orderY = ky.filter((k) => k in x)
    if (!isDeepStrictEqual(common, orderY)) out.push({ stream, path: `${showPath(path)} (key order)`, a: common, b: orderY })
    for (const k of common) compareJson(stream, [...path, k], (x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], patterns, out)
    return
  }
  if (!Object.is(x, y)) out.push({ stream, path: showPath(path), a: x, b: y })
}

/** Same labels and events, in the same order. */
const compareLedgers = (a: ReadonlyArray<ReleaseRecord>, b: ReadonlyArray<ReleaseRecord>): Difference[] => {
  const ds: Difference[] = []
  if (a.length !== b.length) ds.push({ stream: 'ledger', path: 'length', a: a.length, b: b.length, note: 'the plan of a private run must not depend on its data' })
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const ra = a[i] as ReleaseRecord
    const rb = b[i] as ReleaseRecord
    if (ra.label !== rb.label) ds.push({ stream: 'ledger', path: `#${i} label`, a: ra.label, b: rb.label })
    if (!isDeepStrictEqual(ra.event, rb.event)) ds.push({ stream: 'ledger', path: `#${i} event (${ra.label})`, a: ra.event, b: rb.event })
  }
  return ds
}

const numbersOf = (v: unknown): ArrayLike<number> | undefined => {
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    if (v instanceof BigInt64Array || v instanceof BigUint64Array) return undefined
    return v as unknown as ArrayLike<number>
  }
  if (!Array.isArray(v)) return undefined
  const flat: number[] = []
  const walk = (x: unknown): boolean => {
    if (typeof x === 'number') {
      flat.push(x)
      return true
    }
    if (Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView))) {
      for (const e of x as ArrayLike<unknown> as unknown[]) if (!walk(e)) return false
      return true
    }
    return false
  }
  return walk(v) ? flat : undefined
}

const findRelease = (rs: ReadonlyArray<ReleaseRecord>, which: ComparableRelease['release']): number =>
  typeof which === 'number' ? (which < rs.length ? which : -1) : rs.findIndex((r) => (typeof which === 'string' ? r.label === which : which.test(r.label)))

/** Relative slack for rounding in the released values' arithmetic. */
const within = (d: number, bound: number): boolean => d <= bound * (1 + 1e-9) + 1e-12

const compareRelease = (a: ReadonlyArray<ReleaseRecord>, b: ReadonlyArray<ReleaseRecord>, c: ComparableRelease): { differences: Difference[]; distance?: ReleaseDistance } => {
  if (c.l1 === undefined && c.l2 === undefined && c.linf === undefined) throw new RangeError(`comparable release ${String(c.release)}: give at least one of l1, l2, linf`)
  const ia = findRelease(a, c.release)
  const ib = findRelease(b, c.release)
  const name = `release ${String(c.release)}`
  if (ia < 0 || ib < 0) return { differences: [{ stream: name, path: 'present', a: ia >= 0, b: ib >= 0, note: 'a release declared comparable was not made' }] }
  const ra = a[ia] as ReleaseRecord
  const rb = b[ib] as ReleaseRecord
  const stream = `release ${ia} (${ra.label})`
  const select = c.select ?? numbersOf
  const xa = select(ra.value)
  const xb = select(rb.value)
  if (xa === undefined || xb === undefined) throw new TypeError(`${stream}: the released value is not a numeric array; pass \`select\` to say which numbers to compare`)
  if (xa.length !== xb.length) return { differences: [{ stream, path: 'length', a: xa.length, b: xb.length, note: 'the released shape must not depend on the data' }] }
  let l1 = 0
  let l2 = 0
  let linf = 0
  for (let i = 0; i < xa.length; i++) {
    const d = Math.abs((xa[i] as number) - (xb[i] as number))
    l1 += d
    l2 += d * d
    if (d > linf || Number.isNaN(d)) linf = d
  }
  l2 = Math.sqrt(l2)
  const distance: ReleaseDistance = { index: ia, label: ra.label, l1, l2, linf }
  const differences: Difference[] = []
  const check = (norm: string, d: number, bound: number | undefined): void => {
    if (bound !== undefined && !within(d, bound)) differences.push({ stream, path: `${norm} distance`, a: d, b: bound, note: `‖a − b‖ = ${d} exceeds the declared sensitivity ${bound}` })
  }
  check('L1', l1, c.l1)
  check('L2', l2, c.l2)
  check('L∞', linf, c.linf)
  return { differences, distance }
}

/** A value in one line of a report: strings quoted, long values cut. */
const show = (v: unknown): string => {
  let s: string
  if (typeof v === 'string') s = JSON.stringify(v)
  else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) s = `${v.constructor.name}(${(v as unknown as ArrayLike<unknown>).length}) [${Array.from(v as unknown as ArrayLike<unknown>).slice(0, 8).join(', ')}…]`
  else {
    try {
      s = JSON.stringify(v, (_k, x: unknown) => (ArrayBuffer.isView(x) && !(x instanceof DataView) ? `${x.constructor.name}(${(x as unknown as ArrayLike<unknown>).length})` : x)) ?? String(v)
    } catch {
      s = String(v)
    }
  }
  return s.length > 160 ? `${s.slice(0, 157)}…` : s
}
