// Exact topic draws (src/trainers/lda/exact-draw.ts and the sweep of snapshot.ts): entry j of a list
// of doubles is drawn with probability exactly w_j/Σw. The uniform U is read as a binary fraction
// from scripted words, and the answer must be the exact inversion of U — checked against exact
// rationals computed here independently (each double as integer·2^e by doubling).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededWords, WordStream } from '../../src/core/words.js'
import { fromDocuments } from '../../src/trainers/corpus/corpus.js'
import { exactDraw, fastDraw } from '../../src/trainers/lda/exact-draw.js'
import { makeParallelSnapshotSampler, makeSnapshotSampler } from '../../src/trainers/lda/snapshot.js'
import { maxPackedCount, sparseSweep, topicBits } from '../../src/trainers/lda/sweep-kernel.js'
import { initState } from '../../src/trainers/lda/state.js'

// ---- exact rationals, independent of the module ----------------------------------------------

/** x ≥ 0 as [M, e] with x = M·2^e exactly (doubling is exact until x is an integer). */
const dyadic = (x: number): [bigint, number] => {
  if (x === 0) return [0n, 0]
  let y = x
  let e = 0
  while (!Number.isInteger(y)) {
    y *= 2
    e--
  }
  return [BigInt(y), e]
}

/** The exact cumulative sums of w, as integers over a common power of two (ratios are what matter). */
const cumulative = (w: ArrayLike<number>): bigint[] => {
  const parts = Array.from(w, dyadic)
  const low = Math.min(...parts.filter(([m]) => m !== 0n).map(([, e]) => e))
  let s = 0n
  return parts.map(([m, e]) => (s += m << BigInt(e - low)))
}

/** U's prefix A of `words` × 32 bits, as that many 32-bit words, most significant first. */
const toWords = (a: bigint, words: number): number[] =>
  Array.from({ length: words }, (_, i) => Number((a >> BigInt(32 * (words - 1 - i))) & 0xffffffffn))

/** A `next` that reads `rest` and fails the test if the draw asks for more. */
const script = (rest: ReadonlyArray<number>): (() => number) => {
  let i = 0
  return () => {
    if (i >= rest.length) throw new Error('the draw read past its script')
    return rest[i++] as number
  }
}

/** The entry the exact inversion gives for U = words (as a prefix: every continuation). */
const drawWith = (w: ArrayLike<number>, words: ReadonlyArray<number>): number => exactDraw(w, w.length, words[0] as number, script(words.slice(1)))

const PREFIX_WORDS = 40 // 1280 bits: far finer than any cell of the lists below (the smallest is ~2^-1000 wide)

/**
 * For every boundary j (between entry j and the next entry of non-zero weight), U just below P_j/W
 * must give j and U just above must give the next entry: the cells are exactly [P_{j−1}, P_j)/W.
 */
const checkBoundaries = (w: ArrayLike<number>, which: ReadonlyArray<number>): void => {
  const P = cumulative(w)
  const W = P[P.length - 1] as bigint
  const L = BigInt(32 * PREFIX_WORDS)
  for (const j of which) {
    if ((w[j] as number) === 0) continue
    let next = j + 1
    while (next < w.length && (w[next] as number) === 0) next++
    if (next === w.length) continue
    const scaled = (P[j] as bigint) << L
    const floor = scaled / W
    const ceil = floor * W === scaled ? floor : floor + 1n
    expect(drawWith(w, toWords(floor - 1n, PREFIX_WORDS)), `just below boundary ${j}`).toBe(j)
    expect(drawWith(w, toWords(ceil, PREFIX_WORDS)), `at or just above boundary ${j}`).toBe(next)
  }
}

const view = new DataView(new ArrayBuffer(8))
/** The next double above x > 0 (one ulp up). */
const nextUp = (x: number): number => {
  view.setFloat64(0, x)
  view.setBigUint64(0, view.getBigUint64(0) + 1n)
  return view.getFloat64(0)
}

// ---- (a) the exact path ----------------------------------------------------------------------

describe('exactDraw: the exact inversion of U over the doubles', () => {
  it('hand-computed cells: w = (1, 1, 2) has cells [0, 1/4), [1/4, 1/2), [1/2, 1), decided on the first word', () => {
    const w = [1, 1, 2]
    expect(drawWith(w, [0])).toBe(0)
    expect(drawWith(w, [0x3fffffff])).toBe(0)
    expect(drawWith(w, [0x40000000])).toBe(1)
    expect(drawWith(w, [0x7fffffff])).toBe(1)
    expect(drawWith(w, [0x80000000])).toBe(2)
    expect(drawWith(w, [0xffffffff])).toBe(2)
  })

  it('hand-computed cells around a weight 1e-300: w = (1, δ, 1) puts δ in [1/(2+δ), (1+δ)/(2+δ)) ≈ 1/2 ± 2^-998.6', () => {
    const w = [1, 1e-300, 1]
    const ones = (k: number): number[] => new Array<number>(k).fill(0xffffffff)
    // U ∈ [1/2 − 2^-1024, 1/2): above 1/(2+δ) = 1/2 − δ/(2(2+δ)) ≈ 1/2 − 2^-998.6, so the tiny cell
    expect(drawWith(w, [0x7fffffff, ...ones(31)])).toBe(1)
    // U ∈ [1/2, 1/2 + 2^-1024): below (1+δ)/(2+δ) ≈ 1/2 + 2^-998.6, the tiny cell again
    expect(drawWith(w, [0x80000000, ...new Array<number>(31).fill(0)])).toBe(1)
    // U ∈ [1/2 − 2^-960, 1/2 − 2^-960 + 2^-992): below 1/(2+δ), entry 0
    expect(drawWith(w, [0x7fffffff, ...ones(29), 0])).toBe(0)
    // U ∈ [1/2 + 2^-960, …): above (1+δ)/(2+δ), entry 2
    expect(drawWith(w, [0x80000000, ...new Array<number>(29).fill(0), 1])).toBe(2)
    // the prefix [1/2 − 2^-992, 1/2) straddles 1/(2+δ): the draw needs more words
    expect(() => drawWith(w, [0x7fffffff, ...ones(30)])).toThrow(/past its script/)
    checkBoundaries(w, [0, 1])
  })

  it('weights one ulp apart, the smallest subnormal and zeros: every boundary exact', () => {
    const x = 0.1
    const w = [x, nextUp(x), nextUp(nextUp(x)), 5e-324, 0, x, 1e-300, nextUp(1e-300), 0, 3]
    checkBoundaries(w, w.map((_, i) => i))
    // zero weights are never drawn
    for (let m = 0; m < 2 ** 32; m += 2 ** 22 + 12345) expect([4, 8]).not.toContain(exactDraw(w, w.length, m, () => 0x9e3779b9))
  })

  it('K = 1024 adversarial weights (tiny, ulp neighbours, huge): sampled boundaries exact', () => {
    const s = new WordStream(seededWords('exact-1024'))
    const w = new Float64Array(1024)
    for (let k = 0; k < 1024; k++) {
      const kind = k % 4
      w[k] = kind === 0 ? 1e-300 * (1 + s.nextDouble()) : kind === 1 ? nextUp(w[k - 1] as number) : kind === 2 ? s.nextDouble() : 2 ** (s.uniformBelow(40) - 20)
    }
    const picks = [0, 1, 2, 3, 511, 1022]
    for (let i = 0; i < 40; i++) picks.push(s.uniformBelow(1023))
    checkBoundaries(w, picks)
  })
})

// ---- (b) the fast path decides only what the exact path decides --------------------------------

const weight = fc.oneof(
  fc.double({ min: 1e-300, max: 1e300, noNaN: true }),
  fc.double({ min: 0.5, max: 2, noNaN: true }),
  fc.constantFrom(5e-324, 1e-300, 1, 0.1, 2 ** -1022),
  fc.integer({ min: -1074, max: 900 }).map((e) => 2 ** e),
)

/** A list with ulp neighbours spliced in, and a first word aimed at one of its boundaries (or anywhere). */
const listAndWord = fc
  .tuple(fc.array(weight, { minLength: 1, maxLength: 48 }), fc.array(fc.nat(), { maxLength: 8 }), fc.nat(), fc.integer({ min: -2, max: 2 }), fc.nat({ max: 2 ** 32 - 1 }), fc.boolean())
  .map(([base, ulps, pick, off, any, aimed]) => {
    const w = [...base]
    for (const u of ulps) w.splice(u % (w.length + 1), 0, nextUp(w[u % w.length] as number))
    const P = cumulative(w)
    const W = P[P.length - 1] as bigint
    const j = pick % w.length
    const at = Number(((P[j] as bigint) << 32n) / W) + off
    return { w, m: aimed ? Math.min(Math.max(at, 0), 2 ** 32 - 1) : any }
  })

describe('fastDraw decides only where the first word settles the exact draw', () => {
  it('every decision of the fast path is the exact path’s, for every continuation of U (no further word is read)', () => {
    let decided = 0
    let declined = 0
    fc.assert(
      fc.property(listAndWord, ({ w, m }) => {
        const f = fastDraw(w, w.length, m)
        if (f < 0) {
          declined++
          return
        }
        decided++
        expect(exactDraw(w, w.length, m, script([]))).toBe(f)
      }),
      { numRuns: 3000, seed: 20261123 },
    )
    expect(decided).toBeGreaterThan(1000)
    expect(declined).toBeGreaterThan(100) // the aimed words do reach the exact path
  })
})

// ---- the sweep's inline fast path and its exact path, on scripted words -------------------------

/** The sampler's q (snapshot.ts setRelease), with the same operations in the same order (so the same doubles). */
const qTable = (release: Float64Array, V: number, K: number, beta: number, clip: number): Float64Array => {
  const tot = new Float64Array(K)
  for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) tot[k] = (tot[k] as number) + (release[w * K + k] as number) * 1
  for (let k = 0; k < K; k++) tot[k] = 1 / (Math.max(0, tot[k] as number) + V * beta)
  const q = new Float64Array(V * K)
  for (let w = 0; w < V; w++)
    for (let k = 0; k < K; k++) q[w * K + k] = (Math.min(Math.max((release[w * K + k] as number) * 1, 0), clip) + beta) * (tot[k] as number)
  return q
}

describe('the snapshot sweep draws by the exact inversion of its list', () => {
  it('single-token and two-token documents (the list is then known from outside), adversarial q and first words', () => {
    const K = 6
    const ALPHA = 1e-7
    const BETA = 1e-9
    const C = 1e6
    const docs: number[][] = []
    for (let r = 0; r < 25; r++) docs.push([0], [1], [0, 0], [1, 1], [0, 1], [1, 0])
    const corpus = fromDocuments(['a', 'b'], docs)
    const init = new WordStream(seededWords('sweep-init'))
    const st = initState(corpus, K, () => init.nextDouble(), 'reading')
    // q ratios up to (C + β)/β = 1e15 and a dense bucket α·q far below the document bucket
    const release = Float64Array.from([1e6, 0, -3, 2e6, 1, 0.5, 0, 7e5, 1e6, 0, 0, 3])
    const q = qTable(release, 2, K, BETA, C)
    const qsum = new Float64Array(2)
    for (let w = 0; w < 2; w++) for (let k = 0; k < K; k++) qsum[w] = (qsum[w] as number) + (q[w * K + k] as number)
    const pick = new WordStream(seededWords('sweep-aim'))
    const extPool = new WordStream(seededWords('sweep-ext'))
    const N = st.tokens.length
    let slow = 0
    for (let sweep = 0; sweep < 40; sweep++) {
      const ext = new Uint32Array(40000)
      extPool.fillWords(ext)
      let cursor = 0
      const z = Int32Array.from(st.z)
      const block: number[] = []
      for (let d = 0; d < st.D; d++) {
        const a = st.docStart[d] as number
        const b = st.docStart[d + 1] as number
        for (let i = a; i < b; i++) {
          const w = st.tokens[i] as number
          const list: number[] = []
          const topics: number[] = []
          for (let o = a; o < b; o++)
            if (o !== i) {
              list.push(1 * (q[w * K + (z[o] as number)] as number))
              topics.push(z[o] as number)
            }
          for (let k = 0; k < K; k++) {
            list.push(ALPHA * (q[w * K + k] as number))
            topics.push(k)
          }
          // the first word: uniform, or aimed at (or next to) one of the list's boundaries
          let word = pick.nextUint32()
          if (pick.uniformBelow(4) !== 0) {
            const P = cumulative(list)
            const j = pick.uniformBelow(list.length - 1)
            word = Math.min(Math.max(Number(((P[j] as bigint) << 32n) / (P[P.length - 1] as bigint)) + pick.uniformBelow(3) - 1, 0), 2 ** 32 - 1)
          }
          block.push(word)
          const before = cursor
          const e = exactDraw(list, list.length, word, () => ext[cursor++] as number)
          if (cursor > before) slow++
          z[i] = topics[e] as number
        }
      }
      expect(block.length).toBe(N)
      // the sweep's kernel on the scripted first words, its further words from the same pool in order
      let extra = 0
      sparseSweep(K, 0, st.D, st.tokens, st.docStart, st.z, st.ndk, q, qsum, new Int32Array(K), new Int32Array(K), ALPHA, Uint32Array.from(block), undefined, () => () => ext[extra++] as number)
      expect(Array.from(st.z)).toEqual(Array.from(z))
    }
    expect(slow).toBeGreaterThan(50) // draws the first word could not settle, decided by the exact path
  })
})

describe('the packed topic list of the sweep (count·2^bits + topic)', () => {
  it('holds every topic and the longest document; a longer one is refused with a message, not a wrong count', () => {
    expect([1, 2, 3, 4, 5, 50, 64, 65, 1000].map(topicBits)).toEqual([0, 1, 2, 2, 3, 6, 6, 7, 10])
    for (const K of [1, 2, 50, 64, 65, 1000, 2 ** 16]) expect(maxPackedCount(K) * 2 ** topicBits(K) + (K - 1)).toBeLessThan(2 ** 31)
    // K = 2^16: 16 bits of topic, counts below 2^15
    const K = 2 ** 16
    const limit = maxPackedCount(K)
    expect(limit).toBe(2 ** 15 - 1)
    const fits = initState(fromDocuments(['a'], [new Array<number>(limit).fill(0)]), K, () => 0.5, 'reading')
    expect(makeParallelSnapshotSampler(fits, 0.1, 0.01, 100, 1)._tag).toBe('Right')
    const long = initState(fromDocuments(['a'], [new Array<number>(limit + 1).fill(0)]), K, () => 0.5, 'reading')
    const refused = makeParallelSnapshotSampler(long, 0.1, 0.01, 100, 1)
    expect(refused._tag).toBe('Left')
    if (refused._tag === 'Left') expect(refused.left.message).toContain(`a document of ${limit + 1} tokens`)
  })
})

// ---- (c) tiny-probability topics at the right frequency -----------------------------------------

/** |count − n·p| within five binomial standard deviations. */
const expectBinomial = (count: number, n: number, p: number): void => {
  expect(Math.abs(count - n * p)).toBeLessThan(5 * Math.sqrt(n * p * (1 - p)))
}

describe('tiny-probability topics are drawn at their probability (weights scaled to ~1e-3, seeded, 5σ)', () => {
  it('the snapshot sweep on single-token documents: independent draws from the dense list α·q', () => {
    const K = 16
    const ALPHA = 0.1
    const BETA = 0.01
    const docs: number[][] = Array.from({ length: 4000 }, () => [0])
    const corpus = fromDocuments(['a', 'b'], docs)
    const words = new WordStream(seededWords('tiny-sweep'))
    const st = initState(corpus, K, () => words.nextDouble(), 'reading')
    const m = makeSnapshotSampler(st, ALPHA, BETA, 1e9)
    // word a's released count is 0 in topic 15 and large elsewhere; topic 15's mass sits on word b:
    // q_{a,15} = β/(0.6 + 2β) ≈ 0.016 against q_{a,k} ≈ 1, so p(15) ≈ 1e-3
    const release = new Float64Array(2 * K)
    for (let k = 0; k < 15; k++) release[k] = 600
    release[K + 15] = 0.6
    m.setRelease(release, 1)
    const q = qTable(release, 2, K, BETA, 1e9)
    let total = 0
    for (let k = 0; k < K; k++) total += ALPHA * (q[k] as number)
    const p = (ALPHA * (q[15] as number)) / total
    expect(p).toBeGreaterThan(5e-4)
    expect(p).toBeLessThan(2e-3)
    let hits = 0
    const sweeps = 250
    for (let s = 0; s < sweeps; s++) {
      m.sweep(words)
      for (let i = 0; i < st.tokens.length; i++) if (st.z[i] === 15) hits++
    }
    expectBinomial(hits, sweeps * st.tokens.length, p)
  })

  it('fast path, then exact path, over 64 entries with one at ~1e-3 and the rest of mixed sizes', () => {
    const s = new WordStream(seededWords('tiny-list'))
    const w = new Float64Array(64)
    for (let k = 0; k < 64; k++) w[k] = 2 ** (s.uniformBelow(10)) * (1 + s.nextDouble())
    let rest = 0
    for (let k = 0; k < 64; k++) if (k !== 40) rest += w[k] as number
    w[40] = rest * 1e-3
    const P = cumulative(w)
    const p = Number(((P[40] as bigint) - (P[39] as bigint)) * 10n ** 12n / (P[63] as bigint)) / 1e12
    const n = 1_000_000
    let hits = 0
    for (let t = 0; t < n; t++) {
      const m = s.nextUint32()
      let j = fastDraw(w, 64, m)
      if (j < 0) j = exactDraw(w, 64, m, () => s.nextUint32())
      if (j === 40) hits++
    }
    expectBinomial(hits, n, p)
  })
})
