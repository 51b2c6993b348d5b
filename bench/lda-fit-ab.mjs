// A/B of two builds of a private Gibbs trainer's whole fit, by process CPU time (issue 27): on a loaded shared
// machine wall time is not a speed measurement, and CPU time of all threads is less disturbed by load. Both builds
// are loaded into one process and their fits alternate (in alternating order), `rounds` of each after one warm-up
// fit each; the figures are the median and the best of the rounds, and B/A is the ratio to read.
//
//   git worktree add /tmp/base main && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npx tsc -p tsconfig.build.json)
//   npm run build && node bench/lda-fit-ab.mjs /tmp/base/dist dist [--workers 1] [--iterations 30] [--rounds 6] [--seed] [--trainer hdpLda|subLda|cdpLdaPlus]
//
// Brown, K = 50, α = 0.1, β = 0.01 and each trainer's settings of bench/lda.bench.mjs; node:crypto unless --seed (then
// both builds run seed 1, and the line says whether their φ are identical: equal outputs across builds). Run it in
// both orders (A/B, then B/A): the second build loaded was measured up to ×1.2 slower than itself on a loaded machine.
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'

const [distA, distB] = process.argv.slice(2)
if (distA === undefined || distB === undefined || distA.startsWith('--') || distB.startsWith('--')) {
  console.error('usage: node bench/lda-fit-ab.mjs <distA> <distB> [--workers W] [--iterations T] [--rounds R] [--seed] [--trainer hdpLda|subLda|cdpLdaPlus]')
  process.exit(2)
}
const flag = (name, fallback) => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : fallback }
const workers = Number(flag('--workers', '1'))
const iterations = Number(flag('--iterations', '30'))
const rounds = Number(flag('--rounds', '6'))
const seeded = process.argv.includes('--seed')
const trainerName = flag('--trainer', 'hdpLda')
const SETTINGS = {
  hdpLda: { epsilonL: 1, clip: 100, noise: 'fresh' },
  subLda: { gamma: 0.1, order: 14, rdpEpsilon: 2, clip: 100, adaptive: null },
  cdpLdaPlus: { epsilon: 1 },
}
if (!(trainerName in SETTINGS)) {
  console.error(`--trainer: expected one of ${Object.keys(SETTINGS).join(', ')}, got ${trainerName}`)
  process.exit(2)
}
const load = async (dist) => {
  const at = (file) => import(pathToFileURL(resolve(dist, file)).href)
  return { M: await at('trainers/index.js'), R: await at('core/rng.js') }
}
const A = await load(distA)
const B = await load(distB)
const data = A.M.loadDataset('brown').right
const fit = ({ M, R }) => {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const config = { topics: 50, iterations, alpha: 0.1, beta: 0.01, ...SETTINGS[trainerName] }
  const f = M[trainerName].fit(data.train, config, seeded ? R.seeded(1) : R.secure(), { logLikelihoodEvery: 0, workers })
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(c0)
  if (f._tag !== 'Right') throw new Error(JSON.stringify(f.left))
  return { wall, cpu: (cpu.user + cpu.system) / 1000, phi: f.right.model.phi }
}
fit(A)
fit(B)
const runs = { A: [], B: [] }
for (let r = 0; r < rounds; r++)
  for (const [k, build] of r % 2 === 0 ? [['A', A], ['B', B]] : [['B', B], ['A', A]]) runs[k].push(fit(build))
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
const stats = (k) => ({ cpu: median(runs[k].map((r) => r.cpu)), cpuBest: Math.min(...runs[k].map((r) => r.cpu)), wallBest: Math.min(...runs[k].map((r) => r.wall)) })
const a = stats('A')
const b = stats('B')
const same = seeded ? `; φ identical: ${runs.A[0].phi.every((x, i) => x === runs.B[0].phi[i])}` : ''
console.log(
  `${trainerName}, ${workers} worker(s), ${iterations} iterations, ${seeded ? 'seed 1' : 'node:crypto'}, ${rounds} rounds, load ${loadavg()[0].toFixed(1)}: ` +
    `CPU ms median (best) A ${a.cpu.toFixed(0)} (${a.cpuBest.toFixed(0)}), B ${b.cpu.toFixed(0)} (${b.cpuBest.toFixed(0)}); ` +
    `B/A CPU ×${(b.cpu / a.cpu).toFixed(3)} median, ×${(b.cpuBest / a.cpuBest).toFixed(3)} best; best wall B/A ×${(b.wallBest / a.wallBest).toFixed(3)}${same}`,
)
process.exit(0)
