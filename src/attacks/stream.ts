/**
 * Per-trial random streams for audits. Trial i of (audit seed, phase, pair, side) draws from its
 * own generator, keyed by those five values and nothing else, so an audit's outcome does not
 * depend on how trials are grouped into chunks or spread over workers.
 *
 * Construction: the seed string is hashed (64 bits, two 32-bit FNV-1a lanes finished with a
 * strong 32-bit mixer), the stream id (phase, pair, side) is mixed in, and each trial's 128-bit
 * xoshiro128** state is derived from (stream key, trial index) with the same mixer, as the
 * xoshiro authors recommend for seeding from a counter (Blackman & Vigna 2021, "Scrambled linear
 * pseudorandom number generators", §10: seed with a well-mixed hash, never with raw counters).
 * The mixer is the `lowbias32` finaliser (C. Wellons, "Prospecting for hash functions", 2018), a
 * bijection of 32-bit words; since trial ↦ trial·φ (φ odd) is a bijection too, distinct trials of
 * one stream start from distinct states.
 *
 * Not for protecting real data: use `secure()` from core/rng for that. This is a reproducible
 * simulation generator, like `seeded()`, but resettable per trial without allocation and about
 * an order of magnitude faster than seedrandom's ARC4.
 *
 * @module
 */
import type { Rng } from '../core/rng.js'

/** lowbias32: a 32-bit finaliser with low bias (bijective). */
export const mix32 = (x: number): number => {
  let h = x >>> 0
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  h ^= h >>> 16
  return h >>> 0
}

/** A 64-bit hash of a seed as two 32-bit words (FNV-1a over UTF-16 code units, two lanes, mixed). */
export const hashSeed = (seed: string | number): readonly [number, number] => {
  const s = String(seed)
  let a = 0x811c9dc5
  let b = 0x01000193 ^ s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13)
  }
  return [mix32(a ^ 0x9e3779b9), mix32(b + mix32(a))]
}

/** Phases draw disjoint streams: selection samples are never reused for estimation. */
export type Phase = 'select' | 'estimate'

/** The 64-bit key of one stream (audit seed, phase, pair, side). */
export const streamKey = (
  seed: readonly [number, number],
  phase: Phase,
  pair: number,
  side: 0 | 1,
): readonly [number, number] => {
  const id = (phase === 'select' ? 0 : 1) + 2 * side + 4 * pair
  const k0 = mix32(seed[0] ^ mix32(id + 0x6a09e667))
  const k1 = mix32(seed[1] + mix32(k0 ^ 0xbb67ae85) + id)
  return [k0, k1]
}

/**
 * A resettable xoshiro128** generator implementing `Rng`. `reset(trial)` moves it to the start of
 * that trial's stream; `next()` returns a uniform double in [0, 1) with 53 random bits.
 */
export class TrialRng implements Rng {
  readonly kind: string
  private a = 1
  private b = 2
  private c = 3
  private d = 4
  private k0: number
  private k1: number

  constructor(key: readonly [number, number], kind = 'audit-stream') {
    this.k0 = key[0]
    this.k1 = key[1]
    this.kind = kind
  }

  /**
   * Moves the generator to another stream (the same as a new TrialRng with that key, once `reset`).
   * The audit's chunks reuse one generator per thread (trials.ts): `next` is a closure per instance,
   * and a new one per chunk made every optimised mechanism that inlined the last one deoptimise
   * ("wrong call target") and recompile, in every worker thread (issue 23, per-chunk cost).
   */
  rekey(key: readonly [number, number]): void {
    this.k0 = key[0]
    this.k1 = key[1]
  }

  /** Positions the generator at the start of trial `trial`'s stream (0 ≤ trial < 2³²). */
  reset(trial: number): void {
    const x = mix32(this.k0 ^ Math.imul(trial >>> 0, 0x9e3779b9))
    const y = mix32(this.k1 ^ x ^ Math.imul((trial / 4294967296) >>> 0, 0x85ebca6b))
    // State words are kept as int32 (`| 0`) so V8 stores them unboxed.
    this.a = mix32(x + 0x3c6ef372) | 0
    this.b = mix32(y + 0xa54ff53a) | 0
    this.c = mix32(x ^ y ^ 0x510e527f) | 0
    this.d = mix32(y - x + 0x9b05688c) | 0
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1
  }

  /** One 32-bit output of xoshiro128** (Blackman & Vigna): rotl(s1·5, 7)·9. */
  u32(): number {
    const b = this.b
    const r = Math.imul(b, 5)
    const out = Math.imul((r << 7) | (r >>> 25), 9)
    const t = b << 9
    this.c ^= this.a
    this.d ^= b
    this.b ^= this.c
    this.a ^= this.d
    this.c ^= t
    this.d = (this.d << 11) | (this.d >>> 21)
    return out >>> 0
  }

  /** Uniform in [0, 1): the top 27 bits of one output and 26 of the next, (hi·2²⁶ + lo)/2⁵³. */
  readonly next = (): number => {
    const hi = this.u32()
    const lo = this.u32()
    return ((hi >>> 5) * 67108864 + (lo >>> 6)) / 9007199254740992
  }
}
