// The DP-SGD plug-in of examples/ (examples/dp-sgd-logreg.mjs) at full size, and its audits with
// larger budgets than the unit test (test/examples/dp-sgd.test.ts) can spend:
//
//   npm run build && node bench/dp-sgd.bench.mjs [--seeds 3] [--canaries 5000] [--trials 4000]
//
//  1. Utility: the default configuration trained on SpamAssassin's training split (seeded runs: not
//     private releases, but distributed as secure ones), held-out accuracy against the majority
//     class, beside non-private SGD on the same Poisson lots (no clipping, no noise) in the same run;
//     the ε of the plan at δ = 1e-5 from the RDP and the PLD accountant; ms per step of each, and
//     their ratio (a shared 2-core VM: absolute times move, the ratio much less).
//  2. The one-run audit (Steinke, Nasr & Jagielski 2023; the generic `auditTrainerOneRun` through
//     examples/dp-sgd/one-run.mjs) of the plug-in and of the broken variant (clipping off) with
//     --canaries canaries, against the accounted ε of examples/dp-sgd/trainer-audit.json's game.
//  3. The generic many-run trainer audit of examples/dp-sgd/trainer-audit.json and
//     trainer-audit-broken.json (`auditTrainer`, Clopper–Pearson) with --trials runs each.
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { seeded } from 'dpaudit'
import { account } from 'dpaudit/accounting'
import { readFileSync } from 'node:fs'
import { auditTrainer, decodeTrainerAuditFile } from 'dpaudit/attacks'
import { loadDataset, planOf } from 'dpaudit/trainers'
import { trainer } from '../examples/dp-sgd-logreg.mjs'
import { trainer as broken } from '../examples/dp-sgd-logreg-broken.mjs'
import { oneRunAudit } from '../examples/dp-sgd/one-run.mjs'
import { accuracy, presenceRows, rowDot, sigmoid } from '../examples/dp-sgd/features.mjs'

const { values: args } = parseArgs({ options: { seeds: { type: 'string', default: '3' }, canaries: { type: 'string', default: '5000' }, trials: { type: 'string', default: '4000' } } })
const DELTA = 1e-5

/** Non-private SGD on Poisson lots at the same rate and step size: the utility and speed baseline. */
const plainSgd = (x, c, rng) => {
  const w = new Float64Array(x.columns)
  const g = new Float64Array(x.columns)
  const q = c.batchSize / x.rows
  const eta = c.learningRate / c.batchSize
  for (let t = 0; t < c.steps; t++) {
    g.fill(0)
    for (let d = 0; d < x.rows; d++) {
      if (rng.next() >= q) continue
      const r = sigmoid(rowDot(x, d, w)) - x.labels[d]
      for (let k = x.rowStart[d]; k < x.rowStart[d + 1]; k++) g[x.cols[k]] += r * x.values[k]
    }
    for (let j = 0; j < w.length; j++) w[j] -= eta * g[j]
  }
  return w
}

const ds = loadDataset('spam')
if (ds._tag === 'Left') throw new Error(ds.left.message)
const { train, test } = ds.right
const xTrain = presenceRows(train)
const xTest = presenceRows(test)
const c = trainer.defaults
const n = xTrain.rows
const plan = planOf(trainer, c, { documents: n })
const acc = account({ schemaVersion: 1, relation: trainer.accountingRelation, event: plan.right }, { deltas: [DELTA], accountants: ['rdp', 'pld'] }).right
console.log(`1. SpamAssassin: ${n} training e-mails, ${xTest.rows} held out, V = ${xTrain.columns}; T = ${c.steps}, B = ${c.batchSize} (q = ${(c.batchSize / n).toFixed(4)}), σ = ${c.noiseMultiplier}, C = ${c.clip}, η = ${c.learningRate}`)
for (const r of acc.results) console.log(`   ε(δ = 1e-5), ${r.accountant}: ${r.ok ? r.answers[0].epsilon.toFixed(3) : r.message}`)
for (let s = 1; s <= Number(args.seeds); s++) {
  let t0 = performance.now()
  const fit = trainer.fit(train, c, seeded(`dp-sgd-bench-${s}`))
  const dpMs = (performance.now() - t0) / c.steps
  t0 = performance.now()
  const w = plainSgd(xTrain, c, seeded(`dp-sgd-bench-plain-${s}`))
  const plainMs = (performance.now() - t0) / c.steps
  const a = accuracy(xTest, fit.right.model.weights)
  const p = accuracy(xTest, w)
  console.log(
    `   seed ${s}: held-out accuracy DP-SGD ${a.accuracy.toFixed(4)}, non-private SGD ${p.accuracy.toFixed(4)}, majority class ${a.majority.toFixed(4)}; ms/step DP-SGD ${dpMs.toFixed(2)}, SGD ${plainMs.toFixed(2)} (ratio ${(dpMs / plainMs).toFixed(2)})`,
  )
}

console.log(`2. one run on examples/dp-sgd/trainer-audit.json's game, ${args.canaries} canaries`)
for (const t of [trainer, broken]) {
  const t0 = performance.now()
  const r = oneRunAudit({ trainer: t, canaries: Number(args.canaries) })
  console.log(`   one run, ${t.name}: ε_LB = ${r.epsilonLowerBound.toFixed(3)} (${r.correct}/${r.guesses} correct; ${((performance.now() - t0) / 1000).toFixed(1)} s) against the accounted ε = ${r.claim.epsilon.toFixed(3)}: ${r.verdict}`)
}
console.log(`3. the trainer audit of examples/dp-sgd/trainer-audit*.json, ${args.trials} runs each`)
for (const [file, t] of [['trainer-audit.json', trainer], ['trainer-audit-broken.json', broken]]) {
  const f = decodeTrainerAuditFile(JSON.parse(readFileSync(new URL(`../examples/dp-sgd/${file}`, import.meta.url), 'utf8')))
  if (f._tag === 'Left') throw new Error(f.left.message)
  const t0 = performance.now()
  const r = await auditTrainer({ ...f.right, trainer: t, runs: Number(args.trials) })
  if (r._tag === 'Left') throw new Error(r.left.message)
  console.log(`   ${t.name}: ε_LB = ${r.right.epsilonLowerBound.toFixed(3)} (test ${r.right.test?.name}), accounted ε = ${r.right.claim.epsilon.toFixed(3)}, verdict ${r.right.verdict} (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
}
