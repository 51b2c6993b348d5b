/**
 * A progress line for long commands: one line on stderr, rewritten in place, with the count done,
 * the rate and the time left. It is a side channel, not part of a command's result: it is shown
 * only when stderr is a terminal and `--quiet` was not given, and it is throttled (at most one
 * redraw every 200 ms) so it never costs noticeable time.
 *
 * ```ts
 * const p = progressLine({ label: 'audit', unit: 'trials', quiet: values.quiet })
 * p.update(done, total)      // as work proceeds
 * p.done()                   // clears the line before the command's output is printed
 * ```
 *
 * @module
 */
import { Worker } from 'node:worker_threads'

export interface ProgressOptions {
  /** What is running, first on the line ("audit", "account"). */
  readonly label: string
  /** What is counted ("trials", "specs", "iterations"). */
  readonly unit: string
  /** `--quiet`: never draw. */
  readonly quiet?: boolean
  /** Where to draw (default process.stderr); drawing happens only if it is a TTY. */
  readonly stream?: { readonly isTTY?: boolean; write(s: string): unknown }
  /** Clock in ms (tests). */
  readonly now?: () => number
  /** Minimum ms between redraws (default 200). */
  readonly everyMs?: number
  /** Show the rate and the time left (default true); false for a private run, whose speed depends on its data. */
  readonly timing?: boolean
}

export interface Progress {
  /** Whether anything will be drawn at all. */
  readonly active: boolean
  /** Reports `done` of `total` units; `note` is appended (a phase, a resumed count). */
  update(done: number, total: number, note?: string): void
  /** Clears the line (call before printing the result). */
  done(): void
}

/** "1 h 02 min", "3 min 05 s", "12 s". */
export const formatDuration = (seconds: number): string => {
  if (!Number.isFinite(seconds) || seconds < 0) return '?'
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`
}

const rateText = (perSecond: number, unit: string): string =>
  perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(2)} M ${unit}/s` : perSecond >= 1e3 ? `${(perSecond / 1e3).toFixed(1)} k ${unit}/s` : `${perSecond.toFixed(perSecond >= 10 ? 0 : 1)} ${unit}/s`

/** The text of one progress line (pure; exported for tests and for trainers' own lines). */
export const progressText = (label: string, unit: string, done: number, total: number, elapsedMs: number, note?: string): string => {
  const rate = done / Math.max(1e-3, elapsedMs / 1000)
  const pct = total > 0 ? ` (${((100 * done) / total).toFixed(0)}%)` : ''
  const left = done > 0 && total > done ? `, ${formatDuration((total - done) / rate)} left` : ''
  return `${label}: ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} ${unit}${pct}, ${rateText(rate, unit)}${left}${note === undefined ? '' : `; ${note}`}`
}

/** A progress line without timing: units done of the total, and the note. */
export const countText = (label: string, unit: string, done: number, total: number, note?: string): string =>
  `${label}: ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} ${unit}${note === undefined ? '' : `; ${note}`}`

/** A progress line on a terminal, or a no-op (not a TTY, or quiet). */
export const progressLine = (o: ProgressOptions): Progress => {
  const stream = o.stream ?? process.stderr
  const active = o.quiet !== true && stream.isTTY === true
  if (!active) return { active, update: () => undefined, done: () => undefined }
  const now = o.now ?? Date.now
  const every = o.everyMs ?? 200
  const t0 = now()
  let last = -Infinity
  let drawn = false
  return {
    active,
    update(done, total, note) {
      const t = now()
      if (t - last < every && done < total) return
      last = t
      drawn = true
      const text = o.timing === false ? countText(o.label, o.unit, done, total, note) : progressText(o.label, o.unit, done, total, t - t0, note)
      stream.write(`\r${text}\x1b[K`)
    },
    done() {
      if (drawn) stream.write('\r\x1b[K')
      drawn = false
    },
  }
}

export interface SlowStepOptions {
  /** What is running, first on the line ("account"). */
  readonly label: string
  /** `--quiet`: never draw. */
  readonly quiet?: boolean
  /** Where to draw (default process.stderr): a file descriptor, drawn on only if it is a terminal. */
  readonly stream?: { readonly isTTY?: boolean; readonly fd: number }
  /** A step is shown once it has run this long (ms, default 2000). */
  readonly afterMs?: number
  /** Ms between redraws (default 500). */
  readonly everyMs?: number
}

export interface SlowStep {
  /** Whether anything can be drawn at all. */
  readonly active: boolean
  /** A new step begins; `text` says what it is ("spec 2 / 3"). */
  step(text: string): void
  /** Stops the timer and clears the line; call before printing the result. */
  done(): void
}

// Drawn from a worker thread: the step it reports on is synchronous (an accountant run) and blocks
// the main thread's timers. The main thread only writes the step's text and start time into shared
// memory; the worker wakes every `everyMs`, and once the step has run `afterMs` it writes the line
// to the descriptor directly (writeSync needs no event loop). On stop it clears what it drew and
// acknowledges, so the main thread prints its result on a clean line.
const SLOW_STEP_WORKER = `
const { workerData } = require('node:worker_threads')
const { writeSync } = require('node:fs')
const { buffer, fd, label, afterMs, everyMs } = workerData
const ctl = new Int32Array(buffer, 0, 4) // stop, generation, text length, acknowledged
const started = new Float64Array(buffer, 16, 1)
const text = new Uint8Array(buffer, 24)
const decoder = new TextDecoder()
let drawn = false
for (;;) {
  Atomics.wait(ctl, 0, 0, everyMs)
  if (Atomics.load(ctl, 0) !== 0) break
  const generation = Atomics.load(ctl, 1)
  const ms = Date.now() - started[0]
  if (!drawn && ms < afterMs) continue
  const note = decoder.decode(text.slice(0, Atomics.load(ctl, 2)))
  if (Atomics.load(ctl, 1) !== generation) continue
  try { writeSync(fd, '\\r' + label + ': ' + note + ', running for ' + Math.floor(ms / 1000) + ' s\\x1b[K') } catch { break }
  drawn = true
}
if (drawn) try { writeSync(fd, '\\r\\x1b[K') } catch {}
Atomics.store(ctl, 3, 1)
Atomics.notify(ctl, 3)
`

const TEXT_BYTES = 480

/**
 * A line for a step that may run long with no count to report (one accountant run of a large
 * composition): nothing for the first `afterMs` of a step, then "label: text, running for N s",
 * redrawn every `everyMs` while the main thread is busy. A no-op unless the stream is a terminal.
 */
export const slowStepLine = (o: SlowStepOptions): SlowStep => {
  const stream = o.stream ?? process.stderr
  const active = o.quiet !== true && stream.isTTY === true
  if (!active) return { active, step: () => undefined, done: () => undefined }
  const buffer = new SharedArrayBuffer(24 + TEXT_BYTES)
  const ctl = new Int32Array(buffer, 0, 4)
  const started = new Float64Array(buffer, 16, 1)
  const text = new Uint8Array(buffer, 24)
  const encoder = new TextEncoder()
  started[0] = Date.now()
  const worker = new Worker(SLOW_STEP_WORKER, {
    eval: true,
    workerData: { buffer, fd: stream.fd, label: o.label, afterMs: o.afterMs ?? 2000, everyMs: o.everyMs ?? 500 },
  })
  worker.unref()
  let stopped = false
  return {
    active,
    step(note) {
      const { written } = encoder.encodeInto(note, text)
      Atomics.store(ctl, 2, written)
      started[0] = Date.now()
      Atomics.add(ctl, 1, 1)
    },
    done() {
      if (stopped) return
      stopped = true
      Atomics.store(ctl, 0, 1)
      Atomics.notify(ctl, 0)
      // wait (bounded) for the worker to clear its line; it acknowledges at once when it is idle
      Atomics.wait(ctl, 3, 0, 2000)
      void worker.terminate()
    },
  }
}
