/**
 * The imperative shell's input side: read a file, parse JSON, and turn every failure into one
 * line naming the file. Nothing here throws past its caller.
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import { parseJson } from '../core/json.js'

export const readJsonFile = (file: string): E.Either<string, unknown> => {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return E.left(`${file}: cannot read the file (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unknown error')})`)
  }
  const parsed = parseJson(text)
  return E.isLeft(parsed) ? E.left(`${file}: not valid JSON (${parsed.left})`) : parsed
}

/** Parses a comma-separated list of numbers, naming the option and the bad item on failure. */
export const parseNumberList = (option: string, raw: string): E.Either<string, ReadonlyArray<number>> => {
  const items = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0)
  if (items.length === 0) return E.left(`--${option}: expected a comma-separated list of numbers (got "${raw}")`)
  const out: number[] = []
  for (const s of items) {
    const x = Number(s)
    if (!Number.isFinite(x)) return E.left(`--${option}: "${s}" is not a finite number`)
    out.push(x)
  }
  return E.right(out)
}

/** Parses one number option, naming it on failure. */
export const parseNumber = (option: string, raw: string | undefined): E.Either<string, number> => {
  if (raw === undefined) return E.left(`--${option} is required`)
  const x = Number(raw)
  return raw.trim() === '' || Number.isNaN(x) ? E.left(`--${option}: "${raw}" is not a number`) : E.right(x)
}
