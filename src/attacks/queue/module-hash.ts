/**
 * The identity of audited code that lives outside dpaudit: a module file and the modules it
 * imports by relative path (`./step.mjs`, `../lib/x.js`), hashed together. A queue job carries the
 * coordinator's hash and every worker hashes its own copy, so a worker whose plug-in (or one of the
 * files it imports) differs refuses the job instead of answering for other code. Bare imports
 * (`dpaudit/…`, `io-ts`) are packages, covered by the dpaudit version the job also carries.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Static `import … from './x'`, `export … from './x'`, `import './x'` and literal `import('./x')` specifiers that are relative paths. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g

/**
 * A hash of the module at `url` (a `file:` URL) and of every module it reaches by relative imports,
 * each file once, in a fixed order; or `unreadable: CODE` when the module itself cannot be read here.
 */
export const moduleHash = (url: string): string => {
  const entry = fileURLToPath(url)
  let text: Buffer
  try {
    text = readFileSync(entry)
  } catch (e) {
    return `unreadable: ${e instanceof Error && 'code' in e ? String(e.code) : String(e)}`
  }
  const h = createHash('sha256')
  const seen = new Set<string>([entry])
  const queue: Array<[string, Buffer | null]> = [[entry, text]]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [file, bytes] = next
    // an imported file missing here counts as missing (a matched specifier in a comment need not exist)
    h.update(`${relative(dirname(entry), file)}\0${bytes === null ? 'missing' : bytes.length}\0`)
    if (bytes === null) continue
    h.update(bytes)
    for (const m of bytes.toString('utf8').matchAll(RELATIVE_IMPORT)) {
      const f = resolve(dirname(file), m[1] as string)
      if (seen.has(f)) continue
      seen.add(f)
      let b: Buffer | null = null
      try {
        b = readFileSync(f)
      } catch {
        b = null
      }
      queue.push([f, b])
    }
  }
  return h.digest('hex').slice(0, 16)
}
