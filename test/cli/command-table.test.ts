// One command table (issue 25 item 3): every command is one entry (name, usage, parse, run); the
// overview and each command's --help come from it, and a parse error is one line with exit 1 for a
// command that answers at once and for one that waits alike (handled once, in dispatch).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { COMMANDS, dispatch, USAGE } from '../../src/cli/command-table.js'
import { TRAINER_LIST } from '../../src/trainers/registry.js'

const result = async (argv: ReadonlyArray<string>) => await dispatch(argv)

describe('the command table', () => {
  it('has each command once, and the overview shows every usage from it', () => {
    const names = COMMANDS.map((c) => c.name)
    expect(new Set(names).size).toBe(names.length)
    expect(names).toEqual(['demo', 'account', 'calibrate', 'train', 'evaluate', 'audit', 'report', 'verify', 'worker'])
    for (const c of COMMANDS) expect(USAGE).toContain(c.usage.split('\n')[0]?.replace(/^usage: /, ''))
  })
  it('dpaudit <command> --help and dpaudit help <command> print the table’s usage', async () => {
    for (const c of COMMANDS) {
      expect((await result([c.name, '--help'])).stdout).toBe(c.usage)
      expect((await result(['help', c.name])).stdout).toBe(c.usage)
    }
  })
  it('dpaudit train --help is assembled from the trainers: every trainer and its flags', async () => {
    const help = (await result(['train', '--help'])).stdout ?? ''
    for (const t of TRAINER_LIST) {
      expect(help).toContain(`${t.name}:`)
      for (const f of t.flags) expect(help, `${t.name} --${f.flag}`).toContain(`--${f.flag}`)
      // --workers is shown (and taken) on the line of a trainer that declares what its threads do, and only there
      const line = help.split('\n').find((l) => l.startsWith(`  ${t.name}:`)) ?? ''
      expect(line.includes('[--workers W ('), t.name).toBe(t.workers !== undefined)
    }
    expect(TRAINER_LIST.filter((t) => t.workers !== undefined).map((t) => t.name)).toEqual(['cgs', 'hdp-lda', 'cdp-lda', 'cdp-lda+', 'sub-lda', 'svi-lda', 'svi-lda-wor'])
  })
  it('--workers is refused, before any work, by a trainer that takes no threads (a built-in one or a module)', async () => {
    const module = join(import.meta.dirname, '..', 'trainers', 'fixtures', 'word-frequencies.mjs')
    const lda = ['--topics', '3', '--iterations', '1']
    for (const [trainer, own] of [['lp-lda', lda], ['spectral', lda], [module, []]] as const) {
      const r = await result(['train', trainer, '--corpus', 'no-such-corpus', ...own, '--workers', '2', '--out', 'never-written.json'])
      expect(r.code, trainer).toBe(1)
      expect(r.stderr, trainer).toMatch(/^--workers does not apply to (lp-lda|spectral|word-frequencies) \(its own flags: /)
    }
  })
  it('dpaudit train ./module.js --help shows that module’s trainer and its own flags; a module that is no trainer is named', async () => {
    const module = join(import.meta.dirname, '..', 'trainers', 'fixtures', 'word-frequencies.mjs')
    for (const argv of [['train', module, '--help'], ['train', module, '--corpus', 'x', '-h']]) {
      const r = await result(argv)
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^usage: dpaudit train /)
      expect(r.stdout).toContain('word-frequencies: [--epsilon E (default 1) (per-cell noise 1/E)]')
      for (const t of TRAINER_LIST) expect(r.stdout?.split('\n').filter((l) => l.startsWith(`  ${t.name}:`))).toEqual([])
    }
    const missing = await result(['train', join(import.meta.dirname, 'no-such-trainer.mjs'), '--help'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no-such-trainer.mjs')
  })
  it('an unknown option is one line and exit 1, for a command that answers at once and for one that waits', async () => {
    for (const argv of [['account', 'x.json', '--bogus'], ['calibrate', 'x.json', '--bogus'], ['verify', '--bogus'], ['worker', '--bogus'], ['demo', '--bogus']]) {
      const r = await result(argv)
      expect(r.code, argv.join(' ')).toBe(1)
      expect(r.stderr, argv.join(' ')).toMatch(/^unknown option --bogus \(dpaudit help for usage/)
      expect(r.stderr).not.toContain('\n')
    }
  })
  it('an unknown command names the table’s commands', async () => {
    const r = await result(['acount'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(COMMANDS.map((c) => c.name).join(', '))
  })
})
