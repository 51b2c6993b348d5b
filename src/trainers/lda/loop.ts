/**
 * The iteration loop shared by the trainers: runs T steps, times them, computes the trace and
 * calls the progress hook.
 *
 * @module
 */
import { compose, type PrivacyEvent } from '../../mechanisms/event.js'
import type { FitOptions, FitResult, IterationLog } from '../trainer.js'
import { jointLogLikelihood } from './loglik.js'
import { type GibbsState, thetaFromCounts } from './state.js'

/** Runs `step(it)` for it = 1..T; `step` returns the number of tokens it visited. */
export const runIterations = (
  state: GibbsState,
  iterations: number,
  alpha: number,
  beta: number,
  options: FitOptions,
  step: (iteration: number) => number,
  beforeLogLikelihood?: () => void,
): { trace: IterationLog[]; tokensSampled: number } => {
  const every = options.logLikelihoodEvery ?? 1
  const trace: IterationLog[] = []
  let tokensSampled = 0
  let elapsed = 0
  for (let it = 1; it <= iterations; it++) {
    const t0 = performance.now()
    const n = step(it)
    const dt = performance.now() - t0
    elapsed += dt
    tokensSampled += n
    let ll = Number.NaN
    if (every > 0 && (it % every === 0 || it === iterations)) {
      beforeLogLikelihood?.()
      ll = jointLogLikelihood(state, alpha, beta)
    }
    const log: IterationLog = { iteration: it, logLikelihood: ll, elapsedMs: elapsed, tokensPerSecond: dt > 0 ? (n / dt) * 1000 : Number.POSITIVE_INFINITY }
    trace.push(log)
    options.onIteration?.(log)
  }
  return { trace, tokensSampled }
}

/** The result every Gibbs trainer returns: φ as the trainer computed it, θ from the final counts, the ledger composed. */
export const gibbsFitResult = (
  state: GibbsState,
  config: { readonly topics: number; readonly alpha: number },
  phi: Float64Array,
  run: { readonly trace: IterationLog[]; readonly tokensSampled: number },
  ledger: ReadonlyArray<PrivacyEvent>,
): FitResult => ({
  model: { topics: config.topics, vocabulary: state.V, phi, theta: thetaFromCounts(state, config.alpha) },
  trace: run.trace,
  ledger: compose(ledger),
  tokensSampled: run.tokensSampled,
})
