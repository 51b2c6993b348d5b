// The release gate (issue 9): every data-dependent value leaves a private trainer through one call
// that draws the randomness and records the event; seeded randomness and diagnostics make a run
// "not a private release", in words; a private model holds φ only.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { secure, seeded } from '../../src/core/rng.js'
import { secureWords, seededWords, WordStream } from '../../src/core/words.js'
import { compositionAtoms, corpusStats, datasetFromRaw, generateLda, hdpLda, subLda, TRAINERS } from '../../src/trainers/index.js'
import { ReleaseGate, type ReleaseRecord } from '../../src/mechanisms/gate.js'
import { labeled, selfCompose } from '../../src/mechanisms/event.js'
import { schedulePlan } from '../../src/mechanisms/schedule.js'
import { loadDataset } from '../../src/trainers/corpus/load.js'
import { phiFromNoisyCounts } from '../../src/trainers/lda/state.js'
import { discreteLaplaceTable } from '../../src/mechanisms/measurement.js'
import { replaceOne } from '../../src/mechanisms/neighbouring.js'
import { subsampleCoins, tokenWords } from '../../src/trainers/lda/parallel/release-work.js'
import { subLdaSigma } from '../../src/trainers/sub-analysis.js'

// node:crypto's randomFillSync, the secure word source (src/core/words.ts), passes through unless a
// test installs a stand-in: then the "secure" run's words are known, and can be replayed.
const crypto = vi.hoisted(() => ({ standIn: undefined as undefined | ((out: Uint32Array) => void), words: 0 }))
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>()
  return {
    ...real,
    randomFillSync: (buf: NodeJS.ArrayBufferView, ...rest: unknown[]) => {
      if (crypto.standIn === undefined || !(buf instanceof Uint32Array)) return (real.randomFillSync as (...a: unknown[]) => unknown)(buf, ...rest)
      crypto.standIn(buf)
      crypto.words += buf.length
      return buf
    },
  }
})

const WORD = replaceOne('word')
const synth = generateLda({ topics: 3, vocabulary: 30, documents: 30, alpha: 0.2, beta: 0.1, meanDocumentLength: 20 }, seeded(11))
if (E.isLeft(synth)) throw new Error('generate failed')
const corpus = synth.right.corpus
const HDP = { topics: 3, iterations: 3, alpha: 0.1, beta: 0.1, epsilonL: 1, clip: 5, noise: 'fresh' as const }

describe('ReleaseGate', () => {
  it('records the event of every release it runs, and shows observers exactly the value returned', () => {
    const seen: ReleaseRecord[] = []
    const gate = new ReleaseGate(seededWords(1), { onRelease: (r) => seen.push(r) })
    const m = discreteLaplaceTable('counts', 2, { cells: 2, perCell: 1, relation: WORD })
    const counts = Int32Array.from([5, 0, 3])
    const out = gate.release(m, counts, 'iteration 1')
    expect(out).toHaveLength(3)
    for (const x of out) expect(Number.isInteger(x)).toBe(true)
    expect(seen).toHaveLength(1)
    expect(seen[0]?.value).toBe(out)
    expect(seen[0]?.label).toBe('iteration 1: counts')
    expect([...compositionAtoms(gate.ledger()).values()]).toEqual([2]) // two cells of discrete Laplace
  })
  it('a seeded gate is not a private release and says why; a node:crypto gate is', () => {
    const s = new ReleaseGate(seededWords('x'))
    expect(s.isPrivate).toBe(false)
    expect(s.randomness).toBe('seeded')
    expect(s.notPrivateBecause().join(' ')).toMatch(/seed/)
    const c = new ReleaseGate(secureWords())
    expect(c.isPrivate).toBe(true)
    expect(c.randomness).toBe('secure (node:crypto)')
  })
  it('computes diagnostics only when asked, and then records them as NonPrivate', () => {
    const off = new ReleaseGate(secureWords())
    expect(off.diagnostic('ll', () => 1)).toBeUndefined()
    expect(compositionAtoms(off.ledger()).size).toBe(0)
    const on = new ReleaseGate(secureWords(), { diagnostics: true })
    expect(on.diagnostic('ll', () => 1)).toBe(1)
    expect([...compositionAtoms(on.ledger()).keys()]).toEqual([JSON.stringify({ _tag: 'NonPrivate' })])
    expect(on.isPrivate).toBe(false)
  })
  it('given a schedule, accepts the releases it declares (in any order, or fewer) and says so of one beyond it', () => {
    const m = discreteLaplaceTable('counts', 2, { cells: 2, perCell: 1, relation: WORD })
    const other = discreteLaplaceTable('counts', 1, { cells: 2, perCell: 1, relation: WORD }) // another scale: not declared
    const schedule = { each: [{ label: m.label, event: m.event }], iterations: 2 }
    expect(schedulePlan(schedule)).toEqual(selfCompose(labeled('counts', m.event), 2))
    const within = new ReleaseGate(secureWords(), { schedule })
    within.release(m, Int32Array.from([1, 2]), 'iteration 1')
    expect(within.isPrivate).toBe(true) // one of two: a run may stop early (its plan overstates)
    within.release(m, Int32Array.from([1, 2]), 'iteration 2')
    expect(within.isPrivate).toBe(true)
    within.release(m, Int32Array.from([1, 2]), 'iteration 3')
    expect(within.notPrivateBecause().join(' ')).toMatch(/counts was released beyond the run's schedule/)
    const wrong = new ReleaseGate(secureWords(), { schedule })
    wrong.release(other, Int32Array.from([1, 2]))
    expect(wrong.isPrivate).toBe(false)
    expect(compositionAtoms(wrong.ledger())).toEqual(compositionAtoms(other.event)) // still recorded as done
  })
})

describe('private trainers through the gate', () => {
  it('draw from node:crypto by default: two runs differ, the model holds φ only, the trace no log-likelihood', () => {
    const a = hdpLda.fit(corpus, HDP, secure())
    const b = hdpLda.fit(corpus, HDP, secure())
    if (E.isLeft(a) || E.isLeft(b)) throw new Error('fit')
    expect(Array.from(a.right.model.phi)).not.toEqual(Array.from(b.right.model.phi))
    expect(a.right.release).toEqual({ private: true, randomness: 'secure (node:crypto)', notPrivateBecause: [] })
    expect(a.right.model.theta).toBeUndefined()
    expect(a.right.trace.every((t) => Number.isNaN(t.logLikelihood))).toBe(true)
  })
  it('repeat exactly from a seed, and say the run is not private', () => {
    const a = subLda.fit(corpus, { ...(subLda.defaults as object), topics: 3, iterations: 2 } as never, seeded(5))
    const b = subLda.fit(corpus, { ...(subLda.defaults as object), topics: 3, iterations: 2 } as never, seeded(5))
    if (E.isLeft(a) || E.isLeft(b)) throw new Error('fit')
    expect(Array.from(a.right.model.phi)).toEqual(Array.from(b.right.model.phi))
    expect(a.right.release.private).toBe(false)
  })
  it('with diagnostics: the true-count log-likelihood is computed, recorded as NonPrivate, and the run is not private', () => {
    const f = hdpLda.fit(corpus, HDP, secure(), { diagnostics: true })
    if (E.isLeft(f)) throw new Error('fit')
    expect(f.right.trace.every((t) => Number.isFinite(t.logLikelihood))).toBe(true)
    expect(compositionAtoms(f.right.ledger).get(JSON.stringify({ _tag: 'NonPrivate' }))).toBe(3)
    expect(f.right.release.private).toBe(false)
    expect(f.right.release.notPrivateBecause.join(' ')).toMatch(/diagnostics/)
  })
  it('every private trainer releases only through the gate: its onRelease values are all integers or φ inputs', () => {
    for (const name of ['hdp-lda', 'cdp-lda', 'cdp-lda+', 'sub-lda'] as const) {
      const t = TRAINERS[name]
      const config = { ...(t.defaults as object), topics: 3, iterations: 2, ...(name === 'sub-lda' ? { gamma: 0.5 } : {}) } as never
      const seen: ReleaseRecord[] = []
      const f = t.fit(corpus, config, secure(), { onRelease: (r) => seen.push(r) })
      if (E.isLeft(f)) throw new Error(name)
      // one counts release (two for CDP) and one draw per iteration, each in the ledger
      const leaves = [...compositionAtoms(f.right.ledger).values()].reduce((s, n) => s + n, 0)
      expect(seen.length, name).toBeGreaterThanOrEqual(4)
      expect(leaves, name).toBeGreaterThanOrEqual(seen.length)
      // Every value that left the gate: a sweep's draws (accounted as released: every token's topic, an
      // integer in [0, K)), an integer table (counts plus exact discrete noise), or SUB-LDA's { released, kept } of integers.
      // the topic-word table is each iteration's first table (CDP releases the document-topic table after it)
      const topicWord = new Map<string, Float64Array>()
      for (const r of seen) {
        const v = r.value
        if (v instanceof Int32Array) {
          expect(v, `${name} ${r.label}`).toHaveLength(corpus.tokens.length)
          expect(v.every((k) => k >= 0 && k < 3), `${name} ${r.label}`).toBe(true)
          continue
        }
        const table = v instanceof Float64Array ? v : (v as { released?: unknown }).released
        expect(table, `${name} ${r.label}`).toBeInstanceOf(Float64Array)
        const cells = Array.from(table as Float64Array)
        expect(cells.filter((x) => !Number.isInteger(x)), `${name} ${r.label}`).toEqual([])
        if (!(v instanceof Float64Array)) expect(Number.isInteger((v as { kept: unknown }).kept), `${name} ${r.label}: kept`).toBe(true)
        const iteration = r.label.slice(0, r.label.indexOf(':'))
        if (!topicWord.has(iteration)) topicWord.set(iteration, table as Float64Array)
      }
      expect([...topicWord.keys()], name).toEqual(['iteration 1', 'iteration 2'])
      // φ is post-processing of the last topic-word release: clipped at 0, scaled by 1/γ (SUB-LDA), normalised
      const last = topicWord.get('iteration 2') as Float64Array
      expect(last, name).toHaveLength(corpus.vocab.length * 3)
      const expected = phiFromNoisyCounts(last, 3, corpus.vocab.length, (t.defaults as { beta: number }).beta, name === 'sub-lda' ? 1 / 0.5 : 1)
      const phi = Array.from(f.right.model.phi)
      expect(phi.every((p, i) => Math.abs(p - (expected[i] as number)) <= 1e-12 * (expected[i] as number)), name).toBe(true)
    }
  })
})

describe('SUB-LDA draws its coins and topic draws from the gate’s secure words (node:crypto)', () => {
  const C = { ...(subLda.defaults as object), topics: 3, iterations: 2, gamma: 0.5 } as never
  const run = (rng: ReturnType<typeof secure>) => {
    const kept: number[] = []
    const f = subLda.fit(corpus, C, rng, { onRelease: (r) => typeof r.value === 'object' && r.value !== null && 'kept' in r.value && kept.push((r.value as { kept: number }).kept) })
    if (E.isLeft(f)) throw new Error('fit')
    return { fit: f.right, kept }
  }
  it('with node:crypto replaced by a known stream, the secure run repeats on that stream; a seeded run’s coins are streams keyed from the seed', () => {
    const onStandIn = (): ReturnType<typeof run> => {
      crypto.standIn = seededWords('crypto-stand-in').fill
      crypto.words = 0
      try {
        return run(secure())
      } finally {
        crypto.standIn = undefined
      }
    }
    const secureRun = onStandIn()
    // the gate took every word from randomFillSync, and called the run private (secret source)
    expect(crypto.words).toBeGreaterThan(0)
    expect(secureRun.fit.release).toEqual({ private: true, randomness: 'secure (node:crypto)', notPrivateBecause: [] })
    // the same node:crypto words give the same run bit for bit: nothing random came from elsewhere
    // (the sweep's topic draws read node:crypto directly, on the thread that sweeps, not through a seed)
    const again = onStandIn()
    expect(Array.from(again.fit.model.phi)).toEqual(Array.from(secureRun.fit.model.phi))
    expect(again.kept).toEqual(secureRun.kept)
    const seededRun = run(seeded('crypto-stand-in'))
    // Replay the seeded run's stream: the initial topics' key, then per iteration the coins'
    // key (each document's coins, two words a token, from a stream keyed by it and the document), the
    // noise's key (its blocks of cells are keyed streams too) and the sweep's two keys.
    const replay = (): number[] => {
      const w = new WordStream(seededWords('crypto-stand-in'))
      w.fillWords(new Uint32Array(4)) // the initial topics' key
      const out: number[] = []
      const V = corpus.vocab.length
      for (let it = 0; it < 2; it++) {
        const key = new Uint32Array(4)
        w.fillWords(key)
        const include = new Uint8Array(N)
        out.push(subsampleCoins(3, corpus.tokens, corpus.docStart, new Int32Array(N), 0, corpus.docStart.length - 1, 0.5, undefined, { kind: 'keyed', key }, include, new Int32Array(V * 3), tokenWords()))
        w.fillWords(new Uint32Array(4 + 8))
      }
      return out
    }
    const N = corpus.tokens.length
    // more words than the gate's one 16,384-word chunk: the coins, the noise and the sweep read node:crypto themselves
    expect(crypto.words).toBeGreaterThan(16384)
    const expected = replay()
    expect(seededRun.kept).toEqual(expected)
    // the secure run's coins are node:crypto's (the stand-in's) words, not the seed's
    expect(secureRun.kept).not.toEqual(expected)
    expect(expected[0]).toBeGreaterThan(N / 4)
    expect(expected[0]).toBeLessThan((3 * N) / 4)
  })
})

describe('vocabulary', () => {
  const raw = Array.from({ length: 20 }, (_, i) => ({ name: `d${i}`, label: '', tokens: i === 0 ? ['onlyhere', 'common', 'common'] : ['common', 'other', `w${i % 3}`] }))
  it('is built from the training documents only', () => {
    const mask = datasetFromRaw('t', raw, 50)
    if (E.isLeft(mask)) throw new Error('dataset')
    const inTest = mask.right.test.names.includes('d0')
    expect(mask.right.train.vocab.includes('onlyhere')).toBe(!inTest)
    expect(mask.right.vocabularySource).toEqual({ kind: 'training-data', size: mask.right.train.vocab.length })
  })
  it('a public word list is used as given; a document it leaves (nearly) empty is dropped as any other, and nothing names it', () => {
    const ok = datasetFromRaw('t', raw, 50, { vocabulary: { words: ['common', 'other'], file: 'v.txt' } })
    if (E.isLeft(ok)) throw new Error('dataset')
    expect(ok.right.train.vocab).toEqual(['common', 'other'])
    const withStranger = datasetFromRaw('t', [...raw, { name: 'stranger', label: '', tokens: ['nothing', 'known'] }], 50, { vocabulary: { words: ['common', 'other'], file: 'v.txt' } })
    if (E.isLeft(withStranger)) throw new Error(withStranger.left.message)
    expect([...withStranger.right.train.names, ...withStranger.right.test.names]).not.toContain('stranger')
  })
  it('a vocabulary chosen from the data is written in code-unit order, not by frequency', () => {
    const ds = datasetFromRaw('t', raw, 50)
    if (E.isLeft(ds)) throw new Error('dataset')
    expect(ds.right.train.vocab).toEqual([...ds.right.train.vocab].sort())
  })
})

describe('dpaudit train: bad input is refused before any work, nothing written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-gate-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const jsonl = join(dir, 'c.jsonl')
  writeFileSync(jsonl, Array.from({ length: 30 }, (_, i) => JSON.stringify({ text: `alpha beta gamma delta ${i % 2 === 0 ? 'epsilon' : 'zeta'} alpha beta` })).join('\n'))
  const vocab = join(dir, 'v.txt')
  writeFileSync(vocab, 'alpha\nbeta\n\n gamma \n')
  const empty = join(dir, 'empty.txt')
  writeFileSync(empty, '\n  \n')
  const narrow = join(dir, 'narrow.txt')
  writeFileSync(narrow, 'omega\n')
  const base = ['hdp-lda', '--corpus', jsonl, '--topics', '2', '--iterations', '2', '--epsilon-l', '1', '--clip', '5']
  it.each([
    [['--seed', '3', '--private'], /--seed .* cannot be a private release/],
    [['--diagnostics', '--private'], /--diagnostics .* cannot be a private release/],
    [['--vocabulary', join(dir, 'missing.txt')], /^--vocabulary: cannot read the vocabulary file \(ENOENT\) \(got ".*missing\.txt"\)$/],
    [['--vocabulary', empty], /^--vocabulary: the vocabulary file holds no word \(got ".*empty\.txt"\)$/],
    // a list that leaves no document with 2 of its words: the operator is told, no document named
    [['--vocabulary', narrow], /^--corpus: .*no training document has at least 2 words of the vocabulary/],
    // the most frequent words of the private documents: not a private release
    [['--private'], /^--private: the vocabulary is the 6 most frequent words of the private documents/],
    [['--vocabulary', vocab, '--vocabulary-size', '10'], /go separately/],
    [['--private', '--vocabulary', vocab, 'cdp'], /cdp-lda: --private: the plan has no finite ε .* cannot be a private release/],
  ])('%j', (extra, re) => {
    const out = join(dir, 'm.json')
    const args = extra.includes('cdp') ? ['cdp-lda', ...base.slice(1, 7), '--epsilon', '1', ...extra.filter((x) => x !== 'cdp')] : [...base, ...extra]
    const r = runTrainCli([...args, '--out', out])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(re)
    expect(existsSync(out)).toBe(false)
  })
  it('a public word list: the statement says so; --private with secret randomness writes a private release', () => {
    const out = join(dir, 'p.json')
    const r = runTrainCli([...base, '--out', out, '--vocabulary', vocab, '--private'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/assumes: the vocabulary is public: read from .*v\.txt/)
    const f = JSON.parse(readFileSync(out, 'utf8')) as { release: { private: boolean }; vocab: string[]; theta?: unknown; trace?: unknown }
    expect(f.release.private).toBe(true)
    expect(f.vocab).toEqual(['alpha', 'beta', 'gamma'])
    expect(f.theta).toBeUndefined()
    expect(f.trace).toBeUndefined()
  })
  it('--vocabulary dp: a differentially private selection, charged first in the plan, written in code-unit order', () => {
    const out = join(dir, 'dp.json')
    const r = runTrainCli([...base, '--out', out, '--vocabulary', 'dp', '--vocabulary-epsilon', '2', '--vocabulary-delta', '1e-8', '--private'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/assumes: the vocabulary is a differentially private selection .* \(ε, δ\) = \(2, 1e-8\) asked, charged in the plan/)
    const f = JSON.parse(readFileSync(out, 'utf8')) as { release: { private: boolean }; vocab: string[]; privacy: { plan: unknown; guarantee: Array<{ epsilon: number }> } }
    expect(f.release.private).toBe(true)
    expect(f.vocab).toEqual([...f.vocab].sort())
    expect(JSON.stringify(f.privacy.plan)).toMatch(/vocabulary selection \(thresholded noisy counts\)/)
    // the selection's ε adds to the trainer's: the guarantee exceeds the one with a public list
    const pub = runTrainCli([...base, '--out', join(dir, 'pub.json'), '--vocabulary', vocab, '--private', '--json'])
    const pubEps = (JSON.parse(pub.stdout ?? '') as { privacy: { guarantee: Array<{ epsilon: number }> } }).privacy.guarantee[0]?.epsilon ?? Number.NaN
    expect(f.privacy.guarantee[0]?.epsilon).toBeGreaterThan(pubEps)
    // its own flags only go with it
    const stray = runTrainCli([...base, '--out', join(dir, 'stray.json'), '--vocabulary-epsilon', '2'])
    expect(stray.code).toBe(1)
    expect(stray.stderr).toMatch(/go with --vocabulary dp/)
  })
  it('diagnostics print the log-likelihood and label the run not private', () => {
    const out = join(dir, 'd.json')
    const r = runTrainCli([...base, '--out', out, '--diagnostics'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/NOT A PRIVATE RELEASE: .*diagnostics/)
  })
})

describe('what a private model file holds: φ, corpus D and N, and nothing else from the data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-gate-file-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const text = (i: number, replaced: boolean): string => `alpha beta gamma delta ${i % 2 === 0 ? 'epsilon' : 'zeta'} ${i % 3 === 0 ? 'alpha' : 'beta'} ${replaced && i === 4 ? 'delta' : 'gamma'}`
  const write = (name: string, replaced: boolean): string => {
    const f = join(dir, name)
    writeFileSync(f, Array.from({ length: 30 }, (_, i) => JSON.stringify({ text: text(i, replaced) })).join('\n'))
    return f
  }
  const vocabFile = join(dir, 'public-vocabulary.txt')
  writeFileSync(vocabFile, 'alpha\nbeta\ndelta\nepsilon\ngamma\nzeta\n')
  const original = write('d.jsonl', false)
  const neighbour = write('d2.jsonl', true) // one word replaced: document 5's last gamma → delta
  const KEYS = ['config', 'corpus', 'evaluation', 'kind', 'phi', 'privacy', 'release', 'schemaVersion', 'topics', 'trainer', 'vocab']
  const keysDeep = (u: unknown, out: Set<string>): Set<string> => {
    if (Array.isArray(u)) for (const x of u) keysDeep(x, out)
    else if (typeof u === 'object' && u !== null)
      for (const [k, v] of Object.entries(u)) {
        out.add(k)
        keysDeep(v, out)
      }
    return out
  }
  it.each([
    ['hdp-lda', ['--epsilon-l', '1', '--clip', '5']],
    ['sub-lda', ['--gamma', '0.5']],
  ])('%s --private: the file holds φ (K × V), D and N of the training documents, no θ, no per-document counts, no trace, no seed; a replaced word moves neither D nor N', (trainer, flags) => {
    const run = (corpusFile: string, out: string) => {
      const r = runTrainCli([trainer, '--corpus', corpusFile, '--topics', '2', '--iterations', '2', ...flags, '--vocabulary', vocabFile, '--private', '--out', out])
      expect(r.code, r.stderr).toBe(0)
      const raw = readFileSync(out, 'utf8')
      return { raw, file: JSON.parse(raw) as Record<string, unknown> }
    }
    const { raw, file } = run(original, join(dir, `${trainer}.json`))
    // a private run trains on every document (no test split: it may not be evaluated on one)
    const data = loadDataset(original, { split: false })
    if (E.isLeft(data)) throw new Error('dataset')
    const stats = corpusStats(data.right.train)
    const V = data.right.train.vocab.length
    expect([stats.documents, V]).toEqual([30, 6])
    expect(Object.keys(file).sort()).toEqual(KEYS.filter((k) => k !== 'evaluation'))
    expect(file['release']).toMatchObject({ private: true, randomness: 'secure (node:crypto)' })
    expect(file['corpus']).toMatchObject({ name: original, documents: stats.documents, vocabulary: V, tokens: stats.tokens })
    const phi = file['phi'] as number[][]
    expect(phi).toHaveLength(2)
    for (const row of phi) {
      expect(row).toHaveLength(V)
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    }
    // nowhere in the file: θ, document-topic or per-document counts, a trace, a seed
    const keys = keysDeep(file, new Set())
    for (const k of ['theta', 'trace', 'seed', 'ndk', 'nwk', 'documentLengths', 'docStart', 'tokensPerDocument']) expect(keys.has(k), k).toBe(false)
    expect(raw).not.toMatch(/seed/i)
    // no list as long as the training documents: nothing per document
    const lengths: number[] = []
    const lists = (u: unknown): void => {
      if (Array.isArray(u)) {
        lengths.push(u.length)
        for (const x of u) lists(x)
      } else if (typeof u === 'object' && u !== null) for (const v of Object.values(u)) lists(v)
    }
    lists(file)
    expect(lengths).not.toContain(stats.documents)
    // word replacement: the neighbour's file states the same D and N
    const other = run(neighbour, join(dir, `${trainer}-neighbour.json`)).file['corpus'] as { documents: number; tokens: number }
    expect({ documents: other.documents, tokens: other.tokens }).toEqual({ documents: stats.documents, tokens: stats.tokens })
  })
})
