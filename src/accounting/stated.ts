/**
 * Stated guarantees given as curves rather than numbers (issue 26): an RDP curve stated at some
 * orders, and a privacy profile stated at some points. Both are read only as the upper bounds they
 * are; nothing is interpolated downward.
 *
 * A stated RDP curve says D_{α_i} ≤ r_i at the orders α_i > 1 listed. At any other order α the
 * accountants use the smaller of two sound bounds (van Erven & Harremoës 2014, "Rényi divergence
 * and Kullback–Leibler divergence"):
 * - monotonicity, D_α non-decreasing in α (their Thm 3): D_α ≤ min{r_j : α_j ≥ α};
 * - convexity of (α − 1)D_α in α (their Cor. 2, stated as the concavity of (1 − α)D_α): for
 *   α_i < α < α_j, (α − 1)D_α ≤ [(α_j − α)(α_i − 1)r_i + (α − α_i)(α_j − 1)r_j]/(α_j − α_i) — the
 *   chord of upper bounds lies above the chord of the true values.
 * Above the largest stated order neither gives anything (convexity bounds from below there), so the
 * curve is ∞: an accountant may only use the stated range. Below the smallest order the chord with
 * (1, 0) (α − 1)D_α ≤ 0 at α = 1) gives D_α ≤ r₁, which monotonicity gives too.
 *
 * A stated privacy profile says the mechanism is (ε_i, δ_i)-DP for every point listed. ε at δ is the
 * profile's inverse: the least ε_i with δ_i ≤ δ (a (ε_i, δ_i) guarantee is also (ε_i, δ)-DP for every
 * δ ≥ δ_i), ∞ when no point has δ_i ≤ δ; δ at ε is the least δ_i with ε_i ≤ ε, 1 when none.
 *
 * @module
 */

/** Which bound gave a stated curve's value at an order. */
export type StatedRdpRule = 'stated' | 'monotone' | 'convex' | 'beyond'

/** A stated curve sorted by order (ties keep the smaller value). */
export interface StatedCurve {
  readonly orders: ReadonlyArray<number>
  readonly rdp: ReadonlyArray<number>
}

/** Sorts a stated curve by order and merges repeated orders (keeping the smaller bound). */
export const sortedCurve = (orders: ReadonlyArray<number>, rdp: ReadonlyArray<number>): StatedCurve => {
  const idx = orders.map((_, i) => i).sort((a, b) => (orders[a] as number) - (orders[b] as number))
  const os: number[] = []
  const rs: number[] = []
  for (const i of idx) {
    const a = orders[i] as number
    const r = rdp[i] as number
    if (os.length > 0 && os[os.length - 1] === a) rs[rs.length - 1] = Math.min(rs[rs.length - 1] as number, r)
    else {
      os.push(a)
      rs.push(r)
    }
  }
  return { orders: os, rdp: rs }
}

/**
 * The stated curve's bound at order α > 1 (see the module comment), with the rule that gave it:
 * the smaller of the monotone bound and every convex chord over stated orders around α.
 */
export const statedRdpAt = (c: StatedCurve, alpha: number): { readonly value: number; readonly rule: StatedRdpRule } => {
  const n = c.orders.length
  let first = n // index of the first stated order ≥ α
  for (let j = 0; j < n; j++)
    if ((c.orders[j] as number) >= alpha) {
      first = j
      break
    }
  if (first === n) return { value: Infinity, rule: 'beyond' }
  let best = Infinity
  for (let j = first; j < n; j++) best = Math.min(best, c.rdp[j] as number)
  let rule: StatedRdpRule = c.orders[first] === alpha && c.rdp[first] === best ? 'stated' : 'monotone'
  for (let i = 0; i < first; i++) {
    const ai = c.orders[i] as number
    const ri = c.rdp[i] as number
    if (ri === Infinity) continue
    for (let j = first; j < n; j++) {
      const aj = c.orders[j] as number
      const rj = c.rdp[j] as number
      if (rj === Infinity || aj === alpha) continue
      const chord = ((aj - alpha) * (ai - 1) * ri + (alpha - ai) * (aj - 1) * rj) / ((aj - ai) * (alpha - 1))
      // Rounded up by a relative 4 ulp for the few operations above.
      const up = chord * (1 + 8 * Number.EPSILON)
      if (up < best) {
        best = up
        rule = 'convex'
      }
    }
  }
  return { value: best, rule }
}

/** ε at δ of a stated profile: the least ε_i with δ_i ≤ δ, ∞ when none. */
export const profileEpsilon = (epsilons: ReadonlyArray<number>, deltas: ReadonlyArray<number>, delta: number): number => {
  let best = Infinity
  for (let i = 0; i < epsilons.length; i++) if ((deltas[i] as number) <= delta) best = Math.min(best, epsilons[i] as number)
  return best
}

/** δ at ε of a stated profile: the least δ_i with ε_i ≤ ε, 1 when none. */
export const profileDelta = (epsilons: ReadonlyArray<number>, deltas: ReadonlyArray<number>, epsilon: number): number => {
  let best = 1
  for (let i = 0; i < epsilons.length; i++) if ((epsilons[i] as number) <= epsilon) best = Math.min(best, deltas[i] as number)
  return best
}
