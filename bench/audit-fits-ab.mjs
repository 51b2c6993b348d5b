// Same-process A/B of selection's family fit jobs (issue 23: the longest fit is the fits' wall time on
// many workers): the before and after builds' `evaluateFamily` on the same Laplace selection sample,
// interleaved, each job's least CPU time of --reps runs, and a check that both builds choose the same
// attack (`bestOfPair` of each build's own jobs: a build may split a family's fit into more jobs).
//
//   npm run build && node bench/audit-fits-ab.mjs --before /path/to/other/dist [--after dist] [--reps 9] [--n 100000] [--cold 3]
//
// --n: selection outputs per side (100,000 is what a 40 M-trial zoo:laplace audit fits on). About 20 s on 2 cores.
// --cold R (default 3, 0 skips it): the fits as a fresh worker thread runs them (issue 23: on W workers each
// runs about jobs/W fits, all cold, its first ones several times a warm fit: code not yet compiled, fresh
// memory page-faulted in): each build's jobs run once each in a fresh process (child processes, R per build,
// interleaved, pinned where the parent is), with their wall time and minor page faults; the longest cold
// job is the fits' critical path on many workers.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { deserialize, serialize } from 'node:v8'
import { arg, loadBuilds } from './ab-builds.mjs'

// A cold child: one build's jobs on the samples in the file, once each, in this fresh process.
if (arg('cold-child', undefined) !== undefined) {
  const dist = arg('cold-child', '')
  const { samples, families, z, projection } = deserialize(readFileSync(arg('samples', '')))
  const search = await import(pathToFileURL(join(dist, 'attacks/search.js')).href)
  const out = []
  for (const j of search.pairJobs(0, samples, families, 0, z, projection)) {
    const f0 = process.resourceUsage().minorPageFault
    const t0 = performance.now()
    const fit = search.evaluateFamily(j)
    out.push({ key: `${j.family} ${j.part}${j.orientation === undefined ? '' : ` σ=${j.orientation}`}`, ms: performance.now() - t0, faults: process.resourceUsage().minorPageFault - f0, applies: fit !== null })
  }
  console.log(JSON.stringify(out))
  process.exit(0)
}

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

// Cold: each build's jobs once in fresh processes (see --cold above).
const COLD = Number(arg('cold', '3'))
if (COLD > 0) {
  const dir = mkdtempSync(join(tmpdir(), 'dpaudit-fits-ab-'))
  const file = join(dir, 'samples.bin')
  writeFileSync(file, serialize({ samples, families, z, projection }))
  const runs = { before: [], after: [] }
  try {
    for (let r = 0; r < COLD; r++)
      for (const k of r % 2 === 0 ? ['before', 'after'] : ['after', 'before'])
        runs[k].push(JSON.parse(execFileSync(process.execPath, [process.argv[1], '--cold-child', dists[k], '--samples', file], { encoding: 'utf8' })))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0)
  const line = (k) =>
    runs[k]
      .map((run) => `${sum(run, (j) => j.ms).toFixed(0)} ms (longest ${Math.max(...run.map((j) => j.ms)).toFixed(0)}, ${sum(run, (j) => j.faults).toLocaleString('en-US')} page faults)`)
      .join('; ')
  console.log(`cold, a fresh process per run (${COLD} interleaved), every job once — all fits' wall, the longest job, minor page faults:`)
  console.log(`  before: ${line('before')}`)
  console.log(`  after:  ${line('after')}`)
  const longestOf = (k) => Math.min(...runs[k].map((run) => Math.max(...run.map((j) => j.ms))))
  const totalOf = (k) => Math.min(...runs[k].map((run) => sum(run, (j) => j.ms)))
  console.log(`  best of each: all fits ×${(totalOf('after') / totalOf('before')).toFixed(2)}, longest job ×${(longestOf('after') / longestOf('before')).toFixed(2)}`)
}
