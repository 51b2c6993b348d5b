// Private SVI (the private-SVI paper) accounted three ways at the paper's settings (D = 400,000, J = 160,000/S,
// δ_tot = 1e-4): the noise multiplier z = σ/Δ the paper's zCDP chain, linear and advanced composition
// prescribe under each reading of δ′; dpaudit's tightest ε for that noise under Poisson sampling
// (add/remove document) and fixed-size batches without replacement (replace-one document, Δ = √2·N/S);
// and the z dpaudit's calibrate finds for (ε_tot, δ_tot) under each model.
//
//   npm run build && node examples/svi-accounting.mjs   (writes examples/svi-accounting.json; a few minutes)
import { writeFileSync } from 'node:fs'
import { accountingRows, calibrateMultiplier } from '../dist/trainers/svi/accounting.js'

const D = 400_000
const out = []
for (const deltaReading of ['total-over-J', 'per-iteration'])
  for (const epsilonTotal of [1, 0.5])
    for (const batchSize of [10, 20, 50, 100, 200, 400]) {
      const s = { documents: D, batchSize, iterations: 160_000 / batchSize, epsilonTotal, deltaTotal: 1e-4, chain: { deltaReading, deltaIteration: 1e-6 } }
      const rows = accountingRows(s)
      if (rows._tag === 'Left') { out.push({ ...s, error: rows.left }); continue }
      const cal = {}
      for (const sampling of ['poisson', 'without-replacement']) {
        if (deltaReading !== 'total-over-J') break // calibration does not depend on the reading of δ′
        const c = calibrateMultiplier(sampling, s)
        cal[sampling] = c._tag === 'Right' ? c.right : { error: c.left }
      }
      const row = { deltaReading, epsilonTotal, batchSize, iterations: s.iterations, chains: rows.right, calibrated: cal }
      out.push(row)
      const z = rows.right[0]
      console.log(`${deltaReading} ε_tot=${epsilonTotal} S=${batchSize}: chain z=${z.step.z.toFixed(4)} → ε poisson ${z.poisson.epsilon.toFixed(4)} (${z.poisson.accountant}), wor ${z.withoutReplacement.epsilon.toFixed(4)} (${z.withoutReplacement.accountant}); calibrated z poisson ${cal.poisson?.z?.toFixed(4)}, wor ${cal['without-replacement']?.z?.toFixed(4)}`)
    }
writeFileSync(new URL('./svi-accounting.json', import.meta.url), JSON.stringify({ generatedBy: 'examples/svi-accounting.mjs', D, deltaTotal: 1e-4, rows: out }, null, 1) + '\n')
