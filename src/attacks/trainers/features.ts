/**
 * Test statistics on one observed training run (./observe.ts). Each is a number oriented so that
 * larger means "more like D" (side 0); the auditor still tries both orientations and, for each,
 * a likelihood-ratio test fitted on shadow runs (./lira.ts). Which statistics apply depends on the
 * game (view, neighbour step, trainer): `featuresFor`.
 *
 * - `phi-mass` (black-box): canary-word mass in φ, Σ_w Δ_w Σ_k φ_kw with Δ the word counts of the
 *   differing document in D minus those in D′.
 * - `phi-loglik` (black-box): the differing document's log-likelihood under φ with uniform topic
 *   proportions, Σ_w Δ_w ln((1/K) Σ_k φ_kw) — the document-level statistic of Manzonelli, Zhang &
 *   Vadhan 2024 (membership inference on topic models), on which LiRA's Gaussians are fitted.
 * - `release-mass` (white-box): Σ over released topic-word tables of Σ_w Δ_w Σ_k n̂_wk — the
 *   canary's mass in what the gate let out, summed over iterations.
 * - `report-bits` (white-box, LP-LDA): in the differing document's report, Σ_w P_w·bit_w with P the
 *   presence of a word in D's document minus in D′'s (the likelihood-ratio test of symmetric
 *   randomized response is linear in these bits). Under add-document D′ has no such report: its
 *   value is −1, below every D value (the number of reports reveals the document; a replace-one
 *   accounting takes it as public).
 * - `topic-posterior` (white-box, HDP-LDA / CDP-LDA+, replace-word): Zhao et al. eq. (24),
 *   P(w_mn = t | k_1..k_T) ∝ Π_i n̂^t_{k_i}(i) / Σ_{t″} n̂^{t″}_{k_i}(i), as the log-posterior ratio
 *   of t (D's word) against t′ (D′'s): Σ_i ln(n̂^t_{k_i}(i)⁺ + β) − ln(n̂^{t′}_{k_i}(i)⁺ + β). The
 *   normaliser Σ_{t″} cancels in the ratio; the released counts are clipped at 0 and smoothed by β,
 *   as the sampler reads them (eq. 24 divides by zero otherwise) — our reading. n̂(i) is the table
 *   released at iteration i and k_i the topic drawn from it (Algorithm 3 lines 3–8).
 * - `weights-mass` (black-box, a trainer that declares `word-weights`): the model file's vectors of
 *   one number per vocabulary word (DP-SGD's weights), projected on the differing document's words,
 *   Σ_w P_w·m_w with P its presence in D minus in D′ — a canary's weight, read from the file.
 * - `word-release-sum`, `word-release-max`, `word-release-min` (white-box, a trainer that declares
 *   `word-vectors`): each release of one number per vocabulary word (DP-SGD's noisy gradient sums)
 *   projected the same way, p_t = Σ_w P_w·r_t[w], then summed over the releases, or their largest
 *   or smallest. Max and min are the canary scores of white-box DP-SGD audits (Nasr et al. 2021;
 *   Steinke, Nasr & Jagielski 2023): a canary in the lot moves one step's release by its clipped
 *   gradient, which the sum over all steps dilutes in the noise of the others. Which sign the canary
 *   pushes depends on the trainer (a spam canary lowers DP-SGD's gradient sum), so both are offered.
 * - `seed-replay` (black-box, only with a replay function): a model that carries its noise seed
 *   can be re-trained by anyone who knows the candidate corpora: +1 if replaying on D alone
 *   reproduces φ bit for bit, −1 if replaying on D′ alone does, 0 otherwise (both or neither).
 *
 * @module
 */
import type { Corpus } from '../../trainers/corpus/corpus.js'
import type { LdaConfigBase, ReleaseKind } from '../../trainers/trainer.js'
import type { TrainerGame } from './game.js'
import { ldaModel, type Observation, observesTokenTopics } from './observe.js'

export type FeatureName =
  | 'phi-mass'
  | 'phi-loglik'
  | 'weights-mass'
  | 'release-mass'
  | 'report-bits'
  | 'topic-posterior'
  | 'word-release-sum'
  | 'word-release-max'
  | 'word-release-min'
  | 'seed-replay'

/** Re-trains on a corpus with a seed read from the model (its fields as an object); φ, or null if the model carries no seed. */
export type SeedReplay = (corpus: Corpus, model: Readonly<Record<string, unknown>>) => Float64Array | null

export interface FeatureOptions {
  readonly seedReplay?: SeedReplay
}

/** Whether the game's trainer declares that it lets this out (`Trainer.releases`). */
const declares = (game: TrainerGame, kind: ReleaseKind): boolean => game.trainer.releases.includes(kind)

/**
 * The statistics that apply to a game, in a fixed order (the column order of a chunk's features):
 * from what the trainer declares it releases, never from its name, so a trainer added to the
 * registry or a game's override is audited by what it says it lets out.
 */
export const featuresFor = (game: TrainerGame, options: FeatureOptions = {}): FeatureName[] => {
  const out: FeatureName[] = []
  if (declares(game, 'phi')) out.push('phi-mass', 'phi-loglik')
  if (declares(game, 'word-weights')) out.push('weights-mass')
  if (game.spec.view === 'white-box') {
    // a table per sweep: the gate's noisy tables, or the true counts non-private CGS hands over
    if (declares(game, 'count-tables') || observesTokenTopics(game)) out.push('release-mass')
    if (declares(game, 'report-bits')) out.push('report-bits')
    if (observesTokenTopics(game)) out.push('topic-posterior')
    if (declares(game, 'word-vectors')) out.push('word-release-sum', 'word-release-max', 'word-release-min')
  }
  if (options.seedReplay !== undefined) out.push('seed-replay')
  return out
}

/** Σ_w Δ_w·g(Σ_k φ_kw) over the words the game changes: g = identity (mass) or ln(·/K) (log-likelihood). */
const phiSum = (phi: Float64Array, K: number, V: number, delta: Float64Array, log: boolean): number => {
  let s = 0
  for (let w = 0; w < V; w++) {
    const d = delta[w] as number
    if (d === 0) continue
    let m = 0
    for (let k = 0; k < K; k++) m += phi[k * V + w] as number
    s += d * (log ? Math.log(m / K) : m)
  }
  return s
}

const releaseMass = (tables: ReadonlyArray<Float64Array>, K: number, V: number, delta: Float64Array): number => {
  let s = 0
  for (const t of tables)
    for (let w = 0; w < V; w++) {
      const d = delta[w] as number
      if (d === 0) continue
      for (let k = 0; k < K; k++) s += d * (t[w * K + k] as number)
    }
  return s
}

const reportBits = (reports: ReadonlyArray<{ M: number; stride: number; bits: Uint32Array }>, slot: number, V: number, presence: Float64Array): number => {
  const r = reports[0]
  if (r === undefined || slot >= r.M) return -1
  let s = 0
  for (let w = 0; w < V; w++) {
    const p = presence[w] as number
    if (p === 0) continue
    const bit = ((r.bits[slot * r.stride + (w >>> 5)] as number) >>> (w & 31)) & 1
    s += p * bit
  }
  return s
}

/** Zhao et al. eq. (24) as a log-posterior ratio of t against t′ (see the module comment). */
export const topicPosteriorRatio = (tables: ReadonlyArray<Float64Array>, topics: Int32Array, K: number, t: number, other: number, beta: number): number => {
  let s = 0
  const T = Math.min(tables.length, topics.length)
  for (let i = 0; i < T; i++) {
    const tab = tables[i] as Float64Array
    const k = topics[i] as number
    s += Math.log(Math.max(tab[t * K + k] as number, 0) + beta) - Math.log(Math.max(tab[other * K + k] as number, 0) + beta)
  }
  return s
}

const samePhi = (a: Float64Array, b: Float64Array): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
  return true
}

/** Writes the game's statistics of one observation into `out` at `offset`, in `featuresFor` order. */
export const computeFeatures = (game: TrainerGame, names: ReadonlyArray<FeatureName>, obs: Observation, out: Float64Array, offset: number, options: FeatureOptions = {}): void => {
  // observe() checked that a trainer declaring φ returned it; K = V = 0 when none is declared (no φ statistic is asked for)
  const { phi, topics: K, vocabulary: V } = ldaModel(obs.model) ?? { phi: new Float64Array(0), topics: 0, vocabulary: 0 }
  const p = obs.wordProjections
  for (let j = 0; j < names.length; j++) {
    let x: number
    switch (names[j] as FeatureName) {
      case 'phi-mass':
        x = phiSum(phi, K, V, game.countDelta, false)
        break
      case 'phi-loglik':
        x = phiSum(phi, K, V, game.countDelta, true)
        break
      case 'weights-mass':
        x = obs.weightsProjection
        break
      case 'word-release-sum':
        x = p.reduce((a, b) => a + b, 0)
        break
      case 'word-release-max':
        x = p.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY)
        break
      case 'word-release-min':
        x = p.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY)
        break
      case 'release-mass':
        x = releaseMass(obs.tables, K, V, game.countDelta)
        break
      case 'report-bits':
        x = reportBits(obs.reports, game.targetDocument, V, game.presenceDelta)
        break
      case 'topic-posterior': {
        const a = game.attacked
        x = a === null || obs.tokenTopics === null ? 0 : topicPosteriorRatio(obs.tables, obs.tokenTopics, K, a.word, a.other, (game.config as LdaConfigBase).beta)
        break
      }
      case 'seed-replay': {
        const replay = options.seedReplay
        const model = obs.model as Readonly<Record<string, unknown>>
        const onD = replay?.(game.corpora[0], model) ?? null
        const onD1 = replay?.(game.corpora[1], model) ?? null
        const d = onD !== null && samePhi(onD, phi)
        const d1 = onD1 !== null && samePhi(onD1, phi)
        // both replays reproduce φ: this run is the same under D and D′ and says nothing
        x = d && !d1 ? 1 : d1 && !d ? -1 : 0
        break
      }
    }
    out[offset + j] = x
  }
}
