/**
 * The privacy statement of a training run: the accountant applied to the trainer's plan (the
 * only source of a printed ε), next to the paper's claim (opaque, never used in the computation).
 *
 * When a plan is accounted under add/remove but the trainer protects replace-one neighbours
 * (SUB-LDA as its paper analyses it, private SVI asked for document replacement), the guarantee is
 * derived along three sound routes; per δ the smallest is reported, and its method names the route:
 * - (ε, δ) group privacy (Dwork & Roth 2014, Thm 2.2 with δ): a replace-one neighbour is a removal
 *   followed by an addition, so (ε, δ′)-DP under add/remove implies (2ε, (1 + e^ε)δ′)-DP under
 *   replace-one. For a target δ the accountants are queried on a grid of δ′ and the smallest
 *   2ε(δ′) with (1 + e^{ε(δ′)})δ′ ≤ δ is taken. Useless once ε(δ′) > ln(δ/δ′): no δ′ is feasible
 *   and the route gives ∞.
 * - RDP group privacy (Mironov 2017, Prop. 11, weak triangle inequality; ../accounting/rdp/group.ts):
 *   ε_RO(α) ≤ (α − ½)/(α − 1)·ε_AR(2α) + ε_AR(2α − 1) on the composed add/remove RDP curve, then
 *   (ε, δ) by Canonne–Kamath–Steinke 2020 at the best grid order and the real orders between its
 *   grid neighbours (../accounting/rdp/continuous.ts), as the RDP accountant does. Finite whenever
 *   the curve is.
 * - Direct: the plan accounted under the replace-one relation itself. Unsampled add/remove leaves
 *   are read at twice their sensitivity, and Poisson-subsampled Gaussians and pure-ε leaves by their
 *   replace-one dominating pairs (../accounting/pld/pairs.ts, fold.ts: the substitution pair, not
 *   group privacy); the PLD accountant answers with the smaller of that and its own group route.
 *   Plans the direct accountants refuse (an approximate-DP leaf, a sampled composition of mixed
 *   leaves) give ∞ on this route, with the reason in the method.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../accounting/account.js'
import { replaceOneCurve, replaceOneEvaluator, replaceOneToEpsilon } from '../accounting/rdp/group.js'
import { type DpError, formatError } from '../core/error.js'
import { compose, type PrivacyEvent } from '../mechanisms/event.js'
import { type NeighbouringRelation, sameRelation, showRelation } from '../mechanisms/neighbouring.js'
import { type VocabularySource, vocabularyAssumption } from './assumptions.js'
import type { CorpusStats } from './corpus/corpus.js'
import { planOf, type Trainer } from './trainer.js'

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
  /** ε per δ under the protected relation (= accounted, or the smallest of the replace-one routes from it). */
  readonly guarantee: ReadonlyArray<AccountedEpsilon>
  /** What the guarantee assumes (relation, public inputs, sampling model, readings of the paper). */
  readonly assumptions: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
}

/** The sentence a model file and the CLI print about a run's release. */
export const releaseNotice = (r: { readonly private: boolean; readonly notPrivateBecause: ReadonlyArray<string> }): string =>
  r.private
    ? 'private release: every data-dependent value left the trainer through its release gate, with noise and draws from node:crypto; the guarantee is the accounted ε, under the assumptions the statement lists'
    : `NOT A PRIVATE RELEASE: ${r.notPrivateBecause.join('; ')}`

const tightest = (event: PrivacyEvent, relation: NeighbouringRelation, deltas: ReadonlyArray<number>): E.Either<DpError, AccountedEpsilon[]> => {
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

/**
 * Replace-one ε at δ by (ε, δ) group privacy of size 2 (Dwork & Roth 2014, Thm 2.2 with δ):
 * (2ε, (1 + e^ε)δ′) from the accountants' (ε, δ′) under `relation`, optimised over δ′ on a log grid.
 */
export const replaceOneByApproxGroup = (event: PrivacyEvent, relation: NeighbouringRelation, delta: number): E.Either<DpError, AccountedEpsilon> => {
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

/**
 * Replace-one ε at each δ by RDP group privacy: the weak triangle inequality (Mironov 2017, Prop. 11,
 * p = q = 2) on the plan's composed add/remove RDP curve, converted by Canonne–Kamath–Steinke 2020
 * at the best order of the grid, then at the best real order between that order's grid neighbours
 * (../accounting/rdp/group.ts `replaceOneToEpsilon`, the RDP accountant's search of ./continuous.ts):
 * never above the grid answer, each order evaluated being itself a valid bound. `continuous: false`
 * answers at the grid order (the method before continuous orders). A plan the RDP accountant cannot
 * fold (e.g. an approximate-DP leaf) gives ∞ with the reason in the method, not an error.
 */
export const replaceOneByRdpGroup = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  deltas: ReadonlyArray<number>,
  options: { readonly continuous?: boolean } = {},
): E.Either<DpError, AccountedEpsilon[]> => {
  const c = replaceOneCurve(event, relation)
  if (E.isLeft(c))
    return E.right(deltas.map((delta) => ({ delta, epsilon: Number.POSITIVE_INFINITY, accountant: 'none', method: `RDP group privacy: no add/remove RDP curve (${formatError(c.left)})` })))
  // The evaluator at real orders reads the same add/remove curve the grid does; if it cannot be
  // built the answer stays on the grid (sound, possibly less tight).
  const at = options.continuous === false ? undefined : replaceOneEvaluator(event, relation, c.right.addRemovePureEpsilon)
  const atOrder = at !== undefined && E.isRight(at) ? at.right : undefined
  const n = c.right.orders.length
  const out: AccountedEpsilon[] = []
  for (const delta of deltas) {
    const r = replaceOneToEpsilon(c.right, delta, atOrder)
    if (E.isLeft(r)) return r
    const { epsilon, order, gridOrder } = r.right
    const where =
      order === gridOrder
        ? `at α = ${fmtOrder(order)} of ${n}`
        : `at the real order α = ${fmtOrder(order)} (continuous search from the grid's best α = ${fmtOrder(gridOrder)} of ${n})`
    const method = !Number.isFinite(epsilon)
      ? 'RDP group privacy: the add/remove curve is infinite at every order'
      : `RDP group privacy (Mironov 2017 Prop. 11, weak triangle) on ${showRelation(relation)} RDP: (α − ½)/(α − 1)·ε(2α) + ε(2α − 1) ${where} → (ε,δ) by Canonne–Kamath–Steinke 2020`
    out.push({ delta, epsilon, accountant: 'rdp', method })
  }
  return E.right(out)
}

const fmtOrder = (x: number): string => String(Number(x.toPrecision(6)))

/**
 * Replace-one ε at each δ with the plan accounted directly under the replace-one relation `target`
 * (add/remove leaves at twice their sensitivity; Poisson samples of Gaussian and pure-ε leaves by
 * the PLD accountant's replace-one dominating pairs, not group privacy). An accountant that cannot
 * answer gives ∞ with its reason; the method says the route.
 */
export const replaceOneDirect = (event: PrivacyEvent, target: NeighbouringRelation, deltas: ReadonlyArray<number>): E.Either<DpError, AccountedEpsilon[]> => {
  const r = tightest(event, target, deltas)
  if (E.isLeft(r)) return r
  return E.right(r.right.map((a) => ({ ...a, method: `accounted directly under ${showRelation(target)}: ${a.method}` })))
}

const show = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : '∞')

/**
 * A plan's ε per δ under the relation it is accounted under (`accounted`) and under the relation the
 * trainer protects (`guarantee`: the same, or the smallest of the replace-one routes above), with the
 * notes that say how. The one computation behind a statement, so a model file's numbers can be
 * re-derived from its plan (model-file.ts `checkStatement`).
 */
export const accountPlan = (
  plan: PrivacyEvent,
  accountingRelation: NeighbouringRelation,
  relation: NeighbouringRelation,
  deltas: ReadonlyArray<number>,
): E.Either<DpError, { readonly accounted: AccountedEpsilon[]; readonly guarantee: AccountedEpsilon[]; readonly notes: string[] }> => {
  const accounted = tightest(plan, accountingRelation, deltas)
  if (E.isLeft(accounted)) return accounted
  const notes: string[] = []
  let guarantee: AccountedEpsilon[] = accounted.right
  if (!sameRelation(accountingRelation, relation)) {
    const ar = accountingRelation
    // The weak triangle and the direct route need an add/remove plan and a replace-one target of the same unit.
    const fromAddRemove = ar.kind === 'add-remove' && relation.kind === 'replace-one' && ar.unit === relation.unit
    const viaRdp = fromAddRemove ? replaceOneByRdpGroup(plan, ar, deltas) : E.right([])
    if (E.isLeft(viaRdp)) return viaRdp
    const direct = fromAddRemove ? replaceOneDirect(plan, relation, deltas) : E.right([])
    if (E.isLeft(direct)) return direct
    guarantee = []
    const compared: string[] = []
    for (let i = 0; i < deltas.length; i++) {
      const d = deltas[i] as number
      const g = replaceOneByApproxGroup(plan, ar, d)
      if (E.isLeft(g)) return g
      const r = viaRdp.right[i]
      const x = direct.right[i]
      let best = g.right
      for (const c of [r, x]) if (c !== undefined && c.epsilon < best.epsilon) best = c
      guarantee.push(best)
      if (r !== undefined && x !== undefined)
        compared.push(`δ = ${d.toExponential(0)}: direct ε = ${show(x.epsilon)}, RDP route ε = ${show(r.epsilon)}, (ε, δ) route ε = ${show(g.right.epsilon)}`)
    }
    notes.push(
      `the plan is accounted under ${showRelation(ar)} (Poisson subsampling is amplified there); the ${showRelation(relation)} guarantee is the smallest of sound routes` +
        (fromAddRemove
          ? ': the plan accounted directly under replace-one (add/remove leaves at twice their sensitivity, Poisson-subsampled Gaussian and pure-ε leaves by their replace-one dominating pairs), and group privacy for groups of 2 — a neighbour is a removal and an addition — in (ε, δ) form, (2ε, (1 + e^ε)δ′), and by RDP, the weak triangle inequality on the composed add/remove curve at the best real order (Mironov 2017 Prop. 11)'
          : ': group privacy for groups of 2 (a neighbour is a removal and an addition) in (ε, δ) form, (2ε, (1 + e^ε)δ′)'),
    )
    if (compared.length > 0) notes.push(`replace-one routes: ${compared.join('; ')}`)
  }
  return E.right({ accounted: accounted.right, guarantee, notes })
}

export const privacyStatement = <C>(
  trainer: Pick<Trainer<C, unknown>, 'name' | 'relation' | 'accountingRelation' | 'schedule' | 'claimed' | 'assumptions'>,
  config: C,
  stats: CorpusStats,
  deltas: ReadonlyArray<number>,
  vocabulary?: VocabularySource,
  /** Releases made before training (a differentially private vocabulary selection), charged first. */
  before?: PrivacyEvent,
): E.Either<DpError, PrivacyStatement> => {
  const own = planOf(trainer, config, stats)
  if (E.isLeft(own)) return own
  const plan = E.right(before === undefined ? own.right : compose([before, own.right])) as E.Right<PrivacyEvent>
  const accounting = accountPlan(plan.right, trainer.accountingRelation, trainer.relation, deltas)
  if (E.isLeft(accounting)) return accounting
  const { accounted, guarantee, notes } = accounting.right
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
    accounted,
    guarantee,
    assumptions: [...(vocabulary === undefined ? [] : [vocabularyAssumption(vocabulary)]), ...trainer.assumptions(config)],
    notes,
  })
}
