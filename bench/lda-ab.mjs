// A/B of two builds of the Gibbs samplers in one process, for sampler work: the two builds alternate
// sweep by sweep (in alternating order), so load on a shared machine hits both alike; the ratio of
// their times is the figure to read, not the absolute speeds.
//
//   git worktree add /tmp/base HEAD~1 && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npx tsc -p tsconfig.build.json)
//   npm run build && node bench/lda-ab.mjs /tmp/base/dist dist [K = 50] [sweeps = 80] [cgs|hdp]
//
// `hdp` times the snapshot sampler alone, each sweep on a fresh release n + Lap(2) (ε_L = 1) drawn untimed.
// `trainer` times the whole HDP-LDA trainer (release, noise, sweep; its own trace's time, init excluded),
// five iterations per step: build A with a seeded Rng, build B as `dpaudit train` runs it (node:crypto);
// `trainer-seeded` gives build B the seeded Rng too. Across builds whose trainer changed, perplexities differ.
// Steps 1–20 (trainer: 1–2) are not counted (the chain and the JIT warm up). Both builds start from the same seed, so
// equal perplexities mean the same chain.
import { performance } from 'node:perf_hooks'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const [distA, distB, kArg, sArg, kind = 'cgs'] = process.argv.slice(2)
if (distA === undefined || distB === undefined) {
  console.error('usage: node bench/lda-ab.mjs <distA> <distB> [K] [sweeps] [cgs|hdp]')
  process.exit(2)
}
// The sampler internals left trainers/index.js with the curated surface (issue 25): read them from their own
// modules, over the index, so a build from before or after that change loads alike.
const INTERNALS = ['trainers/lda/random.js', 'trainers/lda/state.js', 'trainers/lda/snapshot.js', 'trainers/lda/sparse.js']
const load = async (dist) => {
  const at = (file) => import(pathToFileURL(resolve(dist, file)).href)
  const parts = await Promise.all(INTERNALS.map((f) => at(f).catch(() => ({}))))
  return { M: Object.assign({}, await at('trainers/index.js'), ...parts), R: await at('core/rng.js') }
}
const A = await load(distA)
const B = await load(distB)
const K = Number(kArg ?? 50)
const S = Number(sArg ?? 80)
const WARM = kind.startsWith('trainer') ? 2 : 20 // a trainer step is five iterations
const data = B.M.loadDataset('brown').right
const N = data.train.tokens.length

// One uniform source both sampler APIs accept: FastUniform's next/nextUint32 (older builds) and a
// WordStream's fillWords (builds with the release gate); initState gets a function with a `next`.
const source = (M, R) => {
  const fu = new M.FastUniform(R.seeded(1))
  const next = () => fu.next()
  next.next = next
  next.nextUint32 = () => fu.nextUint32()
  next.nextDouble = next
  next.fillWords = (out) => { for (let i = 0; i < out.length; i++) out[i] = fu.nextUint32() }
  next.source = { nodeCrypto: false } // a seeded source: the snapshot sweep derives keyed per-document streams
  return next
}

const ITER = 5
const trainer = ({ M, R }, rng) => {
  let phi
  return {
    step: () => {
      const f = M.hdpLda.fit(data.train, { topics: K, iterations: ITER, alpha: 0.1, beta: 0.01, epsilonL: 1, clip: 100, noise: 'fresh' }, rng(R), { logLikelihoodEvery: 0 })
      phi = f.right.model.phi
      return f.right.trace[ITER - 1].elapsedMs
    },
    phi: () => phi,
  }
}

const make = ({ M, R }) => {
  if (kind === 'trainer' || kind === 'trainer-seeded') return trainer({ M, R }, (r) => r.seeded(1))
  const u = source(M, R)
  const s = M.initState(data.train, K, u)
  if (kind === 'cgs') {
    const m = M.makeSparseSampler(s, 0.1, 0.01)
    return { step: () => { const t0 = performance.now(); m.sweep(u); return performance.now() - t0 }, phi: () => { m.syncDense(); return M.phiFromCounts(s.nwk, K, s.V, 0.01) } }
  }
  const m = M.makeSnapshotSampler(s, 0.1, 0.01, 100)
  // the release noise comes from build B for both (it is untimed, and older builds may not export it)
  const noise = new B.M.NoiseSource(R.seeded(7))
  const eta = new Float64Array(s.nwk.length)
  const noisy = new Float64Array(s.nwk.length)
  return {
    step: () => {
      B.M.fillLaplace(noise, 2, eta)
      for (let i = 0; i < noisy.length; i++) noisy[i] = s.nwk[i] + eta[i]
      m.setRelease(noisy, 1)
      const t0 = performance.now()
      m.sweep(u)
      return performance.now() - t0
    },
    phi: () => M.phiFromCounts(s.nwk, K, s.V, 0.01),
  }
}

const a = make(A)
const b = kind === 'trainer' ? trainer(B, (r) => r.secure()) : make(B)
let ta = 0
let tb = 0
for (let t = 0; t < S; t++) {
  const order = t % 2 === 0 ? [[a, 0], [b, 1]] : [[b, 1], [a, 0]]
  for (const [x, which] of order) {
    const dt = x.step()
    if (t >= WARM) which === 0 ? (ta += dt) : (tb += dt)
  }
}
const ppl = (x) => B.M.heldOutPerplexity(x.phi(), K, data.testObserved, data.testHeldOut).right.perplexity.toFixed(1)
const perStep = kind.startsWith('trainer') ? ITER : 1
const rate = (ms) => ((N * perStep * (S - WARM)) / ms / 1e3).toFixed(2)
console.log(`${kind} K=${K}, ${perStep > 1 ? `steps of ${perStep} iterations` : "sweeps"} ${WARM + 1}..${S}: A ${rate(ta)} M tokens/s, B ${rate(tb)} M tokens/s, B/A = ×${(ta / tb).toFixed(3)}; perplexity A ${ppl(a)}, B ${ppl(b)}`)
