// Private SVI (the private-SVI paper) evaluated: held-out perplexity (the reference protocol of docs/trainers.md, φ = normalised λ) against ε
//   1. brown: Brown (D = 450), Poisson sampling, noise calibrated by dpaudit to (ε, δ = 1e-5) per document
//      under add/remove; beside HDP-LDA at the same number ε (from examples/lp-lda-figures.json, which
//      accounts it per word under replace-one: the units differ, see docs/svi.md);
//   2. spam: the same on SpamAssassin (V = 10,000, D = 5,434), S = ⌊D/5⌋ (J = 50 is 10 passes, as Brown),
//      beside HDP-LDA run here at the same number ε (Zhao et al.'s relation: replace one word);
//   3. streamed: the paper's regime on a semi-synthetic corpus: D documents drawn by the LDA generative
//      process from K topics learned (non-private online VB) on SpamAssassin, streamed: document d is
//      generated on demand from its own seeded stream (seed·D + d), so the corpus is fixed but never held;
//      held-out perplexity and topic recovery (mean matched L1) against ε, δ = 1e-4 as the paper. One
//      streamed configuration (J, N, projection C, noise reading) per invocation; runs are merged into the
//      JSON by configuration, so each table in docs/svi.md names the command that measured it.
// Run: `npm run build && node examples/svi-evaluation.mjs [--sections brown,spam,streamed]
//   [--epsilons inf,8,4,2,1,0.5] [--streamed-documents D] [--streamed-iterations J] [--streamed-batch S] [--streamed-truncation N]
//   [--clip-norm C] [--as-written] [--running-average] [--truncation N] [--seed s] [--out file]`
// (--clip-norm applies to the spam and streamed sections; --truncation to spam, --streamed-truncation to streamed)
// (updates examples/svi-evaluation.json). Seeded runs: not private releases, but their outputs have the
// distribution of secure runs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { seeded } from '../dist/core/rng.js'
import { WordStream, wordsFromRng } from '../dist/core/words.js'
import { loadDataset, heldOutPerplexity, corpusStats, fromDocuments, completionHalves, topicRecoveryError, TRAINERS, privacyStatement } from '../dist/trainers/index.js'
import { dirichlet, makeGaussian, poisson } from '../dist/trainers/lda/random.js'
import { ReleaseGate } from '../dist/mechanisms/gate.js'
import { accountedEpsilon, calibrateMultiplier } from '../dist/trainers/svi/accounting.js'
import { zcdpChain } from '../dist/trainers/svi/chain.js'
import { gaussianVector, miniBatchRelease } from '../dist/mechanisms/measurement.js'
import { bagOf, emptyBag, learningRate, OnlineLda } from '../dist/trainers/svi/ovb.js'
import { gammaVariate, truncate } from '../dist/trainers/svi/random.js'
import { BatchStatistic } from '../dist/trainers/svi/statistic.js'
import { SVI_DEFAULTS, SVI_LABEL, samplingRelation, statisticSensitivity, sviLda } from '../dist/trainers/svi/trainer.js'

const arg = (name, def) => { const i = process.argv.indexOf(name); return i < 0 ? def : Number(process.argv[i + 1]) }
const list = (name, def) => { const i = process.argv.indexOf(name); return i < 0 ? def : process.argv[i + 1].split(',') }
const round = (x, d = 1) => Number(x.toFixed(d))
const started = performance.now()
const zFor = (sampling, setting) => {
  if (!Number.isFinite(setting.epsilonTotal)) return { z: 1e-300, epsilon: Infinity }
  const c = calibrateMultiplier(sampling, { ...setting, chain: { deltaReading: 'total-over-J', deltaIteration: 1e-6 } })
  if (c._tag === 'Left') throw new Error(JSON.stringify(c.left))
  return c.right
}
const EPSILONS = list('--epsilons', ['inf', '8', '4', '2', '1', '0.5']).map((e) => (e === 'inf' ? Infinity : Number(e)))
const SECTIONS = list('--sections', ['brown', 'spam', 'streamed'])
const outIdx = process.argv.indexOf('--out')
const outFile = outIdx < 0 ? new URL('./svi-evaluation.json', import.meta.url) : process.argv[outIdx + 1]
const previous = existsSync(outFile) ? JSON.parse(readFileSync(outFile, 'utf8')) : {}
const command = `node examples/svi-evaluation.mjs ${process.argv.slice(2).join(' ')}`.trim()

/** Private SVI (the trainer itself) on a held corpus at each ε, z calibrated per (ε, δ) over the J-fold plan. */
const heldCorpusRows = (name, data, s) => {
  const stats = corpusStats(data.train)
  const rows = []
  for (const eps of EPSILONS) {
    const cal = zFor('poisson', { documents: stats.documents, batchSize: s.S, iterations: s.J, epsilonTotal: eps, deltaTotal: s.delta })
    const cfg = { ...SVI_DEFAULTS, topics: s.K, alpha: s.alpha, beta: s.eta, iterations: s.J, batchSize: s.S, truncation: s.N, tau0: s.tau0, kappa: s.kappa, sampling: 'poisson', noise: 'multiplier', multiplier: cal.z, deltaTotal: s.delta, ...(s.clipNorm == null ? {} : { clipNorm: s.clipNorm }) }
    const t0 = performance.now()
    const fit = sviLda.fit(data.train, cfg, seeded(1))
    if (fit._tag === 'Left') throw new Error(JSON.stringify(fit.left))
    const ppl = heldOutPerplexity(fit.right.model.phi, s.K, data.testObserved, data.testHeldOut).right.perplexity
    const row = { epsilon: eps, z: cal.z, sigma: cal.z * statisticSensitivity({ truncation: s.N, batchSize: s.S, sampling: 'poisson', ...(s.clipNorm == null ? {} : { clipNorm: s.clipNorm }) }), perplexity: round(ppl), seconds: round((performance.now() - t0) / 1000, 1) }
    rows.push(row)
    console.error(`${name} SVI ε = ${eps}: z = ${cal.z.toPrecision(4)}, perplexity ${row.perplexity} (${row.seconds} s)`)
  }
  return rows
}

// 1. Brown
const out = { schemaVersion: 1, tool: 'examples/svi-evaluation.mjs', brown: previous.brown ?? null, spam: previous.spam ?? null, spamVariants: previous.spamVariants ?? [], streamed: previous.streamed ?? null }
if (SECTIONS.includes('brown')) {
  const brown = loadDataset('brown').right
  const bStats = corpusStats(brown.train)
  const B = { K: 20, S: 90, J: 50, N: 500, tau0: 64, kappa: 0.7, alpha: 0.1, eta: 0.01, delta: 1e-5 }
  const hdp = JSON.parse(readFileSync(new URL('./lp-lda-figures.json', import.meta.url), 'utf8'))
  const hdpAt = (eps) => hdp.againstEpsilon.find((r) => r.epsilon === eps)?.hdpLda?.perplexity ?? null
  const rows = heldCorpusRows('Brown', brown, B).map((r) => ({ ...r, hdpLdaPerplexityAtSameEpsilon: Number.isFinite(r.epsilon) ? hdpAt(r.epsilon) : null }))
  out.brown = { command, documents: bStats.documents, vocabulary: bStats.vocabulary, settings: B, unigramPerplexity: 3769.8, sampling: 'poisson, add/remove one document', noise: 'z calibrated by dpaudit (tightest accountant) to (ε, δ) over the J-fold plan', hdpLda: 'examples/lp-lda-figures.json: K = 20, T = 2, β = 1, ε per word under replace-one (a different unit)', rows }
}

// 2. SpamAssassin, beside HDP-LDA at the same number ε (run here as examples/lp-lda-figures.mjs runs it on Brown)
const spam = SECTIONS.includes('spam') || SECTIONS.includes('streamed') ? loadDataset('spam').right : null
if (SECTIONS.includes('spam')) {
  const sStats = corpusStats(spam.train)
  const spamClip = process.argv.indexOf('--clip-norm')
  const P2 = { K: 20, S: Math.floor(sStats.documents / 5), J: 50, N: arg('--truncation', 500), tau0: 64, kappa: 0.7, alpha: 0.1, eta: 0.01, delta: 1e-5, clipNorm: spamClip < 0 ? null : Number(process.argv[spamClip + 1]) }
  const variant = P2.N !== 500 || P2.clipNorm !== null
  const rows = heldCorpusRows('Spam', spam, P2)
  for (const row of rows) {
    if (!Number.isFinite(row.epsilon) || variant) { row.hdpLda = null; continue }
    const eps = row.epsilon
    const cfg = { topics: P2.K, iterations: 2, alpha: P2.alpha, beta: 1, epsilonL: eps / 4, clip: Math.expm1(eps / 8), noise: 'fresh' }
    const t0 = performance.now()
    const fit = TRAINERS['hdp-lda'].fit(spam.train, cfg, seeded(1), { logLikelihoodEvery: 0 })
    if (fit._tag === 'Left') throw new Error(JSON.stringify(fit.left))
    const st = privacyStatement(TRAINERS['hdp-lda'], cfg, sStats, [P2.delta])
    if (st._tag === 'Left') throw new Error(JSON.stringify(st.left))
    row.hdpLda = {
      perplexity: round(heldOutPerplexity(fit.right.model.phi, P2.K, spam.testObserved, spam.testHeldOut).right.perplexity),
      accountedEpsilon: round(st.right.guarantee[0].epsilon, 6),
      seconds: round((performance.now() - t0) / 1000, 1),
    }
    console.error(`Spam HDP-LDA ε = ${eps}: perplexity ${row.hdpLda.perplexity} (accounted ${row.hdpLda.accountedEpsilon})`)
  }
  if (variant) {
    // --truncation / --clip-norm: a variant of the SVI runs (HDP-LDA is in the main spam section)
    const runs = new Map((previous.spamVariants ?? []).map((r) => [JSON.stringify([r.settings.N, r.settings.clipNorm]), r]))
    runs.set(JSON.stringify([P2.N, P2.clipNorm]), { command, settings: P2, rows })
    out.spamVariants = [...runs.values()]
  } else out.spam = {
    command, documents: sStats.documents, vocabulary: sStats.vocabulary, tokens: sStats.tokens, settings: P2, unigramPerplexity: 3297.3,
    sampling: 'SVI: poisson, add/remove one document (ε per whole document)',
    noise: 'z calibrated by dpaudit (tightest accountant) to (ε, δ) over the J-fold plan',
    hdpLda: 'K = 20, T = 2, ε_L = ε_I = ε/4 per iteration, β = 1, C = e^{ε/8} − 1 (as examples/lp-lda-figures.mjs), accounted per word under replace-one (a different unit), δ = 1e-5',
    rows,
  }
}

// 3. The paper's regime, streamed
if (SECTIONS.includes('streamed')) {
  const SK = 10
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
  const streamPpl = (phi, K = SK) => heldOutPerplexity(phi, K, halves.observed, halves.heldOut).right.perplexity
  // the true unigram: p(w) = Σ_k E[θ_k] φ_kw = the mean of the true topics (symmetric α), as a one-topic φ
  const unigram = new Float64Array(V)
  for (let k = 0; k < SK; k++) for (let v = 0; v < V; v++) unigram[v] += phiTrue[k * V + v] / SK
  const clipIdx = process.argv.indexOf('--clip-norm')
  const P = {
    D: arg('--streamed-documents', 400_000), S: arg('--streamed-batch', 400), N: arg('--streamed-truncation', 500), tau0: 64, kappa: 0.7, delta: 1e-4,
    clipNorm: clipIdx < 0 ? null : Number(process.argv[clipIdx + 1]),
    noise: process.argv.includes('--as-written') ? 'as-written' : 'calibrated',
    // zero-negatives: the paper's post-processing (negatives of each release to 0, then the M-step);
    // running-average: the M-step's average kept on the raw releases, λ = max(average, η) — also post-processing
    postProcessing: process.argv.includes('--running-average') ? 'running-average' : 'zero-negatives',
    seed: arg('--seed', 1),
  }
  P.J = arg('--streamed-iterations', Math.round(160_000 / P.S))
  const sens = statisticSensitivity({ truncation: P.N, batchSize: P.S, sampling: 'poisson', ...(P.clipNorm === null ? {} : { clipNorm: P.clipNorm }) })
  const setting = (eps) => ({ documents: P.D, batchSize: P.S, iterations: P.J, epsilonTotal: eps, deltaTotal: P.delta })

  /** Private SVI on the stream: the trainer's measurement (Poisson coins at S/D, truncation, optional projection, Gaussian on the (1/S) statistic), documents generated on demand. */
  const streamedFit = (sigma, seed) => {
    const gate = new ReleaseGate(wordsFromRng(seeded(seed)))
    const ovb = new OnlineLda(SK, V, 0.1, 0.01)
    gate.independent((w) => { for (let i = 0; i < ovb.lambda.length; i++) ovb.lambda[i] = gammaVariate(w, 100) / 100 })
    ovb.refresh()
    const maxLen = 4 * GEN.meanLength + 50
    const doc = new Int32Array(maxLen), kept = new Int32Array(P.N), scratch = new Int32Array(maxLen), seen = new Int32Array(V), bag = emptyBag(P.N)
    const bs = new BatchStatistic(ovb, P.clipNorm ?? undefined)
    let tokens = 0, visits = 0, projected = 0
    const statistic = (batch, size, words) => {
      bs.begin()
      for (let b = 0; b < size; b++) {
        const n0 = generate('train', batch[b], doc)
        const n = truncate(words, doc, 0, n0, P.N, kept, scratch)
        tokens += n
        bs.add(bagOf(kept, 0, n, bag, seen))
      }
      visits += size
      projected += bs.projected
      return bs.finish(P.S)
    }
    const release = miniBatchRelease(SVI_LABEL, 'poisson', P.S, P.D, gaussianVector(SVI_LABEL, sigma, sens, samplingRelation('poisson')), statistic)
    const average = P.postProcessing === 'running-average' ? Float64Array.from(ovb.lambda) : null
    for (let t = 1; t <= P.J; t++) {
      const noisy = gate.release(release, undefined, `iteration ${t}`)
      const rho = learningRate(P.tau0, P.kappa, t)
      if (average === null) {
        for (let i = 0; i < noisy.length; i++) if (noisy[i] < 0) noisy[i] = 0
        ovb.update(noisy, rho, P.D)
      } else {
        // the same M-step on the unclipped releases (the noise averages over ~1/ρ iterations before any clipping)
        for (let i = 0; i < average.length; i++) {
          average[i] = (1 - rho) * average[i] + rho * (0.01 + P.D * noisy[i])
          ovb.lambda[i] = average[i] > 0.01 ? average[i] : 0.01
        }
        ovb.refresh()
      }
    }
    return { phi: ovb.topics(), tokens, projectedFraction: visits === 0 ? 0 : projected / visits }
  }
  const truthPpl = streamPpl(phiTrue)
  console.error(`streamed: D = ${P.D}, S = ${P.S}, J = ${P.J}, N = ${P.N}, C = ${P.clipNorm}, noise ${P.noise}, ${P.postProcessing}, K = ${SK}, V = ${V}; true φ perplexity ${truthPpl.toFixed(1)}`)
  const rows = []
  for (const eps of EPSILONS) {
    let z, accounted
    if (!Number.isFinite(eps)) { z = 1e-300; accounted = Infinity }
    else if (P.noise === 'calibrated') { const cal = zFor('poisson', setting(eps)); z = cal.z; accounted = cal.epsilon }
    else {
      // Algorithm 1 as written: the chain's multiplier on eq. (4)'s N/D, σ = z_chain·r/D, on the (1/S) statistic of sensitivity r/S
      const ch = zcdpChain({ epsilonTotal: eps, deltaTotal: P.delta, iterations: P.J, rate: P.S / P.D, deltaReading: 'total-over-J', deltaIteration: 1e-6 })
      if (ch._tag === 'Left') throw new Error(JSON.stringify(ch.left))
      z = (ch.right.z * P.S) / P.D
      const a = accountedEpsilon('poisson', { ...setting(eps), chain: { deltaReading: 'total-over-J', deltaIteration: 1e-6 } }, z)
      accounted = a._tag === 'Right' ? a.right.epsilon : null
    }
    const t0 = performance.now()
    const { phi, tokens, projectedFraction } = streamedFit(z * sens, P.seed)
    const rec = topicRecoveryError(phi, phiTrue, SK, V).right.meanL1
    const row = { epsilon: eps, z, sigma: z * sens, accountedEpsilon: accounted, perplexity: round(streamPpl(phi)), recoveryL1: round(rec, 3), tokens, projectedFraction: round(projectedFraction, 4), seconds: round((performance.now() - t0) / 1000, 1) }
    rows.push(row)
    console.error(`streamed ε = ${eps}: z = ${z.toPrecision(4)}, σ = ${(z * sens).toPrecision(3)}, accounted ${accounted}, perplexity ${row.perplexity}, recovery ${row.recoveryL1}, projected ${row.projectedFraction} (${row.seconds} s)`)
  }
  const run = { command, settings: P, rows }
  const prev = previous.streamed?.runs ?? []
  const key = (r) => JSON.stringify([r.settings.D, r.settings.S, r.settings.J, r.settings.N, r.settings.clipNorm ?? null, r.settings.noise ?? 'calibrated', r.settings.postProcessing ?? 'zero-negatives', r.settings.seed ?? 1])
  const merged = new Map(prev.map((r) => [key(r), r]))
  // rows at other ε of the same configuration are kept
  const old = merged.get(key(run))
  // rows measured by several invocations of one configuration: every command is kept
  if (old !== undefined) run.commands = [...(old.commands ?? [old.command]), command]
  if (old !== undefined) run.rows = [...old.rows.filter((r) => !rows.some((n) => (n.epsilon ?? Infinity) === (r.epsilon ?? Infinity))), ...rows].sort((a, b) => (b.epsilon ?? Infinity) - (a.epsilon ?? Infinity))
  merged.set(key(run), run)
  // the paper's configuration (S = 400, J = 160,000/S, N = 500, no projection, calibrated noise, negatives to 0) is also
  // `settings`/`rows` (what src/report/claims/utility-checks.ts reads for the private-SVI paper's Fig. 1 claim)
  const isMain = (r) => r.settings.D === 400_000 && r.settings.S === 400 && r.settings.J === 400 && r.settings.N === 500 && (r.settings.clipNorm ?? null) === null && (r.settings.noise ?? 'calibrated') === 'calibrated' && (r.settings.postProcessing ?? 'zero-negatives') === 'zero-negatives' && (r.settings.seed ?? 1) === 1
  const main = [...merged.values()].find(isMain)
  out.streamed = {
    settings: main?.settings ?? previous.streamed?.settings ?? P,
    rows: main?.rows ?? previous.streamed?.rows ?? [],
    spamVocabulary: V, topics: SK, generator: GEN, testDocuments: TEST_DOCS, trueTopicsPerplexity: round(truthPpl), trueUnigramPerplexity: round(streamPpl(unigram, 1)), sampling: 'poisson, add/remove one document',
    noise: 'calibrated: z by dpaudit (tightest accountant) for (ε, δ) over the J-fold plan; as-written: the paper\'s chain z on eq. (4)\'s N/D (σ = z_chain·r/D), accounted by dpaudit',
    runs: [...merged.values()],
  }
}

out.totalSeconds = round((performance.now() - started) / 1000)
// JSON has no ∞: the no-noise rows carry epsilon null
writeFileSync(outFile, JSON.stringify(out, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 1) + '\n')
