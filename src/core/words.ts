/**
 * Sources of uniform 32-bit words, the raw material of exact noise (src/mechanisms/noise).
 *
 * A `RandomWords` fills a caller's `Uint32Array`: `secureWords` straight from node:crypto (one
 * `randomFillSync` per call, noise that cannot be regenerated: `secret: true`), `seededWords` from
 * a xoshiro128** stream seeded through seedrandom (reproducible runs, which the caller must label
 * not private: `secret: false`). `WordStream` reads one word, double or bounded integer at a time
 * from a buffered chunk.
 *
 * The seeded stream is the one `FastUniform` (src/trainers/lda/random.ts) draws for the same Rng:
 * four words `floor(next() · 2^32)`, the last made odd. That class keeps an inlined copy of the
 * step for its Gibbs loop; this module is the one general-purpose copy.
 *
 * @module
 */
import { randomFillSync } from 'node:crypto'
import { type Rng, seeded } from './rng.js'

export interface RandomWords {
  /** 'secure' (node:crypto) or 'seeded:<seed>'. */
  readonly kind: string
  /** True only for node:crypto: noise drawn from it cannot be regenerated. */
  readonly secret: boolean
  /**
   * True only for `secureWords()`: the words are node:crypto's, which any thread can draw for itself
   * (the parallel Gibbs sweeps do, src/trainers/lda/sweep-kernel.ts). A test's stub of the secure
   * source says `secret` but not this, and its words are then expanded reproducibly instead.
   */
  readonly nodeCrypto?: true
  /** Fills `out` with independent uniform 32-bit words. */
  readonly fill: (out: Uint32Array) => void
}

/** node:crypto words, written into the caller's array by one `randomFillSync` per call. */
export const secureWords = (): RandomWords => ({
  kind: 'secure',
  secret: true,
  nodeCrypto: true,
  fill: (out) => {
    randomFillSync(out)
  },
})

/**
 * xoshiro128** (Blackman & Vigna 2018): 32-bit state words, period 2^128 − 1. The state is copied
 * into locals for the loop (closure slots are slower to update) and written back after it.
 */
const xoshiro128 = (s0: number, s1: number, s2: number, s3: number): ((out: Uint32Array) => void) => (out) => {
  let a = s0
  let b = s1
  let c = s2
  let d = s3
  for (let i = 0; i < out.length; i++) {
    const m = Math.imul(b, 5)
    out[i] = Math.imul((m << 7) | (m >>> 25), 9)
    const t = b << 9
    c ^= a
    d ^= b
    b ^= c
    a ^= d
    c ^= t
    d = (d << 11) | (d >>> 21)
  }
  s0 = a
  s1 = b
  s2 = c
  s3 = d
}

/** Words of the xoshiro128** stream whose state is `state` (four 32-bit words, not all zero); not secret. */
export const xoshiroWords = (state: ArrayLike<number>, kind: string): RandomWords => ({
  kind,
  secret: false,
  fill: xoshiro128(state[0] as number, state[1] as number, state[2] as number, state[3] as number),
})

const TWO_32 = 4294967296

/** A xoshiro128** stream seeded from four draws of `rng` (the last word made odd, so the state is never zero). */
const streamFrom = (rng: Rng, kind: string): RandomWords => {
  const word = (): number => Math.floor(rng.next() * TWO_32) >>> 0
  const a = word()
  const b = word()
  const c = word()
  const d = word() | 1
  return { kind, secret: false, fill: xoshiro128(a, b, c, d) }
}

/** Reproducible words: xoshiro128** seeded through seedrandom(String(seed)); kind `seeded:<seed>`. */
export const seededWords = (seed: string | number): RandomWords => streamFrom(seeded(seed), `seeded:${seed}`)

/**
 * The words matching an injected Rng: node:crypto for a `secure` Rng, otherwise a xoshiro128**
 * stream seeded from four draws of it. A `seeded:<seed>` Rng keeps its kind (the stream is
 * `seededWords(<seed>)`'s); any other kind k is reported as `seeded:k`. An Rng that brings its own
 * `words` (a test's stub of the secure source) is taken at its word.
 */
export const wordsFromRng = (rng: Rng): RandomWords => {
  if (rng.words !== undefined) return rng.words()
  if (rng.kind === 'secure') return secureWords()
  return streamFrom(rng, rng.kind.startsWith('seeded:') ? rng.kind : `seeded:${rng.kind}`)
}

/** A buffered reader over a RandomWords: words are consumed in the order the source produces them. */
export class WordStream {
  private from: RandomWords
  private readonly buf: Uint32Array
  private pos: number
  constructor(source: RandomWords, chunkWords = 16384) {
    if (!Number.isInteger(chunkWords) || chunkWords < 1) throw new RangeError(`chunkWords must be a positive integer, got ${chunkWords}`)
    this.from = source
    this.buf = new Uint32Array(chunkWords)
    this.pos = chunkWords
  }

  /** The source the words are read from. */
  get source(): RandomWords {
    return this.from
  }

  /**
   * Reads from `source` from now on, its first word next, the words still buffered dropped: the
   * stream `new WordStream(source, chunk)` would be, without allocating a chunk (for a hot loop that
   * starts one short keyed stream after another, src/trainers/lda/parallel/release-work.ts).
   */
  restart(source: RandomWords): this {
    this.from = source
    this.pos = this.buf.length
    return this
  }

  nextUint32(): number {
    if (this.pos === this.buf.length) {
      this.from.fill(this.buf)
      this.pos = 0
    }
    return this.buf[this.pos++] as number
  }

  /**
   * Bulk reading for a hot loop (an exact sampler filling a table): the chunk, refilled first when it
   * is spent, and the index of its next unread word. The loop reads words[next], words[next + 1], …
   * in order and then reports where it stopped with `skipTo`, before any other read of the stream:
   * the words are consumed exactly as by as many `nextUint32` calls, without a call per word.
   */
  peekChunk(): { readonly words: Uint32Array; readonly next: number } {
    if (this.pos === this.buf.length) {
      this.from.fill(this.buf)
      this.pos = 0
    }
    return { words: this.buf, next: this.pos }
  }

  /** Marks the chunk's words before index `next` as read (after `peekChunk`; `next` within the chunk, not before the next unread word). */
  skipTo(next: number): void {
    if (!(Number.isInteger(next) && next >= this.pos && next <= this.buf.length)) throw new RangeError(`skipTo(${next}) outside the unread words [${this.pos}, ${this.buf.length}]`)
    this.pos = next
  }

  /** Uniform double in [0,1) with 53 random bits: (hi >>> 5)·2^26 + (lo >>> 6), over 2^53. */
  nextDouble(): number {
    const hi = this.nextUint32() >>> 5
    return (hi * 67108864 + (this.nextUint32() >>> 6)) * 1.1102230246251565e-16
  }

  /**
   * Exactly uniform integer in [0, n) for integer 1 ≤ n ≤ 2^53: the top ⌈log2 n⌉ bits of one word
   * (n ≤ 2^32) or of a high word and a full low word (n > 2^32), redrawn while ≥ n (each try is
   * accepted with probability > 1/2; no modulo bias). n = 1 consumes nothing.
   */
  uniformBelow(n: number): number {
    if (!(Number.isInteger(n) && n >= 1 && n <= 9007199254740992)) throw new RangeError(`uniformBelow needs an integer 1 ≤ n ≤ 2^53, got ${n}`)
    if (n <= TWO_32) {
      if (n === 1) return 0
      const shift = Math.clz32(n - 1)
      for (;;) {
        const x = this.nextUint32() >>> shift
        if (x < n) return x
      }
    }
    // n − 1 ≥ 2^32: its high part (n − 1) / 2^32 < 2^21 has 1..21 bits.
    const shift = Math.clz32(Math.floor((n - 1) / TWO_32))
    for (;;) {
      const x = (this.nextUint32() >>> shift) * TWO_32 + this.nextUint32()
      if (x < n) return x
    }
  }

  /** Fills out[0..n) with uniform 32-bit words: the buffered ones first, then straight from the source. */
  fillWords(out: Uint32Array): void {
    const buffered = Math.min(out.length, this.buf.length - this.pos)
    out.set(this.buf.subarray(this.pos, this.pos + buffered))
    this.pos += buffered
    if (buffered < out.length) this.from.fill(buffered === 0 ? out : out.subarray(buffered))
  }
}
