// Counting n_wk along the sweep (issue 27, two workers): each sweeping thread counts the documents it
// drew into its own table and the next release sums the tables per block of cells, instead of
// counting by rows from z. The counts must be exactly the true counts, by either route (a release
// through the noiser, or `counts()` for a reader outside a release), with any number of threads.
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { generateLda } from '../../src/trainers/corpus/synthetic.js'
import { blockCount, countTokens, keyedNoisyTable, NOISE_BLOCK, sumPartBlock } from '../../src/trainers/lda/parallel/release-work.js'
import { alongFits, makeParallelSnapshotSampler, type SnapshotSampler } from '../../src/trainers/lda/snapshot.js'
import { countRange } from '../../src/trainers/lda/sweep-kernel.js'
import { type GibbsState, initState, sharedInt32 } from '../../src/trainers/lda/state.js'

describe('the pieces: countRange and sumPartBlock', () => {
  it('countRange over consecutive ranges, and countTokens (all tokens or a sample), count every token once (against the definition)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 30 }), fc.array(fc.nat(), { minLength: 1, maxLength: 400 }), fc.array(fc.nat({ max: 400 }), { maxLength: 5 }), (K, V, raw, cuts) => {
        const n = raw.length
        // few distinct cells, so neighbouring tokens often share one (the two-a-step loop must count both)
        const tokens = Int32Array.from(raw, (x) => x % V)
        const z = Int32Array.from(raw, (x) => Math.floor(x / V) % K)
        const include = Uint8Array.from(raw, (x) => (x >> 3) & 1)
        const definition = (sample: boolean): Int32Array => {
          const t = new Int32Array(V * K)
          for (let i = 0; i < n; i++) {
            const c = (tokens[i] as number) * K + (z[i] as number)
            if (!sample || include[i] === 1) t[c] = (t[c] as number) + 1
          }
          return t
        }
        const got = new Int32Array(V * K)
        const at = [0, ...cuts.map((c) => c % (n + 1)).sort((a, b) => a - b), n]
        for (let r = 0; r + 1 < at.length; r++) countRange(K, tokens, z, at[r] as number, at[r + 1] as number, got)
        expect(got).toEqual(definition(false))
        const all = new Int32Array(V * K).fill(7) // countTokens zeroes the table first
        countTokens(K, tokens, z, undefined, all)
        expect(all).toEqual(definition(false))
        const sample = new Int32Array(V * K).fill(7)
        countTokens(K, tokens, z, include, sample)
        expect(sample).toEqual(definition(true))
      }),
    )
  })

  it('sumPartBlock writes, for its block only, the sum of the P part tables', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 * NOISE_BLOCK }), fc.nat(), (P, n, seed) => {
        const parts = new Int32Array(P * n)
        let x = seed | 1
        for (let i = 0; i < parts.length; i++) parts[i] = (x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 22
        const table = new Int32Array(n).fill(-7)
        const b = seed % blockCount(n, NOISE_BLOCK)
        sumPartBlock(parts, table, b)
        for (let c = 0; c < n; c++) {
          const inBlock = c >= b * NOISE_BLOCK && c < (b + 1) * NOISE_BLOCK
          let sum = 0
          for (let j = 0; j < P; j++) sum += parts[j * n + c] as number
          expect(table[c]).toBe(inBlock ? sum : -7)
        }
      }),
      { numRuns: 30 },
    )
  })
})

/** A synthetic corpus in shared memory, and its sampler on `workers` threads. */
const setup = (V: number, K: number, D: number, workers: number): { st: GibbsState; m: SnapshotSampler } => {
  const synth = generateLda({ topics: K, vocabulary: V, documents: D, alpha: 0.3, beta: 0.1, meanDocumentLength: 30 }, seeded(`count-along-${V}-${D}`))
  if (E.isLeft(synth)) throw new Error(synth.left.message)
  const u = new WordStream(seededWords('count-along-z'))
  const st = initState(synth.right.corpus, K, () => u.nextDouble(), 'reading', sharedInt32)
  const m = makeParallelSnapshotSampler(st, 0.1, 0.01, 1e9, workers, 'wasm', true)
  if (E.isLeft(m)) throw new Error(m.left.message)
  return { st, m: m.right }
}
const trueCounts = (st: GibbsState): Int32Array => {
  const t = new Int32Array(st.V * st.K)
  countTokens(st.K, st.tokens, st.z, undefined, t)
  return t
}
const release = (V: number, K: number, seed: number): Float64Array => {
  const r = new Float64Array(V * K)
  let x = seed
  for (let c = 0; c < r.length; c++) r[c] = ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 24) - 40
  return r
}

describe('the sampler: counted along the sweep, n_wk is the true count', () => {
  const samplers: SnapshotSampler[] = []
  afterAll(() => {
    for (const m of samplers) m.close()
  })
  // 300 × 20 = 6,000 cells: two noise blocks; the second corpus is too small for 3 tables (8 reads per token): by rows
  for (const [V, D, along] of [
    [300, 120, true],
    [300, 20, false],
  ] as const)
    it(`3 threads, V = ${V}, ${D} documents (counted ${along ? 'along' : 'by rows'}): every release and every read of n_wk, n_k is the recount from z`, () => {
      const K = 20
      expect(alongFits(3, V, K, D * 30)).toBe(along)
      const { st, m } = setup(V, K, D, 3)
      samplers.push(m)
      const words = new WordStream(seededWords('count-along-words'))
      const noise = { kind: 'discrete-laplace', scale: 2 } as const
      for (let it = 0; it < 6; it++) {
        // a release of n_wk through the noiser, counted inside it when owed: the keyed noise regenerated on the true counts
        const k4 = new Uint32Array(4)
        withKey(it).fillWords(k4)
        expect(m.noiser(noise, st.nwk, withKey(it))).toEqual(keyedNoisyTable(noise, k4, trueCounts(st)))
        m.setRelease(release(V, K, it + 1), 1)
        if (it % 3 === 2) m.sweepWithDocNoise(words, new Float64Array(st.D * K).fill(0.5))
        else m.sweep(words)
        if (it % 2 === 1) {
          // a reader outside a release: counts() first
          m.counts()
          const t = trueCounts(st)
          expect(st.nwk).toEqual(t)
          for (let k = 0; k < K; k++) {
            let nk = 0
            for (let w = 0; w < V; w++) nk += t[w * K + k] as number
            expect(st.nk[k]).toBe(nk)
          }
        }
      }
    })
})

describe("the sampler: SUB-LDA's sample counted as the coins are thrown is the recount of the kept tokens", () => {
  const samplers: SnapshotSampler[] = []
  afterAll(() => {
    for (const m of samplers) m.close()
  })
  // one thread counts into the sample's table; three into tables of their own (summed by the release), or by rows
  for (const [workers, V, D, along] of [
    [1, 300, 120, true],
    [3, 300, 120, true],
    [3, 300, 20, false],
  ] as const)
    it(`${workers} thread(s), V = ${V}, ${D} documents (${workers === 1 ? 'into the table' : along ? 'own tables' : 'by rows'}): every release of the sample, uniform or adaptive, and n_wk read between them`, () => {
      const K = 20
      if (workers > 1) expect(alongFits(workers, V, K, D * 30)).toBe(along)
      const { st, m } = setup(V, K, D, workers)
      samplers.push(m)
      const words = new WordStream(seededWords('sample-along-words'))
      const noise = { kind: 'discrete-laplace', scale: 2 } as const
      for (let it = 0; it < 6; it++) {
        const frequent = it % 2 === 1 ? Uint8Array.from({ length: V * K }, (_, c) => ((c * 7 + it) % 3 === 0 ? 0 : 1)) : undefined
        const { counts, kept } = m.subsample(0.4, frequent, withKey(it))
        const sample = new Int32Array(V * K)
        countTokens(K, st.tokens, st.z, m.include, sample)
        expect(kept).toBe(m.include.reduce((n, x) => n + x, 0))
        expect(kept).toBeGreaterThan(0)
        const k4 = new Uint32Array(4)
        withKey(it + 10).fillWords(k4)
        expect(m.noiser(noise, counts, withKey(it + 10))).toEqual(keyedNoisyTable(noise, k4, sample))
        m.setRelease(release(V, K, it + 1), 1)
        m.sweep(words, m.include)
        // n_wk between the sample's releases: its own count (along the sweeps, on several threads) is untouched by the sample's
        if (it % 2 === 1) {
          m.counts()
          expect(st.nwk).toEqual(trueCounts(st))
        }
      }
    })
})

/** The gate's words for release `it`: the key stream's it-th 4 words first (what `streamKeyOf` reads). */
const withKey = (it: number): WordStream => {
  const w = new WordStream(seededWords('count-along-key'))
  for (let skip = 0; skip < it; skip++) w.fillWords(new Uint32Array(4))
  return w
}
