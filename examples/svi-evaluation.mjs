// Private SVI (paper 002) evaluated: held-out perplexity (LDA-EVAL.md §3, φ = normalised λ) against ε
//   1. on Brown (D = 450), Poisson sampling, noise calibrated by dpaudit to (ε, δ = 1e-5) per document
//      under add/remove; beside HDP-LDA at the same number ε (from examples/lp-lda-figures.json, which
//      accounts it per word under replace-one: the units differ, see docs/svi.md);
//   2. the paper's regime on a semi-synthetic corpus: D documents drawn by the LDA generative process
//      from K topics learned (non-private online VB) on SpamAssassin, streamed: document d is generated
//      on demand from its own seeded stream (seed·D + d), so the corpus is fixed but never held; held-out
//      perplexity and topic recovery (mean matched L1) against ε, δ = 1e-4 as the paper.
// Run: `npm run build && node examples/svi-evaluation.mjs [--streamed-documents D] [--streamed-iterations J]`
// (writes examples/svi-evaluation.json). Seeded runs: not private releases, but their outputs have the
// distribution of secure runs.
import { readFileSync, writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { seeded } from '../dist/core/rng.js'
import { WordStream, wordsFromRng } from '../dist/core/words.js'
import { loadDataset, heldOutPerplexity, corpusStats, fromDocuments, completionHalves, topicRecoveryError } from '../dist/trainers/index.js'
import { dirichlet, makeGaussian, poisson } from '../dist/trainers/lda/random.js'
import { ReleaseGate } from '../dist/trainers/release/gate.js'
import { calibrateMultiplier } from '../dist/trainers/svi/accounting.js'
import { gaussianVector, miniBatchRelease } from '../dist/trainers/svi/measurement.js'
import { bagOf, emptyBag, learningRate, OnlineLda } from '../dist/trainers/svi/ovb.js'
import { gammaVariate, truncate } from '../dist/trainers/svi/random.js'
import { SVI_DEFAULTS, SVI_LABEL, samplingRelation, statisticSensitivity, sviLda } from '../dist/trainers/svi/trainer.js'

const arg = (name, def) => { const i = process.argv.indexOf(name); return i < 0 ? def : Number(process.argv[i + 1]) }
const round = (x, d = 1) => Number(x.toFixed(d))
const started = performance.now()
const zFor = (sampling, setting) => {
  if (!Number.isFinite(setting.epsilonTotal)) return { z: 1e-300, epsilon: Infinity }
  const c = calibrateMultiplier(sampling, { ...setting, chain: { deltaReading: 'total-over-J', deltaIteration: 1e-6 } })
  if (c._tag === 'Left') throw new Error(JSON.stringify(c.left))
  return c.right
}
const EPSILONS = [Infinity, 8, 4, 2, 1, 0.5]

// 1. Brown
const K = 20
const brown = loadDataset('brown').right
const bStats = corpusStats(brown.train)
const B = { K, S: 90, J: 50, N: 500, tau0: 64, kappa: 0.7, alpha: 0.1, eta: 0.01, delta: 1e-5 }
const hdp = JSON.parse(readFileSync(new URL('./lp-lda-figures.json', import.meta.url), 'utf8'))
const hdpAt = (eps) => hdp.againstEpsilon.find((r) => r.epsilon === eps)?.hdpLda?.perplexity ?? null
const brownRows = []
for (const eps of process.argv.includes('--skip-brown') ? [] : EPSILONS) {
  const cal = zFor('poisson', { documents: bStats.documents, batchSize: B.S, iterations: B.J, epsilonTotal: eps, deltaTotal: B.delta })
  const cfg = { ...SVI_DEFAULTS, topics: K, alpha: B.alpha, beta: B.eta, iterations: B.J, batchSize: B.S, truncation: B.N, tau0: B.tau0, kappa: B.kappa, sampling: 'poisson', noise: 'multiplier', multiplier: cal.z, deltaTotal: B.delta }
  const t0 = performance.now()
  const fit = sviLda.fit(brown.train, cfg, seeded(1))
  if (fit._tag === 'Left') throw new Error(JSON.stringify(fit.left))
  const ppl = heldOutPerplexity(fit.right.model.phi, K, brown.testObserved, brown.testHeldOut).right.perplexity
  const row = { epsilon: eps, z: cal.z, sigma: cal.z * statisticSensitivity({ truncation: B.N, batchSize: B.S, sampling: 'poisson' }), perplexity: round(ppl), seconds: round((performance.now() - t0) / 1000, 1), hdpLdaPerplexityAtSameEpsilon: Number.isFinite(eps) ? hdpAt(eps) : null }
  brownRows.push(row)
  console.error(`Brown ε = ${eps}: z = ${cal.z.toPrecision(4)}, SVI ${row.perplexity}, HDP-LDA ${row.hdpLdaPerplexityAtSameEpsilon}`)
}

// 2. The paper's regime, streamed
const SK = 10
const spam = loadDataset('spam').right
const sStats = corpusStats(spam.train)
const V = sStats.vocabulary
const learn = new OnlineLda(SK, V, 0.1, 0.01)
{
  const w = new WordStream(wordsFromRng(seeded(7)))
  for (let i = 0; i < learn.lambda.length; i++) learn.lambda[i] = gammaVariate(w, 100) / 100
  learn.refresh()
  const stats = new Float64Array(V * SK), seen = new Int32Array(V), bag = emptyBag(sStats.maxDocumentLength)
  const Dspam = sStats.documents
  let t = 0
  for (let pass = 0; pass < 3; pass++)
    for (let b = 0; b < Dspam; b += 256) {
      const to = Math.min(Dspam, b + 256)
      stats.fill(0); learn.beginBatch()
      for (let d = b; d < to; d++) learn.eStep(bagOf(spam.train.tokens, spam.train.docStart[d], spam.train.docStart[d + 1], bag, seen), stats)
      learn.update(learn.endBatch(stats), learningRate(64, 0.7, ++t), Dspam / (to - b))
    }
}
const phiTrue = learn.topics()
const cdf = new Float64Array(SK * V)
for (let k = 0; k < SK; k++) { let s = 0; for (let v = 0; v < V; v++) cdf[k * V + v] = s += phiTrue[k * V + v] }
const GEN = { alpha: 0.1, meanLength: Math.round(sStats.tokens / sStats.documents) }
/** Document d of the stream `seed`: θ ~ Dir(α), N ~ Poisson(mean) (≥ 2), z ~ θ, w ~ φ_z; into out, returns its length. */
const generate = (seed, d, out) => {
  const rng = seeded(`${seed}:${d}`)
  const normal = makeGaussian(rng)
  const th = dirichlet(rng, new Float64Array(SK).fill(GEN.alpha), new Float64Array(SK), normal)
  const n = Math.min(out.length, Math.max(2, poisson(rng, GEN.meanLength)))
  for (let i = 0; i < n; i++) {
    let u = rng.next(), k = 0
    while (k < SK - 1 && u >= th[k]) u -= th[k++]
    const x = rng.next() * cdf[k * V + V - 1]
    let lo = 0, hi = V - 1
    while (lo < hi) { const mid = (lo + hi) >> 1; if (cdf[k * V + mid] > x) hi = mid; else lo = mid + 1 }
    out[i] = lo
  }
  return n
}
const TEST_DOCS = 1000
const testCorpus = fromDocuments(Array.from({ length: V }, (_, i) => `w${i}`), Array.from({ length: TEST_DOCS }, (_, d) => { const buf = new Int32Array(4 * GEN.meanLength + 50); return buf.slice(0, generate('test', d, buf)) }))
const halves = completionHalves(testCorpus)
const streamPpl = (phi) => heldOutPerplexity(phi, SK, halves.observed, halves.heldOut).right.perplexity
const P = { D: arg('--streamed-documents', 400_000), S: 400, N: 500, tau0: 64, kappa: 0.7, delta: 1e-4 }
P.J = arg('--streamed-iterations', Math.round(160_000 / P.S))

/** Private SVI on the stream: the trainer's measurement (Poisson coins at S/D, truncation, Gaussian on the (1/S) statistic), documents generated on demand. */
const streamedFit = (z, seed) => {
  const gate = new ReleaseGate(wordsFromRng(seeded(seed)))
  const ovb = new OnlineLda(SK, V, 0.1, 0.01)
  gate.independent((w) => { for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = gammaVariate(w, 100) / 100 })
  ovb.refresh()
  const maxLen = 4 * GEN.meanLength + 50
  const doc = new Int32Array(maxLen), kept = new Int32Array(P.N), scratch = new Int32Array(maxLen), seen = new Int32Array(V), bag = emptyBag(P.N)
  const stats = new Float64Array(V * SK)
  let tokens = 0
  const statistic = (batch, size, words) => {
    stats.fill(0); ovb.beginBatch()
    for (let b = 0; b < size; b++) {
      const n0 = generate('train', batch[b], doc)
      const n = truncate(words, doc, 0, n0, P.N, kept, scratch)
      tokens += n
      ovb.eStep(bagOf(kept, 0, n, bag, seen), stats)
    }
    ovb.endBatch(stats)
    for (let i = 0; i < stats.length; i++) stats[i] /= P.S
    return stats
  }
  const sigma = z * statisticSensitivity({ truncation: P.N, batchSize: P.S, sampling: 'poisson' })
  const release = miniBatchRelease(SVI_LABEL, 'poisson', P.S, P.D, gaussianVector(SVI_LABEL, sigma, statisticSensitivity({ truncation: P.N, batchSize: P.S, sampling: 'poisson' }), samplingRelation('poisson')), statistic)
  for (let t = 1; t <= P.J; t++) {
    const noisy = gate.release(release, undefined, `iteration ${t}`)
    for (let i = 0; i < noisy.length; i++) if (noisy[i] < 0) noisy[i] = 0
    ovb.update(noisy, learningRate(P.tau0, P.kappa, t), P.D)
  }
  return { phi: ovb.topics(), tokens }
}
const streamRows = []
const truthPpl = streamPpl(phiTrue)
console.error(`streamed: D = ${P.D}, S = ${P.S}, J = ${P.J}, K = ${SK}, V = ${V}; true φ perplexity ${truthPpl.toFixed(1)}`)
for (const eps of EPSILONS) {
  const cal = zFor('poisson', { documents: P.D, batchSize: P.S, iterations: P.J, epsilonTotal: eps, deltaTotal: P.delta })
  const t0 = performance.now()
  const { phi, tokens } = streamedFit(cal.z, 1)
  const rec = topicRecoveryError(phi, phiTrue, SK, V).right.meanL1
  const row = { epsilon: eps, z: cal.z, perplexity: round(streamPpl(phi)), recoveryL1: round(rec, 3), tokens, seconds: round((performance.now() - t0) / 1000, 1) }
  streamRows.push(row)
  console.error(`streamed ε = ${eps}: z = ${cal.z.toPrecision(4)}, perplexity ${row.perplexity}, recovery ${row.recoveryL1} (${row.seconds} s)`)
}

const outIdx = process.argv.indexOf('--out')
writeFileSync(outIdx < 0 ? new URL('./svi-evaluation.json', import.meta.url) : process.argv[outIdx + 1], JSON.stringify({
  schemaVersion: 1, tool: 'examples/svi-evaluation.mjs',
  brown: { documents: bStats.documents, vocabulary: bStats.vocabulary, settings: B, unigramPerplexity: 3769.8, sampling: 'poisson, add/remove one document', noise: 'z calibrated by dpaudit (tightest accountant) to (ε, δ) over the J-fold plan', hdpLda: 'examples/lp-lda-figures.json: K = 20, T = 2, β = 1, ε per word under replace-one (a different unit)', rows: brownRows },
  streamed: { spamVocabulary: V, topics: SK, generator: GEN, testDocuments: TEST_DOCS, settings: P, trueTopicsPerplexity: round(truthPpl), sampling: 'poisson, add/remove one document', rows: streamRows },
  totalSeconds: round((performance.now() - started) / 1000),
}, null, 1) + '\n')
