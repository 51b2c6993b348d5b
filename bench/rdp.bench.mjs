// RDP accountant speed. Build first (`npm run build`), then `node bench/rdp.bench.mjs`.
//
// One "query" = a fresh fold of the event into an empty state + one ε(δ = 1e-5) query, on the
// default order grid. Workload: DP-SGD-like PoissonSample(q = 0.01, Gaussian σ = 1.1) self-composed
// T = 1,000 and 10,000 times (the exact sampled-Gaussian curve is computed once per fold, whatever T).
// Baseline in the same process: the plain Gaussian (closed form α/(2σ²)) self-composed T times,
// i.e. a curve of the same size with no subsampling work. Reported: the first (cold) call, which
// also fills the log-binomial tables, and the median over REPS calls after WARMUP calls.
import { performance } from 'node:perf_hooks'
import { DEFAULT_ORDERS, makeRdpAccountant } from '../dist/accounting/rdp/index.js'
import { gaussian, poissonSample, selfCompose } from '../dist/mechanisms/event.js'
import { addRemove } from '../dist/mechanisms/neighbouring.js'

const WARMUP = 100
const REPS = 200
const DELTA = 1e-5
const rel = addRemove('record')
const acct = makeRdpAccountant({ relation: rel })

const query = (event) => {
  const s = acct.compose(event)(acct.empty)
  if (s._tag === 'Left') throw new Error(JSON.stringify(s.left))
  const a = acct.epsilon(DELTA)(s.right)
  if (a._tag === 'Left') throw new Error(JSON.stringify(a.left))
  return a.right
}

const measure = (event) => {
  const t0 = performance.now()
  const first = query(event)
  const cold = performance.now() - t0
  for (let i = 0; i < WARMUP; i++) query(event)
  const times = []
  for (let i = 0; i < REPS; i++) {
    const t = performance.now()
    query(event)
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return { answer: first, cold, median: times[REPS >> 1], p90: times[Math.floor(REPS * 0.9)] }
}

console.log(`RDP accountant bench — default grid of ${DEFAULT_ORDERS.length} orders, δ = ${DELTA}, median of ${REPS} after ${WARMUP} warm-up`)
const rows = []
for (const T of [1_000, 10_000]) {
  const sampled = measure(selfCompose(poissonSample(0.01, gaussian(1.1, 1, rel)), T))
  const plain = measure(selfCompose(gaussian(1.1, 1, rel), T))
  rows.push({
    workload: `PoissonSample(0.01, Gaussian σ=1.1) × ${T}`,
    epsilon: sampled.answer.epsilon.toFixed(4),
    order: sampled.answer.order,
    'cold ms': sampled.cold.toFixed(2),
    'ms/query': sampled.median.toFixed(3),
    'p90 ms': sampled.p90.toFixed(3),
    'baseline ms/query': plain.median.toFixed(3),
    ratio: (sampled.median / plain.median).toFixed(1),
  })
}
console.table(rows)
const worst = Math.max(...rows.map((r) => Number(r['ms/query'])))
console.log(`target < 2 ms/query: ${worst < 2 ? 'met' : 'NOT met'} (worst median ${worst.toFixed(3)} ms)`)
