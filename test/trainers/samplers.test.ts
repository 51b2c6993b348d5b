// Exactness of the Gibbs samplers: on a corpus small enough to enumerate every assignment, the
// long-run frequencies of the sampled states must match the target distribution computed exactly.
// The corpus repeats words inside documents, so the samplers' run-of-the-same-word paths (masses
// updated in O(1) along a run) are exercised as well as the first-token paths.
import gammaln from '@stdlib/math-base-special-gammaln'
import { describe, expect, it } from 'vitest'
import { seeded } from '../../src/core/rng.js'
import { seededWords, WordStream } from '../../src/core/words.js'
import { fromDocuments } from '../../src/trainers/corpus/corpus.js'
import { FastUniform } from '../../src/trainers/lda/random.js'
import { makeSnapshotSampler } from '../../src/trainers/lda/snapshot.js'
import { makeSparseSampler } from '../../src/trainers/lda/sparse.js'
import { wasmSparseAvailable } from '../../src/trainers/lda/sparse-wasm.js'
import { type GibbsState, initState } from '../../src/trainers/lda/state.js'

const K = 2
const ALPHA = 0.3
const BETA = 0.2
// Reading order is shuffled on purpose: the state visits each document grouped by word.
const CORPUS = fromDocuments(['a', 'b', 'c'], [[0, 1, 0], [2, 1, 1, 0]])
const N = CORPUS.tokens.length
const STATES = K ** N

/** Decodes state index s into topics for the state's (grouped) token order. */
const topicsOf = (s: number): number[] => Array.from({ length: N }, (_, i) => Math.floor(s / K ** i) % K)

/** Exact target over all K^N assignments, given the log weight of one assignment. */
const exact = (logWeight: (z: number[]) => number): Float64Array => {
  const lw = Array.from({ length: STATES }, (_, s) => logWeight(topicsOf(s)))
  const m = Math.max(...lw)
  const p = Float64Array.from(lw, (x) => Math.exp(x - m))
  const tot = p.reduce((a, b) => a + b, 0)
  return p.map((x) => x / tot)
}

const docCounts = (st: GibbsState, z: number[]): number[][] =>
  Array.from({ length: st.D }, (_, d) => {
    const n = new Array<number>(K).fill(0)
    for (let i = st.docStart[d] as number; i < (st.docStart[d + 1] as number); i++) n[z[i] as number] = (n[z[i] as number] as number) + 1
    return n
  })

/** log p(z | w) of collapsed LDA up to a constant: Π_d Π_k Γ(n_dk + α) · Π_k Π_w Γ(n_kw + β) / Γ(n_k + Vβ). */
const collapsedLog = (st: GibbsState) => (z: number[]): number => {
  let s = 0
  for (const n of docCounts(st, z)) for (const c of n) s += gammaln(c + ALPHA)
  for (let k = 0; k < K; k++) {
    let nk = 0
    for (let w = 0; w < st.V; w++) {
      let c = 0
      for (let i = 0; i < N; i++) if (st.tokens[i] === w && z[i] === k) c++
      s += gammaln(c + BETA)
      nk += c
    }
    s -= gammaln(nk + st.V * BETA)
  }
  return s
}

/** log target of the snapshot sampler for a fixed word factor q: Π_i q_{w_i z_i} · Π_d Π_k Γ(n_dk + α). */
const snapshotLog = (st: GibbsState, q: (w: number, k: number) => number) => (z: number[]): number => {
  let s = 0
  for (let i = 0; i < N; i++) s += Math.log(q(st.tokens[i] as number, z[i] as number))
  for (const n of docCounts(st, z)) for (const c of n) s += gammaln(c + ALPHA)
  return s
}

const stateIndex = (z: Int32Array): number => {
  let s = 0
  for (let i = N - 1; i >= 0; i--) s = s * K + (z[i] as number)
  return s
}

/** The word-topic counts of the current assignment, V×K word-major. */
const countsOf = (st: GibbsState): Int32Array => {
  const counts = new Int32Array(st.V * K)
  for (let i = 0; i < N; i++) {
    const cell = (st.tokens[i] as number) * K + (st.z[i] as number)
    counts[cell] = (counts[cell] as number) + 1
  }
  return counts
}

const totalVariation = (p: ArrayLike<number>, q: ArrayLike<number>): number => {
  let s = 0
  for (let i = 0; i < p.length; i++) s += Math.abs((p[i] as number) - (q[i] as number))
  return s / 2
}

const SWEEPS = 200_000
// Sampling error of the empirical frequencies over 64 states at this many (correlated) sweeps is
// about 0.005 in total variation; a wrong α or β moves the target by several times the bound.
const BOUND = 0.02

const empirical = (st: GibbsState, sweep: () => void): Float64Array => {
  const f = new Float64Array(STATES)
  for (let t = 0; t < 1000; t++) sweep()
  for (let t = 0; t < SWEEPS; t++) {
    sweep()
    const s = stateIndex(st.z)
    f[s] = (f[s] as number) + 1
  }
  return f.map((x) => x / SWEEPS)
}

describe.each(['wasm', 'js'] as const)('SparseLDA (CGS, %s loop) samples the collapsed posterior exactly', (engine) => {
  it('matches the enumerated posterior, and keeps its packed counts equal to the counts of z', () => {
    const u = new FastUniform(seeded(11))
    const st = initState(CORPUS, K, () => u.next())
    const m = makeSparseSampler(st, ALPHA, BETA, engine)
    const target = exact(collapsedLog(st))
    const f = empirical(st, () => m.sweep(u))
    expect(totalVariation(f, target)).toBeLessThan(BOUND)
    // power: a posterior with another α is far outside the bound
    const other = exact((z) => collapsedLog(st)(z) + docCounts(st, z).flat().reduce((s, c) => s + gammaln(c + 2) - gammaln(c + ALPHA), 0))
    expect(totalVariation(other, target)).toBeGreaterThan(3 * BOUND)
    m.syncDense()
    const counts = countsOf(st)
    expect(Array.from(st.nwk)).toEqual(Array.from(counts))
  })
})

describe('SparseLDA: the WebAssembly loop is the JavaScript loop', () => {
  // documents with repeated words (Zipf-like word draws) so that both run paths and all three buckets are taken
  const corpusOf = (seed: number, D: number, V: number) => {
    const r = seeded(seed)
    const docs = Array.from({ length: D }, () => Array.from({ length: 5 + Math.floor(r.next() * 80) }, () => Math.floor(V * r.next() ** 2.5)))
    return fromDocuments(Array.from({ length: V }, (_, w) => `w${w}`), docs)
  }
  it.each([
    [3, 0.3, 0.2],
    [20, 0.1, 0.01],
    [50, 0.05, 0.5],
  ])('K = %i, α = %f, β = %f: the same topics after every sweep, bit for bit, and counts equal to the counts of z', (topics, alpha, beta) => {
    const corpus = corpusOf(topics, 40, 60)
    const run = (engine: 'wasm' | 'js') => {
      const u = new FastUniform(seeded(5))
      const st = initState(corpus, topics, () => u.next())
      return { st, m: makeSparseSampler(st, alpha, beta, engine), u }
    }
    expect(wasmSparseAvailable).toBe(true)
    const a = run('wasm')
    const b = run('js')
    for (let t = 0; t < 30; t++) {
      a.m.sweep(a.u)
      b.m.sweep(b.u)
      expect(Array.from(a.st.z)).toEqual(Array.from(b.st.z))
    }
    expect(Array.from(a.st.ndk)).toEqual(Array.from(b.st.ndk))
    expect(Array.from(a.st.nk)).toEqual(Array.from(b.st.nk))
    a.m.syncDense()
    const counts = new Int32Array(a.st.V * topics)
    for (let i = 0; i < a.st.tokens.length; i++) {
      const cell = (a.st.tokens[i] as number) * topics + (a.st.z[i] as number)
      counts[cell] = (counts[cell] as number) + 1
    }
    expect(Array.from(a.st.nwk)).toEqual(Array.from(counts))
  })
})

describe('the snapshot sampler (private trainers) samples its target exactly', () => {
  // a release with a negative cell (clipped to 0) and a cell above the clip C
  const release = Float64Array.from([3.2, -0.7, 0.4, 2.5, 9, 1.1])
  const C = 5
  const qOf = (st: GibbsState) => {
    const tot = [0, 0]
    for (let w = 0; w < st.V; w++) for (let k = 0; k < K; k++) tot[k] = (tot[k] as number) + (release[w * K + k] as number)
    return (w: number, k: number): number => (Math.min(Math.max(release[w * K + k] as number, 0), C) + BETA) / (Math.max(tot[k] as number, 0) + st.V * BETA)
  }

  it('full sweeps', () => {
    const u = new WordStream(seededWords(12))
    const st = initState(CORPUS, K, () => u.nextDouble(), 'reading')
    const m = makeSnapshotSampler(st, ALPHA, BETA, C)
    m.setRelease(release, 1)
    const f = empirical(st, () => m.sweep(u))
    expect(totalVariation(f, exact(snapshotLog(st, qOf(st))))).toBeLessThan(BOUND)
    // the true counts are owed after a sweep, and counted from z on demand
    m.counts()
    const counts = countsOf(st)
    expect(Array.from(st.nwk)).toEqual(Array.from(counts))
  })

  it('Poisson-subsampled sweeps (a random half of the tokens visited each sweep)', () => {
    const u = new WordStream(seededWords(13))
    const coin = new FastUniform(seeded(14))
    const st = initState(CORPUS, K, () => u.nextDouble(), 'reading')
    const m = makeSnapshotSampler(st, ALPHA, BETA, C)
    m.setRelease(release, 1)
    const include = new Uint8Array(N)
    const f = empirical(st, () => {
      for (let i = 0; i < N; i++) include[i] = coin.next() < 0.5 ? 1 : 0
      m.sweep(u, include)
    })
    expect(totalVariation(f, exact(snapshotLog(st, qOf(st))))).toBeLessThan(BOUND)
  })
})
