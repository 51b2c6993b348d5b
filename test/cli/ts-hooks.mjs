// Node module hooks that run the TypeScript sources directly in a child process (Node 20 has no
// type stripping): `.js` imports resolve to the `.ts` file beside them when there is one, and
// `.ts` files are transpiled by the TypeScript compiler (no type check). Used by the tests that
// must run dpaudit as a real process (signals, closed pipes): register with
//   node --import ./test/cli/ts-register.mjs src/cli/main.ts ...
//
// Transpiled files are cached in the temp folder (the test run's own, see test/setup/tmp.ts), by
// a hash of the source: each child process would otherwise transpile the whole CLI again, seconds
// of start-up that a loaded machine stretches toward a test's timeout. A cache that cannot be read
// or written (a child run as another user) is simply not used.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// the compiler is loaded only on a cache miss (loading it is most of a cached start-up)
let compiler
const typescript = async () => (compiler ??= (await import('typescript')).default)
const tsVersion = createRequire(import.meta.url)('typescript/package.json').version
const cacheDir = join(tmpdir(), `dpaudit-ts-hooks-cache-${tsVersion}`)

const transpile = async (file, source) => {
  const key = createHash('sha256').update(file).update('\0').update(source).digest('hex')
  const cached = join(cacheDir, `${key}.js`)
  try {
    return readFileSync(cached, 'utf8')
  } catch {
    // not cached yet, or not readable: transpile
  }
  const ts = await typescript()
  const out = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, isolatedModules: true },
  })
  try {
    mkdirSync(cacheDir, { recursive: true })
    const tmp = `${cached}.${process.pid}.tmp`
    writeFileSync(tmp, out.outputText)
    renameSync(tmp, cached)
  } catch {
    // no cache: only slower
  }
  return out.outputText
}

// `dpaudit` and `dpaudit/<sub>` (what the examples and plug-ins import; the package's exports map
// them to dist/) resolve to the sources here, so a plug-in loaded by a child runs the same code as it
const SRC = new URL('../../src/', import.meta.url)

export async function resolve(specifier, context, next) {
  const pkg = /^dpaudit(?:\/([a-z]+))?$/.exec(specifier)
  if (pkg !== null) {
    const url = new URL(`${pkg[1] === undefined ? '' : `${pkg[1]}/`}index.ts`, SRC)
    if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true }
  }
  if (specifier.endsWith('.js') && (specifier.startsWith('.') || specifier.startsWith('file:')) && context.parentURL?.startsWith('file:')) {
    const url = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL)
    if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true }
  }
  return next(specifier, context)
}

export async function load(url, context, next) {
  if (url.startsWith('file:') && url.endsWith('.ts')) {
    const file = fileURLToPath(url)
    return { format: 'module', source: await transpile(file, readFileSync(file, 'utf8')), shortCircuit: true }
  }
  return next(url, context)
}
