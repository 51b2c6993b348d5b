// Every named import of examples/ and bench/ resolves against dist (the curated surface, issue 25):
//   npm run build && node scripts/check-example-imports.mjs
// Imports from 'dpaudit', 'dpaudit/<sub>' (package exports) and '../dist/...' paths are checked; the
// script prints each missing name with its file and exits 1 if any is missing.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = resolve(dirname(new URL(import.meta.url).pathname), '..')
const files = (dir) =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? files(p) : /\.(mjs|js)$/.test(f) ? [p] : []
  })
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const target = (spec, from) => {
  if (spec === 'dpaudit' || spec.startsWith('dpaudit/')) {
    const e = pkg.exports[spec === 'dpaudit' ? '.' : `./${spec.slice(8)}`]
    return e === undefined || e === null ? null : join(root, e.import)
  }
  return spec.includes('/dist/') ? resolve(dirname(from), spec) : undefined
}
let missing = 0
let checked = 0
for (const file of [...files(join(root, 'examples')), ...files(join(root, 'bench'))]) {
  const text = readFileSync(file, 'utf8')
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    const path = target(m[2], file)
    if (path === undefined) continue
    if (path === null) {
      console.log(`${file}: ${m[2]} is not a package export`)
      missing++
      continue
    }
    const mod = await import(pathToFileURL(path).href)
    for (const raw of m[1].split(',')) {
      const name = raw.trim().replace(/\s+as\s+\w+$/, '')
      if (name === '' || name.startsWith('type ')) continue
      checked++
      if (!(name in mod)) {
        console.log(`${file.slice(root.length + 1)}: ${name} is not exported by ${m[2]}`)
        missing++
      }
    }
  }
}
console.log(`${checked} named imports checked, ${missing} missing`)
process.exit(missing === 0 ? 0 : 1)
