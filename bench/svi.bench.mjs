// Online variational Bayes for LDA (src/trainers/svi/ovb.ts) and the private SVI trainer: tokens per
// pass per second on Brown (V = 5,000, the LDA-EVAL vocabulary), as ratios against a straightforward
// implementation measured in the same run, and beside scikit-learn's VB on the reference machine.
//
//   npm run build && node bench/svi.bench.mjs [--quick]
//
// Four parts, each printing ratios measured in this run:
//  1. ψ: @stdlib/math-base-special-digamma (what OnlineLda uses) against the hand-written recurrence +
//     asymptotic series it replaced: agreement, ns per call, and the whole batch-VB E-step run with each.
//  1b. The γ-iteration kernel: WebAssembly SIMD (OnlineLda's default) against the JavaScript one.
//  2. Batch VB, the protocol of LDA-EVAL.md §4's scikit-learn figure (learning_method='batch',
//     100 passes, α = 0.1, η = 0.01, λ initialised Gamma(100, 1/100) like scikit-learn): OnlineLda
//     with one batch = all D documents, ρ = 1, scale 1, i.e. λ = η + Σ_d stats each pass. Tokens ×
//     passes / wall, held-out perplexity by the common protocol, γ iterations per document early and
//     late. The straightforward implementation is too slow for 100 passes: it is timed on passes
//     1–3 and, started from OnlineLda's λ after pass 90, on passes 91–93 (the two implement the same
//     map, so their trajectories agree to rounding; the iteration counts printed check it), each
//     pass right after OnlineLda's same pass re-run from the same λ, and the ratio is of per-pass
//     rates on those same pass indices.
//  3. Online VB as the private trainer runs it (S = 64, τ0 = 64, κ = 0.7, 3 passes from the same
//     initial λ), OnlineLda against the straightforward implementation, whole runs.
//  4. The private trainer sviLda (ε = 1, chain noise, N = 500, Poisson batches).
//  5. sviLda's mini-batch E-step across worker threads (issue 27), `--workers 1,2,…` (default 1, 2 and the
//     cores available): each whole fit timed, the time inside the pool's commands (the E-step: e^{E ln β} for
//     the batch's words, the documents' γ/φ iterations, the statistic's sum; and the release's noise) against
//     the rest (the serial part: the batch and truncation drawn through the gate, the M-step), in the same fits.
//     `node bench/svi.bench.mjs --workers 1,2,4,8,16 [--quick] [--rounds R]` runs this part only.
// Tokens per pass = Σ_d document length (the training tokens, the corpus held as bags of words like
// scikit-learn's CSR input, built once). The machine is a shared 2-core VM: absolute figures move by
// up to ~1.5× between runs, ratios measured side by side much less.
import { performance } from 'node:perf_hooks'
import { readFileSync } from 'node:fs'
import { seeded } from '../dist/core/rng.js'
import { loadDataset, heldOutPerplexity } from '../dist/trainers/index.js'
import { digamma } from '../dist/trainers/svi/digamma.js'
import { OnlineLda, bagOf, emptyBag, learningRate } from '../dist/trainers/svi/ovb.js'
import { SVI_DEFAULTS, sviLda } from '../dist/trainers/svi/trainer.js'
import { sweepCommandMs } from '../dist/trainers/lda/parallel/pool.js'
import { availableParallelism, loadavg } from 'node:os'

const quick = process.argv.includes('--quick')
const ONLINE_PASSES = quick ? 1 : 3
const BATCH_PASSES = quick ? 3 : 100
const S = 64
const ALPHA = 0.1, ETA = 0.01, TAU0 = 64, KAPPA = 0.7
const SKLEARN = { 20: 2.1, 50: 1.2 } // M tokens/s per pass, batch VB, 100 passes (LDA-EVAL.md §4)
const SKLEARN_PPL = { 20: 2885, 50: 2785 }
const TOPICS = quick ? [20] : [20, 50]

const rate = (tokens, ms) => tokens / (ms / 1000) / 1e6
const fmt = (x, d = 2) => x.toFixed(d)
const passRange = (first, last) => (first === last ? `pass ${first}` : `passes ${first}–${last}`)

// ---------------------------------------------------------------------------------------------
// The ψ that OnlineLda used before @stdlib's: recurrence ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then
// the asymptotic series to x^-12 (copied verbatim from the replaced src/trainers/svi/digamma.ts).
const digammaRecurrence = (x) => {
  if (!(x > 0)) return Number.NaN
  let r = 0
  while (x < 10) {
    r -= 1 / x
    x += 1
  }
  const f = 1 / (x * x)
  const t = f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f * (1 / 132 - f * (691 / 32760))))))
  return r + Math.log(x) - 0.5 / x - t
}

// ---------------------------------------------------------------------------------------------
// The straightforward implementation: topic-major arrays of rows, φ materialised per document and
// per iteration, E[ln β] read through the K×V table for every token type, no gathering, ψ and exp
// recomputed wherever the formulas name them.
class Straightforward {
  constructor(K, V) {
    this.K = K; this.V = V
    this.lambda = Array.from({ length: K }, () => new Float64Array(V))
    this.eb = Array.from({ length: K }, () => new Float64Array(V))
  }
  refresh() {
    for (let k = 0; k < this.K; k++) {
      let s = 0
      for (let w = 0; w < this.V; w++) s += this.lambda[k][w]
      const ps = digamma(s)
      for (let w = 0; w < this.V; w++) this.eb[k][w] = Math.exp(digamma(this.lambda[k][w]) - ps)
    }
  }
  eStep(ids, cts, m, sstats) {
    const K = this.K
    let gamma = new Array(K).fill(1)
    const etheta = () => { const s = digamma(gamma.reduce((a, b) => a + b, 0)); return gamma.map((g) => Math.exp(digamma(g) - s)) }
    let et = etheta()
    const phi = Array.from({ length: m }, () => new Array(K).fill(0))
    const computePhi = () => {
      for (let j = 0; j < m; j++) {
        let norm = 1e-100
        for (let k = 0; k < K; k++) { phi[j][k] = et[k] * this.eb[k][ids[j]]; norm += phi[j][k] }
        for (let k = 0; k < K; k++) phi[j][k] /= norm
      }
    }
    let it = 0
    while (it < 100) {
      computePhi()
      const next = new Array(K).fill(ALPHA)
      for (let j = 0; j < m; j++) for (let k = 0; k < K; k++) next[k] += cts[j] * phi[j][k]
      let change = 0
      for (let k = 0; k < K; k++) change += Math.abs(next[k] - gamma[k])
      gamma = next
      et = etheta()
      it++
      if (change / K < 0.001) break
    }
    computePhi()
    for (let j = 0; j < m; j++) for (let k = 0; k < K; k++) sstats[k][ids[j]] += cts[j] * phi[j][k]
    return it
  }
  update(sstats, rho, scale) {
    for (let k = 0; k < this.K; k++) for (let w = 0; w < this.V; w++) this.lambda[k][w] = (1 - rho) * this.lambda[k][w] + rho * (ETA + scale * sstats[k][w])
    this.refresh()
  }
  topics() {
    const phi = new Float64Array(this.K * this.V)
    for (let k = 0; k < this.K; k++) {
      const s = this.lambda[k].reduce((a, b) => a + b, 0)
      for (let w = 0; w < this.V; w++) phi[k * this.V + w] = this.lambda[k][w] / s
    }
    return phi
  }
}

// λ_kw ~ Gamma(100, 1/100) as scikit-learn's LatentDirichletAllocation._init_latent_vars
// (Marsaglia & Tsang 2000 with Box–Muller normals), the same seed for every implementation.
const initialLambda = (K, V) => {
  const rng = seeded(1)
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())
  const d = 100 - 1 / 3, c = 1 / Math.sqrt(9 * d)
  const gamma100 = () => {
    for (;;) {
      const x = normal()
      const v = (1 + c * x) ** 3
      if (v > 0 && Math.log(1 - rng.next()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v
    }
  }
  const out = new Float64Array(K * V) // topic-major
  for (let i = 0; i < K * V; i++) out[i] = gamma100() / 100
  return out
}
const newOnlineLda = (Class, K, V, init, options = {}) => {
  const ovb = new Class(K, V, ALPHA, ETA, options)
  for (let k = 0; k < K; k++) for (let w = 0; w < V; w++) ovb.lambda[w * K + k] = init[k * V + w]
  ovb.refresh()
  return ovb
}
const newStraightforward = (K, V, lambdaOf) => {
  const sf = new Straightforward(K, V)
  for (let k = 0; k < K; k++) for (let w = 0; w < V; w++) sf.lambda[k][w] = lambdaOf(k, w)
  sf.refresh()
  return sf
}

const data = loadDataset('brown').right
const { train } = data
const V = train.vocab.length
const D = train.docStart.length - 1
const tokensPerPass = train.tokens.length
const perplexity = (phi, K) => heldOutPerplexity(phi, K, data.testObserved, data.testHeldOut).right.perplexity
// the corpus as bags of words, once
const bags = (() => {
  const seen = new Int32Array(V)
  const scratch = emptyBag(V)
  return Array.from({ length: D }, (_, d) => {
    const b = bagOf(train.tokens, train.docStart[d], train.docStart[d + 1], scratch, seen)
    return { words: b.words.slice(0, b.n), counts: b.counts.slice(0, b.n), n: b.n }
  })
})()
const distinct = bags.reduce((a, b) => a + b.n, 0)
console.log(`Brown: D = ${D}, V = ${V}, ${tokensPerPass} tokens (${distinct} distinct (document, word) pairs) per pass`)

// ---------------------------------------------------------------------------------------------
// 5. The E-step across worker threads. A seeded fit gives the same φ with any number of workers (checked
// here too), so the fits differ only in time. Interleaved rounds, the fastest fit of each W kept: on a shared
// machine a burst of load then slows one round of every W, not all rounds of one. Per fit: wall time, threads'
// time (inside the pool's commands, sweepCommandMs: the E-step and the noise, the waits for the slowest thread
// included), serial = wall − threads'. f = serial/wall of the 1-worker fit; Amdahl's law predicts 1/(f + (1 − f)/W) at W cores. CPU
// time of all threads against the 1-worker fit's shows the work threads add; on a loaded machine wall-time
// ratios are not speed-up measurements (the coordinator measures them quiet).
const workersSection = () => {
  const flagValue = (name) => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined }
  const rounds = Number(flagValue('--rounds') ?? 3)
  const all = availableParallelism()
  const listed = flagValue('--workers')
  const counts = [...new Set([1, ...(listed !== undefined && /^\d+(,\d+)*$/.test(listed) ? listed.split(',').map(Number) : [2, all])])].filter((w) => w >= 1).sort((x, y) => x - y)
  const K = 50
  const iterations = Math.round((quick ? 0.5 : 1) * D / S)
  const config = { ...SVI_DEFAULTS, topics: K, iterations, batchSize: S, tau0: TAU0, kappa: KAPPA, sampling: 'poisson', documents: D }
  const started = performance.now()
  console.log(`\n5. sviLda's E-step across worker threads: K = ${K}, S = ${S}, N = ${config.truncation}, ${iterations} iterations (${quick ? 'half a pass' : 'one pass'}), seeded, workers ${counts.join(', ')}, best of ${rounds}; ${all} cores available; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the start`)
  const best = new Map()
  let phiOne
  const same = new Map()
  for (let round = 0; round < rounds; round++)
    for (const workers of counts) {
      const c0 = process.cpuUsage()
      const p0 = sweepCommandMs()
      const t0 = performance.now()
      const fit = sviLda.fit(train, config, seeded(5), { logLikelihoodEvery: 0, workers })
      const ms = performance.now() - t0
      const eStepMs = sweepCommandMs() - p0
      const cu = process.cpuUsage(c0)
      const cpuMs = (cu.user + cu.system) / 1000 // every thread of the process
      if (fit._tag === 'Left') throw new Error(fit.left.message)
      const phi = Buffer.from(fit.right.model.phi.buffer)
      if (workers === 1) phiOne ??= phi
      else same.set(workers, (same.get(workers) ?? true) && phiOne !== undefined && phi.equals(phiOne))
      if (!best.has(workers) || ms < best.get(workers).ms) best.set(workers, { workers, ms, cpuMs, eStepMs, serialMs: ms - eStepMs, phi: fit.right.model.phi, tokens: fit.right.tokensSampled })
    }
  const one = best.get(1)
  const f = one.serialMs / one.ms
  const ppl = perplexity(one.phi, K)
  for (const r of best.values()) {
    console.log(
      `   ${String(r.workers).padStart(2)} worker${r.workers > 1 ? 's' : ' '}: fit ${fmt(r.ms, 0)} ms (×${fmt(one.ms / r.ms)} of 1 worker's; Amdahl ×${fmt(1 / (f + (1 - f) / r.workers))}), ` +
        `E-step + noise ${fmt(r.eStepMs, 0)} ms (×${fmt(one.eStepMs / r.eStepMs)}), serial ${fmt(r.serialMs, 0)} ms, CPU ×${fmt(r.cpuMs / one.cpuMs)} of 1 worker's; ${fmt(rate(r.tokens, r.ms))} M tokens sampled/s` +
        (r.workers === 1 ? `; perplexity ${fmt(ppl, 0)}` : `; φ ${same.get(r.workers) ? 'identical to' : 'DIFFERS from'} 1 worker's`),
    )
  }
  console.log(`   serial fraction f = ${fmt(100 * f)} % of the 1-worker fit (the batch and truncation drawn through the gate, the M-step, the release's bookkeeping) → Amdahl at 16 cores: ×${fmt(1 / (f + (1 - f) / 16))}`)
  console.log(`   load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end; part 5 took ${fmt((performance.now() - started) / 1000, 0)} s`)
}
if (process.argv.includes('--workers')) {
  workersSection()
  process.exit(0)
}

// One batch-VB pass of OnlineLda (λ = η + Σ_d stats); returns the γ iterations of the pass and
// adds Σ_d iterations·(distinct words) to `work.pairs`.
const work = { pairs: 0 }
const batchPass = (ovb, stats) => {
  stats.fill(0)
  ovb.beginBatch()
  let its = 0
  for (let d = 0; d < D; d++) {
    const it = ovb.eStep(bags[d], stats)
    its += it
    work.pairs += it * bags[d].n
  }
  ovb.update(ovb.endBatch(stats), 1, 1)
  return its
}
const sfBatchPass = (sf, sstats) => {
  for (const row of sstats) row.fill(0)
  let its = 0
  for (let d = 0; d < D; d++) its += sf.eStep(bags[d].words, bags[d].counts, bags[d].n, sstats)
  sf.update(sstats, 1, 1)
  return its
}

// ---------------------------------------------------------------------------------------------
console.log('\n1. ψ: @stdlib/math-base-special-digamma (used) vs the hand-written recurrence it replaced')
{
  const N = 1 << 15
  const xs = new Float64Array(N)
  const rng = seeded(3)
  for (let i = 0; i < N; i++) xs[i] = 0.01 * Math.pow(1e6, rng.next()) // log-uniform on [0.01, 1e4]: γ_k and λ_wk
  let maxRel = 0
  for (let i = 0; i < N; i++) maxRel = Math.max(maxRel, Math.abs(digamma(xs[i]) - digammaRecurrence(xs[i])) / Math.max(1, Math.abs(digamma(xs[i]))))
  const time = (f) => {
    let acc = 0
    const reps = quick ? 10 : 60
    const t0 = performance.now()
    for (let r = 0; r < reps; r++) for (let i = 0; i < N; i++) acc += f(xs[i])
    return { ns: ((performance.now() - t0) * 1e6) / (reps * N), acc }
  }
  const best = { std: Infinity, own: Infinity }
  for (let r = 0; r < 3; r++) {
    best.own = Math.min(best.own, time(digammaRecurrence).ns)
    best.std = Math.min(best.std, time(digamma).ns)
  }
  console.log(`   agreement on ${N} log-uniform x ∈ [0.01, 1e4]: max |Δψ|/max(1, |ψ|) = ${maxRel.toExponential(1)}`)
  console.log(`   per call (best of 3): stdlib ${fmt(best.std, 1)} ns, recurrence ${fmt(best.own, 1)} ns (stdlib ×${fmt(best.std / best.own)} the time)`)
  // The E-step with each ψ: two fresh copies of dist's ovb.js (separate module instances, so neither
  // inherits the other's or the rest of this bench's type feedback), one importing the shipped ψ,
  // one the recurrence; batch VB at K = 20.
  const ovbUrl = new URL('../dist/trainers/svi/ovb.js', import.meta.url)
  const psiImport = "import { digamma } from './digamma.js';"
  // a data: module resolves no relative imports: point them at dist
  const source = readFileSync(ovbUrl, 'utf8').replace(/from '(\.\/[^']+)'/g, (_, rel) => `from '${new URL(rel, ovbUrl).href}'`)
  const shippedPsi = psiImport.replace('./digamma.js', new URL('./digamma.js', ovbUrl).href)
  if (!source.includes(shippedPsi)) throw new Error('bench: ovb.js no longer imports ./digamma.js as expected')
  const load = (replacement) => import(`data:text/javascript,${encodeURIComponent(source.replace(shippedPsi, replacement))}`)
  const shipped = await load(shippedPsi)
  const own = await load(`const digamma = ${digammaRecurrence.toString()};`)
  // Load on the shared VM drifts within seconds, so: many short runs in pairs, the order alternated,
  // and the median (and range) of the per-pair ratios of wall and of this process's CPU time.
  const K = 20, passes = quick ? 1 : 2, pairs = quick ? 2 : 8
  const init = initialLambda(K, V)
  const run = (mod) => {
    const ovb = newOnlineLda(mod.OnlineLda, K, V, init)
    const stats = new Float64Array(V * K)
    let its = 0
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    for (let p = 0; p < passes; p++) its += batchPass(ovb, stats)
    const cpu = process.cpuUsage(cpu0)
    return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, its }
  }
  const wall = [], cpu = []
  let its = {}
  for (let r = 0; r < pairs; r++) {
    const [a, b] = r % 2 === 0 ? [run(shipped), run(own)] : (([y, x]) => [x, y])([run(own), run(shipped)])
    wall.push(a.ms / b.ms)
    cpu.push(a.cpuMs / b.cpuMs)
    its = { std: a.its, own: b.its }
  }
  const summary = (xs) => {
    const v = [...xs].sort((x, y) => x - y)
    return `median ×${fmt(v[v.length >> 1], 3)} (${fmt(v[0], 3)}–${fmt(v[v.length - 1], 3)})`
  }
  console.log(`   batch VB K = ${K}, ${passRange(1, passes)}, ${pairs} alternated pairs: stdlib ψ over recurrence ψ, wall ${summary(wall)}, CPU ${summary(cpu)}; γ iterations ${its.std} vs ${its.own}`)
}

// ---------------------------------------------------------------------------------------------
console.log('\n1b. The γ-iteration kernel (src/trainers/svi/gamma-sums.ts): WebAssembly SIMD (default) vs JavaScript')
for (const K of TOPICS) {
  const passes = quick ? 1 : 5
  const init = initialLambda(K, V)
  const run = (kernel) => {
    const ovb = newOnlineLda(OnlineLda, K, V, init, { kernel })
    const stats = new Float64Array(V * K)
    let its = 0
    const t0 = performance.now()
    for (let p = 0; p < passes; p++) its += batchPass(ovb, stats)
    return { ms: performance.now() - t0, its, kernel: ovb.kernel, lambda: ovb.lambda }
  }
  const best = { wasm: { ms: Infinity }, js: { ms: Infinity } }
  for (let r = 0; r < (quick ? 2 : 3); r++) {
    const a = run('wasm-simd'), b = run('js')
    if (a.ms < best.wasm.ms) best.wasm = a
    if (b.ms < best.js.ms) best.js = b
  }
  let maxRel = 0
  for (let i = 0; i < best.js.lambda.length; i++) maxRel = Math.max(maxRel, Math.abs(best.wasm.lambda[i] - best.js.lambda[i]) / best.js.lambda[i])
  console.log(`   K = ${K}, batch VB ${passRange(1, passes)} (best of ${quick ? 2 : 3}): ${best.wasm.kernel} ${fmt(best.wasm.ms, 0)} ms, js ${fmt(best.js.ms, 0)} ms: ×${fmt(best.js.ms / best.wasm.ms)} faster;` +
    ` γ iterations ${best.wasm.its} vs ${best.js.its}, max relative |Δλ| ${maxRel.toExponential(1)}`)
}

// ---------------------------------------------------------------------------------------------
console.log(`\n2. Batch VB, LDA-EVAL's protocol for scikit-learn's figure: ${BATCH_PASSES} passes, α = ${ALPHA}, η = ${ETA}, λ⁰ ~ Gamma(100, 1/100)`)
for (const K of TOPICS) {
  const init = initialLambda(K, V)
  const ovb = newOnlineLda(OnlineLda, K, V, init)
  const stats = new Float64Array(V * K)
  work.pairs = 0
  const passMs = [], passIts = []
  let lambdaAt90
  const resumeAt = Math.min(90, BATCH_PASSES - 3)
  const cpu0 = process.cpuUsage()
  for (let p = 0; p < BATCH_PASSES; p++) {
    if (p === resumeAt) lambdaAt90 = ovb.lambda.slice()
    const t0 = performance.now()
    passIts.push(batchPass(ovb, stats))
    passMs.push(performance.now() - t0)
  }
  const total = passMs.reduce((a, b) => a + b, 0)
  const cpu = process.cpuUsage(cpu0)
  const cpuMs = (cpu.user + cpu.system) / 1000
  const pairs = work.pairs * K
  const tps = rate(tokensPerPass * BATCH_PASSES, total)
  const ppl = perplexity(ovb.topics(), K)
  const early = Math.min(10, BATCH_PASSES >> 1)
  const meanIts = (from, to) => passIts.slice(from, to).reduce((a, b) => a + b, 0) / ((to - from) * D)
  // the straightforward implementation on the same pass indices, each of its passes timed right
  // after OnlineLda's same pass (re-run from the same λ), so load drift hits both alike
  const sfStats = Array.from({ length: K }, () => new Float64Array(V))
  const windows = quick ? [[0, 1]] : [[0, 3], [resumeAt, resumeAt + 3]]
  const cmp = []
  for (const [from, to] of windows) {
    const start = from === 0 ? (k, w) => init[k * V + w] : (k, w) => lambdaAt90[w * K + k]
    const sf = newStraightforward(K, V, start)
    const ours = newOnlineLda(OnlineLda, K, V, Float64Array.from({ length: K * V }, (_, i) => start(Math.floor(i / V), i % V)))
    let ms = 0, its = 0, ourMs = 0, ourIts = 0
    for (let p = from; p < to; p++) {
      let t0 = performance.now()
      ourIts += batchPass(ours, stats)
      ourMs += performance.now() - t0
      t0 = performance.now()
      its += sfBatchPass(sf, sfStats)
      ms += performance.now() - t0
    }
    cmp.push({ from, to, sf: rate(tokensPerPass * (to - from), ms), ours: rate(tokensPerPass * (to - from), ourMs), its, ourIts })
  }
  console.log(`K=${K}: OnlineLda ${fmt(tps)} M tokens/pass/s over ${BATCH_PASSES} passes (${fmt(total / 1000, 1)} s), perplexity ${fmt(ppl, 0)}` +
    ` | ×${fmt(tps / SKLEARN[K])} scikit-learn batch (${SKLEARN[K]} M, perplexity ${SKLEARN_PPL[K]}, reference machine)`)
  // wall includes time the shared VM gave to other processes; CPU time of this process does not
  console.log(`      this process had the CPU ${fmt((100 * cpuMs) / total, 0)} % of the wall time; per CPU-second ${fmt(rate(tokensPerPass * BATCH_PASSES, cpuMs))} M tokens/pass/s (×${fmt(rate(tokensPerPass * BATCH_PASSES, cpuMs) / SKLEARN[K])} scikit-learn)`)
  console.log(`      γ iterations per document: ${passRange(1, early)} ${fmt(meanIts(0, early), 1)}, ${passRange(BATCH_PASSES - early + 1, BATCH_PASSES)} ${fmt(meanIts(BATCH_PASSES - early, BATCH_PASSES), 1)}, all ${fmt(meanIts(0, BATCH_PASSES), 1)};` +
    ` ~${fmt((total * 1e6) / pairs)} ns per (distinct word, topic, iteration) including the M-steps`)
  console.log(`      per pass: ${passRange(1, early)} ${fmt(rate(tokensPerPass * early, passMs.slice(0, early).reduce((a, b) => a + b, 0)))} M, ${passRange(BATCH_PASSES - early + 1, BATCH_PASSES)} ${fmt(rate(tokensPerPass * early, passMs.slice(-early).reduce((a, b) => a + b, 0)))} M tokens/pass/s`)
  for (const c of cmp)
    console.log(`      ${passRange(c.from + 1, c.to)}: OnlineLda ${fmt(c.ours)} M vs straightforward ${fmt(c.sf, 3)} M tokens/pass/s: ×${fmt(c.ours / c.sf, 1)}` +
      ` (γ iterations ${c.ourIts} vs ${c.its}${c.from > 0 ? `; both started from OnlineLda's λ after pass ${c.from}` : ''}; passes interleaved)`)
}

// ---------------------------------------------------------------------------------------------
console.log(`\n3. Online VB as the private trainer runs it: S = ${S}, τ0 = ${TAU0}, κ = ${KAPPA}, ${ONLINE_PASSES} passes, λ⁰ as in 2`)
const onlinePasses = (step) => {
  let t = 0
  const t0 = performance.now()
  for (let p = 0; p < ONLINE_PASSES; p++) for (let b = 0; b < D; b += S) step(b, Math.min(D, b + S), learningRate(TAU0, KAPPA, ++t), D / Math.min(S, D - b))
  return performance.now() - t0
}
for (const K of TOPICS) {
  const init = initialLambda(K, V)
  const sf = newStraightforward(K, V, (k, w) => init[k * V + w])
  const sstats = Array.from({ length: K }, () => new Float64Array(V))
  const msSf = onlinePasses((from, to, rho, scale) => {
    for (const row of sstats) row.fill(0)
    for (let d = from; d < to; d++) sf.eStep(bags[d].words, bags[d].counts, bags[d].n, sstats)
    sf.update(sstats, rho, scale)
  })
  const ovb = newOnlineLda(OnlineLda, K, V, init)
  const stats = new Float64Array(V * K)
  let eIterations = 0
  const msOvb = onlinePasses((from, to, rho, scale) => {
    stats.fill(0)
    ovb.beginBatch()
    for (let d = from; d < to; d++) eIterations += ovb.eStep(bags[d], stats)
    ovb.update(ovb.endBatch(stats), rho, scale)
  })
  const a = rate(tokensPerPass * ONLINE_PASSES, msSf), b = rate(tokensPerPass * ONLINE_PASSES, msOvb)
  console.log(`K=${K}: OnlineLda ${fmt(b)} M vs straightforward ${fmt(a, 3)} M tokens/pass/s: ×${fmt(b / a, 1)}; perplexity ${fmt(perplexity(ovb.topics(), K), 0)} vs ${fmt(perplexity(sf.topics(), K), 0)};` +
    ` ${fmt(eIterations / (D * ONLINE_PASSES), 1)} γ iterations per document; ×${fmt(b / SKLEARN[K])} scikit-learn's batch figure`)
}

// ---------------------------------------------------------------------------------------------
console.log(`\n4. The private trainer sviLda (ε = 1, the paper's chain noise, N = 500, Poisson batches at ν = S/D), ${ONLINE_PASSES} passes' worth of iterations`)
for (const K of TOPICS) {
  const iterations = Math.round((ONLINE_PASSES * D) / S)
  const config = { ...SVI_DEFAULTS, topics: K, iterations, batchSize: S, tau0: TAU0, kappa: KAPPA, sampling: 'poisson' }
  const t0 = performance.now()
  const fit = sviLda.fit(train, config, seeded(2))
  const ms = performance.now() - t0
  console.log(`K=${K}: sviLda ${fmt(rate(fit.right.tokensSampled, ms))} M tokens sampled/s, perplexity ${fmt(perplexity(fit.right.model.phi, K), 0)} (seeded: not private)`)
}

// ---------------------------------------------------------------------------------------------
workersSection()
