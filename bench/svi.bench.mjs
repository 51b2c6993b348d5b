// Online variational Bayes for LDA (src/trainers/svi/ovb.ts) and the private SVI trainer: tokens per
// pass per second on Brown (V = 5,000, the LDA-EVAL vocabulary), against a straightforward
// implementation measured in the same run and against scikit-learn's VB on the reference machine.
//
//   npm run build && node bench/svi.bench.mjs [--quick]
//
// A pass is D documents through the E-step (D/S mini-batches of S documents, each followed by the
// M-step and the refresh of E[ln β], V·K digammas). Tokens per pass per second = tokens visited /
// wall time. LDA-EVAL.md: scikit-learn's VB runs 2.1 M (K = 20) and 1.2 M (K = 50) tokens/s per
// pass on Brown on the reference machine (the issue quotes 1.1–1.9 M); the ratio printed is ours
// over that figure (same machine class, different machine). That figure is batch VB averaged over
// 100 passes, when most passes run on nearly converged topics and the E-step needs few iterations;
// here 3 online passes from a random λ need 50–90 per document, so the E-step's iterations per
// document and its cost per (distinct word, topic, iteration) are printed too.
import { performance } from 'node:perf_hooks'
import { seeded } from '../dist/core/rng.js'
import { loadDataset, heldOutPerplexity } from '../dist/trainers/index.js'
import { digamma } from '../dist/trainers/svi/digamma.js'
import { OnlineLda, bagOf, emptyBag, learningRate } from '../dist/trainers/svi/ovb.js'
import { SVI_DEFAULTS, sviLda } from '../dist/trainers/svi/trainer.js'

const quick = process.argv.includes('--quick')
const PASSES = quick ? 1 : 3
const S = 64
const ALPHA = 0.1, ETA = 0.01, TAU0 = 64, KAPPA = 0.7
const SKLEARN = { 20: 2.1, 50: 1.2 }

// The straightforward implementation: topic-major arrays of rows, φ materialised per document and
// per iteration, E[ln β] read through the K×V table for every token type, no gathering.
class Straightforward {
  constructor(K, V) {
    this.K = K; this.V = V
    this.lambda = Array.from({ length: K }, () => new Float64Array(V))
    this.eb = Array.from({ length: K }, () => new Float64Array(V))
  }
  refresh() {
    for (let k = 0; k < this.K; k++) {
      let s = 0
      for (let w = 0; w < this.V; w++) s += this.lambda[k][w]
      const ps = digamma(s)
      for (let w = 0; w < this.V; w++) this.eb[k][w] = Math.exp(digamma(this.lambda[k][w]) - ps)
    }
  }
  eStep(ids, cts, m, sstats) {
    const K = this.K
    let gamma = new Array(K).fill(1)
    const etheta = () => { const s = digamma(gamma.reduce((a, b) => a + b, 0)); return gamma.map((g) => Math.exp(digamma(g) - s)) }
    let et = etheta()
    const phi = Array.from({ length: m }, () => new Array(K).fill(0))
    const computePhi = () => {
      for (let j = 0; j < m; j++) {
        let norm = 1e-100
        for (let k = 0; k < K; k++) { phi[j][k] = et[k] * this.eb[k][ids[j]]; norm += phi[j][k] }
        for (let k = 0; k < K; k++) phi[j][k] /= norm
      }
    }
    for (let it = 0; it < 100; it++) {
      computePhi()
      const next = new Array(K).fill(ALPHA)
      for (let j = 0; j < m; j++) for (let k = 0; k < K; k++) next[k] += cts[j] * phi[j][k]
      let change = 0
      for (let k = 0; k < K; k++) change += Math.abs(next[k] - gamma[k])
      gamma = next
      et = etheta()
      if (change / K < 0.001) break
    }
    computePhi()
    for (let j = 0; j < m; j++) for (let k = 0; k < K; k++) sstats[k][ids[j]] += cts[j] * phi[j][k]
  }
  update(sstats, rho, scale) {
    for (let k = 0; k < this.K; k++) for (let w = 0; w < this.V; w++) this.lambda[k][w] = (1 - rho) * this.lambda[k][w] + rho * (ETA + scale * sstats[k][w])
    this.refresh()
  }
  topics() {
    const phi = new Float64Array(this.K * this.V)
    for (let k = 0; k < this.K; k++) {
      const s = this.lambda[k].reduce((a, b) => a + b, 0)
      for (let w = 0; w < this.V; w++) phi[k * this.V + w] = this.lambda[k][w] / s
    }
    return phi
  }
}

const initLambda = (set, K, V) => {
  const rng = seeded(1)
  for (let k = 0; k < K; k++) for (let w = 0; w < V; w++) set(k, w, 0.5 + rng.next())
}

const passes = (train, step) => {
  const D = train.docStart.length - 1
  let t = 0
  const t0 = performance.now()
  for (let p = 0; p < PASSES; p++) for (let b = 0; b < D; b += S) step(b, Math.min(D, b + S), learningRate(TAU0, KAPPA, ++t), D / Math.min(S, D - b))
  return performance.now() - t0
}

const report = (label, K, tokens, ms, phi, data, base) => {
  const ppl = heldOutPerplexity(phi, K, data.testObserved, data.testHeldOut).right.perplexity
  const tps = tokens / (ms / 1000)
  let line = `${label.padEnd(34)} K=${String(K).padEnd(3)} ${(tps / 1e6).toFixed(2).padStart(5)} M tokens/pass/s  perplexity ${ppl.toFixed(0).padStart(5)}`
  if (base !== undefined) line += `  ×${(tps / base).toFixed(2)} vs straightforward`
  if (SKLEARN[K] !== undefined) line += `  ×${(tps / 1e6 / SKLEARN[K]).toFixed(2)} vs scikit-learn (${SKLEARN[K]} M, reference machine)`
  console.log(line)
  return tps
}

const data = loadDataset('brown', { vocabularyFrom: 'all-documents' }).right
const { train } = data
const V = train.vocab.length
const D = train.docStart.length - 1
const tokensPerPass = train.tokens.length
console.log(`Brown: D = ${D}, V = ${V}, ${tokensPerPass} tokens per pass; S = ${S}, τ0 = ${TAU0}, κ = ${KAPPA}, ${PASSES} passes`)
for (const K of quick ? [20] : [20, 50]) {
  // straightforward
  const sf = new Straightforward(K, V)
  initLambda((k, w, x) => { sf.lambda[k][w] = x }, K, V)
  sf.refresh()
  const sstats = Array.from({ length: K }, () => new Float64Array(V))
  const seen = new Int32Array(V)
  const bag = emptyBag(5000)
  const msSf = passes(train, (from, to, rho, scale) => {
    for (const row of sstats) row.fill(0)
    for (let d = from; d < to; d++) {
      bagOf(train.tokens, train.docStart[d], train.docStart[d + 1], bag, seen)
      sf.eStep(bag.words, bag.counts, bag.n, sstats)
    }
    sf.update(sstats, rho, scale)
  })
  const base = report('straightforward OVB (JS arrays)', K, tokensPerPass * PASSES, msSf, sf.topics(), data)
  // typed arrays
  const ovb = new OnlineLda(K, V, ALPHA, ETA)
  initLambda((k, w, x) => { ovb.lambda[w * K + k] = x }, K, V)
  ovb.refresh()
  const stats = new Float64Array(V * K)
  let eIterations = 0
  let pairs = 0
  const msOvb = passes(train, (from, to, rho, scale) => {
    stats.fill(0)
    ovb.beginBatch()
    for (let d = from; d < to; d++) {
      const it = ovb.eStep(bagOf(train.tokens, train.docStart[d], train.docStart[d + 1], bag, seen), stats)
      eIterations += it
      pairs += it * bag.n * K
    }
    ovb.update(ovb.endBatch(stats), rho, scale)
  })
  report('OnlineLda (typed arrays)', K, tokensPerPass * PASSES, msOvb, ovb.topics(), data, base)
  console.log(`${''.padEnd(34)}   E-step: ${(eIterations / (D * PASSES)).toFixed(1)} γ iterations per document, ${((msOvb * 1e6) / pairs).toFixed(2)} ns per (distinct word, topic, iteration) including the M-step`)
  // the private trainer: Poisson batches at ν = S/D, truncation N = 500, the paper's chain at ε = 1
  const iterations = Math.round((PASSES * D) / S)
  const config = { ...SVI_DEFAULTS, topics: K, iterations, batchSize: S, tau0: TAU0, kappa: KAPPA, sampling: 'poisson' }
  const t0 = performance.now()
  const fit = sviLda.fit(train, config, seeded(2))
  const ms = performance.now() - t0
  report('sviLda (ε = 1, chain noise, N = 500)', K, fit.right.tokensSampled, ms, fit.right.model.phi, data, base)
}
