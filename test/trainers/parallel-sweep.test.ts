// The private Gibbs trainers across threads (issue 27): documents are independent given the
// release, so a sweep on W threads draws from the same distribution as on one — and, for a seeded
// run, the very same topics: the model must come out byte for byte the same with 1, 2 and 4 workers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { runTrainCli } from '../../src/cli/commands/train.js'
import { secure, seeded } from '../../src/core/rng.js'
import { cdpLda, generateLda, type HdpConfig, hdpLda, type LdaConfigBase, subLda, TRAINERS } from '../../src/trainers/index.js'
import type { LdaTrainer } from '../../src/trainers/trainer.js'
import { sweepWorkers } from '../../src/trainers/lda/private-fit.js'
import { ownFactorsPay } from '../../src/trainers/lda/snapshot.js'
import { sviWorkers } from '../../src/trainers/svi/trainer.js'
import { withoutTimings, writeUciCorpus } from './uci-fixture.js'

const synth = generateLda({ topics: 4, vocabulary: 40, documents: 60, alpha: 0.2, beta: 0.1, meanDocumentLength: 40 }, seeded('parallel-sweep'))
if (E.isLeft(synth)) throw new Error('generate failed')
const corpus = synth.right.corpus

const fitPhi = <C extends LdaConfigBase>(trainer: LdaTrainer<C>, extra: Partial<C>, workers: number, rng = seeded(7)): Float64Array => {
  const c = { ...trainer.defaults, topics: 4, iterations: 5, ...extra } as C
  const r = trainer.fit(corpus, c, rng, { logLikelihoodEvery: 0, workers })
  if (E.isLeft(r)) throw new Error(r.left.message)
  return r.right.model.phi
}

const bytes = (a: Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

// (hdp-lda, sub-lda and cdp-lda+ with their defaults are checked through the command line below)
describe('a seeded private run does not depend on the number of workers', () => {
  const cases: ReadonlyArray<readonly [string, () => (w: number) => Float64Array]> = [
    ['hdp-lda, accumulated noise', () => (w) => fitPhi(hdpLda, { noise: 'accumulate' }, w)],
    ['sub-lda, adaptive', () => (w) => fitPhi(subLda, { gamma: 0.2, adaptive: { q: 0.5, eta: 1.5 } }, w)],
    ['cdp-lda (noisy document factor)', () => (w) => fitPhi(cdpLda, {}, w)],
  ]
  for (const [name, make] of cases)
    it(`${name}: φ identical with 1, 2 and 4 workers`, () => {
      const run = make()
      const one = bytes(run(1))
      expect(bytes(run(2)).equals(one)).toBe(true)
      expect(bytes(run(4)).equals(one)).toBe(true)
    })

  it('hdp-lda with 30 topics: q of their own at 2 workers (V·K·(W − 1) ≤ N), one shared q at 4: φ identical with 1, 2 and 4 workers', () => {
    const cells = 40 * 30
    const tokens = corpus.tokens.length
    // the two layouts this case runs through (snapshot.ts ownFactorsPay)
    expect(ownFactorsPay(cells, tokens, 2)).toBe(true)
    expect(ownFactorsPay(cells, tokens, 4)).toBe(false)
    const run = (w: number): Buffer => bytes(fitPhi(hdpLda, { topics: 30 }, w))
    const one = run(1)
    expect(run(2).equals(one)).toBe(true)
    expect(run(4).equals(one)).toBe(true)
  })

  it('a worker count above the documents is lowered to them (one thread sweeps whole documents), the model unchanged', () => {
    expect(sweepWorkers(1000, 10_000_000, 30)).toBe(30)
    expect(sweepWorkers(4, 10_000_000, 30)).toBe(4)
    expect(sweepWorkers(0, 10_000_000, 30)).toBe(0) // refused where the count is checked, not raised to 1
    expect(sviWorkers(1000, 20, 30)).toBe(30)
    const few = generateLda({ topics: 2, vocabulary: 20, documents: 3, alpha: 0.2, beta: 0.1, meanDocumentLength: 30 }, seeded('few'))
    if (E.isLeft(few)) throw new Error('generate failed')
    const phi = (workers: number): Buffer => {
      const r = hdpLda.fit(few.right.corpus, { ...hdpLda.defaults, topics: 2, iterations: 3 } as HdpConfig, seeded(5), { logLikelihoodEvery: 0, workers })
      if (E.isLeft(r)) throw new Error(r.left.message)
      return bytes(r.right.model.phi)
    }
    expect(phi(64).equals(phi(1))).toBe(true)
  })

  it('a different seed gives a different model (the words do reach the draws)', () => {
    expect(bytes(fitPhi(hdpLda, {}, 2, seeded(8))).equals(bytes(fitPhi(hdpLda, {}, 2, seeded(7))))).toBe(false)
  })
})

describe('an observer changes nothing but the copies', () => {
  // unobserved, a trainer reuses one table per release kind and releases z itself (nobody keeps them);
  // observed, every release is a value of its own: the same run either way
  const cases: ReadonlyArray<readonly [string, LdaTrainer<LdaConfigBase>, object]> = [
    ['hdp-lda', hdpLda as unknown as LdaTrainer<LdaConfigBase>, {}],
    ['sub-lda', subLda as unknown as LdaTrainer<LdaConfigBase>, { gamma: 0.3 }],
    ['cdp-lda', cdpLda as unknown as LdaTrainer<LdaConfigBase>, {}],
    ['cdp-lda+', TRAINERS['cdp-lda+'] as unknown as LdaTrainer<LdaConfigBase>, {}],
  ]
  for (const [name, trainer, extra] of cases)
    it.each([1, 2])(`${name} on %i worker(s): φ identical, every observed release its own array`, (workers) => {
      const c = { ...trainer.defaults, topics: 4, iterations: 4, ...extra } as LdaConfigBase
      const plain = trainer.fit(corpus, c, seeded(3), { logLikelihoodEvery: 0, workers })
      const values: unknown[] = []
      const seen = trainer.fit(corpus, c, seeded(3), { logLikelihoodEvery: 0, workers, onRelease: (r) => values.push(r.value) })
      if (E.isLeft(plain) || E.isLeft(seen)) throw new Error('fit failed')
      expect(bytes(seen.right.model.phi).equals(bytes(plain.right.model.phi))).toBe(true)
      // a table, z, or SUB-LDA's { released, kept }
      const arrays = values.flatMap((v) => (ArrayBuffer.isView(v) ? [v] : typeof v === 'object' && v !== null ? Object.values(v).filter((x) => ArrayBuffer.isView(x)) : []))
      expect(arrays.length).toBeGreaterThanOrEqual(2 * 4)
      expect(new Set(arrays).size).toBe(arrays.length)
      expect(new Set(arrays.map((a) => (a as Int32Array).buffer)).size).toBe(arrays.length)
    })
})

describe('dpaudit train --seed S --workers W writes the same model file for W = 1, 2, 4', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-workers-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // the synthetic corpus as a UCI bag of words
  const uci = (): string => writeUciCorpus(join(dir, 'uci'), corpus)

  it.each(['hdp-lda', 'sub-lda', 'cdp-lda+'])('%s', (trainer) => {
    const path = uci()
    const files = [1, 2, 4].map((w) => {
      const out = join(dir, `${trainer}-${w}.json`)
      const r = runTrainCli([trainer, '--corpus', path, '--topics', '4', '--iterations', '4', '--seed', 'workers', '--workers', String(w), '--out', out])
      expect(r.code, r.stderr).toBe(0)
      return readFileSync(out, 'utf8')
    })
    expect(withoutTimings(files[0] as string)).toMatch(/"phi"/)
    expect(withoutTimings(files[1] as string)).toBe(withoutTimings(files[0] as string))
    expect(withoutTimings(files[2] as string)).toBe(withoutTimings(files[0] as string))
  })

  it('refuses --workers that is not a whole number, naming the flag', () => {
    const r = runTrainCli(['hdp-lda', '--corpus', uci(), '--topics', '4', '--iterations', '1', '--workers', '2.5', '--out', join(dir, 'x.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^--workers: "2.5"/)
  })
})

describe('the secure default on worker threads', () => {
  it('every private trainer trains from node:crypto on 3 workers and says it is private', () => {
    for (const name of ['hdp-lda', 'sub-lda', 'cdp-lda+'] as const) {
      const t = TRAINERS[name] as LdaTrainer
      const r = t.fit(corpus, { ...t.defaults, topics: 4, iterations: 3 } as LdaConfigBase, secure(), { logLikelihoodEvery: 0, workers: 3 })
      if (E.isLeft(r)) throw new Error(r.left.message)
      expect(r.right.release.randomness).toBe('secure (node:crypto)')
      expect(r.right.model.phi.every((x) => Number.isFinite(x) && x > 0)).toBe(true)
    }
  })

  it('refuses a worker count that is not a positive integer, naming the field', () => {
    const r = hdpLda.fit(corpus, { ...hdpLda.defaults, topics: 4, iterations: 1 } as HdpConfig, seeded(1), { workers: 0 })
    expect(E.isLeft(r) && JSON.stringify(r.left)).toMatch(/"workers".*integer ≥ 1/)
  })
})
