// The Node flags worker threads are started with (src/core/worker-exec-argv.ts): the parent's, minus
// those only the main script can take — `--input-type` killed a worker while it loaded, and the
// private trainers' pool then waited its whole start-up limit (60 s) before failing.
import { describe, expect, it } from 'vitest'
import { withoutRefused, workerExecArgv } from '../../src/core/worker-exec-argv.js'

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

describe('withoutRefused', () => {
  const message = 'Initiated Worker with invalid execArgv flags: --max-old-space-size=4096, --trace-opt'
  it('leaves out the flags a Worker constructor refused, as Node names them', () => {
    expect(withoutRefused(['--max-old-space-size=4096', '--enable-source-maps', '--trace-opt'], message)).toEqual(['--enable-source-maps'])
  })
  it("takes a refused flag's value with it when it came as the next argument", () => {
    expect(withoutRefused(['--stack-size', '2000', '--import', 'x.mjs'], 'Initiated Worker with invalid execArgv flags: --stack-size')).toEqual(['--import', 'x.mjs'])
  })
  it('says undefined when the message names none of the flags (the error is then not about them)', () => {
    expect(withoutRefused(['--enable-source-maps'], message)).toBeUndefined()
    expect(withoutRefused(['--trace-opt'], 'some other error')).toBeUndefined()
  })
})
