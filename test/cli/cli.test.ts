/**
 * The command line, driven in-process through `runSafely` (what bin/dpaudit calls): exit codes,
 * one-line errors naming the path and value, JSON output without nulls, arrays of specs.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { runSafely } from '../../src/cli/run.js'
import { AccountOutput, CalibrateOutput } from '../../src/report/index.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, content: unknown): string => {
  const p = join(dir, name)
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content))
  return p
}
const rel = { kind: 'add-remove', unit: 'record' }
const gaussianSpec = (sigma: unknown, count = 100) => ({
  schemaVersion: 1,
  name: `gaussian-${String(sigma)}`,
  event: { _tag: 'SelfCompose', count, event: { _tag: 'Gaussian', sigma, sensitivity: 1, relation: rel } },
})

/** An error result: non-zero code, exactly one line on stderr, no stack frames. */
const expectOneLineError = (r: ReturnType<typeof runSafely>, code: number, pattern: RegExp) => {
  expect(r.code).toBe(code)
  expect(r.stderr).toMatch(pattern)
  expect(r.stderr?.split('\n').length).toBe(1)
  expect(r.stderr).not.toMatch(/\n\s+at /)
}

describe('dpaudit account', () => {
  it('prints every accountant and the tightest value for the DP-SGD example', () => {
    const r = runSafely(['account', 'examples/dp-sgd.json', '--delta', '1e-5', '--delta', '1e-6'])
    expect(r.code).toBe(0)
    for (const name of ['basic', 'advanced', 'optimal', 'zcdp', 'rdp', 'tightest']) expect(r.stdout).toMatch(new RegExp(`^${name}\\s`, 'm'))
    expect(r.stdout).toMatch(/ε at δ=1e-5/)
    expect(r.stdout).toMatch(/ε at δ=1e-6/)
  })

  it('answers an array of specs in order, as one JSON document with no nulls', () => {
    const p = file('sweep.json', [gaussianSpec(1), gaussianSpec(2), gaussianSpec(4)])
    const r = runSafely(['account', p, '--accountant', 'rdp', '--json'])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain('null')
    const doc = JSON.parse(r.stdout ?? '') as { reports: Array<{ name: string; tightest: Array<{ epsilon: number }> }> }
    expect(doc.reports.map((x) => x.name)).toEqual(['gaussian-1', 'gaussian-2', 'gaussian-4'])
    const eps = doc.reports.map((x) => x.tightest[0]?.epsilon ?? NaN)
    expect(eps[0]).toBeGreaterThan(eps[1] as number)
    expect(eps[1]).toBeGreaterThan(eps[2] as number)
  })

  it('writes an infinite ε as "Infinity" in JSON', () => {
    const p = file('nonprivate.json', { schemaVersion: 1, event: { _tag: 'NonPrivate' } })
    const r = runSafely(['account', p, '--accountant', 'rdp', '--json'])
    expect(r.stdout).toContain('"Infinity"')
    expect(r.stdout).not.toContain('null')
  })

  it('prints the RDP curve at the requested orders', () => {
    const r = runSafely(['account', 'examples/dp-sgd.json', '--accountant', 'rdp', '--orders', '2,14,32.5'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^14\s+\d/m)
    expect(r.stdout).toMatch(/^32\.5\s+\d/m)
  })

  it('reports an unsupported event in one accountant and still answers with the others', () => {
    const p = file('approx.json', {
      schemaVersion: 1,
      // A sampled (ε, δ) step: RDP keeps a stated δ aside only under composition (issue 26), not under sampling.
      event: { _tag: 'Compose', events: [{ _tag: 'PoissonSample', q: 0.1, event: { _tag: 'ApproxDP', epsilon: 1, delta: 1e-7, relation: rel } }, { _tag: 'Gaussian', sigma: 3, sensitivity: 1, relation: rel }] },
    })
    const r = runSafely(['account', p])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^  rdp: cannot answer: \$\.event\.events\[0\]/m)
    expect(r.stdout).toMatch(/^basic\s+\d/m)
  })

  it('turns every kind of bad input into one line and exit code 1', () => {
    expectOneLineError(runSafely(['account', join(dir, 'missing.json')]), 1, /missing\.json: cannot read the file \(no such file\)/)
    expectOneLineError(runSafely(['account', file('bad.json', '{"schemaVersion": 1,')]), 1, /bad\.json: not valid JSON/)
    expectOneLineError(runSafely(['account', file('q.json', { schemaVersion: 1, event: { _tag: 'PoissonSample', q: 1.5, event: { _tag: 'NoOp' } } })]), 1, /\$\.event\.q: must be a sampling rate q in \[0, 1\] \(got 1\.5\)/)
    // σ = 0 is no noise, read as NonPrivate (issue 26); a negative σ is bad input.
    expectOneLineError(runSafely(['account', file('s.json', gaussianSpec(-1))]), 1, /\$\.event\.event\.sigma: must be a positive number \(σ > 0\) \(got -1\)/)
    expectOneLineError(runSafely(['account', file('n.json', gaussianSpec('NaN'))]), 1, /sigma: must be a positive number \(σ > 0\), not NaN/)
    expectOneLineError(runSafely(['account', file('t.json', { schemaVersion: 1, event: { _tag: 'Gausian' } })]), 1, /\$\.event\._tag: unknown event tag/)
    let deep: unknown = { _tag: 'NoOp' }
    for (let i = 0; i < 200; i++) deep = { _tag: 'Labeled', label: 'x', event: deep }
    expectOneLineError(runSafely(['account', file('deep.json', { schemaVersion: 1, event: deep })]), 1, /nested too deep/)
    expectOneLineError(runSafely(['account', 'examples/dp-sgd.json', '--delta', '1']), 1, /--delta: δ must be in \[0, 1\)/)
    expectOneLineError(runSafely(['account', 'examples/dp-sgd.json', '--delta', 'abc']), 1, /--delta: "abc" is not a number/)
    expectOneLineError(runSafely(['account', 'examples/dp-sgd.json', '--accountant', 'magic']), 1, /unknown accountant "magic"/)
    expectOneLineError(runSafely(['account', 'examples/dp-sgd.json', '--orders', '0.5,2']), 1, /--orders/)
    expect(runSafely(['account', 'examples/dp-sgd.json', '--frobnicate']).code).toBe(1)
    expect(runSafely(['frobnicate']).code).toBe(1)
  })
  it('an argument error of the option parser is one line too (node:util parseArgs writes several)', () => {
    expectOneLineError(runSafely(['account', 'examples/dp-sgd.json', '--frobnicate']), 1, /^unknown option --frobnicate \(dpaudit help for usage; .*-- --frobnicate\)$/)
    expectOneLineError(runSafely(['audit', 'zoo:laplace', '--trials', '-5']), 1, /^Option '--trials' argument is ambiguous\. Did you forget .* \(dpaudit help for usage\)$/)
  })
})

describe('dpaudit account when no accountant can answer', () => {
  it('is exit 2, with every accountant\'s reason (sampling without replacement asked under add-remove)', () => {
    // every accountant refuses: rdp/zcdp/basic/advanced/optimal amplify sampling without replacement
    // under replace-one only, and pld implements Poisson subsampling only
    const p = file('wor.json', { schemaVersion: 1, event: { _tag: 'SampleWithoutReplacement', m: 10, n: 100, event: { _tag: 'Gaussian', sigma: 1, sensitivity: 1, relation: rel } } })
    for (const json of [false, true]) {
      const r = runSafely(['account', p, ...(json ? ['--json'] : [])])
      expect(r.code, r.stderr).toBe(2)
      if (json) {
        const doc = AccountOutput.decode(JSON.parse(r.stdout ?? ''))
        expect(E.isRight(doc) && doc.right.reports[0]?.results.every((x) => !x.ok)).toBe(true)
      } else for (const name of ['basic', 'advanced', 'optimal', 'zcdp', 'pld', 'rdp']) expect(r.stdout).toMatch(new RegExp(`^  ${name}: cannot answer: \\$\\.event: `, 'm'))
    }
    // the same event under replace-one is answered (exit 0): the 2 is about the accountants, not the file
    expect(runSafely(['account', file('wor-r.json', { schemaVersion: 1, relation: { kind: 'replace-one', unit: 'record' }, event: { _tag: 'SampleWithoutReplacement', m: 10, n: 100, event: { _tag: 'Gaussian', sigma: 1, sensitivity: 1, relation: { kind: 'replace-one', unit: 'record' } } } })]).code).toBe(0)
  })
})

describe('dpaudit calibrate', () => {
  it('finds the smallest σ meeting a target, and the answer meets it', () => {
    const r = runSafely(['calibrate', 'examples/calibrate-dp-sgd.json', '--epsilon', '3', '--delta', '1e-5', '--accountant', 'rdp', '--json'])
    expect(r.code).toBe(0)
    const c = JSON.parse(r.stdout ?? '') as { value: number; epsilon: number; infeasibleNeighbour: number; parameter: string }
    expect(c.parameter).toBe('sigma')
    expect(c.epsilon).toBeLessThanOrEqual(3)
    expect(c.infeasibleNeighbour).toBeLessThan(c.value)
    expect((c.value - c.infeasibleNeighbour) / c.value).toBeLessThanOrEqual(1e-6)
    // Abadi et al.'s σ = 1.1 gives ε ≈ 3 for this setting; the calibrated σ is near it.
    expect(c.value).toBeGreaterThan(0.9)
    expect(c.value).toBeLessThan(1.3)
  })

  it('prints the answer rounded to the safe side: σ up, ε up, an integer as found', () => {
    const r = runSafely(['calibrate', 'examples/calibrate-dp-sgd.json', '--epsilon', '3', '--delta', '1e-5', '--accountant', 'rdp'])
    expect(r.code).toBe(0)
    const exact = JSON.parse(runSafely(['calibrate', 'examples/calibrate-dp-sgd.json', '--epsilon', '3', '--delta', '1e-5', '--accountant', 'rdp', '--json']).stdout ?? '') as { value: number }
    const m = /^smallest sigma ≈ (\d+\.\d{4}) \(rounded up, to the safe side\) gives ε ≤ (\d+\.\d{4}) \(target 3\) at δ = 1e-5; rdp: /.exec(r.stdout ?? '')
    expect(m).not.toBeNull()
    expect(Number(m?.[1])).toBeGreaterThanOrEqual(exact.value)
    expect(Number(m?.[1]) - exact.value).toBeLessThan(1e-4)
    expect(Number(m?.[2])).toBeLessThanOrEqual(3)
    const p = file('steps-text.json', { schemaVersion: 1, event: { _tag: 'SelfCompose', count: '$param', event: { _tag: 'Gaussian', sigma: 10, sensitivity: 1, relation: rel } } })
    expect(runSafely(['calibrate', p, '--epsilon', '1', '--delta', '1e-5']).stdout).toMatch(/^largest count ≈ \d+ gives ε ≤ /)
  })

  it('finds the largest number of steps within budget', () => {
    const p = file('steps.json', { schemaVersion: 1, event: { _tag: 'SelfCompose', count: '$param', event: { _tag: 'Gaussian', sigma: 10, sensitivity: 1, relation: rel } } })
    const r = runSafely(['calibrate', p, '--epsilon', '1', '--delta', '1e-5', '--json'])
    expect(r.code).toBe(0)
    const c = JSON.parse(r.stdout ?? '') as { value: number; epsilon: number; infeasibleNeighbour: number }
    expect(Number.isInteger(c.value)).toBe(true)
    expect(c.epsilon).toBeLessThanOrEqual(1)
    expect(c.infeasibleNeighbour).toBe(c.value + 1)
  })

  it('says clearly when a target is infeasible', () => {
    const p = file('inf.json', { schemaVersion: 1, event: { _tag: 'Compose', events: [{ _tag: 'PureDP', epsilon: 5, relation: rel }, { _tag: 'Laplace', scale: '$param', sensitivity: 1, relation: rel }] } })
    const r = runSafely(['calibrate', p, '--epsilon', '1', '--delta', '1e-5'])
    expectOneLineError(r, 2, /no value of scale meets ε ≤ 1/)
  })

  it('rejects bad targets and templates with one line', () => {
    expectOneLineError(runSafely(['calibrate', 'examples/calibrate-dp-sgd.json', '--epsilon', '0', '--delta', '1e-5']), 1, /epsilon: target ε must be a finite number > 0 \(got 0\)/)
    expectOneLineError(runSafely(['calibrate', 'examples/calibrate-dp-sgd.json', '--epsilon', '1', '--delta', '1.5']), 1, /delta: target δ must be in \[0, 1\)/)
    expectOneLineError(runSafely(['calibrate', 'examples/dp-sgd.json', '--epsilon', '1', '--delta', '1e-5']), 1, /a template needs "\$param"/)
    expectOneLineError(runSafely(['calibrate', 'examples/calibrate-dp-sgd.json', '--delta', '1e-5']), 1, /--epsilon is required/)
  })
})

describe('help and version', () => {
  it('every command answers --help with its usage and exit 0, before its own argument parsing', () => {
    for (const cmd of ['demo', 'account', 'calibrate', 'train', 'evaluate', 'audit']) {
      const r = runSafely([cmd, '--help'])
      expect(r.code, cmd).toBe(0)
      expect(r.stdout, cmd).toMatch(new RegExp(`^usage: dpaudit ${cmd}`))
      expect(runSafely([cmd, 'x.json', '-h']).stdout).toBe(r.stdout)
      expect(runSafely(['help', cmd]).stdout).toBe(r.stdout)
    }
    // after "--" it is an argument, not a request for help
    expect(runSafely(['account', '--', '--help']).stderr).toMatch(/--help: cannot read the file/)
  })
  it('dpaudit --version prints the package version', () => {
    for (const flag of ['--version', '-V', 'version']) {
      const r = runSafely([flag])
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(/^dpaudit \d+\.\d+\.\d+/)
    }
  })
  it('the general usage lists every command and the help and version flags', () => {
    const r = runSafely(['help'])
    for (const cmd of ['demo', 'account', 'calibrate', 'train', 'evaluate', 'audit']) expect(r.stdout).toMatch(new RegExp(`^  dpaudit ${cmd}`, 'm'))
    expect(r.stdout).toMatch(/--version/)
  })
})

describe('the help text and the docs say the same', () => {
  const docs = ['README.md', ...readdirSync('docs', { recursive: true }).map(String).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))]
  it('every flag the docs pass to a command (`dpaudit <command> … --flag`) is in that command\'s --help', () => {
    const used: Array<{ command: string; flag: string; file: string }> = []
    for (const f of docs)
      for (const m of readFileSync(f, 'utf8').matchAll(/dpaudit (account|calibrate|train|evaluate|audit|report|verify|worker|demo)\b([^`\n|]*)/g))
        for (const flag of (m[2] ?? '').match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []) used.push({ command: m[1] as string, flag, file: f })
    expect(used.length).toBeGreaterThan(30)
    const help = (command: string): string => {
      const r = runSafely([command, '--help'])
      // `audit --queue` has its own usage (the trainer audit), shown in the general help
      return command === 'audit' ? `${r.stdout ?? ''}\n${runSafely(['help']).stdout ?? ''}` : (r.stdout ?? '')
    }
    // every command answers --help (what the help prints is the command's usage, which need not name --help itself)
    for (const command of new Set(used.filter((u) => u.flag === '--help').map((u) => u.command))) expect(runSafely([command, '--help']).code).toBe(0)
    const missing = used.filter((u) => u.flag !== '--help' && !new RegExp(`${u.flag}(?![\\w-])`).test(help(u.command)))
    expect(missing).toEqual([])
  })
  it('the exit codes README.md lists are the ones `dpaudit help` lists', () => {
    const codes = (text: string): ReadonlyArray<number> => [...text.matchAll(/(?:^|[:,]\s+)(\d+) [a-z]/g)].map((m) => Number(m[1])).sort((a, b) => a - b)
    const usage = /^exit codes: ([\s\S]*?)\nspec format/m.exec(runSafely(['help']).stdout ?? '')?.[1] ?? ''
    const readme = /Exit codes: ([\s\S]*?)\. The spec format/.exec(readFileSync('README.md', 'utf8'))?.[1] ?? ''
    expect(codes(usage)).toEqual([0, 1, 2, 3, 4, 70])
    expect(codes(readme)).toEqual(codes(usage))
  })
})

describe('one accountant vocabulary for account and calibrate', () => {
  it('account takes all and tightest alike (every accountant, with the tightest row)', () => {
    const all = runSafely(['account', 'examples/dp-sgd.json', '--accountant', 'all', '--json'])
    const tightest = runSafely(['account', 'examples/dp-sgd.json', '--accountant', 'tightest', '--json'])
    expect(all.code).toBe(0)
    expect(tightest.code).toBe(0)
    expect(JSON.parse(tightest.stdout ?? '')).toEqual(JSON.parse(all.stdout ?? ''))
  })
  it('calibrate takes tightest and all alike', () => {
    const p = file('steps-pure.json', { schemaVersion: 1, event: { _tag: 'SelfCompose', count: '$param', event: { _tag: 'Laplace', scale: 10, sensitivity: 1, relation: rel } } })
    const args = ['calibrate', p, '--epsilon', '1', '--delta', '1e-5', '--json']
    const t = runSafely([...args, '--accountant', 'tightest'])
    const a = runSafely([...args, '--accountant', 'all'])
    expect(t.code).toBe(0)
    expect(a.stdout).toBe(t.stdout)
    expect(runSafely([...args, '--accountant', 'magic']).stderr).toMatch(/unknown accountant "magic" \(one of .*tightest\/all/)
  })
})

describe('nothing to account', () => {
  it('an empty array of specs is exit 1 with one line saying so', () => {
    expectOneLineError(runSafely(['account', file('empty.json', [])]), 1, /empty\.json: an empty array of specs: nothing to account/)
  })
})

describe('the account table', () => {
  it('prints each distinct method once as a numbered footnote, fits 100 columns, rounds ε to its accounting error', () => {
    const r = runSafely(['account', 'examples/dp-sgd.json', '--delta', '1e-5', '--delta', '1e-8'])
    expect(r.code).toBe(0)
    const text = r.stdout ?? ''
    for (const line of text.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(100)
    // the δ-split clause is shared by basic, advanced and optimal: printed once
    expect(text.match(/δ_free = 0\.00001000/g)?.length).toBe(1)
    expect(text).toMatch(/^basic\s.*\[1, 2, 3\]$/m)
    expect(text).toMatch(/^advanced\s.*\[\d+, 2, 3\]$/m)
    expect(text).not.toMatch(/…/)
    // PLD's accounting error is ~5e-4 at δ = 1e-5: four decimals, not more
    expect(text).toMatch(/^pld\s+\d+\.\d{4} \(−/m)
    // no spurious precision for the others: 5 significant digits
    expect(text).toMatch(/^basic\s+5446\.0\s/m)
  })
})

describe('--json outputs decode with the exported codecs', () => {
  it('account and calibrate', () => {
    const a = runSafely(['account', 'examples/dp-sgd.json', '--orders', '2,14', '--json'])
    const da = AccountOutput.decode(JSON.parse(a.stdout ?? ''))
    expect(E.isRight(da)).toBe(true)
    if (E.isRight(da)) expect(da.right.schemaVersion).toBe(1)
    const c = runSafely(['calibrate', 'examples/calibrate-dp-sgd.json', '--epsilon', '3', '--delta', '1e-5', '--accountant', 'rdp', '--json'])
    const dc = CalibrateOutput.decode(JSON.parse(c.stdout ?? ''))
    expect(E.isRight(dc)).toBe(true)
    if (E.isRight(dc)) expect(dc.right.tool).toBe('dpaudit calibrate')
  })
})
