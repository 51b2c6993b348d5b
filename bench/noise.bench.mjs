// Exact integer noise bench. `npm run bench:noise` (builds first), or `node bench/noise.bench.mjs [--quick]` after a build.
// Times filling 1,000,000 draws from the SECURE source (node:crypto words) for the discrete Laplace at t = 2 and
// t = 2/0.7 (a non-dyadic double) and the discrete Gaussian at σ = 1, 5, 50, and — in the same run, from the same
// kind of words — the continuous Laplace by inversion (b·ln of a 53-bit uniform, as src/trainers/lda/random.ts
// `fillLaplace` does), the reference the ratios are taken against. Each figure is the median of REPS fills after a
// warm-up fill; words read per draw are counted on a seeded run of the same fill.
import { performance } from 'node:perf_hooks'
import { secureWords, seededWords, WordStream } from '../dist/core/words.js'
import { discreteGaussianSampler, discreteLaplaceSampler } from '../dist/mechanisms/noise/index.js'

const N = 1_000_000
const REPS = process.argv.includes('--quick') ? 3 : 9

/** The continuous Laplace(0, b) by inversion over the stream's 53-bit doubles (a uniform of exactly 0 redrawn). */
const continuousLaplace = (b) => ({
  fill: (s, out) => {
    for (let i = 0; i < out.length; i++) {
      let u = s.nextDouble() - 0.5
      while (u === -0.5) u = s.nextDouble() - 0.5
      out[i] = u < 0 ? b * Math.log(1 + 2 * u) : -b * Math.log(1 - 2 * u)
    }
    return out
  },
})

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

/** Median ms to fill N draws from secure words (after one warm-up fill). */
const time = (sampler) => {
  const s = new WordStream(secureWords())
  const out = new Float64Array(N)
  sampler.fill(s, out)
  const ms = []
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now()
    sampler.fill(s, out)
    ms.push(performance.now() - t0)
  }
  return median(ms)
}

/** 32-bit words read per draw, counted on a seeded source. */
const wordsPerDraw = (sampler) => {
  const base = seededWords('bench')
  let words = 0
  const counted = { kind: base.kind, secret: false, fill: (out) => { words += out.length; base.fill(out) } }
  const s = new WordStream(counted, 1024)
  sampler.fill(s, new Float64Array(N))
  return words / N
}

const cases = [
  ['continuous Laplace b = 2 (inversion)', continuousLaplace(2)],
  ['discrete Laplace t = 2', discreteLaplaceSampler(2)],
  ['discrete Laplace t = 2/0.7', discreteLaplaceSampler(2 / 0.7)],
  ['discrete Gaussian σ = 1', discreteGaussianSampler(1)],
  ['discrete Gaussian σ = 5', discreteGaussianSampler(5)],
  ['discrete Gaussian σ = 50', discreteGaussianSampler(50)],
]

console.log(`node ${process.version}; ${N.toLocaleString('en')} draws per fill from secure words, median of ${REPS}`)
let reference
for (const [label, sampler] of cases) {
  const ms = time(sampler)
  reference ??= ms
  const ratio = (ms / reference).toFixed(2)
  console.log(`${label.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms  ${ratio.padStart(6)}× continuous  ${wordsPerDraw(sampler).toFixed(2).padStart(6)} words/draw`)
}
