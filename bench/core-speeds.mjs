// Per-core speed probe: how fast each CPU of this machine runs a piece of a bench's own workload, and
// the W-thread speed-up that this allows. Why: on a VM the CPUs need not be equal (the 2-core VM of
// 2026-11-28 ran a scalar ALU loop ×1.4 slower pinned to CPU 1 than to CPU 0 at 08:35 UTC, and ×1.4 slower
// on CPU 0 than on CPU 1 at 08:41, while memory-latency-bound code showed little difference), so a 2-worker
// speed-up is capped near 1 + t(fast)/t(slow), not 2, by an amount that depends on the code and changes
// with the host. A bench probes when it runs and prints its measured speed-up beside this ceiling.
//
// How: the piece runs in one child process per CPU, each pinned with `taskset -c i` (every thread of
// the child, V8's helpers included, runs on that CPU), each CPU alone (the runs are sequential,
// interleaved over the CPUs, the order reversed every other round), best of --reps (3) per CPU, after
// an untimed warm-up run on all CPUs at once; each round then also times the piece on every CPU at the
// same time (persistent children), as W = ncpu workers run. A CPU's time is its CPU time where the child reports it:
// the child is pinned, so that is the time it held the CPU (another process sharing that CPU does not
// count; a CPU the hypervisor runs slower does), else its wall time.
//
// Ideal speed-up on W threads with dynamic load balancing: the piece on the fastest core, against the W
// fastest cores working on it together, each at its own rate: S(W) = Σ over the W fastest cores of
// t_fastest / t_i. It assumes the 1-thread baseline ran on the fastest core. A 1-thread run the OS
// placed on a slower core is slower, and the same W threads then beat it by up to t_slowest / t_fastest
// more; since a bench does not know where its 1-thread run went, it states both (see `ceilingNote`).
// S(W) is from each CPU alone: what the CPUs lose to each other when all are busy (a shared cache, an
// all-core clock, SMT siblings, the host) is not in it; the "every CPU at once" line measures that at
// W = ncpu (Σ t_fastest alone / t_i together), and audit.bench.mjs's section 1a for its hot loop at every W.
//
// Cost: set-up and one warm-up run (all CPUs at once), then reps × (ncpu + 1) runs of each piece; the runs
// alone are sequential, so the cost grows with the CPUs: on 2 CPUs the benches' probes take 4–12 s, on 16 the
// audit bench's (about 0.6 s a round per CPU) would take about 35 s each time it probes.
//
// Two kinds of child:
// - persistent (the default): the child is a Node script that calls `serveCoreProbe`; it sets up once
//   (modules, data: untimed), prints {"ready":true}, then times one run of a piece per line "run" (or
//   "run <piece>": one child may serve several pieces) on its stdin and prints {"ms", "cpuMs"}: start-up
//   costs nothing and the runs are warm, as in a bench;
// - once (--once; any program, e.g. a C binary): one child process per run, timed from outside
//   (start-up included), unless its last stdout line is JSON with "ms".
//
//   node bench/core-speeds.mjs [--reps 3] [--once | --pieces a,b] -- <command> [args...]
// prints the table for any command (a persistent child must call serveCoreProbe; --pieces names the
// pieces of a child that serves several), e.g. the audit's and HDP-LDA's probes alone:
//   node bench/core-speeds.mjs --pieces audit,hot-loop -- node bench/audit.bench.mjs --core-probe serve --trials 300000
//   node bench/core-speeds.mjs -- node bench/lda.bench.mjs --core-probe-fit 10
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus as osCpus } from 'node:os'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

/** "0-3,5" → [0, 1, 2, 3, 5]. */
const parseCpuList = (s) =>
  s
    .split(',')
    .filter((x) => x !== '')
    .flatMap((r) => {
      const [a, b = a] = r.split('-').map(Number)
      return Array.from({ length: b - a + 1 }, (_, i) => a + i)
    })

/**
 * The CPUs this process may run on (sched_getaffinity: /proc's Cpus_allowed_list, else `taskset -cp`),
 * or why they cannot be probed: { ok: true, cpus, online } | { ok: false, why } (one line).
 */
export const coreProbeAvailability = () => {
  const taskset = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' })
  if (taskset.error !== undefined || taskset.status !== 0)
    return { ok: false, why: `per-core probe skipped: taskset is not available here (${taskset.error?.code ?? String(taskset.stderr).trim()}), so the CPUs cannot be timed one by one` }
  let list
  try {
    list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
  } catch {}
  list ??= /:\s*(\S+)\s*$/.exec(taskset.stdout)?.[1]
  const cpus = list === undefined ? [] : parseCpuList(list)
  const online = osCpus().length
  if (cpus.length < 2)
    return { ok: false, why: `per-core probe skipped: sched_getaffinity allows this process ${cpus.length === 0 ? 'no readable CPU list' : `only CPU ${cpus.join(',')}`} of the ${online} online, nothing to compare` }
  return { ok: true, cpus, online }
}

/** Lines of `stream` that parse as JSON objects, one promise per call to the function returned (in order). */
const jsonLines = (stream, onEnd) => {
  const ready = []
  const waiting = []
  createInterface({ input: stream })
    .on('line', (line) => {
      let x
      try {
        x = JSON.parse(line)
      } catch {
        return
      }
      if (x === null || typeof x !== 'object') return
      if (waiting.length > 0) waiting.shift().resolve(x)
      else ready.push(x)
    })
    .on('close', () => {
      for (const w of waiting.splice(0)) w.reject(new Error(onEnd()))
    })
  return () => (ready.length > 0 ? Promise.resolve(ready.shift()) : new Promise((resolve, reject) => waiting.push({ resolve, reject })))
}

/** The line of a child's stderr that says what went wrong: the last naming an error, else the last. */
const lastError = (stderr) => {
  const lines = stderr.trim().split('\n')
  return lines.findLast((l) => /error/i.test(l)) ?? lines.at(-1)
}

/** A persistent child pinned to `cpu`: { ready, run(piece), close }. */
const RUN_TIMEOUT_MS = 300_000
const pinnedChild = (cpu, command) => {
  const child = spawn('taskset', ['-c', String(cpu), ...command], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)))
  let exited = null
  child.on('exit', (code, signal) => (exited = signal ?? code))
  const next = jsonLines(child.stdout, () => `the probe's child on CPU ${cpu} ended before answering${exited === null ? '' : ` (exit ${exited})`}${stderr.trim() === '' ? ' (did it call serveCoreProbe?)' : `: ${lastError(stderr)}`}`)
  child.stdin.on('error', () => undefined) // a child that died is reported by `next`
  return {
    ready: next,
    run: (piece) => {
      child.stdin.write(piece === undefined ? 'run\n' : `run ${piece}\n`)
      // a child that stops answering fails the probe (one line) instead of holding up the bench
      let timer
      return Promise.race([
        next(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the probe's child on CPU ${cpu} did not answer within ${RUN_TIMEOUT_MS / 1000} s`)), RUN_TIMEOUT_MS))),
      ]).finally(() => clearTimeout(timer))
    },
    close: () => {
      child.stdin.end()
      if (exited === null) child.kill()
    },
  }
}

/** One run of `command` pinned to `cpu`, in its own process: its JSON "ms" if it prints one last, else the wall time of the process. */
const onceOn = (cpu, command) => {
  const t = performance.now()
  const r = spawnSync('taskset', ['-c', String(cpu), ...command], { encoding: 'utf8', maxBuffer: 1 << 26 })
  const wall = performance.now() - t
  if (r.error !== undefined || r.status !== 0) throw new Error(`the probe's command on CPU ${cpu} failed (exit ${r.status ?? r.error?.code}): ${lastError(String(r.stderr))}`)
  try {
    const x = JSON.parse(r.stdout.trim().split('\n').pop())
    if (typeof x.ms === 'number') return { ms: x.ms, cpuMs: x.cpuMs ?? null }
  } catch {}
  return { ms: wall, cpuMs: null }
}

/** S(W) from per-core times: the W fastest cores together against the fastest alone; W beyond the cores counts the cores. */
export const idealSpeedup = (times, w) => {
  const t = [...times].sort((a, b) => a - b)
  return t.slice(0, Math.min(w, t.length)).reduce((a, ti) => a + t[0] / ti, 0)
}

/** A probe's result from its runs per CPU (best wall time each). */
const probeFrom = (label, reps, mode, online, runsByCpu, seconds, pieces, togetherByCpu) => {
  // A CPU's time is its best run's CPU time where the child reports it (the child is pinned to that CPU,
  // so its CPU time is the time it held that CPU: other processes sharing the CPU do not count, a slow
  // CPU does), else its best wall time.
  const byCpuTime = [...runsByCpu.values()].every((runs) => runs.every((x) => typeof x.cpuMs === 'number'))
  const t = (x) => (byCpuTime ? x.cpuMs : x.ms)
  const bestOf = (byCpu) =>
    [...byCpu].map(([cpu, runs]) => {
      const best = runs.reduce((a, x) => (t(x) < t(a) ? x : a))
      return { cpu, ms: t(best), wallMs: best.ms, runs: runs.map(t) }
    })
  return withIdeal({ ok: true, label, reps, mode, measure: byCpuTime ? 'CPU time' : 'wall time', cpus: bestOf(runsByCpu), together: togetherByCpu == null ? null : bestOf(togetherByCpu), online, seconds, pieces })
}
// S(W) from the times alone; with every CPU busy at once, S(ncpu) = Σ t_fastest (alone) / t_i (together).
const withIdeal = (probe) => {
  const times = probe.cpus.map((c) => c.ms)
  const fastestMs = Math.min(...times)
  return {
    ...probe,
    fastestMs,
    slowestMs: Math.max(...times),
    ideal: probe.cpus.map((_, i) => idealSpeedup(times, i + 1)),
    idealTogether: probe.together === null ? null : probe.together.reduce((a, c) => a + fastestMs / c.ms, 0),
  }
}

/**
 * Times `command` on each CPU this process may use. `label` names the piece in the output. With
 * `pieces` ([{ name, label }], persistent children only) the same children time each piece in turn
 * and an array of probes comes back, one per piece.
 * A probe is { ok: false, why } (one line) where it cannot be made, else { ok: true, label, reps, mode,
 * measure ('CPU time' where every run reported it, else 'wall time'), cpus: [{ cpu, ms, wallMs, runs }]
 * (ms: the best run's time by that measure; wallMs: its wall time; runs: every run's), fastestMs,
 * slowestMs, ideal: [S(1), …, S(ncpu)], seconds (the probe's wall time) }.
 */
export const probeCoreSpeeds = async ({ command, label, reps = 3, once = false, pieces }) => {
  const list = pieces ?? [{ name: undefined, label }]
  const answer = (xs) => (pieces === undefined ? xs[0] : xs)
  const avail = coreProbeAvailability()
  if (!avail.ok) return answer(list.map(() => avail))
  if (once && pieces !== undefined) throw new Error('probeCoreSpeeds: pieces need persistent children')
  const started = performance.now()
  const runs = list.map(() => new Map(avail.cpus.map((c) => [c, []])))
  const together = list.map(() => new Map(avail.cpus.map((c) => [c, []])))
  const children = once ? [] : avail.cpus.map((c) => [c, pinnedChild(c, command)])
  try {
    // the children start, set up and run each piece once at the same time (untimed: V8 compiles the
    // piece's code), each on its own CPU
    await Promise.all(children.map(([, ch]) => ch.ready()))
    for (const p of list) await Promise.all(children.map(([, ch]) => ch.run(p.name)))
    const byCpu = new Map(children)
    for (let r = 0; r < reps; r++) {
      for (const c of r % 2 === 0 ? avail.cpus : [...avail.cpus].reverse())
        for (const [k, p] of list.entries()) runs[k].get(c).push(once ? onceOn(c, command) : await byCpu.get(c).run(p.name))
      // and every CPU at once, as W = ncpu workers run (the CPUs of a VM may slow each other down)
      for (const [k, p] of list.entries()) (await Promise.all(children.map(([, ch]) => ch.run(p.name)))).forEach((x, i) => together[k].get(avail.cpus[i]).push(x))
    }
  } catch (e) {
    const failed = { ok: false, why: `per-core probe failed: ${e instanceof Error ? e.message : String(e)}` }
    return answer(list.map(() => failed))
  } finally {
    for (const [, ch] of children) ch.close()
  }
  const seconds = (performance.now() - started) / 1000
  return answer(list.map((p, k) => probeFrom(p.label, reps, once ? 'once' : 'persistent', avail.online, runs[k], seconds, list.length, once ? null : together[k])))
}

/**
 * Per-core times of a workload made of parts that were probed apart: CPU i's time is Σ over the parts of
 * the part's seconds (as measured in the bench, on whatever CPU) × t_i / t_fastest of that part's probe.
 * For a workload whose parts run at different speed ratios (the audit's fits and its hot loop).
 */
export const blendProbes = (label, parts) => {
  const bad = parts.find((x) => !x.probe.ok)
  if (bad !== undefined) return bad.probe
  const first = parts[0].probe
  const blend = (of) => first.cpus.map((c, i) => ({ cpu: c.cpu, ms: parts.reduce((a, x) => a + (x.ms * of(x.probe)[i].ms) / x.probe.fastestMs, 0), wallMs: null, runs: [] }))
  const together = parts.every((x) => x.probe.together !== null) ? blend((p) => p.together) : null
  return withIdeal({ ok: true, label, reps: first.reps, mode: 'blend', measure: 'blend', cpus: blend((p) => p.cpus), together, online: first.online, seconds: 0 })
}

/**
 * The child's side of a persistent probe: `setup()` once (untimed; may be async), then one timed
 * `piece(context)` per line "run" on stdin (`pieces` a function), or `pieces[name](context)` per line
 * "run <name>" (`pieces` an object), each answered by a JSON line { ms, cpuMs }; exits at EOF.
 */
export const serveCoreProbe = async (setup, pieces) => {
  const context = await setup()
  console.log(JSON.stringify({ ready: true }))
  for await (const line of createInterface({ input: process.stdin })) {
    const m = /^run(?: (\S+))?$/.exec(line.trim())
    if (m === null) continue
    const piece = typeof pieces === 'function' ? pieces : pieces[m[1]]
    if (piece === undefined) {
      console.error(`core-speeds: no piece ${m[1]} here (${Object.keys(pieces).join(', ')})`)
      process.exit(2)
    }
    const c = process.cpuUsage()
    const t = performance.now()
    piece(context)
    const ms = performance.now() - t
    const d = process.cpuUsage(c)
    console.log(JSON.stringify({ ms, cpuMs: (d.user + d.system) / 1000 }))
  }
  process.exit(0) // worker threads a piece left parked must not keep the child alive
}

/** W-thread ceiling from a probe: S(W) on the fastest cores, and up to S(W) · t_slowest / t_fastest. */
export const coreCeiling = (probe, w) => {
  const s = probe.ideal[Math.min(w, probe.ideal.length) - 1]
  return { fastestBaseline: s, slowestBaseline: (s * probe.slowestMs) / probe.fastestMs }
}

/** The probe in lines: per CPU its time and speed against the fastest, then S(W). */
export const formatProbe = (probe) => {
  if (!probe.ok) return [probe.why]
  const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1))
  const waited = probe.measure === 'CPU time' ? probe.cpus.filter((c) => c.wallMs > 1.15 * c.ms) : []
  return [
    `per-core ${probe.mode === 'blend' ? 'times' : 'probe'} (${probe.label}${probe.mode === 'blend' ? '' : `; each CPU alone, the whole child pinned with taskset -c i, ${probe.mode === 'once' ? 'a process per run, ' : ''}best of ${probe.reps} interleaved, ${probe.seconds.toFixed(1)} s${probe.pieces > 1 ? ` for the probe's ${probe.pieces} pieces` : ''}`}): ` +
      `${probe.measure === 'blend' ? '' : `${probe.measure}, `}` +
      probe.cpus.map((c) => `CPU ${c.cpu} ${ms(c.ms)} ms${probe.measure === 'CPU time' ? ` (wall ${ms(c.wallMs)})` : ''} (×${(probe.fastestMs / c.ms).toFixed(2)} the fastest's speed)`).join(', ') +
      (probe.cpus.length < probe.online ? `; this process may use ${probe.cpus.length} of the ${probe.online} online CPUs (sched_getaffinity), only those are probed` : '') +
      (waited.length > 0 ? `; CPU ${waited.map((c) => c.cpu).join(', ')}: wall > 1.15 × CPU time (other load shared that CPU, or the child waited)` : ''),
    `ideal speed-up (the W fastest CPUs together against the fastest alone, Σ t_fastest / t_i; no loss between busy cores): ` +
      probe.ideal.map((s, i) => `W=${i + 1} ×${s.toFixed(2)}`).join(', ') +
      (probe.slowestMs > probe.fastestMs ? ` (from a 1-thread run on the slowest CPU, ×${(probe.slowestMs / probe.fastestMs).toFixed(2)} these: ${probe.ideal.slice(1).map((s, i) => `W=${i + 2} ×${((s * probe.slowestMs) / probe.fastestMs).toFixed(2)}`).join(', ')})` : ''),
    ...(probe.together === null
      ? []
      : [
          `every CPU at once (the piece on all ${probe.together.length} CPUs at the same time${probe.mode === 'blend' ? '' : `, best of ${probe.reps}`}): ` +
            probe.together.map((c) => `CPU ${c.cpu} ${ms(c.ms)} ms (×${(probe.fastestMs / c.ms).toFixed(2)} the fastest's speed alone)`).join(', ') +
            ` → W=${probe.together.length} ×${probe.idealTogether.toFixed(2)} against the fastest CPU alone (×${probe.ideal.at(-1).toFixed(2)} from the times alone)`,
        ]),
  ]
}

/**
 * A measured speed-up at W beside the probe's ceiling. Where the 1-worker baseline ran is unknown: on the
 * fastest core the ceiling is S(W) (the lowest it can be), and measured / S(W) is the efficiency if it did;
 * had it run on the slowest core the measured speed-up is inflated by up to t_slowest / t_fastest and the
 * efficiency is as low as measured / (S(W) · t_slowest / t_fastest). Both are stated. With `endProbe` (the
 * same probe again after the measurements: the CPUs of a VM can change speed within minutes) its ceiling
 * follows.
 */
export const ceilingNote = (probe, w, measured, endProbe) => {
  if (!probe.ok) return 'no per-core ceiling (probe skipped)'
  const pct = (x) => `${(100 * x).toFixed(0)}%`
  const one = (p) => {
    const c = coreCeiling(p, w)
    return c.slowestBaseline > c.fastestBaseline * 1.0005
      ? `×${c.fastestBaseline.toFixed(2)} if the 1-worker baseline ran on the fastest CPU → ${pct(measured / c.fastestBaseline)} of it (an upper bound of the efficiency); ×${c.slowestBaseline.toFixed(2)} if it ran on the slowest → ${pct(measured / c.slowestBaseline)}`
      : `×${c.fastestBaseline.toFixed(2)} → ${pct(measured / c.fastestBaseline)} of it`
  }
  const busy = (p) => (p.idealTogether !== null && w >= p.cpus.length ? ` [every CPU busy at once: ×${p.idealTogether.toFixed(2)} → ${pct(measured / p.idealTogether)}]` : '')
  return `measured ×${measured.toFixed(2)}; ceiling ${one(probe)}${busy(probe)}${endProbe?.ok ? `; by the probe at the end ${one(endProbe)}${busy(endProbe)}` : ''}`
}

/**
 * Where a thread runs, sampled: `sample(tids)` reads the CPU each thread of this process last ran on
 * (/proc/self/task/<tid>/stat, field 39; 'thread-self' for the calling thread; Linux only, a no-op
 * elsewhere) and counts it. Sampled at equal amounts of work (a chunk, an iteration), the counts are the
 * share of the work each CPU did: what tells where a 1-worker baseline ran.
 */
export const cpuSampler = () => {
  const counts = new Map()
  return {
    counts,
    sample: (tids) => {
      for (const tid of tids) {
        try {
          const stat = readFileSync(tid === 'thread-self' ? '/proc/thread-self/stat' : `/proc/self/task/${tid}/stat`, 'utf8')
          const cpu = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[36])
          if (Number.isInteger(cpu)) counts.set(cpu, (counts.get(cpu) ?? 0) + 1)
        } catch {}
      }
    },
  }
}

/**
 * The ceiling at W for a 1-worker baseline whose work the sampler saw on each CPU in the counts' shares:
 * its time per unit of work is Σ_j share_j · t_j, so the ceiling is S(W) · Σ_j share_j · t_j / t_fastest.
 * Null without samples on the probed CPUs.
 */
export const baselineNote = (probe, w, measured, counts) => {
  if (!probe.ok || counts === null) return null
  const seen = probe.cpus.map((c) => counts.get(c.cpu) ?? 0)
  const n = seen.reduce((a, b) => a + b, 0)
  if (n === 0) return null
  const mix = probe.cpus.reduce((a, c, i) => a + (seen[i] / n) * c.ms, 0) / probe.fastestMs
  const c = coreCeiling(probe, w).fastestBaseline * mix
  return `the 1-worker run's work seen on ${probe.cpus.map((x, i) => `CPU ${x.cpu} ${seen[i]}`).join(', ')} of ${n} samples → ceiling for that mix ×${c.toFixed(2)}, measured ×${measured.toFixed(2)} = ${((100 * measured) / c).toFixed(0)}% of it`
}

/**
 * Whether a speed-up target at W is within the probes' ceiling, in one phrase: reachable wherever the
 * 1-worker run went if every probe's fastest-CPU ceiling allows it, nowhere if no probe's slowest-CPU one does.
 */
export const targetNote = (probe, w, target, endProbe) => {
  if (!probe.ok) return probe.why
  const cs = [probe, ...(endProbe?.ok ? [endProbe] : [])].map((p) => coreCeiling(p, w))
  const low = Math.min(...cs.map((c) => c.fastestBaseline))
  const high = Math.max(...cs.map((c) => c.slowestBaseline))
  const where =
    low >= target
      ? 'within reach wherever the 1-worker run went'
      : high >= target
        ? 'above the ceiling if the 1-worker run had the fastest CPU; reachable only if it ran on a slower one (the figure then measures the CPUs as much as the code)'
        : 'above the ceiling wherever the 1-worker run went: not reachable on this machine'
  const range = (f) => (cs.length === 1 || Math.abs(f(cs[0]) - f(cs[1])) < 0.005 ? `×${f(cs[0]).toFixed(2)}` : `×${f(cs[0]).toFixed(2)} at the start, ×${f(cs[1]).toFixed(2)} at the end`)
  return `×${target} on ${w} workers is ${where} (ceiling ${range((c) => c.fastestBaseline)} from the fastest CPU, ${range((c) => c.slowestBaseline)} from the slowest)`
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ options: { reps: { type: 'string', default: '3' }, once: { type: 'boolean', default: false }, pieces: { type: 'string' } }, allowPositionals: true })
  const reps = Number(values.reps)
  const pieces = values.pieces?.split(',').map((name) => ({ name, label: `${name}: ${positionals.join(' ')}` }))
  if (positionals.length === 0 || !(Number.isInteger(reps) && reps >= 1) || (values.once && pieces !== undefined)) {
    console.error('core-speeds: usage: node bench/core-speeds.mjs [--reps R] [--once | --pieces a,b] -- <command> [args...] (R a positive integer)')
    process.exit(2)
  }
  const probes = [await probeCoreSpeeds({ command: positionals, label: positionals.join(' '), reps, once: values.once, pieces })].flat()
  for (const probe of probes) {
    for (const line of formatProbe(probe)) console.log(line)
    if (probe.ok) for (const c of probe.cpus) console.log(`  CPU ${c.cpu}: runs ${c.runs.map((x) => x.toFixed(1)).join(', ')} ms (${probe.measure}); best run's wall ${c.wallMs.toFixed(1)} ms`)
  }
  process.exit(probes.every((p) => p.ok) ? 0 : 1)
}
