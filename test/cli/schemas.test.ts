/** The --json outputs of demo, train and evaluate decode with the codecs exported from dpaudit/report. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { computeDemo, runDemo } from '../../src/cli/commands/demo.js'
import { runSafely } from '../../src/cli/run.js'
import { DemoOutput, EvaluateOutput, TrainOutput } from '../../src/report/index.js'
import { writeTinyUci } from '../trainers/tiny-uci.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-cli-schemas-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('--json schemas', () => {
  it('evaluate', () => {
    const corpus = writeTinyUci(dir)
    const model = join(dir, 'm.json')
    const t = runSafely(['train', 'cgs', '--corpus', corpus, '--topics', '2', '--iterations', '2', '--seed', '1', '--out', model])
    expect(t.code, t.stderr).toBe(0)
    const r = runSafely(['evaluate', model, '--corpus', corpus, '--json'])
    const doc = EvaluateOutput.decode(JSON.parse(r.stdout ?? ''))
    expect(E.isRight(doc)).toBe(true)
  })
  it('train, private by default and labelled when seeded', () => {
    const corpus = writeTinyUci(mkdtempSync(join(dir, 'train-')))
    for (const seeded of [false, true]) {
      const args = ['train', 'hdp-lda', '--corpus', corpus, '--topics', '2', '--iterations', '2', '--epsilon-l', '1', '--clip', '5', '--out', join(dir, `t${String(seeded)}.json`), '--json']
      const r = runSafely(seeded ? [...args, '--seed', '4'] : args)
      expect(r.code, r.stderr).toBe(0)
      const doc = TrainOutput.decode(JSON.parse(r.stdout ?? ''))
      expect(E.isRight(doc)).toBe(true)
      if (E.isLeft(doc)) return
      expect(doc.right.trainer).toBe('hdp-lda')
      expect(JSON.stringify(doc.right.release)).toMatch(seeded ? /not a private release|NOT A PRIVATE/i : /private/i)
    }
  })
  // the demo takes ~15 s: computed once (by the first test that needs it), then rendered as JSON
  // and as text by runDemo itself
  let computed: ReturnType<typeof computeDemo> | undefined
  const demo = (): ReturnType<typeof computeDemo> => (computed ??= computeDemo())
  it('demo, with its training and audit sections and the reading of HDP-LDA’s ε', () => {
    const r = runDemo({ json: true, sections: demo() })
    expect(r.code).toBe(0)
    const doc = DemoOutput.decode(JSON.parse(r.stdout ?? ''))
    expect(E.isRight(doc)).toBe(true)
    if (E.isLeft(doc)) return
    expect(doc.right.audit.map((a) => a.verdict)).toEqual(['consistent', 'violation'])
    expect(doc.right.training.text).toMatch(/hdp-lda/)
    const reading = doc.right.training.hdpReading
    expect(reading.paperDefaults.epsilon).toBeGreaterThan(300)
    expect(reading.meaningful?.epsilon).toBeGreaterThanOrEqual(1)
    expect(reading.meaningful?.epsilon).toBeLessThanOrEqual(8)
    expect(reading.text).toMatch(/protects nothing/)
    // the sections this command renders name papers by title (the trainers' own texts are theirs)
    expect(JSON.stringify({ ...doc.right, training: reading })).not.toMatch(/paper 00\d/)
  })
  it('demo text: every line fits 100 columns and no number carries more than 6 significant digits (issue 11)', () => {
    const r = runDemo({ json: false, sections: demo() })
    expect(r.code, r.stderr).toBe(0)
    const lines = (r.stdout ?? '').split('\n')
    expect(lines.filter((l) => [...l].length > 100)).toEqual([])
    // every section is there (nothing was dropped to fit)
    for (const heading of ['1. A DP-SGD', 'Inverse:', '2. SUB-LDA', '3. The γ = 0.5', '4. A real trainer', '5. A short audit', 'Next:'])
      expect(lines.some((l) => l.startsWith(heading)), heading).toBe(true)
    // significant digits of every decimal number. More than 6 only where the accounting error printed
    // beside the number (PLD's "(−1.9e-5)") warrants its decimals
    const text = r.stdout ?? ''
    const warranted = new Set(
      [...text.matchAll(/(\d+\.(\d+)) \(−(\d\.\de-\d+)\)/g)].filter((m) => (m[2] ?? '').length <= Math.ceil(-Math.log10(Number(m[3])))).map((m) => m[1]),
    )
    expect(warranted.size).toBeGreaterThan(0)
    // (identifiers such as arXiv:2010.04391 are not numbers: a match may not follow a letter, digit, ':' or '.')
    const long = [...text.matchAll(/(?<![\w:.])(\d+\.\d+)/g)].filter(
      (m) => !warranted.has(m[1]) && (m[1] ?? '').replace('.', '').replace(/^0+/, '').length > 6,
    )
    expect(long.map((m) => m[0])).toEqual([])
    // the calibration: σ rounded up (safe side), ε rounded up as the account table rounds it
    const cal = lines.find((l) => l.includes('smallest sigma')) ?? ''
    expect(cal).toMatch(/smallest sigma ≈ 1\.2953 \(rounded up, to the safe side\) gives ε ≤ 2\.0000 \(target 2\) at δ = 1e-5/)
  })
})
