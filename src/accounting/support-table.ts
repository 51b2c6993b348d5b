/**
 * Which accountant takes which event: every event of the algebra, in a representative instance,
 * run through every registered accountant, answering ε at δ = 1e-5 or the accountant's reason for
 * refusing it. docs/accounting.md holds this table as generated (test/accounting/support-table.test.ts
 * fails when it is stale and rewrites it with DPAUDIT_UPDATE_DOCS=1), so it cannot drift from the
 * registry.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { formatError } from '../core/error.js'
import * as ev from '../mechanisms/event.js'
import { addOnly, addRemove, type NeighbouringRelation, removeOnly, replaceOne, replaceSpecial } from '../mechanisms/neighbouring.js'
import { ACCOUNTANT_NAMES, ACCOUNTANTS, type RegisteredAccountant } from './registry.js'

const AR = addRemove('record')
const RO = replaceOne('record')

/** One representative of each event, with the relation it is asked under. */
export const SAMPLE_EVENTS: ReadonlyArray<{ readonly tag: ev.EventTag; readonly label: string; readonly event: ev.PrivacyEvent; readonly relation: NeighbouringRelation }> = [
  { tag: 'Laplace', label: 'Laplace(b = 1, Δ = 1)', event: ev.laplace(1, 1, AR), relation: AR },
  { tag: 'Gaussian', label: 'Gaussian(σ = 1, Δ = 1)', event: ev.gaussian(1, 1, AR), relation: AR },
  { tag: 'Gaussian', label: 'Gaussian(σ = 0): no noise, read as NonPrivate', event: ev.gaussian(0, 1, AR), relation: AR },
  { tag: 'DiscreteLaplace', label: 'DiscreteLaplace(t = 1, Δ = 1)', event: ev.discreteLaplace(1, 1, AR), relation: AR },
  { tag: 'DiscreteGaussian', label: 'DiscreteGaussian(σ = 1, Δ = 1)', event: ev.discreteGaussian(1, 1, AR), relation: AR },
  { tag: 'RandomizedResponse', label: 'RandomizedResponse(ε = 1, k = 2)', event: ev.randomizedResponse(1, 2, AR), relation: AR },
  {
    tag: 'RandomizedResponse',
    label: 'RandomizedResponse(ε = 3.19, k = 10) under replace-special (⊥ answered uniformly)',
    event: ev.randomizedResponse(3.19, 10, replaceSpecial('record')),
    relation: replaceSpecial('record'),
  },
  { tag: 'RandomizedResponse', label: 'RandomizedResponse(k = 1): constant, read as NoOp', event: ev.randomizedResponse(1, 1, AR), relation: AR },
  { tag: 'BitwiseRandomizedResponse', label: 'BitwiseRandomizedResponse(f = 0.25, 2 bits)', event: ev.bitwiseRandomizedResponse(0.25, 2, AR), relation: AR },
  { tag: 'Exponential', label: 'Exponential(ε = 1)', event: ev.exponential(1, 1, AR), relation: AR },
  { tag: 'PermuteAndFlip', label: 'PermuteAndFlip(ε = 1)', event: ev.permuteAndFlip(1, 1, AR), relation: AR },
  { tag: 'TreeAggregation', label: 'TreeAggregation(σ = 8.83, 1600 steps), DP-FTRL', event: ev.treeAggregation(8.83, 1, [1600], AR), relation: AR },
  { tag: 'TreeAggregation', label: 'TreeAggregation(σ = 8.83, 400 steps) × 4 restarts, replace-one', event: ev.selfCompose(ev.treeAggregation(8.83, 1, [400], AR), 4), relation: RO },
  {
    tag: 'MixtureOfGaussians',
    label: 'MixtureOfGaussians(σ = 1, sensitivities 0, 1, 2 with 0.81, 0.18, 0.01) × 10',
    event: ev.selfCompose(ev.mixtureOfGaussians(1, [0, 1, 2], [0.81, 0.18, 0.01], AR), 10),
    relation: AR,
  },
  {
    tag: 'MixtureOfGaussians',
    label: 'MixtureOfGaussians(σ = 1, sensitivities 0, 1 with 0.99, 0.01) × 100: the sampled Gaussian',
    event: ev.selfCompose(ev.mixtureOfGaussians(1, [0, 1], [0.99, 0.01], AR), 100),
    relation: AR,
  },
  {
    tag: 'StatedRdp',
    label: 'StatedRdp(Gaussian σ = 1 at α = 2, 4, …, 64)',
    event: ev.statedRdp([2, 4, 8, 16, 32, 64], [1, 2, 4, 8, 16, 32], AR),
    relation: AR,
  },
  { tag: 'StatedProfile', label: 'StatedProfile((1, 1e-3), (2, 1e-6), (4, 1e-9))', event: ev.statedProfile([1, 2, 4], [1e-3, 1e-6, 1e-9], AR), relation: AR },
  { tag: 'PureDP', label: 'PureDP(ε = 1)', event: ev.pureDP(1, AR), relation: AR },
  { tag: 'ApproxDP', label: 'ApproxDP(ε = 1, δ = 1e-6)', event: ev.approxDP(1, 1e-6, AR), relation: AR },
  {
    tag: 'ApproxDP',
    label: 'Compose[Gaussian(σ = 1), ApproxDP(ε = 0, δ = 1e-6)] (δ kept aside in RDP, zCDP)',
    event: ev.compose([ev.gaussian(1, 1, AR), ev.approxDP(0, 1e-6, AR)]),
    relation: AR,
  },
  { tag: 'ApproxDP', label: 'PoissonSample(q = 0.1, ApproxDP(ε = 1, δ = 1e-6))', event: ev.poissonSample(0.1, ev.approxDP(1, 1e-6, AR)), relation: AR },
  { tag: 'ZCDP', label: 'ZCDP(ρ = 0.5)', event: ev.zcdp(0.5, AR), relation: AR },
  { tag: 'ZCDP', label: 'ZCDP(ρ = 0.5, ξ = 0.1), (ξ, ρ)-zCDP', event: ev.zcdp(0.5, AR, { xi: 0.1 }), relation: AR },
  { tag: 'NoOp', label: 'NoOp', event: ev.noOp, relation: AR },
  { tag: 'NonPrivate', label: 'NonPrivate', event: ev.nonPrivate, relation: AR },
  { tag: 'Compose', label: 'Compose[Gaussian(σ = 1), Laplace(b = 1)]', event: ev.compose([ev.gaussian(1, 1, AR), ev.laplace(1, 1, AR)]), relation: AR },
  { tag: 'SelfCompose', label: 'SelfCompose(Gaussian(σ = 4), 10)', event: ev.selfCompose(ev.gaussian(4, 1, AR), 10), relation: AR },
  { tag: 'PoissonSample', label: 'PoissonSample(q = 0.01, Gaussian(σ = 1)) × 100, add/remove', event: ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, AR)), 100), relation: AR },
  { tag: 'PoissonSample', label: 'PoissonSample(q = 0.01, Gaussian(σ = 1)) × 100, replace-one', event: ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, AR)), 100), relation: RO },
  { tag: 'PoissonSample', label: 'PoissonSample(q = 0, Gaussian(σ = 0)): read as NoOp', event: ev.poissonSample(0, ev.gaussian(0, 1, AR)), relation: AR },
  { tag: 'PoissonSample', label: 'PoissonSample(q = 0.01, DiscreteGaussian(σ = 1, Δ = 1)) × 100, add/remove', event: ev.selfCompose(ev.poissonSample(0.01, ev.discreteGaussian(1, 1, AR)), 100), relation: AR },
  { tag: 'TruncatedPoissonSample', label: 'TruncatedPoissonSample(q = 0.01, cap 180 of 10,000, Gaussian(σ = 1)) × 100', event: ev.selfCompose(ev.truncatedPoissonSample(0.01, 180, 10_000, ev.gaussian(1, 1, AR)), 100), relation: AR },
  { tag: 'SampleWithoutReplacement', label: 'SampleWithoutReplacement(10 of 1000, Gaussian(σ = 1)) × 100, replace-one', event: ev.selfCompose(ev.sampleWithoutReplacement(10, 1000, ev.gaussian(1, 1, RO)), 100), relation: RO },
  { tag: 'WithReplacementSample', label: 'WithReplacementSample(10 draws of 1000, Gaussian(σ = 1)) × 100, replace-one', event: ev.selfCompose(ev.withReplacementSample(10, 1000, ev.gaussian(1, 1, RO)), 100), relation: RO },
  { tag: 'RepeatAndSelect', label: 'RepeatAndSelect(Laplace(b = 1), geometric, mean 10)', event: ev.repeatAndSelect(ev.laplace(1, 1, AR), 10, 1), relation: AR },
  {
    tag: 'RepeatAndSelect',
    label: 'RepeatAndSelect(PoissonSample(q = 0.01, Gaussian(σ = 1)) × 100, geometric, mean 10)',
    event: ev.repeatAndSelect(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, AR)), 100), 10, 1),
    relation: AR,
  },
  {
    tag: 'RepeatAndSelect',
    label: 'RepeatAndSelect(PoissonSample(q = 0.01, Gaussian(σ = 1)) × 100, Poisson, mean 10)',
    event: ev.repeatAndSelect(ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, AR)), 100), 10, Infinity),
    relation: AR,
  },
  { tag: 'Labeled', label: 'Labeled("step", Gaussian(σ = 1))', event: ev.labeled('step', ev.gaussian(1, 1, AR)), relation: AR },
]

const RM = removeOnly('record')
const AD = addOnly('record')
const RS = replaceSpecial('record')
const SG = ev.selfCompose(ev.poissonSample(0.01, ev.gaussian(1, 1, AR)), 100)
const SRR = ev.selfCompose(ev.poissonSample(0.05, ev.randomizedResponse(1, 2, AR)), 100)

/**
 * The relations (issue 26): representative events asked under each neighbouring relation, and the
 * conversions that are refused — a separate table, so each relation is a row of its own.
 */
export const RELATION_SAMPLES: ReadonlyArray<{ readonly label: string; readonly event: ev.PrivacyEvent; readonly relation: NeighbouringRelation }> = [
  ...[AR, RM, AD, RO, RS].map((r) => ({ label: `Gaussian(σ = 1, Δ = 1) add/remove leaf, asked under ${r.kind}`, event: ev.gaussian(1, 1, AR), relation: r })),
  ...[AR, RM, AD, RS].map((r) => ({ label: `PoissonSample(q = 0.01, Gaussian(σ = 1)) × 100, asked under ${r.kind}`, event: SG, relation: r })),
  ...[AR, RM, AD, RS].map((r) => ({ label: `PoissonSample(q = 0.05, RandomizedResponse(ε = 1)) × 100, asked under ${r.kind}`, event: SRR, relation: r })),
  { label: 'PureDP(ε = 1) stated under add-only, asked under add-only', event: ev.pureDP(1, AD), relation: AD },
  { label: 'PureDP(ε = 1) stated under add-only, asked under add-remove', event: ev.pureDP(1, AD), relation: AR },
  { label: 'Compose[PureDP(1) add-only, PureDP(1) remove-only], asked under remove-only', event: ev.compose([ev.pureDP(1, AD), ev.pureDP(1, RM)]), relation: RM },
  { label: 'Laplace(b = 1) stated under replace-special, asked under replace-one', event: ev.laplace(1, 1, RS), relation: RO },
  { label: 'Laplace(b = 1) stated under replace-special, asked under add-remove', event: ev.laplace(1, 1, RS), relation: AR },
  { label: 'Laplace(b = 1) stated under replace-one, asked under replace-special', event: ev.laplace(1, 1, RO), relation: RS },
  { label: 'SampleWithoutReplacement(10 of 1000, Gaussian(σ = 1)) × 100, asked under replace-special', event: ev.selfCompose(ev.sampleWithoutReplacement(10, 1000, ev.gaussian(1, 1, RS)), 100), relation: RS },
]

export interface SupportCell {
  readonly accountant: RegisteredAccountant
  /** ε at δ = 1e-5, when it answers. */
  readonly epsilon?: number
  /** Why it refuses, when it does. */
  readonly refusal?: string
}

/** Every sample event (by default `SAMPLE_EVENTS`) through every accountant. */
export const supportMatrix = (
  samples: ReadonlyArray<{ readonly label: string; readonly event: ev.PrivacyEvent; readonly relation: NeighbouringRelation }> = SAMPLE_EVENTS,
): ReadonlyArray<{ readonly label: string; readonly cells: ReadonlyArray<SupportCell> }> =>
  samples.map((s) => ({
    label: s.label,
    cells: ACCOUNTANT_NAMES.map((name): SupportCell => {
      const run = ACCOUNTANTS[name]({ relation: s.relation }).run(s.event, '$')
      if (E.isLeft(run)) return { accountant: name, refusal: formatError(run.left) }
      const a = run.right.epsilon(1e-5)
      return E.isLeft(a) ? { accountant: name, refusal: formatError(a.left) } : { accountant: name, epsilon: a.right.epsilon }
    }),
  }))

const showEps = (x: number): string => (x === Infinity ? '∞' : Number(x.toPrecision(4)).toString())

/**
 * The matrix as a Markdown table with the refusals numbered below it: the events, then the
 * relations (`RELATION_SAMPLES`), each a table with the refusal numbers shared.
 */
export const supportTable = (): string => {
  const rows = supportMatrix()
  const relationRows = supportMatrix(RELATION_SAMPLES)
  const reasons: string[] = []
  const cell = (c: SupportCell): string => {
    if (c.epsilon !== undefined) return showEps(c.epsilon)
    const why = (c.refusal ?? '').replace(/\|/g, '\\|')
    let i = reasons.indexOf(why)
    if (i < 0) i = reasons.push(why) - 1
    return `refuses (${i + 1})`
  }
  const lines = [
    `| event (ε at δ = 1e-5) | ${ACCOUNTANT_NAMES.join(' | ')} |`,
    `|---|${ACCOUNTANT_NAMES.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.label} | ${r.cells.map(cell).join(' | ')} |`),
    '',
    `| relation (ε at δ = 1e-5) | ${ACCOUNTANT_NAMES.join(' | ')} |`,
    `|---|${ACCOUNTANT_NAMES.map(() => '---').join('|')}|`,
    ...relationRows.map((r) => `| ${r.label} | ${r.cells.map(cell).join(' | ')} |`),
    '',
    ...reasons.map((r, i) => `${i + 1}. ${r}`),
  ]
  return lines.join('\n')
}
