// Does the private sweep's kernel itself slow down when several threads run it at once (issue 27)? Each of W
// worker threads sweeps its OWN copy of Brown (K = 50, a random q, the WebAssembly sweep of
// src/trainers/lda/private-wasm.ts, keyed words; no shared arrays, no barriers, no release), all starting
// together; the figure is the CPU time of one sweep per thread (Linux: /proc/thread-self/schedstat; elsewhere
// wall time), best of `--rounds` interleaved rounds, beside W = 1 in the same run. A ratio above 1 at W ≤ cores is what the hardware (shared caches, memory bandwidth,
// sibling hyperthreads, turbo) costs the kernel, which no change to the pool, copies or barriers removes; the
// HDP-LDA fit's "CPU × of 1 worker's" (bench/lda.bench.mjs) above this ratio is what the parallel fit adds.
// On a loaded machine other processes share the caches too: read it on an idle one.
//
//   npm run build && node bench/lda-kernel-contention.mjs [--workers 1,2,4,8,16] [--sweeps 20] [--rounds 3]
import { availableParallelism } from 'node:os'
import { existsSync, readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { loadDataset } from '../dist/trainers/index.js'
import { wasmPrivateSweeper } from '../dist/trainers/lda/private-wasm.js'
import { extraWords, fillRangeDraws } from '../dist/trainers/lda/sweep-kernel.js'

const K = 50
const keyed = (sweep) => ({ kind: 'keyed', key: Uint32Array.of(1, 2, 3, sweep), extraKey: Uint32Array.of(5, 6, 7, sweep) })

/** One thread's own state: Brown's training tokens, random topics and q (a fixed LCG: the same for every thread). */
const ownState = () => {
  const c = loadDataset('brown').right.train
  const { tokens, docStart } = c
  const D = docStart.length - 1
  const N = tokens.length
  const V = tokens.reduce((a, b) => Math.max(a, b), 0) + 1
  let x = 1
  const r = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32
  const z = new Int32Array(N)
  const ndk = new Int32Array(D * K)
  for (let d = 0; d < D; d++)
    for (let i = docStart[d]; i < docStart[d + 1]; i++) {
      z[i] = Math.floor(r() * K)
      ndk[d * K + z[i]]++
    }
  const q = new Float64Array(V * K)
  const qsum = new Float64Array(V)
  for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) { q[w * K + k] = r(); qsum[w] += q[w * K + k] }
  return { K, V, D, alpha: 0.1, tokens, docStart, z, ndk, q, qsum, draws: new Uint32Array(N) }
}

const SCHEDSTAT = '/proc/thread-self/schedstat'
/** This thread's CPU time in ms (Linux), or undefined. */
const threadCpuMs = () => (existsSync(SCHEDSTAT) ? Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6 : undefined)

if (!isMainThread) {
  const { start, sweeps } = workerData
  const s = ownState()
  const w = wasmPrivateSweeper(s)
  if (w === undefined) throw new Error('no WebAssembly')
  // q lives in the sweeper's memory (the fit builds it there from each release: private-wasm.ts `factors`)
  w.q.set(s.q)
  w.qsum.set(s.qsum)
  const sweep = (t) => {
    fillRangeDraws(keyed(t), 0, s.D, s.docStart, undefined, s.draws)
    w.sweep(0, s.D, s.draws, undefined, extraWords(keyed(t)))
  }
  for (let t = 0; t < 2; t++) sweep(t) // warm-up
  Atomics.add(start, 1, 1)
  Atomics.notify(start, 1)
  Atomics.wait(start, 0, 0) // every thread starts at once
  const c0 = threadCpuMs()
  const t0 = performance.now()
  for (let t = 0; t < sweeps; t++) sweep(t)
  const c1 = threadCpuMs()
  parentPort.postMessage((c0 === undefined || c1 === undefined ? performance.now() - t0 : c1 - c0) / sweeps)
} else {
  const flag = (name, fallback) => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : fallback }
  const listed = flag('--workers', '1,2')
  if (!/^\d+(,\d+)*$/.test(listed)) {
    console.error(`--workers: expected counts such as 1,2,4, got ${listed}`)
    process.exit(2)
  }
  const counts = [...new Set([1, ...listed.split(',').map(Number)])].filter((w) => w >= 1).sort((a, b) => a - b)
  const sweeps = Number(flag('--sweeps', '20'))
  const rounds = Number(flag('--rounds', '3'))
  const once = async (W) => {
    const start = new Int32Array(new SharedArrayBuffer(8))
    const threads = Array.from({ length: W }, () => new Worker(new URL(import.meta.url), { workerData: { start, sweeps } }))
    let failed
    const times = threads.map((t) => new Promise((ok, fail) => { t.once('message', ok); t.once('error', (e) => fail((failed = e))) }))
    times.forEach((p) => p.catch(() => undefined))
    // wait for every thread's warm-up, letting the event loop see a thread that failed (it never counts itself)
    while (Atomics.load(start, 1) < W) {
      if (failed !== undefined) throw failed
      await new Promise((ok) => setTimeout(ok, 5))
    }
    Atomics.store(start, 0, 1)
    Atomics.notify(start, 0)
    const ms = await Promise.all(times)
    await Promise.all(threads.map((t) => t.terminate()))
    return ms.reduce((a, b) => a + b, 0) / W // the mean thread's time per sweep
  }
  const t0 = performance.now()
  const best = new Map()
  for (let r = 0; r < rounds; r++)
    for (const W of counts) {
      const ms = await once(W)
      if (!best.has(W) || ms < best.get(W)) best.set(W, ms)
    }
  const what = threadCpuMs() === undefined ? 'wall' : 'CPU'
  console.log(`private sweep kernel (WebAssembly), brown, K = ${K}, each thread its own state, ${sweeps} sweeps, best of ${rounds}; ${availableParallelism()} cores; ${what} time`)
  for (const W of counts) console.log(`${String(W).padStart(3)} thread(s): ${best.get(W).toFixed(1)} ms ${what} per sweep per thread  ×${(best.get(W) / best.get(1)).toFixed(3)} of 1 thread's`)
  console.log(`took ${((performance.now() - t0) / 1000).toFixed(0)} s`)
}
