/**
 * The imperative shell's input side: read a file, parse JSON, and turn every failure into one
 * line naming the file. Nothing here throws past its caller.
 *
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs'
import { dirname } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { parseJson } from '../core/json.js'
import { resolveWriteTarget } from '../core/atomic-file.js'
import { readBoundedText } from '../core/read-file.js'

/** Reads a JSON input: a regular file within the bound (core/read-file.ts), strict UTF-8, then parsed. */
export const readJsonFile = (file: string): E.Either<string, unknown> => {
  const read = readBoundedText(file)
  if (E.isLeft(read)) return read
  const parsed = parseJson(read.right)
  return E.isLeft(parsed) ? E.left(`${file}: not valid JSON (${parsed.left})`) : parsed
}

/**
 * The one-line message for an argument error thrown by `parseArgs`, or undefined for any other
 * error. Node's own text for an unknown option leaves a quote open (`as in '-- "--x"`); ours names
 * the option and the way to pass such a word as a positional argument.
 */
export const argumentError = (err: { code?: string; message?: string }): string | undefined => {
  if (typeof err.code !== 'string' || !err.code.startsWith('ERR_PARSE_ARGS')) return undefined
  const msg = err.message ?? 'bad arguments'
  const unknown = /^Unknown option '([^']*)'/.exec(msg)
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown !== null)
    return `unknown option ${unknown[1]} (dpaudit help for usage; a positional argument that starts with '-' goes after --, as in -- ${unknown[1]})`
  return `${msg.replace(/\s*\n\s*/g, ' ')} (dpaudit help for usage)` // one line, as every input error
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

/**
 * Checks, before any work, that `--flag path` can be written the way `writeFileAtomic` writes it:
 * not a directory or a special file (device, FIFO, socket), a symbolic link followed to its
 * target, and the target's folder writable (the temporary file and the rename both need it).
 * Right: the path that will be replaced; Left: one line naming the flag and the path.
 */
export const checkOutputPath = (path: string, flag: string): E.Either<string, string> => {
  const fail = (why: string) => E.left(`--${flag} ${path}: ${why}`)
  if (path.trim() === '') return fail('an empty path')
  const target = resolveWriteTarget(path)
  if (E.isLeft(target)) return fail(target.left)
  const dir = dirname(target.right.path)
  try {
    if (!statSync(dir).isDirectory()) return fail(`${dir} is not a folder`)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return fail(code === 'ENOENT' || code === 'ENOTDIR' ? `the folder ${dir} does not exist` : `cannot inspect the folder ${dir} (${code ?? String(e)})`)
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK)
    if (target.right.mode !== undefined) accessSync(target.right.path, constants.W_OK)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return fail(`not writable (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only file system' : (code ?? String(e))})`)
  }
  return E.right(target.right.path)
}
