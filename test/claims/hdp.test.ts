/**
 * Paper 001 (HDP-LDA, Theorem 3; the CDP-LDA baselines of §VII): the statements of docs/claims.md §3,
 * recomputed from the trainers' declared plans on Brown's public sizes.
 */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { account } from '../../src/accounting/account.js'
import { type CorpusStats, TRAINERS, type LdaConfigBase, privacyStatement } from '../../src/trainers/index.js'

// Brown V = 5,000 training split (LDA-EVAL.md): the plans depend on public sizes only.
const BROWN: CorpusStats = { documents: 450, vocabulary: 5000, tokens: 303359, maxDocumentLength: 2000 }
const DELTA = 1e-5

const statement = (name: keyof typeof TRAINERS, config: Record<string, unknown>) => {
  const t = TRAINERS[name]
  const c = { topics: 20, iterations: 20, ...t.defaults, ...config } as LdaConfigBase
  const s = privacyStatement(t, c as never, BROWN, [DELTA])
  if (E.isLeft(s)) throw new Error(JSON.stringify(s.left))
  return { claimed: s.right.claim.atDelta[0]?.epsilon as number, accounted: s.right.guarantee[0]?.epsilon as number, plan: s.right.plan }
}

/** The pure ε of a plan by basic composition (δ does not enter a pure-DP sum). */
const pureEpsilon = (plan: ReturnType<typeof statement>['plan']): number => {
  const r = account({ schemaVersion: 1, event: plan }, { deltas: [DELTA], accountants: ['basic'] })
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right.tightest[0]?.epsilon as number
}

const EPS_I = (clip: number, beta: number): number => 2 * Math.log(clip / beta + 1)

describe('paper 001, Theorem 3: HDP-LDA is (ε_L + ε_I)-DP per iteration, ε = T(ε_L + ε_I)', () => {
  it('fresh noise (the reading the proof analyses): the pure ε is exactly the claim; (ε, δ) accounting is below it', () => {
    const s = statement('hdp-lda', {})
    const claim = 20 * (1 + EPS_I(100, 0.01))
    expect(s.claimed).toBeCloseTo(claim, 9)
    expect(pureEpsilon(s.plan)).toBeCloseTo(claim, 9)
    expect(s.accounted).toBeLessThan(claim)
    expect(s.accounted).toBeGreaterThan(384.3) // 384.41 by PLD: two cells of exact discrete Laplace
  })

  it('accumulated noise: every release after the first costs 2ε_L, so the pure ε exceeds the claim by (T − 1)ε_L', () => {
    const s = statement('hdp-lda', { noise: 'accumulate' })
    const claim = 20 * (1 + EPS_I(100, 0.01))
    expect(pureEpsilon(s.plan)).toBeCloseTo(claim + 19, 9)
    expect(s.accounted).toBeGreaterThan(claim) // 394.39 by PLD at δ = 1e-5 (four cells of discrete Laplace): no tighter accounting rescues the claim
  })

  it('with C = 1, β = 1, ε_L = 0.1, T = 100 the claim holds and is loose by 2.6× under (ε, δ) accounting', () => {
    const f = statement('hdp-lda', { iterations: 100, clip: 1, beta: 1, epsilonL: 0.1 })
    expect(f.claimed).toBeCloseTo(100 * (0.1 + EPS_I(1, 1)), 9)
    expect(f.accounted).toBeLessThan(f.claimed / 2.5) // 56.04 vs 148.6
    const a = statement('hdp-lda', { iterations: 100, clip: 1, beta: 1, epsilonL: 0.1, noise: 'accumulate' })
    expect(pureEpsilon(a.plan)).toBeCloseTo(100 * EPS_I(1, 1) + 0.1 + 2 * 99 * 0.1, 9) // 158.53 > 148.63
    expect(a.accounted).toBeGreaterThan(f.accounted) // 56.45
  })
})

describe('paper 001 §VII: the CDP-LDA baselines', () => {
  it('claim ε (CDP-LDA) and T·ε (CDP-LDA+), but their unclipped topic draws have no bound: accounted ε = ∞', () => {
    const c = statement('cdp-lda', { epsilon: 1 })
    expect(c.claimed).toBe(1)
    expect(c.accounted).toBe(Number.POSITIVE_INFINITY)
    const p = statement('cdp-lda+', { epsilon: 1 })
    expect(p.claimed).toBe(20)
    expect(p.accounted).toBe(Number.POSITIVE_INFINITY)
  })
})
