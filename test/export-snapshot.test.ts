// The public surface grows only on purpose (issue 25): the runtime exports of every package
// sub-path (package.json "exports") are pinned in export-snapshot.json. An export added or removed
// changes the snapshot; regenerate it deliberately with
//   EXPORT_SNAPSHOT=update npx vitest run test/export-snapshot.test.ts
// and say in the commit why the surface changed. (Type-only exports are not seen at run time.)
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const SNAPSHOT = join(import.meta.dirname, 'export-snapshot.json')
const UPDATE = process.env['EXPORT_SNAPSHOT'] === 'update'

const SUB_PATHS: Readonly<Record<string, () => Promise<Record<string, unknown>>>> = {
  '.': () => import('../src/index.js'),
  './accounting': () => import('../src/accounting/index.js'),
  './mechanisms': () => import('../src/mechanisms/index.js'),
  './trainers': () => import('../src/trainers/index.js'),
  './attacks': () => import('../src/attacks/index.js'),
  './report': () => import('../src/report/index.js'),
  './papers': () => import('../src/report/claims/index.js'),
  './testing': () => import('../src/testing/index.js'),
}

describe('the export snapshot', () => {
  it('every sub-path of package.json exports is listed here', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { exports: Record<string, unknown> }
    const modules = Object.entries(pkg.exports).filter(([k, v]) => typeof v === 'object' && v !== null && !k.includes('*')).map(([k]) => k)
    expect(modules.sort()).toEqual(Object.keys(SUB_PATHS).sort())
  })
  it('each sub-path exports exactly the pinned names', async () => {
    const now: Record<string, string[]> = {}
    for (const [path, load] of Object.entries(SUB_PATHS)) now[path] = Object.keys(await load()).sort()
    if (UPDATE || !existsSync(SNAPSHOT)) writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 1)}\n`)
    const pinned = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, string[]>
    for (const path of Object.keys(SUB_PATHS)) {
      const added = (now[path] ?? []).filter((n) => !(pinned[path] ?? []).includes(n))
      const removed = (pinned[path] ?? []).filter((n) => !(now[path] ?? []).includes(n))
      expect({ path, added, removed }).toEqual({ path, added: [], removed: [] })
    }
  })
})
