// dpaudit train: the output path checked before any work; private SVI (both sampling models) from
// the command line, with its own flags only.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
  it('--delta 0 (issue 26): a pure-DP plan is stated at δ = 0; a plan without pure ε-DP is refused before training, saying why', () => {
    const out = join(dir, 'pure.json')
    const r = runTrainCli(['hdp-lda', '--corpus', corpusDir, '--topics', '2', '--iterations', '2', '--seed', '1', '--delta', '0', '--delta', '1e-5', '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const g = (JSON.parse(r.stdout ?? '') as { privacy: { guarantee: Array<{ delta: number; epsilon: number }> } }).privacy.guarantee
    expect(g[0]?.delta).toBe(0)
    expect(Number.isFinite(g[0]?.epsilon)).toBe(true)
    expect(g[0]?.epsilon).toBeGreaterThanOrEqual(g[1]?.epsilon as number)
    const noPure = runTrainCli(['svi-lda-wor', '--corpus', corpusDir, '--topics', '2', '--iterations', '2', '--seed', '1', '--delta', '0', '--out', join(dir, 'no-pure.json')])
    expect(noPure.code).toBe(1)
    expect(noPure.stderr).toMatch(/^svi-lda-wor: --delta 0 asks for pure ε-DP, which this plan does not have/)
    expect(runTrainCli(['hdp-lda', '--corpus', corpusDir, '--topics', '2', '--iterations', '1', '--delta=1.5', '--out', join(dir, 'x.json')]).stderr).toMatch(/δ must be in \[0, 1\)/)
  })
  it.each(['svi-lda', 'svi-lda-wor'])('trains %s end to end, a private release accounted under its sampling model', (name) => {
    const out = join(dir, `${name}.json`)
    // svi-lda (add/remove one document) needs the public D declared: the exact one differs between neighbours
    const declared = name === 'svi-lda' ? ['--documents', '20'] : []
    const r = runTrainCli([name, '--corpus', corpusDir, '--topics', '2', '--iterations', '5', '--batch-size', '4', '--truncation', '20', ...declared, '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout ?? '') as { release: { private: boolean }; corpus: { documents?: number; tokens?: number }; privacy: { protects: string; guarantee: Array<{ epsilon: number }> } }
    expect(doc.release.private).toBe(true)
    // sizes: the declared D (add/remove) or the exact D (replace one document); N is never the exact one
    expect(doc.corpus.documents).toEqual(name === 'svi-lda' ? 20 : expect.any(Number))
    expect(doc.corpus.tokens).toBeUndefined()
    if (name === 'svi-lda') {
      const undeclared = runTrainCli([name, '--corpus', corpusDir, '--topics', '2', '--iterations', '2', '--batch-size', '4', '--private', '--out', join(dir, 'undeclared.json')])
      expect(undeclared.code).toBe(1)
      expect(undeclared.stderr).toMatch(/^--private: svi-lda protects add\/remove one document, and without --documents D/)
    }
    expect(doc.privacy.protects).toBe(name === 'svi-lda' ? 'add-remove one document' : 'replace-one one document')
    expect(Number.isFinite(doc.privacy.guarantee[0]?.epsilon)).toBe(true)
    expect(JSON.parse(readFileSync(out, 'utf8')).theta).toBeUndefined()
  })
  it('--clip-norm projects each document: the plan declares sensitivity min(C, N)/S, and a bad C is one line', () => {
    const run = (extra: string[]) => {
      const r = runTrainCli(['svi-lda', '--corpus', corpusDir, '--topics', '2', '--iterations', '3', '--batch-size', '4', '--truncation', '20', '--noise', 'multiplier', '--multiplier', '2', '--seed', '1', '--out', join(dir, 'clip.json'), '--json', ...extra])
      expect(r.code, r.stderr).toBe(0)
      const sensitivities = [...(r.stdout ?? '').matchAll(/"sensitivity": ([\d.e-]+)/g)].map((m) => Number(m[1]))
      return { ...(JSON.parse(r.stdout ?? '') as { config: { clipNorm?: number }; privacy: { guarantee: Array<{ epsilon: number }> } }), sensitivities }
    }
    const plain = run([])
    const clipped = run(['--clip-norm', '5'])
    expect(plain.config.clipNorm).toBeUndefined()
    expect(clipped.config.clipNorm).toBe(5)
    // the Gaussian leaves of the plan: N/S = 20/4 without the projection, min(C, N)/S = 5/4 with it
    expect(new Set(plain.sensitivities)).toEqual(new Set([5]))
    expect(new Set(clipped.sensitivities)).toEqual(new Set([1.25]))
    // the same multiplier on a 4× smaller sensitivity is the same noise-to-sensitivity ratio: the same ε
    expect(clipped.privacy.guarantee[0]?.epsilon).toBeCloseTo(plain.privacy.guarantee[0]?.epsilon ?? NaN, 10)
    const bad = runTrainCli(['svi-lda', '--corpus', corpusDir, '--topics', '2', '--iterations', '2', '--clip-norm', '0', '--out', join(dir, 'bad.json')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/clipNorm/)
    expect((bad.stderr ?? '').split('\n').filter((l) => l.length > 0)).toHaveLength(1)
  })
  it('refuses another trainer’s flag for svi-lda, naming it', () => {
    const r = runTrainCli(['svi-lda', '--corpus', corpusDir, '--topics', '2', '--iterations', '2', '--epsilon-l', '1', '--out', join(dir, 'x.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--epsilon-l does not apply to svi-lda/)
  })
})

describe('dpaudit train under hostile input (issue 29, items 1, 3 and 6)', () => {
  const hostile = mkdtempSync(join(tmpdir(), 'dpaudit-train-hostile-'))
  afterAll(() => rmSync(hostile, { recursive: true, force: true }))
  const jsonl = join(hostile, 'c.jsonl')
  writeFileSync(jsonl, Array.from({ length: 20 }, (_, i) => JSON.stringify({ text: `alpha bravo charlie delta ${i % 2 === 0 ? 'echo' : 'foxtrot'}` })).join('\n'))
  const vocab = join(hostile, 'v.txt')
  writeFileSync(vocab, 'alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\n')
  const base = ['hdp-lda', '--topics', '2', '--iterations', '2', '--epsilon-l', '1', '--clip', '5']
  it('an --out that is an input is refused, and the input is left as it was', () => {
    const before = readFileSync(jsonl, 'utf8')
    const same = runTrainCli([...base, '--corpus', jsonl, '--vocabulary', vocab, '--out', jsonl])
    expect(same.code).toBe(1)
    expect(same.stderr).toMatch(/--out/)
    expect(readFileSync(jsonl, 'utf8')).toBe(before)
    const overVocab = runTrainCli([...base, '--corpus', jsonl, '--vocabulary', vocab, '--out', vocab])
    expect(overVocab.code).toBe(1)
    expect(readFileSync(vocab, 'utf8')).toBe('alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\n')
  })
  it('a device is never read (no hang), and T has a documented maximum', () => {
    const dev = runTrainCli([...base, '--corpus', '/dev/zero', '--out', join(hostile, 'm.json')])
    expect(dev.code).toBe(1)
    expect(dev.stderr).toMatch(/not a regular file or a directory/)
    const huge = runTrainCli(['hdp-lda', '--topics', '2', '--iterations', '1e12', '--corpus', jsonl, '--out', join(hostile, 'm.json')])
    expect(huge.code).toBe(1)
    expect(huge.stderr).toMatch(/^--iterations: T must be at most 1,000,000/)
  })
  it('bytes that are not UTF-8 are an error naming the file and the byte offset, not words cut silently', () => {
    const latin = join(hostile, 'latin.jsonl')
    writeFileSync(latin, Buffer.concat([Buffer.from('{"text": "caf'), Buffer.from([0xe9]), Buffer.from(' alpha bravo"}\n{"text": "alpha bravo"}\n')]))
    const r = runTrainCli([...base, '--corpus', latin, '--out', join(hostile, 'l.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/latin\.jsonl: not UTF-8 at byte 13 \(0xe9\)/)
  })
})
