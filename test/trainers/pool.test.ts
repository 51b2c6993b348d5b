// The worker pool (src/trainers/lda/parallel/pool.ts): a command returns, or throws, only once every
// worker is done with it, so the threads a fit parks are idle when the next fit binds them. The
// regression: part 0 (the calling thread) threw and the pool returned at once; the fit's `close`
// parked workers still running the command, and the next fit's operations completed on their late
// "done" counts (AD-LDA's merge read parts mid-sweep: its row sums, hence its list capacities, broke,
// and the WebAssembly sweep trapped out of bounds).
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { prestartPool, spinMsFor, startPool, wakeParkedWithoutCommand } from '../../src/trainers/lda/parallel/pool.js'
import { type ProbeArrays, probePart } from './fixtures/pool-probe.js'

const shared = (n: number): Int32Array => new Int32Array(new SharedArrayBuffer(4 * n))
const probeArrays = (parts: number): ProbeArrays => ({ gate: shared(1), finished: shared(parts), marks: shared(parts) })

describe('worker pool', () => {
  it('threads watch the control block before blocking only when each has a core of its own (a watching thread would take one from a working thread)', () => {
    expect(spinMsFor(2, 2)).toBeGreaterThan(0)
    expect(spinMsFor(2, 2)).toBeLessThanOrEqual(1) // a brief watch, not a busy pool
    expect(spinMsFor(16, 16)).toBe(spinMsFor(2, 2))
    expect(spinMsFor(3, 2)).toBe(0)
    expect(spinMsFor(16, 2)).toBe(0)
  })

  it('a command whose calling-thread part throws returns only after the workers finished it; reused threads then serve the next fit', () => {
    const parts = 3
    const a = probeArrays(parts)
    const first = startPool(probePart, a, parts)
    if (E.isLeft(first)) throw new Error(first.left.message)
    try {
      expect(() => first.right.run('slow-fail')).toThrow('part 0 failed')
      // the workers were waiting (up to 1 s) when part 0 threw: the old pool returned before they set this
      expect(Array.from(a.finished.subarray(1))).toEqual([1, 1])
    } finally {
      first.right.close()
    }
    // the next fit on as many threads gets the parked ones: every command it runs is its own
    const b = probeArrays(parts)
    const second = startPool(probePart, b, parts)
    if (E.isLeft(second)) throw new Error(second.left.message)
    try {
      for (let i = 0; i < 5; i++) {
        second.right.run('mark')
        expect(Array.from(b.marks)).toEqual([i + 1, i + 1, i + 1])
      }
      expect(Array.from(a.marks)).toEqual([0, 0, 0])
    } finally {
      second.right.close()
    }
  })

  it('a worker woken without a new generation waits again instead of running its last command twice', () => {
    const parts = 3
    const a = probeArrays(parts)
    const pool = startPool(probePart, a, parts)
    if (E.isLeft(pool)) throw new Error(pool.left.message)
    pool.right.run('mark')
    pool.right.close()
    // parked, waiting on the generation; woken with it unchanged (the old worker re-ran 'mark': 2 marks each)
    // a worker that has acknowledged 'mark' may not be back in its wait yet (notify counts only those
    // waiting): wake again, 10 ms apart, until every worker was woken at once — each wake is such a one
    const sleep = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
    let woken = 0
    for (let i = 0; i < 100 && woken < parts - 1; i++) {
      woken = wakeParkedWithoutCommand(parts)
      if (woken < parts - 1) sleep(10)
    }
    expect(woken).toBe(parts - 1)
    sleep(300)
    expect(Array.from(a.marks)).toEqual([1, 1, 1])
    // and the threads still serve the next fit
    const b = probeArrays(parts)
    const next = startPool(probePart, b, parts)
    if (E.isLeft(next)) throw new Error(next.left.message)
    try {
      next.right.run('mark')
      expect(Array.from(b.marks)).toEqual([1, 1, 1])
    } finally {
      next.right.close()
    }
  })

  it('arrays that cannot be posted to the threads are an error value, and the next fit starts', () => {
    const parts = 2
    const first = startPool(probePart, probeArrays(parts), parts)
    if (E.isLeft(first)) throw new Error(first.left.message)
    first.right.close() // parked: the next fit of 2 parts takes these threads
    const bad = { ...probeArrays(parts), notCloneable: () => 0 } as unknown as ProbeArrays
    const r = startPool(probePart, bad, parts)
    expect(E.isLeft(r)).toBe(true)
    if (E.isLeft(r)) expect(r.left.message).toMatch(/cannot start worker threads/)
    // the taken threads were ended, not parked again: a fresh pool serves the next fit
    expect(wakeParkedWithoutCommand(parts)).toBe(0)
    const b = probeArrays(parts)
    const next = startPool(probePart, b, parts)
    if (E.isLeft(next)) throw new Error(next.left.message)
    try {
      next.right.run('mark')
      expect(Array.from(b.marks)).toEqual([1, 1])
    } finally {
      next.right.close()
    }
  })

  it('threads started ahead of a fit (prestartPool) are parked, and the next fit of their size takes them', () => {
    const parts = 4
    prestartPool(probePart, parts)
    // parked at once, still loading: a second start of the same size adds nothing
    prestartPool(probePart, parts)
    const a = probeArrays(parts)
    const pool = startPool(probePart, a, parts)
    if (E.isLeft(pool)) throw new Error(pool.left.message)
    try {
      // taken from the parked ones: nothing of this size is left parked
      expect(wakeParkedWithoutCommand(parts)).toBe(0)
      for (let i = 0; i < 3; i++) pool.right.run('mark')
      expect(Array.from(a.marks)).toEqual([3, 3, 3, 3])
    } finally {
      pool.right.close()
    }
  })
})
