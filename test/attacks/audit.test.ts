import { mkdtempSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type Checkpoint, checkpointDigest } from '../../src/attacks/checkpoint.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { type AuditResult, type AuditSpec, auditMechanism, auditZoo } from '../../src/attacks/audit.js'
import type { SyncExecutor } from '../../src/attacks/executor.js'
import { taskInput } from '../../src/attacks/executor.js'
import type { BlackBox } from '../../src/attacks/output.js'
import type { NeighbourPair } from '../../src/attacks/pairs.js'
import { runChunk } from '../../src/attacks/trials.js'
import { laplaceNoise, snapped } from '../../src/attacks/zoo/noise.js'
import { zooEntry } from '../../src/attacks/zoo/index.js'
import { formatAuditResult } from '../../src/attacks/format.js'

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(`expected Right, got ${JSON.stringify(e.left)}`)
  return e.right
}

/**
 * A stand-in for a k-worker pool: deals the tasks round-robin to k simulated workers and
 * finishes them in an interleaved, reversed order, calling the same worker entry (runChunk).
 */
const simulatedPool = <I>(mechanism: BlackBox<I>, pairs: ReadonlyArray<NeighbourPair<I>>, workers: number): SyncExecutor => ({
  workers,
  run: (tasks, onResult) => {
    const queues: Array<typeof tasks[number][]> = Array.from({ length: workers }, () => [])
    tasks.forEach((t, i) => queues[i % workers]!.push(t))
    for (let round = 0; queues.some((q) => q.length > 0); round++)
      for (let w = workers - 1; w >= 0; w--) {
        const t = queues[w]!.pop()
        if (t !== undefined) onResult(runChunk(t, mechanism, taskInput(pairs, t)))
      }
    return null
  },
  close: () => undefined,
})

// Snapped: textbook floating-point Laplace is not ε-DP (its low bits leak; the `bits` family sees it).
const laplace: BlackBox<number> = (x, rng) => x + snapped(laplaceNoise(rng, 1))
const scalarPairs: ReadonlyArray<NeighbourPair<number>> = [{ input: 0, neighbour: 1, label: '0 vs 1' }]
const base: AuditSpec<number> = { mechanism: laplace, pairs: scalarPairs, claim: { epsilon: 1, delta: 0 }, trials: 60_000, seed: 'audit-test' }

describe('auditMechanism: determinism', () => {
  it('gives the identical result for 1, 2 and 5 (simulated) workers and any chunk size', () => {
    const hist = zooEntry('histogram-inverted')!
    const mech = hist.make({ epsilon: 0.5, delta: 0 }) as BlackBox<unknown>
    const pairs = hist.pairs()
    const spec: AuditSpec<unknown> = { mechanism: mech, pairs, claim: { epsilon: 0.5, delta: 0 }, trials: 40_000, seed: 7 }
    const one = right(auditMechanism(spec))
    const two = right(auditMechanism({ ...spec, executor: simulatedPool(mech, pairs, 2), chunkSize: 3_001 }))
    const five = right(auditMechanism({ ...spec, executor: simulatedPool(mech, pairs, 5), chunkSize: 997 }))
    // A streaming executor (worker threads) gets each phase's tasks as one batch: the same result,
    // and the progress reported from its results as they come ends at the same count.
    const seen: number[] = []
    const streaming = right(auditMechanism({ ...spec, executor: { ...simulatedPool(mech, pairs, 3), streams: true }, onProgress: (p) => seen.push(p.trialsDone) }))
    expect(two).toEqual(one)
    expect(five).toEqual(one)
    expect(streaming).toEqual(one)
    expect(seen[seen.length - 1]).toBe(one.trials.spent)
    expect(one.verdict).toBe('violation')
  })
  it('changes with the seed', () => {
    const a = right(auditMechanism(base))
    const b = right(auditMechanism({ ...base, seed: 'another' }))
    expect(a.counts).not.toEqual(b.counts)
  })
})

describe('auditMechanism: statistics', () => {
  it('bounds a correct Laplace mechanism below its ε and reports every field', () => {
    const r = right(auditMechanism({ ...base, trials: 200_000 }))
    expect(r.status).toBe('complete')
    expect(r.verdict).toBe('consistent')
    // Validity: ε_LB ≤ 1 with probability ≥ 95 %; power: the best threshold test of Laplace(1)
    // reaches about 0.95 at this size, so > 0.8 (a property of this seed, checked once).
    expect(r.epsilonLowerBound).toBeLessThanOrEqual(1)
    expect(r.epsilonLowerBound).toBeGreaterThan(0.8)
    expect(r.attack?.family).toBe('threshold')
    expect(r.trials.spent).toBe(200_000)
    expect(r.trials.selection + r.trials.estimation).toBe(200_000)
    expect(r.counts.positives).toBe(r.trials.estimationPerSide)
    expect(r.ceiling).toBeGreaterThan(9)
    expect(r.roc?.points[0]).toEqual({ threshold: Infinity, fpr: 0, tpr: 0 })
    expect(r.roc?.auc).toBeGreaterThan(0.65)
    expect(formatAuditResult(r)).toContain('certifiable ceiling')
  })
  it('estimates on trials the selection never saw', () => {
    // With the attack fixed in advance, the estimation counts are a function of the estimation
    // streams alone: changing the selection budget changes neither stream, only the split.
    const r = right(auditMechanism({ ...base, families: ['threshold'] }))
    expect(r.trials.selection).toBe(2 * r.trials.selectionPerPairPerSide)
    expect(r.counts.negatives + r.counts.positives).toBe(r.trials.estimation)
  })
  it('handles categories, booleans and vectors', () => {
    const coin = (p: number): BlackBox<number> => (x, rng) => (rng.next() < (x === 0 ? p : 1 - p) ? 'yes' : 'no')
    const cat = right(auditMechanism({ ...base, mechanism: coin(0.25), trials: 40_000 }))
    expect(cat.attack?.family).toBe('histogram')
    expect(cat.attack?.outputShape.kind).toBe('category')
    // Exact ε = ln 3 ≈ 1.0986 > 1.
    expect(cat.epsilonLowerBound).toBeLessThanOrEqual(Math.log(3))
    expect(cat.verdict).toBe('violation')
    const bool: BlackBox<number> = (x, rng) => rng.next() < (x === 0 ? 0.2 : 0.8)
    const b = right(auditMechanism({ ...base, mechanism: bool, trials: 20_000 }))
    expect(b.attack?.outputShape.kind).toBe('boolean')
    expect(b.epsilonLowerBound).toBeLessThanOrEqual(Math.log(4))
    expect(b.verdict).toBe('violation')
    const vec: BlackBox<number> = (x, rng) => [laplaceNoise(rng, 1), x + laplaceNoise(rng, 0.5), laplaceNoise(rng, 1)]
    const v = right(auditMechanism({ ...base, mechanism: vec, trials: 60_000 }))
    expect(v.attack?.outputShape).toEqual({ kind: 'vector', dim: 3 })
    expect(v.epsilonLowerBound).toBeLessThanOrEqual(2)
    expect(v.verdict).toBe('violation')
  })
})

describe('auditMechanism: bad input', () => {
  it('rejects invalid claims, identical pairs and bad options with a path', () => {
    const left = (spec: AuditSpec<number>): string => {
      const r = auditMechanism(spec)
      if (E.isRight(r)) throw new Error('expected Left')
      return `${r.left.path}: ${r.left._tag === 'InvalidParameter' ? r.left.message : ''}`
    }
    expect(left({ ...base, claim: { epsilon: 0, delta: 0 } })).toMatch(/^\$\.claim\.epsilon: .*> 0/)
    expect(left({ ...base, claim: { epsilon: -1, delta: 0 } })).toMatch(/^\$\.claim\.epsilon/)
    expect(left({ ...base, claim: { epsilon: 1, delta: 1 } })).toMatch(/^\$\.claim\.delta: .*\[0, 1\)/)
    expect(left({ ...base, claim: { epsilon: Number.NaN, delta: 0 } })).toMatch(/^\$\.claim\.epsilon/)
    expect(left({ ...base, pairs: [scalarPairs[0]!, { input: 2, neighbour: 2 }] })).toMatch(/^\$\.pairs\[1\]: the two inputs of this pair are identical/)
    expect(left({ ...base, pairs: [] })).toMatch(/^\$\.pairs/)
    expect(left({ ...base, trials: 0 })).toMatch(/^\$\.trials/)
    expect(left({ ...base, trials: 1.5 })).toMatch(/^\$\.trials/)
    expect(left({ ...base, confidence: 1 })).toMatch(/^\$\.confidence/)
    expect(left({ ...base, workers: 2 })).toMatch(/^\$\.workers: a mechanism given as a function runs in this thread/)
  })
  it('marks a throwing mechanism and keeps the trials that ran', () => {
    // 60 000 trials: at most 6 000 selection trials per side, then estimation. The in-process
    // executor runs selection first, so the neighbour's 7 000th call is estimation trial
    // 7 000 − (selection trials per side) − 1: selection finishes, estimation stops there.
    let neighbourCalls = 0
    const flaky: BlackBox<number> = (x, rng) => {
      if (x === 1 && ++neighbourCalls === 7_000) throw new Error('division by zero')
      return x + snapped(laplaceNoise(rng, 1))
    }
    const r = right(auditMechanism({ ...base, mechanism: flaky }))
    expect(r.status).toBe('mechanism-failed')
    expect(r.verdict).toBe('inconclusive')
    const issue = r.issues.find((i) => i._tag === 'MechanismThrew')
    expect(issue?.message).toContain('division by zero')
    expect(issue?.side).toBe(1)
    expect(issue?.phase).toBe('estimate')
    expect(r.trials.selection).toBeLessThanOrEqual(12_000)
    expect(r.counts.negatives).toBe(7_000 - r.trials.selection / 2 - 1)
    expect(r.trials.spent).toBeGreaterThan(r.trials.selection)
    expect(r.interpretation).toMatch(/mechanism failed/)
  })
  it('estimates memory before the run: refuses a 10⁶-length output, shrinks the selection sample for a long one', () => {
    const long =
      (d: number): BlackBox<number> =>
      (x, rng) => {
        const v = new Float64Array(d)
        v[0] = x + snapped(laplaceNoise(rng, 1))
        return v
      }
    const huge = auditMechanism({ ...base, mechanism: long(1_000_000) })
    expect(E.isLeft(huge) && huge.left.message).toMatch(/vector of length 1000000 \(8,000,000 bytes each\).*above the limit/)
    const r = right(auditMechanism({ ...base, mechanism: long(1_000), trials: 20_000, maxMemoryBytes: 2 ** 24 }))
    expect(r.status).toBe('complete')
    expect(r.trials.selection).toBeLessThanOrEqual(2 ** 24 / (2 * 8 * 1_000))
    expect(r.issues.some((i) => /selection sample is limited/.test(i.message))).toBe(true)
  })
  it('marks NaN outputs and changing shapes', () => {
    let n = 0
    const nan: BlackBox<number> = (x, rng) => (++n === 300 ? Number.NaN : x + laplaceNoise(rng, 1))
    const a = right(auditMechanism({ ...base, mechanism: nan }))
    expect(a.status).toBe('mechanism-failed')
    expect(a.issues[0]?._tag).toBe('NonFiniteOutput')
    // Call 300 is trial 298 of the first stream: the first call is the memory probe (trial 0 run once more).
    expect(a.issues[0]?.trial).toBe(298)
    expect(a.trials.spent).toBeGreaterThan(0)
    const shape: BlackBox<number> = (x, rng) => (x === 0 ? rng.next() : [rng.next()])
    const b = right(auditMechanism({ ...base, mechanism: shape }))
    expect(b.status).toBe('mechanism-failed')
    expect(b.issues[0]?._tag).toBe('ShapeChanged')
    expect(b.issues[0]?.message).toMatch(/vector of length 1.*number|number.*vector of length 1/)
  })
  it('says when the trials are too few to certify anything, and how many would do', () => {
    const tiny = right(auditMechanism({ ...base, trials: 100 }))
    expect(tiny.status).toBe('too-few-trials')
    expect(tiny.trials.spent).toBe(0)
    expect(tiny.issues[0]?._tag).toBe('TooFewTrials')
    expect(tiny.trialsNeeded.forCeiling).toBeGreaterThan(100)
    // 2 000 trials: 800 per side for estimation certify at most ≈ 5.3 < 8 claimed.
    const weak = right(auditMechanism({ ...base, trials: 2_000, claim: { epsilon: 8, delta: 0 } }))
    expect(weak.status).toBe('complete')
    expect(weak.verdict).toBe('inconclusive')
    expect(weak.ceiling).toBeLessThan(8)
    expect(weak.issues.some((i) => i._tag === 'TooFewTrials')).toBe(true)
    const enough = right(auditMechanism({ ...base, trials: weak.trialsNeeded.forCeiling, claim: { epsilon: 8, delta: 0 } }))
    expect(enough.ceiling).toBeGreaterThan(8)
    expect(enough.verdict).toBe('consistent')
  })
})

describe('auditMechanism: checkpoints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-ckpt-')) // not dpaudit-*: another run's global teardown removes those while this file runs
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  it('resumes an interrupted audit to the uninterrupted result', () => {
    const file = join(dir, 'a.json')
    const spec: AuditSpec<number> = { ...base, trials: 200_000, chunkSize: 4_096 }
    const full = right(auditMechanism(spec))
    let batches = 0
    const stopped = right(auditMechanism({ ...spec, checkpoint: file, shouldStop: () => ++batches >= 3 }))
    expect(stopped.status).toBe('interrupted')
    expect(stopped.verdict).toBe('inconclusive')
    expect(stopped.trials.spent).toBeLessThan(200_000)
    expect(existsSync(file)).toBe(true)
    let resumedTrials = 0
    const resumed = right(auditMechanism({ ...spec, checkpoint: file, onProgress: (p) => (resumedTrials = p.trialsDone) }))
    expect(resumed).toEqual(full)
    expect(resumedTrials).toBe(200_000)
    rmSync(file)
  })
  it('refuses a tampered checkpoint (negative counts, edited contents) instead of resuming from it', () => {
    const file = join(dir, 't.json')
    const spec: AuditSpec<number> = { ...base, trials: 200_000, chunkSize: 4_096 }
    let batches = 0
    const stopped = right(auditMechanism({ ...spec, checkpoint: file, shouldStop: () => ++batches >= 5 }))
    expect(stopped.status).toBe('interrupted')
    const original = readFileSync(file, 'utf8')
    const c = JSON.parse(original) as { estimation: Array<{ counts: number[] }> }
    expect(c.estimation.length).toBeGreaterThan(0)
    // Counts set to −5, the digest left alone: refused.
    c.estimation[0]!.counts[0] = -5
    writeFileSync(file, JSON.stringify(c))
    const bad = auditMechanism({ ...spec, checkpoint: file })
    expect(E.isLeft(bad) && bad.left.message).toMatch(/cannot be resumed: its digest does not match/)
    // The same edit with a recomputed digest: the counts themselves are refused.
    const { digest: _old, ...rest } = c as unknown as Checkpoint
    writeFileSync(file, JSON.stringify({ ...rest, digest: checkpointDigest(rest) }))
    const bad2 = auditMechanism({ ...spec, checkpoint: file })
    expect(E.isLeft(bad2) && bad2.left.message).toMatch(/not a non-negative integer \(-5\)/)
    writeFileSync(file, original)
    expect(right(auditMechanism({ ...spec, checkpoint: file })).status).toBe('complete')
    rmSync(file)
  })
  it('refuses a checkpoint written by a different audit', () => {
    const file = join(dir, 'b.json')
    right(auditMechanism({ ...base, checkpoint: file }))
    const other = auditMechanism({ ...base, seed: 'different', checkpoint: file })
    expect(E.isLeft(other) && other.left.path).toBe('$.checkpoint')
  })
})

describe('auditZoo', () => {
  it('audits a zoo entry by name, and names unknown ones', () => {
    const r: AuditResult = right(auditZoo('rr-per-bit', { trials: 20_000, seed: 1 }))
    expect(r.mechanism).toBe('rr-per-bit')
    expect(r.verdict).toBe('violation')
    const bad = auditZoo('no-such')
    expect(E.isLeft(bad) && bad.left._tag === 'InvalidParameter' && bad.left.message).toMatch(/no zoo mechanism named "no-such"/)
  })
  it('reports that worker threads need the compiled package when running from sources', () => {
    const r = auditZoo('laplace', { workers: 2, trials: 10_000 })
    expect(E.isLeft(r) && r.left._tag === 'InvalidParameter' && r.left.message).toMatch(/npm run build|workers: 1/)
  })
})
