/**
 * Atomic file writes for models and corpora: write a temporary file next to the target, then
 * rename it over the target, so a crash or an error never leaves a partial file behind.
 *
 * @module
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, invalidParameter } from '../core/error.js'

export const writeFileAtomic = (file: string, content: string): E.Either<DpError, void> => {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`)
  try {
    writeFileSync(tmp, content)
    renameSync(tmp, file)
    return E.right(undefined)
  } catch (e) {
    rmSync(tmp, { force: true })
    return E.left(invalidParameter(file, file, `cannot write the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`))
  }
}
