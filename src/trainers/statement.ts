/**
 * The privacy statement of a training run: the accountant applied to the trainer's plan (the
 * only source of a printed ε), next to the paper's claim (opaque, never used in the computation).
 *
 * When a plan is accounted under add/remove but the trainer protects replace-one neighbours
 * (SUB-LDA), the replace-one guarantee is derived from the accountant's answers by group privacy
 * for groups of 2 (Dwork & Roth 2014, Thm 2.2 with δ): (ε, δ)-DP under add/remove implies
 * (2ε, (1 + e^ε)δ)-DP under replace-one. For a target δ the accountant is queried on a grid of
 * δ′ and the smallest 2ε(δ′) with (1 + e^{ε(δ′)})δ′ ≤ δ is reported.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../accounting/account.js'
import type { DpError } from '../core/error.js'
import type { PrivacyEvent } from '../mechanisms/event.js'
import { sameRelation, showRelation } from '../mechanisms/neighbouring.js'
import type { CorpusStats } from './corpus/corpus.js'
import type { LdaConfigBase, LdaTrainer } from './trainer.js'

export interface AccountedEpsilon {
  readonly delta: number
  readonly epsilon: number
  readonly accountant: string
  readonly method: string
}

export interface ClaimedEpsilon {
  readonly delta: number
  readonly epsilon: number
  readonly statedDelta: number
  readonly kind: string
}

export interface PrivacyStatement {
  readonly trainer: string
  /** The neighbouring relation and unit protected. */
  readonly protects: string
  /** The relation the plan is accounted under. */
  readonly accountedUnder: string
  readonly plan: PrivacyEvent
  readonly claim: { readonly source: string; readonly statement: string; readonly relation: string; readonly atDelta: ReadonlyArray<ClaimedEpsilon> }
  /** The accountant's tightest ε per δ, under `accountedUnder`. */
  readonly accounted: ReadonlyArray<AccountedEpsilon>
  /** ε per δ under the protected relation (= accounted, or group privacy from it). */
  readonly guarantee: ReadonlyArray<AccountedEpsilon>
  readonly notes: ReadonlyArray<string>
}

const tightest = (event: PrivacyEvent, relation: LdaTrainer['relation'], deltas: ReadonlyArray<number>): E.Either<DpError, AccountedEpsilon[]> => {
  const r = account({ schemaVersion: 1, relation, event }, { deltas })
  if (E.isLeft(r)) return r
  return E.right(
    deltas.map((delta) => {
      const t = r.right.tightest.find((x) => x.delta === delta)
      if (t !== undefined) return { delta, epsilon: t.epsilon, accountant: t.accountant, method: t.method }
      const why = r.right.results.map((x) => (x.ok ? '' : `${x.accountant}: ${x.message}`)).filter((s) => s.length > 0)
      return { delta, epsilon: Number.POSITIVE_INFINITY, accountant: 'none', method: `no accountant could answer (${why.join('; ')})` }
    }),
  )
}

/** (2ε, (1 + e^ε)δ′) group privacy of size 2, optimised over δ′ on a log grid. */
const groupOfTwo = (event: PrivacyEvent, relation: LdaTrainer['relation'], delta: number): E.Either<DpError, AccountedEpsilon> => {
  const grid = Array.from({ length: 41 }, (_, i) => (delta / 2) * Math.pow(10, (-12 * i) / 40))
  const r = tightest(event, relation, grid)
  if (E.isLeft(r)) return r
  let best: AccountedEpsilon = { delta, epsilon: Number.POSITIVE_INFINITY, accountant: 'none', method: 'group privacy: no feasible δ′' }
  for (const a of r.right) {
    if (!Number.isFinite(a.epsilon)) continue
    if ((1 + Math.exp(a.epsilon)) * a.delta <= delta && 2 * a.epsilon < best.epsilon)
      best = {
        delta,
        epsilon: 2 * a.epsilon,
        accountant: a.accountant,
        method: `group privacy (k = 2) on ${showRelation(relation)}: 2·ε(δ′ = ${a.delta.toExponential(3)}) with ${a.method}`,
      }
  }
  if (!Number.isFinite(best.epsilon) && r.right.every((a) => !Number.isFinite(a.epsilon)))
    best = { ...best, method: `group privacy of an unbounded ${showRelation(relation)} guarantee` }
  return E.right(best)
}

export const privacyStatement = <C extends LdaConfigBase>(
  trainer: LdaTrainer<C>,
  config: C,
  stats: CorpusStats,
  deltas: ReadonlyArray<number>,
): E.Either<DpError, PrivacyStatement> => {
  const plan = trainer.plan(config, stats)
  if (E.isLeft(plan)) return plan
  const accounted = tightest(plan.right, trainer.accountingRelation, deltas)
  if (E.isLeft(accounted)) return accounted
  const notes: string[] = []
  let guarantee: AccountedEpsilon[] = accounted.right
  if (!sameRelation(trainer.accountingRelation, trainer.relation)) {
    guarantee = []
    for (const d of deltas) {
      const g = groupOfTwo(plan.right, trainer.accountingRelation, d)
      if (E.isLeft(g)) return g
      guarantee.push(g.right)
    }
    notes.push(
      `the plan is accounted under ${showRelation(trainer.accountingRelation)} (Poisson subsampling is amplified only there); a ${showRelation(trainer.relation)} neighbour is a removal and an addition, so the guarantee follows by group privacy for groups of 2`,
    )
  }
  const claim = trainer.claimed(config, stats)
  const atDelta: ClaimedEpsilon[] = []
  for (const d of deltas) {
    const e = claim.event(d)
    if (e === undefined) continue
    if (e._tag === 'PureDP') atDelta.push({ delta: d, epsilon: e.epsilon, statedDelta: 0, kind: 'pure ε-DP' })
    else if (e._tag === 'ApproxDP') atDelta.push({ delta: d, epsilon: e.epsilon, statedDelta: e.delta, kind: '(ε, δ)-DP' })
  }
  return E.right({
    trainer: trainer.name,
    protects: showRelation(trainer.relation),
    accountedUnder: showRelation(trainer.accountingRelation),
    plan: plan.right,
    claim: { source: claim.source, statement: claim.statement, relation: showRelation(claim.relation), atDelta },
    accounted: accounted.right,
    guarantee,
    notes,
  })
}
