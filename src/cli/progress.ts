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
      stream.write(`\r${progressText(o.label, o.unit, done, total, t - t0, note)}\x1b[K`)
    },
    done() {
      if (drawn) stream.write('\r\x1b[K')
      drawn = false
    },
  }
}
