// A/B of two builds' table-noise path (issue 27): a private Gibbs trainer's release adds exact discrete noise to every
// cell of the V×K word-topic table, block by block (src/trainers/lda/parallel/release-work.ts `addNoiseBlock`, blocks of
// NOISE_BLOCK cells: the words, the sampler's fill and the counts added). Both builds are loaded into one process and
// timed alternately over the same counts table (Brown's size at K = 50: 250,000 cells; integer counts, mostly 0), each
// case after a warm-up; the figure is the median ns per cell over the rounds, and B/A the ratio to read.
//
//   git worktree add --detach /tmp/base main && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npx tsc -p tsconfig.build.json)
//   npm run build && taskset -c 1 node bench/noise-table-ab.mjs /tmp/base/dist dist [--cells 250000] [--tables 40] [--rounds 7] [--noise laplace:2,gaussian:5] [--cold] [--shared]
//
// Cases, for each noise: `crypto` (a thread's node:crypto stream shared by the blocks of a table, as a worker draws a
// release: ./src/trainers/lda/parallel/part.ts makes one stream per command), `keyed` (a --seed run: a xoshiro128**
// stream keyed by the block), and `words given` (the blocks read words already drawn, copied from memory: the fill and
// the addition alone). The keyed tables of the two builds are compared cell by cell (they must be identical: the
// change under test may not move a sample), and so are the words the builds read for them.
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'

const [distA, distB] = process.argv.slice(2)
if (distA === undefined || distB === undefined || distA.startsWith('--') || distB.startsWith('--')) {
  console.error('usage: node bench/noise-table-ab.mjs <distA> <distB> [--cells N] [--tables T] [--rounds R] [--noise laplace:2,gaussian:5]')
  process.exit(2)
}
const flag = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : fallback
}
const cells = Number(flag('--cells', '250000'))
const tables = Number(flag('--tables', '40'))
const rounds = Number(flag('--rounds', '7'))
// --cold: a 64 MiB array is read between tables (outside the timing), as a fit's sweep leaves the caches to the next release
const cold = process.argv.includes('--cold')
const flush = new Float64Array(cold ? 8 << 20 : 0)
let sink = 0
const evict = () => {
  for (let k = 0; k < flush.length; k += 8) sink += flush[k]
}
const noises = flag('--noise', 'laplace:2').split(',').map((spec) => {
  const [kind, x] = spec.split(':')
  if (kind === 'laplace') return { kind: 'discrete-laplace', scale: Number(x) }
  if (kind === 'gaussian') return { kind: 'discrete-gaussian', sigma: Number(x) }
  throw new Error(`--noise: expected laplace:<t> or gaussian:<σ>, got ${spec}`)
})

const load = async (dist) => {
  const at = (file) => import(pathToFileURL(resolve(dist, file)).href)
  return { work: await at('trainers/lda/parallel/release-work.js'), words: await at('core/words.js'), measurement: await at('mechanisms/measurement.js') }
}
const builds = { A: await load(distA), B: await load(distB) }

// Brown-like counts: most cells 0, the rest small, a few large (fixed, so both builds add the same table).
// --shared: counts and output over SharedArrayBuffers, as the private Gibbs trainers' threads share them
const shared = process.argv.includes('--shared')
const counts = new Int32Array(shared ? new SharedArrayBuffer(4 * cells) : new ArrayBuffer(4 * cells))
let x = 12345
for (let c = 0; c < cells; c++) {
  x = (Math.imul(x, 1103515245) + 12345) >>> 0
  const u = x / 2 ** 32
  counts[c] = u < 0.85 ? 0 : u < 0.97 ? 1 + (x & 7) : x & 1023
}
const blocks = (b) => b.work.blockCount(cells, b.work.NOISE_BLOCK)

/** A source whose words were drawn beforehand (copied out in order; counts the words read). */
const givenWords = (pool) => {
  let pos = 0
  return {
    kind: 'given',
    secret: false,
    read: () => pos,
    rewind: () => {
      pos = 0
    },
    fill: (out) => {
      if (pos + out.length > pool.length) pos = 0
      out.set(pool.subarray(pos, pos + out.length))
      pos += out.length
    },
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

for (const noise of noises) {
  const label = noise.kind === 'discrete-laplace' ? `discrete Laplace t = ${noise.scale}` : `discrete Gaussian σ = ${noise.sigma}`
  const key = Uint32Array.of(1, 2, 3, 4)
  // identical outputs and words, keyed
  const keyed = {}
  for (const [k, b] of Object.entries(builds)) keyed[k] = b.work.keyedNoisyTable(noise, key, counts)
  const identical = keyed.A.every((v, i) => Object.is(v, keyed.B[i]))
  const pool = new Uint32Array(1 << 22)
  builds.A.words.seededWords('pool').fill(pool)
  const used = {}
  for (const [k, b] of Object.entries(builds)) {
    const src = givenWords(pool)
    const s = new b.words.WordStream(src)
    const out = new Float64Array(cells)
    const sampler = b.measurement.tableNoiseSampler(noise)
    for (let blk = 0; blk < blocks(b); blk++) b.work.addNoiseBlock(sampler, { kind: 'crypto' }, () => s, counts, out, blk, new Int32Array(4))
    used[k] = { words: src.read() - (s.peekChunk().words.length - s.peekChunk().next), out }
  }
  const sameWords = used.A.words === used.B.words && used.A.out.every((v, i) => Object.is(v, used.B.out[i]))

  const cases = {
    crypto: (b, sampler, out) => {
      const s = new b.words.WordStream(b.words.secureWords())
      const scratch = new Int32Array(4)
      return () => {
        for (let blk = 0; blk < blocks(b); blk++) b.work.addNoiseBlock(sampler, { kind: 'crypto' }, () => s, counts, out, blk, scratch)
      }
    },
    keyed: (b, sampler, out) => {
      const scratch = new Int32Array(4)
      const random = { kind: 'keyed', key }
      return () => {
        for (let blk = 0; blk < blocks(b); blk++) b.work.addNoiseBlock(sampler, random, undefined, counts, out, blk, scratch)
      }
    },
    'words given': (b, sampler, out) => {
      const s = new b.words.WordStream(givenWords(pool))
      const scratch = new Int32Array(4)
      return () => {
        for (let blk = 0; blk < blocks(b); blk++) b.work.addNoiseBlock(sampler, { kind: 'crypto' }, () => s, counts, out, blk, scratch)
      }
    },
  }
  console.log(`${label}, ${cells} cells, ${tables} tables a round${cold ? ' (caches flushed before each)' : ''}${shared ? ', shared arrays' : ''}, ${rounds} rounds, load ${loadavg()[0].toFixed(1)}; keyed tables identical: ${identical}; same words read and draws: ${sameWords}`)
  for (const [name, make] of Object.entries(cases)) {
    const runs = { A: [], B: [] }
    const go = {}
    for (const [k, b] of Object.entries(builds)) {
      go[k] = make(b, b.measurement.tableNoiseSampler(noise), new Float64Array(shared ? new SharedArrayBuffer(8 * cells) : new ArrayBuffer(8 * cells)))
      for (let w = 0; w < 5; w++) go[k]()
    }
    for (let r = 0; r < rounds; r++)
      for (const k of r % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
        let ms = 0
        if (cold)
          for (let t = 0; t < tables; t++) {
            evict()
            const t0 = performance.now()
            go[k]()
            ms += performance.now() - t0
          }
        else {
          const t0 = performance.now()
          for (let t = 0; t < tables; t++) go[k]()
          ms = performance.now() - t0
        }
        runs[k].push((ms * 1e6) / (tables * cells))
      }
    const a = median(runs.A)
    const b = median(runs.B)
    console.log(`  ${name.padEnd(12)} ns/cell median (best): A ${a.toFixed(2)} (${Math.min(...runs.A).toFixed(2)}), B ${b.toFixed(2)} (${Math.min(...runs.B).toFixed(2)}); B/A ×${(b / a).toFixed(3)}`)
  }
}
if (sink === 1) console.log('')
process.exit(0)
