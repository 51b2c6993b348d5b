// Same-process A/B of two builds on the PLD bench's issue-26 rows (registry query ε(1e-5)):
// `node bench/pld-ab.mjs --before /path/to/old/dist [--after dist] [--reps 9]`. Each repetition
// queries both builds, alternating which goes first; "cold" empties the kept compositions first
// (src/accounting/pld/build.ts), "repeated" asks the same query again. Under load only the ratios
// mean something, the CPU-time ones (process.cpuUsage, all threads) more than the wall-time ones;
// each row ends with the relative change of ε and of its optimistic end, after against before. Build an older commit with: git archive <commit> src tsconfig.json
// tsconfig.build.json package.json | tar -x -C DIR && ln -s $PWD/node_modules DIR/ && (cd DIR && npx tsc -p tsconfig.build.json).
import { arg, loadBuilds } from './ab-builds.mjs'

const REPS = Number(arg('reps', '9'))
const REL = { kind: 'add-remove', unit: 'record' }
const { dists, mods } = await loadBuilds('usage: node bench/pld-ab.mjs --before /path/to/old/dist [--after dist] [--reps 9]', async (load) => ({
  reg: await load('accounting/registry.js'),
  build: await load('accounting/pld/build.js'),
  ev: await load('mechanisms/event.js'),
}))
const cpuMs = (c0) => {
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}
const rel = (a, b) => (b === a ? 0 : (a - b) / Math.abs(b))
const rows = [
  ['Poisson q 0.01, Gaussian σ 1.1 × 1,000 (baseline)', (e) => e.selfCompose(e.poissonSample(0.01, e.gaussian(1.1, 1, REL)), 1000)],
  ['Poisson q 0.01, discrete Gaussian σ 1.1 × 1,000', (e) => e.selfCompose(e.poissonSample(0.01, e.discreteGaussian(1.1, 1, REL)), 1000)],
  ['truncated Poisson q 0.01 cap 180 of 10,000, Gaussian σ 1.1 × 1,000', (e) => e.selfCompose(e.truncatedPoissonSample(0.01, 180, 10000, e.gaussian(1.1, 1, REL)), 1000)],
]
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(`PLD A/B, ε(1e-5) through the registry, median of ${REPS} (interleaved); before = ${dists.before}, after = ${dists.after}`)
for (const [name, make] of rows) {
  const t = { before: { cold: [], cpu: [], rep: [] }, after: { cold: [], cpu: [], rep: [] } }
  const ans = {}
  for (let r = 0; r < REPS; r++)
    for (const k of r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      const m = mods[k]
      const event = make(m.ev)
      const query = () => {
        const s = m.reg.ACCOUNTANTS.pld({ relation: REL }).run(event)
        if (s._tag === 'Left') throw new Error(s.left.message)
        const a = s.right.epsilon(1e-5)
        if (a._tag === 'Left') throw new Error(a.left.message)
        return a.right
      }
      m.build.forgetKeptCompositions()
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      ans[k] = query()
      const t1 = performance.now()
      t[k].cpu.push(cpuMs(c0))
      query()
      t[k].cold.push(t1 - t0)
      t[k].rep.push(performance.now() - t1)
    }
  const f = (k) => `ε ${ans[k].epsilon.toPrecision(8)}${ans[k].lower === undefined ? '' : ` (lower ${ans[k].lower.toPrecision(6)})`}`
  const [cb, ca, rb, ra] = [median(t.before.cold), median(t.after.cold), median(t.before.rep), median(t.after.rep)]
  const [pb, pa] = [median(t.before.cpu), median(t.after.cpu)]
  const dl = ans.after.lower === undefined || ans.before.lower === undefined ? '' : `, lower ${rel(ans.after.lower, ans.before.lower).toExponential(2)}`
  console.log(`  ${name}`)
  console.log(
    `    cold ${cb.toFixed(1)} -> ${ca.toFixed(1)} ms wall (x${(ca / cb).toFixed(3)}), ${pb.toFixed(1)} -> ${pa.toFixed(1)} ms CPU (x${(pa / pb).toFixed(3)}); ` +
      `repeated ${rb.toFixed(2)} -> ${ra.toFixed(2)} ms; ${f('before')} -> ${f('after')}; relative change ε ${rel(ans.after.epsilon, ans.before.epsilon).toExponential(2)}${dl}`,
  )
}
