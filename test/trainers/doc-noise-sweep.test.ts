// CDP-LDA's doc-noise sweep (sweep-kernel.ts `docNoiseSweep`) keeps each document's factors
// max(n_dk + η_dk, 0) + α and re-forms only the two a token changes: it must draw exactly what the
// loop that forms every factor at every token draws (that loop, kept here verbatim as the reference),
// on states where the noise pushes counts below zero (the clip at 0 switching on and off as a count
// moves), with K = 1, empty documents and any words.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { docNoiseSweep } from '../../src/trainers/lda/sweep-kernel.js'

/** The sweep before the factors were kept: every factor formed at every token. */
const reference = (K: number, d0: number, d1: number, tokens: Int32Array, docStart: Int32Array, z: Int32Array, ndk: Int32Array, q: Float64Array, alpha: number, docNoise: Float64Array, draws: Uint32Array): void => {
  const scores = new Float64Array(K)
  let r = docStart[d0] as number
  for (let d = d0; d < d1; d++) {
    const db = d * K
    for (let i = docStart[d] as number; i < (docStart[d + 1] as number); i++) {
      const base = (tokens[i] as number) * K
      const old = z[i] as number
      ndk[db + old] = (ndk[db + old] as number) - 1
      let s = 0
      for (let k = 0; k < K; k++) {
        s += (q[base + k] as number) * (Math.max((ndk[db + k] as number) + (docNoise[db + k] as number), 0) + alpha)
        scores[k] = s
      }
      const x = (draws[r++] as number) * 2.3283064365386963e-10 * s
      let nt = 0
      while (nt < K - 1 && (scores[nt] as number) <= x) nt++
      z[i] = nt
      ndk[db + nt] = (ndk[db + nt] as number) + 1
    }
  }
}

describe('docNoiseSweep', () => {
  it('draws the topics and counts of the loop that forms every factor at every token', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0.001, max: 3, noNaN: true }),
        fc.integer(),
        (K, V, lengths, alpha, seed) => {
          let x = seed | 1
          const next = (): number => (x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 0
          const D = lengths.length
          const docStart = new Int32Array(D + 1)
          for (let d = 0; d < D; d++) docStart[d + 1] = (docStart[d] as number) + (lengths[d] as number)
          const N = docStart[D] as number
          const tokens = Int32Array.from({ length: N }, () => next() % V)
          const z = Int32Array.from({ length: N }, () => next() % K)
          const ndk = new Int32Array(D * K)
          for (let d = 0; d < D; d++) for (let i = docStart[d] as number; i < (docStart[d + 1] as number); i++) {
            const c = d * K + (z[i] as number)
            ndk[c] = (ndk[c] as number) + 1
          }
          // noise of either sign, often larger than the counts: the clip at 0 matters
          const docNoise = Float64Array.from({ length: D * K }, () => ((next() % 2001) - 1000) / 100)
          const q = Float64Array.from({ length: V * K }, () => (next() % 1000) / 997 + 1e-3)
          const draws = Uint32Array.from({ length: N }, () => next())
          const want = { z: z.slice(), ndk: ndk.slice() }
          reference(K, 0, D, tokens, docStart, want.z, want.ndk, q, alpha, docNoise, draws)
          // two calls over consecutive ranges, as the threads' chunks make them
          const cut = Math.floor(D / 2)
          const scores = new Float64Array(K)
          const factors = new Float64Array(K).fill(Number.NaN)
          docNoiseSweep(K, 0, cut, tokens, docStart, z, ndk, q, alpha, docNoise, scores, factors, draws)
          docNoiseSweep(K, cut, D, tokens, docStart, z, ndk, q, alpha, docNoise, scores, factors, draws)
          expect(z).toEqual(want.z)
          expect(ndk).toEqual(want.ndk)
        },
      ),
      { numRuns: 200 },
    )
  })
})
