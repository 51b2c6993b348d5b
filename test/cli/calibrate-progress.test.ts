/** calibrate shows progress per probe on a terminal and nothing with --json or --quiet (issue 11). */
import { describe, expect, it } from 'vitest'
import { runCalibrate } from '../../src/cli/commands/calibrate.js'
import { progressLine } from '../../src/cli/progress.js'
import { expectedProbes } from '../../src/accounting/calibrate.js'

const terminal = () => {
  const writes: string[] = []
  return { writes, stream: { isTTY: true, write: (s: string) => writes.push(s) } }
}

describe('calibrate progress', () => {
  it('draws a line per probe (rate, time left) on a terminal, cleared before the result', () => {
    const t = terminal()
    let clock = 0
    const progress = progressLine({ label: 'calibrate', unit: 'probes', stream: t.stream, everyMs: 0, now: () => (clock += 10) })
    const r = runCalibrate({ file: 'examples/calibrate-dp-sgd.json', epsilon: '3', delta: '1e-5', accountant: 'rdp', tolerance: undefined, json: false, progress })
    expect(r.code, r.stderr).toBe(0)
    const probes = Number(/(\d+) probes$/m.exec(r.stdout ?? '')?.[1])
    expect(probes).toBeGreaterThan(5)
    const lines = t.writes.filter((w) => w.includes('calibrate:'))
    expect(lines.length).toBe(probes)
    expect(lines[1]).toMatch(/calibrate: 2 \/ \d+ probes .*probes\/s.*left; probing \d/)
    expect(t.writes.at(-1)).toBe('\r\x1b[K')
  })
  it('the expected probe count covers a default calibration', () => {
    const r = runCalibrate({ file: 'examples/calibrate-dp-sgd.json', epsilon: '3', delta: '1e-5', accountant: 'rdp', tolerance: undefined, json: false, quiet: true })
    const probes = Number(/(\d+) probes$/m.exec(r.stdout ?? '')?.[1])
    expect(probes).toBeLessThanOrEqual(expectedProbes())
  })
  it('is silent when stderr is not a terminal, with --json, and with --quiet', () => {
    for (const opts of [{ json: true }, { json: false, quiet: true }]) {
      const t = terminal()
      const r = runCalibrate({ file: 'examples/calibrate-dp-sgd.json', epsilon: '3', delta: '1e-5', accountant: 'rdp', tolerance: undefined, ...opts, progress: progressLine({ label: 'calibrate', unit: 'probes', stream: t.stream, quiet: opts.json || opts.quiet === true }) })
      expect(r.code).toBe(0)
      expect(t.writes).toEqual([])
    }
  })
})
