/**
 * SIGTERM and SIGINT during a local `dpaudit audit` (issue 23): the audit stops at the next batch of
 * chunks, its worker pool closed, with one line on stderr, exit 143 (SIGTERM) or 130 (SIGINT), no
 * result file, and a checkpoint from which the same command resumes to the answer of an
 * uninterrupted run. Runs the compiled executable (the audit's own thread needs dist/).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const main = resolve('dist/cli/main.js')
const haveDist = existsSync(main) && existsSync(resolve('dist/cli/commands/audit-thread-worker.js'))
const dir = mkdtempSync(join(tmpdir(), 'dpaudit-signals-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// A deliberately slow mechanism (a short busy loop per trial), so the audit is still running when the signal comes.
const mod = join(dir, 'slow.mjs')
writeFileSync(
  mod,
  [
    'export const claim = { epsilon: 1, delta: 0 }',
    'export const pairs = [{ input: 0, neighbour: 1, label: "0 vs 1" }]',
    'export const mechanism = (x, rng) => { let s = 0; for (let i = 0; i < 300; i++) s += Math.sqrt(i); return x + (s > 0 ? 0 : 1) + Math.log(rng.next()) }',
  ].join('\n'),
)

const args = (checkpoint: string, out: string): string[] => ['audit', mod, '--trials', '400000', '--seed', 'signals', '--workers', '2', '--quiet', '--checkpoint', checkpoint, '--out', out]

/** Starts the audit, sends `signal` once the checkpoint exists (selection done, estimation under way), and waits for the exit. */
const interrupt = (signal: 'SIGTERM' | 'SIGINT', checkpoint: string, out: string): Promise<{ code: number | null; stderr: string; afterSignalMs: number }> =>
  new Promise((done) => {
    const child = spawn(process.execPath, [main, ...args(checkpoint, out)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    let sentAt = 0
    const poll = setInterval(() => {
      if (sentAt === 0 && existsSync(checkpoint)) {
        sentAt = Date.now()
        child.kill(signal)
      }
    }, 20)
    child.on('exit', (code) => {
      clearInterval(poll)
      done({ code, stderr, afterSignalMs: sentAt === 0 ? -1 : Date.now() - sentAt })
    })
  })

describe('dpaudit audit under SIGTERM / SIGINT (compiled package)', () => {
  it.skipIf(!haveDist)('stops cleanly with one line and 143, keeps a checkpoint, and resumes to the uninterrupted answer', async () => {
    const checkpoint = join(dir, 'term.ckpt')
    const out = join(dir, 'term.audit.json')
    const r = await interrupt('SIGTERM', checkpoint, out)
    expect(r.afterSignalMs, 'the signal was sent while the audit ran').toBeGreaterThanOrEqual(0)
    expect(r.code).toBe(143)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^audit: stopped by SIGTERM after [\d,]+ of 400,000 trials; .*term\.ckpt keeps the finished chunks: run the same command to resume/)
    // no result for an unfinished run; the checkpoint holds the selection
    expect(existsSync(out)).toBe(false)
    expect(JSON.parse(readFileSync(checkpoint, 'utf8')).selection).not.toBeNull()
    const resumed = spawnSync(process.execPath, [main, ...args(checkpoint, out)], { encoding: 'utf8', timeout: 240_000 })
    const fresh = spawnSync(process.execPath, [main, ...args(join(dir, 'fresh.ckpt'), join(dir, 'fresh.audit.json'))], { encoding: 'utf8', timeout: 240_000 })
    expect(resumed.status).toBe(fresh.status)
    const a = JSON.parse(readFileSync(out, 'utf8')).result
    const b = JSON.parse(readFileSync(join(dir, 'fresh.audit.json'), 'utf8')).result
    expect(a.status).toBe('complete')
    expect(a.counts).toEqual(b.counts)
    expect(a.epsilonLowerBound).toBe(b.epsilonLowerBound)
    // a finished audit removes its checkpoint
    expect(existsSync(checkpoint)).toBe(false)
  }, 300_000)
  it.skipIf(!haveDist)('SIGINT (Ctrl-C) exits 130 with the same one line', async () => {
    const r = await interrupt('SIGINT', join(dir, 'int.ckpt'), join(dir, 'int.audit.json'))
    expect(r.afterSignalMs).toBeGreaterThanOrEqual(0)
    expect(r.code).toBe(130)
    expect(r.stderr).toMatch(/^audit: stopped by SIGINT after [\d,]+ of 400,000 trials; /)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  }, 120_000)
})
