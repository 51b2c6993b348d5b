// The WebAssembly private sweep (lda/private-wasm.ts) against the JavaScript loop it compiles
// (sweep-kernel.ts `sparseSweep`): the same topics and counts bit for bit, from the same words, on
// states that exercise every path: empty and long documents (a piece of its own), K = 1 and K not a
// power of two, subsampled sweeps, weights over many orders of magnitude, and undecided first words
// (the exact path, called back from WebAssembly).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { ALPHA_BETA_FLOOR } from '../../src/trainers/config.js'
import { exactCumulative } from '../../src/trainers/lda/exact-draw.js'
import { blockCount, ROW_BLOCK, wordFactors } from '../../src/trainers/lda/parallel/release-work.js'
import { massCoefficient, PIECE_TOKENS, sharedSweepMemory, wasmPrivateAvailable, wasmPrivateSweeper } from '../../src/trainers/lda/private-wasm.js'
import { cryptoDraws, type ExtraWords, extraWords, sparseSweep } from '../../src/trainers/lda/sweep-kernel.js'

interface Case {
  K: number
  V: number
  alpha: number
  tokens: Int32Array
  docStart: Int32Array
  z: Int32Array
  ndk: Int32Array
  q: Float64Array
  qsum: Float64Array
}

/** A random state: documents of the given lengths, topics uniform, q spread over `decades` orders of magnitude. */
const randomCase = (seed: number, K: number, V: number, lengths: number[], decades: number): Case => {
  const r = seeded(seed).next
  const D = lengths.length
  const docStart = new Int32Array(D + 1)
  for (let d = 0; d < D; d++) docStart[d + 1] = (docStart[d] as number) + (lengths[d] as number)
  const N = docStart[D] as number
  const tokens = new Int32Array(N)
  const z = new Int32Array(N)
  const ndk = new Int32Array(D * K)
  for (let d = 0; d < D; d++)
    for (let i = docStart[d] as number; i < (docStart[d + 1] as number); i++) {
      tokens[i] = Math.floor(r() * V)
      // documents lean on a few topics, as after burn-in
      const k = r() < 0.7 ? (d + Math.floor(r() * 3)) % K : Math.floor(r() * K)
      z[i] = k
      ndk[d * K + k] = (ndk[d * K + k] as number) + 1
    }
  const q = new Float64Array(V * K)
  const qsum = new Float64Array(V)
  for (let w = 0; w < V; w++) {
    let s = 0
    for (let k = 0; k < K; k++) {
      const v = 10 ** (-decades * r())
      q[w * K + k] = v
      s += v
    }
    qsum[w] = s
  }
  return { K, V, alpha: 0.1 + r(), tokens, docStart, z, ndk, q, qsum }
}

const words = (seed: number, n: number): Uint32Array => {
  const r = seeded(seed).next
  return Uint32Array.from({ length: n }, () => Math.floor(r() * 2 ** 32))
}

const keyed = { kind: 'keyed' as const, key: Uint32Array.of(1, 2, 3, 4), extraKey: Uint32Array.of(5, 6, 7, 8) }

/** Both loops over documents [d0, d1) of copies of `c`: their topics and counts. */
const both = (c: Case, draws: Uint32Array, include: Uint8Array | undefined, d0 = 0, d1 = c.docStart.length - 1, extra: ExtraWords = extraWords(keyed)) => {
  const js = { z: c.z.slice(), ndk: c.ndk.slice() }
  sparseSweep(c.K, d0, d1, c.tokens, c.docStart, js.z, js.ndk, c.q, c.qsum, new Int32Array(c.K), new Int32Array(c.K), c.alpha, draws, include, extra)
  const wasm = { ...c, z: c.z.slice(), ndk: c.ndk.slice() }
  const sweeper = wasmPrivateSweeper(wasm)
  if (sweeper === undefined) throw new Error('no WebAssembly')
  sweeper.q.set(c.q)
  sweeper.qsum.set(c.qsum)
  sweeper.sweep(d0, d1, draws, include, extra)
  return { js, wasm: { z: wasm.z, ndk: wasm.ndk } }
}

describe.runIf(wasmPrivateAvailable)('the WebAssembly private sweep', () => {
  it.each([
    [1, 1, 7, [5, 0, 9]],
    [2, 3, 5, [1, 2, 0, 0, 40]],
    [7, 5, 30, [100, 3, 0, 57, 200]],
    [50, 9, 500, Array.from({ length: 40 }, (_, i) => (i * 37) % 300)],
    [64, 12, 200, [1000, 1, 2, 700]],
  ])('draws what sparseSweep draws (seed %i, K = %i, V = %i)', (seed, K, V, lengths) => {
    for (const decades of [1, 8, 200]) {
      const c = randomCase(seed * 31 + decades, K, V, lengths, decades)
      const draws = words(seed + decades, c.tokens.length)
      const { js, wasm } = both(c, draws, undefined)
      expect(wasm.z).toEqual(js.z)
      expect(wasm.ndk).toEqual(js.ndk)
      if (K > 1) expect(js.z).not.toEqual(c.z) // the sweep moved topics
      // a subsampled sweep, and a range of documents inside the corpus
      const r = seeded(seed + 1000).next
      const include = Uint8Array.from({ length: c.tokens.length }, () => (r() < 0.3 ? 1 : 0))
      const sub = both(c, draws, include)
      expect(sub.wasm.z).toEqual(sub.js.z)
      expect(sub.wasm.ndk).toEqual(sub.js.ndk)
      const D = c.docStart.length - 1
      const part = both(c, draws, undefined, Math.floor(D / 3), D)
      expect(part.wasm.z).toEqual(part.js.z)
      expect(part.wasm.ndk).toEqual(part.js.ndk)
    }
  })

  it.each([
    [1, 3],
    [2, 70],
    [7, 130],
    [50, 200],
    [3, 65],
    [50, 129],
  ])('builds q and Σ_k q from a release as wordFactors does, bit for bit (K = %i, V = %i)', (K, V) => {
    const r = seeded(K * 1000 + V).next
    const sweeper = wasmPrivateSweeper({ K, V, alpha: 0.1, tokens: new Int32Array(1), docStart: Int32Array.of(0, 1), z: new Int32Array(1), ndk: new Int32Array(K) })
    if (sweeper === undefined) throw new Error('no WebAssembly')
    for (const [scale, clip] of [
      [1, Number.POSITIVE_INFINITY],
      [1, 7],
      [10, 100],
      [1 / 0.3, 3.5],
    ] as const) {
      // noisy counts: negative, zero (either sign), beyond the clip, fractional after scaling
      const release = Float64Array.from({ length: V * K }, () => (r() < 0.1 ? -0 : Math.round((r() - 0.3) * 40)))
      const inv = Float64Array.from({ length: K }, () => 1 / (r() * 1000 + V * 0.01))
      const q = new Float64Array(V * K)
      const qsum = new Float64Array(V)
      wordFactors(K, V, release, scale, clip, 0.01, inv, q, qsum, 0, blockCount(V, ROW_BLOCK))
      sweeper.factors(release, inv, scale, clip, 0.01)
      expect(Array.from(sweeper.q, (x) => Object.is(x, -0) ? 'neg0' : x)).toEqual(Array.from(q, (x) => Object.is(x, -0) ? 'neg0' : x))
      expect(sweeper.qsum).toEqual(qsum)
    }
  })

  it('builds the same q from −0 and +0 counts at the least β a fit takes (pmax keeps −0 where max gives +0; −0 + β = +0 + β)', () => {
    const K = 5
    const V = 9
    const sweeper = wasmPrivateSweeper({ K, V, alpha: 0.1, tokens: new Int32Array(1), docStart: Int32Array.of(0, 1), z: new Int32Array(1), ndk: new Int32Array(K) })
    if (sweeper === undefined) throw new Error('no WebAssembly')
    const release = Float64Array.from({ length: V * K }, (_, i) => [-0, 0, -0, -3, 2.5][i % 5] as number)
    const inv = Float64Array.from({ length: K }, (_, k) => 1 / (k + 2))
    for (const beta of [ALPHA_BETA_FLOOR, 1e-300, 0.01]) {
      const q = new Float64Array(V * K)
      const qsum = new Float64Array(V)
      wordFactors(K, V, release, 1, 100, beta, inv, q, qsum, 0, blockCount(V, ROW_BLOCK))
      sweeper.factors(release, inv, 1, 100, beta)
      expect(sweeper.q.every((x, i) => Object.is(x, q[i])), `β = ${beta}`).toBe(true)
      expect(sweeper.qsum.every((x, i) => Object.is(x, qsum[i])), `β = ${beta}`).toBe(true)
    }
  })

  it.each([
    [3, 70, 2],
    [7, 130, 3],
    [50, 200, 4],
  ])('on one shared memory (K = %i, V = %i, %i threads): q built row range by row range is the own-memory q, and every part sweeps as alone', (K, V, parts) => {
    const c = randomCase(K + V, K, V, Array.from({ length: 12 }, (_, i) => (i * 53) % 90), 3)
    const memory = sharedSweepMemory(c, parts)
    if (memory === undefined) throw new Error('no shared WebAssembly memory')
    const own = wasmPrivateSweeper(c)
    const shared = Array.from({ length: parts }, (_, j) => wasmPrivateSweeper({ ...c, z: c.z.slice(), ndk: c.ndk.slice() }, { memory, part: j }))
    if (own === undefined || shared.some((x) => x === undefined)) throw new Error('no WebAssembly')
    const r = seeded(V).next
    const release = Float64Array.from({ length: V * K }, () => Math.round((r() - 0.3) * 40))
    const inv = Float64Array.from({ length: K }, () => 1 / (r() * 1000 + V * 0.01))
    own.factors(release, inv, 1, 9, 0.01)
    // the parts take row ranges in turn, the last one ragged; every part then sees the one q
    for (let w0 = 0, j = 0; w0 < V; w0 += 17, j = (j + 1) % parts) shared[j]?.factors(release, inv, 1, 9, 0.01, w0, Math.min(V, w0 + 17))
    for (const x of shared) {
      expect(x?.q).toEqual(own.q)
      expect(x?.qsum).toEqual(own.qsum)
    }
    // each part sweeps a range of documents from its own scratch: the own-memory sweeper's topics
    const D = c.docStart.length - 1
    const draws = words(K, c.tokens.length)
    const alone = { ...c, z: c.z.slice(), ndk: c.ndk.slice() }
    const ref = wasmPrivateSweeper(alone)
    ref?.factors(release, inv, 1, 9, 0.01)
    ref?.sweep(0, D, draws, undefined, extraWords(keyed))
    const together = { ...c, z: c.z.slice(), ndk: c.ndk.slice() }
    const onShared = Array.from({ length: parts }, (_, j) => wasmPrivateSweeper(together, { memory, part: j }))
    for (let j = 0; j < parts; j++) onShared[j]?.sweep(Math.floor((j * D) / parts), Math.floor(((j + 1) * D) / parts), draws, undefined, extraWords(keyed))
    expect(together.z).toEqual(alone.z)
    expect(together.ndk).toEqual(alone.ndk)
  })

  it('takes its words from a supply, piece by piece, as from the positional array (the same words in order: the same topics)', () => {
    const c = randomCase(11, 9, 60, [3, PIECE_TOKENS + 77, 0, 40, 5], 3)
    const draws = words(11, c.tokens.length)
    const r = seeded(12).next
    for (const include of [undefined, Uint8Array.from({ length: c.tokens.length }, () => (r() < 0.4 ? 1 : 0))]) {
      const positional = { ...c, z: c.z.slice(), ndk: c.ndk.slice() }
      const a = wasmPrivateSweeper(positional)
      const supplied = { ...c, z: c.z.slice(), ndk: c.ndk.slice() }
      const b = wasmPrivateSweeper(supplied)
      if (a === undefined || b === undefined) throw new Error('no WebAssembly')
      for (const x of [a, b]) {
        x.q.set(c.q)
        x.qsum.set(c.qsum)
      }
      // the visited tokens' words, in order, as fillRangeDraws lays them out for a range starting at 0
      let next = 0
      a.sweep(0, 5, draws, include, extraWords(keyed))
      b.sweep(0, 5, (out) => {
        out.set(draws.subarray(next, next + out.length))
        next += out.length
      }, include, extraWords(keyed))
      expect(next).toBe(include === undefined ? c.tokens.length : include.reduce((n, x) => n + x, 0))
      expect(supplied.z).toEqual(positional.z)
      expect(supplied.ndk).toEqual(positional.ndk)
    }
  })

  it('cryptoDraws writes every word asked for, across its buffer refills, and never the same words twice', () => {
    const supply = cryptoDraws()
    const outs = [5, 16_384, 40_000, 1, 20_000].map((n) => new Uint32Array(n).fill(0xdeadbeef))
    for (const o of outs) supply(o)
    const all = outs.flatMap((o) => Array.from(o))
    // a word equal to the fill value, or a repeated run of 4, has probability ~2^-32 per place
    expect(all.filter((x) => x === 0xdeadbeef).length).toBeLessThan(2)
    const quads = new Set<string>()
    for (let i = 0; i + 4 <= all.length; i += 4) quads.add(all.slice(i, i + 4).join(','))
    expect(quads.size).toBe(Math.floor(all.length / 4))
  })

  it('sweeps a document longer than a piece, between short ones', () => {
    const c = randomCase(9, 20, 50, [3, PIECE_TOKENS + 123, 0, 4], 3)
    const { js, wasm } = both(c, words(9, c.tokens.length), undefined)
    expect(wasm.z).toEqual(js.z)
    expect(wasm.ndk).toEqual(js.ndk)
  })

  it('calls the exact path back for a first word that cannot decide the draw', () => {
    // one document, K = 2, counts (3, 1), the first token in topic 0: after its removal the list is
    // (2·q_w0, 1·q_w1, α·q_w0, α·q_w1), and the first word at the first boundary straddles it
    const K = 2
    const tokens = Int32Array.of(0, 0, 0, 0)
    const z = Int32Array.of(0, 0, 0, 1)
    const q = Float64Array.of(0.3, 0.45)
    const alpha = 0.25
    const c: Case = { K, V: 1, alpha, tokens, docStart: Int32Array.of(0, 4), z, ndk: Int32Array.of(3, 1), q, qsum: Float64Array.of(0.3 + 0.45) }
    const total = 2 * 0.3 + 1 * 0.45 + alpha * 0.75
    const draws = words(3, 4)
    draws[0] = Math.floor(((2 * 0.3) / total) * 2 ** 32)
    // several continuations of U (the exact path's further words): each engine asks for them at token 0 and decides alike
    for (let k = 0; k < 8; k++) {
      const asked: number[] = []
      const extra: ExtraWords = (i) => {
        asked.push(i)
        return extraWords({ ...keyed, extraKey: Uint32Array.of(k, 1, 2, 3) })(i)
      }
      const { js, wasm } = both(c, draws, undefined, 0, 1, extra)
      expect(wasm.z).toEqual(js.z)
      expect(wasm.ndk).toEqual(js.ndk)
      expect(asked.filter((i) => i === 0)).toHaveLength(2) // once by each engine
    }
  })
})

/**
 * The kernel's dense document mass (private-wasm.ts `mass`), replayed in JavaScript in the kernel's
 * order: two f64x2 accumulators over K rounded up to even (a zero past K), four terms a step, then the
 * accumulators added and their lanes added.
 */
const kernelMass = (w: Float64Array): number => {
  const K = w.length
  const KP = K + (K & 1)
  const x = (k: number): number => (k < K ? (w[k] as number) : 0)
  let [a0, a1, b0, b1] = [0, 0, 0, 0]
  let k = 0
  for (; k + 4 <= KP; k += 4) {
    a0 += x(k)
    a1 += x(k + 1)
    b0 += x(k + 2)
    b1 += x(k + 3)
  }
  if (k < KP) {
    a0 += x(k)
    a1 += x(k + 1)
  }
  const c0 = a0 + b0
  const c1 = a1 + b1
  return c0 + c1
}

describe('the dense document mass bound (massCoefficient)', () => {
  // products n·q of a document: most topics absent (0), the rest over many orders of magnitude
  const product = fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 1, max: 100000 }), fc.double({ min: 1e-300, max: 1e300, noNaN: true })).map(([n, q]) => n * q) },
    { weight: 1, arbitrary: fc.constantFrom(5e-324, 2 ** -1022, 1, 0.1, 1 - 2 ** -53) },
  )
  it('bounds |R̃ − R| by massCoefficient(K)·R̃ for every K and every product, in exact arithmetic', () => {
    fc.assert(
      fc.property(fc.array(product, { minLength: 1, maxLength: 130 }), fc.integer({ min: 0, max: 129 }), (ws, at) => {
        const w = Float64Array.from(ws)
        if (w.every((x) => x === 0)) w[at % w.length] = 0.5
        const mass = kernelMass(w)
        if (!Number.isFinite(mass)) return // overflow: beyond the sweep's weights (q ≤ 1/(Vβ), counts < 2^31)
        // R and R̃ in one exact unit: the cumulative sums of (w..., R̃)
        const P = exactCumulative(Float64Array.from([...w, mass]), w.length + 1)
        const R = P[w.length - 1] as bigint
        const Rt = (P[w.length] as bigint) - R
        const diff = Rt > R ? Rt - R : R - Rt
        // |R̃ − R|·2^70 ≤ ⌊c·2^70⌋·R̃ (TINY covers the subnormal products of the sweep, not needed for exact inputs)
        expect(diff * 2n ** 70n <= BigInt(Math.floor(massCoefficient(w.length) * 2 ** 70)) * Rt).toBe(true)
      }),
      { numRuns: 2000, seed: 27 },
    )
  })
})
