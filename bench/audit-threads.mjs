// CPU time by thread for the audit benches (Linux: /proc/self/task; null elsewhere). Threads that
// appear with a worker pool are its workers; the others are the calling thread and the process's
// helpers (V8's compiler and garbage-collector threads, libuv's pool), which at W = 1 use a core the
// one worker leaves idle and at W workers on W cores compete with the workers.
import { readdirSync, readFileSync } from 'node:fs'

/** CPU ms of each thread of this process, by thread id; null where /proc is not there. */
export const threadCpu = () => {
  try {
    return new Map(
      readdirSync('/proc/self/task').map((t) => {
        const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8')
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return [t, ((Number(f[11]) + Number(f[12])) * 1000) / 100]
      }),
    )
  } catch {
    return null
  }
}

/** CPU ms between two `threadCpu` snapshots: this thread, threads new since `before` (the pool's workers), the others (helpers). */
export const byThreadKind = (before, after) => {
  if (before === null || after === null) return null
  const out = { main: 0, workers: 0, helpers: 0 }
  for (const [t, ms] of after) out[t === String(process.pid) ? 'main' : before.has(t) ? 'helpers' : 'workers'] += ms - (before.get(t) ?? 0)
  return out
}
