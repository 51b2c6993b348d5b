// The release's noise block by block (src/trainers/lda/parallel/release-work.ts addNoiseBlock): counts plus exact
// noise, the noise added as it is drawn (fillAdd) and, keyed, every block from its own stream (one buffer restarted
// per block). Checked against the definition: block b's cells, in order, each counts[c] + sample(b's stream).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { WordStream, xoshiroWords } from '../../src/core/words.js'
import { type TableNoise, tableNoiseSampler } from '../../src/mechanisms/measurement.js'
import { discreteGaussianSampler, discreteLaplaceSampler } from '../../src/mechanisms/noise/index.js'
import { addBlockNoise, blockCount, keyedNoisyTable, NOISE_BLOCK } from '../../src/trainers/lda/parallel/release-work.js'
import { keyedState } from '../../src/trainers/lda/sweep-kernel.js'

type Discrete = Extract<TableNoise, { kind: 'discrete-laplace' | 'discrete-gaussian' }>

/** counts[c] + a draw from block ⌊c / NOISE_BLOCK⌋'s keyed stream, sample by sample. */
const definition = (n: Discrete, key: Uint32Array, counts: ArrayLike<number>): Float64Array => {
  const sampler = n.kind === 'discrete-laplace' ? discreteLaplaceSampler(n.scale) : discreteGaussianSampler(n.sigma)
  const out = new Float64Array(counts.length)
  for (let b = 0; b < blockCount(counts.length, NOISE_BLOCK); b++) {
    const s = new WordStream(xoshiroWords(keyedState(key, b, new Int32Array(4)), 'block'))
    for (let c = b * NOISE_BLOCK; c < Math.min(counts.length, (b + 1) * NOISE_BLOCK); c++) out[c] = (counts[c] as number) + sampler.sample(s)
  }
  return out
}

describe('noise blocks', () => {
  it('keyed: every block counts + draws of its own stream, in any order of blocks and after other keys', () => {
    const noise = fc.oneof(
      fc.constantFrom(2, 2 / 0.7, 0.5, 40, 5000.5).map((scale): Discrete => ({ kind: 'discrete-laplace', scale })),
      fc.constantFrom(1, 6.5).map((sigma): Discrete => ({ kind: 'discrete-gaussian', sigma })),
    )
    fc.assert(
      fc.property(noise, fc.integer({ min: 1, max: 3 * NOISE_BLOCK + 5 }), fc.array(fc.nat(), { minLength: 4, maxLength: 4 }), fc.nat(), (n, cells, k, other) => {
        const key = Uint32Array.from(k)
        const counts = Int32Array.from({ length: cells }, (_, c) => (c * 7) % 13)
        const expected = definition(n, key, counts)
        expect(keyedNoisyTable(n, key, counts)).toEqual(expected)
        // blocks taken last to first, each after a block of another key has left the shared stream part-read
        const out = new Float64Array(cells)
        const blocks = blockCount(cells, NOISE_BLOCK)
        const sampler = tableNoiseSampler(n)
        for (let b = blocks - 1; b >= 0; b--) {
          addBlockNoise(sampler, { kind: 'keyed', key: Uint32Array.of(other, 1, 2, 3) }, counts, new Float64Array(cells), (b + 1) % blocks, ((b + 1) % blocks) + 1)
          addBlockNoise(sampler, { kind: 'keyed', key }, counts, out, b, b + 1)
        }
        expect(out).toEqual(expected)
      }),
      { seed: 2706, numRuns: 25 },
    )
  })
})
