/**
 * Issue 29, what the third round left: the wrong file blamed (an unrelated vocab.txt beside a UCI
 * file), a budget message that blamed δ, and `evaluate` reading a model file without a bound. Each
 * case failed on the code before it. (Model files whose parts contradict each other:
 * test/trainers/model-file.test.ts.)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { runReport } from '../../src/cli/commands/report.js'
import { runSafely } from '../../src/cli/run.js'
import { formatError } from '../../src/core/error.js'
import { loadDataset } from '../../src/trainers/corpus/load.js'
import { zcdpChain, linearChain, advancedChain } from '../../src/trainers/svi/chain.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-leftovers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// D = 10 documents over W = 5 words, two entries each (enough for the loader's train/test split)
const DOCWORD = `10\n5\n20\n${Array.from({ length: 10 }, (_, d) => `${d + 1} ${(d % 5) + 1} 2\n${d + 1} ${((d + 2) % 5) + 1} 1\n`).join('')}`

describe('a lone UCI file and the vocabulary beside it (item 6)', () => {
  it('a file not named docword… takes no vocabulary from its folder: an unrelated vocab.txt is neither read nor blamed', () => {
    const d = join(dir, 'plain')
    mkdirSync(d)
    writeFileSync(join(d, 'counts.txt'), DOCWORD)
    writeFileSync(join(d, 'vocab.txt'), 'alpha\nbe ta\n') // malformed and of another corpus
    const r = loadDataset(join(d, 'counts.txt'))
    if (E.isLeft(r)) throw new Error(formatError(r.left))
    expect(r.right.train.vocab).toEqual(['w1', 'w2', 'w3', 'w4', 'w5'])
  })

  it('docword.NAME.txt goes with vocab.NAME.txt before vocab.txt (the UCI archive naming)', () => {
    const d = join(dir, 'named')
    mkdirSync(d)
    writeFileSync(join(d, 'docword.kos.txt'), DOCWORD)
    writeFileSync(join(d, 'vocab.kos.txt'), 'a1\nb2\nc3\nd4\ne5\n')
    writeFileSync(join(d, 'vocab.txt'), 'unrelated\n')
    const r = loadDataset(join(d, 'docword.kos.txt'))
    if (E.isLeft(r)) throw new Error(formatError(r.left))
    expect(r.right.train.vocab).toEqual(['a1', 'b2', 'c3', 'd4', 'e5'])
  })

  it('a companion vocabulary that does not fit says it was picked up from beside the file, and how to avoid it', () => {
    const d = join(dir, 'mismatch')
    mkdirSync(d)
    writeFileSync(join(d, 'docword.txt'), DOCWORD)
    writeFileSync(join(d, 'vocab.txt'), 'alpha\nbeta\n')
    const r = loadDataset(join(d, 'docword.txt'))
    if (E.isRight(r)) throw new Error('a vocabulary of 2 words was accepted for W = 5')
    const line = formatError(r.left)
    expect(line).toContain('W does not match the 2 words of')
    expect(line).toContain(`${join(d, 'vocab.txt')} was read as the vocabulary of ${join(d, 'docword.txt')} because it lies beside it`)
    expect(line.split('\n')).toHaveLength(1)
  })
})

describe('the private-SVI chain names the cause (item 7)', () => {
  const base = { deltaTotal: 1e-4, iterations: 100, rate: 0.01, deltaReading: 'total-over-J' as const, deltaIteration: 1e-6 }
  it('an ε_tot too large for any noise blames --epsilon-total, not δ (δ_iter is a probability there)', () => {
    for (const chain of [zcdpChain, linearChain, advancedChain]) {
      const r = chain({ ...base, epsilonTotal: 1e308 })
      if (E.isRight(r)) throw new Error('ε_tot = 1e308 gave noise')
      const line = formatError(r.left)
      expect(line).toMatch(/^epsilonTotal: the (zCDP|linear|advanced) chain's per-iteration ε_iter = .* no finite, positive noise; give a smaller --epsilon-total \(got 1e\+308\)$/)
      expect(line).not.toContain('not a probability')
    }
  })
  it('a δ_iter of 1 or more blames the δ reading', () => {
    const r = zcdpChain({ ...base, epsilonTotal: 1, deltaTotal: 0.5, iterations: 1, rate: 0.1 })
    if (E.isRight(r)) throw new Error('δ_iter ≥ 1 accepted')
    expect(formatError(r.left)).toMatch(/^deltaReading: the zCDP chain gives δ_iter = 5, not a probability/)
  })
  it('through the CLI: one line naming --epsilon-total, exit 1', () => {
    const r = runSafely(['train', 'svi-lda', '--corpus', 'brown', '--epsilon-total', '1e308', '--topics', '2', '--iterations', '2', '--out', join(dir, 'svi.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--epsilon-total/)
    expect(r.stderr).not.toMatch(/not a probability|\n/)
  })
})

describe('evaluate reads a model file with a bound (item 1/3)', () => {
  it('a device, a folder or a FIFO-like path is refused in one line before anything is read', () => {
    for (const p of ['/dev/zero', dir]) {
      const r = runSafely(['evaluate', p, '--corpus', 'brown'])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/cannot read the model file \(it is a (device|directory)/)
      expect(r.stderr?.split('\n')).toHaveLength(1)
    }
  })
})

describe('a report does not believe an edited statement (item 2)', () => {
  it('a model whose ε was lowered is refused by `report`, naming the field; as written it is reported', async () => {
    const model = join(dir, 'hdp.json')
    const t = runSafely(['train', 'hdp-lda', '--corpus', 'brown', '--topics', '2', '--iterations', '2', '--seed', '1', '--quiet', '--out', model])
    expect(t.code, t.stderr).toBe(0)
    const m = JSON.parse(readFileSync(model, 'utf8')) as { privacy: { guarantee: { epsilon: number }[] } }
    const g = m.privacy.guarantee[0] as { epsilon: number }
    expect(Number.isFinite(g.epsilon)).toBe(true)
    g.epsilon /= 10
    const edited = join(dir, 'hdp-edited.json')
    writeFileSync(edited, JSON.stringify(m))
    const bad = await runReport([edited, '--out', join(dir, 'rep-edited')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/\$\.privacy\.guarantee\[0\]\.epsilon: is below what the file's own plan gives/)
    expect(existsSync(join(dir, 'rep-edited'))).toBe(false)
    const good = await runReport([model, '--out', join(dir, 'rep-good')])
    expect(good.code, good.stderr).toBe(0)
  })
})
