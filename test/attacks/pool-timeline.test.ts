/**
 * The worker pool's timeline and the warm-up of idle threads during the fits (issue 23). Both need the
 * compiled worker (dist/ from `npm run build`), so they run in a child process on the compiled package.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { ATTACK_FAMILIES } from '../../src/attacks/score.js'
import { pairJobCount } from '../../src/attacks/search.js'

const distAttacks = resolve('dist/attacks/index.js')
const haveDist = existsSync(distAttacks) && existsSync(resolve('dist/attacks/worker.js'))
const dir = mkdtempSync(join(tmpdir(), 'pool-timeline-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Run {
  readonly result: Record<string, unknown>
  readonly ready: number
  readonly kinds: Record<string, number>
  readonly batches: ReadonlyArray<string>
  readonly ordered: boolean
}

describe('worker pool timeline and warm-up (compiled package)', () => {
  it.skipIf(!haveDist)('gives the same audit with the warm-up on and off (number, vector and category outputs), and times every chunk and fit', () => {
    const mod = join(dir, 'coin.mjs')
    // category outputs: a biased coin named by strings
    writeFileSync(mod, "export const mechanism = (x, rng) => (rng.next() < (x === 1 ? 0.62 : 0.5) ? 'heads' : 'tails')\n")
    const script = `
      import { auditMechanism, createWorkerPool, zooEntry } from ${JSON.stringify(pathToFileURL(distAttacks).href)}
      const claim = { epsilon: 1, delta: 0 }
      const subjects = [
        [{ _tag: 'ZooRef', name: 'laplace', claim }, zooEntry('laplace').pairs()],
        [{ _tag: 'ZooRef', name: 'noisy-max-value', claim }, zooEntry('noisy-max-value').pairs()],
        [{ _tag: 'ModuleRef', url: ${JSON.stringify(pathToFileURL(mod).href)}, exportName: 'mechanism' }, [{ input: 0, neighbour: 1 }]],
      ]
      const out = []
      for (const [ref, pairs] of subjects)
        for (const warmUp of [true, false]) {
          const pool = createWorkerPool(ref, pairs, 3, { warmUp })
          const r = auditMechanism({ mechanism: ref, pairs, claim, trials: 60000, seed: 'timeline', executor: pool.right })
          pool.right.close()
          const t = pool.right.timeline
          const kinds = {}
          for (const i of t.items) kinds[i.kind] = (kinds[i.kind] ?? 0) + 1
          const ordered = t.items.every((i) => i.ms >= 0 && i.end >= t.created && i.worker >= 0 && i.worker < 3) && t.batches.every((b) => b.end >= b.start && b.start >= t.created)
          out.push({ result: { ...r.right, workers: undefined }, ready: t.ready.filter((x) => x !== null && x >= t.created).length, kinds, batches: t.batches.map((b) => b.kind), ordered })
        }
      process.stdout.write(JSON.stringify(out))`
    const runs = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 180_000 })) as Run[]
    expect(runs).toHaveLength(6)
    for (let k = 0; k < 6; k += 2) {
      const [on, off] = [runs[k] as Run, runs[k + 1] as Run]
      expect(on.result).toEqual(off.result)
      for (const r of [on, off]) {
        expect(r.ordered).toBe(true)
        expect(r.ready).toBeGreaterThanOrEqual(1)
        // every fit and every chunk the audit used is on the timeline (the probe and selection chunks are 'select')
        // every family's model and event jobs per pair fitted (the threshold event is two jobs)
        expect((r.kinds.fit ?? 0) % pairJobCount(ATTACK_FAMILIES) === 0 && (r.kinds.fit ?? 0) > 0).toBe(true)
        expect(r.kinds.estimate).toBeGreaterThan(0)
        expect(r.kinds.select).toBeGreaterThan(1)
        expect(r.batches).toContain('fit')
      }
    }
  })
})
