/**
 * How the executable's worker threads compile their hot code (issues 23 and 27): each on its own thread.
 *
 * V8 optimises a hot function on a background thread by default ("concurrent recompilation"); the
 * isolate runs unoptimised code meanwhile and installs the result when it is ready. Node's background
 * threads are few and shared by every isolate of the process, and on a machine with one core per worker
 * they have no core of their own: at 2 workers on 2 cores the audit's compiles (its family fits and
 * estimation loop, optimised afresh in every worker, often on the stack of a running loop) took 0.16–0.24
 * s of CPU on those threads, taken from the workers, and a compile finished after the loop it was made
 * for had ended is done again. With this flag each worker isolate created afterwards compiles
 * synchronously, on its own thread: a 40 M-trial Laplace audit took 17–42 ms of those threads' CPU
 * at 2 workers instead, and 2 workers ran it ×1.88–1.92 one worker's speed against ×1.82–1.85 (five and
 * six runs, 2-core VM; docs/auditing.md "Compiling on the workers' own threads").
 *
 * What it changes: only when and where V8 compiles, never what the code computes (every audit answer
 * and every seeded model is the same bit for bit). The calling thread's isolate exists before the flag
 * is set and keeps its background compiles. It is a process-wide V8 setting, so only the executable
 * sets it, as it starts, before any worker exists; a library user who runs audits or trainers on
 * worker threads may do the same (`v8.setFlagsFromString('--no-concurrent-recompilation')` before the
 * first pool), and the benchmarks do, to measure what the executable runs.
 *
 * @module
 */
import { setFlagsFromString } from 'node:v8'

/** The V8 flag set (isolates created afterwards have no background compiler). */
export const WORKER_COMPILATION_FLAG = '--no-concurrent-recompilation'

let set = false

/** Sets WORKER_COMPILATION_FLAG once per process; true when it is set (false where this runtime refuses V8 flags). */
export const compileWorkersInThread = (): boolean => {
  if (set) return true
  try {
    setFlagsFromString(WORKER_COMPILATION_FLAG)
    set = true
  } catch {
    // a runtime without V8 flags keeps its own compilation; nothing depends on it but speed
  }
  return set
}
