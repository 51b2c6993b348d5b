// Does sharing the Gibbs state and one WebAssembly memory (q once, the fit's layout at 2 workers: private-wasm.ts
// `sharedSweepMemory`) slow the private sweep's kernel down (issue 27)? The kernel's CPU per token (Linux schedstat),
// best of `--rounds` interleaved rounds, for: one thread sweeping the whole corpus; two threads each sweeping half
// the documents of a state and memory of its own; two threads sweeping the halves of one shared state on one shared
// memory. Brown, K = 50, random topics and q, keyed words (the same draws in every layout). No pool, barriers or
// release: the kernel alone. The two CPUs of a VM may run at different speeds (bench/core-speeds.mjs): read the
// layouts against each other within a run, and repeat it.
//
//   npm run build && node bench/lda-kernel-shared.mjs [--rounds 3] [--sweeps 20]
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { existsSync, readFileSync } from 'node:fs'
const dist = new URL('../dist', import.meta.url).href
const { loadDataset } = await import(dist + '/trainers/index.js')
const { wasmPrivateSweeper, sharedSweepMemory } = await import(dist + '/trainers/lda/private-wasm.js')
const { extraWords, fillRangeDraws } = await import(dist + '/trainers/lda/sweep-kernel.js')
const K = 50
const cpu = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6
const keyed = (t) => ({ kind: 'keyed', key: Uint32Array.of(1, 2, 3, t), extraKey: Uint32Array.of(5, 6, 7, t) })
const sab = (C, n) => new C(new SharedArrayBuffer(C.BYTES_PER_ELEMENT * n))
const makeState = () => {
  const c = loadDataset('brown').right.train
  const D = c.docStart.length - 1, N = c.tokens.length
  const V = c.tokens.reduce((a, b) => Math.max(a, b), 0) + 1
  const tokens = sab(Int32Array, N); tokens.set(c.tokens)
  const docStart = sab(Int32Array, D + 1); docStart.set(c.docStart)
  let x = 1; const r = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32
  const z = sab(Int32Array, N), ndk = sab(Int32Array, D * K)
  for (let d = 0; d < D; d++) for (let i = docStart[d]; i < docStart[d + 1]; i++) { z[i] = Math.floor(r() * K); ndk[d * K + z[i]]++ }
  const q = new Float64Array(V * K), qsum = new Float64Array(V)
  for (let w = 0; w < V; w++) for (let k = 0; k < K; k++) { q[w * K + k] = r(); qsum[w] += q[w * K + k] }
  return { K, V, D, alpha: 0.1, tokens, docStart, z, ndk, q, qsum, draws: sab(Uint32Array, N) }
}
if (!isMainThread) {
  const { s, memory, part, parts, start, sweeps } = workerData
  const w = wasmPrivateSweeper(s, memory === undefined ? undefined : { memory, part })
  if (memory === undefined || part === 0) { w.q.set(s.q); w.qsum.set(s.qsum) }
  const d0 = Math.floor((part * s.D) / parts), d1 = Math.floor(((part + 1) * s.D) / parts)
  const sweep = (t) => { fillRangeDraws(keyed(t), d0, d1, s.docStart, undefined, s.draws); w.sweep(d0, d1, s.draws, undefined, extraWords(keyed(t))) }
  Atomics.add(start, 1, 1); Atomics.notify(start, 1); Atomics.wait(start, 0, 0)
  for (let t = 0; t < 2; t++) sweep(t)
  const c0 = cpu()
  for (let t = 0; t < sweeps; t++) sweep(t)
  parentPort.postMessage({ ms: (cpu() - c0) / sweeps, tokens: s.docStart[d1] - s.docStart[d0] })
} else {
  const flag = (name, fallback) => { const i = process.argv.indexOf(name); return i >= 0 ? Number(process.argv[i + 1]) : fallback }
  const sweeps = flag('--sweeps', 20)
  const rounds = flag('--rounds', 3)
  const run = async (mode) => {
    const parts = mode === 'one' ? 1 : 2
    const shared = mode === 'shared'
    const base = makeState()
    const states = Array.from({ length: parts }, () => (shared ? base : makeState()))
    const memory = shared ? sharedSweepMemory(base, parts) : undefined
    const start = new Int32Array(new SharedArrayBuffer(8))
    const ts = states.map((s, j) => new Worker(new URL(import.meta.url), { workerData: { s, memory, part: j, parts: shared ? parts : (mode === 'own-half' ? 2 : 1), start, sweeps } }))
    const res = ts.map((t) => new Promise((ok, no) => { t.once('message', ok); t.once('error', no) }))
    while (Atomics.load(start, 1) < parts) await new Promise((ok) => setTimeout(ok, 5))
    Atomics.store(start, 0, 1); Atomics.notify(start, 0)
    const out = await Promise.all(res)
    await Promise.all(ts.map((t) => t.terminate()))
    return out.reduce((a, o) => a + o.ms / o.tokens, 0) / out.length * 1e6 // ns per token
  }
  const best = {}
  for (let r = 0; r < rounds; r++) for (const m of ['one', 'own-half', 'shared']) { const v = await run(m); best[m] = Math.min(best[m] ?? Infinity, v) }
  console.log(`private sweep kernel (WebAssembly), brown, K = ${K}, ${sweeps} sweeps, best of ${rounds}; kernel CPU per token: one thread whole corpus ${best.one.toFixed(1)} ns; two threads, each its own state and memory (half the docs) ${best['own-half'].toFixed(1)} ns (×${(best['own-half'] / best.one).toFixed(3)}); two threads on one shared state and memory (the fit's layout) ${best.shared.toFixed(1)} ns (×${(best.shared / best.one).toFixed(3)})`)
}
