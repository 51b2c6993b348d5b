/**
 * The zCDP accountant (Bun & Steinke 2016): a state is one number ρ, composition adds
 * (Lemma 1.7), and queries convert with the tighter of the classic and the continuous-order
 * Canonne–Kamath–Steinke conversions (./conversion.ts).
 *
 * Leaves: Gaussian ρ = 1/(2m²) (Prop. 1.6); the discrete Gaussian ρ = Δ²/(2σ²) (Canonne, Kamath &
 * Steinke 2020, Thm 4; coordinates compose, see rdp/closed-forms.ts); pure ε-DP ρ = ε²/2
 * (Prop. 1.4) for Laplace, the discrete Laplace (ε = Δ/t), k-ary randomized response and stated
 * PureDP; bitwise randomized response is a product of independent
 * bit flips of which at most `bits` differ, each ε_b = ln((1 − f)/f)-DP, so ρ = bits·ε_b²/2 by
 * composition; the exponential mechanism is ε-bounded-range, hence ε²/8-zCDP (Cesar & Rogers 2021;
 * bounded range from Durfee & Rogers 2019); ZCDP(ρ) as stated, and a stated (ξ, ρ)-zCDP guarantee
 * (Def. 1.1: D_α ≤ ξ + ρα) carries its ξ, which composes by addition as ρ does (Lemma 1.7) and enters
 * the conversion (Prop. 1.3: ε = ξ + ρ + 2√(ρ log(1/δ)), or CKS at every order of ξ + ρα); ApproxDP with δ > 0 has no zCDP bound
 * and is refused with its path.
 *
 * Subsampling: zCDP has no amplification theorem, but the unsampled ρ stays valid — the output
 * law on either neighbour is a mixture, with shared weights, of outputs on sample pairs that are
 * identical or neighbours, and the Rényi divergence is jointly quasi-convex (exp((α − 1)D_α) is
 * jointly convex), so the mixture is no worse than the worst pair. The note says so.
 *
 * @module
 */
import { WITH_REPLACEMENT_SCOPE } from '../with-replacement.js'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, unsupportedEvent } from '../../core/error.js'
import { TRUNCATION_SCOPE } from '../truncation.js'
import { roundUpLoss } from '../../core/numeric.js'
import { checkCompose, checkDeltaQuery, checkEpsilonQuery } from '../guards.js'
import { absurd, childPath, isNoiseEvent, noOp, type PrivacyEvent } from '../../mechanisms/event.js'
import type { NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import type { Accountant, Notes } from '../accountant.js'
import { halfInverseSquareUp, halfSquareUp, isSilentLeaf, mixtureMaxShift, type NormalizedLeaf, pureEpsilonOf, resolveLeaf } from '../normalize.js'
import { checkSamplingRelation } from '../relation.js'
import { zcdpToDelta, zcdpToEpsilon } from './conversion.js'

export interface ZcdpAccountantOptions {
  readonly relation: NeighbouringRelation
}

export interface ZcdpState {
  readonly rho: number
  /**
   * The additive ξ of (ξ, ρ)-zCDP (Bun & Steinke 2016, Def. 1.1): 0 unless a stated (ξ, ρ) guarantee
   * was composed. (ξ, ρ) compose by adding both (ibid., Lemma 1.7).
   */
  readonly xi: number
  /** A NonPrivate release was composed (ρ = ∞). */
  readonly nonPrivate: boolean
  readonly notes: Notes
}

export const emptyZcdpState: ZcdpState = { rho: 0, xi: 0, nonPrivate: false, notes: [] }

const NAME = 'zcdp'

/** ρ of a normalized leaf, or undefined for an (ε, δ > 0) guarantee. */
export const zcdpOfLeaf = (l: NormalizedLeaf): number | undefined => {
  switch (l._tag) {
    case 'Gaussian':
      return halfInverseSquareUp(l.noiseMultiplier) // Prop. 1.6
    case 'DiscreteGaussian':
      return halfInverseSquareUp(l.sigma / l.sensitivity) // CKS 2020, Thm 4: Δ²/(2σ²)
    case 'Laplace':
    case 'DiscreteLaplace':
      return halfSquareUp(pureEpsilonOf(l) as number) // Prop. 1.4
    case 'RandomizedResponse':
    case 'PureDP':
      return (l.epsilon * l.epsilon) / 2 // Prop. 1.4
    case 'RandomizedResponseToUniform': {
      const eps = pureEpsilonOf(l) as number
      return (eps * eps) / 2 // Prop. 1.4
    }
    case 'BitwiseRandomizedResponse': {
      const eb = Math.log((1 - l.flipProbability) / l.flipProbability)
      return (l.bits * eb * eb) / 2 // Prop. 1.4 per differing bit, Lemma 1.7 across bits
    }
    case 'Exponential':
      return (l.epsilon * l.epsilon) / 8 // ε-bounded range ⇒ ε²/8-zCDP (Cesar & Rogers 2021)
    case 'ApproxDP':
      return l.delta === 0 ? (l.epsilon * l.epsilon) / 2 : undefined
    case 'ZCDP':
      return l.rho
    case 'MixtureOfGaussians': {
      // Rényi divergence is jointly quasi-convex (van Erven & Harremoës 2014, Thm 13): at most the
      // largest shift's Gaussian, μ_max²/2 (Prop. 1.6), in both orders.
      const m = mixtureMaxShift(l.shifts)
      return (m * m) / 2
    }
    case 'StatedRdp':
      return undefined
    case 'StatedProfile': {
      const pure = pureEpsilonOf(l)
      return pure === undefined ? undefined : (pure * pure) / 2 // Prop. 1.4 on a pure point
    }
    default:
      return absurd(l)
  }
}

const addNotes = (a: Notes, b: Notes): Notes => (b.length === 0 ? a : [...a, ...b.filter((n) => !a.includes(n))])

const samplingNote = (path: string, what: string): string =>
  `${path}: ${what} — zCDP has no amplification-by-subsampling theorem; the unsampled ρ is kept ` +
  '(valid: Rényi divergence is jointly quasi-convex, so the sampled mixture is no worse than its worst component); ' +
  'use the RDP accountant for amplification'

/** ρ of a tree (one occurrence); failures name the offending sub-event. */
const foldRho = (e: PrivacyEvent, relation: NeighbouringRelation, path: string): E.Either<DpError, ZcdpState> => {
  if (isNoiseEvent(e)) {
    const r = resolveLeaf(e, relation, path)
    if (E.isLeft(r)) return r
    const exact = zcdpOfLeaf(r.right.leaf)
    // ε²/2 underflows to 0 for ε ≲ 1e-162: a leaf that reveals anything keeps ρ > 0 (issue 30).
    const xi = r.right.leaf._tag === 'ZCDP' ? r.right.leaf.xi : 0
    const rho = exact === 0 && xi === 0 && !isSilentLeaf(r.right.leaf) ? Number.MIN_VALUE : exact
    if (rho === undefined)
      return E.left(
        unsupportedEvent(
          path,
          NAME,
          e._tag,
          r.right.leaf._tag === 'StatedRdp'
            ? 'an RDP curve stated at finitely many orders bounds no ρ (nothing is known above its largest order); use the rdp accountant'
            : 'an (ε, δ) guarantee with δ > 0 implies no zCDP bound; use the basic/advanced/optimal accountant',
        ),
      )
    return E.right({ rho, xi, nonPrivate: false, notes: r.right.note === undefined ? [] : [r.right.note] })
  }
  switch (e._tag) {
    case 'NoOp':
      return E.right(emptyZcdpState)
    case 'NonPrivate':
      return E.right({ rho: Infinity, xi: 0, nonPrivate: true, notes: [] })
    case 'Compose': {
      let rho = 0
      let xi = 0
      let nonPrivate = false
      const notes = new Set<string>()
      for (let i = 0; i < e.events.length; i++) {
        const r = foldRho(e.events[i] as PrivacyEvent, relation, childPath(path, e, i))
        if (E.isLeft(r)) return r
        rho += r.right.rho // Lemma 1.7
        xi += r.right.xi
        nonPrivate = nonPrivate || r.right.nonPrivate
        for (const n of r.right.notes) notes.add(n)
      }
      return E.right({ rho, xi, nonPrivate, notes: [...notes] })
    }
    case 'SelfCompose': {
      const r = foldRho(e.event, relation, childPath(path, e))
      return E.isLeft(r) ? r : E.right(composeStates(emptyZcdpState, r.right, e.count))
    }
    case 'PoissonSample':
    case 'SampleWithoutReplacement': {
      // q = 0 includes no unit: the inner event runs on the empty sample, independent of the data (a NoOp under any relation; issue 26).
      if (e._tag === 'PoissonSample' && e.q === 0) return foldRho(noOp, relation, path)
      const ok = checkSamplingRelation(e, relation, path)
      if (E.isLeft(ok)) return ok
      const r = foldRho(e.event, relation, childPath(path, e))
      if (E.isLeft(r)) return r
      const what = e._tag === 'PoissonSample' ? `Poisson subsampling (q = ${Number(e.q.toPrecision(6))})` : `sampling ${e.m} of ${e.n} without replacement`
      return E.right({ ...r.right, notes: addNotes(r.right.notes, [samplingNote(path, what)]) })
    }
    case 'TruncatedPoissonSample':
      return E.left(unsupportedEvent(path, 'zcdp', e._tag, TRUNCATION_SCOPE))
    case 'WithReplacementSample':
      return E.left(unsupportedEvent(path, 'zcdp', e._tag, WITH_REPLACEMENT_SCOPE))
    case 'Labeled':
      return foldRho(e.event, relation, childPath(path, e))
    case 'RepeatAndSelect':
      return E.left(
        unsupportedEvent(
          path,
          NAME,
          e._tag,
          'the RDP of repeat-and-select (Papernot & Steinke 2022) has a log(E[K])/(λ − 1) term that no (ξ, ρ)-zCDP bound matches; use the rdp accountant',
        ),
      )
    default:
      return absurd(e)
  }
}

/** s then `count` repetitions of t (Lemma 1.7: ρ adds). Zero repetitions add nothing. */
const composeStates = (s: ZcdpState, t: ZcdpState, count: number): ZcdpState =>
  count === 0
    ? { ...s, notes: addNotes(s.notes, t.notes) }
    : {
        rho: t.rho === 0 ? s.rho : s.rho + count * t.rho,
        xi: t.xi === 0 ? s.xi : s.xi + count * t.xi,
        nonPrivate: s.nonPrivate || t.nonPrivate,
        notes: addNotes(s.notes, t.notes),
      }

/** ρ, and ξ when a stated (ξ, ρ) guarantee made it positive. */
const showParams = (s: ZcdpState): string => (s.xi === 0 ? `ρ = ${s.rho.toPrecision(6)}` : `ξ = ${s.xi.toPrecision(6)}, ρ = ${s.rho.toPrecision(6)}`)

/** The zCDP accountant. */
export const makeZcdpAccountant = (options: ZcdpAccountantOptions): Accountant<ZcdpState> => ({
  name: NAME,
  description:
    'zero-concentrated DP (Bun & Steinke 2016): ρ adds under composition; (ε, δ) by the tighter of Prop. 1.3 and the continuous-order CKS 2020 conversion',
  relation: options.relation,
  empty: emptyZcdpState,
  compose:
    (event, count = 1, path = '$') =>
    (s) => {
      const valid = checkCompose(event, count, path)
      if (E.isLeft(valid)) return valid
      const r = foldRho(event, options.relation, path)
      return E.isLeft(r) ? r : E.right(composeStates(s, r.right, count))
    },
  epsilon: (delta) => (s) => {
    const d = checkDeltaQuery(delta)
    if (E.isLeft(d)) return d
    if (s.nonPrivate) return E.right({ epsilon: Infinity, delta, method: 'a NonPrivate release was composed: no finite ε' })
    if (delta === 0)
      return E.right(
        s.rho === 0
          ? s.xi === 0
            ? { epsilon: 0, delta, method: 'ρ = 0: the release is independent of the data' }
            : { epsilon: roundUpLoss(s.xi), delta, method: `ξ = ${s.xi.toPrecision(6)}, ρ = 0: pure ξ-DP (D_α ≤ ξ at every order, so D_∞ ≤ ξ)` }
          : { epsilon: Infinity, delta, method: 'δ = 0 asks for pure ε-DP, which ρ-zCDP with ρ > 0 does not imply (a Gaussian is ρ-zCDP and not ε-DP for any ε)' },
      )
    const c = zcdpToEpsilon(s.rho, delta, s.xi)
    const method = `${showParams(s)}; ${c.method}`
    return E.right(
      c.order === undefined
        ? { epsilon: roundUpLoss(c.epsilon), delta, method }
        : { epsilon: roundUpLoss(c.epsilon), delta, method, order: c.order },
    )
  },
  delta: (epsilon) => (s) => {
    const e = checkEpsilonQuery(epsilon)
    if (E.isLeft(e)) return e
    if (s.nonPrivate)
      return E.right({ epsilon, delta: 1, method: 'a NonPrivate release was composed: no δ < 1 at any ε (its loss is +∞ with probability 1)' })
    const c = zcdpToDelta(s.rho, epsilon, s.xi)
    const method = `${showParams(s)}; ${c.method}`
    const delta = Math.min(1, roundUpLoss(c.delta))
    return E.right(c.order === undefined ? { epsilon, delta, method } : { epsilon, delta, method, order: c.order })
  },
  notes: (s) => s.notes,
})
