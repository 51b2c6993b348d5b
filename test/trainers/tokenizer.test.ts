// Unicode text stays whole in user corpora; the built-in corpora keep LDA-EVAL's ASCII tokenizer
// (their reference counts are pinned in reference-counts.test.ts); every dataset says which it used.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { loadDataset } from '../../src/trainers/corpus/load.js'
import { tokenize } from '../../src/trainers/corpus/text.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-tokenizer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('tokenizers', () => {
  it('unicode keeps accented and non-Latin words whole (NFC, letters and combining marks)', () => {
    expect(tokenize('Café naïve résumé über straße', new Set(), 'unicode')).toEqual(['café', 'naïve', 'résumé', 'über', 'straße'])
    // a decomposed é (e + U+0301) is composed first, so both spellings are one word
    expect(tokenize('cafe\u0301 café', new Set(), 'unicode')).toEqual(['café', 'café'])
    expect(tokenize('Москва и Київ', new Set(), 'unicode')).toEqual(['москва', 'київ'])
  })
  it('ascii is LDA-EVAL.md’s reference: the same text is cut at every non-ASCII letter', () => {
    expect(tokenize('café naïve résumé über straße', new Set(), 'ascii')).toEqual(['caf', 'sum', 'ber', 'stra'])
  })
  it('user corpora (.jsonl, text folders) are read as UTF-8 with the unicode tokenizer, and say so', () => {
    const jsonl = join(dir, 'c.jsonl')
    writeFileSync(jsonl, Array.from({ length: 20 }, (_, i) => JSON.stringify({ text: `café naïve résumé über straße ${i % 2 === 0 ? 'déjà' : 'voilà'}` })).join('\n'))
    const d = loadDataset(jsonl)
    if (E.isLeft(d)) throw new Error('jsonl')
    expect(d.right.tokenizer).toBe('unicode')
    expect(d.right.train.vocab).toContain('straße')
    const folder = join(dir, 'texts')
    mkdirSync(folder)
    for (let i = 0; i < 12; i++) writeFileSync(join(folder, `d${i}.txt`), 'naïve résumé über straße')
    const f = loadDataset(folder)
    if (E.isLeft(f)) throw new Error('folder')
    expect(f.right.tokenizer).toBe('unicode')
    expect(f.right.train.vocab).toContain('naïve')
  })
  it('the built-in corpora use the ascii tokenizer', () => {
    const b = loadDataset('brown', { vocabularySize: 100 })
    if (E.isLeft(b)) throw new Error('brown')
    expect(b.right.tokenizer).toBe('ascii')
  })
})
