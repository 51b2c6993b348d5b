/**
 * Progress is wired into train, audit and account (issue 11): each draws its line on a terminal,
 * nothing with --quiet or when stderr is not a terminal. train and audit draw on process.stderr,
 * stubbed here as a terminal; account takes its stream (a file standing in for the terminal, since
 * its timer line is written by a worker thread straight to the descriptor).
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { runAccount } from '../../src/cli/commands/account.js'
import { slowStepLine } from '../../src/cli/progress.js'
import { runSafely } from '../../src/cli/run.js'
import { writeTinyUci } from '../trainers/tiny-uci.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-cli-progress-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

/** process.stderr made a terminal whose writes are recorded, for one test. */
const stderrTerminal = (isTTY: boolean): string[] => {
  const writes: string[] = []
  const had = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY')
  Object.defineProperty(process.stderr, 'isTTY', { value: isTTY, configurable: true })
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    writes.push(String(s))
    return true
  })
  cleanups.push(() => {
    spy.mockRestore()
    if (had === undefined) delete (process.stderr as { isTTY?: boolean }).isTTY
    else Object.defineProperty(process.stderr, 'isTTY', had)
  })
  return writes
}

/** A file standing in for a terminal: its descriptor and what was written to it. */
const fileTerminal = (name: string, isTTY = true) => {
  const path = join(dir, name)
  const fd = openSync(path, 'w')
  return {
    stream: { isTTY, fd, write: (s: string) => writeSync(fd, s) },
    read: () => {
      closeSync(fd)
      return readFileSync(path, 'utf8')
    },
  }
}

const busy = (ms: number): void => {
  const end = Date.now() + ms
  while (Date.now() < end);
}

describe('slowStepLine: a timer line drawn while the main thread is busy', () => {
  it('shows a step that runs longer than afterMs, redrawn while it runs, cleared at the end', () => {
    const t = fileTerminal('slow.txt')
    const line = slowStepLine({ label: 'account', stream: t.stream, afterMs: 100, everyMs: 20 })
    expect(line.active).toBe(true)
    line.step('spec 1 / 1')
    busy(1300) // synchronous, like an accountant run: the main thread's own timers could not fire
    line.done()
    const out = t.read()
    expect(out).toMatch(/^\raccount: spec 1 \/ 1, running for 0 s\x1b\[K/)
    expect(out).toContain('\raccount: spec 1 / 1, running for 1 s\x1b[K')
    expect(out.endsWith('\r\x1b[K')).toBe(true)
  })
  it('draws nothing for a step shorter than afterMs, when quiet, or when not a terminal', () => {
    const fast = fileTerminal('fast.txt')
    const line = slowStepLine({ label: 'account', stream: fast.stream, afterMs: 60_000, everyMs: 10 })
    line.step('spec 1 / 1')
    busy(100)
    line.done()
    expect(fast.read()).toBe('')
    expect(slowStepLine({ label: 'a', stream: fileTerminal('q.txt').stream, quiet: true }).active).toBe(false)
    expect(slowStepLine({ label: 'a', stream: fileTerminal('p.txt', false).stream }).active).toBe(false)
  })
})

describe('account draws progress on a terminal', () => {
  // one PLD of DP-SGD (14,063 subsampled Gaussian steps): a single spec that takes a while
  const args = { file: 'examples/dp-sgd.json', deltas: [], accountant: ['pld'], orders: undefined, json: true }
  it('a single long spec: the timer line, then the result on a clean line', () => {
    const t = fileTerminal('account.txt')
    const r = runAccount({ ...args, progressTo: { stream: t.stream, afterMs: 0, everyMs: 20 } })
    expect(r.code, r.stderr).toBe(0)
    const out = t.read()
    expect(out).toMatch(/^\raccount: spec 1 \/ 1, running for \d+ s\x1b\[K/)
    expect(out.endsWith('\r\x1b[K')).toBe(true)
  })
  it('a single spec: nothing with --quiet, nothing when stderr is not a terminal', () => {
    for (const [quiet, isTTY] of [
      [true, true],
      [false, false],
    ] as const) {
      const t = fileTerminal(`account-${quiet}-${isTTY}.txt`, isTTY)
      const r = runAccount({ ...args, quiet, progressTo: { stream: t.stream, afterMs: 0, everyMs: 20 } })
      expect(r.code, r.stderr).toBe(0)
      expect(t.read()).toBe('')
    }
  })
  it('many specs: the count with rate and time left', () => {
    const gaussian = (sigma: number) => ({ schemaVersion: 1, event: { _tag: 'Gaussian', sigma, sensitivity: 1, relation: { kind: 'add-remove', unit: 'record' } } })
    const file = join(dir, 'many.json')
    writeFileSync(file, JSON.stringify([1, 2, 3, 4, 5].map(gaussian)))
    const t = fileTerminal('many.txt')
    const r = runAccount({ file, deltas: [], accountant: ['rdp'], orders: undefined, json: true, progressTo: { stream: t.stream, everyMs: 0 } })
    expect(r.code, r.stderr).toBe(0)
    const out = t.read()
    expect(out).toContain('\raccount: 5 / 5 specs (100%), ')
    expect(out).not.toContain('running for')
  })
})

describe('train and audit draw progress on a terminal (process.stderr)', () => {
  const corpus = writeTinyUci(dir)
  const train = (extra: ReadonlyArray<string>) =>
    runSafely(['train', 'cgs', '--corpus', corpus, '--topics', '2', '--iterations', '3', '--seed', '1', '--out', join(dir, 'm.json'), ...extra])
  it('train: a line per iteration with rate and time left; none with --quiet, --json or without a terminal', () => {
    const writes = stderrTerminal(true)
    expect(train([]).code).toBe(0)
    expect(writes.some((w) => w.startsWith('\rtrain cgs: 3 / 3 iterations (100%), '))).toBe(true)
    expect(writes.at(-1)).toBe('\r\x1b[K')
    writes.length = 0
    expect(train(['--quiet']).code).toBe(0)
    expect(train(['--json']).code).toBe(0)
    expect(writes).toEqual([])
    for (const c of cleanups.splice(0)) c()
    const plain = stderrTerminal(false)
    expect(train([]).code).toBe(0)
    expect(plain).toEqual([])
  })
  it('audit: a line with the trials, the rate and the phase; none with --quiet or without a terminal', () => {
    const audit = (extra: ReadonlyArray<string>) => runSafely(['audit', 'zoo:laplace', '--trials', '20000', '--workers', '1', '--seed', 'p', '--json', ...extra])
    const writes = stderrTerminal(true)
    expect(audit([]).code).toBe(0)
    expect(writes.some((w) => /^\raudit: [\d,]+ \/ [\d,]+ trials \(\d+%\), .*trials\/s.*; (choosing the attack|estimating)/.test(w))).toBe(true)
    expect(writes.at(-1)).toBe('\r\x1b[K')
    writes.length = 0
    expect(audit(['--quiet']).code).toBe(0)
    expect(writes).toEqual([])
    for (const c of cleanups.splice(0)) c()
    const plain = stderrTerminal(false)
    expect(audit([]).code).toBe(0)
    expect(plain).toEqual([])
  })
})
