/**
 * From a dominating pair to two PLDs on the grid {i·h}: a pessimistic one (its δ(ε) is never
 * below the pair's, for every ε, and this survives composition) and an optimistic one (never
 * above). Both work cell by cell on the loss grid: a cell (ε_c, ε_{c+1}] carries P-mass p_c and
 * Q-mass q_c, with e^{−ε_{c+1}} p_c ≤ q_c ≤ e^{−ε_c} p_c. Continuous parts come as cell masses
 * (differences of the loss tails at grid points); atoms (randomized response, the extremes of the
 * Laplace loss) are handled one by one, so an atom that lies on a grid point stays exactly there.
 *
 * Pessimistic — "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect
 * the dots: tighter discrete approximations of privacy loss distributions", PETS, §3): split each
 * cell's mass between its two end points so that both its P-mass and its Q-mass are kept. The
 * result has exactly the pair's δ(ε_i) at every grid point and the chord (in e^ε) in between,
 * which lies above the convex curve; the original pair is a post-processing of the split one
 * (merge the two halves back), so the split pair dominates, and the construction is the best
 * pessimistic estimate on this support (ibid., their optimality result). Its composed error is
 * second order: a split raises the mean loss by at most h²/8 per step, so T steps move ε by
 * O(T·h²) — where plain rounding up (Meiser & Mohammadi 2018; Koskela et al. 2020) moves it by up
 * to T·h. Mass below the grid goes to its lowest point (rounding up); mass above it goes to +∞.
 *
 * Optimistic — a post-processing (garbling) of the pair, which can only lower δ(ε) (the
 * data-processing inequality for the hockey-stick divergence), followed by rounding losses down:
 * at each grid point ε_g, merge the part of cell g − 1 that lies below ε_g (in likelihood ratio:
 * Q-excess X = q − p e^{−ε_g} > 0) with just enough of cell g (Q-deficit D = p e^{−ε_g} − q ≥ 0)
 * that the merged outcome has loss exactly ε_g; what cannot be matched is rounded down to the grid
 * point below (or dropped below the grid). Rounding losses down lowers every composed δ as well
 * (δ = E[(1 − e^{ε−L})₊] is increasing in L). On smooth losses nearly everything matches, so the
 * optimistic error is also second order; an isolated atom between grid points (randomized response
 * off the grid) is rounded down, an O(h) error per step — the accountant aligns the grid to a single
 * atom spacing when it can.
 *
 * Integer noise (./lattice.ts) is streamed into the same cells outcome by outcome: the pessimistic
 * cells take every finite outcome (a cell holding several outcomes is split as one: the two-point
 * pair at the cell's ends dominates any pair whose losses lie in the cell, which is the connect-the-
 * dots argument), the optimistic ones keep outcomes lying on grid points apart, exactly there.
 *
 * Floating point: cell masses are differences of tails and the split/merge quantities are second
 * order in h, so every split is biased by an estimate of its rounding error in the safe direction
 * (more mass up in the pessimistic split, less matching in the optimistic merge). The thresholds
 * themselves are rounded (the normal tail at a rounded x* is off by ~2x²u relatively), which moves
 * cell boundaries by ≲1e-13 in loss — immaterial next to the composition's error terms.
 *
 * @module
 */
import { subnormalError } from '../../core/numeric.js'
import {
  type AdditivePair,
  additiveTails,
  type Atom,
  atomQ,
  type DiscretePair,
  gaussianThresholdTails,
  laplaceAtoms,
  laplaceTails,
  type LatticePair,
  type MixturePair,
  mixtureTails,
  substitutionTails,
} from './pairs.js'
import { forEachLatticeOutcome } from './lattice.js'
import { MAX_LEAF_LOSS } from './limits.js'

const U = Number.EPSILON / 2

/** A PLD on the grid: P-mass masses[j] at loss (offset + j)·h, plus P-mass at loss +∞. */
export interface LeafPld {
  readonly offset: number
  readonly masses: Float64Array
  readonly infinityMass: number
}

export interface LeafPlds {
  readonly upper: LeafPld
  readonly lower: LeafPld
}

/**
 * A pair cut into the grid's cells: the continuous part as per-cell masses (cell c is
 * (ε_{i0+c}, ε_{i0+c+1}]), below and above the grid, plus atoms kept apart (each is split or
 * matched on its own, so an atom lying on a grid point stays exactly there).
 */
interface Cells {
  readonly i0: number
  readonly K: number
  readonly p: Float64Array
  readonly q: Float64Array
  /** Absolute error estimates of p and q. */
  readonly ep: Float64Array
  readonly eq: Float64Array
  /** Continuous part with L ≤ ε_{i0}. */
  readonly pBottom: number
  readonly qBottom: number
  readonly eBottom: number
  /** Continuous part with ε_{i0+K} < L < ∞. */
  readonly pTop: number
  readonly qTop: number
  readonly eTop: number
  /** Atoms (finite or +∞ loss) and Q's mass where P has none. */
  readonly atoms: ReadonlyArray<Atom>
  readonly qOnly: number
  /** P-mass lying exactly on grid point i0 + g (optimistic cells of streamed outcomes only). */
  readonly onGrid?: Float64Array
}

/** a·e^x for a ≥ 0 without 0·∞. */
const mulExp = (a: number, x: number): number => {
  if (a === 0) return 0
  return x < 700 ? a * Math.exp(x) : Math.exp(Math.log(a) + x)
}

// -------------------------------------------------------------------------------------------
// cell statistics
// -------------------------------------------------------------------------------------------

/**
 * Cells from loss tails at the grid points i0, …, i0 + K (t holds P(L>ε), P(L≤ε), Q(L>ε), Q(L≤ε)
 * per point): each cell mass is a difference of the smaller pair of tails (upper tails above the
 * median, lower tails below), with an absolute error estimate.
 */
const cellsFromTails = (t: Float64Array, i0: number, K: number, atoms: ReadonlyArray<Atom>): Cells => {
  const p = new Float64Array(K)
  const q = new Float64Array(K)
  const ep = new Float64Array(K)
  const eq = new Float64Array(K)
  for (let c = 0; c < K; c++) {
    const a = 4 * c
    const b = a + 4
    const sp0 = t[a]!
    const sp1 = t[b]!
    const cp0 = t[a + 1]!
    const cp1 = t[b + 1]!
    if (sp0 <= cp1) {
      p[c] = Math.max(0, sp0 - sp1)
      ep[c] = 8 * U * (sp0 + sp1)
    } else {
      p[c] = Math.max(0, cp1 - cp0)
      ep[c] = 8 * U * (cp0 + cp1)
    }
    const sq0 = t[a + 2]!
    const sq1 = t[b + 2]!
    const cq0 = t[a + 3]!
    const cq1 = t[b + 3]!
    if (sq0 <= cq1) {
      q[c] = Math.max(0, sq0 - sq1)
      eq[c] = 8 * U * (sq0 + sq1) + subnormalError(sq0) + subnormalError(sq1)
    } else {
      q[c] = Math.max(0, cq1 - cq0)
      eq[c] = 8 * U * (cq0 + cq1) + subnormalError(cq0) + subnormalError(cq1)
    }
  }
  const last = 4 * K
  return {
    i0,
    K,
    p,
    q,
    ep,
    eq,
    pBottom: t[1]!,
    qBottom: t[3]!,
    eBottom: 8 * U * (t[1]! + t[3]!),
    pTop: t[last]!,
    qTop: t[last + 2]!,
    eTop: 8 * U * (t[last]! + t[last + 2]!),
    atoms,
    qOnly: 0,
  }
}

/** Cells of an additive pair on grid indices [i0, i0 + K] from its loss tails at the grid points. */
export const additiveCells = (pair: AdditivePair, h: number, i0: number, K: number): Cells => {
  const n = K + 1
  const t = new Float64Array(4 * n)
  const scratch = new Float64Array(4)
  const laplace = pair.noise === 'laplace'
  for (let g = 0; g < n; g++) {
    if (laplace) laplaceTails(pair, (i0 + g) * h, t, 4 * g)
    else additiveTails(pair, (i0 + g) * h, t, 4 * g, scratch)
  }
  return cellsFromTails(t, i0, K, laplace ? laplaceAtoms(pair) : [])
}

/** Grid index range [i0, i0 + K] covering the finite atoms of a discrete pair with a cell to spare. */
export const discreteGrid = (pair: DiscretePair, h: number): { readonly i0: number; readonly K: number } => {
  let lo = Infinity
  let hi = -Infinity
  for (const a of pair.atoms) {
    if (a.p === 0 || !(Math.abs(a.loss) <= MAX_LEAF_LOSS)) continue
    if (a.loss < lo) lo = a.loss
    if (a.loss > hi) hi = a.loss
  }
  if (lo === Infinity) return { i0: -1, K: 2 }
  const i0 = Math.floor(lo / h) - 1
  const i1 = Math.ceil(hi / h) + 1
  return { i0, K: i1 - i0 }
}

const discreteCells = (pair: DiscretePair, i0: number, K: number): Cells => ({
  i0,
  K,
  p: new Float64Array(K),
  q: new Float64Array(K),
  ep: new Float64Array(K),
  eq: new Float64Array(K),
  pBottom: 0,
  qBottom: 0,
  eBottom: 0,
  pTop: 0,
  qTop: 0,
  eTop: 0,
  atoms: pair.atoms,
  qOnly: pair.qOnly,
})

/**
 * Upper end j of the cell (ε_{j−1}, ε_j] holding a finite loss, checked in floating point. Past
 * |loss/h| = 2⁵² consecutive integers are no longer doubles, j − 1 rounds to j and the correction
 * loops below never end (a discrete Gaussian with σ ≤ 1e-9 hung here, issue 30); such a loss lies
 * far outside every grid (grids stay within ±MAX_LEAF_LOSS/h, ./limits.ts), so ±2⁵³ places it on
 * the right side of the grid, which is all the callers need.
 */
const cellEnd = (loss: number, h: number): number => {
  const x = loss / h
  if (!(Math.abs(x) < 2 ** 52)) return x > 0 ? 2 ** 53 : -(2 ** 53)
  let j = Math.ceil(x)
  while ((j - 1) * h >= loss) j--
  while (j * h < loss) j++
  return j
}

/** The grid point a loss lies on, if it is within 1e-9·h of one (below floating-point resolution of the loss). */
const gridPoint = (loss: number, h: number): number | undefined => {
  const r = Math.round(loss / h)
  return Math.abs(loss - r * h) <= 1e-9 * h ? r : undefined
}

// -------------------------------------------------------------------------------------------
// the two discretisations
// -------------------------------------------------------------------------------------------

/**
 * The error bound of an atom's Q-mass p·e^{−loss} (`atomQ`): 4u relative, and where it is a subnormal
 * double also the absolute error of its roundings (half the least positive double each). Without that
 * term a Q-mass rounded up from 1.55 to 2 times the least positive double (an ε = 744 atom: e^{−744})
 * outweighed the P-mass once multiplied by e^{ε}, and the atom's mass went to the grid point below its loss:
 * ε(δ) read one interval low, 743.976 for pure 744-DP at δ = 1e-5.
 */
const atomQError = (qa: number): number => 4 * U * qa + subnormalError(qa)

// (a Q-mass that underflowed to 0 carries no error term: it is rounded down, the side that moves P-mass up, which is sound)

/**
 * Connect-the-dots split of one cell's (or atom's) P-mass p and Q-mass q between its end points
 * ε_c and ε_c + h (Doroshenko et al. 2022), biased upward by the rounding error estimate; takes
 * qe = q·e^{ε_c} and its error eqe, returns the upper share w, which solves
 * w e^{−ε_c−h} + (p − w) e^{−ε_c} = q.
 */
const upperShare = (p: number, qe: number, ep: number, eqe: number, oneMinusEmh: number): number => {
  const err = ep + eqe + 44 * U * (p + qe)
  const w = (p - qe + err) / oneMinusEmh
  return w >= 0 ? Math.min(w, p) : 0
}

/*
 * The loops below walk e^{±ε_g} along the grid by multiplication (e^{±h} per step), re-anchored
 * with Math.exp every 32 steps: relative error ≤ 34u, covered by the 44u terms of the error
 * estimates; exact exp far from 0 (|ε| > 700).
 */

const pessimistic = (cells: Cells, h: number): LeafPld => {
  const { i0, K, p, q, ep, eq } = cells
  const m = new Float64Array(K + 1)
  m[0] = cells.pBottom // rounded up to the lowest grid point
  let inf = cells.pTop // rounded up to +∞
  const oneMinusEmh = -Math.expm1(-h)
  const step = Math.exp(h)
  let ec = 0 // e^{ε_c}, walked (see above)
  for (let c = 0; c < K; c++) {
    const x = (i0 + c) * h
    ec = (c & 31) === 0 || !(ec > 0) || x > 700 || x < -700 ? Math.exp(x) : ec * step
    const pc = p[c]!
    if (pc === 0) continue
    const eps = (i0 + c) * h
    const finite = eps < 700
    const qe = finite ? q[c]! * ec : mulExp(q[c]!, eps) // q·e^{ε_c} ≤ p
    const eqe = finite ? eq[c]! * ec : mulExp(eq[c]!, eps)
    const w = upperShare(pc, qe, ep[c]!, eqe, oneMinusEmh)
    m[c + 1] = m[c + 1]! + w
    m[c] = m[c]! + (pc - w)
  }
  for (const a of cells.atoms) {
    if (a.p === 0) continue
    if (a.loss > MAX_LEAF_LOSS) {
      inf += a.p // up to +∞ (see MAX_LEAF_LOSS)
      continue
    }
    if (a.loss < -MAX_LEAF_LOSS) {
      m[0] = m[0]! + a.p // up to the lowest grid point
      continue
    }
    const j = cellEnd(a.loss, h)
    if (j - 1 < i0) m[0] = m[0]! + a.p
    else if (j > i0 + K) inf += a.p
    else {
      const qa = atomQ(a)
      const qe = mulExp(qa, (j - 1) * h)
      const w = upperShare(a.p, qe, 4 * U * a.p, mulExp(atomQError(qa), (j - 1) * h), oneMinusEmh)
      m[j - i0] = m[j - i0]! + w
      m[j - 1 - i0] = m[j - 1 - i0]! + (a.p - w)
    }
  }
  return { offset: i0, masses: m, infinityMass: inf }
}

/**
 * The optimistic PLD's start: P-mass on grid points (outcomes lying on one, and atoms there), the
 * +∞ atoms, and the cells with every other atom joined to its cell (copies when atoms join).
 */
const optimisticStart = (
  cells: Cells,
  h: number,
): { readonly m: Float64Array; readonly inf: number; readonly p: Float64Array; readonly q: Float64Array; readonly ep: Float64Array; readonly eq: Float64Array } => {
  const { i0, K } = cells
  const m = cells.onGrid === undefined ? new Float64Array(K + 1) : cells.onGrid.slice()
  let inf = 0
  // Atoms on grid points stay there; other atoms join their cell before matching.
  let { p, q, ep, eq } = cells
  let copied = false
  for (const a of cells.atoms) {
    if (a.p === 0) continue
    if (a.loss === Infinity) {
      inf += a.p
      continue
    }
    // Far outside the grid (|loss| > MAX_LEAF_LOSS): rounded down to the top point, or dropped.
    if (a.loss >= (i0 + K) * h && a.loss > MAX_LEAF_LOSS) {
      m[K] = m[K]! + a.p
      continue
    }
    if (a.loss < -MAX_LEAF_LOSS) continue
    const g = gridPoint(a.loss, h)
    if (g !== undefined && g >= i0 && g <= i0 + K) {
      m[g - i0] = m[g - i0]! + a.p
      continue
    }
    const c = cellEnd(a.loss, h) - 1 - i0
    if (c < 0 || c >= K) continue // outside the grid (cannot happen for grids built here): dropped
    if (!copied) {
      p = p.slice()
      q = q.slice()
      ep = ep.slice()
      eq = eq.slice()
      copied = true
    }
    const qa = atomQ(a)
    p[c] = p[c]! + a.p
    q[c] = q[c]! + qa
    ep[c] = ep[c]! + 4 * U * a.p
    eq[c] = eq[c]! + atomQError(qa)
  }
  return { m, inf, p, q, ep, eq }
}

/** Local post-processing onto the grid, then rounding down what cannot be matched. */
const optimistic = (cells: Cells, h: number): LeafPld => {
  const { i0, K } = cells
  const { m, inf, p, q, ep, eq } = optimisticStart(cells, h)
  const qBottom = cells.qBottom + cells.qOnly
  const emh = Math.exp(-h)
  let en = 0 // e^{−ε_g}, walked (see above)
  let carryP = cells.pBottom
  let fromCell = false
  let X = qBottom - mulExp(carryP, -i0 * h)
  let eX = cells.eBottom + 4 * U * (qBottom + mulExp(carryP, -i0 * h))
  for (let g = 0; g <= K; g++) {
    const eps = (i0 + g) * h
    const exact = eps > -700 && eps < 700
    en = (g & 31) === 0 || !(en > 0) || !exact ? Math.exp(-eps) : en * emh
    const top = g === K
    const P = top ? cells.pTop : p[g]!
    const Qc = top ? cells.qTop : q[g]!
    const pe = exact ? P * en : mulExp(P, -eps)
    const D = pe - Qc
    const eD = (top ? cells.eTop : (exact ? ep[g]! * en : mulExp(ep[g]!, -eps)) + eq[g]!) + 44 * U * (pe + Qc)
    const Dp = Math.max(0, D - eD)
    const Xp = X + eX
    let a: number
    let beta: number
    if (top) {
      a = 1 // mass above the grid is rounded down to its top point
      beta = Xp <= 0 ? 1 : Math.min(1, Dp / Xp)
    } else if (Xp <= 0) {
      a = 0
      beta = 1
    } else if (Xp <= Dp) {
      a = Xp / Dp
      beta = 1
    } else {
      a = 1
      beta = Dp / Xp
    }
    m[g] = m[g]! + beta * carryP + a * P
    const rest = (1 - beta) * carryP
    if (rest > 0 && fromCell) m[g - 1] = m[g - 1]! + rest // below ε_g but not below ε_{g−1}
    if (!top) {
      carryP = (1 - a) * P
      const carryQ = (1 - a) * Qc
      const enext = exact && eps + h < 700 ? en * emh : Math.exp(-(eps + h))
      const pn = exact ? carryP * enext : mulExp(carryP, -(eps + h))
      X = carryQ - pn
      eX = (1 - a) * (eq[g]! + (exact ? ep[g]! * enext : mulExp(ep[g]!, -(eps + h)))) + 44 * U * (carryQ + pn)
      fromCell = true
    }
  }
  return { offset: i0, masses: m, infinityMass: inf }
}

/**
 * Optimistic PLD of isolated outcomes: a discrete pair's atoms, integer noise under Poisson
 * subsampling (losses log(1 − q + q·e^{L}) spaced from 1e-5 to the lattice step, mostly far wider
 * than h), where `optimistic`'s merging of neighbouring cells finds nothing to merge and rounds
 * each outcome down, O(h) per step (a composed error of O(T·h): 0.027 in ε for q = 0.01,
 * σ = 1.1, T = 1000 at h = 1e-4). Each non-empty cell k is one outcome (P_k, Q_k) at loss
 * λ_k = log(P_k/Q_k) in (ε_c, ε_{c+1}], and goes to a grid point by the cheapest of:
 * - up: merged with a piece of outcome k + 1 so that the merged loss is exactly ε_{c+1};
 * - down: merged with a piece of outcome k − 1 so that it is exactly ε_c;
 * - round: its loss rounded down to ε_c.
 * Merging is a garbling (a post-processing of the pair), rounding down only lowers every composed
 * δ (see the module comment), so the result is optimistic whatever is chosen. The choice follows
 * the mean loss E_P[L] each move loses: rounding d = λ_k − ε_c, merging a distance x to the grid
 * point with an outcome S away about x·S/2 (the second-order term of the log-sum inequality; the
 * piece of the neighbour moves S − x the other way with weight ≈ x/S), so up costs u·S_up/2,
 * down d·S_down/2, round d — where outcomes are dense the merge error is second order, as for
 * smooth losses.
 *
 * Pieces: k's up-move takes a fraction of k + 1 and its down-move one of k − 1; an outcome may give
 * a piece to each neighbour, at most half of it to each, keeping the rest for its own move. The
 * conflicting pair (k up, k + 1 down) keeps the cheaper move (the other rounds). Up-pieces are then
 * sized in increasing order (outcome k's own share is known once it gave its piece to k − 1),
 * down-pieces in decreasing order. A piece too small to carry the whole outcome: the rest of the
 * outcome is rounded down. Every merge is biased by its rounding-error estimate so that the merged
 * loss is at least the grid point it is put on (more of the higher outcome, less of the lower).
 */
const optimisticSparse = (cells: Cells, h: number): LeafPld => {
  const { i0, K } = cells
  const { m, inf, p, q, ep, eq } = optimisticStart(cells, h)
  // Mass below the grid is dropped (optimistic); above it, rounded down to the top point.
  m[K] = m[K]! + cells.pTop
  const idx: number[] = []
  for (let c = 0; c < K; c++) if (p[c]! > 0) idx.push(c)
  const n = idx.length
  const lam = new Float64Array(n)
  for (let k = 0; k < n; k++) lam[k] = Math.log(p[idx[k]!]! / q[idx[k]!]!)
  // Move of each outcome: 1 up, −1 down, 0 round, and its (unweighted) cost.
  const dir = new Int8Array(n)
  const cost = new Float64Array(n)
  for (let k = 0; k < n; k++) {
    const lo = (i0 + idx[k]!) * h
    const d = lam[k]! - lo
    const u = lo + h - lam[k]!
    const up = k + 1 < n ? (u * (lam[k + 1]! - lam[k]!)) / 2 : Infinity
    const down = k > 0 ? (d * (lam[k]! - lam[k - 1]!)) / 2 : Infinity
    cost[k] = d
    if (!(lam[k]! < Infinity)) continue
    if (up < cost[k]! && up <= down) {
      dir[k] = 1
      cost[k] = up
    } else if (down < cost[k]!) {
      dir[k] = -1
      cost[k] = down
    }
  }
  for (let k = 0; k + 1 < n; k++)
    if (dir[k] === 1 && dir[k + 1] === -1) {
      if (p[idx[k]!]! * cost[k]! <= p[idx[k + 1]!]! * cost[k + 1]!) dir[k + 1] = 0
      else dir[k] = 0
    }
  // Fractions of each outcome given to its lower and upper neighbour, and the matched share of an up-move.
  const toLower = new Float64Array(n)
  const toUpper = new Float64Array(n)
  const matched = new Float64Array(n).fill(1)
  /** P·e^{−ε} − Q of outcome k at ε (a Q-deficit when λ_k > ε), with its error bound. */
  const deficit = (k: number, eps: number): { readonly D: number; readonly e: number } => {
    const c = idx[k]!
    const pe = mulExp(p[c]!, -eps)
    return { D: pe - q[c]!, e: mulExp(ep[c]!, -eps) + eq[c]! + 48 * U * (pe + q[c]!) }
  }
  for (let k = 0; k + 1 < n; k++) {
    if (dir[k] !== 1) continue
    const eps = (i0 + idx[k]! + 1) * h
    const own = 1 - toLower[k]!
    const lowD = deficit(k, eps) // negative: a Q-excess
    const X = -own * lowD.D + lowD.e
    const hi = deficit(k + 1, eps)
    const D = hi.D - hi.e
    if (!(X > 0 && D > 0)) {
      dir[k] = 0
      continue
    }
    if (X <= D / 2) toLower[k + 1] = X / D
    else {
      toLower[k + 1] = 0.5
      matched[k] = D / 2 / X
    }
  }
  for (let k = n - 1; k > 0; k--) {
    if (dir[k] !== -1) continue
    const eps = (i0 + idx[k]!) * h
    const own = 1 - toUpper[k]!
    const hi = deficit(k, eps)
    const D = own * hi.D - hi.e
    const lowD = deficit(k - 1, eps)
    const X = -lowD.D + lowD.e
    // A piece smaller than needed leaves the merged loss above ε_c: the rest is rounded down there too.
    toUpper[k - 1] = X > 0 && D > 0 ? Math.min(0.5, D / X) : 0
  }
  for (let k = 0; k < n; k++) {
    const c = idx[k]!
    const P = p[c]!
    const own = (1 - toLower[k]! - toUpper[k]!) * P
    if (dir[k] === 1) {
      m[c + 1] = m[c + 1]! + matched[k]! * own + toLower[k + 1]! * p[idx[k + 1]!]!
      m[c] = m[c]! + (1 - matched[k]!) * own
    } else if (dir[k] === -1) m[c] = m[c]! + own + toUpper[k - 1]! * p[idx[k - 1]!]!
    else m[c] = m[c]! + own
  }
  return { offset: i0, masses: m, infinityMass: inf }
}

/**
 * The better of two optimistic PLDs of one pair, both sound (each a garbling followed by rounding
 * down): the one whose mean loss E_P[L] is larger, i.e. lost less to merging and rounding.
 * `optimistic` wins where outcomes fill neighbouring cells (a discrete Laplace with thousands of
 * outcomes per unit of loss), `optimisticSparse` where they are isolated.
 */
const closerOptimistic = (a: LeafPld, b: LeafPld): LeafPld => {
  const mean = (l: LeafPld): number => {
    let s = 0
    for (let j = 0; j < l.masses.length; j++) s += l.masses[j]! * (l.offset + j)
    return s
  }
  return mean(b) > mean(a) ? b : a
}

/** Drops leading and trailing zeros. */
export const trimPld = (pld: LeafPld): LeafPld => {
  const m = pld.masses
  let a = 0
  let b = m.length
  while (a < b && m[a] === 0) a++
  while (b > a && m[b - 1] === 0) b--
  if (a === 0 && b === m.length) return pld
  if (a === b) return { offset: 0, masses: new Float64Array(0), infinityMass: pld.infinityMass }
  return { offset: pld.offset + a, masses: m.subarray(a, b), infinityMass: pld.infinityMass }
}

/**
 * Pessimistic and optimistic PLDs of the replace-one pair of a Poisson-subsampled Gaussian
 * ((1 − q)N(0, 1) + qN(μ, 1) vs (1 − q)N(0, 1) + qN(−μ, 1); ./pairs.ts) on grid indices [i0, i0 + K],
 * from its loss tails at the grid points like every continuous pair.
 */
export const discretizeSubstitutionGaussian = (mu: number, q: number, h: number, i0: number, K: number): LeafPlds => {
  const t = new Float64Array(4 * (K + 1))
  const scratch = new Float64Array(2)
  for (let g = 0; g <= K; g++) substitutionTails(mu, q, (i0 + g) * h, t, 4 * g, scratch)
  const cells = cellsFromTails(t, i0, K, [])
  return { upper: trimPld(pessimistic(cells, h)), lower: trimPld(optimistic(cells, h)) }
}

/** Pessimistic and optimistic PLDs of a mixture-of-Gaussians pair on grid indices [i0, i0 + K] (./pairs.ts `mixtureTails`). */
export const discretizeMixture = (pair: MixturePair, h: number, i0: number, K: number): LeafPlds => {
  const t = new Float64Array(4 * (K + 1))
  const scratch = new Float64Array(2)
  for (let g = 0; g <= K; g++) mixtureTails(pair, (i0 + g) * h, t, 4 * g, scratch)
  const cells = cellsFromTails(t, i0, K, [])
  return { upper: trimPld(pessimistic(cells, h)), lower: trimPld(optimistic(cells, h)) }
}

/** Pessimistic and optimistic PLDs of an additive pair on grid indices [i0, i0 + K]. */
export const discretizeAdditive = (pair: AdditivePair, h: number, i0: number, K: number): LeafPlds => {
  const cells = additiveCells(pair, h, i0, K)
  return { upper: trimPld(pessimistic(cells, h)), lower: trimPld(optimistic(cells, h)) }
}

/**
 * Both directions of a Poisson-subsampled Gaussian from one table of normal tails: the add
 * direction's threshold at ε is the remove direction's at −ε (the event {L_add > ε} is
 * {log r(X) < λ(−ε)}), so each grid point costs two erfc evaluations for both directions.
 */
export const discretizeSubsampledGaussian = (
  mu: number,
  q: number,
  h: number,
  remove: { readonly i0: number; readonly K: number },
  add: { readonly i0: number; readonly K: number },
): { readonly remove: LeafPlds; readonly add: LeafPlds } => {
  const jlo = Math.min(remove.i0, -(add.i0 + add.K))
  const jhi = Math.max(remove.i0 + remove.K, -add.i0)
  // Per grid point of a direction, the four tails (P(L>ε), P(L≤ε), Q(L>ε), Q(L≤ε)) are mixtures of
  // the normal tails at x*(j·h), with j = i0 + g (remove) or j = −(i0 + g) (add).
  const tr = new Float64Array(4 * (remove.K + 1))
  const ta = new Float64Array(4 * (add.K + 1))
  const t = new Float64Array(4) // B(X > x*), B(X ≤ x*), A(X > x*), A(X ≤ x*)
  const logQ = Math.log(q)
  const step = Math.exp(h)
  let ee = 0 // e^{j·h}, walked as in the discretisers
  for (let j = jlo; j <= jhi; j++) {
    const x = j * h
    ee = ((j - jlo) & 31) === 0 || !(ee > 0) || x > 700 || x < -700 ? Math.exp(x) : ee * step
    gaussianThresholdTails(mu, q, logQ, x, ee, t)
    const sB = t[0]!
    const cB = t[1]!
    const sA = t[2]!
    const cA = t[3]!
    const gr = j - remove.i0
    if (gr >= 0 && gr <= remove.K) {
      tr[4 * gr] = q * sA + (1 - q) * sB
      tr[4 * gr + 1] = q * cA + (1 - q) * cB
      tr[4 * gr + 2] = sB
      tr[4 * gr + 3] = cB
    }
    const ga = -j - add.i0
    if (ga >= 0 && ga <= add.K) {
      ta[4 * ga] = cB
      ta[4 * ga + 1] = sB
      ta[4 * ga + 2] = q * cA + (1 - q) * cB
      ta[4 * ga + 3] = q * sA + (1 - q) * sB
    }
  }
  const cr = cellsFromTails(tr, remove.i0, remove.K, [])
  const ca = cellsFromTails(ta, add.i0, add.K, [])
  return {
    remove: { upper: trimPld(pessimistic(cr, h)), lower: trimPld(optimistic(cr, h)) },
    add: { upper: trimPld(pessimistic(ca, h)), lower: trimPld(optimistic(ca, h)) },
  }
}

/** Mutable cell sums, filled outcome by outcome (`Cells` without the atoms). */
interface CellSums {
  readonly p: Float64Array
  readonly q: Float64Array
  readonly ep: Float64Array
  readonly eq: Float64Array
  /** [P, Q, error] below and above the grid. */
  readonly bottom: Float64Array
  readonly top: Float64Array
}

/**
 * Zeroed arrays for `discretizeLattice`'s cell sums, reused across calls while K ≤ 2^17 (at most
 * 9 MiB kept): nothing it returns refers to them (the discretisers write new arrays and copy what
 * they change). Nine fresh arrays of K points per direction cost page faults and collections that
 * refilling old ones with zeros does not (node bench/pld-ab.mjs, Poisson-subsampled discrete
 * Gaussian row: cold CPU x0.70–0.95 over four runs at load 9–12).
 */
const SCRATCH_POINTS = 2 ** 17
const scratch: Float64Array[] = []
const zeroed = (slot: number, n: number): Float64Array => {
  if (n > SCRATCH_POINTS) return new Float64Array(n)
  let a = scratch[slot]
  if (a === undefined || a.length < n) {
    a = new Float64Array(n)
    scratch[slot] = a
  } else a.fill(0, 0, n)
  return a.length === n ? a : a.subarray(0, n)
}

/** Cell sums over K cells in scratch slots 4·set … 4·set + 3. */
const cellSums = (K: number, set: number): CellSums => ({
  p: zeroed(4 * set, K),
  q: zeroed(4 * set + 1, K),
  ep: zeroed(4 * set + 2, K),
  eq: zeroed(4 * set + 3, K),
  bottom: new Float64Array(3),
  top: new Float64Array(3),
})

/**
 * Relative error of one streamed outcome's masses: a pmf term with an exponent of size ≤ 745 (2u per
 * unit of it), mixed by sampling.
 */
const OUTCOME_REL_ERR = 2100 * U

/** Adds one finite outcome to cell c (below/above the grid when out of range), with its rounding. */
const addToCell = (s: CellSums, K: number, c: number, p: number, q: number): void => {
  if (c < 0 || c >= K) {
    const edge = c < 0 ? s.bottom : s.top
    edge[0] = edge[0]! + p
    edge[1] = edge[1]! + q
    edge[2] = edge[2]! + OUTCOME_REL_ERR * (p + q) + U * (edge[0]! + edge[1]!)
    return
  }
  s.p[c] = s.p[c]! + p
  s.q[c] = s.q[c]! + q
  s.ep[c] = s.ep[c]! + OUTCOME_REL_ERR * p + U * s.p[c]!
  s.eq[c] = s.eq[c]! + OUTCOME_REL_ERR * q + U * s.q[c]! + subnormalError(q) + subnormalError(s.q[c]!)
}

const toCells = (s: CellSums, i0: number, K: number, atoms: ReadonlyArray<Atom>, qOnly: number, onGrid?: Float64Array): Cells => ({
  i0,
  K,
  p: s.p,
  q: s.q,
  ep: s.ep,
  eq: s.eq,
  pBottom: s.bottom[0]!,
  qBottom: s.bottom[1]!,
  eBottom: s.bottom[2]!,
  pTop: s.top[0]!,
  qTop: s.top[1]!,
  eTop: s.top[2]!,
  atoms,
  qOnly,
  ...(onGrid === undefined ? {} : { onGrid }),
})

/**
 * Pessimistic and optimistic PLDs of a lattice pair on grid indices [i0, i0 + K], its outcomes
 * streamed (./lattice.ts) with truncated mass at most `tail` at +∞.
 */
export const discretizeLattice = (pair: LatticePair, h: number, tail: number, i0: number, K: number): LeafPlds => {
  const up = cellSums(K, 0)
  const down = cellSums(K, 1)
  const onGrid = zeroed(8, K + 1)
  let infinite = 0
  let qOnly = 0
  forEachLatticeOutcome(pair, tail, (p, q, loss) => {
    if (p === 0) qOnly += q
    else if (loss === Infinity) infinite += p
    else {
      const c = cellEnd(loss, h) - 1 - i0
      addToCell(up, K, c, p, q)
      const g = gridPoint(loss, h)
      if (g !== undefined && g >= i0 && g <= i0 + K) onGrid[g - i0] = onGrid[g - i0]! + p
      else addToCell(down, K, c, p, q)
    }
  })
  const atoms: Atom[] = infinite > 0 ? [{ p: infinite, loss: Infinity }] : []
  return {
    upper: trimPld(pessimistic(toCells(up, i0, K, atoms, qOnly), h)),
    lower: trimPld(closerOptimistic(optimistic(toCells(down, i0, K, atoms, qOnly, onGrid), h), optimisticSparse(toCells(down, i0, K, atoms, qOnly, onGrid), h))),
  }
}

/** Pessimistic and optimistic PLDs of a discrete pair. */
export const discretizeDiscrete = (pair: DiscretePair, h: number): LeafPlds => {
  const { i0, K } = discreteGrid(pair, h)
  const cells = discreteCells(pair, i0, K)
  return { upper: trimPld(pessimistic(cells, h)), lower: trimPld(closerOptimistic(optimistic(cells, h), optimisticSparse(cells, h))) }
}
