/**
 * The iteration loop shared by the trainers: runs T steps, times them, asks for the log-likelihood
 * diagnostic when it is due, and calls the progress hook.
 *
 * @module
 */
import { compose, type PrivacyEvent } from '../../mechanisms/event.js'
import type { ReleaseGate } from '../../mechanisms/gate.js'
import type { FitOptions, FitResult, IterationLog } from '../trainer.js'
import { type GibbsState, thetaFromCounts } from './state.js'

/**
 * Runs `step(it)` for it = 1..T; `step` returns the number of tokens it visited. `logLikelihood(it)`
 * is asked every `options.logLikelihoodEvery` iterations and may decline (undefined → NaN in the
 * trace): a private trainer answers only through its gate's `diagnostic`.
 */
export const runIterations = (
  iterations: number,
  options: FitOptions,
  step: (iteration: number) => number,
  logLikelihood: (iteration: number) => number | undefined,
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
    const ll = every > 0 && (it % every === 0 || it === iterations) ? (logLikelihood(it) ?? Number.NaN) : Number.NaN
    const log: IterationLog = { iteration: it, logLikelihood: ll, elapsedMs: elapsed, tokensPerSecond: dt > 0 ? (n / dt) * 1000 : Number.POSITIVE_INFINITY }
    trace.push(log)
    options.onIteration?.(log)
  }
  return { trace, tokensSampled }
}

/** The non-private CGS's result: φ and θ from the final counts, the ledger composed. */
export const gibbsFitResult = (
  state: GibbsState,
  config: { readonly topics: number; readonly alpha: number },
  phi: Float64Array,
  run: { readonly trace: IterationLog[]; readonly tokensSampled: number },
  ledger: ReadonlyArray<PrivacyEvent>,
  randomness: string,
): FitResult => ({
  model: { topics: config.topics, vocabulary: state.V, phi, theta: thetaFromCounts(state, config.alpha) },
  trace: run.trace,
  ledger: compose(ledger),
  tokensSampled: run.tokensSampled,
  release: { private: false, randomness, notPrivateBecause: ['non-private baseline: every sweep reads the raw counts'] },
})

/**
 * A private trainer's result: φ as computed from released values only (no θ: it is a function of
 * the topic assignments, which never leave the trainer), the gate's ledger and its verdict.
 */
export const privateFitResult = (
  gate: ReleaseGate,
  config: { readonly topics: number },
  vocabulary: number,
  phi: Float64Array,
  run: { readonly trace: IterationLog[]; readonly tokensSampled: number },
): FitResult => ({
  model: { topics: config.topics, vocabulary, phi },
  trace: run.trace,
  ledger: gate.ledger(),
  tokensSampled: run.tokensSampled,
  release: { private: gate.isPrivate, randomness: gate.randomness, notPrivateBecause: gate.notPrivateBecause() },
})
