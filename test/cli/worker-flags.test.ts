/**
 * Worker threads under the parent's Node flags (src/core/worker-exec-argv.ts): a V8 flag such as
 * --max-old-space-size, which a Worker constructor refuses, made every pool fail to start
 * ("cannot start worker threads: Initiated Worker with invalid execArgv flags"); the executable now
 * starts its workers without it (V8's flags hold for every isolate already) and gives the same answers.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const main = resolve('dist/cli/main.js')
const haveDist = existsSync(main) && existsSync(resolve('dist/attacks/worker.js')) && existsSync(resolve('dist/trainers/lda/parallel/worker.js'))
const dir = mkdtempSync(join(tmpdir(), 'dpaudit-worker-flags-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (flags: string[], args: string[]): string => execFileSync(process.execPath, [...flags, main, ...args], { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] })

describe('worker threads under V8 flags the Worker constructor refuses', () => {
  it.skipIf(!haveDist)('an audit on 2 workers under --max-old-space-size gives the answer of a run without it', () => {
    const audit = (flags: string[], out: string) => {
      run(flags, ['audit', 'zoo:laplace', '--trials', '100000', '--workers', '2', '--seed', 'flags', '--quiet', '--out', out])
      // the file's `result` (its `timing` is the run's own)
      return (JSON.parse(readFileSync(out, 'utf8')) as { result: Record<string, unknown> }).result
    }
    const plain = audit([], join(dir, 'plain.json'))
    const flagged = audit(['--max-old-space-size=2048', '--stack-size=2000'], join(dir, 'flagged.json'))
    expect(typeof plain.epsilonLowerBound).toBe('number')
    expect({ ...flagged, workers: undefined }).toEqual({ ...plain, workers: undefined })
  })

  it.skipIf(!haveDist)('a seeded HDP-LDA fit on 2 workers under --max-old-space-size writes the same model', () => {
    const train = (flags: string[], out: string) => {
      run(flags, ['train', 'hdp-lda', '--corpus', 'brown', '--topics', '5', '--iterations', '2', '--workers', '2', '--seed', '3', '--quiet', '--out', out])
      const m = JSON.parse(readFileSync(out, 'utf8')) as { phi: unknown }
      return m.phi
    }
    expect(train(['--max-old-space-size=2048'], join(dir, 'flagged-model.json'))).toEqual(train([], join(dir, 'plain-model.json')))
  })
})
