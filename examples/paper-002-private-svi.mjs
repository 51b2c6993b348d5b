// The private-SVI paper utility, Fig. 1 at a reduced but stated scale: held-out perplexity at
// ε_tot = 1, δ_tot = 1e-4 against the mini-batch size S, for the noise the paper's three budget chains
// prescribe (zCDP eq. 5–6, advanced, linear composition) and for the noise dpaudit's calibration finds
// for the same target. The paper states two trends (l. 476–480): smaller S gives lower perplexity, and
// the zCDP chain beats advanced and linear at every S; it prints no values.
//
// Reduced scale: Brown (the reference protocol of docs/trainers.md, D = 450 training documents, V = 5,000) instead of D = 400,000
// Wikipedia documents; K = 20; the same number of documents seen at every S (J·S = 4,500, ten passes,
// as the paper fixes 160,000 seen); Poisson sampling at S/D under add/remove one document; N = 500.
// The noise multiplier z = σ/Δ multiplies the sensitivity of the statistic Algorithm 1 noises (N/S).
// Seeded (seed 1): not private releases; their perplexities have the distribution of secure runs.
//
// Run: `npm run build && node examples/paper-002-private-svi.mjs` (several minutes on 2 cores); writes
// examples/paper-002-private-svi.json.
import { writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { seeded } from '../dist/core/rng.js'
import { loadDataset, heldOutPerplexity, corpusStats } from '../dist/trainers/index.js'
import { calibrateMultiplier } from '../dist/trainers/svi/accounting.js'
import { advancedChain, linearChain, zcdpChain } from '../dist/trainers/svi/chain.js'
import { SVI_DEFAULTS, sviLda } from '../dist/trainers/svi/trainer.js'

const K = 20
const EPS = 1
const DELTA = 1e-4
const SEEN = 4500
const BATCHES = [10, 20, 45, 90]
const round = (x, d = 1) => Number(x.toFixed(d))
const data = loadDataset('brown').right
const stats = corpusStats(data.train)
const D = stats.documents

const run = (S, z) => {
  const J = SEEN / S
  const cfg = { ...SVI_DEFAULTS, topics: K, alpha: 0.1, beta: 0.01, iterations: J, batchSize: S, truncation: 500, tau0: 64, kappa: 0.7, sampling: 'poisson', noise: 'multiplier', multiplier: z, deltaTotal: DELTA }
  const t0 = performance.now()
  const fit = sviLda.fit(data.train, cfg, seeded(1))
  if (fit._tag === 'Left') throw new Error(JSON.stringify(fit.left))
  const ppl = heldOutPerplexity(fit.right.model.phi, K, data.testObserved, data.testHeldOut).right.perplexity
  return { z: Number(z.toPrecision(6)), perplexity: round(ppl), seconds: round((performance.now() - t0) / 1000, 1) }
}

const started = performance.now()
const out = {
  schemaVersion: 1,
  tool: 'examples/paper-002-private-svi.mjs',
  corpus: { name: 'brown', documents: D, vocabulary: stats.vocabulary, tokens: stats.tokens },
  settings: { topics: K, epsilonTotal: EPS, deltaTotal: DELTA, documentsSeen: SEEN, truncation: 500, sampling: 'poisson, add/remove one document', deltaReading: 'δ′ = δ_tot/J', seed: 1 },
  nonPrivate: run(90, 1e-300),
  rows: [],
}
console.error(`no noise: ${out.nonPrivate.perplexity}`)
for (const S of BATCHES) {
  const J = SEEN / S
  const chain = { epsilonTotal: EPS, deltaTotal: DELTA, iterations: J, rate: S / D, deltaReading: 'total-over-J', deltaIteration: 1e-6 }
  const z = (r) => { if (r._tag === 'Left') throw new Error(JSON.stringify(r.left)); return r.right.z }
  const cal = calibrateMultiplier('poisson', { documents: D, batchSize: S, iterations: J, epsilonTotal: EPS, deltaTotal: DELTA, chain: { deltaReading: 'total-over-J', deltaIteration: 1e-6 } })
  const row = { batchSize: S, iterations: J, zcdp: run(S, z(zcdpChain(chain))), advanced: run(S, z(advancedChain(chain))), linear: run(S, z(linearChain(chain))), calibrated: run(S, z(cal)) }
  out.rows.push(row)
  console.error(`S = ${S}: zCDP ${row.zcdp.perplexity} (z ${row.zcdp.z}), advanced ${row.advanced.perplexity}, linear ${row.linear.perplexity}, calibrated ${row.calibrated.perplexity} (z ${row.calibrated.z})`)
}
out.totalSeconds = round((performance.now() - started) / 1000, 1)
writeFileSync(new URL('./paper-002-private-svi.json', import.meta.url), `${JSON.stringify(out, null, 1)}\n`)
console.error(`written examples/paper-002-private-svi.json in ${out.totalSeconds} s`)
