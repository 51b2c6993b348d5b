/**
 * Truncated Poisson subsampling (a cap on the batch size), for every accountant of the registry.
 *
 * Bound. Run the truncated pipeline and the plain-Poisson one with the same coins: each unit is in
 * the batch with probability q, independently, and the two runs differ only when a batch has more
 * than B = `maxBatch` units (the truncated run then cuts or drops it — any handling of an over-full
 * batch). On a dataset of at most n = `datasetSize` units that happens with probability at most
 * η₁ = P(Bin(n, q) > B) per run of the event (the tail grows with n, so the larger neighbour's n
 * bounds both), and over the whole pipeline with probability at most η = Σ (runs × η₁) (a union
 * bound; adaptivity does not matter, each run's coins are fresh). So the outputs of the two
 * pipelines are within total variation η on every dataset, and for every set S and neighbours D, D′:
 *   P_T(D)(S) ≤ P_P(D)(S) + η ≤ e^ε P_P(D′)(S) + δ_P(ε) + η ≤ e^ε P_T(D′)(S) + δ_P(ε) + (1 + e^ε)η,
 * i.e. δ_T(ε) ≤ δ_P(ε) + (1 + e^ε)η — the triangle inequality for the hockey-stick divergence with a
 * total-variation step on each side. This is the kind of argument Chua, Ghazi, Kamath, Kumar,
 * Manurangsi, Sinha & Zhang 2024 ("Scalable DP-SGD: Shuffling vs. Poisson Subsampling", NeurIPS)
 * use for truncated Poisson; their exact statement (and that of arXiv 2508.15089, which
 * dp_accounting's TruncatedSubsampledGaussianDpEvent cites) was not available to check against, so
 * this rests on the derivation above. It is sound for any inner event and any accountant: the
 * pipeline is accounted with every TruncatedPoissonSample read as PoissonSample (the accountant's
 * own Poisson analysis, tight where it is), and the overflow term is added to δ(ε); ε(δ) is the
 * least ε whose corrected δ is within δ (the accountant's ε at δ − (1 + e^{ε+t})η iterated to its fixed point, t a relative 1e-6; bisection on its δ(ε) where that does not settle).
 *
 * A second bound, when every truncation in the tree states `cut: 'uniform'` (an over-full batch cut to a
 * uniformly random subset of B units, dp_accounting's TruncatedSubsampledGaussianDpEvent): couple the
 * two neighbours through the other units' coins S, the cut of S, and, when the unit x is kept in an
 * over-full batch, the unit y of the cut it displaces. Then
 * - replace-one / replace-special (D = S ∪ {y}, D′ = S ∪ {x}, same size): the cut treats x's slot as
 *   y's, so the batches are equal unless the slot is kept (probability ≤ q) and then differ by y ↔ x:
 *   a mixture, over shared tags, of the inner event's replace pairs at rate ≤ q — no worse than
 *   PoissonSample(q, inner) (joint convexity of the hockey-stick and Rényi divergences; a lower rate
 *   is a post-processing of a higher one given the tag), with no overflow term at all;
 * - add/remove (D′ = D ∪ {x}): given S with |S| < B the batches differ by adding x (rate q); given
 *   |S| = k ≥ B, M(D′) = (1 − p)·M(R) + p·M(R ∖ {y} ∪ {x}) with R the cut of S, y uniform in R and
 *   p = qB/(k + 1) ≤ q: a replace step, whose change of an additive-noise query is at most twice
 *   the add/remove sensitivity (triangle inequality). Every tag's pair is then no worse than the
 *   Poisson-sampled pair at rate q with sensitivity 2Δ, so the pipeline is no worse than
 *   PoissonSample(q, the same noise at 2Δ). This is the decomposition of arXiv 2508.15089 ("Tighter Privacy
 *   Analysis for Truncated Poisson Sampling") as dp_accounting implements it
 *   (from_truncated_subsampled_gaussian_mechanism: a mixture of the sensitivity-1 Poisson PLD and a
 *   sensitivity-2 one), read here with both branches at their worst (rate q, shift 2Δ) so it needs no
 *   mixture of PLDs; it is looser than theirs, and sound for Gaussian, Laplace and their discrete
 *   versions. Every accountant answers the better of the two bounds (both are sound).
 *
 * There is no RDP (or zCDP) statement: the overflow term is additive in δ, so the RDP and zCDP
 * accountants answer (ε, δ) through their conversion and add it there; their curves themselves
 * are those of plain Poisson sampling and are not a bound for the truncated pipeline.
 *
 * @module
 */
import betainc from '@stdlib/math-base-special-betainc'
import * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../core/error.js'
import { goldenMin } from '../core/numeric.js'
import { children, type PrivacyEvent } from '../mechanisms/event.js'
import { isAddRemoveFamily, type NeighbouringRelation } from '../mechanisms/neighbouring.js'
import type { AccountedState, DeltaAnswer, EpsilonAnswer } from './accountant.js'

/** Relative margin on the binomial tail (@stdlib's regularised incomplete beta agrees with mpmath to ~1e-14). */
const TAIL_MARGIN = 1e-9

/** η₁ = P(Bin(n, q) > B) = I_q(B + 1, n − B), rounded up; 0 when B ≥ n or q = 0. */
export const overflowProbability = (q: number, maxBatch: number, datasetSize: number): number => {
  if (maxBatch >= datasetSize || !(q > 0)) return 0
  if (q >= 1) return 1
  return Math.min(1, betainc(q, maxBatch + 1, datasetSize - maxBatch, true, false) * (1 + TAIL_MARGIN))
}

/** η = Σ runs × η₁ over the TruncatedPoissonSample nodes of a tree (SelfCompose multiplies the runs). */
export const overflowMass = (e: PrivacyEvent, runs = 1): number => {
  switch (e._tag) {
    case 'TruncatedPoissonSample':
      return runs * overflowProbability(e.q, e.maxBatch, e.datasetSize) + overflowMass(e.event, runs)
    case 'SelfCompose':
      return e.count === 0 ? 0 : overflowMass(e.event, runs * e.count)
    default: {
      let s = 0
      for (const c of children(e)) s += overflowMass(c, runs)
      return s
    }
  }
}

/** The tree with every TruncatedPoissonSample read as plain PoissonSample (same rate, same inner event). */
export const asPlainPoisson = (e: PrivacyEvent): PrivacyEvent => {
  switch (e._tag) {
    case 'TruncatedPoissonSample':
      return { _tag: 'PoissonSample', q: e.q, event: asPlainPoisson(e.event) }
    case 'Compose':
      return { _tag: 'Compose', events: e.events.map(asPlainPoisson) }
    case 'SelfCompose':
    case 'PoissonSample':
    case 'SampleWithoutReplacement':
    case 'WithReplacementSample':
    case 'Labeled':
      return { ...e, event: asPlainPoisson(e.event) }
    default:
      return e
  }
}

/** An additive-noise leaf (under Labeled) with its add/remove sensitivity doubled: a replace step's change. */
const replaceStep = (e: PrivacyEvent): PrivacyEvent | undefined => {
  switch (e._tag) {
    case 'Labeled': {
      const inner = replaceStep(e.event)
      return inner === undefined ? undefined : { ...e, event: inner }
    }
    case 'Gaussian':
    case 'Laplace':
    case 'DiscreteGaussian':
    case 'DiscreteLaplace':
      return isAddRemoveFamily(e.relation.kind) ? { ...e, sensitivity: 2 * e.sensitivity } : undefined
    default:
      return undefined
  }
}

/**
 * The tree with every uniformly cut TruncatedPoissonSample read as the PoissonSample that bounds it
 * without an overflow term (module comment), or undefined where some truncation has no such reading
 * (no `cut` stated, or an inner event other than additive noise under add/remove).
 */
export const asCoupledPoisson = (e: PrivacyEvent, relation: NeighbouringRelation): PrivacyEvent | undefined => {
  const all = (es: ReadonlyArray<PrivacyEvent>): ReadonlyArray<PrivacyEvent> | undefined => {
    const out: PrivacyEvent[] = []
    for (const c of es) {
      const r = asCoupledPoisson(c, relation)
      if (r === undefined) return undefined
      out.push(r)
    }
    return out
  }
  switch (e._tag) {
    case 'TruncatedPoissonSample': {
      if (e.cut !== 'uniform') return undefined
      const inner = isAddRemoveFamily(relation.kind) ? replaceStep(e.event) : asCoupledPoisson(e.event, relation)
      return inner === undefined ? undefined : { _tag: 'PoissonSample', q: e.q, event: inner }
    }
    case 'Compose': {
      const events = all(e.events)
      return events === undefined ? undefined : { _tag: 'Compose', events }
    }
    case 'SelfCompose':
    case 'PoissonSample':
    case 'SampleWithoutReplacement':
    case 'WithReplacementSample':
    case 'RepeatAndSelect':
    case 'Labeled': {
      const inner = asCoupledPoisson(e.event, relation)
      return inner === undefined ? undefined : { ...e, event: inner }
    }
    default:
      return e
  }
}

/** Of two answers to one query, the smaller by `value` (a refusal only where both refuse). */
const smaller = <A>(x: E.Either<DpError, A>, y: E.Either<DpError, A>, value: (a: A) => number): E.Either<DpError, A> =>
  E.isLeft(x) ? y : E.isLeft(y) ? x : value(y.right) < value(x.right) ? y : x

/** The smaller answer of two sound bounds on the same pipeline. */
export const betterOf = (a: AccountedState, b: AccountedState): AccountedState => ({
  epsilon: (delta) => smaller(a.epsilon(delta), b.epsilon(delta), (r) => r.epsilon),
  delta: (epsilon) => smaller(a.delta(epsilon), b.delta(epsilon), (r) => r.delta),
  notes: [...new Set([...a.notes, ...b.notes])],
})

/** Whether a tree holds a TruncatedPoissonSample. */
export const hasTruncation = (e: PrivacyEvent): boolean => e._tag === 'TruncatedPoissonSample' || children(e).some(hasTruncation)

/** Why an accountant used directly (not through the registry) refuses the event. */
export const TRUNCATION_SCOPE =
  'truncated Poisson sampling is accounted through the registry (account, calibrate, dpaudit account), which composes it ' +
  'as Poisson sampling and adds the overflow term (1 + e^ε)·P(Bin(n, q) > maxBatch) per run to δ (accounting/truncation.ts)'

const show = (x: number): string => x.toPrecision(4)

/** δ(ε) + (1 + e^ε)η, capped at 1 (at ε = ∞ no finite multiple of η bounds the gap: δ = 1). */
const corrected = (delta: number, epsilon: number, eta: number): number =>
  epsilon === Infinity ? 1 : Math.min(1, delta + (1 + Math.exp(epsilon)) * eta)

/**
 * The answers of an accountant on the plain-Poisson pipeline, corrected for the overflow mass η:
 * δ(ε) + (1 + e^ε)η, and the least ε with that within δ. The optimistic ends (PLD) are dropped: they
 * bracket the plain-Poisson pipeline, not the truncated one.
 */
export const withOverflow = (inner: AccountedState, eta: number): AccountedState => {
  const why = `truncated Poisson sampling: the pipeline read as plain Poisson sampling, plus the overflow term (1 + e^ε)·η with η = ${show(eta)} (Σ runs × P(Bin(n, q) > maxBatch); the two runs coincide unless a batch overflows)`
  const correctedAt = (epsilon: number): E.Either<DpError, DeltaAnswer> => {
    const d = inner.delta(epsilon)
    if (E.isLeft(d)) return d
    return E.right({ epsilon, delta: corrected(d.right.delta, epsilon, eta), method: d.right.method })
  }
  /**
   * The corrected δ falls with ε while the plain pipeline's δ does, then rises with e^ε·η (to 1 at
   * ε = 10 for q = 0.01, n = 1,000, B = 20, where δ(1) is 0.0056). The truncated pipeline's own δ(ε)
   * never rises (the hockey-stick divergence falls with ε), so δ(ε) ≤ corrected δ(ε′) for every
   * ε′ ≤ ε. ε′ = 0 and the ε′ where the corrected δ is least, searched once (golden section over the ε′
   * where (1 + e^ε′)η < 1), with every ε′ the search tried: each is a sound answer at any ε ≥ ε′.
   */
  let tried: ReadonlyArray<DeltaAnswer> | undefined
  const lowest = (): ReadonlyArray<DeltaAnswer> => {
    if (tried !== undefined) return tried
    const points: DeltaAnswer[] = []
    const at = (x: number): number => {
      const d = correctedAt(x)
      if (E.isLeft(d)) return Infinity
      points.push(d.right)
      return d.right.delta
    }
    // ε′ = 0, then the search; beyond ln(1/η − 1) the overflow term alone is 1
    at(0)
    const hi = eta > 0 ? Math.min(745, Math.log(1 / eta - 1)) : 0
    if (hi > 0) goldenMin(at, 0, hi, 1e-9, 40)
    tried = points
    return points
  }
  const deltaAt = (epsilon: number): E.Either<DpError, DeltaAnswer> => {
    const d = correctedAt(epsilon)
    if (E.isLeft(d)) return d
    let best = d.right
    let lowered = false
    if (best.delta > 0 && eta > 0)
      for (const p of lowest())
        if (p.epsilon <= epsilon && p.delta < best.delta) {
          best = p
          lowered = true
        }
    const method = lowered
      ? `${best.method}, at ε′ = ${show(best.epsilon)} ≤ ε (δ(ε) never rises with ε; the corrected δ is least near there); ${why}`
      : `${best.method}; ${why}`
    return E.right({ epsilon, delta: best.delta, method })
  }
  const feasible = (epsilon: number, delta: number): boolean => {
    const d = correctedAt(epsilon)
    return E.isRight(d) && d.right.delta <= delta
  }
  const epsilonAt = (delta: number): E.Either<DpError, EpsilonAnswer> => {
    const none: EpsilonAnswer = { epsilon: Infinity, delta, method: `no finite ε: the overflow term alone passes δ = ${delta}; ${why}` }
    if (2 * eta > delta) return E.right(none)
    // Bisection down from a feasible hi (infeasible below the least feasible ε, feasible from it to
    // hi), to a relative 1e-10: ε(δ) then never passes an ε₀ whose corrected δ(ε₀) is δ by more than that.
    const lower = (hi0: number, lo0: number, method: string): E.Either<DpError, EpsilonAnswer> => {
      let hi = hi0
      let lo = lo0
      if (feasible(lo, delta)) [hi, lo] = [lo, 0]
      if (feasible(0, delta)) hi = 0
      for (let i = 0; i < 80 && hi - lo > 1e-10 * hi + 1e-15; i++) {
        const mid = lo + (hi - lo) / 2
        if (feasible(mid, delta)) hi = mid
        else lo = mid
      }
      return E.right({ epsilon: hi, delta, method })
    }
    // Fixed point from below: x ↦ ε_acc(δ − (1 + e^{x+t})η) rises to the answer; a value within the
    // margin t of the last is certified (its δ share leaves room for the term at x + t ≥ it).
    let x = 0
    for (let k = 0; k < 20; k++) {
      const t = 1e-6 * Math.max(1, x)
      const target = delta - (1 + Math.exp(x + t)) * eta
      if (!(target > 0)) break
      const a = inner.epsilon(target)
      if (E.isLeft(a)) return a
      const y = a.right.epsilon
      if (!Number.isFinite(y)) break
      if (y <= x + t) return lower(y, Math.max(0, y - 4 * t), `${a.right.method} (at δ − (1 + e^ε)η = ${show(target)}, then lowered by bisection on the corrected δ(ε)); ${why}`)
      x = y
    }
    // A feasible start: the accountant's own ε at a share s of δ certifies δ(ε) ≤ s·δ there (its δ(ε)
    // query may be looser than its ε(δ), as for the composition theorems), so s·δ + (1 + e^ε)η ≤ δ
    // suffices.
    let hi = Infinity
    let method = ''
    for (const share of [0.5, 0.9, 0.99, 0.999, 0.1, 0.01]) {
      const a = inner.epsilon(delta * share)
      if (E.isLeft(a)) return a
      const x = a.right.epsilon
      if (x < hi && Number.isFinite(x) && (corrected(delta * share, x, eta) <= delta || feasible(x, delta))) {
        hi = x
        method = a.right.method
      }
    }
    if (hi === Infinity) return E.right(none)
    return lower(hi, 0, `${method} (ε then lowered by bisection on the corrected δ(ε)); ${why}`)
  }
  return { epsilon: epsilonAt, delta: deltaAt, notes: inner.notes }
}
