/**
 * What a user reads names papers by title, never by the file numbers of the project's paper folder
 * ("paper 001") or by design notes a user does not have (LDA-EVAL.md, AUDITING.md) (issue 11).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { TRAINERS, TRAINER_NAMES } from '../../src/trainers/registry.js'
import { writeTinyUci } from './tiny-uci.js'

const INTERNAL = /paper 00\d|LDA-EVAL\.md|AUDITING\.md|design\//

describe('user-facing text cites papers a user can find', () => {
  it.each(TRAINER_NAMES)('%s: the description names no paper by file number', (name) => {
    expect(TRAINERS[name].description).not.toMatch(INTERNAL)
  })

  it.each([
    ['hdp-lda', ['--epsilon-l', '1', '--clip', '5']],
    ['sub-lda', []],
    ['cdp-lda', ['--epsilon', '1']],
    ['lp-lda', ['--flip', '0.5']],
  ] as const)('%s: the printed statement and JSON claim sources cite titles', (name, extra) => {
    const dir = mkdtempSync(join(tmpdir(), 'dpaudit-names-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const corpus = writeTinyUci(dir)
    const common = ['--corpus', corpus, '--topics', '2', '--iterations', '2', '--seed', '1', '--quiet']
    const text = runTrainCli([name, ...common, ...extra, '--out', join(dir, 'a.json')])
    const json = runTrainCli([name, ...common, ...extra, '--out', join(dir, 'b.json'), '--json'])
    expect(text.stderr ?? "").toBe("")
    expect(text.code).toBe(0)
    expect(json.code).toBe(0)
    expect(`${text.stdout ?? ''}${text.stderr ?? ''}`).not.toMatch(INTERNAL)
    expect(json.stdout ?? '').not.toMatch(INTERNAL)
    expect(json.stdout ?? '').toMatch(/Zhao|SUB-LDA paper/)
  })
})
