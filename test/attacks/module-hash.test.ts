/**
 * The code hash of a module outside dpaudit (src/attacks/queue/module-hash.ts): it covers the file
 * and the files it imports by relative path, so a queue worker whose copy of any of them differs is
 * refused; files it does not import do not count.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { moduleHash } from '../../src/attacks/queue/module-hash.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-module-hash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('moduleHash', () => {
  it('changes with the module and with every module it imports by relative path, not with other files', () => {
    mkdirSync(join(dir, 'plugin', 'lib'), { recursive: true })
    const write = (path: string, text: string): void => writeFileSync(join(dir, path), text)
    write('plugin/entry.mjs', "import { step } from './lib/step.mjs'\nexport { x } from \"../shared.mjs\"\nimport 'dpaudit/mechanisms'\nexport const trainer = step\n")
    write('plugin/lib/step.mjs', "import { x } from '../../shared.mjs'\nexport const step = x\n")
    write('shared.mjs', 'export const x = 1\n')
    write('plugin/unrelated.mjs', 'export const y = 1\n')
    const url = pathToFileURL(join(dir, 'plugin/entry.mjs')).href
    const h0 = moduleHash(url)
    expect(h0).toMatch(/^[0-9a-f]{16}$/)
    write('plugin/unrelated.mjs', 'export const y = 2\n')
    expect(moduleHash(url)).toBe(h0)
    write('shared.mjs', 'export const x = 2\n')
    const h1 = moduleHash(url)
    expect(h1).not.toBe(h0)
    write('plugin/lib/step.mjs', "import { x } from '../../shared.mjs'\nexport const step = -x\n")
    expect(moduleHash(url)).not.toBe(h1)
    rmSync(join(dir, 'plugin/lib/step.mjs'))
    expect(moduleHash(url)).toMatch(/^[0-9a-f]{16}$/) // an imported file missing here counts as missing
  })

  it('says the module is unreadable when it is missing here', () => {
    expect(moduleHash(pathToFileURL(join(dir, 'absent.mjs')).href)).toBe('unreadable: ENOENT')
  })
})
