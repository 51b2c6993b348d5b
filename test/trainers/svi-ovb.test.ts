/**
 * ψ from @stdlib (src/trainers/svi/digamma.ts) against independent values, and OnlineLda run as batch
 * variational Bayes (one batch of all documents, ρ = 1, scale 1: scikit-learn's learning_method='batch',
 * the protocol of bench/svi.bench.mjs part 2) against a direct transcription of the updates.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { digamma } from '../../src/trainers/svi/digamma.js'
import { bagOf, emptyBag, OnlineLda } from '../../src/trainers/svi/ovb.js'

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

  it('follows the direct transcription for 4 passes (λ to 1e-9 relative, the same γ iteration counts)', () => {
    const K = 3
    const V = 30
    const alpha = 0.1
    const eta = 0.01
    const rng = seeded(11)
    // 12 documents of 1–30 tokens from two overlapping word ranges, so topics form
    const docs = Array.from({ length: 12 }, (_, d) =>
      Array.from({ length: 1 + ((d * 11 + 5) % 30) }, () => Math.floor(rng.next() * 15) + (d % 2 === 0 ? 0 : 10)),
    )
    const ovb = new OnlineLda(K, V, alpha, eta)
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
