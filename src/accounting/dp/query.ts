/**
 * Queries on a (ε, δ) state: ε at a total δ, δ at a target ε. This is where the δ budget is split.
 *
 * The split (a documented heuristic — every split yields a valid guarantee, this one is simply not
 * optimised). Stated δ_i (ApproxDP steps, and γ times the stated δ inside subsampled parts) are
 * committed first; the rest, δ_free = δ − Σ stated, goes
 * - under basic composition: evenly to the N flexible occurrences (Gaussian, zCDP and subsampled
 *   compositions), δ_free/N each;
 * - under advanced/KOV composition: half evenly to the N flexible occurrences (δ_free/(2N) each), half
 *   to the composition theorem's own slack (all of it when N = 0).
 * A flexible occurrence given δ_j reports the ε of its exact or best (ε, δ_j) pair: the analytic
 * Gaussian ε(δ_j), the exact discrete Gaussian ε(δ_j) (Canonne, Kamath & Steinke 2020, Thm 7), the
 * tight zCDP conversion, or, for a subsampled part with rate γ, the inner
 * multiset composed at δ_j/γ by the same rules and amplified (Balle, Barthe & Gaboardi 2018,
 * Thms 8/9). Amplification applies to a guarantee of the whole inner mechanism, which is why the
 * inner multiset is composed first.
 *
 * The accountant's (ε, δ) curve is the lower envelope of the candidate theorems' curves; ε(δ) and
 * δ(ε) are the two readings of that one envelope.
 *
 * @module
 */
import { drawnProbability, GROUP_GRID, gaussianGroupProfile, groupProfile, type ProfilePoint, withReplacementEpsilonAt } from '../with-replacement.js'
import { analyticGaussianEpsilon } from '../analytic-gaussian.js'
import { discreteGaussianEpsilon } from '../discrete-noise.js'
import { zcdpEpsilonTight } from '../zcdp/conversion.js'
import { rdpEpsilonAtOrder } from '../conversions.js'
import { profileEpsilon } from '../stated.js'
import { amplifiedEpsilon } from './amplification.js'
import { runDeltaFor, selectionDelta, selectionEpsilon } from './selection.js'
import {
  advancedCompositionDeltaPrime,
  advancedCompositionEpsilon,
  basicComposition,
  KOV_MAX_STEPS,
  kovDelta,
  kovEpsilon,
  kovHeterogeneousDeltaTilde,
  kovHeterogeneousEpsilon,
  type StepGuarantee,
} from './composition.js'
import { coversCommittedDelta } from '../committed-delta.js'
import { illinoisBracket } from './root.js'
import { type DpState, type DpTerm, totalCount } from './state.js'

/** Which composition theorems an accountant may use. */
export type DpMethod = 'basic' | 'advanced' | 'optimal'

export interface DpEpsilon {
  readonly epsilon: number
  readonly method: string
}

export interface DpDelta {
  readonly delta: number
  readonly method: string
}

const baseDelta = (s: DpState): number => s.entries.reduce((acc, e) => acc + e.count * termBase(e.term), 0)

/** δ a term commits whatever the split: stated δ, scaled by γ inside a sampled part. */
const termBase = (t: DpTerm): number => {
  switch (t._tag) {
    case 'Fixed':
      return t.delta
    case 'Gaussian':
    case 'DiscreteGaussian':
    case 'Zcdp':
    case 'Rdp':
    case 'Profile':
      return 0
    case 'Sampled':
      return t.rate * baseDelta(t.inner)
    case 'WithReplacement':
      return drawnProbability(t.batchSize, t.datasetSize) * baseDelta(t.inner)
    case 'Selected':
      return selectionDelta(t.mean, t.shape, baseDelta(t.inner))
  }
}

/** Whether a term's (ε, δ) improves with a share of δ_free under these rules. */
const isFlexible = (t: DpTerm, method: DpMethod): boolean => {
  switch (t._tag) {
    case 'Fixed':
      return false
    case 'Gaussian':
    case 'DiscreteGaussian':
    case 'Zcdp':
    case 'Rdp':
    case 'Profile':
      return true
    case 'Sampled':
    case 'Selected':
      return t.inner.entries.some((e) => isFlexible(e.term, method)) || (method !== 'basic' && totalCount(t.inner) > 1)
    case 'WithReplacement':
      return true
  }
}

const hasSampled = (s: DpState): boolean => s.entries.some((e) => e.term._tag === 'Sampled')

/** The ε a term reports when it may use total δ = d. */
const termEpsilon = (t: DpTerm, d: number, method: DpMethod): number => {
  switch (t._tag) {
    case 'Fixed':
      return t.epsilon
    case 'Gaussian':
      return d >= 1 ? 0 : d > 0 ? analyticGaussianEpsilon(t.noiseMultiplier, d) : Infinity
    case 'DiscreteGaussian':
      return d >= 1 ? 0 : d > 0 ? discreteGaussianEpsilon(t.sigma, t.sensitivity, d) : Infinity
    case 'Zcdp':
      return d >= 1 ? 0 : d > 0 ? zcdpEpsilonTight(t.rho, d, t.xi) : Infinity
    case 'Rdp': {
      // Every stated order gives a valid (ε, d) (CKS 2020, Prop. 12); the best is taken.
      if (d >= 1) return 0
      if (!(d > 0)) return Infinity
      let eps = Infinity
      t.curve.orders.forEach((a, i) => {
        const v = rdpEpsilonAtOrder(a, t.curve.rdp[i] as number, d)
        if (v < eps) eps = v
      })
      return eps
    }
    case 'Profile':
      return d >= 1 ? 0 : profileEpsilon(t.epsilons, t.deltas, d)
    case 'Sampled': {
      // The inner mechanism at δ_in = d/γ; (0, 1) is trivially true, and amplifies to (0, γ).
      // d ≥ γ·(inner committed δ) by construction; the max only undoes rounding in d/γ.
      const dIn = Math.max(d / t.rate, baseDelta(t.inner))
      const inner = dIn >= 1 ? 0 : epsilonAt(t.inner, dIn, method).epsilon
      return amplifiedEpsilon(t.rate, inner)
    }
    case 'Selected': {
      // The run at the largest δ_run whose selection δ′ is d (./selection.ts); d ≥ δ′(run's committed δ)
      // by construction, and the max only undoes rounding in the inverse.
      if (d >= 1) return 0
      const dRun = Math.max(runDeltaFor(t.mean, t.shape, d), baseDelta(t.inner))
      return dRun >= 1 ? 0 : selectionEpsilon(t.mean, t.shape, epsilonAt(t.inner, dRun, method).epsilon)
    }
    case 'WithReplacement': {
      if (!(d > 0)) return Infinity
      if (d >= 1) return 0
      // The inner profile on the grid, plus the point at δ_in = d/η, where the k = 1 term alone
      // would spend the whole share (for m = 1 it is the sampled-once answer exactly).
      const eta = drawnProbability(t.batchSize, t.datasetSize)
      const dIn = Math.min(1, d / eta)
      const eIn = dIn >= 1 ? 0 : epsilonAt(t.inner, dIn, method).epsilon
      const points = [...profileGrid(t.inner, method), { epsilon: eIn, delta: Math.min(dIn, deltaAt(t.inner, eIn, method).delta) }]
      const z = gaussianMultiplier(t.inner)
      const gauss = z === undefined ? undefined : gaussianGroupProfile(z)
      const group = (k: number, e: number): number => Math.min(groupProfile(points, k, e), gauss === undefined ? 1 : gauss(k, e))
      return withReplacementEpsilonAt(t.batchSize, t.datasetSize, group, d)
    }
  }
}

/** The combined noise multiplier of an all-Gaussian state, 1/√(Σ count/z²); undefined otherwise. */
const gaussianMultiplier = (s: DpState): number | undefined => {
  let inv = 0
  for (const e of s.entries) {
    if (e.term._tag !== 'Gaussian') return undefined
    inv += e.count / (e.term.noiseMultiplier * e.term.noiseMultiplier)
  }
  return inv > 0 ? 1 / Math.sqrt(inv) : undefined
}

const profileCache = new WeakMap<DpState, Map<DpMethod, ReadonlyArray<ProfilePoint>>>()

/** The inner state's δ(ε₁) on the group grid, once per state and method. */
const profileGrid = (s: DpState, method: DpMethod): ReadonlyArray<ProfilePoint> => {
  let byMethod = profileCache.get(s)
  if (byMethod === undefined) {
    byMethod = new Map()
    profileCache.set(s, byMethod)
  }
  const hit = byMethod.get(method)
  if (hit !== undefined) return hit
  const points = GROUP_GRID.map((epsilon) => ({ epsilon, delta: deltaAt(s, epsilon, method).delta }))
  byMethod.set(method, points)
  return points
}

/** Per-step guarantees when each flexible occurrence gets `share` on top of its committed δ. */
const stepsAt = (s: DpState, share: number, method: DpMethod): StepGuarantee[] =>
  s.entries.map((e) => {
    const d = termBase(e.term) + (isFlexible(e.term, method) ? share : 0)
    return { epsilon: termEpsilon(e.term, d, method), delta: e.term._tag === 'Fixed' ? e.term.delta : d, count: e.count }
  })

const fmt = (x: number): string => x.toPrecision(4)

/** One theorem's answer: a value (ε or δ) and its name. */
interface Candidate {
  readonly value: number
  readonly method: string
  /** The exact optimum for the per-step guarantees (KOV on identical steps). */
  readonly exact: boolean
}

const BASIC = 'basic composition (Dwork & Roth 2014, Thm 3.16)'
const advancedName = (slack: number): string =>
  `advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20, heterogeneous form) with δ′ = ${fmt(slack)}`
const KOV_HET = 'heterogeneous composition bound (Kairouz, Oh & Viswanath 2015, Thm 3.5)'

interface KovShape {
  readonly live: ReadonlyArray<StepGuarantee>
  readonly k: number
  readonly homogeneous: boolean
  readonly maxEps: number
  readonly maxDelta: number
  readonly name: string
}

/** What KOV sees: the non-trivial steps, whether they are identical, and their maximum. */
const kovShape = (steps: ReadonlyArray<StepGuarantee>): KovShape => {
  const live = steps.filter((g) => g.count > 0 && !(g.epsilon === 0 && g.delta === 0))
  const k = live.reduce((n, g) => n + g.count, 0)
  const first = live[0]
  const homogeneous = first !== undefined && live.every((g) => g.epsilon === first.epsilon && g.delta === first.delta)
  const maxEps = live.reduce((m, g) => Math.max(m, g.epsilon), 0)
  const maxDelta = live.reduce((m, g) => Math.max(m, g.delta), 0)
  const name = homogeneous
    ? `optimal composition of ${k} identical (ε₀ = ${fmt(maxEps)}, δ₀ = ${fmt(maxDelta)}) steps (Kairouz, Oh & Viswanath 2015, Thm 3.3; Murtagh & Vadhan 2016)`
    : `KOV 2015 Thm 3.3 applied to the per-step maximum (ε = ${fmt(maxEps)}, δ = ${fmt(maxDelta)}) of ${k} steps`
  return { live, k, homogeneous, maxEps, maxDelta, name }
}

/** log Π (1 − δ_i)^{count}. */
const logKeep = (steps: ReadonlyArray<StepGuarantee>): number => steps.reduce((acc, g) => acc + g.count * Math.log1p(-g.delta), 0)

/** KOV bounds on ε at total δ: Thm 3.3 (exact if identical steps, else at the maximum) and Thm 3.5. */
const kovEpsilonCandidates = (steps: ReadonlyArray<StepGuarantee>, delta: number): Candidate[] => {
  const sh = kovShape(steps)
  const out: Candidate[] = []
  if (sh.k <= KOV_MAX_STEPS) out.push({ value: kovEpsilon(sh.maxEps, sh.maxDelta, sh.k, delta), method: sh.name, exact: sh.homogeneous })
  // Thm 3.5: total δ = 1 − (1 − δ̃) Π (1 − δ_i), so log(1 − δ̃) = log(1 − δ) − log Π(1 − δ_i). Whether
  // δ̃ ≥ 0 exists at all is decided with rigorous rounding (a δ on the boundary gets δ̃ = 0, Σ ε_i;
  // issue 26); δ̃ itself is read on the small side of x's rounding error (the sound side).
  if (coversCommittedDelta(sh.live, delta)) {
    const keepLog = logKeep(sh.live)
    const x = Math.log1p(-delta) - keepLog
    const xErr = 8 * Number.EPSILON * (Math.abs(Math.log1p(-delta)) + sh.live.reduce((a, g) => a + g.count * Math.abs(Math.log1p(-g.delta)), 0))
    const deltaTilde = x + xErr < 0 ? -Math.expm1(x + xErr) : 0
    out.push({ value: kovHeterogeneousEpsilon(sh.live, deltaTilde), method: KOV_HET, exact: false })
  }
  return out
}

/** The same bounds read the other way: δ at ε (fixed steps only). */
const kovDeltaCandidates = (steps: ReadonlyArray<StepGuarantee>, epsilon: number): Candidate[] => {
  const sh = kovShape(steps)
  const out: Candidate[] = []
  if (sh.k <= KOV_MAX_STEPS) out.push({ value: kovDelta(sh.maxEps, sh.maxDelta, sh.k, epsilon), method: sh.name, exact: sh.homogeneous })
  const dt = kovHeterogeneousDeltaTilde(sh.live, epsilon)
  out.push({ value: Math.min(1, -Math.expm1(Math.log1p(-dt) + logKeep(sh.live))), method: KOV_HET, exact: false })
  return out
}

const best = (cs: ReadonlyArray<Candidate>): Candidate => cs.reduce((b, c) => (c.value < b.value ? c : b))

/** The method text: what won, what it was chosen from, and every approximation behind it. */
const describe = (winner: Candidate, s: DpState, method: DpMethod, homogeneous: boolean, nFlex: number, free: number): string => {
  const k = totalCount(s)
  let text = winner.method
  if (method === 'advanced') text = `best of advanced and basic composition: ${winner.method}`
  if (method === 'optimal')
    text = winner.exact
      ? `${winner.method}${nFlex > 0 ? ' — exact for the per-step guarantees below, not for the mechanisms themselves' : ''}`
      : !homogeneous
        ? 'steps are heterogeneous, so the exact optimal composition (Murtagh & Vadhan 2016; #P-hard in general) was not computed; ' +
          `best of basic, advanced and KOV bounds: ${winner.method}`
        : k > KOV_MAX_STEPS
          ? `identical steps, but KOV's exact sum was not evaluated (${k} > ${KOV_MAX_STEPS} steps); best of basic, advanced and KOV Thm 3.5 bounds: ${winner.method}`
          : `best of basic, advanced and KOV bounds: ${winner.method}`
  if (nFlex > 0)
    text +=
      `; ${nFlex} Gaussian/discrete-Gaussian/zCDP/subsampled step(s) converted to (ε, δ) at a heuristic even split of δ_free = ${fmt(free)} ` +
      '(each gets δ_free/N under basic composition, δ_free/(2N) under advanced/KOV; any split is sound, this one is not optimised)'
  if (hasSampled(s)) text += '; subsampled parts composed with the same rules, then amplified (Balle, Barthe & Gaboardi 2018, Thms 8/9)'
  return text
}

/** ε of the composed state at total δ, under an accountant's rules; never an underestimate. */
export const epsilonAt = (s: DpState, delta: number, method: DpMethod): DpEpsilon => {
  if (s.nonPrivate) return { epsilon: Infinity, method: 'a NonPrivate release was composed: no finite ε' }
  const k = totalCount(s)
  if (k === 0) return { epsilon: 0, method: 'nothing data-dependent was released' }
  const base = baseDelta(s)
  const free = delta - base
  // Below Σ δ_i only KOV can answer: it commits 1 − Π (1 − δ_i) ≤ Σ δ_i (issue 26: (1, 0.1)∘(2, 0.2)
  // at δ = 0.28 is (3, 0.28)-DP).
  if (free < 0 && method === 'optimal') {
    const steps = stepsAt(s, 0, method)
    const cs = kovEpsilonCandidates(steps, delta)
    if (cs.length > 0 && best(cs).value < Infinity) {
      const w = best(cs)
      return { epsilon: w.value, method: `${describe(w, s, method, kovShape(steps).homogeneous, 0, 0)}, at δ below Σ δ_i = ${fmt(base)}` }
    }
  }
  if (free < 0)
    return {
      epsilon: Infinity,
      method: `the stated δ of the steps already sum to ${fmt(base)} > δ = ${fmt(delta)}: no finite ε at this δ`,
    }
  const nFlex = s.entries.reduce((n, e) => n + (isFlexible(e.term, method) ? e.count : 0), 0)
  // Basic composition: all of δ_free to the flexible occurrences.
  const basicSteps = stepsAt(s, nFlex > 0 ? free / nFlex : 0, method)
  const basic = basicComposition(basicSteps).epsilon
  // One step: its own guarantee at the whole δ is best (a composition theorem can only loosen it).
  // The optimal accountant reads that guarantee at δ exactly: KOV's Thm 3.3 with k = 1 is the ε at
  // which the worst (ε₀, δ₀)-DP pair has δ(ε) = δ, below ε₀ once δ > δ₀ — without it a single step
  // would answer more than two of them do (ε not monotone in the count, issue 30).
  if (k === 1) {
    const only = basicSteps.find((g) => g.count > 0)
    const exact = method === 'optimal' && only !== undefined ? kovEpsilon(only.epsilon, only.delta, 1, delta) : Infinity
    return {
      epsilon: Math.min(basic, exact),
      method:
        'a single step: its own guarantee' +
        (nFlex > 0 ? ` at δ_free = ${fmt(free)} (δ minus the stated δ)` : '') +
        (hasSampled(s) ? ', composed inside and amplified (Balle, Barthe & Gaboardi 2018, Thms 8/9)' : '') +
        (exact < basic ? ', read at δ exactly (Kairouz, Oh & Viswanath 2015, Thm 3.3 with k = 1)' : ''),
    }
  }
  const cs: Candidate[] = [{ value: basic, method: BASIC, exact: false }]
  let homogeneous = false
  if (method !== 'basic') {
    const flexTotal = nFlex > 0 ? free / 2 : 0
    const slack = free - flexTotal
    const steps = nFlex > 0 ? stepsAt(s, flexTotal / nFlex, method) : basicSteps
    cs.push({ value: advancedCompositionEpsilon(steps, slack), method: advancedName(slack), exact: false })
    if (method === 'optimal') {
      cs.push(...kovEpsilonCandidates(steps, delta))
      homogeneous = kovShape(steps).homogeneous
    }
  }
  const w = best(cs)
  return { epsilon: w.value, method: describe(w, s, method, homogeneous, nFlex, free) }
}

/** Width of the final bracket of the δ search, in log δ. */
const DELTA_LOG_TOL = 1e-10
const ONE_MINUS = 1 - Number.EPSILON / 2

/** δ at ε when every step is a fixed (ε_i, δ_i): each theorem read directly for δ. */
const fixedDeltaAt = (s: DpState, epsilon: number, method: DpMethod): DpDelta => {
  const steps: StepGuarantee[] = s.entries.map((e) => ({
    epsilon: e.term._tag === 'Fixed' ? e.term.epsilon : Infinity,
    delta: e.term._tag === 'Fixed' ? e.term.delta : 1,
    count: e.count,
  }))
  const basic = basicComposition(steps)
  const k = totalCount(s)
  const cs: Candidate[] = [{ value: basic.epsilon <= epsilon ? basic.delta : 1, method: BASIC, exact: false }]
  if (k === 1) return { delta: cs[0]?.value ?? 1, method: 'a single step: its own guarantee' }
  if (method !== 'basic') {
    const dp = advancedCompositionDeltaPrime(steps, epsilon)
    cs.push({ value: Math.min(1, basic.delta + dp), method: advancedName(dp), exact: false })
    if (method === 'optimal') cs.push(...kovDeltaCandidates(steps, epsilon))
  }
  const w = best(cs)
  return { delta: w.value, method: describe(w, s, method, kovShape(steps).homogeneous, 0, 0) }
}

/**
 * Smallest δ at which the state's ε (same rules, same split) is ≤ ε. Fixed steps are inverted
 * theorem by theorem; otherwise a bracketing search on log δ over `epsilonAt` itself reports the
 * satisfied end, so the returned pair was verified.
 */
export const deltaAt = (s: DpState, epsilon: number, method: DpMethod): DpDelta => {
  if (s.nonPrivate) return { delta: 1, method: 'a NonPrivate release was composed: no δ < 1 holds at any ε (its loss is +∞ with probability 1)' }
  if (totalCount(s) === 0) return { delta: 0, method: 'nothing data-dependent was released' }
  // ε = ∞: δ(∞) is the probability of an infinite loss (e^∞·0 = 0; the PLD and zCDP accountants answer so, and an
  // (ε, δ) step may put its δ there), at most δ at the largest finite ε, since δ(ε) does not grow with ε
  if (epsilon === Infinity) {
    const d = deltaAt(s, Number.MAX_VALUE, method)
    return { delta: d.delta, method: `ε = ∞: the probability of an infinite loss, at most δ at ε = ${Number.MAX_VALUE} (${d.method})` }
  }
  if (s.entries.every((e) => e.term._tag === 'Fixed')) return fixedDeltaAt(s, epsilon, method)
  const gap = (d: number): number => epsilonAt(s, d, method).epsilon - epsilon
  const base = baseDelta(s)
  if (base < 1 && gap(base) <= 0) return { delta: base, method: epsilonAt(s, base, method).method }
  if (gap(ONE_MINUS) > 0)
    return { delta: 1, method: `no δ < 1 meets ε = ${fmt(epsilon)} with these composition theorems (δ = 1 holds trivially)` }
  const lo = Math.max(base, Number.MIN_VALUE)
  if (gap(lo) <= 0) return { delta: lo, method: epsilonAt(s, lo, method).method }
  const r = illinoisBracket((x) => gap(Math.exp(x)), Math.log(lo), Math.log(ONE_MINUS), DELTA_LOG_TOL, 0)
  const d = Math.exp(r.hi)
  // exp(r.hi) is the very δ the search verified (or the verified upper end).
  return { delta: d, method: epsilonAt(s, d, method).method }
}
