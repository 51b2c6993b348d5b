/**
 * Randomness is always injected. `seeded` (seedrandom's ARC4) makes audits, tests and models
 * reproducible from a seed; `secure` draws from node:crypto and is the source to use for noise
 * that protects real data. Both return uniform doubles in [0, 1) with 53 random bits.
 *
 * @module
 */
import { randomBytes } from 'node:crypto'
import seedrandom from 'seedrandom'
import type { RandomWords } from './words.js'

export interface Rng {
  /** Uniform in [0, 1). */
  readonly next: () => number
  /** 'seeded:<seed>' or 'secure': recorded in reports so a run can be reproduced or not. */
  readonly kind: string
  /**
   * The 32-bit word source that noise is drawn from, when the Rng brings its own (a test's stub of
   * the secure source, `stubbedSecureRng` in dpaudit/testing). Absent: derived from `kind`
   * (node:crypto for 'secure', a seeded stream otherwise).
   */
  readonly words?: () => RandomWords
}

export const seeded = (seed: string | number): Rng => {
  const g = seedrandom(String(seed))
  return { next: () => g.double(), kind: `seeded:${seed}` }
}

export const secure = (): Rng => {
  // Buffer 1024 draws at a time: one syscall per 8 KiB, not per sample.
  const buf = Buffer.alloc(8 * 1024)
  let pos = buf.length
  return {
    kind: 'secure',
    next: () => {
      if (pos >= buf.length) {
        randomBytes(buf.length).copy(buf)
        pos = 0
      }
      // 53 bits from two 32-bit words: (hi·2^21 + lo>>>11) / 2^53.
      const hi = buf.readUInt32LE(pos) >>> 0
      const lo = buf.readUInt32LE(pos + 4) >>> 0
      pos += 8
      return ((hi >>> 5) * 67108864 + (lo >>> 6)) / 9007199254740992
    },
  }
}
