import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { runEvaluateCli } from '../../src/cli/commands/evaluate.js'
import { writeTinyUci } from './tiny-uci.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-train-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const corpusDir = writeTinyUci(dir)

describe('dpaudit train / evaluate', () => {
  it('trains, writes the model with its privacy statement, and evaluates it', () => {
    const out = join(dir, 'm.json')
    const r = runTrainCli(['hdp-lda', '--corpus', corpusDir, '--topics', '2', '--iterations', '3', '--epsilon-l', '1', '--clip', '5', '--seed', '7', '--out', out, '--json'])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout ?? '') as { privacy: { guarantee: Array<{ epsilon: number }> } }
    expect(doc.privacy.guarantee[0]?.epsilon).toBeGreaterThan(0)
    expect(existsSync(out)).toBe(true)
    const e = runEvaluateCli([out, '--corpus', corpusDir, '--json'])
    expect(e.code).toBe(0)
  })
  it.each([
    [['cgs', '--topics', '1', '--iterations', '2'], /topics/],
    [['cgs', '--topics', '2', '--iterations', '0'], /iterations/],
    [['hdp-lda', '--topics', '2', '--iterations', '2', '--epsilon-l', '0'], /epsilonL/],
    [['sub-lda', '--topics', '2', '--iterations', '2', '--gamma', '2'], /gamma/],
    [['sub-lda', '--topics', '2', '--iterations', '2', '--clip=-1'], /clip/],
    [['hdp-lda', '--topics', '2', '--iterations', '2', '--beta', '0'], /beta/],
  ])('rejects %j with a message naming the value, exit 1, and no file', (args, re) => {
    const out = join(dir, 'bad.json')
    const r = runTrainCli([...args, '--corpus', corpusDir, '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(re)
    expect(existsSync(out)).toBe(false)
  })
  it('reports a malformed docword line with file and line', () => {
    const bad = join(dir, 'bad-docword.txt')
    writeFileSync(bad, '1\n2\n1\n1 one 1\n')
    const r = runTrainCli(['cgs', '--corpus', bad, '--topics', '2', '--iterations', '1', '--out', join(dir, 'x.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${bad}:4`)
    expect(existsSync(join(dir, 'x.json'))).toBe(false)
  })
})
