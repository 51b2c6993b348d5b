// Audit throughput: trials per second for the scalar Laplace mechanism, in this thread and on
// worker threads, and the 1,000,000-trial audit of the broken histogram.
//
//   npm run build && node bench/audit.bench.mjs [--trials N] [--workers 1,2,4,8,16] [--reps R] [--json] [--concurrent-compile]
//
// It runs what `dpaudit audit` runs: worker threads compile their hot code on their own thread
// (src/cli/worker-compilation.ts); --concurrent-compile keeps V8's default background compiles instead.
// --workers lists the worker counts of the whole-audit and serial-part sections (default 1, 2 and
// this machine's cores); each count's audit is timed with its serial part (outside the executor)
// and its per-chunk overhead (time inside the executor beyond the hot loop's own time per trial),
// and its speed-up over 1 worker is printed beside Amdahl's prediction from 1 worker's serial part.
// The serial-part audits run --reps times (default 3), the worker counts interleaved (1, 2, …, 1,
// 2, …), and each count keeps its fastest run, so load from other work hits every count alike; CPU
// time (all threads) is printed beside the wall clock, since on a loaded machine it is the steadier
// figure. On 2 cores, --workers 1,2 takes about 40 s when quiet.
// Section 1a measures the machine's ceiling first: the hot loop alone on W threads at once (no
// audit), whose speed-up is what any audit can reach there (two logical cores per physical one, or a
// lower all-core clock, cap it below W); each audit's speed-up is printed beside it ("of ceiling"),
// and the per-chunk overhead is also given against the hot loop's rate with W threads busy.
// The last lines predict the trials from which ×12 on 16 workers is reached (the fixed part stays).
// On Linux the CPU of each kind of thread is printed too (this thread, the workers, and the helpers:
// V8's compiler and GC threads and libuv's pool): at W = 1 the helpers run on a core the one worker
// leaves idle, at W workers on W cores they compete with the workers, which caps the speed-up there
// at W · T(1) / CPU(W) whatever the pool does.
// Each worker count's line "what the threads did" reads the pool's timeline (pool.ts PoolTimeline): when
// the last thread was ready, the fits' wall time against the longest fit, and in estimation the workers'
// busy share and, per worker, the first chunk's late start, its cold-start excess, gaps and tail.
// Section 2c compares, at the widest count, the audit with and without the warm-up of idle threads'
// estimation loops during the fits, and (in child processes) with V8's platform pool at Node's default
// 4 threads and at --v8-pool-size=W, and with the other compilation setting than the run's.
// For the 16-core run: node bench/audit.bench.mjs --trials 40000000 --workers 1,2,4,8,16 (about 110 s there).
//
// Targets (issue 5): ≥ 1,000,000 trials/s per core for scalar Laplace; ≥ 1.8× that with 2 workers;
// the 1e6-trial histogram-inverted audit in under a minute, certifying a violation.
// Issue 23: the serial part's fraction, ≥ 1.9× with 2 workers, and Amdahl's ×16 from that fraction (≥ 12).
// Issue 12: ≥ 1.8× with 2 workers over 1 for a 10⁷-trial audit (the default --trials below), and
// the pool's start-up under 50 ms after the first audit (threads are kept between audits).
// The machine's load average is printed with the numbers: on a shared machine they are lower bounds.
// Per-core probe (bench/core-speeds.mjs, section 0): before the sections, a 1-worker audit of
// --core-probe-trials (default min(--trials, 300,000); a fresh pool each run, as in section 2a) and the
// estimation hot loop (1,000,000 trials) are timed on each CPU alone (taskset -c i, best of 3
// interleaved, about 6 s on 2 cores): the CPUs of a VM need not be equal, which caps W workers below ×W
// by an amount that depends on the code. The --trials audit's per-core times are then blended from the
// two (its 1-worker run's trials part at the hot loop's ratios, the rest at the small audit's) and each
// worker count's speed-up printed beside that ceiling (the lines "core-speed ceiling"); where the
// 1-worker baseline ran is unknown, so both ends are stated (core-speeds.mjs ceilingNote), and then the
// ceiling for the CPUs the fastest 1-worker run's worker was seen on (its last CPU, read from /proc at every
// 8th chunk result of its estimation and selection batches; the fits are not sampled). The probe runs
// again at the end (the CPUs of this VM changed speed within minutes), and the ceiling by both is printed
// before the checks. --core-probe-trials 0 skips the probe (on 16 CPUs each probe takes about 35 s: skip it
// there when device time is short).
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { byThreadKind, threadCpu } from './audit-threads.mjs'
import { baselineNote, blendProbes, ceilingNote, cpuSampler, formatProbe, probeCoreSpeeds, serveCoreProbe, targetNote } from './core-speeds.mjs'
import { acquireWorkerPool, auditMechanism, auditZoo, closeSharedWorkerPool, createWorkerPool, hashSeed, runChunk, zooEntry } from '../dist/attacks/index.js'
import { compileWorkersInThread, WORKER_COMPILATION_FLAG } from '../dist/cli/worker-compilation.js'

const { values } = parseArgs({ options: { trials: { type: 'string', default: '10000000' }, workers: { type: 'string' }, reps: { type: 'string', default: '3' }, json: { type: 'boolean', default: false }, 'child-audit': { type: 'string' }, 'core-probe': { type: 'string' }, 'core-probe-trials': { type: 'string' }, 'concurrent-compile': { type: 'boolean', default: false } } })
// What `dpaudit` runs (src/cli/worker-compilation.ts): worker isolates compile their hot code on their own
// thread. --concurrent-compile keeps V8's default (background compiler threads) instead, to compare; child
// processes of this bench get the same choice.
const concurrentCompile = values['concurrent-compile']
const compileArgs = concurrentCompile ? ['--concurrent-compile'] : []
if (!concurrentCompile) compileWorkersInThread()
const TRIALS = Number(values.trials)
const REPS = Number(values.reps)
const cores = availableParallelism()
const WORKERS = values.workers === undefined ? [...new Set([1, 2, cores])] : [...new Set([1, ...values.workers.split(',').map(Number)])]
const probeTrialsOk = values['core-probe-trials'] === undefined || /^(0|[1-9]\d{3,})$/.test(values['core-probe-trials'])
if (!WORKERS.every((w) => Number.isInteger(w) && w >= 1) || !(TRIALS >= 1000) || !(Number.isInteger(REPS) && REPS >= 1) || !probeTrialsOk) {
  console.error(`audit.bench: --workers takes positive integers separated by commas (got ${values.workers}); --trials at least 1000 (got ${values.trials}); --reps a positive integer (got ${values.reps}); --core-probe-trials 0 or at least 1000 (got ${values['core-probe-trials']})`)
  process.exit(2)
}
const laplace = zooEntry('laplace')
const spec = { mechanism: { _tag: 'ZooRef', name: 'laplace', claim: { epsilon: 1, delta: 0 } }, pairs: laplace.pairs(), claim: { epsilon: 1, delta: 0 }, trials: TRIALS, seed: 'bench' }
// The estimation hot loop's task (section 1 and the per-core probe): the threshold attack on a 100-point grid.
const mech = laplace.make({ epsilon: 1, delta: 0 })
const seed = hashSeed('bench')
const grid = Array.from({ length: 100 }, (_, i) => -5 + i / 10)
const attack = { shape: { kind: 'number', dim: 1 }, model: { family: 'threshold' }, orientation: 1, threshold: 0 }
const estimateTask = (n) => ({ id: 0, phase: 'estimate', pair: 0, side: 0, start: 0, end: n, seed, attack, grid })

// What the pool's threads did (pool.ts PoolTimeline), reduced to what a speed-up loses: how late the
// last thread was ready; each fit batch's wall time against its longest fit; and in estimation, per
// worker (means), how late its first chunk started after the batch was handed out, its first chunk's
// excess over the median chunk (a thread's cold start: its hot loop not yet compiled), the gaps between
// its chunks (messages, this thread's answers) and how long before the batch's end it finished (tail).
const timelineStats = (t, w) => {
  const median = (xs) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])
  const mean = (xs) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
  const readyLast = Math.max(...t.ready.map((x) => (x === null ? Infinity : x - t.created)))
  const fitBatches = t.batches.filter((b) => b.kind === 'fit').map((b) => {
    const its = t.items.filter((i) => i.kind === 'fit' && i.end >= b.start && i.end <= b.end + 1)
    return { wall: b.end - b.start, longest: Math.max(0, ...its.map((i) => i.ms)), sum: its.reduce((a, i) => a + i.ms, 0), jobs: b.items }
  })
  const est = t.items.filter((i) => i.kind === 'estimate')
  const batch = t.batches.filter((b) => b.kind === 'task').at(-1)
  const med = median(est.map((i) => i.ms))
  const per = [...Array(w).keys()].map((k) => est.filter((i) => i.worker === k).sort((a, b) => a.end - b.end))
  const busy = per.filter((xs) => xs.length > 0)
  return {
    readyLastMs: readyLast,
    fitBatches,
    estimate: {
      chunks: est.length,
      wallMs: batch === undefined ? 0 : batch.end - batch.start,
      medianChunkMs: med,
      busyShare: batch === undefined ? 0 : est.reduce((a, i) => a + i.ms, 0) / (w * (batch.end - batch.start)),
      lateStartMs: mean(busy.map((xs) => xs[0].end - xs[0].ms - batch.start)),
      coldExcessMs: mean(busy.map((xs) => xs[0].ms - med)),
      gapsMs: mean(busy.map((xs) => xs.at(-1).end - (xs[0].end - xs[0].ms) - xs.reduce((a, i) => a + i.ms, 0))),
      tailMs: mean(busy.map((xs) => batch.end - xs.at(-1).end)),
      idleWorkers: w - busy.length,
    },
  }
}

/** The fit batches of an audit in one phrase (on 1 worker the bench hands the fits out one by one: a batch each). */
const fitLine = (bs) => {
  const sum = (f) => bs.reduce((a, b) => a + f(b), 0)
  return `fits ${sum((b) => b.wall).toFixed(0)} ms wall in ${bs.length} batch${bs.length === 1 ? '' : 'es'} (longest fit ${Math.max(0, ...bs.map((b) => b.longest)).toFixed(0)}, all fits ${sum((b) => b.sum).toFixed(0)}, ${sum((b) => b.jobs)} jobs)`
}


// One audit on a fresh pool of W threads, timed from the pool's creation, with its timeline reduced:
// what section 2c compares (in this process, and in a child process started with other Node flags).
const quickAudit = (w, options = {}) => {
  const c = process.cpuUsage()
  const t = performance.now()
  const pool = createWorkerPool(spec.mechanism, spec.pairs, w, options)
  if (pool._tag === 'Left') throw new Error(pool.left.message)
  const r = auditMechanism({ ...spec, executor: pool.right })
  const ms = performance.now() - t
  const d = process.cpuUsage(c)
  pool.right.close()
  return { ms, cpuSeconds: (d.user + d.system) / 1e6, epsilonLowerBound: r.right.epsilonLowerBound, timeline: timelineStats(pool.right.timeline, w) }
}
if (values['child-audit'] !== undefined) {
  console.log(JSON.stringify(quickAudit(Number(values['child-audit']))))
  process.exit(0)
}
// The per-core probe's child (pinned by the parent): 'audit' is quickAudit(1) at --trials, 'hot-loop' the
// estimation hot loop on 1,000,000 trials in this thread.
const PROBE_HOT_TRIALS = 1_000_000
if (values['core-probe'] !== undefined)
  await serveCoreProbe(() => undefined, { audit: () => quickAudit(1), 'hot-loop': () => runChunk(estimateTask(PROBE_HOT_TRIALS), mech, 0) })

const rows = []
const report = (name, trials, ms, extra = {}) => {
  const row = { name, trials, seconds: ms / 1000, trialsPerSecond: trials / (ms / 1000), ...extra }
  rows.push(row)
  if (!values.json)
    console.log(`${name.padEnd(46)} ${(row.trialsPerSecond / 1e6).toFixed(2).padStart(7)} M trials/s  (${trials.toLocaleString('en-US')} trials, ${(ms / 1000).toFixed(2)} s)${extra.note ? `  ${extra.note}` : ''}`)
  return row
}
const best = (n, f) => {
  let b = Infinity
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    f()
    b = Math.min(b, performance.now() - t)
  }
  return b
}

const load0 = loadavg()
if (!values.json)
  console.log(
    `dpaudit audit bench — ${cores} cores, Node ${process.version}, load average ${load0.map((x) => x.toFixed(2)).join(' ')}; ${concurrentCompile ? "V8's default: hot code compiled on its background threads (--concurrent-compile)" : `worker threads compile their hot code on their own thread (${WORKER_COMPILATION_FLAG}, as dpaudit sets it; --concurrent-compile for V8's default)`}\n`,
  )

// 0. Per-core probe: the audit's own workload on each CPU alone (before anything else runs here).
const PROBE_TRIALS = values['core-probe-trials'] === undefined ? Math.min(TRIALS, 300_000) : Number(values['core-probe-trials'])
const probeAudit = async () =>
  PROBE_TRIALS === 0
    ? [0, 1].map(() => ({ ok: false, why: 'per-core probe skipped (--core-probe-trials 0)' }))
    : probeCoreSpeeds({
        command: [process.execPath, process.argv[1], '--core-probe', 'serve', '--trials', String(PROBE_TRIALS), ...compileArgs],
        pieces: [
          { name: 'audit', label: `a 1-worker audit of laplace, ${PROBE_TRIALS.toLocaleString('en-US')} trials, fresh pool each run` },
          { name: 'hot-loop', label: `the estimation hot loop, runChunk on ${PROBE_HOT_TRIALS.toLocaleString('en-US')} trials` },
        ],
      })
const [auditProbe, hotProbe] = await probeAudit()
if (!values.json) {
  for (const line of formatProbe(auditProbe)) console.log(line)
  if (hotProbe.ok) for (const line of formatProbe(hotProbe)) console.log(line)
  console.log('')
}

// 1. The hot loop alone: runChunk (the worker entry) on 4e6 selection and estimation trials.
const N = 4_000_000
report('hot loop: runChunk, selection (raw outputs)', N, best(3, () => runChunk({ id: 0, phase: 'select', pair: 0, side: 0, start: 0, end: N, seed }, mech, 0)))
// Trials per second of the estimation hot loop in this thread: the per-chunk overhead below is what the executor adds to it.
const hotTask = estimateTask(N)
const hotRate = report('hot loop: runChunk, estimation (100-point grid)', N, best(3, () => runChunk(hotTask, mech, 0))).trialsPerSecond
// The same per CPU-second (this thread alone runs): the CPU-time overhead per chunk below is measured against it.
const hotCpuRate = (() => {
  let b = Infinity
  for (let i = 0; i < 3; i++) {
    const c = process.cpuUsage()
    runChunk(hotTask, mech, 0)
    const d = process.cpuUsage(c)
    b = Math.min(b, (d.user + d.system) / 1e6)
  }
  return N / b
})()

// 2. Whole audits of scalar Laplace: in this thread, then 1 and all worker threads.

// 1a. The machine's ceiling: the hot loop alone on W threads at once, in chunks of 500k trials (8 per
// thread, so the chunks' messages cost nothing and self-scheduling evens out a late thread), timed
// after a warm-up round. Its speed-up over 1 thread is what any audit could reach on this machine:
// simultaneous multithreading (two logical cores per physical one), a lower all-core clock or shared
// caches cap it below W, and the per-chunk overhead below is measured against the hot loop's rate at W.
const logicalCores = cores
const physicalCores = (() => {
  try {
    const seen = new Set()
    for (const d of readdirSync('/sys/devices/system/cpu').filter((x) => /^cpu\d+$/.test(x))) seen.add(readFileSync(`/sys/devices/system/cpu/${d}/topology/thread_siblings_list`, 'utf8').trim())
    return seen.size > 0 ? seen.size : null
  } catch {
    return null
  }
})()
const CEIL_CHUNK = 500_000
const ceilingTasks = (w) => Array.from({ length: 8 * w }, (_, i) => ({ ...hotTask, id: i, start: i * CEIL_CHUNK, end: (i + 1) * CEIL_CHUNK }))
const ceilingOf = (w) => {
  const pool = createWorkerPool(spec.mechanism, spec.pairs, w)
  if (pool._tag === 'Left') throw new Error(pool.left.message)
  const tasks = ceilingTasks(w)
  pool.right.run(tasks, () => undefined) // warm-up: every thread started and its hot loop compiled
  let bestMs = Infinity
  let bestCpu = Infinity
  for (let r = 0; r < 2; r++) {
    const c = process.cpuUsage()
    const t = performance.now()
    pool.right.run(tasks, () => undefined)
    bestMs = Math.min(bestMs, performance.now() - t)
    const d = process.cpuUsage(c)
    bestCpu = Math.min(bestCpu, (d.user + d.system) / 1000)
  }
  pool.right.close()
  return { workers: w, trialsPerMs: (tasks.length * CEIL_CHUNK) / bestMs, cpuMsPerTrial: bestCpu / (tasks.length * CEIL_CHUNK) }
}
const ceilings = new Map(WORKERS.map((w) => [w, ceilingOf(w)]))
const ceiling1 = ceilings.get(WORKERS[0])
const ceilingAt = (w) => ceilings.get(w).trialsPerMs / ceiling1.trialsPerMs
if (!values.json) {
  console.log(
    `machine ceiling (the hot loop alone on W threads, ${logicalCores} logical cores${physicalCores === null ? '' : `, ${physicalCores} physical`}): ` +
      WORKERS.map((w) => `W=${w} ×${ceilingAt(w).toFixed(2)} (CPU per trial ×${(ceilings.get(w).cpuMsPerTrial / ceiling1.cpuMsPerTrial).toFixed(2)})`).join(', '),
  )
  // The same W threads against the hot loop's per-core probe: below it, the busy cores slow each other
  // (or the load of other work); its 1-thread run, too, went to a core nobody chose.
  if (hotProbe.ok)
    console.log(`machine ceiling against the hot loop's per-core ceiling (section 0): ${WORKERS.filter((w) => w > 1).map((w) => `W=${w} ${ceilingNote(hotProbe, w, ceilingAt(w))}`).join('; ')}`)
}
// CPU time of the whole process (all threads): on a shared machine, trials per CPU-second shows
// whether the pool adds overhead even when the wall-clock speed-up is capped by other load.
const timed = (f) => {
  const c = process.cpuUsage()
  const t = performance.now()
  const r = f()
  const cpu = process.cpuUsage(c)
  return { ms: performance.now() - t, cpuSeconds: (cpu.user + cpu.system) / 1e6, r }
}
const cpuNote = (run, trials) => `${(trials / run.cpuSeconds / 1e6).toFixed(2)} M trials per CPU-second, ${(run.cpuSeconds / (run.ms / 1000)).toFixed(2)} cores busy`
const inProc = timed(() => auditZoo('laplace', { trials: TRIALS, seed: 'bench' }))
const single = report('audit laplace, in this thread', TRIALS, inProc.ms, {
  epsilonLowerBound: inProc.r.right.epsilonLowerBound,
  cpuSeconds: inProc.cpuSeconds,
  note: cpuNote(inProc, TRIALS),
})
const pooled = {}
for (const w of WORKERS) {
  const pool = createWorkerPool(spec.mechanism, spec.pairs, w)
  if (pool._tag === 'Left') throw new Error(pool.left.message)
  let selectionMs = 0
  const t0 = performance.now()
  const run = timed(() =>
    // The first 'estimate' report comes when estimation starts: everything before is serial.
    auditMechanism({ ...spec, executor: pool.right, onProgress: (p) => (p.phase === 'estimate' && selectionMs === 0 ? (selectionMs = performance.now() - t0) : undefined) }),
  )
  pool.right.close()
  pooled[w] = report(`audit laplace, ${w} worker thread${w === 1 ? '' : 's'}`, TRIALS, run.ms, {
    epsilonLowerBound: run.r.right.epsilonLowerBound,
    cpuSeconds: run.cpuSeconds,
    selectionSeconds: selectionMs / 1000,
    note: `${cpuNote(run, TRIALS)}; selection ${(selectionMs / 1000).toFixed(2)} s; ${run.r.right.epsilonLowerBound === inProc.r.right.epsilonLowerBound ? 'same ε_LB as in-thread ✓' : 'ε_LB DIFFERS ✗'}`,
  })
}

// 2a. The serial part (issue 23): pool start-up, selection's merging and choice, and result
// assembly run in this thread, outside the executor; the trials and selection's family fits run on
// the workers. Measured with the executor wrapped (time inside run() is the parallel part, time
// inside fit() the fits'; the verdict's statistics run in this thread, in the serial part); Amdahl's law then predicts the speed-up on N workers:
// T(N) = serial + parallel(1) / N + Σ over fit batches of max(batch(1) / N, its longest fit).
// The same audit with the fits in this thread (the executor without fit()) is timed for comparison.
const serialOf = (w, inlineFits = false) => {
  const threads0 = threadCpu()
  const t0 = performance.now()
  const pool = createWorkerPool(spec.mechanism, spec.pairs, w)
  if (pool._tag === 'Left') throw new Error(pool.left.message)
  const startMs = performance.now() - t0
  let inRun = 0
  let cpuRun = 0
  let inFit = 0
  const c0 = process.cpuUsage()
  // Fits' critical path: per batch of fits, the longest single fit (on 1 worker the fits are timed
  // one by one; a batch cannot finish faster than its longest fit on any number of workers).
  const fitBatches = []
  let chunks = 0
  // On 1 worker, where its work ran: the worker thread's last CPU read at every 8th chunk result (core-speeds.mjs
  // cpuSampler; the worker is the thread new since threads0), so the 1-worker baseline's ceiling is known.
  const where = w === 1 && threads0 !== null ? cpuSampler() : null
  let workerTids = null
  let results = 0
  const sampled = (onResult) =>
    where === null
      ? onResult
      : (...args) => {
          if (results++ % 8 === 0) where.sample((workerTids ??= readdirSync('/proc/self/task').filter((t) => !threads0.has(t))))
          return onResult(...args)
        }
  /** A job runner timed: on 1 worker job by job (each batch's sum and longest job), else as a whole. */
  const jobsOn = (runner) => (jobs) => {
    const t = performance.now()
    let out
    if (w === 1) {
      out = []
      let longest = 0
      for (const j of jobs) {
        const tj = performance.now()
        out.push(...runner([j]))
        longest = Math.max(longest, performance.now() - tj)
      }
      fitBatches.push({ sum: performance.now() - t, longest })
    } else out = runner(jobs)
    inFit += performance.now() - t
    return out
  }
  const executor = {
    workers: w,
    // The pool takes a phase's tasks as one batch (no barriers between batches): so does its wrapper.
    streams: pool.right.streams,
    run: (tasks, onResult, stop) => {
      const t = performance.now()
      const c = process.cpuUsage()
      const err = pool.right.run(tasks, sampled(onResult), stop)
      inRun += performance.now() - t
      const d = process.cpuUsage(c)
      cpuRun += (d.user + d.system) / 1e3
      chunks += tasks.length
      return err
    },
    // Selection's family fits run on the pool's workers (issue 23):
    // timed apart from the serial part, as parallel jobs whose batches cannot end before their longest job.
    fit: inlineFits ? undefined : jobsOn((jobs) => pool.right.fit(jobs)),
    close: () => pool.right.close(),
  }
  const r = auditMechanism({ ...spec, executor })
  const total = performance.now() - t0
  const cpu = process.cpuUsage(c0)
  const threads = byThreadKind(threads0, threadCpu())
  executor.close()
  // Per-chunk overhead: the executor's time beyond the hot loop's for these trials, spread over
  // the chunks and the workers (messages, scheduling, merging the counts on return); the same in
  // CPU time (all threads, this one's waiting excluded), which load from other work disturbs less.
  const hotMs = (r.right.trials.spent / hotRate) * 1000
  const hotCpuMs = (r.right.trials.spent / hotCpuRate) * 1000
  return {
    workers: w,
    total,
    cpuTotal: (cpu.user + cpu.system) / 1e3,
    startMs,
    parallel: inRun,
    fits: inFit,
    fitBatches,
    serial: total - inRun - inFit,
    chunks,
    chunkOverheadMs: Math.max(0, (inRun * w - hotMs) / Math.max(1, chunks)),
    chunkOverheadCpuMs: Math.max(0, (cpuRun - hotCpuMs) / Math.max(1, chunks)),
    // The same against the hot loop's rate with W threads busy (the machine's ceiling): what the pool adds.
    chunkOverheadBeyondCeilingMs: Math.max(0, (inRun * w - (r.right.trials.spent * w) / ceilings.get(w).trialsPerMs) / Math.max(1, chunks)),
    hotMs,
    threads,
    timeline: timelineStats(pool.right.timeline, w),
    epsilonLowerBound: r.right.epsilonLowerBound,
    residency: where?.counts ?? null,
  }
}
// Interleaved repetitions (1, 2, …, 1, 2, …): each worker count keeps its fastest run.
const fastest = new Map()
for (let rep = 0; rep < REPS; rep++)
  for (const w of WORKERS) {
    const x = serialOf(w)
    const b = fastest.get(w)
    if (b === undefined || x.total < b.total) fastest.set(w, { ...x, cpuBest: Math.min(x.cpuTotal, b?.cpuBest ?? Infinity) })
    else b.cpuBest = Math.min(b.cpuBest, x.cpuTotal)
  }
const runs = WORKERS.map((w) => fastest.get(w))
// The same audit with the fits in this thread (as before issue 23's change): its serial fraction, for comparison.
const inline1 = serialOf(1, true)
const amdahlInline = (n) => inline1.total / (inline1.serial + inline1.parallel / n)
const s1 = runs[0]
const s2 = runs.find((x) => x.workers === 2) ?? serialOf(2)
const fraction = s1.serial / s1.total
// Amdahl with the fits: each batch of fits takes its share on n workers, but never less than its longest fit.
const fitsOn = (n) => s1.fitBatches.reduce((a, b) => a + Math.max(b.sum / n, b.longest), 0)
const amdahl = (n) => s1.total / (s1.serial + s1.parallel / n + fitsOn(n))
// The same without the fresh pool's start: what an audit on kept threads (acquireWorkerPool, the CLI's second audit on) pays.
const warmAmdahl = (n) => (s1.total - s1.startMs) / (s1.serial - s1.startMs + s1.parallel / n + fitsOn(n))
// Amdahl with the per-chunk overhead made explicit (issue 23: per-chunk overhead at W): the hot loop's
// time for the trials, plus each chunk's overhead as measured on `at` workers, shared among n.
const widest = runs[runs.length - 1]
const amdahlChunks = (n, at) => s1.total / (s1.serial + (s1.hotMs + s1.chunks * at.chunkOverheadMs) / n + fitsOn(n))
// The trials at which the prediction for 16 workers reaches ×12: the fixed part (pool start, serial,
// the jobs) stays as measured, the trials' part grows in proportion (selection is capped, so nearly
// all added trials are estimation). T1(n) = F1 + b·n, T16(n) = F16 + b·n / 16 ⇒ T1 = 12·T16 at
// n = (12·F16 − F1) / (b·(1 − 12/16)).
const fixed16 = s1.serial + fitsOn(16)
const perTrial = s1.parallel / TRIALS
const trialsFor12 = perTrial > 0 ? Math.max(0, (12 * fixed16 - (s1.total - s1.parallel)) / (perTrial * (1 - 12 / 16))) : null
// The --trials audit's per-core times (section 0's probes): its 1-worker run's trials part (the chunks'
// wall) at the hot loop's per-core ratios, the rest (pool start, serial part, fits) at the small audit's.
const blendOf = (audit, hot) =>
  blendProbes(
    `the ${TRIALS.toLocaleString('en-US')}-trial audit on 1 worker, blended: its trials' ${(s1.parallel / 1000).toFixed(2)} s at the hot loop's per-core ratios, its other ${((s1.total - s1.parallel) / 1000).toFixed(2)} s at the small audit's`,
    [
      { probe: hot, ms: s1.parallel },
      { probe: audit, ms: s1.total - s1.parallel },
    ],
  )
const blended = blendOf(auditProbe, hotProbe)
const serial = {
  trialsFor12,
  seconds: s1.serial / 1000,
  chunkOverheadAt: runs.map((x) => ({ workers: x.workers, wallMs: x.chunkOverheadMs, cpuMs: x.chunkOverheadCpuMs })),
  predicted16WithChunkOverheadAt: { workers: widest.workers, speedup: amdahlChunks(16, widest) },
  fraction,
  measured2: s1.total / s2.total,
  predicted2: amdahl(2),
  predicted16: amdahl(16),
  sameBound: [...runs, inline1].every((x) => x.epsilonLowerBound === s1.epsilonLowerBound),
  fitsSeconds: s1.fits / 1000,
  poolStartSeconds: s1.startMs / 1000,
  warmFraction: (s1.serial - s1.startMs) / (s1.total - s1.startMs),
  warmPredicted16: warmAmdahl(16),
  // Amdahl from the serial fraction alone, 1 / (f + (1 − f) / 16): the fits counted as
  // perfectly parallel (the line below adds their critical path).
  plainAmdahl16: 1 / (fraction + (1 - fraction) / 16),
  warmPlainAmdahl16: 1 / ((s1.serial - s1.startMs) / (s1.total - s1.startMs) + (1 - (s1.serial - s1.startMs) / (s1.total - s1.startMs)) / 16),
  inlineFits: { seconds: inline1.total / 1000, serialSeconds: inline1.serial / 1000, fraction: inline1.serial / inline1.total, predicted16: amdahlInline(16) },
  fitsCriticalSeconds: fitsOn(Infinity) / 1000,
  byWorkers: runs.map((x) => ({ workers: x.workers, seconds: x.total / 1000, cpuSeconds: x.cpuBest / 1000, serialSeconds: x.serial / 1000, fitsSeconds: x.fits / 1000, serialFraction: x.serial / x.total, chunks: x.chunks, chunkOverheadMs: x.chunkOverheadMs, chunkOverheadBeyondCeilingMs: x.chunkOverheadBeyondCeilingMs, speedup: s1.total / x.total, ceiling: ceilingAt(x.workers), ofCeiling: s1.total / x.total / ceilingAt(x.workers), amdahl: amdahl(x.workers), timeline: x.timeline, epsilonLowerBound: x.epsilonLowerBound })),
}
if (!values.json) {
  console.log(
    `serial part of a ${TRIALS.toLocaleString('en-US')}-trial audit: ${(s1.serial / 1000).toFixed(2)} s of ${(s1.total / 1000).toFixed(2)} s = ${(100 * fraction).toFixed(2)}% ` +
      `(pool start, selection's merging and choice, result); family fits on the workers ${(s1.fits / 1000).toFixed(2)} s on 1 (critical path ${(fitsOn(Infinity) / 1000).toFixed(2)} s); ` +
      `measured ×${serial.measured2.toFixed(2)} on 2 workers (Amdahl predicts ×${serial.predicted2.toFixed(2)}), Amdahl predicts ×${serial.predicted16.toFixed(1)} on 16`,
  )
  console.log(
    `of which the fresh pool's start ${(s1.startMs / 1000).toFixed(2)} s; without it (threads kept between audits) ${(100 * serial.warmFraction).toFixed(2)}% serial → Amdahl ×${serial.warmPredicted16.toFixed(1)} on 16`,
  )
  console.log(
    `the same audit with the fits in this thread: serial ${(inline1.serial / 1000).toFixed(2)} s of ${(inline1.total / 1000).toFixed(2)} s = ${(100 * inline1.serial / inline1.total).toFixed(2)}% → Amdahl ×${amdahlInline(16).toFixed(1)} on 16${inline1.epsilonLowerBound === s1.epsilonLowerBound ? '' : '; ε_LB DIFFERS ✗'}`,
  )
  console.log(
    `per-chunk overhead at W (wall, beyond the hot loop, per chunk and worker; CPU time of all threads in brackets): ${serial.chunkOverheadAt.map((x) => `W=${x.workers} ${x.wallMs.toFixed(2)} ms (${x.cpuMs.toFixed(2)} ms CPU)`).join(', ')}; ` +
      `Amdahl on 16 with the overhead at W=${widest.workers}: ×${serial.predicted16WithChunkOverheadAt.speedup.toFixed(1)}`,
  )
  console.log(
    `per-chunk overhead against the hot loop's rate with W threads busy (the machine ceiling's): ${runs.map((x) => `W=${x.workers} ${x.chunkOverheadBeyondCeilingMs.toFixed(2)} ms`).join(', ')}`,
  )
  console.log(`best of ${REPS} interleaved runs per worker count; CPU s: the least CPU time (all threads) of the runs; ceiling: the machine's (section 1a)`)
  console.log('workers  seconds  CPU s  serial s  serial %  jobs s  chunks  overhead/chunk  speed-up  Amdahl (from 1)  ceiling  of ceiling  ε_LB')
  for (const b of serial.byWorkers)
    console.log(
      `${String(b.workers).padStart(7)}  ${b.seconds.toFixed(2).padStart(7)}  ${b.cpuSeconds.toFixed(2).padStart(5)}  ${b.serialSeconds.toFixed(2).padStart(8)}  ${(100 * b.serialFraction).toFixed(1).padStart(8)}  ${b.fitsSeconds.toFixed(2).padStart(6)}  ${String(b.chunks).padStart(6)}  ${b.chunkOverheadMs.toFixed(2).padStart(11)} ms  ${`×${b.speedup.toFixed(2)}`.padStart(8)}  ${`×${b.amdahl.toFixed(2)}`.padStart(15)}  ${`×${b.ceiling.toFixed(2)}`.padStart(7)}  ${`${(100 * b.ofCeiling).toFixed(0)}%`.padStart(10)}  ${b.epsilonLowerBound.toFixed(4)}${b.epsilonLowerBound === s1.epsilonLowerBound ? '' : ' DIFFERS ✗'}`,
    )
  // Each speed-up beside the audit probe's per-core ceiling (section 0): the W fastest CPUs' summed
  // speed for this workload. Where the 1-worker baseline ran is not known (the OS placed it, and may have
  // moved it), so both ends are printed: measured / ceiling on the fastest CPU is the efficiency if it
  // ran there, an upper bound; on the slowest, a lower one.
  if (auditProbe.ok) {
    for (const line of formatProbe(blended)) console.log(line)
    console.log(`core-speed ceiling (the per-core times just above; the table's "ceiling" is section 1a's):`)
    for (const b of serial.byWorkers.filter((x) => x.workers > 1)) console.log(`  W=${String(b.workers).padEnd(3)} ${ceilingNote(blended, b.workers, b.speedup)}`)
  }
  // Issue 23's ×12 on 16 workers, judged from this run: where each worker count's time went, and
  // the floor under T(16) that 1 worker's parts imply (the serial part, the jobs' critical path, the trials' share).
  console.log('where the time went (s): workers, pool start, calling thread (serial, start excluded), fits (wall), chunks of trials (wall)')
  for (const x of runs)
    console.log(`  W=${String(x.workers).padEnd(3)} start ${(x.startMs / 1000).toFixed(3)}  serial ${((x.serial - x.startMs) / 1000).toFixed(3)}  jobs ${(x.fits / 1000).toFixed(3)}  trials ${(x.parallel / 1000).toFixed(3)}  total ${(x.total / 1000).toFixed(3)}  ×${(s1.total / x.total).toFixed(2)}`)
  console.log('what the threads did (pool timeline): last thread ready; fits: wall of each fit batch against its longest fit (sum of all fits); estimation: its wall, the workers\' busy share, and per worker (mean, ms) its first chunk\'s late start, that chunk\'s excess over the median chunk (cold start), gaps between chunks, and the tail before the batch ended')
  for (const x of runs) {
    const e = x.timeline.estimate
    console.log(
      `  W=${String(x.workers).padEnd(3)} ready ${x.timeline.readyLastMs.toFixed(0)} ms; ${fitLine(x.timeline.fitBatches)}; ` +
        `estimation ${e.wallMs.toFixed(0)} ms, ${e.chunks} chunks of median ${e.medianChunkMs.toFixed(1)} ms, busy ${(100 * e.busyShare).toFixed(1)}%: late start ${e.lateStartMs.toFixed(1)}, cold excess ${e.coldExcessMs.toFixed(1)}, gaps ${e.gapsMs.toFixed(1)}, tail ${e.tailMs.toFixed(1)}${e.idleWorkers > 0 ? `, ${e.idleWorkers} workers ran no chunk` : ''}`,
    )
  }
  if (runs.every((x) => x.threads !== null)) {
    // On a machine with exactly W cores every thread's CPU at W workers must fit on those W cores, so
    // T(W) ≥ CPU(W) / W and the speed-up is at most W · T(1) / CPU(W); at W = 1 the helpers and this
    // thread run on cores the one worker leaves idle, which the 2-core target (×1.9) must absorb.
    console.log('CPU by thread (s; the fastest run of each count): this thread, the workers, the helper threads (V8 compiler and GC, libuv)')
    for (const x of runs)
      console.log(`  W=${String(x.workers).padEnd(3)} this ${(x.threads.main / 1000).toFixed(3)}  workers ${(x.threads.workers / 1000).toFixed(3)}  helpers ${(x.threads.helpers / 1000).toFixed(3)}  = ${((x.threads.main + x.threads.workers + x.threads.helpers) / (x.total)).toFixed(2)} cores busy`)
    const h1 = runs[0].threads
    console.log(
      `on a machine with exactly W cores, ${h1.helpers > 0 ? `the helper threads' ${(h1.helpers / 1000).toFixed(2)} s at W=${runs[0].workers} (on a core the worker left idle) ` : ''}and the calling thread's ${(h1.main / 1000).toFixed(2)} s compete with the workers: ` +
        runs.slice(1).map((x) => `W=${x.workers} can reach at most ×${((x.workers * s1.total) / (x.threads.main + x.threads.workers + x.threads.helpers)).toFixed(2)} (this run's CPU over W cores)`).join(', '),
    )
  }
  const at16 = runs.find((x) => x.workers === 16)
  console.log(
    `×12 on 16 workers needs T(16) ≤ ${(s1.total / 12000).toFixed(3)} s. From 1 worker's parts T(16) ≥ start ${(s1.startMs / 1000).toFixed(3)} + serial ${((s1.serial - s1.startMs) / 1000).toFixed(3)} + jobs' critical path ${(fitsOn(16) / 1000).toFixed(3)} + trials ${(s1.parallel / 16000).toFixed(3)} = ${((s1.serial + fitsOn(16) + s1.parallel / 16) / 1000).toFixed(3)} s → ×${serial.predicted16.toFixed(1)}` +
      ` (threads kept: ×${serial.warmPredicted16.toFixed(1)}); Amdahl from the serial fraction alone (${(100 * fraction).toFixed(2)}%): ×${serial.plainAmdahl16.toFixed(1)} (threads kept, ${(100 * serial.warmFraction).toFixed(2)}%: ×${serial.warmPlainAmdahl16.toFixed(1)})` +
      (at16 === undefined ? '; run with --workers 1,2,4,8,16 to measure it' : `; measured: ×${(s1.total / at16.total).toFixed(2)} (${(at16.total / 1000).toFixed(3)} s)`),
  )
  console.log(
    `the audit's fixed part (start, serial, jobs: ${((s1.total - s1.parallel) / 1000).toFixed(3)} s on 1 worker, ${(fixed16 / 1000).toFixed(3)} s of T(16)) does not grow with the trials, the trials' part (${(s1.parallel / 1000).toFixed(3)} s) does: ` +
      (serial.trialsFor12 === null ? `×12 on 16 workers cannot be reached at any number of trials (the trials' share alone allows ×16 at most, less the chunk overhead)` : serial.trialsFor12 <= TRIALS ? `×12 on 16 workers is predicted from ${TRIALS.toLocaleString('en-US')} trials on` : `×12 on 16 workers is predicted from about ${Math.ceil(serial.trialsFor12 / 1e6).toLocaleString('en-US')} M trials (run with --trials ${Math.ceil(serial.trialsFor12 / 1e6)}000000 to check)`),
  )
}

// 2c. At the widest worker count, what two suspects cost (issue 23: what remains of ×12 on 16): the
// warm-up of idle threads' estimation loops during the fits (pool option warmUp, on by default), and
// V8's platform thread pool, which compiles and collects garbage for every isolate of the process —
// each worker thread is one — and has 4 threads unless Node is started with --v8-pool-size. The first
// pair runs here, the second in child processes (a fresh process each, as one `dpaudit audit` is),
// all interleaved, best of --reps each.
const widestW = Math.max(...WORKERS)
const suspects = { workers: widestW, rows: [] }
if (widestW > 1) {
  const child = (flags, args = compileArgs) => {
    const out = execFileSync(process.execPath, [...flags, process.argv[1], '--child-audit', String(widestW), '--trials', String(TRIALS), ...args], { encoding: 'utf8' })
    return JSON.parse(out.trim().split('\n').pop())
  }
  const variants = [
    ['as run (warm-up on)', () => quickAudit(widestW)],
    ['warm-up off', () => quickAudit(widestW, { warmUp: false })],
    ['child process, V8 platform pool 4 threads (Node default)', () => child([])],
    // the other compilation setting, in a fresh process: the one this run does not use
    [concurrentCompile ? `child process, ${WORKER_COMPILATION_FLAG} (as dpaudit)` : "child process, V8's background compiles (--concurrent-compile)", () => child([], concurrentCompile ? [] : ['--concurrent-compile'])],
    ...(widestW > 4 ? [[`child process, --v8-pool-size=${widestW}`, () => child([`--v8-pool-size=${widestW}`])]] : []),
  ]
  const bestOf = new Map()
  for (let rep = 0; rep < REPS; rep++)
    for (const [name, run] of rep % 2 === 0 ? variants : [...variants].reverse()) {
      const x = run()
      if (!(bestOf.get(name)?.ms <= x.ms)) bestOf.set(name, x)
    }
  suspects.rows = variants.map(([name]) => ({ name, ...bestOf.get(name) }))
  if (!values.json) {
    console.log(`at W=${widestW}, a fresh pool per audit (best of ${REPS} interleaved; speed-up against the W=1 row above; fits: wall; cold: the estimation's first chunk's excess per worker):`)
    for (const x of suspects.rows) {
      const e = x.timeline.estimate
      console.log(
        `  ${x.name.padEnd(56)} ${(x.ms / 1000).toFixed(3)} s  ×${(s1.total / x.ms).toFixed(2)}  CPU ${x.cpuSeconds.toFixed(2)} s  fits ${x.timeline.fitBatches.reduce((a, b) => a + b.wall, 0).toFixed(0)} ms  estimation ${e.wallMs.toFixed(0)} ms (cold ${e.coldExcessMs.toFixed(1)} ms, busy ${(100 * e.busyShare).toFixed(0)}%)${x.epsilonLowerBound === s1.epsilonLowerBound ? '' : '  ε_LB DIFFERS ✗'}`,
      )
    }
  }
}

// 2b. Pool start-up: the first audit on W threads starts them; later audits re-initialise them.
const startup = {}
for (const w of [...new Set([1, 2, Math.min(cores, Math.max(...WORKERS))])]) {
  closeSharedWorkerPool()
  // The first acquisition starts the threads (a zoo audit on one worker runs in this thread and
  // would not); later ones re-initialise them.
  const first = timed(() => acquireWorkerPool(spec.mechanism, spec.pairs, w).right.close())
  const acquire = []
  const small = []
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    const p = acquireWorkerPool(spec.mechanism, spec.pairs, w)
    acquire.push(performance.now() - t)
    p.right.close()
    small.push(timed(() => auditZoo('laplace', { trials: 20_000, seed: `bench-${i}`, workers: w })).ms)
  }
  startup[w] = { firstStartMs: first.ms, poolStartMs: Math.max(...acquire), smallAuditMs: Math.max(...small) }
  if (!values.json)
    console.log(`pool, ${w} worker${w === 1 ? '' : 's'}: first start ${first.ms.toFixed(0)} ms; later (threads kept): pool start-up ≤ ${Math.max(...acquire).toFixed(1)} ms over 5 audits; whole 20k-trial audit ≤ ${Math.max(...small).toFixed(0)} ms`)
}

// 3. The broken histogram, 1,000,000 trials on all workers.
const histWorkers = Math.min(cores, Math.max(...WORKERS))
const hist = timed(() => auditZoo('histogram-inverted', { trials: 1_000_000, seed: 'bench', workers: histWorkers }))
const h = hist.r.right
report(`audit histogram-inverted, ${histWorkers} workers`, 1_000_000, hist.ms, {
  verdict: h.verdict,
  epsilonLowerBound: h.epsilonLowerBound,
  note: `${h.verdict}, ε_LB = ${h.epsilonLowerBound.toFixed(3)} vs claim ${h.claim.epsilon} (true ${1 / h.claim.epsilon})`,
})

// 0b. The per-core probe again (the CPUs of a VM can change speed within minutes): both ends are stated.
const [auditProbeEnd, hotProbeEnd] = auditProbe.ok ? await probeAudit() : [auditProbe, hotProbe]
const blendedEnd = blendOf(auditProbeEnd, hotProbeEnd)
if (!values.json && auditProbe.ok) {
  console.log('\nthe per-core probe again, at the end:')
  for (const line of [...formatProbe(auditProbeEnd), ...formatProbe(hotProbeEnd), ...formatProbe(blendedEnd)]) console.log(line)
  console.log(`core-speed ceiling, by the probes at the start and at the end:`)
  for (const b of serial.byWorkers.filter((x) => x.workers > 1)) console.log(`  W=${String(b.workers).padEnd(3)} ${ceilingNote(blended, b.workers, b.speedup, blendedEnd)}`)
  // where the fastest 1-worker run's work ran (its estimation chunks; the fits are not sampled)
  for (const b of serial.byWorkers.filter((x) => x.workers > 1)) {
    const notes = [blended, blendedEnd].map((p) => baselineNote(p, b.workers, b.speedup, s1.residency))
    if (notes[0] !== null) console.log(`  W=${String(b.workers).padEnd(3)} ${notes[0]} (probe at the start)${notes[1] === null ? '' : `; by the probe at the end ${notes[1].slice(notes[1].indexOf('→') + 2)}`}`)
  }
}
const load1 = loadavg()
// On a machine shared with other work the wall-clock ratio is capped by the CPU this process gets
// ("cores busy" above); trials per CPU-second show what the pool costs independently of that.
const perCore = single.trialsPerSecond
const two = pooled[2]?.trialsPerSecond ?? Number.NaN
const sameEverywhere = serial.sameBound && suspects.rows.every((x) => x.epsilonLowerBound === s1.epsilonLowerBound)
const checks = [
  [`≥ 1e6 trials/s in one thread (scalar Laplace)`, perCore >= 1e6, `${(perCore / 1e6).toFixed(2)} M/s`],
  [`same ε_LB on every worker count (${WORKERS.join(', ')}) and variant`, sameEverywhere, sameEverywhere ? 'yes' : 'NO'],
  [`2 workers ≥ 1.8× one worker thread (${TRIALS.toLocaleString('en-US')}-trial audit)`, two >= 1.8 * pooled[1].trialsPerSecond, `${(two / pooled[1].trialsPerSecond).toFixed(2)}×`],
  [`pool start-up < 50 ms after the first audit (2 workers)`, (startup[2]?.poolStartMs ?? Infinity) < 50, `${(startup[2]?.poolStartMs ?? Number.NaN).toFixed(1)} ms`],
  [`2 workers ≥ 1.8× in-thread`, two >= 1.8 * perCore, `${(two / perCore).toFixed(2)}×`],
  [`issue 23: 2 workers ≥ 1.9× one (serial part included; best of ${REPS} interleaved)`, serial.measured2 >= 1.9, `${serial.measured2.toFixed(3)}×`],
  [`issue 23: per-chunk overhead at W=${widest.workers} allows ≥ 12× on 16 workers (Amdahl)`, serial.predicted16WithChunkOverheadAt.speedup >= 12, `×${serial.predicted16WithChunkOverheadAt.speedup.toFixed(2)}`],
  [`issue 23: serial fraction allows ≥ 12× on 16 workers (Amdahl, 1 / (f + (1 − f) / 16))`, serial.plainAmdahl16 >= 12, `${(100 * serial.fraction).toFixed(2)}% serial → ×${serial.plainAmdahl16.toFixed(2)}`],
  [`issue 23: serial fraction and the fits' critical path allow ≥ 12× on 16 workers`, serial.predicted16 >= 12, `×${serial.predicted16.toFixed(2)}`],
  ...(ceilings.has(16)
    ? [[`the machine allows ≥ 12× on 16 threads (the hot loop alone; else no audit can reach ×12 here)`, ceilingAt(16) >= 12, `×${ceilingAt(16).toFixed(2)}${physicalCores === null ? '' : ` (${physicalCores} physical cores)`}`]]
    : []),
  ...(runs.some((x) => x.workers === 16)
    ? [[`issue 23: 16 workers ≥ 12× one (measured, best of ${REPS} interleaved)`, s1.total / runs.find((x) => x.workers === 16).total >= 12, `×${(s1.total / runs.find((x) => x.workers === 16).total).toFixed(2)}`]]
    : []),
  [`issue 23: the same on threads kept between audits (Amdahl, no pool start)`, serial.warmPredicted16 >= 12, `${(100 * serial.warmFraction).toFixed(2)}% serial → ×${serial.warmPredicted16.toFixed(2)}`],
  [`1e6-trial histogram audit < 60 s and a violation`, hist.ms < 60_000 && h.verdict === 'violation', `${(hist.ms / 1000).toFixed(2)} s, ${h.verdict}`],
]
// Issue 23's ×1.9 on 2 workers against what this machine's CPUs allow for the audit (section 0's probe).
const target2 = `${targetNote(blended, 2, 1.9, blendedEnd)}; measured ×${serial.measured2.toFixed(2)}`
if (values.json) console.log(JSON.stringify({ cores, physicalCores, suspects, ceilings: [...ceilings.values()].map((c) => ({ ...c, speedup: ceilingAt(c.workers) })), coreSpeeds: { audit: auditProbe, hotLoop: hotProbe, blended, atEnd: { audit: auditProbeEnd, hotLoop: hotProbeEnd, blended: blendedEnd }, baselineCpus: s1.residency === null ? null : Object.fromEntries(s1.residency), target2 }, node: process.version, loadavg: { before: load0, after: load1 }, rows, startup, serial, checks }, null, 2))
else {
  console.log(`\nload average after: ${load1.map((x) => x.toFixed(2)).join(' ')}`)
  for (const [what, ok, got] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${what}: ${got}`)
  if (blended.ok) console.log(`NOTE  issue 23 on this machine's CPUs (section 0): ${target2}`)
}
