/**
 * The RDP curve of an event tree: a fold over the event algebra.
 *
 * - leaves: `resolveLeaf` (relation conversion or refusal), then the closed forms;
 * - Compose: curves add (Mironov 2017, Prop. 1, adaptive composition); SelfCompose: × count;
 *   Labeled: transparent; NoOp: 0; NonPrivate: ∞;
 * - PoissonSample(q, e): the exact sampled Gaussian when e is one Gaussian leaf (under Labeled
 *   wrappers), the tight sampled Laplace (./subsampled-laplace.ts) when it is one Laplace leaf, the
 *   tight sampled discrete Gaussian (./subsampled-discrete-gaussian.ts) when it is one scalar
 *   discrete Gaussian, otherwise the Zhu–Wang 2019 general bound on e's curve; under remove-only or
 *   add-only, the one-directional bounds of ./poisson-directional.ts for the general case (the add
 *   direction also capped by its pure ε, at most −log(1 − q));
 * - SampleWithoutReplacement(m, n, e): the Wang–Balle–Kasiviswanathan 2019 bounds: Theorem 27 when
 *   e is one Gaussian leaf (under Labeled wrappers), Theorem 9 on e's curve otherwise.
 *
 * Alongside the curve the fold carries a pure-DP ε (∞ when there is none): pure ε composes by
 * addition, is amplified by sampling (log(1 + q(e^ε − 1)), Balle, Barthe & Gaboardi 2018, Thms 8
 * and 9 for Poisson/add-remove and without-replacement/replace-one), feeds WBK's ε(∞), and caps
 * the curve (D_α ≤ D_∞ = ε).
 *
 * Within one computation, a sub-event object met again is not recomputed (memoised by identity
 * and order grid), and the sampled-Gaussian curve is memoised by (q, σ, grid).
 *
 * @module
 */
import { WITH_REPLACEMENT_SCOPE } from '../with-replacement.js'
import * as E from 'fp-ts/lib/Either.js'
import { type DpError, numericFailure, unsupportedEvent } from '../../core/error.js'
import { childPath, isNoiseEvent, noOp, type PrivacyEvent } from '../../mechanisms/event.js'
import { addRemove, directionOf, type NeighbouringRelation } from '../../mechanisms/neighbouring.js'
import { validateEvent } from '../../mechanisms/codec.js'
import { amplifiedEpsilon } from '../dp/amplification.js'
import { type NormalizedLeaf, resolveLeaf } from '../normalize.js'
import { checkSamplingRelation } from '../relation.js'
import { TRUNCATION_SCOPE } from '../truncation.js'
import { leafCurve, leafPureEpsilon } from './closed-forms.js'
import { DEFAULT_ORDERS, validateOrders } from './orders.js'
import { repeatSelectCurve, repeatSelectPure } from './repeat-select.js'
import { poissonGeneralCurve } from './poisson-general.js'
import { addDirectionPure, poissonAddCurve, poissonRemoveCurve } from './poisson-directional.js'
import { subsampledGaussianCurve } from './subsampled-gaussian.js'
import { sampledGaussianAddDirection } from './subsampled-gaussian-add.js'
import { subsampledDiscreteGaussianBounded, subsampledDiscreteGaussianCurve } from './subsampled-discrete-gaussian.js'
import { type SubsampledLaplaceMemo, subsampledLaplaceCurve } from './subsampled-laplace.js'
import { kept, keptOr } from './kept.js'
import { withoutReplacementCurve, withoutReplacementGaussianCurve } from './without-replacement.js'
import { floatsKey, valueKey } from '../value-key.js'

/** A curve on a grid, with the pure ε that also bounds it, and the notes collected. */
export interface RdpCurveResult {
  readonly orders: ReadonlyArray<number>
  readonly curve: Float64Array
  readonly pureEpsilon: number
  readonly notes: ReadonlyArray<string>
}

/** Prefixes of the notes that say a general (looser) subsampling bound was used. */
export const ZHU_WANG_NOTE = 'Zhu–Wang 2019 general subsampling bound (upper bound)'
export const WBK_NOTE = 'Wang–Balle–Kasiviswanathan 2019 subsampling-without-replacement bound (upper bound)'
export const WBK_GAUSSIAN_NOTE =
  'Wang–Balle–Kasiviswanathan 2019 Thm 27 (Gaussian-specific) subsampling-without-replacement bound (upper bound)'

/** At most this many distinct notes are kept (large trees repeat the same conversion). */
const MAX_NOTES = 50

interface OrderSet {
  readonly values: ReadonlyArray<number>
  readonly key: string
}

interface Curve {
  /** Never mutated once built: combinators allocate. */
  readonly values: Float64Array
  readonly pureEpsilon: number
}

interface Context {
  readonly relation: NeighbouringRelation
  readonly notes: Set<string>
  dropped: number
  readonly memo: WeakMap<PrivacyEvent, Map<string, E.Either<DpError, Curve>>>
  readonly sampledGaussian: Map<string, Float64Array>
  /** Under a one-directional relation: the context of add/remove of the same unit, made when first needed. */
  addRemove?: Context
}

/**
 * Kept across contexts and queries (./kept.ts), keyed by value: leaf curves by leaf and grid
 * (curves are never mutated), subsampled-Laplace values at integer orders by (q, b), and the
 * Zhu–Wang bound at integer orders by (q, inner leaf) when the sampled event is one leaf.
 */
const LEAVES = kept<Curve>(512)
const SAMPLED_LAPLACE = kept<SubsampledLaplaceMemo>(16)
const ZHU_WANG = kept<Map<number, number>>(64)
/** A grid ∪ the integers 2..⌈max⌉ that the general bounds read, with each order's index, by grid. */
const UNIONS = kept<{ readonly grid: OrderSet; readonly indexOf: (alpha: number) => number }>(256)

const freshContext = (relation: NeighbouringRelation): Context => ({
  relation,
  notes: new Set(),
  dropped: 0,
  memo: new WeakMap(),
  sampledGaussian: new Map(),
})

/**
 * A leaf's value as a key: every field, nested ones too (a stated RDP curve is an object: printed
 * by String it was "[object Object]", so two different stated curves in one tree shared the first
 * one's values — the composition of curves a and b read 2a, an understatement when b > a).
 */
const leafKey = (leaf: NormalizedLeaf): string => valueKey(leaf)

const orderSet = (values: ReadonlyArray<number>): OrderSet => ({ values, key: floatsKey(values) })

/** The default grid, on which a selection's λ̂ and δ̂ are searched. */
const DEFAULT_GRID = orderSet(DEFAULT_ORDERS)

const note = (ctx: Context, text: string): void => {
  if (ctx.notes.has(text)) return
  if (ctx.notes.size < MAX_NOTES) ctx.notes.add(text)
  else ctx.dropped++
}

const filled = (n: number, v: number): Curve => ({ values: new Float64Array(n).fill(v), pureEpsilon: v })

/**
 * Pure ε after sampling at rate γ: log(1 + γ(e^ε − 1)) (Balle, Barthe & Gaboardi 2018, Thms 8–9),
 * by the one kernel that keeps its digits at small γ and large ε and never underflows to 0.
 */
const amplifiedPure = (gamma: number, eps: number): number => amplifiedEpsilon(gamma, eps)

/** The smaller of two sound curves of one event, order by order (and the smaller pure ε). */
const lowerOf = (a: Curve, b: Curve): Curve => ({
  values: Float64Array.from(a.values, (v, i) => Math.min(v, b.values[i] as number)),
  pureEpsilon: Math.min(a.pureEpsilon, b.pureEpsilon),
})

/** Caps a curve by its pure ε (a copy only when the cap can bind). */
const capped = (values: Float64Array, pureEpsilon: number): Curve => {
  if (pureEpsilon === Infinity) return { values, pureEpsilon }
  const out = new Float64Array(values.length)
  for (let i = 0; i < values.length; i++) out[i] = Math.min(values[i] as number, pureEpsilon)
  return { values: out, pureEpsilon }
}

/**
 * A sampled release at a rate > 0 of an event that reveals something at order α reveals something
 * too: ε(α) > 0. The bounds' sums underflow to 0 at tiny rates or losses; such a value is reported
 * as the least positive double (0 would convert to ε = 0, an understatement: issue 30).
 */
const keepPositive = (c: Curve, reveals: (i: number) => boolean): Curve => {
  let out: Float64Array | undefined
  for (let i = 0; i < c.values.length; i++)
    if (c.values[i] === 0 && reveals(i)) (out ??= Float64Array.from(c.values))[i] = Number.MIN_VALUE
  return out === undefined ? c : { values: out, pureEpsilon: c.pureEpsilon }
}

/**
 * A curve of both directions (or of the remove one) read in the add direction: capped at every
 * order by −log(1 − q + qe^{−ε}) ≤ −log(1 − q), the add direction's pure ε (./poisson-directional.ts).
 */
const addDirection = (values: Float64Array, q: number, innerPure: number): Curve => capped(values, addDirectionPure(q, innerPure))

/** The one leaf of kind `tag` under Labeled wrappers, with its path, if that is what `e` is. */
const singleLeaf = <T extends 'Gaussian' | 'Laplace' | 'DiscreteGaussian'>(
  tag: T,
  e: PrivacyEvent,
  path: string,
): { readonly leaf: PrivacyEvent & { _tag: T }; readonly path: string } | undefined => {
  let cur = e
  let p = path
  while (cur._tag === 'Labeled') {
    p = childPath(p, cur)
    cur = cur.event
  }
  return cur._tag === tag ? { leaf: cur as PrivacyEvent & { _tag: T }, path: p } : undefined
}
const singleGaussian = (e: PrivacyEvent, path: string) => singleLeaf('Gaussian', e, path)

/**
 * The key of an event that is one noise leaf under Labeled wrappers — its value once resolved under
 * the relation, which is all its curve depends on — or undefined for any other event.
 */
const resolvedLeafKey = (e: PrivacyEvent, relation: NeighbouringRelation): string | undefined => {
  let cur = e
  while (cur._tag === 'Labeled') cur = cur.event
  if (!isNoiseEvent(cur)) return undefined
  const res = resolveLeaf(cur, relation, '$')
  return E.isLeft(res) ? undefined : leafKey(res.right.leaf)
}

/** The kept Zhu–Wang values at integer orders of PoissonSample(q, e), when e is one leaf. */
const zhuWangMemo = (q: number, e: PrivacyEvent, relation: NeighbouringRelation): Map<number, number> | undefined => {
  const leaf = resolvedLeafKey(e, relation)
  return leaf === undefined ? undefined : keptOr(ZHU_WANG, `${q}|${leaf}`, () => new Map())
}

const fold = (e: PrivacyEvent, os: OrderSet, path: string, ctx: Context): E.Either<DpError, Curve> => {
  let byGrid = ctx.memo.get(e)
  const hit = byGrid?.get(os.key)
  if (hit !== undefined) return hit
  const r = foldUncached(e, os, path, ctx)
  if (byGrid === undefined) {
    byGrid = new Map()
    ctx.memo.set(e, byGrid)
  }
  byGrid.set(os.key, r)
  return r
}

const foldUncached = (e: PrivacyEvent, os: OrderSet, path: string, ctx: Context): E.Either<DpError, Curve> => {
  const n = os.values.length
  if (isNoiseEvent(e)) {
    const res = resolveLeaf(e, ctx.relation, path)
    if (E.isLeft(res)) return res
    if (res.right.note !== undefined) note(ctx, res.right.note)
    const leaf = res.right.leaf
    if (leaf._tag === 'StatedRdp')
      note(
        ctx,
        `${path}: stated RDP curve read between its orders by monotonicity and convexity of (α − 1)D_α in α ` +
          `(van Erven & Harremoës 2014, Thm 3 and Cor. 2; upper bounds only), ∞ above its largest order α = ${String(leaf.curve.orders[leaf.curve.orders.length - 1])}`,
      )
    // Large specs repeat the same leaf many times: its curve is computed once per grid.
    const key = `${leafKey(leaf)}|${os.key}`
    const hit = LEAVES.get(key)
    if (hit !== undefined) return E.right(hit)
    const values = leafCurve(leaf, os.values, path)
    if (E.isLeft(values)) return values
    return E.right(LEAVES.set(key, capped(values.right, leafPureEpsilon(leaf))))
  }
  switch (e._tag) {
    case 'NoOp':
      return E.right(filled(n, 0))
    case 'NonPrivate':
      return E.right(filled(n, Infinity))
    case 'Labeled':
      return fold(e.event, os, childPath(path, e), ctx)
    case 'Compose': {
      const values = new Float64Array(n)
      let pure = 0
      for (let i = 0; i < e.events.length; i++) {
        const c = fold(e.events[i] as PrivacyEvent, os, childPath(path, e, i), ctx)
        if (E.isLeft(c)) return c
        for (let j = 0; j < n; j++) values[j] = (values[j] as number) + (c.right.values[j] as number)
        pure += c.right.pureEpsilon
      }
      return E.right(capped(values, pure))
    }
    case 'SelfCompose': {
      const c = fold(e.event, os, childPath(path, e), ctx)
      if (E.isLeft(c)) return c
      // Count 0 releases nothing (and must not turn ∞ into 0·∞ = NaN).
      if (e.count === 0) return E.right(filled(n, 0))
      const values = new Float64Array(n)
      for (let j = 0; j < n; j++) values[j] = e.count * (c.right.values[j] as number)
      return E.right({ values, pureEpsilon: e.count * c.right.pureEpsilon })
    }
    case 'PoissonSample': {
      // q = 0 includes no unit: the inner event runs on the empty sample, independent of the data (a NoOp under any relation; issue 26).
      if (e.q === 0) return fold(noOp, os, path, ctx)
      const ok = checkSamplingRelation(e, ctx.relation, path)
      if (E.isLeft(ok)) return ok
      if (e.q >= 1) return fold(e.event, os, childPath(path, e), ctx)
      // Under one direction of add/remove only that direction is bounded (./poisson-directional.ts);
      // the exact sampled Gaussian and Laplace below bound both directions, so serve either.
      const dir = directionOf(ctx.relation.kind)
      const g = singleGaussian(e.event, childPath(path, e))
      if (g !== undefined) {
        const res = resolveLeaf(g.leaf, ctx.relation, g.path)
        if (E.isLeft(res)) return res
        if (res.right.note !== undefined) note(ctx, res.right.note)
        const m = (res.right.leaf as { readonly noiseMultiplier: number }).noiseMultiplier
        const key = `${e.q}|${m}|${os.key}`
        let values = ctx.sampledGaussian.get(key)
        if (values === undefined) {
          const sg = subsampledGaussianCurve(e.q, m, os.values)
          if (sg.interpolated)
            note(
              ctx,
              `${path}: sampled Gaussian at some fractional orders bounded by interpolating the cumulant between integer orders (upper bound)`,
            )
          if (sg.unsampled)
            note(
              ctx,
              `${path}: sampled Gaussian at some orders failed its numerical floor check and was bounded by the unsampled Gaussian α/(2σ²) (upper bound)`,
            )
          values = sg.curve
          ctx.sampledGaussian.set(key, values)
        }
        if (dir !== 'add') return E.right({ values, pureEpsilon: Infinity })
        // The add direction: MTZ's B_α, bounded above by a Darboux sum (./subsampled-gaussian-add.ts), never above A_α.
        const key2 = `add|${key}`
        let addValues = ctx.sampledGaussian.get(key2)
        if (addValues === undefined) {
          const b = m === Infinity ? undefined : sampledGaussianAddDirection(e.q, m)
          addValues = Float64Array.from(values, (v, i) => (b === undefined ? v : Math.min(v, b.at(os.values[i] as number).upper)))
          ctx.sampledGaussian.set(key2, addValues)
        }
        return E.right(keepPositive(addDirection(addValues, e.q, Infinity), () => m < Infinity))
      }
      const lap = singleLeaf('Laplace', e.event, childPath(path, e))
      if (lap !== undefined) {
        const res = resolveLeaf(lap.leaf, ctx.relation, lap.path)
        if (E.isLeft(res)) return res
        if (res.right.note !== undefined) note(ctx, res.right.note)
        const b = (res.right.leaf as { readonly noiseMultiplier: number }).noiseMultiplier
        const memo = keptOr(SAMPLED_LAPLACE, `${e.q}|${b}`, () => ({ values: new Map(), logMoments: [] }))
        const values = subsampledLaplaceCurve(os.values, e.q, b, memo)
        const sampled = dir === 'add' ? addDirection(values, e.q, 1 / b) : capped(values, amplifiedPure(e.q, 1 / b))
        return E.right(keepPositive(sampled, () => e.q > 0 && b < Infinity))
      }
      const dg = singleLeaf('DiscreteGaussian', e.event, childPath(path, e))
      if (dg !== undefined) {
        const res = resolveLeaf(dg.leaf, ctx.relation, dg.path)
        if (E.isLeft(res)) return res
        const leaf = res.right.leaf as Extract<NormalizedLeaf, { _tag: 'DiscreteGaussian' }>
        // The scalar shift dominates only scalar differences (a vector query with Δ ≥ 2 keeps the general bound).
        if (leaf.scalarShift) {
          if (res.right.note !== undefined) note(ctx, res.right.note)
          const tight = subsampledDiscreteGaussianCurve(os.values, e.q, leaf.sigma, leaf.sensitivity)
          // Exact at every integer order (the reverse direction certified below the forward one):
          // the general bound cannot be smaller beyond rounding, and costs O(α²) at large orders.
          if (!subsampledDiscreteGaussianBounded(e.q, leaf.sigma, leaf.sensitivity))
            return E.right(keepPositive({ values: tight, pureEpsilon: Infinity }, () => e.q > 0 && leaf.sigma < Infinity))
          // Never above the general bound it replaces: where the reverse direction is only bounded
          // (σ ≳ 150) the general bound can be the smaller one; both are sound, so is their minimum.
          const general = sampledGeneral(e.event, os, childPath(path, e), ctx, (_inner, lookup) => ({
            values: poissonGeneralCurve(os.values, e.q, lookup),
            pureEpsilon: Infinity,
          }))
          if (E.isLeft(general)) return general
          const values = new Float64Array(tight.length)
          for (let i = 0; i < values.length; i++) values[i] = Math.min(tight[i] as number, general.right.values[i] as number)
          const both = { values, pureEpsilon: Infinity }
          // Both directions are bounded: the add direction also by its pure ε −log(1 − q).
          return E.right(keepPositive(dir === 'add' ? addDirection(values, e.q, Infinity) : both, () => e.q > 0 && leaf.sigma < Infinity))
        }
      }
      const zhuWang = (c: Context): E.Either<DpError, Curve> =>
        sampledGeneral(e.event, os, childPath(path, e), c, (inner, lookup) => {
          note(c, `${ZHU_WANG_NOTE}: PoissonSample at ${path} (q = ${e.q}) of an event other than one Gaussian, Laplace or scalar discrete Gaussian`)
          const sampled = capped(poissonGeneralCurve(os.values, e.q, lookup, zhuWangMemo(e.q, e.event, c.relation)), amplifiedPure(e.q, inner.pureEpsilon))
          return keepPositive(sampled, (i) => e.q > 0 && lookup(os.values[i] as number) > 0)
        })
      if (dir === undefined) return zhuWang(ctx)
      const oneWay = sampledGeneral(e.event, os, childPath(path, e), ctx, (inner, lookup) => {
        const q = e.q
        note(
          ctx,
          `PoissonSample at ${path} (q = ${q}) under ${dir === 'add' ? 'add-only: the add-direction bound (joint convexity, and −log(1 − q))' : 'remove-only: the remove-direction binomial formula (exact in the inner curve)'}`,
        )
        const sampled =
          dir === 'add'
            ? capped(poissonAddCurve(os.values, q, lookup), addDirectionPure(q, inner.pureEpsilon))
            : capped(poissonRemoveCurve(os.values, q, lookup), amplifiedPure(q, inner.pureEpsilon))
        return keepPositive(sampled, (i) => lookup(os.values[i] as number) > 0)
      })
      if (E.isLeft(oneWay)) return oneWay
      // When the inner event also holds under add/remove, Zhu–Wang's bound for both directions
      // bounds this one too, and can be the smaller (the add-direction bound is loose at small q).
      ctx.addRemove ??= freshContext(addRemove(ctx.relation.unit))
      const both = zhuWang(ctx.addRemove)
      return E.right(E.isLeft(both) ? oneWay.right : lowerOf(oneWay.right, both.right))
    }
    case 'SampleWithoutReplacement': {
      const ok = checkSamplingRelation(e, ctx.relation, path)
      if (E.isLeft(ok)) return ok
      const gamma = e.m / e.n
      if (gamma >= 1) return fold(e.event, os, childPath(path, e), ctx)
      const wg = singleGaussian(e.event, childPath(path, e))
      if (wg !== undefined) {
        // A Gaussian base meets WBK 2019's Definition 26: their Theorem 27 applies.
        const res = resolveLeaf(wg.leaf, ctx.relation, wg.path)
        if (E.isLeft(res)) return res
        if (res.right.note !== undefined) note(ctx, res.right.note)
        const m = (res.right.leaf as { readonly noiseMultiplier: number }).noiseMultiplier
        note(ctx, `${WBK_GAUSSIAN_NOTE}: SampleWithoutReplacement at ${path} (m = ${e.m}, n = ${e.n})`)
        const sampled = { values: withoutReplacementGaussianCurve(os.values, gamma, m), pureEpsilon: Infinity }
        return E.right(keepPositive(sampled, () => gamma > 0 && m < Infinity))
      }
      return sampledGeneral(e.event, os, childPath(path, e), ctx, (inner, lookup) => {
        note(ctx, `${WBK_NOTE}: SampleWithoutReplacement at ${path} (m = ${e.m}, n = ${e.n})`)
        const sampled = capped(
          withoutReplacementCurve(os.values, gamma, lookup, inner.pureEpsilon),
          amplifiedPure(gamma, inner.pureEpsilon),
        )
        return keepPositive(sampled, (i) => gamma > 0 && lookup(os.values[i] as number) > 0)
      })
    }
    case 'RepeatAndSelect': {
      // Papernot & Steinke 2022, Thms 2 and 6 (./repeat-select.ts): the run's curve on this grid and
      // on the default grid (for λ̂, δ̂ and the monotone envelope from larger orders). The theorems use
      // the run's divergence in both directions (a one-directional run can select far above them:
      // ../dp/selection.ts), so under add-only / remove-only the run is read under add/remove.
      const oneWay = ctx.relation.kind === 'add-only' || ctx.relation.kind === 'remove-only'
      if (oneWay) {
        ctx.addRemove ??= freshContext(addRemove(ctx.relation.unit))
        note(ctx, `${path}: repeat-and-select under ${ctx.relation.kind}: each run read under add/remove (the selection theorems need both directions)`)
      }
      const runCtx = oneWay && ctx.addRemove !== undefined ? ctx.addRemove : ctx
      const inner = fold(e.event, os, childPath(path, e), runCtx)
      if (E.isLeft(inner)) return inner
      const wide = fold(e.event, DEFAULT_GRID, childPath(path, e), runCtx)
      if (E.isLeft(wide)) return wide
      if (runCtx !== ctx) for (const n of runCtx.notes) ctx.notes.add(n)
      note(
        ctx,
        `${path}: repeat-and-select (mean ${e.mean} runs, ${e.shape === Infinity ? 'Poisson' : `truncated negative binomial η = ${e.shape}`}) by ` +
          `Papernot & Steinke 2022, ${e.shape === Infinity ? 'Thm 6' : 'Thm 2'}, monotone envelope in α (upper bound)`,
      )
      const values = repeatSelectCurve(
        { orders: os.values, values: inner.right.values, pureEpsilon: inner.right.pureEpsilon },
        { orders: DEFAULT_GRID.values, values: wide.right.values, pureEpsilon: wide.right.pureEpsilon },
        e.mean,
        e.shape,
      )
      return E.right(capped(values, repeatSelectPure(inner.right.pureEpsilon, e.mean, e.shape)))
    }
    case 'TruncatedPoissonSample':
      return E.left(unsupportedEvent(path, 'rdp', e._tag, TRUNCATION_SCOPE))
    case 'WithReplacementSample':
      return E.left(unsupportedEvent(path, 'rdp', e._tag, WITH_REPLACEMENT_SCOPE))
    default:
      return E.left(unsupportedEvent(path, 'rdp', (e as { _tag: string })._tag, 'unknown event'))
  }
}

/**
 * `orders` (ascending, without duplicates) ∪ the integers 2..⌈max⌉, ascending without duplicates,
 * with each integer's index in it (by position: −1 for none) and the other orders' (a small map).
 * One merge into an array allocated once: the default grid's union has 1,066 orders, and building
 * it through two intermediate arrays and a forEach was half of what a cold query of a general
 * subsampling bound allocated (~80 of 170 KB, node inspector sampling heap profile).
 */
const unionWithIntegers = (
  orders: ReadonlyArray<number>,
): { readonly union: ReadonlyArray<number>; readonly integer: Int32Array; readonly fractional: Map<number, number> } => {
  let max = 2
  let size = 0
  for (const a of orders) {
    if (a > max) max = a
    if (!Number.isInteger(a)) size++
  }
  const top = Math.ceil(max)
  size += top - 1
  const union = new Array<number>(size)
  const integer = new Int32Array(top + 1).fill(-1)
  const fractional = new Map<number, number>()
  let i = 0
  let k = 2
  for (let at = 0; at < size; at++) {
    const a = i < orders.length ? (orders[i] as number) : Infinity
    if (k <= a) {
      if (k === a) i++
      integer[k] = at
      union[at] = k++
    } else {
      fractional.set(a, at)
      union[at] = a
      i++
    }
  }
  return { union, integer, fractional }
}

/**
 * The inner curve of a sampling node on the grid ∪ {2, …, ⌈max α⌉} (the general bounds need every
 * integer order up to α), handed to `amplify` as a lookup by order.
 */
const sampledGeneral = (
  inner: PrivacyEvent,
  os: OrderSet,
  innerPath: string,
  ctx: Context,
  amplify: (inner: Curve, lookup: (alpha: number) => number) => Curve,
): E.Either<DpError, Curve> => {
  const { grid, indexOf } = keptOr(UNIONS, os.key, () => {
    // Indexed without hashing ~1,100 doubles: the integers (every one from 2 up is in the union) by
    // position, the grid's other orders by a small map.
    const { union, integer, fractional } = unionWithIntegers(os.values)
    // Keyed off the grid's key (the union is a function of the grid) plus a marker, not by printing
    // its ~1,100 doubles again: a floatsKey has 4 units per double, so a key with 1–3 markers is
    // never one, and one with 4k ends in the bits of ≈ 1.3e-142, never an order (all are > 1).
    return {
      grid: { values: union, key: `${os.key}∪` },
      indexOf: (alpha: number) => (Number.isInteger(alpha) ? (integer[alpha] ?? -1) : (fractional.get(alpha) ?? -1)),
    }
  })
  const c = fold(inner, grid, innerPath, ctx)
  if (E.isLeft(c)) return c
  // Every order asked for is in `union` by construction; ∞ would be the sound answer otherwise.
  const lookup = (alpha: number): number => {
    const i = indexOf(alpha)
    return i < 0 ? Infinity : (c.right.values[i] as number)
  }
  return E.right(amplify(c.right, lookup))
}

/**
 * The RDP curve of `event` under `relation` on `orders` (validated: each finite, 1 < α ≤ 10⁴),
 * sorted ascending without duplicates, with the pure ε that also bounds it and the notes
 * collected (relation conversions, general subsampling bounds).
 */
export const rdpCurveDetailed = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  orders: ReadonlyArray<number>,
  path = '$',
): E.Either<DpError, RdpCurveResult> => {
  const os = validateOrders(orders)
  if (E.isLeft(os)) return os
  const valid = validateEvent(event, path)
  if (E.isLeft(valid)) return valid
  const ctx = freshContext(relation)
  let r: E.Either<DpError, Curve>
  try {
    r = fold(event, orderSet(os.right), path, ctx)
  } catch (err) {
    // Only a tree nested deeper than the JS stack allows gets here (the codec refuses those).
    return E.left(numericFailure(path, `could not fold the event tree: ${String(err)}`))
  }
  if (E.isLeft(r)) return r
  const notes = [...ctx.notes]
  if (ctx.dropped > 0) notes.push(`… ${ctx.dropped} further notes omitted`)
  return E.right({ orders: os.right, curve: r.right.values, pureEpsilon: r.right.pureEpsilon, notes })
}

/**
 * ε(α) of `event` at one real order, validated once: what a continuous search over orders calls a
 * few dozen times. The context (leaf curves, memo) lives as long as the evaluator, so repeated
 * sub-events are folded once per order. A failure at an order is returned as a value.
 */
export type RdpOrderEvaluator = (alpha: number) => E.Either<DpError, number>

export const rdpEvaluator = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  path = '$',
): E.Either<DpError, RdpOrderEvaluator> => {
  const valid = validateEvent(event, path)
  if (E.isLeft(valid)) return valid
  const ctx = freshContext(relation)
  return E.right((alpha) => {
    const os = validateOrders([alpha])
    if (E.isLeft(os)) return os
    try {
      const r = fold(event, orderSet(os.right), path, ctx)
      return E.isLeft(r) ? r : E.right(r.right.values[0] as number)
    } catch (err) {
      return E.left(numericFailure(path, `could not fold the event tree: ${String(err)}`))
    }
  })
}

/**
 * The RDP curve of `event` under `relation`, one value per entry of `orders` (in the order given;
 * duplicates allowed). Errors name the path of the offending sub-event.
 */
export const rdpCurve = (
  event: PrivacyEvent,
  relation: NeighbouringRelation,
  orders: ReadonlyArray<number>,
  path = '$',
): E.Either<DpError, Float64Array> => {
  const r = rdpCurveDetailed(event, relation, orders, path)
  if (E.isLeft(r)) return r
  const at = new Map<number, number>()
  r.right.orders.forEach((a, i) => at.set(a, r.right.curve[i] as number))
  return E.right(Float64Array.from(orders, (a) => at.get(a) as number))
}
