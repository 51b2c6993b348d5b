// Fig. 4's setting of "An end-to-end Differentially Private Latent Dirichlet Allocation Using a Spectral
// Algorithm" (arXiv:1805.10341), on Brown: held-out perplexity of the private spectral trainer
// (configuration 1, the one with proved sensitivities) beside private SVI and HDP-LDA at the same
// composite (ε, δ), on ONE shared setting: Brown with V = 1,000 (loadDataset's vocabularySize), K = 10,
// the loader's train/test split and the document-completion perplexity of docs/trainers.md (Held-out
// perplexity). References: the unigram model, non-private CGS and the un-noised spectral algorithm.
//
// "The same ε" is one unit: replace one document, composite δ = 1e-6.
//   - spectral: its own relation (replace-one document); the epsilon is the accountant's composite on
//     the plan (the trainer calibrates the per-edge noise to it).
//   - private SVI: the without-replacement trainer (svi-lda-wor, fixed-size mini-batches), accounted
//     under replace-one document; J and S fixed, the noise multiplier z calibrated by the accountant
//     (calibrateMultiplier) to the target (ε, δ) for each J of a small grid. The accountant's ε on
//     the plan is printed.
//   - HDP-LDA: accounted per WORD under replace-one word (Zhao et al., "Latent Dirichlet Allocation Model Training with Differential Privacy"). A document is at most L_max
//     tokens, so replacing a document with one of the SAME length is L_max word replacements and pure
//     ε-DP gives L_max·ε_word (group privacy, Dwork & Roth 2014 Thm 2.2). HDP-LDA's plan is pure
//     (discrete Laplace + the exponential mechanism of the topic draws), so its document-level ε is
//     L_max times the SUM of its per-event ε (its pure composition). Documents of different lengths
//     are outside the word relation: HDP-LDA's statement holds with the document lengths public.
//     Setting: ε_word = ε / L_max; T iterations (a grid), ε_L = ε_I = ε_word/(2T) per iteration,
//     β = 1, C = β(e^{ε_I/2} − 1) (examples/lp-lda-figures.mjs's matching, generalised to T).
//
//   npm run build && node examples/spectral-brown-comparison.mjs [--epsilons 1,10,100,1000]
//        [--svi-iterations 10,50,200] [--hdp-iterations 2,10]
//        [--seeds 3] [--cgs-iterations 200] [--out examples/spectral-brown-comparison.json]
//
// Every run is seeded (repeatable) and therefore NOT a private release.
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { seeded } from '../dist/core/rng.js'
import { pureEpsilon } from '../dist/report/claims/evidence.js'
import { calibrateMultiplier } from '../dist/trainers/svi/accounting.js'
import { corpusStats, heldOutPerplexity, loadDataset, privacyStatement, spectralLdaTrainer, sviLdaWithoutReplacement, TRAINERS, planOf } from '../dist/trainers/index.js'
import { countDocuments } from '../dist/trainers/spectral/moments.js'
import { spectralLda } from '../dist/trainers/spectral/pipeline.js'
import { SPECTRAL_DEFAULTS } from '../dist/trainers/spectral/trainer.js'
import { SVI_DEFAULTS } from '../dist/trainers/svi/trainer.js'

const { values } = parseArgs({
  options: {
    epsilons: { type: 'string', default: '1,10,100,1000' },
    'svi-iterations': { type: 'string', default: '10,50,200' },
    'hdp-iterations': { type: 'string', default: '2,10' },
    seeds: { type: 'string', default: '3' },
    'cgs-iterations': { type: 'string', default: '200' },
    out: { type: 'string', default: 'examples/spectral-brown-comparison.json' },
  },
})
const EPSILONS = values.epsilons.split(',').map(Number)
const K = 10
const V = 1000
const DELTA = 1e-6
const ALPHA = 0.1 // α = α0/K with α0 = 1 for every trainer
const SVI = { S: 90, N: 500, tau0: 64, kappa: 0.7, eta: 0.01 }
const HDP_T = values['hdp-iterations'].split(',').map(Number)
const SVI_J = values['svi-iterations'].split(',').map(Number)
const SEEDS = Number(values.seeds)
const HDP_BETA = 1
const log = (s) => process.stderr.write(`${s}\n`)
const round = (x, d = 1) => (x === null || x === undefined ? null : Number(x.toFixed(d)))
const started = performance.now()

const data = loadDataset('brown', { vocabularySize: V }).right
const train = data.train
const stats = corpusStats(train)
const perplexity = (phi) => heldOutPerplexity(phi, K, data.testObserved, data.testHeldOut).right.perplexity
const accounted = (trainer, cfg) => {
  const st = privacyStatement(trainer, cfg, stats, [DELTA])
  if (st._tag === 'Left') return { epsilon: null, accountant: null, reason: st.left.message ?? JSON.stringify(st.left) }
  const g = st.right.guarantee[0]
  return { epsilon: g.epsilon, accountant: g.accountant }
}
/** One seeded fit: perplexity, or the reason nothing was released. */
const fit = (trainer, cfg, seed) => {
  const t0 = performance.now()
  const r = trainer.fit(train, cfg, seeded(seed), { logLikelihoodEvery: 0 })
  const seconds = round((performance.now() - t0) / 1000, 2)
  if (r._tag === 'Left') return { released: false, reason: r.left.message ?? JSON.stringify(r.left), perplexity: null, seconds }
  return { released: true, perplexity: round(perplexity(r.right.model.phi)), seconds }
}
log(`Brown V = ${V}: ${stats.documents} training documents, ${stats.tokens} tokens, L_max = ${stats.maxDocumentLength}; K = ${K}, δ = ${DELTA}`)

// ---------------------------------------------------------------------------------------------
// References (not private)
const unigram = (() => {
  const counts = new Float64Array(V).fill(0.01)
  for (const w of train.tokens) counts[w] += 1
  const z = counts.reduce((s, x) => s + x, 0)
  const phi = new Float64Array(K * V)
  for (let k = 0; k < K; k++) for (let v = 0; v < V; v++) phi[k * V + v] = counts[v] / z
  return round(perplexity(phi))
})()
const cgsIterations = Number(values['cgs-iterations'])
const cgs = fit(TRAINERS.cgs, { topics: K, iterations: cgsIterations, alpha: ALPHA, beta: 0.01 }, 1)
const unnoisedSpectral = round(perplexity(spectralLda(countDocuments(train).right, K, K * ALPHA, seeded(1).next).right.phi))
log(`references: unigram ${unigram}, CGS (${cgsIterations} sweeps) ${cgs.perplexity}, un-noised spectral ${unnoisedSpectral}`)

// ---------------------------------------------------------------------------------------------
// Private trainers at each composite ε. Each private setting is run with SEEDS seeds (the spread of
// one release is large); every setting of the SVI / HDP-LDA grid is calibrated to the same target, and
// the grid is reported whole (picking its best by test perplexity would be an oracle, non-private choice).
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length === 0 ? null : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2 }
const seeds = (trainer, cfg, tag) => {
  const runs = Array.from({ length: SEEDS }, (_, i) => fit(trainer, cfg, `${tag}-${i}`))
  const released = runs.filter((r) => r.released)
  return { released: released.length, of: runs.length, medianPerplexity: round(median(released.map((r) => r.perplexity))), runs }
}
const show = (r) => (r.released === 0 ? `no model (${r.runs[0].reason.slice(0, 70)})` : `${r.medianPerplexity}${r.released < r.of ? ` (${r.released}/${r.of} released)` : ''}`)
const rows = []
for (const eps of EPSILONS) {
  // spectral, configuration 1: the trainer calibrates its per-edge noise to the composite (ε, δ)
  const specCfg = { ...SPECTRAL_DEFAULTS, topics: K, alpha: ALPHA, beta: 0.1, configuration: '1', epsilon: eps, delta: DELTA, weights: {} }
  const spectral = { ...seeds(spectralLdaTrainer, specCfg, `brown-cmp-spectral-${eps}`), accounted: accounted(spectralLdaTrainer, specCfg) }
  log(`ε = ${eps}: spectral ${show(spectral)} [accounted ${spectral.accounted.epsilon?.toPrecision(4)}, ${spectral.accounted.accountant}]`)

  // private SVI (without replacement, replace-one document): for each J, z calibrated to (ε, δ)
  const svi = []
  for (const J of SVI_J) {
    const cal = calibrateMultiplier('without-replacement', {
      documents: stats.documents, batchSize: SVI.S, iterations: J, epsilonTotal: eps, deltaTotal: DELTA,
      chain: { deltaReading: 'total-over-J', deltaIteration: 1e-6 },
    })
    if (cal._tag === 'Left') { svi.push({ iterations: J, released: 0, of: 0, reason: cal.left.message ?? JSON.stringify(cal.left) }); log(`  SVI J = ${J}: no calibration (${svi.at(-1).reason.slice(0, 80)})`); continue }
    const sviCfg = { ...SVI_DEFAULTS, topics: K, alpha: ALPHA, beta: SVI.eta, iterations: J, batchSize: SVI.S, truncation: SVI.N, tau0: SVI.tau0, kappa: SVI.kappa, sampling: 'without-replacement', noise: 'multiplier', multiplier: cal.right.z, deltaTotal: DELTA }
    const r = { iterations: J, multiplier: cal.right.z, ...seeds(sviLdaWithoutReplacement, sviCfg, `brown-cmp-svi-${eps}-${J}`), accounted: accounted(sviLdaWithoutReplacement, sviCfg) }
    svi.push(r)
    log(`  SVI J = ${J}: ${show(r)} [z ${r.multiplier.toPrecision(3)}, accounted ${r.accounted.epsilon?.toPrecision(4)}, ${r.accounted.accountant}]`)
  }

  // HDP-LDA: per-word ε_word = ε / L_max split over T iterations, pure; document-level ε = L_max · (pure sum)
  // (1 − 1e-9): the plan's sound rounding of the draw sensitivity (hdp.ts) adds ~1e-11 relative
  const epsWord = (eps / stats.maxDocumentLength) * (1 - 1e-9)
  const hdp = []
  for (const T of HDP_T) {
    const perHalf = epsWord / (2 * T) // ε_L = ε_I = ε_word/(2T) per iteration
    const hdpCfg = { topics: K, iterations: T, alpha: ALPHA, beta: HDP_BETA, epsilonL: perHalf, clip: HDP_BETA * Math.expm1(perHalf / 2), noise: 'fresh' }
    const plan = planOf(TRAINERS['hdp-lda'], hdpCfg, stats)
    const pure = plan._tag === 'Right' ? pureEpsilon(plan.right, TRAINERS['hdp-lda'].accountingRelation) : plan
    const pureWord = pure._tag === 'Right' ? pure.right : null
    const r = {
      iterations: T,
      ...seeds(TRAINERS['hdp-lda'], hdpCfg, `brown-cmp-hdp-${eps}-${T}`),
      epsilonWord: epsWord,
      clip: hdpCfg.clip,
      accountedWord: accounted(TRAINERS['hdp-lda'], hdpCfg),
      pureWordSum: pureWord,
      documentEpsilon: pureWord === null ? null : pureWord * stats.maxDocumentLength,
    }
    hdp.push(r)
    log(`  HDP-LDA T = ${T}: ${show(r)} [ε_word ${epsWord.toPrecision(3)}, C ${r.clip.toPrecision(3)}, document ε ${r.documentEpsilon?.toPrecision(4)}]`)
  }
  rows.push({ epsilon: eps, spectral, svi, hdpLda: hdp })
}

writeFileSync(
  values.out,
  `${JSON.stringify(
    {
      command: `node examples/spectral-brown-comparison.mjs ${process.argv.slice(2).join(' ')}`.trim(),
      note: 'seeded runs: NOT private releases. One unit for every trainer: replace-one document, composite δ = 1e-6 (HDP-LDA: pure, by group privacy over L_max same-length word replacements)',
      corpus: { name: 'brown', vocabularySize: V, documents: stats.documents, tokens: stats.tokens, maxDocumentLength: stats.maxDocumentLength },
      settings: { topics: K, alpha: ALPHA, delta: DELTA, svi: { ...SVI, iterations: SVI_J }, hdpLda: { iterations: HDP_T, beta: HDP_BETA }, seeds: SEEDS, spectral: { configuration: '1', beta: 0.1 }, cgs: { iterations: cgsIterations, beta: 0.01 } },
      references: { unigram, cgs, unnoisedSpectral },
      rows,
      seconds: round((performance.now() - started) / 1000, 1),
    },
    null,
    1,
  )}\n`,
)
log(`written ${values.out} (${round((performance.now() - started) / 1000, 1)} s)`)
