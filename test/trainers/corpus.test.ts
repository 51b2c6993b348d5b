import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { fromDocuments, tokenize, datasetFromCorpus } from '../../src/trainers/index.js'
import { readUci, writeUci } from '../../src/trainers/corpus/uci.js'
import { numpyPermutation } from '../../src/trainers/corpus/mt19937.js'
import { pythonRound } from '../../src/trainers/corpus/dataset.js'
import { emailBody } from '../../src/trainers/corpus/builtin.js'

describe('numpy permutation', () => {
  it('matches numpy.random.RandomState(20240601).permutation bit for bit', () => {
    // python3 -c "import numpy as np; print(np.random.RandomState(20240601).permutation(500)[:10])"
    expect(Array.from(numpyPermutation(20240601, 500).slice(0, 10))).toEqual([52, 211, 56, 111, 195, 127, 38, 251, 355, 95])
    expect(Array.from(numpyPermutation(20240601, 6046).slice(0, 10))).toEqual([4535, 4791, 457, 29, 1032, 1239, 1194, 2119, 5618, 4646])
  })
  it('is a permutation', () => {
    const p = Array.from(numpyPermutation(7, 1000)).sort((a, b) => a - b)
    expect(p).toEqual(Array.from({ length: 1000 }, (_, i) => i))
  })
  it('rounds like Python', () => {
    expect([pythonRound(50), pythonRound(604.6), pythonRound(2.5), pythonRound(3.5)]).toEqual([50, 605, 2, 4])
  })
})

describe('tokenizer', () => {
  it('keeps lowercase ASCII runs of 3+ letters that are not stop words', () => {
    expect(tokenize("Atlanta's term-end: the IRREGULARITIES of 1961 go")).toEqual(['atlanta', 'term', 'end', 'irregularities'])
  })
  it('strips e-mail headers, tags and entities', () => {
    expect(emailBody('From: x\r\nSubject: y\r\n\r\n<b>Hello</b>&nbsp;world')).toBe(' Hello  world')
  })
})

describe('UCI bag of words', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-uci-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  it('round-trips a corpus (tokens grouped by word within documents)', () => {
    const c = fromDocuments(['apple', 'pear', 'plum'], [Int32Array.from([0, 2, 0]), Int32Array.from([1, 1])])
    expect(E.isRight(writeUci(c, join(dir, 'docword.txt'), join(dir, 'vocab.txt')))).toBe(true)
    expect(readFileSync(join(dir, 'docword.txt'), 'utf8')).toBe('2\n3\n3\n1 1 2\n1 3 1\n2 2 2\n')
    const r = readUci(join(dir, 'docword.txt'), { vocabFile: join(dir, 'vocab.txt') })
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(Array.from(r.right.tokens)).toEqual([0, 0, 2, 1, 1])
    expect(r.right.vocab).toEqual(['apple', 'pear', 'plum'])
  })
  const bad = (name: string, text: string) => {
    const f = join(dir, name)
    writeFileSync(f, text)
    const r = readUci(f)
    if (E.isRight(r)) throw new Error('expected an error')
    return r.left as { path: string; message: string; value: unknown }
  }
  it('names the file and line of a malformed line', () => {
    const e = bad('a.txt', '2\n3\n2\n1 1 2\n1 x 1\n')
    expect(e.path).toBe(`${join(dir, 'a.txt')}:5`)
  })
  it('rejects a word id out of range with its line', () => {
    const e = bad('b.txt', '1\n3\n1\n1 4 2\n')
    expect(e.path.endsWith(':4')).toBe(true)
    expect(e.value).toBe(4)
  })
  it('rejects an empty document and a wrong NNZ', () => {
    expect(bad('c.txt', '2\n3\n1\n1 1 2\n').message).toMatch(/document 2 has no entries/)
    expect(bad('d.txt', '1\n3\n2\n1 1 2\n').message).toMatch(/NNZ/)
  })
  it('splits a corpus with the seeded numpy permutation and halves test documents in reading order', () => {
    const docs = Array.from({ length: 20 }, (_, d) => Int32Array.from([d % 3, 1, 2, 0, 1]))
    const ds = datasetFromCorpus('toy', fromDocuments(['a', 'b', 'c'], docs))
    if (E.isLeft(ds)) throw new Error('split failed')
    expect(ds.right.test.docStart.length - 1).toBe(2)
    expect(ds.right.testObserved.tokens.length).toBe(4)
    expect(ds.right.testHeldOut.tokens.length).toBe(6)
    expect(existsSync(dir)).toBe(true)
  })
})
