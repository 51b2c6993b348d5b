// Private SVI's mini-batch E-step across worker threads (issue 27): the statistic is summed cell by
// cell in batch order whatever the number of threads, so a seeded run must give the same model, byte
// for byte, with 1, 2 and 4 workers — with and without the per-document projection, under both
// sampling models, through the API and through `dpaudit train`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { secure, seeded } from '../../src/core/rng.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { generateLda } from '../../src/trainers/corpus/synthetic.js'
import { bagOf, emptyBag, OnlineLda } from '../../src/trainers/svi/ovb.js'
import { BatchStatistic } from '../../src/trainers/svi/statistic.js'
import { SVI_DEFAULTS, type SviConfig, sviLda, sviLdaWithoutReplacement } from '../../src/trainers/svi/trainer.js'
import { withoutTimings, writeUciCorpus } from './uci-fixture.js'

// documents of ~60 tokens on V = 50, some longer than the truncation N = 40 below
const synth = generateLda({ topics: 4, vocabulary: 50, documents: 60, alpha: 0.2, beta: 0.1, meanDocumentLength: 60 }, seeded('svi-workers'))
if (E.isLeft(synth)) throw new Error('generate failed')
const corpus = synth.right.corpus

const bytes = (a: Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

const fitPhi = (extra: Partial<SviConfig>, workers: number, rng = seeded(11)): Float64Array => {
  const trainer = extra.sampling === 'without-replacement' ? sviLdaWithoutReplacement : sviLda
  const c: SviConfig = { ...SVI_DEFAULTS, sampling: 'poisson', topics: 4, iterations: 6, batchSize: 24, truncation: 40, documents: 60, ...extra }
  const r = trainer.fit(corpus, c, rng, { logLikelihoodEvery: 0, workers })
  if (E.isLeft(r)) throw new Error(r.left.message)
  return r.right.model.phi
}

describe('the batch statistic on W threads is the one-thread statistic, bit for bit', () => {
  it.each([undefined, 3])('projection C = %s: 1, 2, 3 and 5 threads, two batches (the second larger: the arrays grow)', (clip) => {
    const K = 5
    const V = 50
    const make = (workers: number): BatchStatistic => {
      const ovb = new OnlineLda(K, V, 0.1, 0.01, { shared: workers > 1 })
      const w = new WordStream(seededWords(3))
      for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = 0.5 + w.nextDouble()
      ovb.refresh()
      const s = BatchStatistic.onThreads(ovb, clip, workers)
      if (E.isLeft(s)) throw new Error(s.left.message)
      expect(s.right.workers).toBe(workers)
      return s.right
    }
    const run = (s: BatchStatistic, from: number, to: number): { stats: Buffer; projected: number } => {
      const bag = emptyBag(200)
      const seen = new Int32Array(V)
      s.begin()
      for (let d = from; d < to; d++) s.add(bagOf(corpus.tokens, corpus.docStart[d] as number, corpus.docStart[d + 1] as number, bag, seen))
      return { stats: Buffer.from(bytes(s.finish(to - from))), projected: s.projected }
    }
    const one = make(1)
    const first = run(one, 0, 7)
    const second = run(one, 7, 60)
    expect(first.stats.some((x) => x !== 0)).toBe(true)
    if (clip !== undefined) expect(second.projected).toBeGreaterThan(0)
    for (const workers of [2, 3, 5]) {
      const s = make(workers)
      try {
        expect(run(s, 0, 7)).toEqual(first)
        expect(run(s, 7, 60)).toEqual(second)
      } finally {
        s.close()
      }
    }
    one.close()
  })

  it('refuses several threads when λ is not in shared memory, and a worker count that is not a positive integer, naming the field', () => {
    const ovb = new OnlineLda(3, 10, 0.1, 0.01)
    const notShared = BatchStatistic.onThreads(ovb, undefined, 2)
    expect(E.isLeft(notShared) && notShared.left.message).toMatch(/shared memory/)
    const r = sviLda.fit(corpus, { ...SVI_DEFAULTS, sampling: 'poisson', topics: 4, iterations: 1, documents: 60 }, seeded(1), { workers: 0 })
    expect(E.isLeft(r) && JSON.stringify(r.left)).toMatch(/"workers".*integer ≥ 1/)
  })
})

describe('a seeded private SVI run does not depend on the number of workers', () => {
  it.each([
    ['svi-lda (Poisson batches), truncation N = 40', {}],
    ['svi-lda with the projection C = 4', { clipNorm: 4 }],
    ['svi-lda-wor (fixed-size batches)', { sampling: 'without-replacement' as const }],
  ] as const)('%s: φ identical with 1, 2 and 4 workers', (_, extra) => {
    const one = bytes(fitPhi(extra, 1))
    expect(bytes(fitPhi(extra, 2)).equals(one)).toBe(true)
    expect(bytes(fitPhi(extra, 4)).equals(one)).toBe(true)
  })

  it('a different seed gives a different model (the words do reach the batch, truncation and noise)', () => {
    expect(bytes(fitPhi({}, 2, seeded(12))).equals(bytes(fitPhi({}, 2, seeded(11))))).toBe(false)
  })

  it('trains from node:crypto on 3 workers and says it is private', () => {
    const r = sviLda.fit(corpus, { ...SVI_DEFAULTS, sampling: 'poisson', topics: 4, iterations: 3, batchSize: 24, documents: 60 }, secure(), { logLikelihoodEvery: 0, workers: 3 })
    if (E.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.release.randomness).toBe('secure (node:crypto)')
    expect(r.right.model.phi.every((x) => Number.isFinite(x) && x > 0)).toBe(true)
  })
})

describe('dpaudit train svi-lda(-wor) --seed S --workers W writes the same model file for W = 1, 2, 4', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-svi-workers-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const uci = (): string => writeUciCorpus(join(dir, 'uci'), corpus)

  it.each([
    ['svi-lda', ['--documents', '60', '--batch-size', '24', '--truncation', '40']],
    ['svi-lda-wor', ['--batch-size', '24', '--truncation', '40', '--clip-norm', '4']],
  ] as const)('%s', (trainer, flags) => {
    const path = uci()
    const files = [1, 2, 4].map((w) => {
      const out = join(dir, `${trainer}-${w}.json`)
      const r = runTrainCli([trainer, '--corpus', path, '--topics', '4', '--iterations', '4', ...flags, '--seed', 'workers', '--workers', String(w), '--out', out])
      expect(r.code, r.stderr).toBe(0)
      return readFileSync(out, 'utf8')
    })
    expect(withoutTimings(files[0] as string)).toMatch(/"phi"/)
    expect(withoutTimings(files[1] as string)).toBe(withoutTimings(files[0] as string))
    expect(withoutTimings(files[2] as string)).toBe(withoutTimings(files[0] as string))
  })
})
