/**
 * The Poisson-subsampled discrete Gaussian (scalar shift): tight RDP at integer orders, in place of
 * Zhu & Wang's general bound (./poisson-general.ts; +12 % to +199 % in ε over this on the issue-26
 * workloads).
 *
 * Pair. The discrete Gaussian on ℤ (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for
 * Differential Privacy"; CKS below) of parameter σ on an integer query of sensitivity Δ, when every
 * neighbouring difference is a multiple of one coordinate vector (`scalarShift`: a scalar query, or
 * Δ = 1), is dominated by P = law of Z + Δ against Q = law of Z (CKS Thm 7 and the log-concavity
 * argument of ../discrete-noise.ts). Under Poisson subsampling at rate q with add/remove neighbours
 * the dominating pairs are (M, Q) and (Q, M) with M = (1 − q)Q + qP (Zhu, Dong & Wang 2022, Poisson
 * subsampling theorem — the pairs the PLD accountant composes, ../pld/pairs.ts); dominance in every
 * hockey-stick divergence implies dominance in D_α (Liese & Vajda 2006, Thm 11, as in
 * ./subsampled-laplace.ts), so ε(α) = max{D_α(M‖Q), D_α(Q‖M)}.
 *
 * Forward, D_α(M‖Q), integer α ≥ 2: with L = P/Q, E_Q[(1 − q + qL)^α] = Σ_k C(α,k)(1−q)^{α−k}q^k E_Q[L^k]
 * (Zhu & Wang 2019's binomial expansion without their factor 3: an equality for this direction of any
 * pair). For integer k and Δ, (1 − k)x² + k(x − Δ)² = (x − kΔ)² − k(k − 1)Δ², so
 *   E_Q[L^k] = e^{k(k−1)Δ²/(2σ²)} · Σ_x e^{−(x−kΔ)²/(2σ²)}/Z(σ) = e^{k(k−1)Δ²/(2σ²)},
 * the sum over ℤ being invariant under the integer shift kΔ: the continuous Gaussian's moment
 * exactly. The forward divergence at integer orders is therefore the sampled continuous Gaussian's
 * with noise multiplier σ/Δ (Mironov, Talwar & Zhang 2019, §3.3), computed by ./subsampled-gaussian.ts.
 * (At fractional orders the two differ: CKS show D_α of the discrete Gaussian is below the
 * continuous one there, so the continuous curve is no lower bound off the integers.)
 *
 * Reverse, D_α(Q‖M): MTZ 2019's proof that it is the smaller direction uses the continuous law of
 * the loss, so here it is computed. With Y = q(L − 1), E_Q[Y] = Σ(P − Q) = 0, so
 *   B − 1 = E_Q[(1 + Y)^{1−α}] − 1 = Σ_{x∈ℤ} Q(x) h(u(x)),  h(u) = φ(βu) − βφ(u) ≥ 0,
 * β = 1 − α, u = log(1 − q + q e^{ℓ(x)}), ℓ(x) = Δ(2x − Δ)/(2σ²), φ(x) = e^x − 1 − x (the kernel of
 * ./subsampled-laplace.ts). The sum runs over x ∈ [−⌈10σ⌉ − 1, Δ + ⌈10σ⌉ + 1], in blocks of
 * consecutive integers: on a block h∘u is largest at an end (u increases with x and h decreases for
 * u < 0, increases for u > 0), so Q's mass on the block × max h bounds the block from above — a block
 * of one integer is its exact term. Blocks are tried coarse to
 * fine (128, 1024, then one per integer when there are at most 2^12, i.e. σ ≲ 150) only until the
 * bound falls below the forward value; past that the bound of 1024 blocks stands (sound, a little
 * above the exact value at large σ). The rest is bounded, never dropped: left of the range h ≤ h(log(1 − q))
 * (h decreases there), so the tail is at most h(log(1 − q))·P(Z < lo); right of it (1 + Y)^{1−α} ≤ 1
 * gives h ≤ (α − 1)Y ≤ (α − 1)qL, and Q(x)L(x) = P(x) = Q(x − Δ), so the tail is at most
 * (α − 1)q·P(Z > hi − Δ) (tails by ../discrete-noise.ts, rounded up). Shortcut:
 * D_α(Q‖M) ≤ D_∞(Q‖M) = −log(1 − q) (L → 0 as x → −∞), so no sum is needed once the forward value
 * passes it.
 *
 * Fractional orders: the convex chord of the cumulant between integers (./integer-orders.ts; the max
 * of the two directions' cumulants is convex). The curve is capped by the unsampled discrete
 * Gaussian's α/(2(σ/Δ)²) (CKS Prop. 5; subsampling never hurts: joint quasi-convexity). Checked
 * against 50-digit mpmath sums over ℤ of both directions (test/accounting/rdp/subsampled-discrete-gaussian.test.ts).
 *
 * @module
 */
import { roundUpLoss } from '../../core/numeric.js'
import { discreteGaussianLogNormalizer, discreteGaussianPmf, discreteGaussianTail } from '../discrete-noise.js'
import { gaussianRdp } from './closed-forms.js'
import { fromIntegerOrders } from './integer-orders.js'
import { hReverse } from './log-space.js'
import { kept, keptOr } from './kept.js'
import { makeSampledGaussian, type SampledGaussian } from './subsampled-gaussian.js'

/** Relative margin on the reverse sums (pmf terms ≲ 1e-13 relative, the sums' rounding below that). */
export const SUBSAMPLED_DISCRETE_GAUSSIAN_MARGIN = 1e-11

/** Half-width of the summed range in units of σ: P(|Z| > 10σ) < 2e-23, so the tail bounds are negligible. */
const RANGE_SIGMAS = 10

/** Block counts tried for the reverse sum, coarse to fine; one block per integer is the last try, up to this many integers. */
const BLOCK_COUNTS = [128, 1024] as const
const MAX_EXACT_TERMS = 2 ** 12
/**
 * Past this many integers in the range (σ ≳ 5·10⁴) the blocks' masses are not summed: the reverse
 * direction is bounded by D_∞(Q‖M) = −log(1 − q) alone (and the caller's minimum with the general
 * bound keeps the answer no worse than before).
 */
const MAX_RANGE = 2 ** 20

/** The blocks of one partition of the summed range: per block, Q's mass and u at both ends. */
interface Blocks {
  readonly weight: Float64Array
  /** log of count × max Q, for blocks whose h would overflow. */
  readonly logWeight: Float64Array
  readonly uLo: Float64Array
  readonly uHi: Float64Array
}

/** What the reverse sums need that does not depend on α, for one (q, σ, Δ). */
interface Reverse {
  readonly lo: number
  readonly hi: number
  /** P(Z < lo) and P(Z > hi − Δ), rounded up. */
  readonly leftTail: number
  readonly rightTail: number
  readonly partitions: Map<number, Blocks>
}

const makeReverse = (q: number, sigma: number, delta: number): Reverse => {
  const logZ = discreteGaussianLogNormalizer(sigma)
  const half = Math.ceil(RANGE_SIGMAS * sigma) + 1
  const lo = -half
  const hi = delta + half
  return {
    lo,
    hi,
    leftTail: discreteGaussianTail(sigma, logZ, half),
    rightTail: discreteGaussianTail(sigma, logZ, half),
    partitions: new Map(),
  }
}

const blocksOf = (r: Reverse, q: number, sigma: number, delta: number, count: number): Blocks => {
  const hit = r.partitions.get(count)
  if (hit !== undefined) return hit
  const logZ = discreteGaussianLogNormalizer(sigma)
  const n = r.hi - r.lo + 1
  const width = Math.ceil(n / count)
  const blocks = Math.ceil(n / width)
  const weight = new Float64Array(blocks)
  const logWeight = new Float64Array(blocks)
  const uLo = new Float64Array(blocks)
  const uHi = new Float64Array(blocks)
  const inv = delta / (2 * sigma * sigma)
  const lq = Math.log(q)
  const l1q = Math.log1p(-q)
  // u = log(1 − q + q e^ℓ), accurately for small q (as ../pld/pairs.ts's mixLoss)
  const uAt = (x: number): number => {
    const l = inv * (2 * x - delta)
    const y = q * Math.expm1(l)
    return y < Infinity ? Math.log1p(y) : l + lq + Math.log1p(Math.exp(l1q - lq - l))
  }
  for (let b = 0; b < blocks; b++) {
    const a = r.lo + b * width
    const e = Math.min(r.hi, a + width - 1)
    // Q's mass on the block (a sum of positive terms, exact to its rounding, which the margin covers)
    let mass = 0
    for (let x = a; x <= e; x++) mass += discreteGaussianPmf(sigma, logZ, x)
    const nearest = a > 0 ? a : e < 0 ? e : 0
    weight[b] = mass
    // for the overflow branch: log of count × max Q ≥ log of the mass
    logWeight[b] = Math.log(e - a + 1) - (nearest * nearest) / (2 * sigma * sigma) - logZ
    uLo[b] = uAt(a)
    uHi[b] = uAt(e)
  }
  const out = { weight, logWeight, uLo, uHi }
  r.partitions.set(count, out)
  return out
}

/** An upper bound on B − 1 of the reverse direction at integer α with the given partition. */
const reverseUpper = (r: Reverse, blocks: Blocks, q: number, alpha: number): number => {
  // h is largest left of 0 at u = log(1 − q); where that overflows, no finite bound comes from the sum.
  const hLeft = hReverse(Math.log1p(-q), alpha)
  if (!(hLeft < Infinity)) return Infinity
  let sum = hLeft * r.leftTail + (alpha - 1) * q * r.rightTail
  const { weight, logWeight, uLo, uHi } = blocks
  for (let b = 0; b < weight.length; b++) {
    const u = Math.max(uLo[b] as number, uHi[b] as number)
    // Past u = 600, h ≤ (α − 1)(e^u + |u|) ≤ 2(α − 1)e^u, multiplied in logs (Q is tiny there).
    const a = uLo[b] as number
    sum +=
      u > 600
        ? 2 * (alpha - 1) * Math.exp((logWeight[b] as number) + u)
        : (weight[b] as number) * (a === u ? hReverse(u, alpha) : Math.max(hReverse(a, alpha), hReverse(u, alpha)))
  }
  return sum * (1 + SUBSAMPLED_DISCRETE_GAUSSIAN_MARGIN)
}

/** How an integer order's value was obtained. */
export type SubsampledDiscreteGaussianMethod = 'exact' | 'reverse bound'

/** The per-(q, σ, Δ) work: the forward sampled Gaussian and the reverse tables, built on demand. */
export interface SubsampledDiscreteGaussianMemo {
  readonly values: Map<number, { readonly rdp: number; readonly method: SubsampledDiscreteGaussianMethod }>
  forward?: SampledGaussian
  reverse?: Reverse
}

/**
 * The memo of one (q, σ, Δ), shared across folds and accountants (a pure function of its key, like
 * the reverse nodes of ./subsampled-laplace.ts): a calibration or a benchmark asks for the same
 * mechanism again and again. At most 64 are kept.
 */
const MEMOS = kept<SubsampledDiscreteGaussianMemo>(64)
export const subsampledDiscreteGaussianMemo = (q: number, sigma: number, delta: number): SubsampledDiscreteGaussianMemo =>
  keptOr(MEMOS, `${q}|${sigma}|${delta}`, () => ({ values: new Map() }))

/**
 * ε(α) of the Poisson-subsampled scalar discrete Gaussian (rate 0 < q < 1, σ finite, Δ a positive
 * integer) at an integer α ≥ 2: the exact forward divergence, or the reverse upper bound when that
 * is larger.
 */
export const subsampledDiscreteGaussianIntegerRdp = (
  q: number,
  sigma: number,
  delta: number,
  alpha: number,
  memo: SubsampledDiscreteGaussianMemo = subsampledDiscreteGaussianMemo(q, sigma, delta),
): { readonly rdp: number; readonly method: SubsampledDiscreteGaussianMethod } => {
  const hit = memo.values.get(alpha)
  if (hit !== undefined) return hit
  memo.forward ??= makeSampledGaussian(q, sigma / delta)
  const forward = memo.forward.rdp(alpha).rdp
  const reverseInf = -Math.log1p(-q)
  let out: { readonly rdp: number; readonly method: SubsampledDiscreteGaussianMethod } = { rdp: forward, method: 'exact' }
  if (forward < reverseInf) {
    const n = delta + 2 * Math.ceil(RANGE_SIGMAS * sigma) + 3
    if (memo.reverse === undefined && n <= MAX_RANGE) memo.reverse = makeReverse(q, sigma, delta)
    const r = memo.reverse
    const counts = r === undefined ? [] : n <= MAX_EXACT_TERMS ? [...BLOCK_COUNTS.filter((c) => c < n), n] : [...BLOCK_COUNTS]
    let reverse = Infinity
    for (const c of counts) {
      reverse = Math.log1p(reverseUpper(r as Reverse, blocksOf(r as Reverse, q, sigma, delta, c), q, alpha)) / (alpha - 1)
      if (reverse <= forward) break
    }
    if (reverse > forward) out = { rdp: roundUpLoss(Math.min(reverse, reverseInf), SUBSAMPLED_DISCRETE_GAUSSIAN_MARGIN), method: 'reverse bound' }
  }
  memo.values.set(alpha, out)
  return out
}

/**
 * The Poisson-subsampled scalar discrete Gaussian's curve on `orders` (add/remove), capped by the
 * unsampled curve; q ≥ 1 gives the unsampled curve, q ≤ 0 or σ = ∞ zero.
 */
export const subsampledDiscreteGaussianCurve = (
  orders: ReadonlyArray<number>,
  q: number,
  sigma: number,
  delta: number,
  memo: SubsampledDiscreteGaussianMemo = subsampledDiscreteGaussianMemo(q, sigma, delta),
): Float64Array => {
  const out = new Float64Array(orders.length)
  if (!(q > 0) || sigma === Infinity) return out
  const unsampled = (a: number): number => roundUpLoss(gaussianRdp(sigma / delta, a), 1e-13)
  if (q >= 1) {
    for (let i = 0; i < orders.length; i++) out[i] = unsampled(orders[i] as number)
    return out
  }
  const bound = fromIntegerOrders(orders, (n) => subsampledDiscreteGaussianIntegerRdp(q, sigma, delta, n, memo).rdp)
  for (let i = 0; i < orders.length; i++) out[i] = Math.min(bound[i] as number, unsampled(orders[i] as number))
  return out
}

/** Whether some integer order computed so far for (q, σ, Δ) has only the reverse bound (not the exact value). */
export const subsampledDiscreteGaussianBounded = (q: number, sigma: number, delta: number): boolean => {
  for (const v of subsampledDiscreteGaussianMemo(q, sigma, delta).values.values()) if (v.method === 'reverse bound') return true
  return false
}
