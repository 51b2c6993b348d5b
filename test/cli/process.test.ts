/**
 * dpaudit as a real process: an interrupt during a large atomic write leaves no temporary file,
 * and a reader that closes the pipe early (`| head -1`) ends the command quietly. The child runs
 * the TypeScript sources through test/cli/ts-register.mjs (Node 20 cannot strip types).
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RUN_PREFIX } from '../setup/tmp.js'

const dir = mkdtempSync(join(tmpdir(), 'dpaudit-cli-proc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const register = resolve('test/cli/ts-register.mjs')
const main = resolve('src/cli/main.ts')

interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

describe('an interrupt during a large write', () => {
  it('leaves no hidden .tmp file behind (SIGINT while writeFileAtomic writes 200 MB)', async () => {
    const target = join(dir, 'big.bin')
    const script = join(dir, 'write-big.mjs')
    writeFileSync(
      script,
      [
        `import { writeFileAtomic } from ${JSON.stringify(pathToFileURL(resolve('src/core/atomic-file.ts')).href)}`,
        'const bytes = Buffer.alloc(200e6, 97)',
        "process.stdout.write('ready\\n')",
        `writeFileAtomic(${JSON.stringify(target)}, bytes)`,
        // not reached when the signal ends the process as it should
        'setTimeout(() => {}, 2000)',
      ].join('\n'),
    )
    const child = spawn(process.execPath, ['--import', register, script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      child.stdout.on('data', (d: Buffer) => {
        // interrupt as soon as the write has begun
        if (d.toString().includes('ready')) setTimeout(() => child.kill('SIGINT'), 30)
      })
      child.on('exit', (code, signal) => done({ code, signal }))
    })
    expect(stderr).toBe('')
    // the process ends because of the interrupt, not after the 2 s timer or normally
    expect(exit.signal === 'SIGINT' || exit.code === 130).toBe(true)
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([])
    // the write itself is all or nothing
    if (existsSync(target)) expect(statSync(target).size).toBe(200e6)
  })
  it('leaves no hidden .tmp file behind (SIGTERM while writeFileAtomic writes, again and again, for 2 s)', async () => {
    const sub = mkdtempSync(join(dir, 'term-'))
    const target = join(sub, 'big.bin')
    const script = join(dir, 'write-loop.mjs')
    // the writes run back to back in one synchronous loop, so the signal surely lands during one
    // (nearly all of the loop's time is spent writing); the process must end by the signal as soon
    // as the loop lets it, not after the 2 s timer, and with no temporary file
    writeFileSync(
      script,
      [
        `import { writeFileAtomic } from ${JSON.stringify(pathToFileURL(resolve('src/core/atomic-file.ts')).href)}`,
        'const bytes = Buffer.alloc(20e6, 98)',
        "process.stdout.write('ready\\n')",
        'const end = Date.now() + 2000',
        `while (Date.now() < end) writeFileAtomic(${JSON.stringify(target)}, bytes)`,
        "process.stdout.write('loop ended\\n')",
        'setTimeout(() => {}, 2000)',
      ].join('\n'),
    )
    const child = spawn(process.execPath, ['--import', register, script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    let stdout = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString()
        if (d.toString().includes('ready')) setTimeout(() => child.kill('SIGTERM'), 300)
      })
      child.on('exit', (code, signal) => done({ code, signal }))
    })
    expect(stderr).toBe('')
    expect(exit.signal).toBe('SIGTERM')
    // the signal was taken when the loop of writes ended (deferred past the write it interrupted)
    expect(stdout).toContain('loop ended')
    expect(readdirSync(sub).filter((n) => n.endsWith('.tmp'))).toEqual([])
    expect(statSync(target).size).toBe(20e6)
  })
})

const runMain = (args: ReadonlyArray<string>, closeAfterFirstLine: boolean): Promise<Exit> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ['--import', register, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
      // like `| head -1`: read one line, then close the pipe
      if (closeAfterFirstLine && stdout.includes('\n')) child.stdout.destroy()
    })
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }))
  })

// One start-up of the CLI from the sources before the tests that start it: it fills ts-hooks.mjs's
// cache (the run's own, in its temp folder), so each later child reads the transpiled files (~1.5 s of
// CPU) instead of the first one transpiling them within its test's time (~10 s of CPU, a minute at load 20).
beforeAll(async () => {
  const r = await runMain(['--version'], false)
  if (r.code !== 0) throw new Error(`the CLI did not start from the sources: ${r.stderr}`)
}, 240_000)

describe('a permission-denied --out', () => {
  // As root every folder is writable, so the check is run as a user who may not write: in this
  // process when it is not root, else in a child process switched to the user nobody (uid 65534),
  // writing into a folder of this repository that only its owner may write.
  const root = process.getuid?.() === 0
  const repoFolder = resolve('test/cli')
  const st = statSync(repoFolder)
  const nobodyCannotWrite = st.uid !== 65534 && (st.mode & 0o002) === 0
  // The child must read the checkout (sources, node_modules) and start in its folder: a clone under
  // /root (mode 700) or inside a `mktemp -d` folder does not let it. Asked of nobody itself, once;
  // where it cannot, the test is skipped with the reason rather than failing on the checkout's place.
  const nobodyCanRun = ((): string | undefined => {
    if (!root || !nobodyCannotWrite) return undefined
    const needs = [register, resolve('src/cli/run.ts'), resolve('node_modules/fp-ts/package.json')]
    const probe = spawnSync(
      process.execPath,
      ['-e', `const fs = require('fs'); for (const p of ${JSON.stringify(needs)}) fs.accessSync(p, fs.constants.R_OK); fs.readdirSync(${JSON.stringify(repoFolder)})`],
      { uid: 65534, gid: 65534, cwd: process.cwd(), encoding: 'utf8' },
    )
    if (probe.error !== undefined) return `cannot start a process as nobody here (${probe.error.message})`
    return probe.status === 0 ? undefined : `the user nobody cannot read this checkout (${(probe.stderr.split('\n').find((l) => /Error|EACCES/.test(l)) ?? `exit ${probe.status}`).trim()})`
  })()
  /** Runs the commands in one child process as the user nobody (one start-up of the TypeScript sources). */
  const asNobody = (commands: ReadonlyArray<ReadonlyArray<string>>): Promise<ReadonlyArray<{ code: number; stderr?: string }>> =>
    new Promise((done, fail) => {
      const script = [
        `import { runSafely } from ${JSON.stringify(pathToFileURL(resolve('src/cli/run.ts')).href)}`,
        `process.stdout.write(JSON.stringify(${JSON.stringify(commands)}.map((argv) => runSafely(argv))))`,
      ].join('\n')
      const child = spawn(process.execPath, ['--import', register, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], uid: 65534, gid: 65534, cwd: process.cwd() })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      child.on('close', () => {
        try {
          done(JSON.parse(stdout))
        } catch {
          fail(new Error(`the child as nobody failed: ${stderr}`))
        }
      })
    })
  /**
   * Runs `commands` as nobody, reading the sources as transpiled by the root start-up (beforeAll).
   * nobody may not enter the run's temp folder (mode 700) that holds test/cli/ts-hooks.mjs's cache,
   * so its child transpiled the whole CLI itself (~10 s of CPU; a timeout at load 15): the run's
   * folder is opened to traversal (711, not listing) while nobody's child runs. Where the folder is
   * not the run's own, nothing changes.
   */
  const asNobodyFromCache = async (commands: ReadonlyArray<ReadonlyArray<string>>): Promise<ReadonlyArray<{ code: number; stderr?: string }>> => {
    const runDir = tmpdir()
    const mode = statSync(runDir).mode & 0o777
    const open = basename(runDir).startsWith(RUN_PREFIX)
    if (open) chmodSync(runDir, mode | 0o011)
    try {
      return await asNobody(commands)
    } finally {
      if (open) chmodSync(runDir, mode)
    }
  }
  it.skipIf(!root || !nobodyCannotWrite || nobodyCanRun !== undefined)('as root: audit and train run as nobody are refused at once, naming the path, nothing written', async () => {
    const out = join(repoFolder, 'permission-denied.json')
    const [audit, train] = await asNobodyFromCache([
      ['audit', 'zoo:laplace', '--trials', '1000000000', '--out', out],
      ['train', 'cgs', '--corpus', 'brown', '--topics', '2', '--iterations', '2', '--seed', '1', '--quiet', '--out', out],
    ])
    expect(audit).toEqual({ code: 1, stderr: `audit: --out ${out}: not writable (permission denied)` })
    expect(train?.code).toBe(1)
    expect(train?.stderr?.endsWith(`--out ${out}: not writable (permission denied)`), train?.stderr).toBe(true)
    expect(train?.stderr?.split('\n').length).toBe(1)
    expect(existsSync(out)).toBe(false)
  })
  it.skipIf(root)('not root: audit is refused at once on a read-only folder, naming the path', async () => {
    const ro = mkdtempSync(join(dir, 'read-only-'))
    chmodSync(ro, 0o555)
    const out = join(ro, 'x.json')
    const r = await runMain(['audit', 'zoo:laplace', '--trials', '1000000000', '--out', out], false)
    chmodSync(ro, 0o755)
    expect(r.stderr).toBe(`audit: --out ${out}: not writable (permission denied)\n`)
    expect(r.code).toBe(1)
    expect(existsSync(out)).toBe(false)
  })
  if (root && !nobodyCannotWrite) console.warn(`process.test.ts: permission-denied --out not checked: running as root and ${repoFolder} is writable by nobody`)
  if (root && nobodyCanRun !== undefined) console.warn(`process.test.ts: permission-denied --out not checked as nobody: ${nobodyCanRun}`)
})

describe('the executable', () => {
  it('ends quietly when the reader closes the pipe early (dpaudit account many.json | head -1)', async () => {
    const rel = { kind: 'add-remove', unit: 'record' }
    const specs = Array.from({ length: 400 }, (_, i) => ({
      schemaVersion: 1,
      name: `gaussian ${i}`,
      event: { _tag: 'SelfCompose', count: 10 + i, event: { _tag: 'Gaussian', sigma: 2, sensitivity: 1, relation: rel } },
    }))
    const many = join(dir, 'many.json')
    writeFileSync(many, JSON.stringify(specs))
    const r = await runMain(['account', many, '--accountant', 'rdp,zcdp', '--delta', '1e-5', '--delta', '1e-6', '--delta', '1e-7'], true)
    expect(r.stderr).not.toMatch(/EPIPE|Error|\n\s+at /)
    expect(r.code).toBe(0)
  })
  it('prints its version from package.json', async () => {
    const r = await runMain(['--version'], false)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^dpaudit \d+\.\d+\.\d+/)
  })
})
