/**
 * `stubbedSecureRng`: a TEST DOUBLE of `secure()` (src/core/rng.ts) for neighbour-differential
 * tests. IT MUST NEVER PROTECT REAL DATA: its "secret" words are a fixed, reproducible stream, so
 * anyone who knows the seed (which is in the test's source) can regenerate every noise draw and
 * subtract it.
 *
 * Why it exists: a neighbour-differential test (./neighbour-differential.ts) runs a trainer on two
 * neighbouring corpora and compares everything the two runs print and write. With the same noise
 * words on both sides, the outputs that do not pass through a release gate must come out
 * byte-identical, and a released value's difference is the difference of the true values (the
 * shared noise cancels), which the test compares with the declared sensitivity. The trainer must
 * still believe its randomness is secret — otherwise it labels the run "NOT A PRIVATE RELEASE",
 * takes the seeded code paths and the test no longer tests a private run — so the stub says
 * `kind: 'secure'` and its words say `secret: true`. That lie is the whole point, and the reason
 * it lives under dpaudit/testing only.
 *
 * Each call of `stubbedSecureRng(seed)` restarts the same streams: two runs, each given a fresh
 * `stubbedSecureRng('x')`, consume identical words. Within one Rng, `words()` hands out one
 * continuing stream (a second call does not replay the first call's words, as two node:crypto
 * sources would not), and `next()` draws from its own reproducible stream (for code that reads
 * `rng.next()` directly, such as `FastUniform`).
 *
 * @module
 */
import type { Rng } from '../core/rng.js'
import { type RandomWords, seededWords } from '../core/words.js'
import { seeded } from '../core/rng.js'

/** What a stubbed Rng carries beyond `Rng`, so a report or a debugger can tell it from the real one. */
export interface StubbedSecureRng extends Rng {
  readonly kind: 'secure'
  readonly words: () => RandomWords
  /** Always the same warning; present so the object itself says what it is. */
  readonly testDouble: 'stubbedSecureRng: a reproducible stand-in for node:crypto; NEVER use it to protect real data'
}

/**
 * TEST DOUBLE — NEVER PROTECTS REAL DATA. An Rng that claims to be `secure()` (kind 'secure', words
 * flagged `secret: true`) while drawing a reproducible stream seeded by `seed`. Use it only to run
 * a trainer twice on the same noise (neighbour-differential tests).
 *
 * @example
 * ```ts
 * const a = runTrain({ ..., secureRng: () => stubbedSecureRng('x') })   // same words as
 * const b = runTrain({ ..., secureRng: () => stubbedSecureRng('x') })   // this run
 * ```
 */
export const stubbedSecureRng = (seed: string | number): StubbedSecureRng => {
  const tag = `stubbed-secure:${seed}`
  // one continuing word stream per Rng: every words() call reads on from where the last left off
  const stream = seededWords(`${tag}:words`)
  const words: RandomWords = { kind: 'secure', secret: true, fill: (out) => stream.fill(out) }
  const doubles = seeded(`${tag}:next`)
  return {
    kind: 'secure',
    next: doubles.next,
    words: () => words,
    testDouble: 'stubbedSecureRng: a reproducible stand-in for node:crypto; NEVER use it to protect real data',
  }
}
