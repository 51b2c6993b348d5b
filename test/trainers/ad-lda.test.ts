// AD-LDA (src/trainers/lda/ad-lda.ts), the non-private CGS across threads: the counts stay those of
// z after every merged sweep, a seeded run repeats for the same number of threads, its fit is as good
// as the sequential sampler's on a synthetic corpus (the approximation measured, not assumed), and
// SparseLDA's `reload` (which each part calls every sweep) leaves the chain unchanged.
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { cgs } from '../../src/trainers/cgs.js'
import { generateLda } from '../../src/trainers/corpus/synthetic.js'
import { makeAdLdaSampler } from '../../src/trainers/lda/ad-lda.js'
import { FastUniform } from '../../src/trainers/lda/random.js'
import { makeSparseSampler } from '../../src/trainers/lda/sparse.js'
import { type GibbsState, initState, sharedInt32 } from '../../src/trainers/lda/state.js'

const synth = generateLda({ topics: 5, vocabulary: 80, documents: 120, alpha: 0.2, beta: 0.1, meanDocumentLength: 40 }, seeded(5))
if (E.isLeft(synth)) throw new Error(synth.left.message)
const corpus = synth.right.corpus
const config = { topics: 5, iterations: 60, alpha: 0.2, beta: 0.1 }

/** The count tables recounted from z. */
const recounted = (s: GibbsState) => {
  const ndk = new Int32Array(s.D * s.K)
  const nwk = new Int32Array(s.V * s.K)
  const nk = new Int32Array(s.K)
  for (let d = 0; d < s.D; d++)
    for (let i = s.docStart[d] as number; i < (s.docStart[d + 1] as number); i++) {
      const k = s.z[i] as number
      ndk[d * s.K + k] = (ndk[d * s.K + k] as number) + 1
      nwk[(s.tokens[i] as number) * s.K + k] = (nwk[(s.tokens[i] as number) * s.K + k] as number) + 1
      nk[k] = (nk[k] as number) + 1
    }
  return { ndk, nwk, nk }
}

describe('AD-LDA', () => {
  it('after every merged sweep on 3 threads, n_dk, n_wk and n_k are the counts of z', () => {
    const u = new FastUniform(seeded(3))
    const s = initState(corpus, 5, () => u.next(), 'by-word', sharedInt32)
    const m = makeAdLdaSampler(s, 0.2, 0.1, 3)
    if (E.isLeft(m)) throw new Error(m.left.message)
    try {
      expect(m.right.workers).toBe(3)
      for (let t = 0; t < 5; t++) {
        m.right.sweep(u)
        const r = recounted(s)
        expect(Array.from(s.nwk)).toEqual(Array.from(r.nwk))
        expect(Array.from(s.nk)).toEqual(Array.from(r.nk))
        expect(Array.from(s.ndk)).toEqual(Array.from(r.ndk))
      }
    } finally {
      m.right.close()
    }
  })

  it('a seeded CGS fit with --workers 2 repeats exactly; its ledger names the approximation', () => {
    const fit = () => cgs.fit(corpus, { ...config, iterations: 10 }, seeded(9), { logLikelihoodEvery: 0, workers: 2 })
    const a = fit()
    const b = fit()
    if (E.isLeft(a) || E.isLeft(b)) throw new Error('fit failed')
    expect(Array.from(a.right.model.phi)).toEqual(Array.from(b.right.model.phi))
    expect(JSON.stringify(a.right.ledger)).toMatch(/AD-LDA, approximate/)
  })

  // Medians, not means: on this corpus either sampler now and then ends in a poor local mode (about 3.5 % lower
  // log-likelihood; 1 chain in 20 for each, seeds 11–30, before and after the sampler's rewrite), and one such
  // chain moves a mean of 3 past 1 % whichever sampler it hits.
  it('fits as well as the sequential sampler: final joint log-likelihood within 1 % (medians of 5 seeds)', () => {
    const ll = (workers: number, seed: number): number => {
      const f = cgs.fit(corpus, config, seeded(seed), { logLikelihoodEvery: config.iterations, workers })
      if (E.isLeft(f)) throw new Error(f.left.message)
      return f.right.trace[f.right.trace.length - 1]?.logLikelihood as number
    }
    const median = (w: number): number => [1, 2, 3, 4, 5].map((seed) => ll(w, seed)).sort((x, y) => x - y)[2] as number
    const seq = median(1)
    const ad = median(3)
    expect(Number.isFinite(seq) && Number.isFinite(ad)).toBe(true)
    expect(Math.abs(ad / seq - 1)).toBeLessThan(0.01)
  })
})

describe('SparseLDA reload', () => {
  it('rebuilding the word lists from n_wk before every sweep leaves the chain unchanged', () => {
    const run = (reload: boolean): Int32Array => {
      const u = new FastUniform(seeded(4))
      const s = initState(corpus, 5, () => u.next())
      const m = makeSparseSampler(s, 0.2, 0.1)
      for (let t = 0; t < 8; t++) {
        if (reload) {
          m.syncDense()
          m.reload()
        }
        m.sweep(u)
      }
      return s.z
    }
    expect(Array.from(run(true))).toEqual(Array.from(run(false)))
  })

  it.each(['wasm', 'js'] as const)('a reload from counts whose row sum outgrew the lists stops, naming the word and its counts (%s)', (engine) => {
    const s = initState(corpus, 5, () => 0.5)
    const m = makeSparseSampler(s, 0.2, 0.1, engine)
    // a word seen twice: its list holds min(K, 2) = 2 topics; three counts (an AD-LDA part copying n_wk mid-merge) do not fit
    const rowSum = (w: number): number => Array.from(s.nwk.subarray(w * 5, w * 5 + 5)).reduce((x, y) => x + y, 0)
    let w = 0
    while (rowSum(w) !== 2) w++
    for (let k = 0; k < 5; k++) s.nwk[w * 5 + k] = k < 3 ? 1 : 0
    expect(() => m.reload()).toThrow(new RegExp(`word ${w}'s topic list is full \\(capacity 2 topics`))
  })
})
