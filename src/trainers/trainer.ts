/**
 * The trainer contract: a trainer declares the privacy events it will execute (`plan`) and
 * records those it did execute (the ledger returned by `fit`); the accountant, not the trainer,
 * turns them into ε. The paper's own claim travels beside them as an opaque stated guarantee
 * (`claimed`), so dpaudit can print both and show where they differ.
 *
 * @module
 */
import type * as t from 'io-ts'
import type * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../core/error.js'
import type { Rng } from '../core/rng.js'
import { approxDP, children, type PrivacyEvent, pureDP } from '../mechanisms/event.js'
import type { NeighbouringRelation } from '../mechanisms/neighbouring.js'
import type { ReleaseRecord } from '../mechanisms/gate.js'
import type { Corpus, CorpusStats } from './corpus/corpus.js'

export type TrainerName = 'cgs' | 'hdp-lda' | 'cdp-lda' | 'cdp-lda+' | 'sub-lda' | 'lp-lda' | 'olp-lda' | 'svi-lda' | 'svi-lda-wor' | 'spectral'

/** Hyper-parameters every LDA trainer has. */
export interface LdaConfigBase {
  readonly topics: number
  readonly iterations: number
  readonly alpha: number
  readonly beta: number
}

/**
 * A trained topic model: φ (K×V) and, for the non-private CGS only, θ of the training documents
 * (D×K), row-major. A private trainer's model holds only what passed through its release gate: φ.
 */
export interface LdaModel {
  readonly topics: number
  readonly vocabulary: number
  readonly phi: Float64Array
  readonly theta?: Float64Array
}

/** One line of the training trace. */
export interface IterationLog {
  readonly iteration: number
  /**
   * Collapsed joint log p(w, z) on the TRUE counts. A private trainer computes it only when
   * `diagnostics` is on, through its gate, which then records it as NonPrivate (the run is not a
   * private release); otherwise NaN.
   */
  readonly logLikelihood: number
  readonly elapsedMs: number
  readonly tokensPerSecond: number
}

export interface FitOptions {
  /** Called after every iteration (progress lines). */
  readonly onIteration?: (log: IterationLog) => void
  /** Compute the log-likelihood every n iterations (default 1; 0 = never, NaN in the trace). */
  readonly logLikelihoodEvery?: number
  /**
   * Private trainers: allow diagnostics on unprotected data (the true-count log-likelihood). Off by
   * default; when on, the ledger records them as NonPrivate and the run is not a private release.
   */
  readonly diagnostics?: boolean
  /** Private trainers: sees every value that leaves the release gate (audits, white-box tests). */
  readonly onRelease?: (r: ReleaseRecord) => void
  /**
   * Private Gibbs trainers: threads that sweep the documents (the result does not depend on it).
   * Default: the cores available, one per 100,000 tokens at most.
   */
  readonly workers?: number
}

/** Whether a run is a private release, and why not. */
export interface ReleaseVerdict {
  readonly private: boolean
  /** 'secure (node:crypto)' or 'seeded' — never the seed. */
  readonly randomness: string
  readonly notPrivateBecause: ReadonlyArray<string>
}

export interface FitResult {
  readonly model: LdaModel
  readonly trace: ReadonlyArray<IterationLog>
  /** The privacy events the run executed, in order. Property-tested ≡ plan. */
  readonly ledger: PrivacyEvent
  /** Tokens visited by the sampler over the run (Σ over iterations). */
  readonly tokensSampled: number
  readonly release: ReleaseVerdict
}

/**
 * The paper's guarantee, recorded verbatim and kept opaque: it is never used to compute the
 * accounted ε, only printed beside it.
 */
export interface Claim {
  /** Paper and result the claim comes from. */
  readonly source: string
  /** The claim in words, with its numbers. */
  readonly statement: string
  /** The relation the paper states it under. */
  readonly relation: NeighbouringRelation
  /** The claim as an opaque stated event at δ (PureDP, ApproxDP), or undefined if none is made. */
  readonly event: (delta: number) => PrivacyEvent | undefined
}

export const pureClaim = (source: string, statement: string, epsilon: number, relation: NeighbouringRelation): Claim => ({
  source,
  statement,
  relation,
  event: () => pureDP(epsilon, relation),
})

/** An RDP claim ε(α) at one order, stated at δ through ε + ln(1/δ)/(α − 1) (Mironov 2017, Prop. 3). */
export const rdpClaim = (source: string, statement: string, order: number, rdp: number, relation: NeighbouringRelation): Claim => ({
  source,
  statement,
  relation,
  event: (delta) => approxDP(rdp + Math.log(1 / delta) / (order - 1), delta, relation),
})

export const noClaim = (source: string, statement: string, relation: NeighbouringRelation): Claim => ({
  source,
  statement,
  relation,
  event: () => undefined,
})

/**
 * A trainer, generic in its configuration, the public statistics its plan may depend on, its
 * data and its model. The LDA trainers instantiate it as `LdaTrainer<C>`.
 */
export interface Trainer<Config, Stats, Data, Model> {
  readonly name: TrainerName
  readonly description: string
  /** Shape of the configuration (JSON); `validate` checks the ranges. */
  readonly config: t.Type<Config, unknown, unknown>
  /** Defaults for optional hyper-parameters, merged under user input before decoding. */
  readonly defaults: Readonly<Record<string, unknown>>
  /** Range checks, naming the field and value (K ≥ 2, ε > 0, γ ∈ (0, 1], …). */
  readonly validate: (config: Config, stats?: Stats) => E.Either<DpError, Config>
  /** The relation and unit the trainer protects (replace-one word for the LDA papers). */
  readonly relation: NeighbouringRelation
  /**
   * The relation the plan is accounted under. Every landed trainer accounts under `relation`; a
   * plan accounted under add/remove for a replace-one trainer is stated by group privacy
   * (statement.ts).
   */
  readonly accountingRelation: NeighbouringRelation
  /** The mechanism graph the trainer will execute, as an event tree. */
  readonly plan: (config: Config, stats: Stats) => E.Either<DpError, PrivacyEvent>
  /** The paper's claim, opaque, for comparison with the accounted guarantee. */
  readonly claimed: (config: Config, stats: Stats) => Claim
  /**
   * What the accounted ε assumes beyond the plan, in words: the reading of an ambiguous line, the
   * sampling model, what is treated as public. Printed with every statement.
   */
  readonly assumptions: (config: Config) => ReadonlyArray<string>
  /**
   * Trains. `rng` chooses the randomness: `secure()` (node:crypto; the only private release) or a
   * seeded Rng (reproducible; the result says it is not a private release).
   */
  readonly fit: (data: Data, config: Config, rng: Rng, options?: FitOptions) => E.Either<DpError, FitResult>
}

export type LdaTrainer<C extends LdaConfigBase = LdaConfigBase> = Trainer<C, CorpusStats, Corpus, LdaModel>

// -------------------------------------------------------------------------------------------
// ledger ≡ plan
// -------------------------------------------------------------------------------------------

/**
 * The canonical multiset of a composition: every maximal non-structural sub-event (a noise
 * leaf, a sampling wrapper with its inner event, NonPrivate) with its multiplicity; Labeled is
 * seen through; NoOp vanishes. Two events with the same atoms compose to the same guarantee
 * under every accountant (composition is commutative).
 */
export const compositionAtoms = (e: PrivacyEvent): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  const walk = (v: PrivacyEvent, times: number): void => {
    switch (v._tag) {
      case 'NoOp':
        return
      case 'Labeled':
        return walk(v.event, times)
      case 'Compose':
        for (const c of v.events) walk(c, times)
        return
      case 'SelfCompose':
        return walk(v.event, times * v.count)
      case 'PoissonSample':
      case 'SampleWithoutReplacement': {
        const key = JSON.stringify({ ...v, event: canonical(v.event) })
        out.set(key, (out.get(key) ?? 0) + times)
        return
      }
      default: {
        const key = JSON.stringify(v)
        out.set(key, (out.get(key) ?? 0) + times)
      }
    }
  }
  walk(e, 1)
  return out
}

const canonical = (e: PrivacyEvent): unknown => [...compositionAtoms(e).entries()].sort()

/** Whether two events compose the same atoms with the same multiplicities. */
export const sameComposition = (a: PrivacyEvent, b: PrivacyEvent): boolean => {
  const x = compositionAtoms(a)
  const y = compositionAtoms(b)
  if (x.size !== y.size) return false
  for (const [k, n] of x) if (y.get(k) !== n) return false
  return true
}

/** Number of leaves of an event tree, counting SelfCompose once (for size checks). */
export const leafCount = (e: PrivacyEvent): number => {
  const cs = children(e)
  return cs.length === 0 ? 1 : cs.reduce((s, c) => s + leafCount(c), 0)
}
