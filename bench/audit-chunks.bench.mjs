// Per-chunk cost of the audit's worker pool, apart from selection and start-up: K estimation chunks of
// C scalar-Laplace trials on a kept pool of W threads, timed (wall and CPU of all threads) against the
// same chunks run one after another in this thread. Issue 23: the cost per chunk must not grow with W.
//
//   npm run build && node bench/audit-chunks.bench.mjs [--workers 1,2] [--chunk 4096] [--chunks 1000] [--reps 3]
//
// Prints, per W: the best of --reps runs, the wall-clock speed-up over this thread, and the overhead per
// chunk in CPU time ((pool CPU − this thread's CPU) / K) and in wall time (W × pool wall − this
// thread's wall) / K. About 10 s on 2 cores when quiet. On a loaded machine trust the CPU column.
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { createWorkerPool, hashSeed, runChunk, zooEntry } from '../dist/attacks/index.js'

const { values } = parseArgs({ options: { workers: { type: 'string', default: '1,2' }, chunk: { type: 'string', default: '4096' }, chunks: { type: 'string', default: '1000' }, reps: { type: 'string', default: '3' } } })
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
const mech = laplace.make(ref.claim)
const seed = hashSeed('bench')
const grid = Array.from({ length: 100 }, (_, i) => -5 + i / 10)
const attack = { shape: { kind: 'number', dim: 1 }, model: { family: 'threshold' }, orientation: 1, threshold: 0 }
const tasks = Array.from({ length: K }, (_, k) => ({ id: k, phase: 'estimate', pair: 0, side: 0, start: k * C, end: (k + 1) * C, seed, attack, grid }))
const timed = (f) => {
  const c = process.cpuUsage()
  const t = performance.now()
  f()
  const d = process.cpuUsage(c)
  return { cpu: (d.user + d.system) / 1e3, wall: performance.now() - t }
}
const bestOf = (f) => {
  let b = { cpu: Infinity, wall: Infinity }
  for (let i = 0; i < REPS; i++) {
    const x = f()
    b = { cpu: Math.min(b.cpu, x.cpu), wall: Math.min(b.wall, x.wall) }
  }
  return b
}
console.log(`audit pool per-chunk cost — ${K} chunks of ${C} trials, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
const here = bestOf(() => timed(() => { for (const t of tasks) runChunk(t, mech, 0) }))
console.log(`this thread: ${here.wall.toFixed(0)} ms wall, ${here.cpu.toFixed(0)} ms CPU`)
for (const w of WORKERS) {
  const pool = createWorkerPool(ref, laplace.pairs(), w)
  if (pool._tag === 'Left') throw new Error(pool.left.message)
  pool.right.run(tasks.slice(0, 4 * w), () => undefined) // warm the threads' JIT and imports
  const r = bestOf(() => {
    let n = 0
    const x = timed(() => pool.right.run(tasks, () => n++))
    if (n !== K) throw new Error(`${n} of ${K} chunks answered`)
    return x
  })
  pool.right.close()
  console.log(
    `W=${w}: ${r.wall.toFixed(0)} ms wall (×${(here.wall / r.wall).toFixed(2)} over this thread), ${r.cpu.toFixed(0)} ms CPU; per-chunk overhead at W=${w}: ${(((r.cpu - here.cpu) / K) * 1000).toFixed(0)} µs CPU, ${(((w * r.wall - here.wall) / K) * 1000).toFixed(0)} µs wall`,
  )
}
