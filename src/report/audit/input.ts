/**
 * The inputs of a report, in memory (`ReportInputs`: what `report()` and `buildReport` take) and on
 * disk (`readReportInput`: what `dpaudit report <input>` reads). A file is recognised by its content:
 * - a model file from `dpaudit train` ("kind": "dpaudit-lda-model"): its privacy statement, ledger,
 *   curves and utility;
 * - an audit result of any kind (./audits.ts): mechanism (`dpaudit audit --out`, or the library's
 *   result), trainer (local or queued), one-run, classifier membership;
 * - a spec (`{"schemaVersion": 1, "event": …}`, as `dpaudit account` reads);
 * - a manifest that combines them ("kind": "dpaudit-report-input"):
 *   ```json
 *   { "kind": "dpaudit-report-input", "schemaVersion": 1, "title": "…", "deltas": [1e-5],
 *     "models": ["a.json"], "audits": ["laplace.audit.json", { "path": "x.json", "claim": { "epsilon": 1, "delta": 0 } }],
 *     "specs": ["spec.json"], "claims": ["lp-lda.theorem4"],
 *     "subjects": [{ "name": "Laplace, b = 1", "claim": { "epsilon": 1, "delta": 0, "source": "the textbook" },
 *                    "specs": ["laplace.spec.json"], "audits": ["laplace.audit.json"] }] }
 *   ```
 *   Paths are relative to the manifest. An entry is a path or `{ path, subject?, claim? }`. Entries
 *   of the top-level lists go to the subject their content names (a model's trainer and corpus, a
 *   spec's name, an audit's mechanism or trainer); a `subjects` block says which parts belong
 *   together, and a part that cannot belong to its subject (a trainer audit of another trainer, a
 *   spec and a model with different plans, a zoo mechanism beside a trained model) is an error
 *   naming both. "audit" and "spec" (one path each) are still read, as one-element lists.
 *
 * Every input is hashed (SHA-256 of its bytes); the report names it by its path relative to the
 * manifest (or, for a single input, to the report's folder), never by an absolute path.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { firstDecodeError } from '../../core/decode.js'
import { type DpError, decodeFailure } from '../../core/error.js'
import { parseJson } from '../../core/json.js'
import { readBoundedText } from '../../core/read-file.js'
import { decodeSpec, type Spec } from '../../mechanisms/codec.js'
import { decodeCheckedModelFile, MODEL_KIND, type ModelFile } from '../../trainers/model-file.js'
import { auditKindOf } from './audits.js'

export const REPORT_INPUT_KIND = 'dpaudit-report-input'

const ClaimJson = t.intersection([t.type({ epsilon: t.number, delta: t.number }), t.partial({ source: t.string })])
/** A manifest entry: a path, or a path with the subject it belongs to and (one-run mechanism audits) its claim. */
const Entry = t.union([t.string, t.intersection([t.type({ path: t.string }), t.partial({ subject: t.string, claim: ClaimJson })])])
type Entry = t.TypeOf<typeof Entry>
const Parts = { models: t.array(Entry), audits: t.array(Entry), specs: t.array(Entry), claims: t.array(t.string) }

/** The manifest's codec. */
export const ReportManifest = t.intersection([
  t.type({ kind: t.literal(REPORT_INPUT_KIND), schemaVersion: t.literal(1) }),
  t.partial({
    title: t.string,
    deltas: t.array(t.number),
    ...Parts,
    audit: t.string,
    spec: t.string,
    subjects: t.array(t.intersection([t.type({ name: t.string }), t.partial({ ...Parts, claim: ClaimJson })])),
  }),
])
export type ReportManifest = t.TypeOf<typeof ReportManifest>

/** One input: its value, how the report names it, and (read from a file) its hash and size. */
export interface ReportItem<A> {
  readonly value: A
  /** How the report names it: a path relative to the manifest or the report's folder, or a name given in code. */
  readonly input: string
  /** The subject it belongs to, when the manifest or the caller says so (else its content names one). */
  readonly subject?: string
  /** The claim a one-run mechanism audit was tested against (it records none). */
  readonly claim?: { readonly epsilon: number; readonly delta: number }
  readonly sha256?: string
  readonly bytes?: number
  /** The file it was read from, as given (for refusing an output over an input; never written out). */
  readonly file?: string
}

/** A subject declared by the manifest or the caller: its name and the claim made for it. */
export interface DeclaredSubject {
  readonly name: string
  readonly claim?: { readonly epsilon: number; readonly delta: number; readonly source?: string }
  /** Paper claims (ids) about this subject: their verdicts are checked to be about it. */
  readonly claims?: ReadonlyArray<string>
}

export interface ReportInputs {
  readonly title?: string
  /** The manifest itself (hash and name), when the inputs came from one. */
  readonly manifest?: ReportItem<ReportManifest>
  readonly models: ReadonlyArray<ReportItem<ModelFile>>
  /** Audit results of any kind, as JSON values (./audits.ts recognises them). */
  readonly audits: ReadonlyArray<ReportItem<unknown>>
  readonly specs: ReadonlyArray<ReportItem<Spec>>
  readonly claims: ReadonlyArray<string>
  readonly subjects?: ReadonlyArray<DeclaredSubject>
  readonly deltas?: ReadonlyArray<number>
}

/** Largest report input file: models, audits and specs are far smaller. */
export const MAX_REPORT_INPUT_BYTES = 256 * 1024 * 1024

const readJson = (path: string, at: string): E.Either<DpError, { text: string; value: unknown }> => {
  // a device or FIFO named by a manifest would hang the read: refused, as is a file over the bound
  const read = readBoundedText(path, MAX_REPORT_INPUT_BYTES)
  if (E.isLeft(read)) return E.left(decodeFailure(at, '…', read.left.startsWith(`${path}: `) ? read.left.slice(path.length + 2) : read.left))
  const u = parseJson(read.right)
  return E.isLeft(u) ? E.left(decodeFailure(at, '…', `not valid JSON (${u.left})`)) : E.right({ text: read.right, value: u.right })
}

const hashed = (text: string): { sha256: string; bytes: number } => ({ sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) })

type Kind = 'model' | 'audit' | 'spec' | 'manifest'

const kindOf = (u: unknown): Kind | undefined => {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return undefined
  const r = u as Record<string, unknown>
  if (r['kind'] === MODEL_KIND) return 'model'
  if (r['kind'] === REPORT_INPUT_KIND) return 'manifest'
  if (auditKindOf(u) !== undefined) return 'audit'
  if ('event' in r) return 'spec'
  return undefined
}

const WHAT: Record<Exclude<Kind, 'manifest'>, string> = { model: 'a model file', audit: 'an audit result', spec: 'a spec' }

/** A path as the report shows it: relative to `base`, with forward slashes; never absolute. */
export const shownPath = (file: string, base: string): string => {
  const r = relative(base, resolve(file))
  const shown = r === '' ? '.' : r.split(sep).join('/')
  return isAbsolute(shown) ? (shown.split('/').pop() ?? shown) : shown
}

type Parts = Pick<ReportInputs, 'models' | 'audits' | 'specs'>

const one = (kind: Exclude<Kind, 'manifest'>, file: string, input: string, text: string, u: unknown, extra: Pick<ReportItem<unknown>, 'subject' | 'claim'>): E.Either<DpError, Parts> => {
  const item = { input, file, ...hashed(text), ...extra }
  switch (kind) {
    case 'model': {
      const m = decodeCheckedModelFile(u, `${file}:$`)
      return E.isLeft(m) ? m : E.right({ models: [{ ...item, value: m.right }], audits: [], specs: [] })
    }
    case 'audit':
      // decoded and checked against its own numbers when the report is built (./audits.ts)
      return E.right({ models: [], audits: [{ ...item, value: u }], specs: [] })
    case 'spec': {
      const s = decodeSpec(u, `${file}:$`)
      return E.isLeft(s) ? s : E.right({ models: [], audits: [], specs: [{ ...item, value: s.right }] })
    }
  }
}

const readAs = (kind: Exclude<Kind, 'manifest'>, file: string, input: string, extra: Pick<ReportItem<unknown>, 'subject' | 'claim'>): E.Either<DpError, Parts> => {
  const j = readJson(file, `${file}:$`)
  if (E.isLeft(j)) return j
  const k = kindOf(j.right.value)
  if (k !== kind) return E.left(decodeFailure(`${file}:$`, k ?? 'unrecognised JSON', `expected ${WHAT[kind]}`))
  return one(kind, file, input, j.right.text, j.right.value, extra)
}

/**
 * Reads a report input (model file, audit result, spec or manifest); errors name the file (as the
 * report would show it), the JSON path and the value. `reportDir`: the folder the report goes to,
 * against which a single input's path is shown (default: the current folder).
 */
export const readReportInput = (path: string, options: { readonly reportDir?: string } = {}): E.Either<DpError, ReportInputs> => {
  const single = shownPath(path, options.reportDir ?? '.')
  const j = readJson(path, `${path}:$`)
  if (E.isLeft(j)) return j
  const k = kindOf(j.right.value)
  if (k === undefined)
    return E.left(
      decodeFailure(`${path}:$`, j.right.value, `not a report input: expected a model file ("kind": "${MODEL_KIND}"), an audit result (mechanism, trainer, one-run or classifier membership), a spec (with "event") or a manifest ("kind": "${REPORT_INPUT_KIND}")`),
    )
  if (k !== 'manifest') {
    const r = one(k, path, single, j.right.text, j.right.value, {})
    return E.isLeft(r) ? r : E.right({ ...r.right, claims: [] })
  }
  const m = ReportManifest.decode(j.right.value)
  if (E.isLeft(m)) return E.left(firstDecodeError(m.left, `${path}:$`))
  const man = m.right
  const base = dirname(path)
  const models: Array<ReportItem<ModelFile>> = []
  const audits: Array<ReportItem<unknown>> = []
  const specs: Array<ReportItem<Spec>> = []
  const claims: string[] = [...(man.claims ?? [])]
  const seen = new Map<string, string>()
  const add = (kind: Exclude<Kind, 'manifest'>, entries: ReadonlyArray<Entry>, where: string, subject?: string): E.Either<DpError, void> => {
    for (const [i, e] of entries.entries()) {
      const p = typeof e === 'string' ? e : e.path
      // errors name the file as the manifest writes it (resolved); the report, relative to the manifest
      const file = isAbsolute(p) ? p : resolve(base, p)
      const input = shownPath(file, base)
      const sub = typeof e === 'string' ? subject : (e.subject ?? subject)
      if (subject !== undefined && typeof e !== 'string' && e.subject !== undefined && e.subject !== subject)
        return E.left(decodeFailure(`${path}:$.${where}[${i}].subject`, e.subject, `the entry is listed under subject "${subject}"`))
      // the same file in two subjects is a manifest whose parts do not belong together
      const key = `${kind}:${file}`
      const before = seen.get(key)
      if (before !== undefined && before !== (sub ?? '')) return E.left(decodeFailure(`${path}:$.${where}[${i}]`, p, `${input} is already listed under ${before === '' ? 'no subject' : `subject "${before}"`}`))
      if (before !== undefined) continue
      seen.set(key, sub ?? '')
      const r = readAs(kind, file, input, { ...(sub === undefined ? {} : { subject: sub }), ...(typeof e === 'string' || e.claim === undefined ? {} : { claim: e.claim }) })
      if (E.isLeft(r)) return r
      models.push(...r.right.models)
      audits.push(...r.right.audits)
      specs.push(...r.right.specs)
    }
    return E.right(undefined)
  }
  const lists: Array<[Exclude<Kind, 'manifest'>, ReadonlyArray<Entry>, string, string | undefined]> = [
    ['model', man.models ?? [], 'models', undefined],
    ['audit', [...(man.audit === undefined ? [] : [man.audit]), ...(man.audits ?? [])], man.audit === undefined ? 'audits' : 'audit', undefined],
    ['spec', [...(man.spec === undefined ? [] : [man.spec]), ...(man.specs ?? [])], man.spec === undefined ? 'specs' : 'spec', undefined],
  ]
  for (const [i, s] of (man.subjects ?? []).entries()) {
    lists.push(['model', s.models ?? [], `subjects[${i}].models`, s.name], ['audit', s.audits ?? [], `subjects[${i}].audits`, s.name], ['spec', s.specs ?? [], `subjects[${i}].specs`, s.name])
    claims.push(...(s.claims ?? []))
  }
  for (const [kind, entries, where, subject] of lists) {
    const r = add(kind, entries, where, subject)
    if (E.isLeft(r)) return r
  }
  const names = (man.subjects ?? []).map((s) => s.name)
  const dup = names.find((n, i) => names.indexOf(n) !== i)
  if (dup !== undefined) return E.left(decodeFailure(`${path}:$.subjects`, dup, 'two subjects have the same name'))
  if (models.length === 0 && audits.length === 0 && specs.length === 0 && claims.length === 0)
    return E.left(decodeFailure(`${path}:$`, man, 'the manifest names no input: give "models", "audits", "specs", "claims" or "subjects"'))
  // the statement's δ values, checked here so that a bad one names the manifest and its place
  const badDelta = (man.deltas ?? []).findIndex((d) => !(d >= 0 && d < 1))
  if (badDelta >= 0) return E.left(decodeFailure(`${path}:$.deltas[${badDelta}]`, man.deltas?.[badDelta], 'a δ in [0, 1) (0: pure ε-DP)'))
  return E.right({
    ...(man.title === undefined ? {} : { title: man.title }),
    manifest: { value: man, input: single, file: path, ...hashed(j.right.text) },
    models,
    audits,
    specs,
    claims: [...new Set(claims)],
    ...(man.subjects === undefined ? {} : { subjects: man.subjects.map((s) => ({ name: s.name, ...(s.claim === undefined ? {} : { claim: s.claim }), ...(s.claims === undefined ? {} : { claims: s.claims }) })) }),
    ...(man.deltas === undefined ? {} : { deltas: man.deltas }),
  })
}
