/**
 * The test files of vitest.config.ts's `shared` project run in one module registry per worker
 * (isolate: false): a module mock, a spy, a fake timer, a process handler, a chdir or an environment
 * variable set there would reach the files run after it in the same worker. None may hold such code
 * (a test that needs it belongs in another folder, whose files each get their own worker).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SHARED_DIRS } from '../../vitest.config.js'

const ROOT = new URL('../../', import.meta.url).pathname
const FORBIDDEN =
  /\bvi\.(mock|doMock|unmock|spyOn|stubGlobal|stubEnv|useFakeTimers|resetModules|hoisted)\(|process\.(on|once|chdir|exit|setUncaughtExceptionCaptureCallback)\(|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|\bdelete process\.env|configureGlobal\(/

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : /\.(ts|mjs|js)$/.test(e.name) ? [join(dir, e.name)] : []))

describe("the shared project's test files (isolate: false)", () => {
  it('hold no module mock, spy, fake timer, process handler, chdir or environment write', () => {
    const files = SHARED_DIRS.flatMap((d) => filesUnder(join('test', d)))
    expect(files.length).toBeGreaterThan(50)
    const offending = files.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (FORBIDDEN.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(offending).toEqual([])
  })
})
