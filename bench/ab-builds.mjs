// The two builds of a same-process A/B bench (pld-ab.mjs, rdp-ab.mjs): `--before DIST` (required) and
// `--after DIST` (default: this checkout's dist), each loaded by `load(importFromDist)` into one module record.
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The value after `--name` on the command line, or `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback
}

/** `{ dists, mods }`: each build's dist folder and `load((path) => import(dist/path))`; without --before, `usage` and exit 2. */
export const loadBuilds = async (usage, load) => {
  const before = arg('before', undefined)
  if (before === undefined) {
    console.error(usage)
    process.exit(2)
  }
  const dists = { before: resolve(before), after: resolve(arg('after', join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'))) }
  const mods = {}
  for (const [k, d] of Object.entries(dists)) mods[k] = await load((p) => import(pathToFileURL(join(d, p)).href))
  return { dists, mods }
}
