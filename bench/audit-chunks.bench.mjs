// Per-chunk cost of the audit's worker pool, apart from selection and start-up (issue 23: the cost per
// chunk must not grow with W).
//
//   npm run build && node bench/audit-chunks.bench.mjs [--workers 1,2] [--chunk 4096] [--chunks 1000] [--reps 5]
//
// What it measures. K estimation chunks of C scalar-Laplace trials (zoo:laplace at ε = 1, a threshold
// attack on a 100-point grid), run through the audit's executor interface: the baseline is
// `inProcessExecutor`, the executor a 1-worker audit uses in this thread (runChunk on each task,
// each result handed to the caller), and each pooled run is a kept `createWorkerPool` of W threads
// given the same task list and the same result callback. So the baseline does exactly the pooled
// runs' work minus the pool: shipping tasks to threads, their answers back, and waiting. Before any
// timing every executor runs the whole task list once and its chunk counts are checked equal to the
// baseline's (same work, and every thread's JIT and imports warmed the same way); then --reps rounds
// run the executors interleaved (this thread, W₁, W₂, …, this thread, …) so load from other work
// hits them alike, and each keeps its fastest wall clock and its smallest CPU time (all threads of
// this process, process.cpuUsage).
//
// Prints, per W: the wall-clock speed-up over this thread, and the overhead per chunk in CPU time
// ((pool CPU − this thread's CPU) / K) and in wall time ((W × pool wall − this thread's wall) / K,
// meaningful only when W cores are free). The true overhead is ≥ 0; a negative figure can only be
// noise, and is printed as such beside this run's noise (how far apart this thread's two best reps
// are, per chunk). About 15 s on 2 cores when quiet. On a loaded machine trust the CPU column.
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { createWorkerPool, hashSeed, inProcessExecutor, zooEntry } from '../dist/attacks/index.js'

const { values } = parseArgs({ options: { workers: { type: 'string', default: '1,2' }, chunk: { type: 'string', default: '4096' }, chunks: { type: 'string', default: '1000' }, reps: { type: 'string', default: '5' } } })
const WORKERS = values.workers.split(',').map(Number)
const C = Number(values.chunk)
const K = Number(values.chunks)
const REPS = Number(values.reps)
if (![...WORKERS, C, K, REPS].every((x) => Number.isInteger(x) && x >= 1)) {
  console.error('audit-chunks.bench: --workers, --chunk, --chunks and --reps take positive integers')
  process.exit(2)
}
const laplace = zooEntry('laplace')
const ref = { _tag: 'ZooRef', name: 'laplace', claim: { epsilon: 1, delta: 0 } }
const pairs = laplace.pairs()
const seed = hashSeed('bench')
const grid = Array.from({ length: 100 }, (_, i) => -5 + i / 10)
const attack = { shape: { kind: 'number', dim: 1 }, model: { family: 'threshold' }, orientation: 1, threshold: 0 }
const tasks = Array.from({ length: K }, (_, k) => ({ id: k, phase: 'estimate', pair: 0, side: 0, start: k * C, end: (k + 1) * C, seed, attack, grid }))

const executors = [{ label: 'this thread', w: 1, ex: inProcessExecutor(laplace.make(ref.claim), pairs) }]
for (const w of WORKERS) {
  const pool = createWorkerPool(ref, pairs, w)
  if (pool._tag === 'Left') throw new Error(pool.left.message)
  executors.push({ label: `W=${w}`, w, ex: pool.right })
}

/** Runs every task on `ex`, the same callback for all executors: the chunk counts by id. */
const runAll = (ex) => {
  const counts = new Array(K)
  const err = ex.run(tasks, (r) => (counts[r.id] = r.counts))
  if (err !== null) throw new Error(err)
  if (counts.filter((c) => c !== undefined).length !== K) throw new Error(`not all ${K} chunks answered`)
  return counts
}
const timed = (f) => {
  const c = process.cpuUsage()
  const t = performance.now()
  f()
  const d = process.cpuUsage(c)
  return { cpu: (d.user + d.system) / 1e3, wall: performance.now() - t }
}

console.log(`audit pool per-chunk cost — ${K} chunks of ${C} trials, best of ${REPS} interleaved reps, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
// Warm-up and same-work check: one full pass each, counts compared with this thread's.
const reference = runAll(executors[0].ex)
for (const e of executors.slice(1)) {
  const got = runAll(e.ex)
  for (let k = 0; k < K; k++) if (got[k].length !== reference[k].length || got[k].some((x, j) => x !== reference[k][j])) throw new Error(`${e.label}: chunk ${k} counts differ from this thread's`)
}
console.log(`same work: every executor's ${K} chunk counts equal this thread's ✓`)

const runs = executors.map(() => [])
for (let r = 0; r < REPS; r++) executors.forEach((e, i) => runs[i].push(timed(() => runAll(e.ex))))
for (const e of executors.slice(1)) e.ex.close()
const best = runs.map((xs) => ({ cpu: Math.min(...xs.map((x) => x.cpu)), wall: Math.min(...xs.map((x) => x.wall)) }))
const here = best[0]
/** This run's noise per chunk: how far apart this thread's two best reps are (CPU or wall). */
const spread = (key) => {
  const xs = runs[0].map((x) => x[key]).sort((a, b) => a - b)
  return ((xs[Math.min(1, REPS - 1)] - xs[0]) / K) * 1000
}
const noise = { cpu: spread('cpu'), wall: spread('wall') }
/** An overhead per chunk; below zero it can only be noise (the baseline does the same work), and says so. */
const overhead = (ms, key) => {
  const us = (ms / K) * 1000
  const spreadText = REPS === 1 ? 'run --reps 2 or more to see its size' : `this run's noise ±${noise[key].toFixed(0)} µs`
  return us >= 0 ? `${us.toFixed(0)} µs` : `< 0 (${us.toFixed(0)} µs: noise, not a cost; ${spreadText})`
}
console.log(`this thread: ${here.wall.toFixed(0)} ms wall, ${here.cpu.toFixed(0)} ms CPU (noise: its two best reps differ by ${noise.cpu.toFixed(0)} µs CPU, ${noise.wall.toFixed(0)} µs wall per chunk)`)
executors.forEach((e, i) => {
  if (i === 0) return
  const r = best[i]
  console.log(`${e.label}: ${r.wall.toFixed(0)} ms wall (×${(here.wall / r.wall).toFixed(2)} over this thread), ${r.cpu.toFixed(0)} ms CPU; per-chunk overhead: ${overhead(r.cpu - here.cpu, 'cpu')} CPU, ${overhead(e.w * r.wall - here.wall, 'wall')} wall`)
})
