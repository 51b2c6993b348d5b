// Third-party trainers (issue 25): `dpaudit train ./module.mjs` loads a module that exports a
// trainer and runs it exactly as a built-in one — accounted, statement printed, model file written,
// refused or labelled when not a private release — and a plug-in that declares a wrong sensitivity
// fails the neighbour-differential harness of dpaudit/testing.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { loadTrainerModule, runTrainModule } from '../../src/cli/commands/train-module.js'
import { runTrain } from '../../src/cli/commands/train.js'
import { replaceOne } from '../../src/mechanisms/neighbouring.js'
import { discreteLaplaceTableEvent } from '../../src/mechanisms/measurement.js'
import type { ReleaseRecord } from '../../src/mechanisms/gate.js'
import { erase } from '../../src/trainers/erase.js'
import type { Trainer } from '../../src/trainers/trainer.js'
import { neighbourDifferential, type NeighbourRun, replaceWithVocabularyWord, syntheticTextCorpus, type TextCorpus, vocabularyFileText, writeJsonLines } from '../../src/testing/index.js'
// @ts-expect-error: a JavaScript module without types, as a third party's would be
import { scaledTrainer, trainer as wordFrequencies } from './fixtures/word-frequencies.mjs'

const MODULE = join(import.meta.dirname, 'fixtures', 'word-frequencies.mjs')
const ROOT = mkdtempSync(join(tmpdir(), 'dpaudit-plugin-'))
afterAll(() => rmSync(ROOT, { recursive: true, force: true }))

const { corpus, vocabulary } = syntheticTextCorpus()
const CORPUS = join(ROOT, 'corpus.jsonl')
writeJsonLines(CORPUS, corpus)
const VOCABULARY = join(ROOT, 'vocabulary.txt')
writeFileSync(VOCABULARY, vocabularyFileText(vocabulary))

describe('dpaudit train ./module.mjs', () => {
  it('loads the trainer, accounts it, prints its statement and writes its model file', async () => {
    const out = join(ROOT, 'model.json')
    const r = await runTrainModule([MODULE, '--corpus', CORPUS, '--vocabulary', VOCABULARY, '--epsilon', '0.5', '--seed', '1', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    // the accounted ε is the accountant's answer on the declared event: (2 cells × 1/scale)-DP = 1
    const expected = account({ schemaVersion: 1, relation: replaceOne('word'), event: discreteLaplaceTableEvent(2, { cells: 2, perCell: 1, relation: replaceOne('word') }) }, { deltas: [1e-5] })
    if (E.isLeft(expected)) throw new Error('account')
    expect(r.stdout).toContain(`accounted ε = ${(expected.right.tightest[0]?.epsilon ?? Number.NaN).toPrecision(4)}`)
    expect(r.stdout).toMatch(/held-out log-likelihood per token: -\d/)
    expect(r.stdout).toMatch(/NOT A PRIVATE RELEASE: the randomness is seeded/)
    const file = JSON.parse(readFileSync(out, 'utf8')) as { kind: string; trainer: string; frequencies: number[]; privacy: { plan: unknown } }
    expect(file.kind).toBe('word-frequencies')
    expect(file.trainer).toBe('word-frequencies')
    expect(file.frequencies).toHaveLength(vocabulary.length)
    expect(file.privacy.plan).toBeDefined()
  })
  it('refuses a flag the trainer does not declare, and --private with --seed, writing nothing', async () => {
    const out = join(ROOT, 'refused.json')
    const stray = await runTrainModule([MODULE, '--corpus', CORPUS, '--topics', '3', '--out', out]).catch((e: unknown) => ({ code: -1, stderr: String(e) }))
    expect(stray.code).not.toBe(0)
    const seeded = await runTrainModule([MODULE, '--corpus', CORPUS, '--vocabulary', VOCABULARY, '--private', '--seed', '1', '--out', out])
    expect(seeded.code).toBe(1)
    expect(existsSync(out)).toBe(false)
  })
  it('names what a module lacks', async () => {
    const bad = join(ROOT, 'bad.mjs')
    writeFileSync(bad, `export const trainer = { name: 'x', description: 'y', config: { decode: () => null }, defaults: {} }\n`)
    const r = await loadTrainerModule(bad)
    expect(E.isLeft(r) && r.left).toMatch(/has no validate \(a function\)/)
    const none = join(ROOT, 'none.mjs')
    writeFileSync(none, 'export const x = 1\n')
    expect(E.isLeft(await loadTrainerModule(none))).toBe(true)
  })
})

describe('a plug-in trainer under the neighbour-differential harness', () => {
  const run =
    (t: Trainer<unknown, unknown>): NeighbourRun<TextCorpus> => {
      // both runs of a pair use the same paths (they are printed and written)
      const dir = mkdtempSync(join(ROOT, 'nd-'))
      const file = join(dir, 'corpus.jsonl')
      const out = join(dir, 'model.json')
      return async (c, rng) => {
      writeJsonLines(file, c)
      rmSync(out, { force: true })
      const releases: ReleaseRecord[] = []
      const r = await runTrain({ trainer: erase(t), values: { corpus: file, out, vocabulary: VOCABULARY, private: true }, secureRng: () => rng, onRelease: (x) => releases.push(x), progress: () => undefined })
      return { code: r.code, stdout: r.stdout ?? '', stderr: r.stderr ?? '', files: existsSync(out) ? { 'model.json': readFileSync(out) } : {}, releases }
      }
    }
  const pair = replaceWithVocabularyWord(corpus, vocabulary, 3, 5)
  const options = { releaseDerived: { 'model.json': { jsonPaths: ['frequencies'] } }, comparable: [{ release: 0, l1: 2, linf: 1 }] }
  it('the honest trainer: its one release moves by at most its declared sensitivity', async () => {
    const report = await neighbourDifferential(run(wordFrequencies as Trainer<unknown, unknown>), pair, options)
    expect(report.a.code, report.a.stderr).toBe(0)
    expect(report.differences.map((d) => JSON.stringify(d).slice(0, 300))).toEqual([])
  })
  it('a wrong declared sensitivity (counts × 3, declared 1 per cell) is caught', async () => {
    const report = await neighbourDifferential(run(scaledTrainer as Trainer<unknown, unknown>), pair, options)
    expect(report.a.code, report.a.stderr).toBe(0)
    expect(report.differences.length).toBeGreaterThan(0)
  })
})
