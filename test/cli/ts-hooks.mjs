// Node module hooks that run the TypeScript sources directly in a child process (Node 20 has no
// type stripping): `.js` imports resolve to the `.ts` file beside them when there is one, and
// `.ts` files are transpiled by the TypeScript compiler (no type check). Used by the tests that
// must run dpaudit as a real process (signals, closed pipes): register with
//   node --import ./test/cli/ts-register.mjs src/cli/main.ts ...
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && (specifier.startsWith('.') || specifier.startsWith('file:')) && context.parentURL?.startsWith('file:')) {
    const url = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL)
    if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true }
  }
  return next(specifier, context)
}

export async function load(url, context, next) {
  if (url.startsWith('file:') && url.endsWith('.ts')) {
    const source = readFileSync(fileURLToPath(url), 'utf8')
    const out = ts.transpileModule(source, {
      fileName: fileURLToPath(url),
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, isolatedModules: true },
    })
    return { format: 'module', source: out.outputText, shortCircuit: true }
  }
  return next(url, context)
}
