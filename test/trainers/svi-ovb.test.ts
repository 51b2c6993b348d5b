/**
 * ψ from @stdlib (src/trainers/svi/digamma.ts) against independent values; the γ-iteration kernels
 * (src/trainers/svi/gamma-sums.ts: WebAssembly SIMD and JavaScript) against each other; and OnlineLda
 * run as batch variational Bayes (one batch of all documents, ρ = 1, scale 1: scikit-learn's
 * learning_method='batch', the protocol of bench/svi.bench.mjs part 2) against a direct
 * transcription of the updates, with either kernel.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { digamma } from '../../src/trainers/svi/digamma.js'
import { gammaSumsJs, KERNEL_WORDS, wasmGammaSums, wasmSimdAvailable } from '../../src/trainers/svi/gamma-sums.js'
import { bagOf, emptyBag, type GammaKernel, OnlineLda } from '../../src/trainers/svi/ovb.js'

const EULER = 0.5772156649015329

/** ψ by shifting x to ≥ 20 with ψ(x) = ψ(x + 1) − 1/x, then the asymptotic series to x^-10
 * (Abramowitz & Stegun 6.3.18; first omitted term 691/(32760 x^12) < 1e-17 at x ≥ 20). */
const psiBySeries = (x: number): number => {
  let r = 0
  while (x < 20) {
    r -= 1 / x
    x += 1
  }
  const f = 1 / (x * x)
  return r + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))
}

describe('digamma (@stdlib/math-base-special-digamma on x > 0)', () => {
  it("matches Gauss's digamma theorem and harmonic numbers", () => {
    const harmonic = (n: number): number => Array.from({ length: n }, (_, i) => 1 / (i + 1)).reduce((a, b) => a + b, 0)
    const cases: Array<[number, number]> = [
      [1 / 3, -EULER - Math.PI / (2 * Math.sqrt(3)) - 1.5 * Math.log(3)],
      [1 / 4, -EULER - Math.PI / 2 - 3 * Math.log(2)],
      [2 / 3, -EULER + Math.PI / (2 * Math.sqrt(3)) - 1.5 * Math.log(3)],
      [50, harmonic(49) - EULER],
      [1000, harmonic(999) - EULER],
    ]
    for (const [x, want] of cases) expect(Math.abs(digamma(x) - want)).toBeLessThan(1e-13 * Math.max(1, Math.abs(want)))
  })
  it('is NaN outside x > 0 (stdlib would reflect negative non-integers)', () => {
    for (const x of [0, -0.5, -1, -2.5, Number.NaN, -Infinity]) expect(digamma(x)).toBeNaN()
  })
  it('agrees with the shifted asymptotic series on x ∈ [1e-3, 1e6]', () => {
    fc.assert(
      fc.property(fc.double({ min: -3, max: 6, noNaN: true }), (e) => {
        const x = Math.pow(10, e)
        return Math.abs(digamma(x) - psiBySeries(x)) <= 1e-13 * Math.max(1, Math.abs(psiBySeries(x)))
      }),
      { numRuns: 500 },
    )
  })
})

describe('the γ-iteration kernels', () => {
  it('WebAssembly SIMD is available on Node ≥ 20 (else OnlineLda falls back to JavaScript)', () => {
    expect(wasmSimdAvailable).toBe(true)
    expect(new OnlineLda(3, 5, 0.1, 0.01).kernel).toBe('wasm-simd')
    expect(new OnlineLda(3, 5, 0.1, 0.01, { kernel: 'js' }).kernel).toBe('js')
  })
  it('compute the same sums (to reassociation) for any K, m and words per step, including odd K and m mod 4 ≠ 0', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 41 }),
        fc.integer({ min: 0, max: 37 }),
        fc.constantFrom(KERNEL_WORDS, 1, 2, 8),
        fc.integer({ min: 1, max: 1e6 }),
        (K, m, words, seed) => {
          const rng = seeded(seed)
          const t = Float64Array.from({ length: K }, () => 1e-3 + rng.next())
          const counts = Float64Array.from({ length: m }, () => 1 + Math.floor(5 * rng.next()))
          const block = Float64Array.from({ length: m * K }, () => Math.exp(-12 * rng.next()))
          const want = new Float64Array(K)
          gammaSumsJs(block, t, counts, want, K, m)
          // the SIMD kernel's layout: t, acc (stride Kp each), counts, block (m × Kp), padding 0
          const Kp = K + (K % 2)
          const w = wasmGammaSums(8 * (2 * Kp + m + m * Kp), words)!
          new Float64Array(w.buffer, 0, K).set(t)
          new Float64Array(w.buffer, 16 * Kp, m).set(counts)
          const b = new Float64Array(w.buffer, 16 * Kp + 8 * m, m * Kp)
          for (let j = 0; j < m; j++) b.set(block.subarray(j * K, (j + 1) * K), j * Kp)
          const acc = new Float64Array(w.buffer, 8 * Kp, Kp)
          acc.fill(Number.NaN) // the kernel must overwrite, not accumulate into, acc
          w.run(16 * Kp + 8 * m, 0, 16 * Kp, 8 * Kp, Kp, m)
          for (let k = 0; k < K; k++) if (!(Math.abs((acc[k] as number) - (want[k] as number)) <= 1e-13 * (want[k] as number) + 1e-300)) return false
          return K === Kp || acc[K] === 0
        },
      ),
      { numRuns: 300 },
    )
  })
  it('give OnlineLda the same document statistic and γ, also after the scratch grows past 64 words', () => {
    const K = 5
    const V = 400
    const rng = seeded(5)
    const make = (kernel: GammaKernel): OnlineLda => {
      const o = new OnlineLda(K, V, 0.1, 0.01, { kernel })
      const r = seeded(6)
      for (let i = 0; i < o.lambda.length; i++) o.lambda[i] = 0.01 + 3 * r.next()
      o.refresh()
      return o
    }
    const [a, b] = [make('wasm-simd'), make('js')]
    const seen = new Int32Array(V)
    // 3, 70 (grows 64 → 128), 300 (grows to 300) and 20 distinct-word documents
    for (const n of [3, 70, 300, 20]) {
      const doc = Array.from({ length: 2 * n }, (_, i) => (i < n ? i * 1 : Math.floor(rng.next() * n)))
      const sa = new Float64Array(V * K)
      const sb = new Float64Array(V * K)
      const ga = new Float64Array(K)
      const gb = new Float64Array(K)
      const ia = a.documentStatistic(bagOf(doc, 0, doc.length, emptyBag(doc.length), seen), sa, ga)
      const ib = b.documentStatistic(bagOf(doc, 0, doc.length, emptyBag(doc.length), seen), sb, gb)
      expect(ia).toBe(ib)
      for (let k = 0; k < K; k++) expect(Math.abs((ga[k] as number) - (gb[k] as number))).toBeLessThan(1e-10 * (gb[k] as number))
      for (let i = 0; i < sa.length; i++) expect(Math.abs((sa[i] as number) - (sb[i] as number))).toBeLessThan(1e-10 * Math.max(1e-300, sb[i] as number) + 1e-300)
      expect(sa.reduce((x, y) => x + y, 0)).toBeCloseTo(doc.length, 9)
    }
  })
})

describe('OnlineLda as batch VB (ρ = 1, scale 1)', () => {
  /** Hoffman et al. (2010) eq. (2)–(3) and scikit-learn's _update_doc_distribution, written out:
   * topic-major λ, φ materialised per word, γ from 1, stop when the mean |Δγ| < 1e-3. */
  const directPass = (lambda: number[][], docs: number[][], K: number, V: number, alpha: number, eta: number): { lambda: number[][]; iterations: number } => {
    const eb = lambda.map((row) => {
      const ps = psiBySeries(row.reduce((a, b) => a + b, 0))
      return row.map((l) => Math.exp(psiBySeries(l) - ps))
    })
    const sstats = Array.from({ length: K }, () => new Array<number>(V).fill(0))
    let iterations = 0
    for (const doc of docs) {
      const ids = [...new Set(doc)]
      const cts = ids.map((w) => doc.filter((v) => v === w).length)
      let gamma = new Array<number>(K).fill(1)
      const etheta = (g: number[]): number[] => {
        const ps = psiBySeries(g.reduce((a, b) => a + b, 0))
        return g.map((x) => Math.exp(psiBySeries(x) - ps))
      }
      const phiOf = (et: number[]): number[][] =>
        ids.map((w) => {
          const un = et.map((t, k) => t * eb[k]![w]!)
          const norm = un.reduce((a, b) => a + b, 1e-100)
          return un.map((u) => u / norm)
        })
      let et = etheta(gamma)
      for (let it = 0; it < 100; it++) {
        const phi = phiOf(et)
        const next = gamma.map((_, k) => alpha + ids.reduce((a, _w, j) => a + cts[j]! * phi[j]![k]!, 0))
        const change = next.reduce((a, g, k) => a + Math.abs(g - gamma[k]!), 0) / K
        gamma = next
        et = etheta(gamma)
        iterations++
        if (change < 1e-3) break
      }
      const phi = phiOf(et)
      ids.forEach((w, j) => {
        for (let k = 0; k < K; k++) sstats[k]![w]! += cts[j]! * phi[j]![k]!
      })
    }
    return { lambda: sstats.map((row) => row.map((s) => eta + s)), iterations }
  }

  it.each([
    ['wasm-simd', 3],
    ['wasm-simd', 4],
    ['js', 3],
  ] as const)('follows the direct transcription for 4 passes (kernel %s, K = %i; λ to 1e-9 relative, the same γ iteration counts)', (kernel, K) => {
    const V = 30
    const alpha = 0.1
    const eta = 0.01
    const rng = seeded(11)
    // 12 documents of 1–30 tokens from two overlapping word ranges, so topics form
    const docs = Array.from({ length: 12 }, (_, d) =>
      Array.from({ length: 1 + ((d * 11 + 5) % 30) }, () => Math.floor(rng.next() * 15) + (d % 2 === 0 ? 0 : 10)),
    )
    const ovb = new OnlineLda(K, V, alpha, eta, { kernel })
    expect(ovb.kernel).toBe(kernel)
    let lambda = Array.from({ length: K }, () => Array.from({ length: V }, () => 0.5 + rng.next()))
    for (let k = 0; k < K; k++) for (let w = 0; w < V; w++) ovb.lambda[w * K + k] = lambda[k]![w]!
    ovb.refresh()
    const stats = new Float64Array(V * K)
    const seen = new Int32Array(V)
    const bag = emptyBag(30)
    for (let pass = 0; pass < 4; pass++) {
      stats.fill(0)
      ovb.beginBatch()
      let iterations = 0
      for (const doc of docs) iterations += ovb.eStep(bagOf(doc, 0, doc.length, bag, seen), stats)
      ovb.update(ovb.endBatch(stats), 1, 1)
      const want = directPass(lambda, docs, K, V, alpha, eta)
      expect(iterations).toBe(want.iterations)
      for (let k = 0; k < K; k++)
        for (let w = 0; w < V; w++) expect(Math.abs((ovb.lambda[w * K + k] as number) - want.lambda[k]![w]!)).toBeLessThan(1e-9 * want.lambda[k]![w]!)
      lambda = want.lambda
    }
    // a word no document contains (25–29) keeps λ = η (its statistic row stays zero)
    const unused = [...Array(V).keys()].filter((w) => !docs.some((d) => d.includes(w)))
    expect(unused.length).toBeGreaterThanOrEqual(5)
    for (const w of unused) for (let k = 0; k < K; k++) expect(ovb.lambda[w * K + k]).toBe(eta)
  })
})
