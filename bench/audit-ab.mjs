// A/B of two builds of the audit on worker threads, interleaved in one run (issue 23: on a loaded
// machine only ratios against a baseline measured alongside mean anything).
//
//   npm run build && node bench/audit-ab.mjs --a /path/to/other/dist [--b dist] [--workers 1,2] [--trials 10000000] [--rounds 3]
//
// --a and --b are compiled trees (a `dist/` folder each, e.g. one built from `git archive <commit>`
// with node_modules linked beside it); --b defaults to this checkout's dist/. Each round runs a fresh
// process per (build, worker count) — as one `dpaudit audit` is — in turn (A W₁, B W₁, A W₂, …, then
// reversed the next round), each a whole zoo:laplace audit at ε = 1 on `createWorkerPool(W)`, timed from
// the pool's creation to the result. Prints per (build, W): best and median wall clock and CPU time of
// the process, the CPU by kind of thread (Linux: this thread, the pool's workers, the helper threads —
// V8's compiler and GC, libuv), ε_LB (which must not differ), and then B/A per W and W-ratio per build.
// About 10 s per audit at 10⁷ trials on 2 idle cores: 3 rounds of 1,2 take ~2 minutes.
import { execFileSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { byThreadKind, threadCpu } from './audit-threads.mjs'

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: 'dist' },
    workers: { type: 'string', default: '1,2' },
    trials: { type: 'string', default: '10000000' },
    rounds: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
})

if (values.child !== undefined) {
  // One audit in this process: the build's dist folder, W workers.
  const { createWorkerPool, auditMechanism, zooEntry } = await import(pathToFileURL(resolve(values.child, 'attacks/index.js')).href)
  const laplace = zooEntry('laplace')
  const w = Number(values.workers)
  const spec = { mechanism: { _tag: 'ZooRef', name: 'laplace', claim: { epsilon: 1, delta: 0 } }, pairs: laplace.pairs(), claim: { epsilon: 1, delta: 0 }, trials: Number(values.trials), seed: 'bench' }
  const before = threadCpu()
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const pool = createWorkerPool(spec.mechanism, spec.pairs, w)
  if (pool._tag === 'Left') throw new Error(pool.left.message)
  const r = auditMechanism({ ...spec, executor: pool.right })
  const ms = performance.now() - t0
  const c = process.cpuUsage(c0)
  const after = threadCpu()
  pool.right.close()
  console.log(JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, threads: byThreadKind(before, after), lb: r.right.epsilonLowerBound }))
  process.exit(0)
}

const WORKERS = values.workers.split(',').map(Number)
const ROUNDS = Number(values.rounds)
if (values.a === undefined || !WORKERS.every((w) => Number.isInteger(w) && w >= 1) || !(Number.isInteger(ROUNDS) && ROUNDS >= 1)) {
  console.error('audit-ab.bench: --a DIST is required; --workers takes positive integers separated by commas; --rounds a positive integer')
  process.exit(2)
}
const builds = [['A', resolve(values.a)], ['B', resolve(values.b)]]
const configs = WORKERS.flatMap((w) => builds.map(([name, dist]) => ({ name, dist, w, key: `${name} W=${w}` })))
const runs = new Map(configs.map((c) => [c.key, []]))
console.log(`audit A/B — A ${builds[0][1]}, B ${builds[1][1]}; ${Number(values.trials).toLocaleString('en-US')} trials, ${ROUNDS} rounds, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
for (let r = 0; r < ROUNDS; r++)
  for (const c of r % 2 === 0 ? configs : [...configs].reverse()) {
    const out = execFileSync(process.execPath, [process.argv[1], '--child', c.dist, '--workers', String(c.w), '--trials', values.trials], { encoding: 'utf8' })
    runs.get(c.key).push(JSON.parse(out.trim().split('\n').pop()))
  }
const median = (xs) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)]
const s = {}
for (const [key, xs] of runs) {
  const th = xs[0].threads === null ? null : ['main', 'workers', 'helpers'].map((k) => median(xs.map((x) => x.threads[k])))
  s[key] = { best: Math.min(...xs.map((x) => x.ms)), med: median(xs.map((x) => x.ms)), cpuBest: Math.min(...xs.map((x) => x.cpu)), cpuMed: median(xs.map((x) => x.cpu)), lbs: [...new Set(xs.map((x) => x.lb))] }
  console.log(
    `${key.padEnd(8)} wall best ${(s[key].best / 1000).toFixed(3)} s, median ${(s[key].med / 1000).toFixed(3)} s; CPU best ${(s[key].cpuBest / 1000).toFixed(3)} s, median ${(s[key].cpuMed / 1000).toFixed(3)} s` +
      (th === null ? '' : `; CPU medians: this thread ${(th[0] / 1000).toFixed(2)}, workers ${(th[1] / 1000).toFixed(2)}, helpers ${(th[2] / 1000).toFixed(2)} s`) +
      `; ε_LB ${s[key].lbs.join(', ')}`,
  )
}
for (const w of WORKERS) {
  const a = s[`A W=${w}`]
  const b = s[`B W=${w}`]
  console.log(`W=${w}: B/A wall ×${(b.best / a.best).toFixed(3)} (best), ×${(b.med / a.med).toFixed(3)} (median); CPU ×${(b.cpuBest / a.cpuBest).toFixed(3)} (best), ×${(b.cpuMed / a.cpuMed).toFixed(3)} (median)`)
}
for (const [name] of builds)
  for (const w of WORKERS.slice(1))
    console.log(`${name}: W=${w} over W=${WORKERS[0]} ×${(s[`${name} W=${WORKERS[0]}`].best / s[`${name} W=${w}`].best).toFixed(2)} (best), ×${(s[`${name} W=${WORKERS[0]}`].med / s[`${name} W=${w}`].med).toFixed(2)} (median)`)
const same = [...runs.values()].flat().every((x) => x.lb === runs.get(configs[0].key)[0].lb)
console.log(`${same ? 'PASS' : 'FAIL'}  same ε_LB in every run; load average after ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
if (!same) process.exitCode = 1
