/**
 * Composition of PLDs by FFT: the PLD of a composition is the convolution of the factors' PLDs
 * (independent losses add; Sommer, Meiser & Mohammadi 2019; Koskela, Jälkö & Honkela 2020,
 * "Computing tight differential privacy guarantees using FFT"), computed as the product of their
 * discrete Fourier transforms, each raised to its repetition count by repeated squaring per
 * frequency (self-composition), then read back (Koskela et al. 2020; Gopi, Lee & Wutschitz 2021,
 * "Numerical composition of differential privacy").
 *
 * The window. A cyclic convolution of length N folds every mass outside an N-point window back
 * into it. The window is chosen from Chernoff bounds on the composed loss (as dp_accounting does):
 * for any t > 0, P(S ≥ u) ≤ exp(Σ_f n_f Λ_f(t) − t u) and P(S ≤ l) ≤ exp(Σ_f n_f Λ_f(−t) + t l),
 * with Λ_f the log moment-generating function of factor f in grid units; N is the next power of
 * two, and the bounds at the final window's ends are kept as `truncatedMass` (added to δ for the
 * upper estimate, subtracted for the lower — see ./queries.ts). When the exact support fits, no
 * mass is truncated at all.
 *
 * The Chernoff order is searched on a grid of 19 orders with cheap block bounds, then the bound is
 * evaluated exactly at the best order: the best order of a subsampled mechanism
 * with rare large losses is far from the one a variance estimate would suggest.
 *
 * Several channels (remove/add direction × upper/lower estimate) share the window length and are
 * transformed two at a time (one complex FFT carries two real signals). When every factor lives on
 * a coarser lattice of the grid (randomized response and stated guarantees live on multiples of
 * ε), the composition runs on that lattice — the same sums, a much shorter FFT. After a long
 * composition only a few hundred frequencies survive the powers; the result is then read through
 * the spectral view (./spectral.ts) instead of an inverse FFT.
 *
 * Floating point. The forward FFT's error is ‖ΔX‖₂ ≤ log₂N·η·‖X‖₂ with η ≈ 6.7u for radix-2/4
 * schemes with accurate twiddles (Higham 2002, Thm 24.2), i.e. an rms per-bin error
 * ρ = log₂N·η·‖x‖₂ (taken with η = 8u; this spreads the normwise bound evenly over the bins — a
 * modelling assumption, not a worst case); raising to the n-th power turns it into at most (|X| + ρ)^n − |X|^n per bin,
 * and by Parseval a spectral error ΔC_k moves δ by at most Σ_k |ΔC_k|·min(1, 2/(N sin(πk/N)))
 * (the weight bounds the DFT of the monotone, [0, 1]-valued hockey-stick weights). The inverse
 * FFT adds at most log₂N·η·‖C‖₂ in ℓ₁ (Higham's bound and Cauchy–Schwarz). This first-order model
 * is kept as `fpError` and widens both estimates.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type { DpError } from '../../core/error.js'
import { committedDelta } from '../committed-delta.js'
import type { LeafPld } from './discretize.js'
import { fftPlan, inversePair } from './fft.js'
import { checkGridSize, MAX_GRID_POINTS, nextPow2 } from './limits.js'
import type { ComposedPld } from './queries.js'
import { spectralView } from './spectral.js'
import { denseView } from './view.js'

const U = Number.EPSILON / 2
const ETA = 8 * U

/** One factor of a composition: its PLD in every channel, and how many times it is composed. */
export interface Factor {
  readonly plds: ReadonlyArray<LeafPld>
  readonly count: number
}

const identity = (h: number): ComposedPld => ({
  interval: h,
  start: 0,
  shift: 0,
  view: denseView(Float64Array.of(1), h),
  infinityMass: 0,
  truncatedMass: 0,
  fpError: 0,
})

const allInfinite = (h: number): ComposedPld => ({
  interval: h,
  start: 0,
  shift: 0,
  view: denseView(new Float64Array(1), h),
  infinityMass: 1,
  truncatedMass: 0,
  fpError: 0,
})

/**
 * 1 − Π_f (1 − ω_f)^{n_f} with rigorous rounding (./committed-delta.ts), so a δ on the boundary
 * (all finite losses ≤ ε) is answered exactly (issue 26). Channels alternate upper and lower
 * estimates (./build.ts): an upper channel reads the sure upper bound, a lower one a sure lower bound.
 */
const composedInfinity = (factors: ReadonlyArray<Factor>, ch: number): number =>
  committedDelta(
    factors.map((f) => ({ delta: Math.min(1, (f.plds[ch] as LeafPld).infinityMass), count: f.count })),
    ch % 2 === 0 ? 'upper' : 'lower',
  )

// -------------------------------------------------------------------------------------------
// Chernoff window
// -------------------------------------------------------------------------------------------

/** Log moment-generating function log Σ_j m_j e^{t·(offset + j)} of a leaf PLD (grid units). */
export const logMgf = (pld: LeafPld, t: number): number => {
  const m = pld.masses
  const n = m.length
  if (n === 0) return -Infinity
  const step = Math.exp(-Math.abs(t))
  let s = 0
  let cur = 1
  if (t >= 0) {
    for (let j = n - 1; j >= 0; j--) {
      s += m[j]! * cur
      cur *= step
      if (cur < 1e-300) {
        s += cur // the rest weighs at most cur × (mass ≤ 1): keeps the bound an upper bound
        break
      }
    }
    return t * (pld.offset + n - 1) + Math.log(s)
  }
  for (let j = 0; j < n; j++) {
    s += m[j]! * cur
    cur *= step
    if (cur < 1e-300) {
      s += cur
      break
    }
  }
  return t * pld.offset + Math.log(s)
}

/**
 * Block sums of a leaf PLD (B consecutive grid points each) for a cheap search of the Chernoff
 * order: Σ_j m_j e^{tj} ≤ Σ_blocks (Σ m) e^{t·(block's last index)} for t > 0 (first index for
 * t < 0) — an upper bound, loose by at most e^{|t|B} per step, used only to pick t; the bound
 * itself is then evaluated exactly at the picked orders.
 */
const BLOCK = 16

interface Blocked {
  readonly offset: number
  readonly sums: Float64Array
}

const blockSums = (pld: LeafPld): Blocked => {
  const m = pld.masses
  const sums = new Float64Array(Math.ceil(m.length / BLOCK))
  for (let j = 0; j < m.length; j++) {
    const b = (j / BLOCK) | 0
    sums[b] = sums[b]! + m[j]!
  }
  return { offset: pld.offset, sums }
}

/** Upper bound on the log-MGF from block sums (see `blockSums`). */
const blockLogMgf = (b: Blocked, t: number): number => {
  const s0 = b.sums
  const n = s0.length
  if (n === 0) return -Infinity
  const step = Math.exp(-Math.abs(t) * BLOCK)
  let s = 0
  let cur = 1
  if (t >= 0) {
    for (let j = n - 1; j >= 0; j--) {
      s += s0[j]! * cur
      cur *= step
      if (cur < 1e-300) {
        s += cur
        break
      }
    }
    return t * (b.offset + n * BLOCK - 1) + Math.log(s)
  }
  for (let j = 0; j < n; j++) {
    s += s0[j]! * cur
    cur *= step
    if (cur < 1e-300) {
      s += cur
      break
    }
  }
  return t * b.offset + Math.log(s)
}

/** Candidate orders, in loss units (t = λ·h in grid units): 10^{−1.5}, 10^{−1.25}, …, 10^{3}. */
const LAMBDAS: ReadonlyArray<number> = Array.from({ length: 19 }, (_, i) => 10 ** (-1.5 + 0.25 * i))

interface ChannelMgf {
  /** Σ_f n_f Λ_f(t) at the orders tsUp (t > 0) and Σ_f n_f Λ_f(−t) at tsDown, exactly. */
  readonly tsUp: ReadonlyArray<number>
  readonly up: ReadonlyArray<number>
  readonly tsDown: ReadonlyArray<number>
  readonly down: ReadonlyArray<number>
  /** Exact support of the composed finite part, in grid units. */
  readonly smin: number
  readonly smax: number
}

/**
 * Chernoff orders for one channel: a cheap search over LAMBDAS with block bounds (light and heavy
 * tails alike — the best order of a subsampled mechanism with rare large losses is far from the
 * variance-based one), then the exact log-MGF at the best order of each side.
 */
const channelMgf = (factors: ReadonlyArray<Factor>, ch: number, h: number, tail: number): ChannelMgf => {
  let smin = 0
  let smax = 0
  const blocks: Blocked[] = []
  for (const f of factors) {
    const pld = f.plds[ch] as LeafPld
    smin += f.count * pld.offset
    smax += f.count * (pld.offset + pld.masses.length - 1)
    blocks.push(blockSums(pld))
  }
  const lt = Math.log(tail)
  let bestUp = 0
  let bestDown = 0
  let hiBest = Infinity
  let loBest = -Infinity
  for (let i = 0; i < LAMBDAS.length; i++) {
    const t = (LAMBDAS[i] as number) * h
    let u = 0
    let d = 0
    for (let k = 0; k < factors.length; k++) {
      const n = (factors[k] as Factor).count
      u += n * blockLogMgf(blocks[k] as Blocked, t)
      d += n * blockLogMgf(blocks[k] as Blocked, -t)
    }
    const hi = (u - lt) / t
    const lo = -(d - lt) / t
    if (hi < hiBest) {
      hiBest = hi
      bestUp = i
    }
    if (lo > loBest) {
      loBest = lo
      bestDown = i
    }
  }
  const tsUp = [(LAMBDAS[bestUp] as number) * h]
  const tsDown = [(LAMBDAS[bestDown] as number) * h]
  const exact = (ts: ReadonlyArray<number>, sign: number): number[] =>
    ts.map((t) => {
      let s = 0
      for (const f of factors) s += f.count * logMgf(f.plds[ch] as LeafPld, sign * t)
      return s
    })
  return { tsUp, up: exact(tsUp, 1), tsDown, down: exact(tsDown, -1), smin, smax }
}

/** The narrowest [lo, hi] (grid units) leaving at most `tail` mass beyond each end. */
const chernoffBounds = (g: ChannelMgf, tail: number): { readonly lo: number; readonly hi: number } => {
  const lt = Math.log(tail)
  let hi = Infinity
  let lo = -Infinity
  g.tsUp.forEach((t, i) => {
    hi = Math.min(hi, Math.ceil(((g.up[i] as number) - lt) / t))
  })
  g.tsDown.forEach((t, i) => {
    lo = Math.max(lo, Math.floor(-((g.down[i] as number) - lt) / t))
  })
  return { lo: Math.max(lo, g.smin), hi: Math.min(hi, g.smax) }
}

/** Chernoff bound on the composed mass outside [lo, hi]. */
const outsideMass = (g: ChannelMgf, lo: number, hi: number): number => {
  let above = hi >= g.smax ? 0 : Infinity
  let below = lo <= g.smin ? 0 : Infinity
  g.tsUp.forEach((t, i) => {
    if (above > 0) above = Math.min(above, Math.exp((g.up[i] as number) - t * (hi + 1)))
  })
  g.tsDown.forEach((t, i) => {
    if (below > 0) below = Math.min(below, Math.exp((g.down[i] as number) + t * (lo - 1)))
  })
  return Math.min(1, (above + below) * (1 + 1e-9))
}

// -------------------------------------------------------------------------------------------
// composition
// -------------------------------------------------------------------------------------------

/**
 * Per-bin state of one channel while factors are multiplied in. With several factors the error
 * bound needs per-bin magnitudes; with one, its contribution is summed as the power is taken.
 */
interface Accumulator {
  readonly re: Float64Array
  readonly im: Float64Array
  /** Π_f |X_f^{n_f}| and Π_f (|X_f,k| + ρ_f)^{n_f} (several factors only). */
  readonly mag: Float64Array | undefined
  readonly magErr: Float64Array | undefined
  /** Zeroed bins (several factors only): they stay zero. */
  readonly dead: Uint8Array | undefined
  /** No factor multiplied in yet. */
  fresh: boolean
  /** Σ_k ΔC_k·weight_k, for a single factor. */
  specErr: number
  /** Σ_k (bound on |C_k|)·weight_k over the bins dropped below the negligible level (`EARLY_SHARE`). */
  early: number
}

const newAccumulator = (re: Float64Array, im: Float64Array, several: boolean): Accumulator => {
  const half = re.length
  return {
    re,
    im,
    mag: several ? new Float64Array(half) : undefined,
    magErr: several ? new Float64Array(half) : undefined,
    dead: several ? new Uint8Array(half) : undefined,
    fresh: true,
    specErr: 0,
    early: 0,
  }
}

/** Weight of bin k in the Parseval bound: min(1, 2/(N sin(πk/N))), times 2 for the conjugate bin. */
const binWeight = (k: number, n: number): number =>
  k === 0 ? 1 : (2 * k === n ? 1 : 2) * Math.min(1, 2 / (n * Math.sin((Math.PI * k) / n)))

/**
 * binWeight(k, n) for k = 0 … n/2 and their sum (about (4/π)·ln n, rounded up), kept for the last
 * window length (one sine per bin, once).
 */
let weights: { readonly n: number; readonly w: Float64Array; readonly sum: number } | undefined
const binWeightsAndSum = (n: number): { readonly w: Float64Array; readonly sum: number } => {
  if (weights !== undefined && weights.n === n) return weights
  const w = new Float64Array(n / 2 + 1)
  let sum = 0
  for (let k = 0; k <= n / 2; k++) {
    w[k] = binWeight(k, n)
    sum += w[k]!
  }
  weights = { n, w, sum: sum * (1 + 1e-9) }
  return weights
}
const binWeights = (n: number): Float64Array => binWeightsAndSum(n).w

/**
 * The negligible level of a channel's bins. A bin whose exact |C_k| is at most θ moves δ by at
 * most θ·w_k when it is dropped (the Parseval bound of the module note), and all such bins together
 * by at most θ·Σ_k w_k; with θ = EARLY_SHARE·log₂N·η·|C_0| / Σ_k w_k that is a thousandth of the
 * inverse FFT's error bound log₂N·η·‖C‖₂ (‖C‖₂ ≥ |C_0|), which every answer carries anyway. So the
 * powers are taken only for bins that can matter — after 1,000 steps, those with |X| above
 * θ^{1/1000} ≈ 0.96 instead of e^{−0.69} ≈ 0.5 — and the bound of the dropped ones is charged in
 * `fpError` (`early`). |C_0| = Π_f (Σ masses_f)^{n_f} (the masses are non-negative) is only used to
 * pick θ, so its rounding does not matter.
 */
const EARLY_SHARE = 1e-3

/**
 * Multiplies X^n (bin by bin, repeated squaring) into the accumulator; bins where (|X| + ρ)^n is
 * below e^{−690}, or whose bound on the final |C_k| is at most `theta` (`EARLY_SHARE`; `rest` bounds
 * the factors still to come), are set to zero for good, the latter with their bound charged to
 * `early`. Returns the number of bins still nonzero.
 */
const multiplyPower = (
  acc: Accumulator,
  xr: Float64Array,
  xi: Float64Array,
  n: number,
  rho: number,
  size: number,
  theta: number,
  rest: number,
): number => {
  const half = xr.length
  // (|X| + ρ)^n < e^{−690}  ⇐  |X|² < cut² with cut = e^{−690/n} − ρ
  const cut = n >= 2 ? Math.exp(-690 / n) - rho : -1
  const cut2 = cut > 0 ? cut * cut : -1
  const { re, im, mag, magErr, dead } = acc
  const weight = binWeights(size)
  // One factor: (|X| + ρ)^n ≤ θ  ⇐  |X|² ≤ cutE² with cutE = θ^{1/n} − ρ (the power rounded down: 1 − 1e-12).
  const cutE = mag === undefined && n >= 2 && theta > 0 ? Math.pow(theta, 1 / n) * (1 - 1e-12) - rho : -1
  const cutE2 = cutE > 0 ? cutE * cutE : -1
  const fresh = acc.fresh
  acc.fresh = false
  let alive = 0
  let specErr = 0
  let early = 0
  for (let k = 0; k < half; k++) {
    if (!fresh && dead !== undefined && dead[k] === 1) continue
    let ar = xr[k]!
    let ai = xi[k]!
    const abs2 = ar * ar + ai * ai
    if (abs2 <= cutE2) {
      re[k] = 0
      im[k] = 0
      early += theta * weight[k]!
      continue
    }
    if (abs2 < cut2) {
      re[k] = 0
      im[k] = 0
      if (dead !== undefined) dead[k] = 1
      continue
    }
    const absX = Math.sqrt(abs2)
    let pr: number
    let pi: number
    if (n === 1) {
      pr = ar
      pi = ai
    } else {
      // X^n by repeated squaring.
      pr = 1
      pi = 0
      let e = n
      for (;;) {
        if (e & 1) {
          const t = pr * ar - pi * ai
          pi = pr * ai + pi * ar
          pr = t
        }
        e = Math.floor(e / 2)
        if (e === 0) break
        const t = ar * ar - ai * ai
        ai = 2 * ar * ai
        ar = t
      }
    }
    const bound = absX + rho
    // |X|^n: by a power where several factors' magnitudes are multiplied (./compose.ts bound), else
    // only the scale of the error term, read off the computed X^n (relative error ~1e-14, covered).
    const mp = n === 1 ? absX : mag !== undefined ? Math.pow(absX, n) : Math.sqrt(pr * pr + pi * pi) * (1 + 1e-9)
    if (fresh) {
      re[k] = pr
      im[k] = pi
    } else {
      const cr = re[k]!
      const ci = im[k]!
      re[k] = cr * pr - ci * pi
      im[k] = cr * pi + ci * pr
    }
    if (mag !== undefined && magErr !== undefined) {
      const mb = n === 1 ? bound : Math.pow(bound, n)
      mag[k] = fresh ? mp : mag[k]! * mp
      magErr[k] = fresh ? mb : magErr[k]! * mb
      const b = magErr[k]! * rest
      if (b <= theta && dead !== undefined) {
        re[k] = 0
        im[k] = 0
        dead[k] = 1
        early += b * weight[k]!
        continue
      }
    } else {
      // (|X| + ρ)^n − |X|^n = |X|^n((1 + ρ/|X|)^n − 1) ≤ |X|^n (e^y − 1) ≤ |X|^n·y/(1 − y), y = nρ/|X| < 1:
      // one power instead of two where the bound applies (every bin that matters: y ≈ 1e-11).
      const y = (n * rho) / absX
      const err = n > 1 && y < 0.5 ? ((mp * y) / (1 - y)) * (1 + 1e-12) : (n === 1 ? bound : Math.pow(bound, n)) - mp
      specErr += err * weight[k]!
    }
    alive++
  }
  acc.specErr += specErr
  acc.early += early * (1 + 1e-9)
  return alive
}

/**
 * Splits the transform z of two packed real signals (x in the real lane, y in the imaginary one)
 * into their half spectra: X_k = (Z_k + conj Z_{N−k})/2, Y_k = (Z_k − conj Z_{N−k})/(2i).
 */
const split = (z: Float64Array, n: number, xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array): void => {
  for (let k = 0; k <= n / 2; k++) {
    const j = k === 0 ? 0 : n - k
    const a = z[2 * k]!
    const b = z[2 * k + 1]!
    const c = z[2 * j]!
    const d = z[2 * j + 1]!
    xr[k] = 0.5 * (a + c)
    xi[k] = 0.5 * (b - d)
    yr[k] = 0.5 * (b + d)
    yi[k] = 0.5 * (c - a)
  }
}

/** Σ_k ΔC_k · min(1, 2/(N sin(πk/N))) over the full spectrum, from the half spectrum. */
const spectralErrorBound = (acc: Accumulator, n: number): number => {
  const { mag, magErr, dead } = acc
  if (mag === undefined || magErr === undefined || dead === undefined) return acc.specErr * (1 + 1e-6)
  let s = 0
  for (let k = 0; k <= n / 2; k++) {
    if (dead[k] === 1) continue
    const d = magErr[k]! - mag[k]!
    if (d > 0) s += d * binWeight(k, n)
  }
  return s * (1 + 1e-6)
}

/**
 * Scratch buffers for one window length, reused across compositions (nothing returned refers to
 * them); kept only for lengths up to 2^19.
 */
interface Scratch {
  readonly n: number
  readonly data: Float64Array
  readonly work: Float64Array
  readonly half: ReadonlyArray<Float64Array>
}
let scratchPool: Scratch | undefined
const scratchFor = (n: number): Scratch => {
  if (scratchPool !== undefined && scratchPool.n === n) return scratchPool
  const half = n / 2 + 1
  const s: Scratch = {
    n,
    data: new Float64Array(2 * n),
    work: new Float64Array(2 * n),
    half: Array.from({ length: 8 }, () => new Float64Array(half)),
  }
  scratchPool = n <= 2 ** 19 ? s : undefined
  return s
}

/** ‖C‖₂ over the full spectrum. */
const spectrumNorm = (acc: Accumulator, n: number): number => {
  let s = 0
  const half = n / 2
  for (let k = 0; k <= half; k++) {
    const m2 = acc.re[k]! * acc.re[k]! + acc.im[k]! * acc.im[k]!
    s += (k === 0 || k === half ? 1 : 2) * m2
  }
  return Math.sqrt(s)
}

/** Σ m_j and ‖m‖₂ of a leaf's masses, in one pass. */
const sumAndL2 = (m: Float64Array): { readonly sum: number; readonly l2: number } => {
  let s = 0
  let s2 = 0
  for (let j = 0; j < m.length; j++) {
    s += m[j]!
    s2 += m[j]! * m[j]!
  }
  return { sum: s, l2: Math.sqrt(s2) }
}

/** Few enough live bins for the spectral view (each query then costs O(bins) instead of O(N)). */
const isSparse = (alive: number, n: number): boolean => alive <= Math.max(64, n / 64)

/**
 * Sparse at the scale of the error terms. A spectrum the e^{−690} cut leaves dense can still be
 * negligible almost everywhere at the scale of the floating-point error the dense read-out charges
 * anyway: after 1,000 steps of a Poisson-subsampled discrete Gaussian (isolated atoms, whose
 * spectrum does not fall with frequency as a smooth loss's does) about 12,000 of 32,769 bins pass
 * the cut and fewer than 100 exceed 1e-20. The dense read-out charges log₂N·η·‖C‖₂ for its inverse
 * FFT (Higham's bound, see the module note); the spectral read-out has no inverse FFT and spends
 * that same charge on dropping bins instead: dropping bin k moves δ by at most |C_k|·w_k with C_k
 * the exact value (the Parseval bound of the module note, w_k = `binWeight`), and bins are dropped
 * only while those bounds add up to at most what is left of the charge after the bins already
 * dropped below the negligible level (`EARLY_SHARE`; each at most that rest over the bins alive).
 * The answer keeps the whole charge in `fpError` (or the negligible bins' bound, if larger), so its
 * error terms are the dense read-out's but for the view's own rounding bound, and each query costs
 * O(kept bins) instead of an inverse FFT and O(N) suffix sums.
 *
 * Bound on the exact |C_k|: Π_f (|X_f,k| + ρ_f)^{n_f} with several factors (`magErr`); with one,
 * the computed |C_k| (relative error ≲ 1e-13, covered by the factor 1 + 1e-9) plus its error
 * bound, which `specErr` already holds for every bin kept so far.
 */
const PRUNE_MARGIN = 1 + 1e-9

/** Weighted bound |C_k|·w_k on what dropping bin k can move δ by (see above). */
const droppedBound = (acc: Accumulator, k: number, w: Float64Array): number => {
  if (acc.magErr !== undefined) return acc.magErr[k]! * w[k]!
  const r = acc.re[k]!
  const i = acc.im[k]!
  return Math.sqrt(r * r + i * i) * PRUNE_MARGIN * w[k]!
}

/** Number of bins kept when dropping those whose bound is at most `cut` (bins already zero stay dropped). */
const keptAbove = (acc: Accumulator, n: number, cut: number): number => {
  const w = binWeights(n)
  let kept = 0
  for (let k = 0; k <= n / 2; k++) {
    if (acc.re[k] === 0 && acc.im[k] === 0) continue
    if (acc.dead !== undefined && acc.dead[k] === 1) continue
    if (droppedBound(acc, k, w) > cut) kept++
  }
  return kept
}

/** Zeroes (and marks dead) the bins whose bound is at most `cut`. */
const dropBelow = (acc: Accumulator, n: number, cut: number): void => {
  const w = binWeights(n)
  for (let k = 0; k <= n / 2; k++) {
    if (acc.re[k] === 0 && acc.im[k] === 0) continue
    if (acc.dead !== undefined && acc.dead[k] === 1) continue
    if (droppedBound(acc, k, w) > cut) continue
    acc.re[k] = 0
    acc.im[k] = 0
    if (acc.dead !== undefined) acc.dead[k] = 1
  }
}

/** The nonzero bins of a half spectrum. */
const sparseBins = (acc: Accumulator, n: number, alive: number): { bins: Int32Array; re: Float64Array; im: Float64Array } => {
  const half = n / 2
  // `alive` counts the bins multiplyPower kept; a kept bin can still be exactly 0 only by underflow.
  let count = alive
  if (!(count >= 0 && count <= half + 1)) {
    count = 0
    for (let k = 0; k <= half; k++) if (acc.re[k] !== 0 || acc.im[k] !== 0) count++
  }
  const bins = new Int32Array(count)
  const re = new Float64Array(count)
  const im = new Float64Array(count)
  let b = 0
  for (let k = 0; k <= half && b < count; k++)
    if (acc.re[k] !== 0 || acc.im[k] !== 0) {
      bins[b] = k
      re[b] = acc.re[k]!
      im[b] = acc.im[k]!
      b++
    }
  return b === count ? { bins, re, im } : { bins: bins.subarray(0, b), re: re.subarray(0, b), im: im.subarray(0, b) }
}

/** a mod n in [0, n). */
const mod = (a: number, n: number): number => ((a % n) + n) % n

/**
 * Places a leaf PLD cyclically, at its absolute grid indices mod n, into a real or imaginary lane
 * (0 or 1) of an interleaved array; the composed loss index S then sits at S mod n.
 */
const place = (data: Float64Array, lane: number, pld: LeafPld, n: number): void => {
  const m = pld.masses
  let pos = mod(pld.offset, n)
  for (let j = 0; j < m.length; j++) {
    data[2 * pos + lane] = data[2 * pos + lane]! + m[j]!
    pos++
    if (pos === n) pos = 0
  }
}

const gcd = (a: number, b: number): number => {
  while (b !== 0) {
    const t = a % b
    a = b
    b = t
  }
  return a
}

/**
 * The largest g such that every factor, in every channel, has its mass on a lattice o + gZ (e.g.
 * randomized response with ε = 2500·h lives on every 2500th grid point). 1 when there is none.
 */
const latticeStep = (factors: ReadonlyArray<Factor>, channels: number): number => {
  let g = 0
  for (const f of factors)
    for (let c = 0; c < channels; c++) {
      const m = (f.plds[c] as LeafPld).masses
      let first = -1
      for (let j = 0; j < m.length; j++) {
        if (m[j] === 0) continue
        if (first < 0) first = j
        else {
          g = gcd(j - first, g)
          if (g === 1) return 1
        }
      }
    }
  return g > 1 ? g : 1
}

/** A PLD restricted to its lattice: masses every g-th point, offset in lattice units, and its remainder. */
const compress = (pld: LeafPld, g: number): { readonly pld: LeafPld; readonly rem: number } => {
  const m = pld.masses
  let first = 0
  while (first < m.length && m[first] === 0) first++
  if (first === m.length) return { pld: { offset: 0, masses: new Float64Array(0), infinityMass: pld.infinityMass }, rem: 0 }
  const o = pld.offset + first
  const lo = Math.floor(o / g)
  const n = Math.floor((m.length - 1 - first) / g) + 1
  const out = new Float64Array(n)
  for (let j = 0; j < n; j++) out[j] = m[first + j * g]!
  return { pld: { offset: lo, masses: out, infinityMass: pld.infinityMass }, rem: o - lo * g }
}

/**
 * Composes the factors in every channel (each factor has one PLD per channel, all on the grid of
 * interval h). `tailMass` bounds the mass each channel may leave outside its window (split
 * between the two ends). Refuses, naming `path`, a window longer than `limit` (the grid limit, or
 * the work budget of a pass the accountant chose) — before any transform is computed.
 *
 * When all the mass lies on a coarser lattice (the PLDs of randomized response and stated
 * guarantees with one ε are supported on multiples of ε), the composition runs on that lattice —
 * exactly the same sums, a much shorter FFT — and the composed PLD carries the constant offset.
 *
 * `negligible` (default true) drops the bins below the negligible level (`EARLY_SHARE`) and reads
 * out spectra sparse at the inverse FFT's error scale spectrally (`PRUNE_MARGIN`); false keeps
 * every bin the e^{−690} cut keeps and reads out densely whatever that cut leaves dense — the
 * composition as it was before those two, kept for tests that compare the two.
 */
export const composeChannels = (
  factors: ReadonlyArray<Factor>,
  channels: number,
  h: number,
  tailMass: number,
  path: string,
  limit: number = MAX_GRID_POINTS,
  negligible = true,
): E.Either<DpError, ReadonlyArray<ComposedPld>> => {
  const live = factors.filter((f) => f.count > 0)
  const g = live.length > 0 && !(live.length === 1 && (live[0] as Factor).count === 1) ? latticeStep(live, channels) : 1
  if (g === 1) return composeOnGrid(live, channels, h, tailMass, path, limit, negligible)
  const shifts = new Array<number>(channels).fill(0)
  const compressed: Factor[] = live.map((f) => ({
    count: f.count,
    plds: f.plds.map((p, c) => {
      const r = compress(p, g)
      shifts[c] = shifts[c]! + f.count * r.rem
      return r.pld
    }),
  }))
  const out = composeOnGrid(compressed, channels, h * g, tailMass, path, limit, negligible)
  return E.isLeft(out) ? out : E.right(out.right.map((c, i) => ({ ...c, shift: shifts[i]! * h })))
}

const composeOnGrid = (
  factors: ReadonlyArray<Factor>,
  channels: number,
  h: number,
  tailMass: number,
  path: string,
  limit: number,
  negligible: boolean,
): E.Either<DpError, ReadonlyArray<ComposedPld>> => {
  const live = factors.filter((f) => f.count > 0)
  const out: ComposedPld[] = []
  if (live.length === 0) {
    for (let c = 0; c < channels; c++) out.push(identity(h))
    return E.right(out)
  }
  const infinite = Array.from({ length: channels }, (_, c) => composedInfinity(live, c))
  // A channel whose finite part vanishes (all mass at +∞, or all dropped) needs no transform.
  const degenerate = Array.from(
    { length: channels },
    (_, c) => infinite[c]! >= 1 || live.some((f) => (f.plds[c] as LeafPld).masses.length === 0),
  )
  const onlyInfinity = (c: number): ComposedPld =>
    infinite[c]! >= 1 ? allInfinite(h) : { ...allInfinite(h), infinityMass: infinite[c]! }
  const single = live.length === 1 && (live[0] as Factor).count === 1
  if (single) {
    const f = live[0] as Factor
    for (let c = 0; c < channels; c++) {
      const pld = f.plds[c] as LeafPld
      if (degenerate[c]) out.push(onlyInfinity(c))
      else
        out.push({
          interval: h,
          start: pld.offset,
          shift: 0,
          view: denseView(pld.masses, h),
          infinityMass: infinite[c]!,
          truncatedMass: 0,
          fpError: 0,
        })
    }
    return E.right(out)
  }

  // Windows.
  const mgfs: ChannelMgf[] = []
  const bounds: Array<{ lo: number; hi: number }> = []
  let n = 4
  let span = 0
  for (let c = 0; c < channels; c++) {
    const g = channelMgf(live, c, h, tailMass / 2)
    mgfs.push(g)
    const b = degenerate[c] ? { lo: 0, hi: 0 } : chernoffBounds(g, tailMass / 2)
    bounds.push(b)
    const width = b.hi - b.lo + 1
    const sized = checkGridSize(width, h, width * h, path, 'the composition window')
    if (E.isLeft(sized)) return sized
    n = Math.max(n, nextPow2(width))
    span = Math.max(span, width * h)
  }
  if (n > Math.min(limit, MAX_GRID_POINTS))
    return checkGridSize(n, h, span, path, 'the composition window (rounded up to a power of two)', Math.min(limit, MAX_GRID_POINTS)) as E.Either<DpError, never>
  const starts: number[] = []
  const truncated: number[] = []
  for (let c = 0; c < channels; c++) {
    const g = mgfs[c] as ChannelMgf
    const b = bounds[c] as { lo: number; hi: number }
    if (degenerate[c]) {
      starts.push(0)
      truncated.push(0)
      continue
    }
    const slack = n - (b.hi - b.lo + 1)
    let lo = b.lo - Math.floor(slack / 2)
    if (lo + n - 1 > g.smax) lo = g.smax - n + 1
    if (lo < g.smin) lo = g.smin
    starts.push(lo)
    truncated.push(outsideMass(g, lo, lo + n - 1))
  }

  const plan = fftPlan(n)
  const half = n / 2 + 1
  const scratch = scratchFor(n)
  const { data, work } = scratch
  const [xr, xi, yr, yi, ar, ai, br, bi] = scratch.half as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ]
  const several = live.length > 1
  const log2n = Math.log2(n)
  // Per channel and factor: the forward FFT's per-bin error ρ, and the negligible levels (`EARLY_SHARE`):
  // θ per channel, and per factor the bound Π_{later g} (Σ masses_g + ρ_g)^{n_g} on the factors still to come.
  const stats = Array.from({ length: channels }, (_, c) => live.map((f) => sumAndL2((f.plds[c] as LeafPld).masses)))
  const rhos = stats.map((st) => st.map((x) => log2n * ETA * x.l2 + U))
  const wsum = binWeightsAndSum(n).sum
  const levels = rhos.map((rho, c) => {
    let logC0 = 0
    const logBound = live.map((f, i) => {
      const total = stats[c]![i]!.sum
      logC0 += f.count * Math.log(total)
      return f.count * Math.log(total * (1 + 1e-9) + rho[i]!)
    })
    const rest = logBound.map((_, i) => Math.exp(logBound.slice(i + 1).reduce((a, b) => a + b, 0)) * (1 + 1e-9))
    return { theta: negligible ? (EARLY_SHARE * log2n * ETA * Math.exp(logC0)) / wsum : 0, rest }
  })
  const results: ComposedPld[] = new Array(channels)
  for (let c0 = 0; c0 < channels; c0 += 2) {
    const c1 = c0 + 1 < channels ? c0 + 1 : -1
    const accA = newAccumulator(ar, ai, several)
    const accB = c1 >= 0 ? newAccumulator(br, bi, several) : undefined
    let aliveA = half
    let aliveB = half
    const la = levels[c0]!
    const lb = c1 >= 0 ? levels[c1]! : undefined
    for (let i = 0; i < live.length; i++) {
      const f = live[i]!
      data.fill(0)
      const pa = f.plds[c0] as LeafPld
      place(data, 0, pa, n)
      const pb = c1 >= 0 ? (f.plds[c1] as LeafPld) : undefined
      if (pb !== undefined) place(data, 1, pb, n)
      plan.transform(work, data)
      split(work, n, xr, xi, yr, yi)
      aliveA = multiplyPower(accA, xr, xi, f.count, rhos[c0]![i]!, n, la.theta, la.rest[i]!)
      if (accB !== undefined && pb !== undefined && lb !== undefined)
        aliveB = multiplyPower(accB, yr, yi, f.count, rhos[c1]![i]!, n, lb.theta, lb.rest[i]!)
    }
    const sparse = isSparse(aliveA, n) && (accB === undefined || isSparse(aliveB, n))
    // The inverse FFT's error charge of the dense read-out, kept by a pruned spectral one (see
    // `PRUNE_MARGIN`); a spectrum sparse as it is needs neither.
    const chargeA = sparse ? 0 : log2n * ETA * spectrumNorm(accA, n)
    const chargeB = sparse || accB === undefined ? 0 : log2n * ETA * spectrumNorm(accB, n)
    let pruned = false
    const finish = (acc: Accumulator, c: number, dense: Float64Array | undefined, alive: number, charge: number): ComposedPld => {
      if (degenerate[c]) return onlyInfinity(c)
      // Bins dropped below the negligible level, then (pruned) the rest of the inverse FFT's charge.
      const specErr = spectralErrorBound(acc, n) + acc.early + (pruned ? Math.max(0, charge - acc.early) : 0)
      const shift = mod(starts[c]!, n)
      if (dense === undefined) {
        const sp = sparseBins(acc, n, alive)
        // Window point i is the cyclic index start + i: c_i = (1/N) Σ_k (C_k ζ^{k·start}) ζ^{ki}.
        for (let b = 0; b < sp.bins.length; b++) {
          const th = (2 * Math.PI * ((sp.bins[b]! * shift) % n)) / n
          const cr = Math.cos(th)
          const ci = Math.sin(th)
          const r = sp.re[b]!
          const i = sp.im[b]!
          sp.re[b] = r * cr - i * ci
          sp.im[b] = r * ci + i * cr
        }
        return {
          interval: h,
          start: starts[c]!,
          shift: 0,
          view: spectralView(n, h, sp.bins, sp.re, sp.im),
          infinityMass: infinite[c]!,
          truncatedMass: truncated[c]!,
          fpError: specErr,
        }
      }
      // `dense` is already the window, read by inversePair from the cyclic index `shift`.
      return {
        interval: h,
        start: starts[c]!,
        shift: 0,
        view: denseView(dense, h),
        infinityMass: infinite[c]!,
        truncatedMass: truncated[c]!,
        fpError: specErr + charge,
      }
    }
    if (negligible && !sparse) {
      // Dense under the e^{−690} cut: sparse at the scale of the inverse FFT's error charge?
      const cutA = Math.max(0, chargeA - accA.early) / Math.max(1, aliveA)
      const cutB = accB === undefined ? 0 : Math.max(0, chargeB - accB.early) / Math.max(1, aliveB)
      const keptA = keptAbove(accA, n, cutA)
      const keptB = accB === undefined ? 0 : keptAbove(accB, n, cutB)
      if (isSparse(keptA, n) && isSparse(keptB, n)) {
        dropBelow(accA, n, cutA)
        if (accB !== undefined) dropBelow(accB, n, cutB)
        aliveA = keptA
        aliveB = keptB
        pruned = true
      }
    }
    if (isSparse(aliveA, n) && (accB === undefined || isSparse(aliveB, n))) {
      results[c0] = finish(accA, c0, undefined, aliveA, chargeA)
      if (accB !== undefined) results[c1] = finish(accB, c1, undefined, aliveB, chargeB)
    } else {
      if (accB === undefined) {
        br.fill(0)
        bi.fill(0)
      }
      const inv = inversePair(plan, accA.re, accA.im, br, bi, data, work, mod(starts[c0]!, n), c1 >= 0 ? mod(starts[c1]!, n) : 0)
      results[c0] = finish(accA, c0, inv.x, aliveA, chargeA)
      if (accB !== undefined) results[c1] = finish(accB, c1, inv.y, aliveB, chargeB)
    }
  }
  return E.right(results)
}
