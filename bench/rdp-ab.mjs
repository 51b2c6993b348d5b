// Same-process A/B of two builds on the RDP bench's rows (bench/rdp.bench.mjs): one "query" = a
// fresh fold of the event into an empty state + one ε(δ) query, "cold" with every kept table of
// that build emptied first: `forgetKept(scope)`, --scope parameters (default: tables that depend on an
// event's parameters) or all (the parameter-free constants too). A build before 2026-11-28 ignores
// the scope and kept its log-binomial rows, reverse nodes and PV / discrete-Gaussian memos outside
// `forgetKept` (so its "cold" paid less than the scope says).
// `node bench/rdp-ab.mjs --before /path/to/old/dist [--after dist] [--reps 15] [--inner 20] [--scope parameters|all] [--only 'σ=1.1,RR']`.
// Each repetition times `inner` cold queries of each build, alternating which goes first; reported:
// the median over repetitions of each build's per-query mean, wall and CPU (process.cpuUsage: less
// inflated by waiting for a core under load), and the ratios after/before. Under load only the
// ratios mean something. Build an older commit with: git archive <commit> src tsconfig.json
// tsconfig.build.json package.json | tar -x -C DIR && ln -s $PWD/node_modules DIR/ && (cd DIR && npx tsc -p tsconfig.build.json).
import { performance } from 'node:perf_hooks'
import { arg, loadBuilds } from './ab-builds.mjs'

const REPS = Number(arg('reps', '15'))
const INNER = Number(arg('inner', '20'))
const SCOPE = arg('scope', 'parameters')
// --only 'a,b': only the rows whose names contain one of these.
const ONLY = arg('only', undefined)
const { dists, mods } = await loadBuilds('usage: node bench/rdp-ab.mjs --before /path/to/old/dist [--after dist] [--reps 15] [--inner 20]', async (load) => ({
  rdp: await load('accounting/rdp/index.js'),
  kept: await load('accounting/rdp/kept.js'),
  ev: await load('mechanisms/event.js'),
  nb: await load('mechanisms/neighbouring.js'),
}))
const rows = [
  ['PoissonSample(0.01, Gaussian σ=1.1) × 100 (control)', (e, AR) => e.selfCompose(e.poissonSample(0.01, e.gaussian(1.1, 1, AR)), 100), 1e-5],
  ['PoissonSample(0.01, Laplace b=1) × 100', (e, AR) => e.selfCompose(e.poissonSample(0.01, e.laplace(1, 1, AR)), 100), 1e-5],
  ['PoissonSample(0.01, Laplace b=5) × 10', (e, AR) => e.selfCompose(e.poissonSample(0.01, e.laplace(5, 1, AR)), 10), 1e-6],
  ['PoissonSample(0.1, Laplace b=0.5) × 200', (e, AR) => e.selfCompose(e.poissonSample(0.1, e.laplace(0.5, 1, AR)), 200), 1e-6],
  ['PoissonSample(0.001, Laplace b=0.2) × 10,000', (e, AR) => e.selfCompose(e.poissonSample(0.001, e.laplace(0.2, 1, AR)), 10000), 1e-6],
  ['SampleWithoutReplacement(100 of 400,000, Gaussian σ=2) × 1,600', (e, _AR, RO) => e.selfCompose(e.sampleWithoutReplacement(100, 400000, e.gaussian(2, 1, RO)), 1600), 1e-5, 'replace'],
  ['RepeatAndSelect(PoissonSample(0.01, σ=1.1) × 1,000), Poisson, mean 10', (e, AR) => e.repeatAndSelect(e.selfCompose(e.poissonSample(0.01, e.gaussian(1.1, 1, AR)), 1000), 10, Infinity), 1e-6],
  ['RepeatAndSelect(PoissonSample(0.01, σ=1.1) × 1,000), geometric, mean 10', (e, AR) => e.repeatAndSelect(e.selfCompose(e.poissonSample(0.01, e.gaussian(1.1, 1, AR)), 1000), 10, 1), 1e-6],
  ['PoissonSample(0.001, Gaussian σ=0.8) × 10,000', (e, AR) => e.selfCompose(e.poissonSample(0.001, e.gaussian(0.8, 1, AR)), 10000), 1e-6],
  ['DP-SGD MNIST: PoissonSample(256/60000, σ=1.1) × 14,063', (e, AR) => e.selfCompose(e.poissonSample(256 / 60000, e.gaussian(1.1, 1, AR)), 14063), 1e-5],
  ['PoissonSample(0.05, RR ε=2) × 500', (e, AR) => e.selfCompose(e.poissonSample(0.05, e.randomizedResponse(2, 2, AR)), 500), 1e-6],
  // The general Poisson bound (Zhu–Wang Thm 6) on other inner events: a Laplace hidden from the
  // tight sampled-Laplace path by a one-element Compose, the exponential mechanism, pure DP.
  ['general: PoissonSample(0.01, Compose[Laplace b=1]) × 100', (e, AR) => e.selfCompose(e.poissonSample(0.01, e.compose([e.laplace(1, 1, AR)])), 100), 1e-5],
  ['general: PoissonSample(0.05, exponential ε=1) × 200', (e, AR) => e.selfCompose(e.poissonSample(0.05, e.exponential(1, 1, AR)), 200), 1e-6],
  ['general: PoissonSample(0.1, pure DP ε=0.5) × 100', (e, AR) => e.selfCompose(e.poissonSample(0.1, e.pureDP(0.5, AR)), 100), 1e-6],
].filter(([name]) => ONLY === undefined || ONLY.split(',').some((s) => name.includes(s)))
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(`RDP A/B, cold (forgetKept('${SCOPE}')) ε(δ) query, median over ${REPS} interleaved repetitions of the mean of ${INNER}; before = ${dists.before}, after = ${dists.after}`)
const table = []
for (const [name, make, delta, relation] of rows) {
  const t = { before: [], after: [] }
  const c = { before: [], after: [] }
  const ans = {}
  const query = (m, event, acct) => {
    const s = acct.compose(event)(acct.empty)
    if (s._tag === 'Left') throw new Error(JSON.stringify(s.left))
    const a = acct.epsilon(delta)(s.right)
    if (a._tag === 'Left') throw new Error(JSON.stringify(a.left))
    return a.right.epsilon
  }
  const setup = {}
  for (const k of ['before', 'after']) {
    const m = mods[k]
    const AR = m.nb.addRemove('record')
    const RO = m.nb.replaceOne('record')
    setup[k] = { m, event: make(m.ev, AR, RO), acct: m.rdp.makeRdpAccountant({ relation: relation === 'replace' ? RO : AR }) }
    for (let i = 0; i < 20; i++) {
      m.kept.forgetKept(SCOPE)
      ans[k] = query(m, setup[k].event, setup[k].acct)
    }
  }
  for (let r = 0; r < REPS; r++)
    for (const k of r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      const { m, event, acct } = setup[k]
      // CPU over the whole batch (getrusage's resolution is too coarse for one query); the
      // forgetKept calls in it are a Map allocation per table.
      let total = 0
      const c0 = process.cpuUsage()
      for (let i = 0; i < INNER; i++) {
        m.kept.forgetKept(SCOPE)
        const t0 = performance.now()
        query(m, event, acct)
        total += performance.now() - t0
      }
      const cpu = process.cpuUsage(c0)
      t[k].push(total / INNER)
      c[k].push((cpu.user + cpu.system) / 1000 / INNER)
    }
  const b = median(t.before)
  const a = median(t.after)
  const cb = median(c.before)
  const ca = median(c.after)
  table.push({
    workload: name,
    'before ε': ans.before,
    'after ε': ans.after,
    'ε moved (rel)': ((ans.after - ans.before) / ans.before).toExponential(2),
    'before ms': b.toFixed(3),
    'after ms': a.toFixed(3),
    'after/before': (a / b).toFixed(3),
    'before CPU ms': cb.toFixed(3),
    'after CPU ms': ca.toFixed(3),
    'CPU after/before': (ca / cb).toFixed(3),
  })
}
console.table(table)
try {
  const { readFileSync } = await import('node:fs')
  console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
} catch {}
