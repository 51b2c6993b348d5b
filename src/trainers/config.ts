/**
 * Shared configuration pieces of the LDA trainers: io-ts shapes and range checks that name the
 * field and the value.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { type DpError, invalidParameter } from '../core/error.js'
import type { CorpusStats } from './corpus/corpus.js'
import type { LdaConfigBase } from './trainer.js'

export const BaseConfig = t.type({
  topics: t.number,
  iterations: t.number,
  alpha: t.number,
  beta: t.number,
})

export const BASE_DEFAULTS = { alpha: 0.1, beta: 0.01 } as const

/**
 * The smallest α and β accepted. HDP-LDA's ε (hdp.ts, the rounding argument of the exponential
 * mechanism's draws) holds while every weight min(α, 1)·β/(max_k n̂_k + Vβ) is a normal double
 * (≥ 2^-1022); with α, β ≥ 1e-100 and fewer than 2^31 tokens (checked below) the weight is above
 * 1e-200/(2^31 + V) ≫ 2^-1022 for any V < 10^90, so the argument holds whatever the data.
 */
export const ALPHA_BETA_FLOOR = 1e-100

/** Largest K the samplers pack (topic ids in 10 bits; counts in the remaining 21). */
export const MAX_TOPICS = 1024

export const checkBase = <C extends LdaConfigBase>(c: C, stats?: CorpusStats): E.Either<DpError, C> => {
  if (!(Number.isInteger(c.topics) && c.topics >= 2 && c.topics <= MAX_TOPICS))
    return E.left(invalidParameter('topics', c.topics, `K must be an integer in [2, ${MAX_TOPICS}]`))
  if (!(Number.isInteger(c.iterations) && c.iterations >= 1)) return E.left(invalidParameter('iterations', c.iterations, 'T must be an integer ≥ 1'))
  if (!(c.alpha >= ALPHA_BETA_FLOOR && Number.isFinite(c.alpha))) return E.left(invalidParameter('alpha', c.alpha, `α must be a finite number ≥ ${ALPHA_BETA_FLOOR} (the floor of the rounding argument behind the samplers' ε)`))
  if (!(c.beta >= ALPHA_BETA_FLOOR && Number.isFinite(c.beta))) return E.left(invalidParameter('beta', c.beta, `β must be a finite number ≥ ${ALPHA_BETA_FLOOR} (the floor of the rounding argument behind the samplers' ε)`))
  if (stats !== undefined) {
    let bits = 1
    while (1 << bits < c.topics) bits++
    if (stats.tokens >= 2 ** (31 - bits)) return E.left(invalidParameter('topics', c.topics, `too many tokens (${stats.tokens}) to pack counts for K = ${c.topics}`))
  }
  return E.right(c)
}

export const positive = (field: string, x: number, what: string): E.Either<DpError, number> =>
  x > 0 && Number.isFinite(x) ? E.right(x) : E.left(invalidParameter(field, x, `${what} must be a finite number > 0`))
