import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { runSafely } from '../../src/cli/run.js'
import { formatError } from '../../src/core/error.js'
import { seeded } from '../../src/core/rng.js'
import { stringifyJson } from '../../src/core/json.js'
import { TRAINERS, corpusStats, generateLda, privacyStatement, type LdaConfigBase } from '../../src/trainers/index.js'
import { writeTinyUci } from './tiny-uci.js'
import { decodeModelFile, modelFile, readModelFile, type TrainedFile, writeModelFile } from '../../src/trainers/model-file.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-model-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const synth = generateLda({ topics: 3, vocabulary: 30, documents: 30, alpha: 0.2, beta: 0.1, meanDocumentLength: 20 }, seeded(11))
if (E.isLeft(synth)) throw new Error('generate failed')
const corpus = synth.right.corpus
const stats = corpusStats(corpus)

// A tiny UCI corpus for the CLI (evaluate decodes the model before it loads the corpus).
const corpusDir = writeTinyUci(dir)

type Name = keyof typeof TRAINERS

const trainModel = (name: Name, topics: number, seed: number): TrainedFile => {
  const trainer = TRAINERS[name]
  const c = trainer.config.decode({ ...trainer.defaults, topics, iterations: 2, epsilonL: 1, epsilon: 1, clip: 5, noise: 'fresh' })
  if (E.isLeft(c)) throw new Error(`decode ${name}`)
  const cfg = c.right as LdaConfigBase
  const fit = (trainer.fit as (d: typeof corpus, c: LdaConfigBase, r: ReturnType<typeof seeded>, o: object) => ReturnType<typeof trainer.fit>)(corpus, cfg, seeded(seed), {})
  const st = (privacyStatement as (t: unknown, c: unknown, s: typeof stats, d: number[]) => ReturnType<typeof privacyStatement>)(trainer, cfg, stats, [1e-5])
  if (E.isLeft(fit) || E.isLeft(st)) throw new Error(`train ${name}`)
  return modelFile({
    trainer: name,
    config: cfg,
    release: { private: fit.right.release.private, randomness: fit.right.release.randomness, notice: 'test', notPrivateBecause: fit.right.release.notPrivateBecause },
    corpus: { name: 'synthetic', documents: stats.documents, vocabulary: stats.vocabulary, tokens: stats.tokens },
    vocab: corpus.vocab,
    model: fit.right.model,
    evaluation: { perplexity: 31.5, heldOutTokens: 100, protocol: 'test' },
    privacy: st.right,
    ...(name === 'cgs' ? { trace: fit.right.trace } : {}),
  })
}

const write = (name: string, m: TrainedFile): string => {
  const p = join(dir, name)
  const w = writeModelFile(p, m)
  if (E.isLeft(w)) throw new Error(formatError(w.left))
  return p
}

describe('model files: write then read', () => {
  it('gives the same model back, for every trainer (ε = ∞ and NaN written as strings)', () => {
    fc.assert(
      fc.property(fc.constantFrom<Name>('cgs', 'hdp-lda', 'cdp-lda', 'sub-lda'), fc.integer({ min: 2, max: 5 }), fc.integer(), (name, K, seed) => {
        const m = trainModel(name, K, seed)
        const p = write(`rt-${name}.json`, m)
        const r = readModelFile(p)
        if (E.isLeft(r)) throw new Error(formatError(r.left))
        expect(r.right.file).toEqual(m)
        expect(r.right.topics).toBe(K)
        expect(Array.from(r.right.phi)).toEqual((m['phi'] as number[][]).flat())
      }),
      { seed: 7, numRuns: 8 },
    )
  })

  it('keeps an infinite accounted ε infinite (CDP-LDA)', () => {
    const r = readModelFile(write('cdp.json', trainModel('cdp-lda', 3, 1)))
    if (E.isLeft(r)) throw new Error(formatError(r.left))
    expect(r.right.file.privacy.guarantee[0]?.epsilon).toBe(Number.POSITIVE_INFINITY)
  })
})

describe('bad model files: one line naming the field and the value, exit 1 from evaluate', () => {
  const good = JSON.parse(stringifyJson(trainModel('cgs', 3, 5))) as Record<string, unknown> & {
    phi: unknown[][]
    theta: unknown[][]
    privacy: Record<string, unknown>
  }
  const V = corpus.vocab.length
  const variant = (f: (m: typeof good) => void): string => {
    const m = structuredClone(good)
    f(m)
    return JSON.stringify(m)
  }
  const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['truncated JSON', JSON.stringify(good).slice(0, 500), /: \$: not valid JSON/],
    ['not an object', '[1, 2]', /: \$: expected a model file/],
    ['wrong kind', variant((m) => (m['kind'] = 'lda-model')), /\$\.kind: expected "dpaudit-lda-model" \(got "lda-model"\)/],
    ['wrong schemaVersion', variant((m) => (m['schemaVersion'] = 2)), /\$\.schemaVersion: expected schemaVersion 1 \(got 2\)/],
    ['missing vocab', variant((m) => delete m['vocab']), /\$\.vocab: missing; expected a list of words \(got undefined\)/],
    ['missing config', variant((m) => delete m['config']), /\$\.config: missing/],
    ['missing phi', variant((m) => delete (m as Record<string, unknown>)['phi']), /\$\.phi: missing; expected a list of rows of numbers/],
    ['missing privacy.guarantee', variant((m) => delete m.privacy['guarantee']), /\$\.privacy\.guarantee: missing/],
    ['trainer not a string', variant((m) => (m['trainer'] = 3)), /\$\.trainer: expected string \(got 3\)/],
    ['topics = 1', variant((m) => (m['topics'] = 1)), /\$\.topics: expected an integer ≥ 2 \(got 1\)/],
    ['phi missing a row', variant((m) => m.phi.pop()), /\$\.phi: has the wrong number of rows: expected 3 \(one per topic\) \(got 2\)/],
    ['phi row of wrong length', variant((m) => m.phi[1]?.pop()), new RegExp(`\\$\\.phi\\[1\\]: has the wrong length: expected ${V} probabilities .* \\(got ${V - 1}\\)`)],
    ['NaN in phi', variant((m) => ((m.phi[0] as unknown[])[3] = 'NaN')), /\$\.phi\[0\]\[3\]: expected a finite probability ≥ 0 \(got NaN\)/],
    ['infinite entry in phi', variant((m) => ((m.phi[2] as unknown[])[0] = 'Infinity')), /\$\.phi\[2\]\[0\]: expected a finite probability ≥ 0 \(got Infinity\)/],
    ['negative entry in phi', variant((m) => ((m.phi[0] as unknown[])[4] = -0.25)), /\$\.phi\[0\]\[4\]: expected a finite probability ≥ 0 \(got -0.25\)/],
    ['text in phi', variant((m) => ((m.phi[1] as unknown[])[2] = 'x')), /\$\.phi\[1\]\[2\]: expected a number .* \(got "x"\)/],
    ['phi row not summing to 1', variant((m) => (m.phi[2] = (m.phi[2] as number[]).map((x) => x / 2))), /\$\.phi\[2\]: row sum is not 1 \(within 0.000001\) \(got 0\.[45]\d*\)/],
    ['theta row of wrong length', variant((m) => m.theta[4]?.push(0)), /\$\.theta\[4\]: has the wrong length: expected 3 topic proportions \(one per topic\) \(got 4\)/],
    ['negative theta', variant((m) => ((m.theta[0] as unknown[])[1] = -1)), /\$\.theta\[0\]\[1\]: expected a finite proportion ≥ 0 \(got -1\)/],
    ['bad plan', variant((m) => (m.privacy['plan'] = { _tag: 'Gaussian', sigma: -1, sensitivity: 1, relation: { kind: 'replace-one', unit: 'word' } })), /\$\.privacy\.plan\.sigma/],
    ['bad claim', variant((m) => ((m.privacy['claim'] as Record<string, unknown>)['atDelta'] = 'none')), /\$\.privacy\.claim\.atDelta/],
    // parts that must agree with each other (issue 29 item 2: an edited file is refused, not believed)
    ['V disagrees with the vocabulary', variant((m) => ((m['corpus'] as Record<string, unknown>)['vocabulary'] = V + 1)), new RegExp(`\\$\\.corpus\\.vocabulary: disagrees with \\$\\.vocab, which holds ${V} words \\(got ${V + 1}\\)`)],
    ['a repeated word', variant((m) => ((m['vocab'] as string[])[5] = (m['vocab'] as string[])[2] as string)), /\$\.vocab\[5\]: repeats \$\.vocab\[2\]/],
    ['an empty word', variant((m) => ((m['vocab'] as string[])[1] = '')), /\$\.vocab\[1\]: an empty word/],
    ['a fractional size', variant((m) => ((m['corpus'] as Record<string, unknown>)['documents'] = 2.5)), /\$\.corpus\.documents: expected a count \(an integer ≥ 0\) \(got 2\.5\)/],
    ['a statement about another trainer', variant((m) => (m.privacy['trainer'] = 'hdp-lda')), /\$\.privacy\.trainer: the statement is about another trainer than the file's "cgs" \(got "hdp-lda"\)/],
    ['a negative ε', variant((m) => ((m.privacy['accounted'] as Record<string, unknown>[])[0]!['epsilon'] = -5)), /\$\.privacy\.accounted\[0\]\.epsilon: expected ε ≥ 0 \(or Infinity\) \(got -5\)/],
    ['a NaN ε', variant((m) => ((m.privacy['guarantee'] as Record<string, unknown>[])[0]!['epsilon'] = 'NaN')), /\$\.privacy\.guarantee\[0\]\.epsilon: expected ε ≥ 0 \(or Infinity\) \(got NaN\)/],
    ['δ above 1', variant((m) => ((m.privacy['accounted'] as Record<string, unknown>[])[0]!['delta'] = 2)), /\$\.privacy\.accounted\[0\]\.delta: expected a probability in \[0, 1\] \(got 2\)/],
    ['"private" with reasons it is not', variant((m) => ((m['release'] as Record<string, unknown>)['private'] = true)), /\$\.release\.private: contradicts \$\.release\.notPrivateBecause/],
    ['a perplexity below 1', variant((m) => ((m['evaluation'] as Record<string, unknown>)['perplexity'] = 0.5)), /\$\.evaluation\.perplexity: expected a finite perplexity ≥ 1 \(got 0\.5\)/],
  ]
  it.each(cases)('%s', (name, text, pattern) => {
    const p = join(dir, `bad-${name.replace(/\W+/g, '-')}.json`)
    writeFileSync(p, text)
    const r = readModelFile(p)
    expect(E.isLeft(r)).toBe(true)
    if (E.isRight(r)) return
    const line = formatError(r.left)
    expect(line.startsWith(`${p}: $`)).toBe(true)
    expect(line).toMatch(pattern)
    const cli = runSafely(['evaluate', p, '--corpus', corpusDir])
    expect(cli.code).toBe(1)
    expect(cli.stderr).toBe(line)
    expect(cli.stderr?.split('\n')).toHaveLength(1)
    expect(cli.stderr).not.toMatch(/\n\s+at |internal error/)
  })

  it('the unmodified file decodes; a file written by `train` evaluates through the CLI', () => {
    expect(E.isRight(decodeModelFile(good))).toBe(true)
    for (const trainer of ['cgs', 'sub-lda']) {
      const p = join(dir, `cli-${trainer}.json`)
      expect(runSafely(['train', trainer, '--corpus', corpusDir, '--topics', '2', '--iterations', '2', '--seed', '3', '--out', p]).code).toBe(0)
      expect(E.isRight(readModelFile(p))).toBe(true)
      expect(runSafely(['evaluate', p, '--corpus', corpusDir]).code).toBe(0)
    }
  })
})

describe('a statement re-derived from its own plan (issue 29 item 2)', () => {
  const good = JSON.parse(stringifyJson(trainModel('hdp-lda', 3, 5))) as { privacy: { accounted: { epsilon: number }[]; guarantee: { epsilon: number }[]; accountedUnder: string } }
  const stated = good.privacy.accounted[0]?.epsilon as number
  const save = (name: string, f: (m: typeof good) => void): string => {
    const m = structuredClone(good)
    f(m)
    const p = join(dir, `statement-${name}.json`)
    writeFileSync(p, JSON.stringify(m))
    return p
  }

  it('the file as written reads back, and its statement is finite', () => {
    expect(Number.isFinite(stated) && stated > 0).toBe(true)
    expect(E.isRight(readModelFile(save('as-written', () => undefined)))).toBe(true)
  })

  it('an ε edited downwards is refused in one line naming the field, the stated and the re-derived value', () => {
    for (const field of ['accounted', 'guarantee'] as const) {
      const p = save(`lower-${field}`, (m) => ((m.privacy[field][0] as { epsilon: number }).epsilon = stated / 2))
      const r = readModelFile(p)
      if (E.isRight(r)) throw new Error('an understated ε was believed')
      const line = formatError(r.left)
      expect(line).toContain(`$.privacy.${field}[0].epsilon: is below what the file's own plan gives`)
      expect(line).toContain(`ε = ${stated}`)
      expect(line).toContain(`(got ${stated / 2})`)
      const cli = runSafely(['evaluate', p, '--corpus', corpusDir])
      expect(cli.code).toBe(1)
      expect(cli.stderr).toBe(line)
    }
  })

  it('an ε stated higher than the plan gives is sound and accepted (an older, looser accountant)', () => {
    expect(E.isRight(readModelFile(save('higher', (m) => ((m.privacy.accounted[0] as { epsilon: number }).epsilon = stated * 2))))).toBe(true)
  })

  it('a relation it cannot read is named', () => {
    const r = readModelFile(save('relation', (m) => (m.privacy.accountedUnder = 'swap one galaxy')))
    if (E.isRight(r)) throw new Error('an unknown relation was accepted')
    expect(formatError(r.left)).toMatch(/\$\.privacy\.accountedUnder: not a neighbouring relation dpaudit knows .* \(got "swap one galaxy"\)/)
  })

  it('a device or a folder is refused before it is read', () => {
    for (const p of ['/dev/zero', dir]) {
      const r = readModelFile(p)
      if (E.isRight(r)) throw new Error(`${p} was read`)
      expect(formatError(r.left)).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot read the model file \\(it is a (device|directory)`))
    }
  })
})
