/**
 * The input contract of `dpaudit report <input>`. The input is one JSON file, recognised by its
 * content:
 * - a model file from `dpaudit train` ("kind": "dpaudit-lda-model"): privacy statement, ledger and
 *   curves from its plan, utility from its recorded evaluation;
 * - an audit result from `dpaudit audit --out` ("tool": "dpaudit audit"): the audit section;
 * - a spec (`{"schemaVersion": 1, "event": …}`, as `dpaudit account` reads): statement, ledger, curves;
 * - a manifest that combines them ("kind": "dpaudit-report-input"):
 *   `{ "kind": "dpaudit-report-input", "schemaVersion": 1, "title"?: string,
 *      "models"?: [paths], "audit"?: path, "spec"?: path, "claims"?: [claim ids], "deltas"?: [δ] }`
 *   with paths relative to the manifest. The privacy statement comes from the spec when one is
 *   given, else from the first model; every model with an evaluation adds a utility row; a
 *   manifest with only "claims" gives a report of those verdicts (evidence to hand on).
 * Every input file is hashed (SHA-256 of its bytes) for the reproducibility section.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { dirname, resolve } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { firstDecodeError } from '../../core/decode.js'
import { type DpError, decodeFailure } from '../../core/error.js'
import { parseJson } from '../../core/json.js'
import { readBoundedText } from '../../core/read-file.js'
import { decodeSpec, type Spec } from '../../mechanisms/codec.js'
import { decodeModelFile, MODEL_KIND, type ModelFile } from '../../trainers/model-file.js'
import { checkAuditResult } from '../audit-check.js'
import { AuditOutput } from '../schemas.js'

export const REPORT_INPUT_KIND = 'dpaudit-report-input'

/** The manifest's codec. */
export const ReportManifest = t.intersection([
  t.type({ kind: t.literal(REPORT_INPUT_KIND), schemaVersion: t.literal(1) }),
  t.partial({ title: t.string, models: t.array(t.string), audit: t.string, spec: t.string, claims: t.array(t.string), deltas: t.array(t.number) }),
])
export type ReportManifest = t.TypeOf<typeof ReportManifest>

export interface InputFile<A> {
  readonly role: 'model' | 'audit' | 'spec' | 'manifest'
  readonly path: string
  readonly sha256: string
  readonly bytes: number
  readonly value: A
}

export interface ReportInputs {
  readonly title?: string
  readonly manifest?: InputFile<ReportManifest>
  readonly models: ReadonlyArray<InputFile<ModelFile>>
  readonly audit?: InputFile<AuditOutput>
  readonly spec?: InputFile<Spec>
  readonly claims: ReadonlyArray<string>
  readonly deltas?: ReadonlyArray<number>
}

/** Largest report input file: models, audits and specs are far smaller. */
export const MAX_REPORT_INPUT_BYTES = 256 * 1024 * 1024

const readJson = (path: string): E.Either<DpError, { text: string; value: unknown }> => {
  // a device or FIFO named by a manifest would hang the read: refused, as is a file over the bound
  const read = readBoundedText(path, MAX_REPORT_INPUT_BYTES)
  if (E.isLeft(read)) return E.left(decodeFailure(path, '…', read.left.startsWith(`${path}: `) ? read.left.slice(path.length + 2) : read.left))
  const text = read.right
  const u = parseJson(text)
  return E.isLeft(u) ? E.left(decodeFailure(path, '…', `not valid JSON (${u.left})`)) : E.right({ text, value: u.right })
}

const file = <A>(role: InputFile<A>['role'], path: string, text: string, value: A): InputFile<A> => ({
  role,
  path,
  sha256: createHash('sha256').update(text).digest('hex'),
  bytes: Buffer.byteLength(text),
  value,
})

type Kind = 'model' | 'audit' | 'spec' | 'manifest'

const kindOf = (u: unknown): Kind | undefined => {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return undefined
  const r = u as Record<string, unknown>
  if (r['kind'] === MODEL_KIND) return 'model'
  if (r['kind'] === REPORT_INPUT_KIND) return 'manifest'
  if (r['tool'] === 'dpaudit audit') return 'audit'
  if ('event' in r) return 'spec'
  return undefined
}

const decodeAs = (kind: Exclude<Kind, 'manifest'>, path: string, text: string, u: unknown): E.Either<DpError, Partial<ReportInputs> & { models?: ReadonlyArray<InputFile<ModelFile>> }> => {
  switch (kind) {
    case 'model': {
      const m = decodeModelFile(u, `${path}:$`)
      return E.isLeft(m) ? m : E.right({ models: [file('model', path, text, m.right)] })
    }
    case 'audit': {
      const a = AuditOutput.decode(u)
      if (E.isLeft(a)) return E.left(firstDecodeError(a.left, `${path}:$`))
      // a verdict or bound that its own numbers contradict is refused, not reported
      const consistent = checkAuditResult(path, a.right.result)
      return E.isLeft(consistent) ? consistent : E.right({ audit: file('audit', path, text, a.right) })
    }
    case 'spec': {
      const s = decodeSpec(u, `${path}:$`)
      return E.isLeft(s) ? s : E.right({ spec: file('spec', path, text, s.right) })
    }
  }
}

const expect = (kind: Exclude<Kind, 'manifest'>, path: string): E.Either<DpError, Partial<ReportInputs>> => {
  const j = readJson(path)
  if (E.isLeft(j)) return j
  const k = kindOf(j.right.value)
  if (k !== kind) return E.left(decodeFailure(`${path}:$`, k ?? 'unrecognised JSON', `expected ${kind === 'model' ? 'a model file' : kind === 'audit' ? 'an audit result' : 'a spec'}`))
  return decodeAs(kind, path, j.right.text, j.right.value)
}

/** Reads a report input (model file, audit result, spec or manifest); errors name the file, the JSON path and the value. */
export const readReportInput = (path: string): E.Either<DpError, ReportInputs> => {
  const j = readJson(path)
  if (E.isLeft(j)) return j
  const k = kindOf(j.right.value)
  if (k === undefined)
    return E.left(decodeFailure(`${path}:$`, j.right.value, `not a report input: expected a model file ("kind": "${MODEL_KIND}"), an audit result ("tool": "dpaudit audit"), a spec (with "event") or a manifest ("kind": "${REPORT_INPUT_KIND}")`))
  if (k !== 'manifest') {
    const one = decodeAs(k, path, j.right.text, j.right.value)
    return E.isLeft(one) ? one : E.right({ models: [], claims: [], ...one.right })
  }
  const m = ReportManifest.decode(j.right.value)
  if (E.isLeft(m)) return E.left(firstDecodeError(m.left, `${path}:$`))
  const man = m.right
  const at = (p: string): string => resolve(dirname(path), p)
  const models: InputFile<ModelFile>[] = []
  for (const p of man.models ?? []) {
    const r = expect('model', at(p))
    if (E.isLeft(r)) return r
    models.push(...(r.right.models ?? []))
  }
  let audit: InputFile<AuditOutput> | undefined
  if (man.audit !== undefined) {
    const r = expect('audit', at(man.audit))
    if (E.isLeft(r)) return r
    audit = r.right.audit
  }
  let spec: InputFile<Spec> | undefined
  if (man.spec !== undefined) {
    const r = expect('spec', at(man.spec))
    if (E.isLeft(r)) return r
    spec = r.right.spec
  }
  if (models.length === 0 && audit === undefined && spec === undefined && (man.claims ?? []).length === 0)
    return E.left(decodeFailure(`${path}:$`, man, 'the manifest names no input: give "models", "audit", "spec" or "claims"'))
  return E.right({
    ...(man.title === undefined ? {} : { title: man.title }),
    manifest: file('manifest', path, j.right.text, man),
    models,
    ...(audit === undefined ? {} : { audit }),
    ...(spec === undefined ? {} : { spec }),
    claims: man.claims ?? [],
    ...(man.deltas === undefined ? {} : { deltas: man.deltas }),
  })
}
