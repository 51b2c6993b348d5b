/**
 * The executable's V8 setting for its worker threads (src/cli/worker-compilation.ts, issues 23 and 27):
 * each worker isolate compiles its hot code on its own thread. It changes when and where V8 compiles,
 * never what the code computes: an audit on worker threads and a seeded private fit on worker threads
 * give the same answers before and after it is set, in one process (the flag is process-wide and cannot
 * be unset, so the comparison runs in a child process on the compiled package). That child is
 * `node --input-type=module -e …`, whose --input-type once killed the private trainers' worker threads
 * while they loaded (core/worker-exec-argv.ts): the fit on 2 workers checks that too.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { compileWorkersInThread, WORKER_COMPILATION_FLAG } from '../../src/cli/worker-compilation.js'

const dist = resolve('dist')
const haveDist = existsSync(resolve('dist/cli/worker-compilation.js')) && existsSync(resolve('dist/attacks/worker.js'))
const at = (file: string): string => JSON.stringify(pathToFileURL(resolve(dist, file)).href)

describe('worker threads compiling in their own thread', () => {
  it('sets the flag once per process and says so each time', () => {
    expect(WORKER_COMPILATION_FLAG).toBe('--no-concurrent-recompilation')
    expect(compileWorkersInThread()).toBe(true)
    expect(compileWorkersInThread()).toBe(true)
  })

  it.skipIf(!haveDist)('changes no answer: an audit on 2 workers and a seeded HDP-LDA fit on 2 workers, before and after it is set', () => {
    const script = `
      import { auditMechanism, createWorkerPool, zooEntry } from ${at('attacks/index.js')}
      import { generateLda, hdpLda } from ${at('trainers/index.js')}
      import { seeded } from ${at('core/rng.js')}
      import { compileWorkersInThread } from ${at('cli/worker-compilation.js')}
      const claim = { epsilon: 0.1, delta: 0 }
      const ref = { _tag: 'ZooRef', name: 'noisy-max-value-small-epsilon', claim }
      const pairs = zooEntry('noisy-max-value-small-epsilon').pairs()
      const corpus = generateLda({ topics: 3, vocabulary: 30, documents: 40, alpha: 0.2, beta: 0.1, meanDocumentLength: 30 }, seeded('compile')).right.corpus
      const once = () => {
        const pool = createWorkerPool(ref, pairs, 2)
        const r = auditMechanism({ mechanism: ref, pairs, claim, trials: 120000, seed: 'compile', executor: pool.right })
        pool.right.close()
        const fit = hdpLda.fit(corpus, { ...hdpLda.defaults, topics: 3, iterations: 4 }, seeded(9), { logLikelihoodEvery: 0, workers: 2 })
        return { audit: { ...r.right, workers: undefined }, phi: Array.from(fit.right.model.phi) }
      }
      const before = once()
      const set = compileWorkersInThread()
      const after = once()
      process.stdout.write(JSON.stringify({ set, before, after }))`
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 180_000 })) as {
      set: boolean
      before: { audit: Record<string, unknown>; phi: number[] }
      after: { audit: Record<string, unknown>; phi: number[] }
    }
    expect(out.set).toBe(true)
    expect(out.after.audit).toEqual(out.before.audit)
    expect(typeof out.before.audit.epsilonLowerBound).toBe('number')
    expect(out.after.phi).toEqual(out.before.phi)
    expect(out.before.phi.length).toBe(3 * 30)
  })
})
