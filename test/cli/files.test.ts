/**
 * Output paths: checked before any work, written through symbolic links atomically, never over a
 * directory or a special file; --workers capped at the cores; the progress line; the temp-folder
 * teardown; the audit --json output decoded by its codec.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { runAudit } from '../../src/cli/commands/audit.js'
import { runSafely } from '../../src/cli/run.js'
import { checkOutputPath } from '../../src/cli/io.js'
import { progressLine, progressText } from '../../src/cli/progress.js'
import { writeFileAtomic } from '../../src/core/atomic-file.js'
import { AuditOutput } from '../../src/report/index.js'
import { RUN_PREFIX, useRunTemp } from '../setup/tmp.js'
import { writeTinyUci } from '../trainers/tiny-uci.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-cli-files-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('writeFileAtomic and checkOutputPath', () => {
  it('writes through a symbolic link to its target, keeping the link', () => {
    const target = join(dir, 'target.json')
    const link = join(dir, 'link.json')
    writeFileSync(target, 'old')
    symlinkSync(target, link)
    expect(E.isRight(checkOutputPath(link, 'out'))).toBe(true)
    expect(E.isRight(writeFileAtomic(link, 'new'))).toBe(true)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readlinkSync(link)).toBe(target)
    expect(readFileSync(target, 'utf8')).toBe('new')
    // a dangling link creates its target
    const dangling = join(dir, 'dangling.json')
    symlinkSync(join(dir, 'not-yet.json'), dangling)
    expect(E.isRight(writeFileAtomic(dangling, 'x'))).toBe(true)
    expect(readFileSync(join(dir, 'not-yet.json'), 'utf8')).toBe('x')
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true)
  })
  it('refuses directories, devices and FIFOs with one clear line, writing nothing', () => {
    const sub = join(dir, 'a-folder')
    mkdirSync(sub)
    expect(checkOutputPath(sub, 'out')).toEqual(E.left(`--out ${sub}: it is a directory`))
    expect(checkOutputPath('/dev/null', 'out')).toEqual(E.left('--out /dev/null: it is a special file (a device); dpaudit writes regular files only'))
    const w = writeFileAtomic('/dev/null', 'x')
    expect(E.isLeft(w)).toBe(true)
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true)
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    expect(checkOutputPath(fifo, 'checkpoint')).toEqual(E.left(`--checkpoint ${fifo}: it is a special file (a FIFO); dpaudit writes regular files only`))
    expect(checkOutputPath(join(dir, 'no-such-folder', 'x.json'), 'out')).toEqual(E.left(`--out ${join(dir, 'no-such-folder', 'x.json')}: the folder ${join(dir, 'no-such-folder')} does not exist`))
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([])
  })
  it('keeps the permission bits of the file it replaces', () => {
    const p = join(dir, 'mode.json')
    writeFileSync(p, 'a')
    // chmod, not writeFileSync's mode: the creation mode is masked by the user's umask (077 gives 0o600)
    chmodSync(p, 0o640)
    writeFileAtomic(p, 'b')
    expect(lstatSync(p).mode & 0o777).toBe(0o640)
  })
})

describe('dpaudit audit checks its outputs before the audit', () => {
  it('an unusable --out or --checkpoint is exit 1 at once, with no trials run', () => {
    const sub = join(dir, 'out-folder')
    mkdirSync(sub, { recursive: true })
    const t0 = Date.now()
    // 10^9 trials would take minutes: the refusal must come first
    const out = runAudit({ target: 'zoo:laplace', workers: '1', trials: '1000000000', out: sub })
    expect(out.code).toBe(1)
    expect(out.stderr).toBe(`audit: --out ${sub}: it is a directory`)
    const cp = runAudit({ target: 'zoo:laplace', workers: '1', trials: '1000000000', checkpoint: join(dir, 'missing', 'cp.json'), json: true })
    expect(cp.code).toBe(1)
    expect(cp.stderr).toMatch(/^audit: --checkpoint .*cp\.json: the folder .*missing does not exist$/)
    expect(Date.now() - t0).toBeLessThan(2000)
  })
  it('caps --workers at the cores available, with a message, and its --json decodes with AuditOutput', () => {
    const r = runAudit({ target: 'zoo:laplace', workers: '1000', trials: '20000', json: true })
    const cores = availableParallelism()
    expect(r.stderr).toMatch(/^audit: --workers 1000: capped at \d+, (the cores available|no compiled worker script)/)
    const doc = AuditOutput.decode(JSON.parse(r.stdout ?? ''))
    expect(E.isRight(doc)).toBe(true)
    if (E.isRight(doc)) {
      expect(doc.right.options.workers).toBeLessThanOrEqual(cores)
      expect(doc.right.schemaVersion).toBe(1)
    }
  })
})

describe('the progress line', () => {
  it('draws on a terminal only, not with --quiet, and says rate and time left', () => {
    const out: string[] = []
    let now = 0
    const tty = { isTTY: true, write: (s: string) => out.push(s) }
    const p = progressLine({ label: 'audit', unit: 'trials', stream: tty, now: () => now })
    now = 2000
    p.update(1000, 5000)
    p.done()
    expect(out[0]).toBe('\r' + 'audit: 1,000 / 5,000 trials (20%), 500 trials/s, 8 s left\x1b[K')
    expect(out[1]).toBe('\r\x1b[K')
    for (const stream of [{ isTTY: false, write: (s: string) => out.push(s) }]) progressLine({ label: 'a', unit: 'b', stream }).update(1, 2)
    progressLine({ label: 'a', unit: 'b', stream: tty, quiet: true }).update(1, 2)
    expect(out.length).toBe(2)
    expect(progressText('train', 'iterations', 3, 100, 60_000)).toBe('train: 3 / 100 iterations (3%), 0.1 iterations/s, 32 min 20 s left')
  })
})

describe('bad input leaves an existing --out file as it was (bytes and modification time)', () => {
  const existing = join(dir, 'existing-out')
  mkdirSync(existing)
  const corpus = writeTinyUci(existing)
  const garbage = join(existing, 'garbage.jsonl')
  writeFileSync(garbage, '{"text": "alpha beta"}\n{not json\n')
  const out = join(existing, 'model.json')
  const before = '{"an earlier result": true}\n'
  const past = new Date('2020-01-02T03:04:05Z')
  const fresh = (): void => {
    writeFileSync(out, before)
    utimesSync(out, past, past)
  }
  const expectUntouched = (r: { code: number; stderr?: string | undefined }, label: string): void => {
    expect(r.code, `${label}: ${r.stderr}`).toBe(1)
    expect(r.stderr?.split('\n').length, label).toBe(1)
    expect(readFileSync(out, 'utf8'), label).toBe(before)
    expect(statSync(out).mtimeMs, label).toBe(past.getTime())
    expect(readdirSync(existing).filter((n) => n.endsWith('.tmp')), label).toEqual([])
  }
  it('train: a bad flag, a flag that does not apply, a malformed corpus, a missing corpus', () => {
    const common = ['--topics', '2', '--iterations', '2', '--seed', '1', '--out', out]
    for (const [label, argv] of [
      ['--topics 0', ['train', 'cgs', '--corpus', corpus, ...common, '--topics', '0']],
      ['sub-lda --epsilon', ['train', 'sub-lda', '--corpus', corpus, ...common, '--epsilon', '0.1']],
      ['malformed corpus', ['train', 'cgs', '--corpus', garbage, ...common]],
      ['missing corpus', ['train', 'cgs', '--corpus', join(existing, 'nope'), ...common]],
    ] as const) {
      fresh()
      expectUntouched(runSafely([...argv]), label)
    }
  })
  it('audit: an unknown mechanism, a bad trial count, a bad claim, a missing module', () => {
    for (const [label, argv] of [
      ['unknown zoo name', ['audit', 'zoo:nope', '--out', out]],
      ['--trials -5', ['audit', 'zoo:laplace', '--trials', '-5', '--out', out]],
      ['--epsilon abc', ['audit', 'zoo:laplace', '--trials', '1000', '--epsilon', 'abc', '--out', out]],
      ['missing module', ['audit', join(existing, 'missing.js'), '--trials', '1000', '--out', out]],
    ] as const) {
      fresh()
      expectUntouched(runSafely([...argv]), label)
    }
  })
})

describe('the temp-folder teardown (test/setup/tmp.ts)', () => {
  it('this run writes into its own temp folder (the workers inherit TMPDIR from the global setup)', () => {
    expect(basename(dirname(dir)).startsWith(RUN_PREFIX)).toBe(true)
    expect(basename(tmpdir()).startsWith(RUN_PREFIX)).toBe(true)
  })
  it('removes only the run folder and restores TMPDIR; a concurrent run\'s or a user\'s entries stay', () => {
    const parent = mkdtempSync(join(dir, 'fake-tmp-'))
    mkdirSync(join(parent, 'dpaudit-other-run'))
    const saved = process.env['TMPDIR']
    const run = useRunTemp(parent)
    try {
      expect(dirname(run.dir)).toBe(parent)
      expect(tmpdir()).toBe(run.dir)
      mkdirSync(join(tmpdir(), 'dpaudit-model-x'))
      writeFileSync(join(tmpdir(), 'dpaudit-uci-y'), '')
      // an entry another run makes in the shared temp folder while this run lasts
      mkdirSync(join(parent, 'dpaudit-train-concurrent'))
    } finally {
      run.teardown()
    }
    expect(process.env['TMPDIR']).toBe(saved)
    expect(existsSync(run.dir)).toBe(false)
    expect(readdirSync(parent).sort()).toEqual(['dpaudit-other-run', 'dpaudit-train-concurrent'])
  })
})
