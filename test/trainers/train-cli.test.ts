// dpaudit train: the output path checked before any work; private SVI (both sampling models) from
// the command line, with its own flags only.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { writeTinyUci } from './tiny-uci.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-train-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const corpusDir = writeTinyUci(dir)

describe('dpaudit train', () => {
  it('refuses a directory as --out before loading anything', () => {
    const r = runTrainCli(['hdp-lda', '--corpus', join(dir, 'no-such-corpus'), '--topics', '2', '--iterations', '1', '--out', dir])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^--out /)
  })
  it.each(['svi-lda', 'svi-lda-wor'])('trains %s end to end, a private release accounted under its sampling model', (name) => {
    const out = join(dir, `${name}.json`)
    const r = runTrainCli([name, '--corpus', corpusDir, '--topics', '2', '--iterations', '5', '--batch-size', '4', '--truncation', '20', '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout ?? '') as { release: { private: boolean }; privacy: { protects: string; guarantee: Array<{ epsilon: number }> } }
    expect(doc.release.private).toBe(true)
    expect(doc.privacy.protects).toBe(name === 'svi-lda' ? 'add-remove one document' : 'replace-one one document')
    expect(Number.isFinite(doc.privacy.guarantee[0]?.epsilon)).toBe(true)
    expect(JSON.parse(readFileSync(out, 'utf8')).theta).toBeUndefined()
  })
  it('refuses another trainer’s flag for svi-lda, naming it', () => {
    const r = runTrainCli(['svi-lda', '--corpus', corpusDir, '--topics', '2', '--iterations', '2', '--epsilon-l', '1', '--out', join(dir, 'x.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--epsilon-l does not apply to svi-lda/)
  })
})
