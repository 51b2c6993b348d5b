// The data behind the LP-LDA / OLP-LDA figures of Zhao et al., "Latent Dirichlet Allocation Model Training with
// Differential Privacy" (arXiv:2010.04391), on Brown, as JSON:
//   1. perplexity against ε (Fig. 6 and 8): LP-LDA and OLP-LDA, beside CDP-LDA at its label ε (the
//      paper's own comparison: Lap(1/ε) on the counts in the first iteration, ε as the paper labels
//      it; its accounted ε is ∞, claim cdp-lda.noise-labels) and HDP-LDA at the same accounted ε;
//   2. perplexity against the prior size (Fig. 9): OLP-LDA and the non-private O-LDA;
//   3. perplexity against the mini-batch size (Fig. 10): OLP-LDA with and without a prior, O-LDA.
// Run: `npm run build && node examples/lp-lda-figures.mjs` (a few minutes on 2 cores); writes
// examples/lp-lda-figures.json. Seeded (seed 1 for every run), so the file is reproducible; seeded
// runs are not private releases, but their perplexities have the distribution of secure runs.
//
// "The same ε": every trainer here is accounted under replace-one word (Zhao et al.'s relation), per
// document. LP-LDA and OLP-LDA at flip f cost ε = 2·ε_b = 2·ln((1 − f/2)/(f/2)) (two presence bits
// of one report), so f = 2/(1 + e^{ε/2}). HDP-LDA is given the same total ε: T = 2 iterations,
// each (ε_L + ε_I) = ε/2 with ε_L = ε_I = ε/4, ε_I = 2 ln(C/β + 1) → C = β(e^{ε/8} − 1), β = 1
// (a larger β, as Zhao et al. §VII-B do for HDP-LDA). Every ε printed is the accountant's on the
// trainer's plan (δ = 1e-5), not the target.
import { writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { seeded } from '../dist/core/rng.js'
import { loadDataset, heldOutPerplexity, privacyStatement, corpusStats, TRAINERS, lpLda, olpLda, selectDocuments, documentCount } from '../dist/trainers/index.js'
import { onlineLda, presenceDocuments } from '../dist/trainers/olp/online.js'
import { splitPrior } from '../dist/trainers/olp/olp-lda.js'
import { FastUniform } from '../dist/trainers/lda/random.js'

const K = 20
const ALPHA = 0.1
const BETA = 0.01
const LP_SWEEPS = 50
const OLP_SWEEPS = 30 // per mini-batch (and for D0)
const LAMBDA = 0.5 // §VII-D
const OMEGA = 0.4 // §VII-D
const DELTA = 1e-5

const data = loadDataset('brown').right
const train = data.train
const stats = corpusStats(train)
const perplexity = (phi) => heldOutPerplexity(phi, K, data.testObserved, data.testHeldOut).right.perplexity
const round = (x, d = 1) => Number(x.toFixed(d))
// ∞ written as "Infinity" (JSON has no ∞; src/core/json.ts ExtendedNumber reads it back)
const extended = (x) => (Number.isFinite(x) ? round(x, 6) : String(x))
const flipFor = (eps) => 2 / (1 + Math.exp(eps / 2))
const accounted = (trainer, cfg) => privacyStatement(trainer, cfg, stats, [DELTA]).right.guarantee[0].epsilon

const fit = (trainer, cfg) => {
  const t0 = performance.now()
  const r = trainer.fit(train, cfg, seeded(1), { logLikelihoodEvery: 0 })
  if (r._tag === 'Left') throw new Error(JSON.stringify(r.left))
  return { perplexity: round(perplexity(r.right.model.phi)), seconds: round((performance.now() - t0) / 1000, 2) }
}
const olpConfig = (patch) => ({ topics: K, iterations: OLP_SWEEPS, alpha: ALPHA, beta: BETA, flip: 0.5, prior: 0.2, batch: 50, lambda: LAMBDA, denoise: { omega: OMEGA }, ...patch })

/** O-LDA, non-private: the same public split and batches, on the TRUE presence documents (the f → 0 reference). */
const oLda = (prior, batch) => {
  const { prior: d0, stream } = splitPrior(train, prior)
  const M = documentCount(stream)
  const batches = []
  if (documentCount(d0) > 0) batches.push(presenceDocuments(d0))
  for (let from = 0; from < M; from += batch) batches.push(presenceDocuments(selectDocuments(stream, Array.from({ length: Math.min(batch, M - from) }, (_, i) => from + i))))
  const rng = seeded(1)
  const t0 = performance.now()
  const { phi } = onlineLda(batches, { topics: K, iterations: OLP_SWEEPS, alpha: ALPHA, beta: BETA, lambda: LAMBDA }, () => new FastUniform(rng))
  return { perplexity: round(perplexity(phi)), seconds: round((performance.now() - t0) / 1000, 2) }
}

const started = performance.now()
const out = {
  schemaVersion: 1,
  tool: 'examples/lp-lda-figures.mjs',
  corpus: { name: 'brown', documents: stats.documents, vocabulary: stats.vocabulary, tokens: stats.tokens, testDocuments: documentCount(data.testObserved) },
  settings: { topics: K, alpha: ALPHA, beta: BETA, lpSweeps: LP_SWEEPS, olpSweepsPerBatch: OLP_SWEEPS, lambda: LAMBDA, omega: OMEGA, delta: DELTA, seed: 1, perplexity: 'document completion (docs/trainers.md, Held-out perplexity)' },
  epsilonMatching: 'per document under replace-one word: LP/OLP-LDA 2·ln((1 − f/2)/(f/2)); HDP-LDA T = 2, ε_L = ε_I = ε/4 per iteration, β = 1, C = e^{ε/8} − 1',
}
out.cgs = fit(TRAINERS.cgs, { topics: K, iterations: LP_SWEEPS, alpha: ALPHA, beta: BETA })
console.error(`CGS ${out.cgs.perplexity}`)

// 1. perplexity against ε
out.againstEpsilon = []
for (const eps of [1, 2, 4, 6, 8]) {
  const flip = flipFor(eps)
  const lpCfg = { topics: K, iterations: LP_SWEEPS, alpha: ALPHA, beta: BETA, flip, shuffler: false }
  const olpCfg = olpConfig({ flip })
  // CDP-LDA as the paper runs it: the label ε is the Laplace scale's 1/b, the same Gibbs sweeps as LP-LDA
  const cdpCfg = { topics: K, iterations: LP_SWEEPS, alpha: ALPHA, beta: BETA, epsilon: eps }
  const hdpCfg = { topics: K, iterations: 2, alpha: ALPHA, beta: 1, epsilonL: eps / 4, clip: Math.expm1(eps / 8), noise: 'fresh' }
  const row = {
    epsilon: eps,
    flip: round(flip, 6),
    perBitEpsilon: round(eps / 2, 6),
    lpLda: { ...fit(lpLda, lpCfg), accountedEpsilon: extended(accounted(lpLda, lpCfg)) },
    olpLda: { ...fit(olpLda, olpCfg), accountedEpsilon: extended(accounted(olpLda, olpCfg)) },
    cdpLda: { ...fit(TRAINERS['cdp-lda'], cdpCfg), labelEpsilon: eps, accountedEpsilon: extended(accounted(TRAINERS['cdp-lda'], cdpCfg)), iterations: LP_SWEEPS },
    hdpLda: { ...fit(TRAINERS['hdp-lda'], hdpCfg), accountedEpsilon: extended(accounted(TRAINERS['hdp-lda'], hdpCfg)), clip: round(hdpCfg.clip, 6), iterations: 2, beta: 1 },
  }
  out.againstEpsilon.push(row)
  console.error(`ε = ${eps}: LP ${row.lpLda.perplexity}, OLP ${row.olpLda.perplexity}, CDP (label ε) ${row.cdpLda.perplexity}, HDP ${row.hdpLda.perplexity}`)
}

// 2. against the prior size (the paper's privacy level 3.0 read as its per-bit ε_b = 3: ε = 6 per document)
const FIG9_FLIP = flipFor(6)
out.againstPriorSize = { epsilon: 6, flip: round(FIG9_FLIP, 6), batch: 50, rows: [] }
for (const prior of [0, 0.05, 0.1, 0.2, 0.4]) {
  const row = { priorFraction: prior, priorDocuments: Math.floor(prior * stats.documents), olpLda: fit(olpLda, olpConfig({ flip: FIG9_FLIP, prior })), oLda: oLda(prior, 50) }
  out.againstPriorSize.rows.push(row)
  console.error(`prior ${prior}: OLP ${row.olpLda.perplexity}, O-LDA ${row.oLda.perplexity}`)
}

// 3. against the mini-batch size
out.againstBatchSize = { epsilon: 6, flip: round(FIG9_FLIP, 6), priorFraction: 0.2, rows: [] }
for (const batch of [20, 50, 100, 200]) {
  const row = {
    batch,
    olpLdaWithPrior: fit(olpLda, olpConfig({ flip: FIG9_FLIP, batch })),
    olpLdaWithoutPrior: fit(olpLda, olpConfig({ flip: FIG9_FLIP, batch, prior: 0 })),
    oLda: oLda(0.2, batch),
  }
  out.againstBatchSize.rows.push(row)
  console.error(`batch ${batch}: OLP ${row.olpLdaWithPrior.perplexity}, OLP no prior ${row.olpLdaWithoutPrior.perplexity}, O-LDA ${row.oLda.perplexity}`)
}
out.totalSeconds = round((performance.now() - started) / 1000, 1)
writeFileSync(new URL('./lp-lda-figures.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`)
console.error(`written examples/lp-lda-figures.json in ${out.totalSeconds} s`)
