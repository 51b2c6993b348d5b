/**
 * HDP-LDA (Zhao et al., arXiv:2010.04391, Algorithm 1, Theorem 3): every iteration, Laplace noise on
 * every topic-word count n_tk (line 9), clipping of the released counts at C for sampling (line 12),
 * and the topic draws, whose inherent privacy is ε_I = 2 ln(C/β + 1) per iteration (eq. 7) — an
 * exponential mechanism with utility ln p_k of sensitivity ln(C/β + 1).
 *
 * Sensitivity (derived, Theorem 3 proof eq. 29): replacing one word moves one count down (n_tk − 1)
 * and one up (n_t′k + 1): two cells by 1. The counts are integers, so the noise is the exact
 * discrete Laplace of scale t = 2/ε_L (Canonne, Kamath & Steinke 2020; the paper's continuous
 * Lap(2/ε_L) has the same ε, and a floating-point sampler of it can leak through its support,
 * Mironov 2012): pure (2/t = ε_L)-DP per release, declared as two independent cells.
 *
 * Ambiguity: line 9 `n_tk ← n_tk + η` inside the loop can be read as
 * - `fresh` (default): each iteration releases the TRUE counts plus fresh noise. This is the reading
 *   the proof of Theorem 3 analyses (A1(D) = true counts + η), and the one whose bound holds:
 *   ε_L per iteration.
 * - `accumulate`: the noise added in earlier iterations stays in the counts, so iteration i releases
 *   n_i + η_1 + … + η_i. The releases are a bijection of the increments n_i − n_{i−1} + η_i, which
 *   differ on up to four cells by 1 (the replaced token's word moves between two topics in both
 *   datasets), so every iteration after the first costs 2ε_L, not ε_L: Theorem 3 does not hold.
 *   Selectable for audits; its plan declares the four-cell releases.
 *
 * Every release goes through the release gate (src/mechanisms/gate.ts): the noisy counts and the sweep's
 * topic draws, each with its event. The visiting order is the reading order (fixed by the token
 * positions, as the Theorem 3 argument assumes). φ is computed from the last release
 * (post-processing); θ is not released.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { exponential, type PrivacyEvent } from '../mechanisms/event.js'
import { type Declared, declared, type Schedule } from '../mechanisms/schedule.js'
import { replaceOne } from '../mechanisms/neighbouring.js'
import { BASE_DEFAULTS, BaseConfig, checkBase, positive } from './config.js'
import { privateFitResult } from './lda/loop.js'
import { prestartPrivateFit, startPrivateFit } from './lda/private-fit.js'
import type { SnapshotSampler } from './lda/snapshot.js'
import { phiFromNoisyCounts } from './lda/state.js'
import { discreteLaplaceTable, type Measurement, randomizedStep, type TableNoiser, type TableSensitivity } from '../mechanisms/measurement.js'
import { LDA_ASSUMPTIONS } from './assumptions.js'
import { type LdaTrainer, pureClaim } from './trainer.js'
import { invalidParameter } from '../core/error.js'
import type { WordStream } from '../core/words.js'
import { LDA_DP, LDA_DP_PAPER } from './papers.js'
import { numericFlag } from './flags.js'
import { ldaFlags, ldaSurface, PRIVATE_GIBBS_WORKERS } from './lda-surface.js'

export const HdpConfig = t.intersection([
  BaseConfig,
  t.type({ epsilonL: t.number, clip: t.number, noise: t.union([t.literal('fresh'), t.literal('accumulate')]) }),
])
export type HdpConfig = t.TypeOf<typeof HdpConfig>

const WORD = replaceOne('word')

/**
 * The utility sensitivity of the topic draws as the sampler runs them: ln(C/β + 1) (Zhao et al. eq. 7)
 * plus the slack of double precision, rounded up.
 *
 * The sampler (lda/snapshot.ts) draws topic k with probability exactly T_k / Σ_j T_j, where
 * T_k = fl(n·q̃_k) + fl(α·q̃_k) (n = n_dk^{¬i}; the first term only if n > 0; the sum is exact),
 * q̃_k = fl(fl(c_wk + β)·τ̃_k), c_wk ∈ [0, C] the clipped release and τ̃_k = fl(1/fl(max(n̂_k, 0) + Vβ))
 * a function of the release alone, the same under D and D′. With u = 2^-53 and every rounding a
 * factor (1 + δ), |δ| ≤ u, T_k = (n + α)(c_wk + β)·τ̃_k·(1 + δ₁)(1 + δ₂)(1 + θ): three factors
 * (c + β, the product with τ̃, and the bucket product; the two buckets' roundings combine to one θ
 * with |θ| ≤ u because the sum of the two rounded products is exact). Replacing the token's word w
 * by w′ leaves n and τ̃ alone, so T_k/T′_k ∈ [ρ⁻¹γ⁻³, ργ³] with ρ = (C + β)/β and γ = (1 + u)/(1 − u),
 * and the draw's ratio T_k/ΣT over T′_k/ΣT′ is at most ρ²γ⁶ = e^{ε_I}·γ⁶ ≤ e^{ε_I}(1 + 12.0001u), i.e.
 * c = 6 in units of 2^-52: ε = 2Δ with Δ = ln ρ + 3 ln γ ≤ ln ρ + 3.0001·2^-52.
 * The computed log1p(fl(C/β)) is within a relative 2^-51 of ln ρ (the argument's rounding moves
 * ln(1 + x) by at most a relative u, since x/((1 + x) ln(1 + x)) ≤ 1; log1p errs by < 1 ulp), so
 * log1p(C/β)·(1 + 2^-48) + 2^-48 exceeds ln ρ + 3.0001·2^-52 with room for its own two roundings.
 * Assumes the weights are normal doubles (≥ 2^-1022, where the relative bound u holds): true when
 * min(α, 1)·β/(max_k n̂_k + Vβ) ≥ 2^-1022, i.e. for any α and β above ~1e-150 on real corpora.
 */
const drawSensitivity = (clip: number, beta: number): number => Math.log1p(clip / beta) * (1 + 2 ** -48) + 2 ** -48

/**
 * ε_I = 2 ln(C/β + 1), Zhao et al. eq. (7), for the draws as they run: twice `drawSensitivity`, so
 * larger than the paper's value by a relative 2^-48 and 2^-47 absolute (about 1e-13 at C/β = 10^4).
 */
export const inherentEpsilon = (clip: number, beta: number): number => 2 * drawSensitivity(clip, beta)

/** ε_I = 2 ln(C/β + 1) exactly as Zhao et al. eq. (7) states it: the claim's value, never used to account. */
export const paperInherentEpsilon = (clip: number, beta: number): number => 2 * Math.log1p(clip / beta)

/** The topic draws of one iteration as an exponential mechanism (utility sensitivity ln(C/β + 1), rounded up as above). */
export const topicDrawEvent = (clip: number, beta: number, relation = WORD): PrivacyEvent =>
  exponential(inherentEpsilon(clip, beta), drawSensitivity(clip, beta), relation)

const LAP = 'discrete Laplace of scale 2/ε_L on every topic-word count n_tk (two cells move by 1)'
const LAP_ACC = 'discrete Laplace of scale 2/ε_L added to the accumulated noisy counts (increments move four cells by 1)'
export const DRAW = `topic draws on counts clipped at C (inherent privacy, ${LDA_DP}, Thm 3 eq. 7)`

/** The release of iteration `it`'s counts: which cells a replaced word moves, under the noise reading. */
const countSensitivity = (c: HdpConfig, it: number): TableSensitivity => ({ cells: c.noise === 'accumulate' && it > 1 ? 4 : 2, perCell: 1, relation: WORD })
const countLabel = (c: HdpConfig, it: number): string => (c.noise === 'accumulate' && it > 1 ? LAP_ACC : LAP)

/**
 * The topic draws of one sweep of `sampler` as a measurement (the sampler reads only the last
 * release). The plan accounts the draws as released, so the release is what they drew: every
 * token's topic `z` after the sweep (in the state's token order) — what a white-box audit
 * observes (attacks/trainers/observe.ts, release kind `topic-assignments`). `observed` (an observer
 * may keep the value, private-fit.ts): a copy, since the next sweeps change z; otherwise z itself,
 * which the trainer discards (a 1.2 MB copy per iteration on Brown saved; the release is the same).
 */
export const topicDraws = (
  clip: number,
  beta: number,
  sampler: SnapshotSampler,
  z: Int32Array,
  relation = WORD,
  observed = true,
): Measurement<Uint8Array | undefined, Int32Array> =>
  randomizedStep(DRAW, topicDrawEvent(clip, beta, relation), (include, words: WordStream) => {
    sampler.sweep(words, include)
    return observed ? z.slice() : z
  })

/** One iteration: the noisy counts, then the sweep's topic draws on them; under `accumulate` the counts of the later iterations move four cells. */
const hdpSchedule = (c: HdpConfig): Schedule => {
  const iteration = (it: number): Declared[] => [declared(countRelease(c, it)), { label: DRAW, event: topicDrawEvent(c.clip, c.beta) }]
  return c.noise === 'fresh' ? { each: iteration(1), iterations: c.iterations } : { first: iteration(1), each: iteration(2), iterations: c.iterations }
}

/** Iteration `it`'s release of the counts (η_it alone: the accumulate reading adds it to the earlier noise in `fit`). */
const countRelease = (c: HdpConfig, it: number, noiser?: TableNoiser) => discreteLaplaceTable(countLabel(c, it), 2 / c.epsilonL, countSensitivity(c, it), noiser)

const validate = (c: HdpConfig, stats?: Parameters<typeof checkBase>[1]): E.Either<ReturnType<typeof invalidParameter>, HdpConfig> => {
  const b = checkBase(c, stats)
  if (E.isLeft(b)) return b
  const e = positive('epsilonL', c.epsilonL, 'ε_L')
  if (E.isLeft(e)) return e
  const k = positive('clip', c.clip, 'the clipping bound C')
  if (E.isLeft(k)) return k
  if (c.noise !== 'fresh' && c.noise !== 'accumulate') return E.left(invalidParameter('noise', c.noise, 'expected "fresh" or "accumulate"'))
  return E.right(c)
}

export const hdpLda: LdaTrainer<HdpConfig> = {
  name: 'hdp-lda',
  description: `HDP-LDA (${LDA_DP_PAPER}, Alg. 1): discrete Laplace on the topic-word counts every iteration, clipping, inherent privacy of the topic draws`,
  config: HdpConfig,
  defaults: { ...BASE_DEFAULTS, epsilonL: 1, clip: 100, noise: 'fresh' },
  flags: [...ldaFlags(), numericFlag('epsilon-l', 'epsilonL', 'E'), numericFlag('clip', 'clip', 'C'), { flag: 'noise', type: 'string', field: 'noise', meta: 'fresh|accumulate', note: 'the reading of Algorithm 1 line 9' }],
  workers: PRIVATE_GIBBS_WORKERS,
  prestart: prestartPrivateFit,
  ...ldaSurface,
  releases: ['phi', 'count-tables', 'topic-assignments'],
  validate,
  relation: WORD,
  accountingRelation: WORD,
  schedule: (c) => E.map(hdpSchedule)(validate(c)),
  claimed: (c) => {
    const eI = paperInherentEpsilon(c.clip, c.beta)
    const total = c.iterations * (c.epsilonL + eI)
    return pureClaim(
      `${LDA_DP_PAPER}, Theorem 3 and Algorithm 1 (output: privacy loss ε = T·(ε_L + ε_I))`,
      `(ε_L + ε_I)-DP per iteration with ε_I = 2 ln(C/β + 1) = ${eI.toPrecision(6)}; T = ${c.iterations} iterations: ε = ${total.toPrecision(6)}`,
      total,
      WORD,
    )
  },
  assumptions: (c) => [
    ...LDA_ASSUMPTIONS,
    c.noise === 'fresh'
      ? 'Alg. 1 line 9 read as fresh noise on the true counts every iteration (the reading Theorem 3 analyses)'
      : 'Alg. 1 line 9 read as accumulated noise (iteration i releases n_i + η_1 + … + η_i)',
    `the topic draws are accounted as released (${LDA_DP}, Thm 3): each sweep is an exponential mechanism on the clipped release, tokens visited in reading order`,
  ],
  fit: (corpus, c, rng, options = {}) => {
    const start = startPrivateFit(corpus, c, validate, rng, c.clip, options, hdpSchedule(c))
    if (E.isLeft(start)) return start
    const { gate, state, sampler, observed, iterate } = start.right
    // line 9, fresh reading: n̂ = n + η with fresh η every iteration (η drawn on the sampler's threads; read until the next release)
    const fresh = countRelease(c, 1, sampler.reusingNoiser('n_wk'))
    // accumulate reading: the noise stays, n̂_i = n_i + η_1 + … + η_i
    const acc = new Float64Array(state.nwk.length)
    const accumulated = (it: number): Measurement<Int32Array, Float64Array> => {
      const m = countRelease(c, it)
      return {
        ...m,
        run: (nwk, words) => {
          sampler.counts() // n_wk is read here, not counted inside the noiser's release
          const noise = m.run(new Int32Array(nwk.length), words) // η_i alone
          const out = new Float64Array(nwk.length)
          for (let i = 0; i < nwk.length; i++) {
            acc[i] = (acc[i] as number) + (noise[i] as number)
            out[i] = (nwk[i] as number) + (acc[i] as number)
          }
          return out
        },
      }
    }
    const draws = topicDraws(c.clip, c.beta, sampler, state.z, WORD, observed)
    let noisy: Float64Array = new Float64Array(state.nwk.length)
    const run = iterate(
      c.iterations,
      options,
      (it) => {
        const ctx = `iteration ${it}`
        noisy = gate.release(c.noise === 'fresh' ? fresh : accumulated(it), state.nwk, ctx)
        // lines 10–16: clip, sample — the sweep reads the release only
        sampler.setRelease(noisy, 1)
        gate.release(draws, undefined, ctx)
        return corpus.tokens.length
      },
    )
    return E.right(privateFitResult(gate, c, state.V, phiFromNoisyCounts(noisy, c.topics, state.V, c.beta), run))
  },
}
