/**
 * The dominating pair of a privacy profile stated at several points: a mechanism that is
 * (ε_i, δ_i)-DP for every i.
 *
 * In f-DP terms (Dong, Roth & Su 2022, "Gaussian differential privacy"): (ε, δ)-DP is f_{ε,δ}-DP with
 * f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (their Prop. 2.5), and being f_i-DP for every
 * i is being f-DP for f = max_i f_i (the trade-off curve of every neighbouring pair lies above each
 * f_i). f is a maximum of affine functions, so it is convex, continuous and piecewise linear; each
 * f_i is symmetric (f_i⁻¹ = f_i), and the region above a maximum is the intersection of the regions
 * above, which reflection in the diagonal maps to itself, so f is symmetric too. A piecewise-linear
 * symmetric trade-off function is the trade-off curve T(P, Q) of a pair of finite distributions:
 * a segment of f with α-length a and β-drop b is an outcome with P-mass a and Q-mass b (Neyman–Pearson
 * rejects outcomes in order of Q/P; DRS §2), the drop at α = 0 is Q-only mass and the flat part at
 * β = 0 P-only mass. Since T(M(x), M(x′)) ≥ f = T(P, Q) in both orders, every hockey-stick divergence
 * of the mechanism is at most that of (Q, P) (H_{e^ε}(Q‖P) = sup_α 1 − T(P, Q)(α) − e^ε α is
 * decreasing in T), i.e. (Q, P) is a dominating pair in the sense of Zhu, Dong & Wang 2022
 * ("Optimal accounting of differential privacy via characteristic function", Def. 7) — the worst
 * mechanism with this profile, so the pair is also the tightest one. One point gives Kairouz, Oh &
 * Viswanath's pair (./pairs.ts, `approxDpPair`).
 *
 * Rounding: the kinks are intersections of lines computed in doubles. The pair is built from points
 * under f (at each kink the smaller of its two lines at the computed kink, lowered by 4 ulps of the
 * terms, and never above the previous point), and a segment between two points under the line it lies on stays under f; the
 * pair's own curve T(P, Q) (the Neyman–Pearson envelope of its outcomes) is at most that polyline,
 * hence at most f. Each outcome's loss is log of its own mass ratio (so the second distribution's
 * masses, read back as p·e^{−loss}, are the segment lengths: both distributions sum to 1).
 * Points with ε = ∞ or δ = 1 are dropped (at finite ε they constrain nothing but the value at
 * α = 0, and dropping a constraint only lowers f: sound); so is line e^ε where e^ε overflows.
 *
 * @module
 */
import type { Atom, DiscretePair } from './pairs.js'

/** No privacy: all mass at loss +∞ (./pairs.ts's NON_PRIVATE_PAIR, not imported to keep the modules acyclic). */
const NON_PRIVATE: DiscretePair = { _tag: 'Discrete', atoms: [{ p: 1, loss: Infinity }], qOnly: 1 }

/** β = a − sα: a supporting line of the trade-off curve (s ≥ 0). */
interface Line {
  readonly a: number
  readonly s: number
  /** a computed without rounding (1 − 0). */
  readonly exact?: boolean
}

/** α where line u (steeper) meets line v (s_u > s_v). */
const meet = (u: Line, v: Line): number => (u.a - v.a) / (u.s - v.s)

/** The upper envelope of the lines on α ≥ 0, steepest first (the convex-hull trick). */
const envelope = (lines: ReadonlyArray<Line>): Line[] => {
  const sorted = [...lines].sort((u, v) => v.s - u.s || v.a - u.a)
  const hull: Line[] = []
  for (const l of sorted) {
    const top = hull[hull.length - 1]
    if (top !== undefined && top.s === l.s) continue // same slope, smaller intercept: never above
    // Pop lines that l overtakes before they would have started (or at α ≤ 0).
    while (hull.length > 0) {
      const last = hull[hull.length - 1] as Line
      const prev = hull[hull.length - 2]
      const start = prev === undefined ? 0 : meet(prev, last)
      if (meet(last, l) <= start) hull.pop()
      else break
    }
    hull.push(l)
  }
  return hull
}

/** 4 units of rounding: a − s·x is computed within 2 ulps of a + s·x. */
const ROUND = 4 * Number.EPSILON

/** A value at most the line's at x, whatever the rounding. */
const under = (l: Line, x: number): number => l.a - l.s * x - ROUND * (l.a + l.s * x)

/** The pair (Q, P) of the module note, as atoms of Q; `null` for a 0-DP point (nothing released), the non-private pair when no point constrains. */
export const profilePair = (epsilons: ReadonlyArray<number>, deltas: ReadonlyArray<number>): DiscretePair | null => {
  const lines: Line[] = [{ a: 0, s: 0 }]
  for (let i = 0; i < epsilons.length; i++) {
    const e = epsilons[i] as number
    const d = deltas[i] as number
    if (e === 0 && d === 0) return null // 0-DP: the release is independent of the data
    if (e === Infinity || d >= 1) continue
    const es = Math.exp(e)
    if (es < Infinity) lines.push({ a: 1 - d, s: es, exact: d === 0 })
    lines.push({ a: Math.exp(-e) * (1 - d), s: Math.exp(-e) })
  }
  if (lines.length === 1) return NON_PRIVATE
  const hull = envelope(lines)
  const atoms: Atom[] = []
  const first = hull[0] as Line
  // 1 − 0 is exact (a pure point): no rounding to undo, and no mass at +∞ that would cost ε(0).
  let beta = first.exact === true ? first.a : Math.min(1, first.a - ROUND * first.a)
  let alpha = 0
  // The drop at α = 0: mass of the first distribution only (loss +∞).
  if (1 - beta > 0) atoms.push({ p: 1 - beta, loss: Infinity })
  let qOnly = 0
  for (let k = 0; k < hull.length; k++) {
    const line = hull[k] as Line
    const next = hull[k + 1]
    if (next === undefined) break // the line β = 0: the rest of α is P-only below
    const x = Math.min(1, Math.max(alpha, meet(line, next)))
    const b = Math.max(0, Math.min(beta, under(line, x), under(next, x)))
    const drop = beta - b
    const len = x - alpha
    if (drop > 0) atoms.push({ p: drop, loss: len > 0 ? Math.log(drop) - Math.log(len) : Infinity })
    else qOnly += len
    alpha = x
    beta = b
  }
  // Whatever β is left drops at the last α (a vertical step: loss +∞, sound); the flat rest is Q-only.
  if (beta > 0) atoms.push({ p: beta, loss: Infinity })
  qOnly += 1 - alpha
  return { _tag: 'Discrete', atoms, qOnly }
}
