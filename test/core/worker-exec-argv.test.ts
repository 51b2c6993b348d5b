// The Node flags worker threads are started with (src/core/worker-exec-argv.ts): the parent's, minus
// those only the main script can take — `--input-type` killed a worker while it loaded, and the
// private trainers' pool then waited its whole start-up limit (60 s) before failing.
import { describe, expect, it } from 'vitest'
import { workerExecArgv } from '../../src/core/worker-exec-argv.js'

describe('workerExecArgv', () => {
  it('keeps the flags a worker can take, in order', () => {
    expect(workerExecArgv(['--max-old-space-size=4096', '--import', 'x.mjs', '--enable-source-maps'])).toEqual(['--max-old-space-size=4096', '--import', 'x.mjs', '--enable-source-maps'])
    expect(workerExecArgv([])).toEqual([])
  })
  it('drops --input-type in both spellings, and -e/--eval/-p/--print with their scripts', () => {
    expect(workerExecArgv(['--input-type=module', '-e', 'console.log(1)', '--trace-warnings'])).toEqual(['--trace-warnings'])
    expect(workerExecArgv(['--input-type', 'module', '--eval', 'x', '--no-warnings'])).toEqual(['--no-warnings'])
    expect(workerExecArgv(['-p', '1 + 1', '--print', '2'])).toEqual([])
  })
})
