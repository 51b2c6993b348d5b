// RDP accountant: tightness and speed of the continuous order search against the grid, in one run.
// Build first (`npm run build`), then `node bench/rdp.bench.mjs` (also part of `npm run bench`).
//
// One "query" = a fresh fold of the event into an empty state + one ε(δ) query. For each workload:
// - grid: the accountant with `continuous: false` (the best order of DEFAULT_ORDERS, the method
//   before continuous orders), its ε, order and median ms;
// - continuous: the default accountant (grid bracket, then golden section over real α), its ε,
//   order and median ms;
// - optimum: an independent reference for the continuous optimum: the curve of the event on a
//   fine log-spaced grid (ratio 1.002 from α = 1.01 to 1024, plus the grid itself), then golden
//   section to 1e-12 around its best point. Reported: how far each method is above it.
// Targets: continuous within 0.1 % of the optimum on every workload (issue 10); ≤ 0.5 ms per query
// (issue 26). Pure per-leaf work is kept per process by value (src/accounting/rdp/kept.ts), so a
// repeated query reuses it: "ms" is that repeated query (the same event value asked again, as the
// bench always measured); "cold ms" the same query after forgetKept('parameters'), which empties
// every module-level table of the RDP accountant that depends on an event's parameters (leaf
// curves, sampled-Gaussian nodes and values, sampled-Laplace values, moments and reverse nodes,
// Zhu–Wang and WBK values, Pearson–Vajda terms, discrete-Gaussian memos, repeat-and-select
// envelopes) and keeps only the parameter-free log-binomial rows log C(n, ·) of the grid's integer
// orders: what a query on new parameters pays in a process that has answered one query before.
// Both are judged against 0.5 ms. "first ms" empties the log-binomial rows too (forgetKept('all'):
// what the first query of a process pays once the code is compiled), reported, not judged. Until
// 2026-11-28 "cold" also kept the sampled-Laplace reverse nodes, the Pearson–Vajda terms and the
// discrete-Gaussian memos (module Maps outside forgetKept), so it paid less than it said.
import { performance } from 'node:perf_hooks'
import { rdpEpsilonAtOrder } from '../dist/accounting/conversions.js'
import { DEFAULT_ORDERS, makeRdpAccountant, rdpCurveAtOrders } from '../dist/accounting/rdp/index.js'
import { goldenMin } from '../dist/core/numeric.js'
import { forgetKept } from '../dist/accounting/rdp/kept.js'
import * as ev from '../dist/mechanisms/event.js'
import { addRemove, replaceOne } from '../dist/mechanisms/neighbouring.js'

const WARMUP = 30
const REPS = 100
const AR = addRemove('record')
const RO = replaceOne('record')

const WORKLOADS = [
  ['PoissonSample(0.01, Gaussian σ=1.1) × 100', AR, ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 100), 1e-5],
  ['PoissonSample(0.01, Gaussian σ=1.1) × 1,000', AR, ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 1000), 1e-5],
  ['PoissonSample(0.01, Gaussian σ=1.1) × 10,000', AR, ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 10000), 1e-5],
  ['DP-SGD MNIST: PoissonSample(256/60000, σ=1.1) × 14,063', AR, ev.selfCompose(ev.poissonSample(256 / 60000, ev.gaussian(1.1, 1, AR)), 14063), 1e-5],
  ['PoissonSample(0.001, Gaussian σ=0.8) × 10,000', AR, ev.selfCompose(ev.poissonSample(0.001, ev.gaussian(0.8, 1, AR)), 10000), 1e-6],
  ['PoissonSample(0.5, Gaussian σ=2) × 1,000', AR, ev.selfCompose(ev.poissonSample(0.5, ev.gaussian(2, 1, AR)), 1000), 1e-5],
  ['PoissonSample(0.01, Laplace b=1) × 100', AR, ev.selfCompose(ev.poissonSample(0.01, ev.laplace(1, 1, AR)), 100), 1e-5],
  ['PoissonSample(0.01, Laplace b=5) × 10 (optimum near α = 1000)', AR, ev.selfCompose(ev.poissonSample(0.01, ev.laplace(5, 1, AR)), 10), 1e-6],
  ['PoissonSample(0.05, RR ε=2) × 500', AR, ev.selfCompose(ev.poissonSample(0.05, ev.randomizedResponse(2, 2, AR)), 500), 1e-6],
  ['SampleWithoutReplacement(100 of 400,000, Gaussian σ=2) × 1,600', RO, ev.selfCompose(ev.sampleWithoutReplacement(100, 400000, ev.gaussian(2, 1, RO)), 1600), 1e-5],
  ['Gaussian σ=5 × 10', AR, ev.selfCompose(ev.gaussian(5, 1, AR), 10), 1e-5],
  ['Gaussian σ=0.5 × 100 (optimum near α = 1)', AR, ev.selfCompose(ev.gaussian(0.5, 1, AR), 100), 1e-5],
  ['Gaussian σ=3 × 50 + Laplace b=10 × 20', AR, ev.compose([ev.selfCompose(ev.gaussian(3, 1, AR), 50), ev.selfCompose(ev.laplace(10, 1, AR), 20)]), 1e-6],
  ['zCDP ρ=0.01 × 30 + discrete Gaussian σ=4 × 10', AR, ev.compose([ev.selfCompose(ev.zcdp(0.01, AR), 30), ev.selfCompose(ev.discreteGaussian(4, 1, AR), 10)]), 1e-7],
]

const run = (acct, event, delta) => {
  const s = acct.compose(event)(acct.empty)
  if (s._tag === 'Left') throw new Error(JSON.stringify(s.left))
  const a = acct.epsilon(delta)(s.right)
  if (a._tag === 'Left') throw new Error(JSON.stringify(a.left))
  return a.right
}

/** Median ms of REPS queries; `forget`: undefined (repeated), 'parameters' (cold) or 'all' (first). */
const time = (acct, event, delta, forget = undefined) => {
  for (let i = 0; i < WARMUP; i++) run(acct, event, delta)
  const times = []
  for (let i = 0; i < REPS; i++) {
    if (forget !== undefined) forgetKept(forget)
    const t = performance.now()
    run(acct, event, delta)
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return times[REPS >> 1]
}

/** The continuous optimum by a fine scan and golden section (independent of the accountant's search). */
const optimum = (event, relation, delta) => {
  const fine = []
  for (let a = 1.01; a <= 1024; a *= 1.002) fine.push(a)
  const orders = [...new Set([...fine, ...DEFAULT_ORDERS])].sort((x, y) => x - y)
  const curve = rdpCurveAtOrders(event, relation, orders)
  if (curve._tag === 'Left') throw new Error(JSON.stringify(curve.left))
  let best = 0
  const vals = orders.map((a, i) => rdpEpsilonAtOrder(a, curve.right[i], delta))
  vals.forEach((v, i) => {
    if (v < vals[best]) best = i
  })
  const at = (a) => {
    const c = rdpCurveAtOrders(event, relation, [a])
    return c._tag === 'Left' ? Infinity : rdpEpsilonAtOrder(a, c.right[0], delta)
  }
  const lo = orders[Math.max(0, best - 1)]
  const hi = orders[Math.min(orders.length - 1, best + 1)]
  const g = goldenMin(at, lo, hi, 1e-12, 200)
  return Math.min(g.value, vals[best])
}

// Issue 26's events, reported in the same run (their own table, so the targets above stay on the
// workloads they were set for).
const EVENTS_26 = [
  ['(ξ, ρ)-zCDP ρ=0.01, ξ=0.05 × 30', AR, ev.selfCompose(ev.zcdp(0.01, AR, { xi: 0.05 }), 30), 1e-6],
  ['TreeAggregation σ=8.83, 1,600 steps × 5 restarts', AR, ev.selfCompose(ev.treeAggregation(8.83, 1, [1600], AR), 5), 1e-6],
  ['StatedRdp (Gaussian σ=2 at 8 orders) × 100', AR, ev.selfCompose(ev.statedRdp([1.5, 2, 4, 8, 16, 32, 64, 128], [1.5, 2, 4, 8, 16, 32, 64, 128].map((a) => a / 8), AR), 100), 1e-6],
  ['RepeatAndSelect(PoissonSample(0.01, σ=1.1) × 1,000), geometric, mean 10', AR, ev.repeatAndSelect(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 1000), 10, 1), 1e-6],
  ['RepeatAndSelect(PoissonSample(0.01, σ=1.1) × 1,000), Poisson, mean 10', AR, ev.repeatAndSelect(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1.1, 1, AR)), 1000), 10, Infinity), 1e-6],
]

console.log(`RDP accountant: grid (${DEFAULT_ORDERS.length} orders) vs continuous order search — median of ${REPS} queries after ${WARMUP} warm-up`)
const measure = (workloads) => {
const rows = []
let worstGap = 0
let worstMs = 0
let worstCold = 0
let worstFirst = 0
// Every workload is timed before any reference optimum is computed: the fine scan evaluates ~3,800
// orders up to 1024 and leaves megabytes to collect, which the timings that followed it paid for
// (a scavenge or a concurrent mark during a cold loop). And every workload's code is compiled
// before any is timed ("cold" is the query once the code is compiled, see above): on a loaded
// machine the optimising compiler's thread lags, and the first workload timed paid for it.
for (const [, relation, event, delta] of workloads) {
  const acct = makeRdpAccountant({ relation })
  for (let i = 0; i < WARMUP; i++) {
    forgetKept('all')
    run(acct, event, delta)
  }
}
const timed = workloads.map(([name, relation, event, delta]) => {
  const grid = makeRdpAccountant({ relation, continuous: false })
  const cont = makeRdpAccountant({ relation })
  const g = run(grid, event, delta)
  const c = run(cont, event, delta)
  return {
    name,
    relation,
    event,
    delta,
    g,
    c,
    gMs: time(grid, event, delta),
    cMs: time(cont, event, delta),
    coldMs: time(cont, event, delta, 'parameters'),
    firstMs: time(cont, event, delta, 'all'),
  }
})
for (const { name, relation, event, delta, g, c, gMs, cMs, coldMs, firstMs } of timed) {
  const opt = optimum(event, relation, delta)
  const gap = (x) => (opt > 0 ? (100 * (x - opt)) / opt : 0)
  worstGap = Math.max(worstGap, gap(c.epsilon))
  worstMs = Math.max(worstMs, cMs)
  worstCold = Math.max(worstCold, coldMs)
  worstFirst = Math.max(worstFirst, firstMs)
  rows.push({
    workload: name,
    δ: delta,
    'grid ε': g.epsilon.toFixed(5),
    'grid α': g.order === undefined ? 'pure' : Number(g.order.toPrecision(5)),
    'grid % over opt': gap(g.epsilon).toFixed(3),
    'grid ms': gMs.toFixed(3),
    'cont ε': c.epsilon.toFixed(5),
    'cont α': c.order === undefined ? 'pure' : Number(c.order.toPrecision(5)),
    'cont % over opt': gap(c.epsilon).toFixed(4),
    'cont ms': cMs.toFixed(3),
    'cold ms': coldMs.toFixed(3),
    'first ms': firstMs.toFixed(3),
    'optimum ε': opt.toFixed(5),
  })
}
console.table(rows)
return { worstGap, worstMs, worstCold, worstFirst }
}
const speedLine = (label, worstMs, worstCold, worstFirst) =>
  `${label}: ≤ 0.5 ms per query (issue 26): repeated query ${worstMs <= 0.5 ? 'met' : 'NOT met'} (worst median ${worstMs.toFixed(3)} ms); ` +
  `cold, only the log-binomial rows kept ${worstCold <= 0.5 ? 'met' : 'NOT met'} (worst median ${worstCold.toFixed(3)} ms); ` +
  `first query, nothing kept (not judged): worst median ${worstFirst.toFixed(3)} ms`
{
  const { worstGap, worstMs, worstCold, worstFirst } = measure(WORKLOADS)
  console.log(`target: within 0.1 % of the continuous optimum: ${worstGap <= 0.1 ? 'met' : 'NOT met'} (worst ${worstGap.toFixed(4)} %)`)
  console.log(`target ${speedLine('continuous', worstMs, worstCold, worstFirst)}`)
}
console.log('\nIssue 26 events, same run')
{
  const { worstGap, worstMs, worstCold, worstFirst } = measure(EVENTS_26)
  console.log(`issue 26 events: worst ${worstGap.toFixed(4)} % over the fine-grid optimum`)
  console.log(`target ${speedLine('issue 26 events', worstMs, worstCold, worstFirst)}`)
}

// The specialised subsampling bounds (issue 10, items 2–3) beside the general ones they replace, in
// the same run: wrapping the base leaf in a one-element Compose hides it from the specialised paths,
// so the accountant falls back to the general theorem (Zhu–Wang 2019 Thm 6 for Poisson,
// Wang–Balle–Kasiviswanathan 2019 Thm 9 without replacement). Both columns use continuous orders.
console.log('\nSpecialised subsampling bounds vs the general bounds they replace (continuous orders, same run)')
const SPECIALISED = [
  ['PoissonSample(0.01, Laplace b=1) × 100', AR, (w) => ev.selfCompose(ev.poissonSample(0.01, w(ev.laplace(1, 1, AR))), 100), 1e-5, 'tight sampled Laplace', 'Zhu–Wang Thm 6'],
  ['PoissonSample(0.1, Laplace b=0.5) × 200', AR, (w) => ev.selfCompose(ev.poissonSample(0.1, w(ev.laplace(0.5, 1, AR))), 200), 1e-6, 'tight sampled Laplace', 'Zhu–Wang Thm 6'],
  ['PoissonSample(0.001, Laplace b=0.2) × 10,000', AR, (w) => ev.selfCompose(ev.poissonSample(0.001, w(ev.laplace(0.2, 1, AR))), 10000), 1e-6, 'tight sampled Laplace', 'Zhu–Wang Thm 6'],
  ['PoissonSample(0.01, discrete Gaussian σ=1) × 1,000', AR, (w) => ev.selfCompose(ev.poissonSample(0.01, w(ev.discreteGaussian(1, 1, AR))), 1000), 1e-5, 'tight sampled discrete Gaussian', 'Zhu–Wang Thm 6'],
  ['PoissonSample(0.05, discrete Gaussian σ=4) × 200', AR, (w) => ev.selfCompose(ev.poissonSample(0.05, w(ev.discreteGaussian(4, 1, AR))), 200), 1e-6, 'tight sampled discrete Gaussian', 'Zhu–Wang Thm 6'],
  ['PoissonSample(0.001, discrete Gaussian σ=40) × 10,000', AR, (w) => ev.selfCompose(ev.poissonSample(0.001, w(ev.discreteGaussian(40, 1, AR))), 10000), 1e-6, 'tight sampled discrete Gaussian', 'Zhu–Wang Thm 6'],
  ['SampleWithoutReplacement(100 of 400,000, Gaussian σ=2) × 1,600', RO, (w) => ev.selfCompose(ev.sampleWithoutReplacement(100, 400000, w(ev.gaussian(2, 1, RO))), 1600), 1e-5, 'WBK Thm 27', 'WBK Thm 9'],
  ['SampleWithoutReplacement(50 of 1,000, Gaussian σ=5) × 500', RO, (w) => ev.selfCompose(ev.sampleWithoutReplacement(50, 1000, w(ev.gaussian(5, 1, RO))), 500), 1e-6, 'WBK Thm 27', 'WBK Thm 9'],
]
const specialisedRows = []
for (const [name, relation, build, delta, newName, oldName] of SPECIALISED) {
  const acct = makeRdpAccountant({ relation })
  const specialised = build((leaf) => leaf)
  const general = build((leaf) => ev.compose([leaf]))
  const s = run(acct, specialised, delta)
  const g = run(acct, general, delta)
  specialisedRows.push({
    workload: name,
    δ: delta,
    [`new ε`]: s.epsilon.toFixed(5),
    'new α': s.order === undefined ? 'pure' : Number(s.order.toPrecision(5)),
    'new ms': time(acct, specialised, delta).toFixed(3),
    'new method': newName,
    'old ε': g.epsilon.toFixed(5),
    'old ms': time(acct, general, delta).toFixed(3),
    'old method': oldName,
    'ε saved %': ((100 * (g.epsilon - s.epsilon)) / g.epsilon).toFixed(2),
  })
}
console.table(specialisedRows)

// Issue 26: truncated Poisson sampling (a cap on the batch), through the registry (the overflow term
// is added there), beside plain Poisson sampling of the same event, same run. "query" as above.
{
  const { ACCOUNTANTS } = await import('../dist/accounting/registry.js')
  const viaRegistry = (event, delta) => {
    const r = ACCOUNTANTS.rdp({ relation: AR }).run(event)
    if (r._tag === 'Left') throw new Error(JSON.stringify(r.left))
    const a = r.right.epsilon(delta)
    if (a._tag === 'Left') throw new Error(JSON.stringify(a.left))
    return a.right.epsilon
  }
  const med = (f) => {
    for (let i = 0; i < WARMUP; i++) f()
    const ts = []
    for (let i = 0; i < REPS; i++) {
      const t = performance.now()
      f()
      ts.push(performance.now() - t)
    }
    return ts.sort((a, b) => a - b)[REPS >> 1]
  }
  console.log('\nTruncated Poisson sampling (RDP accountant through the registry) vs plain Poisson, same run')
  const rows = []
  for (const [name, cap, n, q, sigma, k] of [
    ['DP-SGD-like: q 256/60000 cap 400 of 60,000, σ 1.1 × 14,063', 400, 60000, 256 / 60000, 1.1, 14063],
    ['q 0.01 cap 180 of 10,000, σ 1 × 100', 180, 10000, 0.01, 1, 100],
  ]) {
    const tr = ev.selfCompose(ev.truncatedPoissonSample(q, cap, n, ev.gaussian(sigma, 1, AR)), k)
    const pl = ev.selfCompose(ev.poissonSample(q, ev.gaussian(sigma, 1, AR)), k)
    rows.push({
      workload: name,
      'truncated ε': viaRegistry(tr, 1e-5).toFixed(5),
      'truncated ms': med(() => viaRegistry(tr, 1e-5)).toFixed(3),
      'plain ε': viaRegistry(pl, 1e-5).toFixed(5),
      'plain ms': med(() => viaRegistry(pl, 1e-5)).toFixed(3),
    })
  }
  console.table(rows)
  try {
    const { readFileSync } = await import('node:fs')
    console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`)
  } catch {}
}
