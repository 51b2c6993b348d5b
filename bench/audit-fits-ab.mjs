// Same-process A/B of selection's family fit jobs (issue 23: the longest fit is the fits' wall time on
// many workers): the before and after builds' `evaluateFamily` on the same Laplace selection sample,
// interleaved, each job's least CPU time of --reps runs, and a check that both builds choose the same
// attack (`bestOfPair` of each build's own jobs: a build may split a family's fit into more jobs).
//
//   npm run build && node bench/audit-fits-ab.mjs --before /path/to/other/dist [--after dist] [--reps 9] [--n 100000]
//
// --n: selection outputs per side (100,000 is what a 40 M-trial zoo:laplace audit fits on). About 20 s on 2 cores.
import { arg, loadBuilds } from './ab-builds.mjs'

const { dists, mods } = await loadBuilds(
  'usage: node bench/audit-fits-ab.mjs --before DIST [--after DIST] [--reps R] [--n N]',
  async (imp) => ({ search: await imp('attacks/search.js'), select: await imp('attacks/select.js'), trials: await imp('attacks/trials.js'), stream: await imp('attacks/stream.js'), zoo: await imp('attacks/zoo/entries.js') }),
)
const REPS = Number(arg('reps', '9'))
const n = Number(arg('n', '100000'))
const { runChunk } = mods.before.trials
const laplace = mods.before.zoo.zooEntry('laplace')
const mech = laplace.make({ epsilon: 1, delta: 0 })
const pair = laplace.pairs()[0]
const seed = mods.before.stream.hashSeed('bench')
const side = (s) => runChunk({ id: s, phase: 'select', pair: 0, side: s, start: 0, end: n, seed }, mech, s === 0 ? pair.input : pair.neighbour)
const [r0, r1] = [side(0), side(1)]
const samples = { shape: r0.shape, n: [n, n], values: [r0.values, r1.values], codes: [new Int32Array(0), new Int32Array(0)], categories: [] }
const z = mods.before.select.zFor(0.025)
// The projection of a 40 M-trial audit at ε = 1, δ = 0 (estimation 19.9 M per side, the ratio bound's z too).
const projection = { n: 19_900_000, z, zRatio: mods.before.select.zFor(0.05) }
const families = ['threshold', 'histogram', 'bits']
const jobsOf = { before: mods.before.search.pairJobs(0, samples, families, 0, z, projection), after: mods.after.search.pairJobs(0, samples, families, 0, z, projection) }
// typed arrays compared element by element (−0 and +0 apart)
const show = (x) => JSON.stringify(x, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v, (e) => (Object.is(e, -0) ? '-0' : String(e))) : v))
const chosen = (k) => mods[k].search.bestOfPair(0, 'bench', samples.shape, families, jobsOf[k].map((j) => mods[k].search.evaluateFamily(j)))
const same = show(chosen('before')) === show(chosen('after'))
const jobKey = (j) => `${j.family} ${j.part}${j.orientation === undefined ? '' : ` σ=${j.orientation}`}`
const keys = [...new Set([...jobsOf.before, ...jobsOf.after].map(jobKey))]
const cpuMs = (f) => {
  const c = process.cpuUsage()
  f()
  const d = process.cpuUsage(c)
  return (d.user + d.system) / 1000
}
const best = new Map()
for (let r = 0; r < REPS; r++)
  for (const key of keys)
    for (const k of r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      const j = jobsOf[k].find((x) => jobKey(x) === key)
      if (j !== undefined) best.set(`${key} ${k}`, Math.min(best.get(`${key} ${k}`) ?? Infinity, cpuMs(() => mods[k].search.evaluateFamily(j))))
    }
console.log(`fit jobs A/B — before ${dists.before}, after ${dists.after}; ${n.toLocaleString('en-US')} Laplace outputs per side, least CPU ms of ${REPS} interleaved runs`)
const total = { before: 0, after: 0 }
const longest = { before: 0, after: 0 }
const ms = (x) => (x === undefined ? '—' : x.toFixed(1)).padStart(6)
for (const key of keys) {
  const [b, a] = ['before', 'after'].map((k) => best.get(`${key} ${k}`))
  for (const [k, x] of [['before', b], ['after', a]]) if (x !== undefined) (total[k] += x), (longest[k] = Math.max(longest[k], x))
  console.log(`${key.padEnd(22)} before ${ms(b)}  after ${ms(a)}${a !== undefined && b !== undefined ? `  ×${(a / b).toFixed(2)}` : ''}`)
}
console.log(`sum: before ${total.before.toFixed(1)}, after ${total.after.toFixed(1)} (×${(total.after / total.before).toFixed(2)}); longest job: before ${longest.before.toFixed(1)}, after ${longest.after.toFixed(1)} (×${(longest.after / longest.before).toFixed(2)})`)
console.log(`${same ? 'PASS' : 'FAIL'}  the same attack chosen from both builds' fits (bestOfPair)`)
if (!same) process.exitCode = 1
