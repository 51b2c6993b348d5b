/**
 * The trainers' privacy statements at tiny noise (issue 30): a huge ε or ∞, never 0. The reported
 * case: `train svi-lda --noise multiplier --multiplier 1e-9` printed "accounted ε = 0.000", because
 * the RDP accountant answered 0 for the Poisson-subsampled Gaussian at σ ≤ 1e-7 and `tightest` took
 * it. Every number in a statement is checked against an independent lower bound on the true ε of
 * the trainer's own plan (test/accounting/extremes/lower-bound.ts).
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { formatError } from '../../src/core/error.js'
import type { CorpusStats, LdaConfigBase, LdaTrainer } from '../../src/trainers/index.js'
import { TRAINERS } from '../../src/trainers/registry.js'
import { privacyStatement } from '../../src/trainers/statement.js'
import { epsilonLower } from '../accounting/extremes/lower-bound.js'

const stats: CorpusStats = { documents: 2_000, vocabulary: 500, tokens: 100_000, maxDocumentLength: 300 }
const DELTAS = [1e-5, 1e-10]

/** A statement at `over` (on the trainer's defaults, few topics and iterations), or why not. */
const statementOf = (name: keyof typeof TRAINERS, over: Record<string, unknown>) => {
  const trainer = TRAINERS[name] as LdaTrainer<LdaConfigBase>
  const config = { ...(trainer.defaults as object), topics: 5, iterations: 5, ...over } as LdaConfigBase
  const valid = trainer.validate(config, stats)
  if (E.isLeft(valid)) throw new Error(`${name}: ${formatError(valid.left)}`)
  const s = privacyStatement(trainer, valid.right, stats, DELTAS)
  if (E.isLeft(s)) throw new Error(`${name}: ${formatError(s.left)}`)
  return s.right
}

/** Every ε of a statement (accounted and guaranteed) at or above the plan's lower bound, and huge. */
const expectHuge = (name: keyof typeof TRAINERS, over: Record<string, unknown>, atLeast: number): void => {
  const s = statementOf(name, over)
  for (const a of [...s.accounted, ...s.guarantee]) {
    const tag = `${name} ${JSON.stringify(over)} at δ = ${a.delta}: ε = ${a.epsilon} (${a.method})`
    expect(Number.isNaN(a.epsilon), tag).toBe(false)
    expect(a.epsilon, tag).toBeGreaterThanOrEqual(atLeast)
    expect(a.epsilon, tag).toBeGreaterThanOrEqual(epsilonLower(s.plan, a.delta) * (1 - 1e-13))
  }
}

describe('privacy statements at tiny noise print a huge ε or ∞, never 0', () => {
  it('svi-lda (Poisson sampling) with the noise multiplier 1e-9, the reported case, and down to 1e-300', () => {
    for (const multiplier of [1e-6, 1e-7, 1e-9, 1e-12, 1e-100, 1e-300]) expectHuge('svi-lda', { noise: 'multiplier', multiplier }, 1e6)
  })

  it('svi-lda-wor (sampling without replacement) with tiny multipliers', () => {
    for (const multiplier of [1e-7, 1e-9, 1e-300]) expectHuge('svi-lda-wor', { noise: 'multiplier', multiplier, sampling: 'without-replacement' }, 1e6)
  })

  it('sub-lda with an RDP budget so large that σ is tiny (Poisson-subsampled Gaussian steps)', () => {
    for (const rdpEpsilon of [1e14, 1e20, 1e300]) expectHuge('sub-lda', { rdpEpsilon }, 1e6)
  })

  it('the trainers stated by ε: ε huge gives a huge statement', () => {
    expectHuge('cdp-lda', { epsilon: 1e12 }, 1e6)
    expectHuge('hdp-lda', { epsilonL: 1e12 }, 1e6)
    expectHuge('spectral', { epsilon: 1e12 }, 1e6)
  })
})
