/**
 * Private SVI's accounting three ways, for one setting: the paper's chain and its linear and
 * advanced baselines (./chain.ts: the noise multiplier each prescribes), dpaudit's tight accounting
 * of that noise under each sampling model (`account` on the plan's event), and the noise dpaudit's
 * `calibrate` finds for the same (ε_tot, δ_tot) — how much less noise the target needs than the
 * chain prescribes.
 *
 * Only z = σ/Δ matters to every accountant (the event is Gaussian(z, 1) under the sampling), so the
 * rows are stated in z.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { account } from '../../accounting/account.js'
import { calibrate, PARAM } from '../../accounting/calibrate.js'
import type { RegisteredAccountant } from '../../accounting/registry.js'
import type { DpError } from '../../core/error.js'
import { gaussian, type PrivacyEvent, selfCompose } from '../../mechanisms/event.js'
import { advancedChain, type ChainInput, type ChainStep, linearChain, zcdpChain } from './chain.js'
import { samplingEvent, type Sampling } from '../../mechanisms/measurement.js'
import { samplingRelation } from './trainer.js'

export interface SviSetting {
  readonly documents: number
  readonly batchSize: number
  readonly iterations: number
  readonly epsilonTotal: number
  readonly deltaTotal: number
  readonly chain: Omit<ChainInput, 'epsilonTotal' | 'deltaTotal' | 'iterations' | 'rate'>
}

/** The J-fold event of noise multiplier z under a sampling model (Δ = 1: only z matters). */
export const multiplierEvent = (sampling: Sampling, s: Pick<SviSetting, 'documents' | 'batchSize' | 'iterations'>, z: number): PrivacyEvent =>
  selfCompose(samplingEvent(sampling, s.batchSize, s.documents, gaussian(z, 1, samplingRelation(sampling))), s.iterations)

/** dpaudit's tightest ε at δ of multiplier z under a sampling model. */
export const accountedEpsilon = (
  sampling: Sampling,
  s: SviSetting,
  z: number,
  accountants?: ReadonlyArray<RegisteredAccountant>,
): E.Either<DpError, { readonly epsilon: number; readonly accountant: string }> => {
  const r = account(
    { schemaVersion: 1, relation: samplingRelation(sampling), event: multiplierEvent(sampling, s, z) },
    { deltas: [s.deltaTotal], ...(accountants === undefined ? {} : { accountants }) },
  )
  if (E.isLeft(r)) return r
  const t = r.right.tightest[0]
  return E.right(t === undefined ? { epsilon: Number.POSITIVE_INFINITY, accountant: 'none' } : { epsilon: t.epsilon, accountant: t.accountant })
}

/** The smallest z meeting (ε_tot, δ_tot) under a sampling model, by `calibrate` on the J-fold template. */
export const calibrateMultiplier = (
  sampling: Sampling,
  s: SviSetting,
  accountant: RegisteredAccountant | 'tightest' = 'tightest',
  tolerance = 1e-4,
): E.Either<DpError, { readonly z: number; readonly epsilon: number; readonly accountant: string }> => {
  const rel = samplingRelation(sampling)
  const inner = { _tag: 'Gaussian', sigma: PARAM, sensitivity: 1, relation: rel }
  const sampled =
    sampling === 'poisson' ? { _tag: 'PoissonSample', q: s.batchSize / s.documents, event: inner } : { _tag: 'SampleWithoutReplacement', m: s.batchSize, n: s.documents, event: inner }
  const r = calibrate(
    { schemaVersion: 1, relation: rel, event: { _tag: 'SelfCompose', count: s.iterations, event: sampled } },
    { epsilon: s.epsilonTotal, delta: s.deltaTotal, accountant, tolerance },
  )
  return E.map((c: { value: number; epsilon: number; accountant: string }) => ({ z: c.value, epsilon: c.epsilon, accountant: c.accountant }))(r)
}

export interface AccountingRow {
  readonly method: 'zCDP chain' | 'linear' | 'advanced'
  readonly step: ChainStep
  /** dpaudit's ε at δ_tot for the chain's z, per sampling model. */
  readonly poisson: { readonly epsilon: number; readonly accountant: string }
  readonly withoutReplacement: { readonly epsilon: number; readonly accountant: string }
}

/** The three chains' multipliers for a setting, each accounted by dpaudit under both sampling models. */
export const accountingRows = (s: SviSetting, accountants?: ReadonlyArray<RegisteredAccountant>): E.Either<DpError, AccountingRow[]> => {
  const input: ChainInput = { ...s.chain, epsilonTotal: s.epsilonTotal, deltaTotal: s.deltaTotal, iterations: s.iterations, rate: s.batchSize / s.documents }
  const rows: AccountingRow[] = []
  for (const [method, chain] of [
    ['zCDP chain', zcdpChain],
    ['linear', linearChain],
    ['advanced', advancedChain],
  ] as const) {
    const step = chain(input)
    if (E.isLeft(step)) return step
    const p = accountedEpsilon('poisson', s, step.right.z, accountants)
    if (E.isLeft(p)) return p
    const w = accountedEpsilon('without-replacement', s, step.right.z, accountants)
    if (E.isLeft(w)) return w
    rows.push({ method, step: step.right, poisson: p.right, withoutReplacement: w.right })
  }
  return E.right(rows)
}
