/**
 * What every LDA trainer shares on its surface: the flags K, T, α, β; the model file's φ (and the
 * non-private CGS's θ); the held-out perplexity by document completion; the summary "K = …, T = …".
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { BASE_DEFAULTS } from './config.js'
import { completionHalves } from './corpus/dataset.js'
import { heldOutPerplexity } from './eval/perplexity.js'
import { TOKENS_PER_WORKER } from './lda/private-fit.js'
import type { LdaConfigBase, LdaModel, ModelOutput, TrainerFlag } from './trainer.js'

/** The largest T accepted: a run is bounded in time by its flags (issue 29). */
export const MAX_ITERATIONS = 1_000_000

/** K, T, α and β: every LDA trainer's flags (T optional where the trainer has a default). */
export const ldaFlags = (options: { readonly iterationsNote?: string } = {}): ReadonlyArray<TrainerFlag> => [
  { flag: 'topics', field: 'topics', meta: 'K', required: true },
  { flag: 'iterations', field: 'iterations', meta: 'T', max: MAX_ITERATIONS, ...(options.iterationsNote === undefined ? { required: true } : { note: options.iterationsNote }) },
  { flag: 'alpha', field: 'alpha', meta: 'A', shown: () => String(BASE_DEFAULTS.alpha) },
  { flag: 'beta', field: 'beta', meta: 'B', shown: () => String(BASE_DEFAULTS.beta) },
]

/** What `--workers W` does for the private Gibbs trainers (HDP-, CDP-, CDP+- and SUB-LDA: ./lda/private-fit.ts's sweepWorkers). */
export const PRIVATE_GIBBS_WORKERS = `threads of the private Gibbs sweeps, one per document at most; default: the cores available, one per ${TOKENS_PER_WORKER.toLocaleString('en-US')} tokens at most; the result does not depend on it`

const PROTOCOL = 'document completion: θ folded in on the first half of each test document (α_eval = 0.1, 100 fixed-point iterations), the second half scored'

const rows = (a: Float64Array, n: number, m: number): number[][] => Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * m, (i + 1) * m)))

/** The `kind` of an LDA model file. */
export const LDA_MODEL_KIND = 'dpaudit-lda-model'

/** φ's K rows (and θ's D rows for the non-private CGS); held-out perplexity by document completion. */
export const LDA_MODEL: ModelOutput<LdaModel> = {
  kind: LDA_MODEL_KIND,
  fields: (m) => ({
    topics: m.topics,
    phi: rows(m.phi, m.topics, m.vocabulary),
    ...(m.theta === undefined ? {} : { theta: rows(m.theta, m.theta.length / m.topics, m.topics) }),
  }),
  metric: 'held-out perplexity',
  evaluate: (m, test) => {
    const { observed, heldOut } = completionHalves(test)
    return E.map((p: { perplexity: number; heldOutTokens: number }) => ({
      values: { perplexity: p.perplexity, heldOutTokens: p.heldOutTokens },
      shown: p.perplexity.toFixed(1),
      detail: `${p.heldOutTokens} held-out tokens`,
      protocol: PROTOCOL,
    }))(heldOutPerplexity(m.phi, m.topics, observed, heldOut))
  },
}

/** The LDA trainers' common surface fields. */
export const ldaSurface = {
  model: LDA_MODEL,
  iterations: (c: LdaConfigBase): number => c.iterations,
  summary: (c: LdaConfigBase): string => `K = ${c.topics}, T = ${c.iterations}`,
} as const
