/**
 * One result type for every audit (issue 23): a mechanism audit and a trainer audit both carry
 * `subject`, decode with the same codec after a JSON round trip, and results written before the
 * subject existed (schema 1 without it) still decode, upgraded.
 */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { auditZoo } from '../../src/attacks/audit.js'
import { decodeAuditResult } from '../../src/attacks/result.js'
import { auditTrainer } from '../../src/attacks/trainers/audit.js'
import { syntheticCorpus } from '../../src/attacks/trainers/game.js'
import { stringifyJson } from '../../src/core/json.js'

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}
const roundTrip = (x: unknown): unknown => JSON.parse(stringifyJson(x))

const mechanism = right(auditZoo('laplace', { trials: 20_000, seed: 'result' }))
const corpus = right(syntheticCorpus({ documents: 20, vocabulary: 12, topics: 2, meanDocumentLength: 8, unused: 2, seed: 'result' }))
const trainerSpec = {
  game: {
    trainer: 'hdp-lda' as const,
    config: { topics: 2, iterations: 2, epsilonL: 0.2, clip: 0.1, beta: 1, alpha: 0.1 },
    corpus,
    neighbour: { kind: 'replace-word' as const, document: 0, position: 0, word: 12 },
    view: 'white-box' as const,
  },
  claim: { epsilon: 1, delta: 1e-5 },
  runs: 80,
  seed: 'result',
}

describe('the audit result type', () => {
  it('names its subject, and a mechanism result decodes after a JSON round trip', () => {
    expect(mechanism.subject).toEqual({ kind: 'mechanism', name: 'laplace', pairs: mechanism.pairs })
    const d = right(decodeAuditResult(roundTrip(mechanism)))
    expect(d.subject.kind).toBe('mechanism')
    expect(d.epsilonLowerBound).toBe(mechanism.epsilonLowerBound)
  })
  it('a trainer result has the same shared fields and decodes with the same codec', async () => {
    const t = right(await auditTrainer(trainerSpec))
    expect(t.subject).toMatchObject({ kind: 'trainer', name: 'hdp-lda', view: 'white-box' })
    expect(t.trials.spent).toBe(t.trials.selection + t.trials.estimation)
    const d = right(decodeAuditResult(roundTrip(t)))
    expect(d.subject.kind).toBe('trainer')
    expect(d.verdict).toBe(t.verdict)
  })
  it('upgrades a schema-1 mechanism result written without a subject', () => {
    const { subject: _s, ...old } = roundTrip(mechanism) as Record<string, unknown>
    const d = right(decodeAuditResult(old))
    expect(d.subject).toEqual({ kind: 'mechanism', name: 'laplace', pairs: mechanism.pairs })
  })
  it('upgrades a schema-1 trainer result (runs, issues as strings, status "failed")', async () => {
    const t = roundTrip(right(await auditTrainer(trainerSpec))) as Record<string, unknown>
    const { subject: _s, trials, ...rest } = t
    const tr = trials as Record<string, number>
    const old = {
      ...rest,
      status: 'failed',
      issues: ['a worker died'],
      runs: { requested: tr.requested, selectionPerSide: tr.selectionPerPairPerSide, estimationPerSide: tr.estimationPerSide, spent: tr.spent },
    }
    const d = right(decodeAuditResult(old))
    expect(d.subject.kind).toBe('trainer')
    expect(d.status).toBe('trainer-failed')
    expect(d.issues).toEqual([{ _tag: 'TrainerFailed', message: 'a worker died' }])
    expect(d.trials).toEqual(trials)
  })
  it('refuses a broken file with the field that is wrong', () => {
    const bad = { ...(roundTrip(mechanism) as Record<string, unknown>), verdict: 'fine' }
    const e = decodeAuditResult(bad, 'x.json:$.result')
    expect(E.isLeft(e) && e.left.path).toBe('x.json:$.result.verdict')
  })
})

describe('dpaudit audit on a trainer-audit file (no queue)', () => {
  it('runs locally and honours --out with the same document as a mechanism audit', async () => {
    const { mkdtempSync, readFileSync, writeFileSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { runQueueAudit } = await import('../../src/cli/commands/queue-audit.js')
    const { isAsyncAudit } = await import('../../src/cli/command-table.js')
    const dir = mkdtempSync(join(tmpdir(), 'trainer-out-'))
    try {
      const file = join(dir, 'game.json')
      writeFileSync(file, JSON.stringify(trainerSpec))
      const out = join(dir, 'result.json')
      expect(isAsyncAudit([file, '--out', out])).toBe(true)
      expect(isAsyncAudit(['zoo:laplace', '--out', out])).toBe(false)
      const r = await runQueueAudit([file, '--out', out, '--quiet'])
      expect([0, 3, 4]).toContain(r.code)
      expect(r.stdout).toMatch(/trainer audit: hdp-lda/)
      const doc = JSON.parse(readFileSync(out, 'utf8')) as { tool: string; result: unknown }
      expect(doc.tool).toBe('dpaudit audit')
      const d = right(decodeAuditResult(doc.result))
      expect(d.subject.kind).toBe('trainer')
      expect(d.epsilonLowerBound).toBe(right(await auditTrainer(trainerSpec)).epsilonLowerBound)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
