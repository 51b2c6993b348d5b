/**
 * One-run auditing (Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run",
 * NeurIPS 2023): for mechanisms too costly to run millions of times. m canaries are each included
 * independently with probability ½; the mechanism runs once; the attacker guesses "in" or "out" for
 * r of the canaries (abstaining on the rest) and gets v right. For an (ε, δ)-DP mechanism the number
 * of correct guesses is stochastically dominated as in their Theorem 5.2, which gives this p-value
 * (as ml_privacy_meter's `p_value_DP_audit` computes it):
 *
 *   q = e^ε/(1 + e^ε),  β(ε) = P[Binomial(r, q) ≥ v],
 *   α(ε) = max_{i=1..v} (1/i)·P[v > Binomial(r, q) ≥ v − i],
 *   p(ε, δ) = min(1, β(ε) + α(ε)·δ·2m)   (δ = 0: p = β),
 *
 * and ε_LB = sup{ε : p(ε, δ) < p_target}, found by bisection (p increases in ε). With probability at
 * least 1 − p_target over the canaries' inclusion bits and the mechanism's randomness, ε_LB is at most
 * the ε of any (ε, δ) the mechanism satisfies (for the canary-inclusion relation). One-run bounds are
 * tight for small ε and saturate for large ε (a few thousand guesses certify at most ≈ 6).
 *
 * @module
 */
import binomcoefln from '@stdlib/math-base-special-binomcoefln'
import { hashSeed, TrialRng } from './stream.js'

/** The p-value p(ε, δ) of v correct guesses out of r with m canaries (Steinke et al. 2023, Thm 5.2). */
export const oneRunPValue = (epsilon: number, delta: number, m: number, r: number, v: number): number => {
  if (v <= 0) return 1
  const q = 1 / (1 + Math.exp(-epsilon))
  const lq = Math.log(q)
  const l1q = Math.log1p(-q)
  // pmf[k] of Binomial(r, q), in log space then exponentiated (no underflow issue for the tails we sum).
  const pmf = new Float64Array(r + 1)
  for (let k = 0; k <= r; k++) pmf[k] = Math.exp(binomcoefln(r, k) + k * lq + (r - k) * l1q)
  let beta = 0
  for (let k = v; k <= r; k++) beta += pmf[k] as number
  if (delta === 0) return Math.min(1, beta)
  // α(ε): P[v − i ≤ B < v] grows with i; the maximum of its share 1/i.
  let alpha = 0
  let mass = 0
  for (let i = 1; i <= v; i++) {
    mass += pmf[v - i] as number
    alpha = Math.max(alpha, mass / i)
  }
  return Math.min(1, beta + alpha * delta * 2 * m)
}

/** ε_LB = sup{ε : p(ε, δ) < pTarget} by bisection on [0, 50]; 0 if even ε = 0 is not rejected. */
export const oneRunEpsilonLowerBound = (m: number, r: number, v: number, delta: number, pTarget = 0.05): number => {
  if (!(oneRunPValue(0, delta, m, r, v) < pTarget)) return 0
  let lo = 0
  let hi = 50
  if (oneRunPValue(hi, delta, m, r, v) < pTarget) return hi
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (oneRunPValue(mid, delta, m, r, v) < pTarget) lo = mid
    else hi = mid
  }
  return lo // the supremum from below: never above the set where p < pTarget
}

/** A mechanism audited in one run: given which canaries are included, one release. */
export interface OneRunSpec<O> {
  readonly canaries: number
  /** One run of the mechanism on the dataset with these canaries included (included[i] = canary i is in). */
  readonly run: (included: ReadonlyArray<boolean>, rng: TrialRng) => O
  /** The attacker's score for canary i: larger means "more likely included". */
  readonly score: (output: O, canary: number) => number
  /** Guesses: the `guessIn` highest scores are guessed in, the `guessOut` lowest out (default m/2 each: no abstention). */
  readonly guessIn?: number
  readonly guessOut?: number
  readonly delta?: number
  /** 1 − p_target (default 0.95). */
  readonly confidence?: number
  readonly seed: string | number
}

export interface OneRunResult {
  readonly canaries: number
  readonly guesses: number
  readonly correct: number
  readonly epsilonLowerBound: number
  readonly confidence: number
  readonly statement: string
}

/**
 * Runs a one-run audit: draws the inclusion bits from the seed, runs the mechanism once, guesses on
 * the extreme scores and bounds ε (Steinke et al. 2023). The guarantee is for the canary-level
 * relation: datasets differing in one canary's inclusion.
 */
export const auditOneRun = <O>(spec: OneRunSpec<O>): OneRunResult => {
  const m = spec.canaries
  const seed = hashSeed(spec.seed)
  const bits = new TrialRng([seed[0] ^ 0x0c0ffee, seed[1]])
  bits.reset(0)
  const included = Array.from({ length: m }, () => bits.next() < 0.5)
  const rng = new TrialRng([seed[0], seed[1] ^ 0x5eed])
  rng.reset(1)
  const output = spec.run(included, rng)
  const scores = included.map((_, i) => spec.score(output, i))
  const order = [...scores.keys()].sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b)
  const kIn = spec.guessIn ?? Math.floor(m / 2)
  const kOut = spec.guessOut ?? m - kIn
  let correct = 0
  for (let j = 0; j < kIn; j++) if (included[order[j] as number]) correct++
  for (let j = 0; j < kOut; j++) if (!included[order[m - 1 - j] as number]) correct++
  const r = Math.min(m, kIn + kOut)
  const delta = spec.delta ?? 0
  const confidence = spec.confidence ?? 0.95
  const lb = oneRunEpsilonLowerBound(m, r, correct, delta, 1 - confidence)
  return {
    canaries: m,
    guesses: r,
    correct,
    epsilonLowerBound: lb,
    confidence,
    statement: `${correct} of ${r} guesses on ${m} canaries correct: with ${+(confidence * 100).toPrecision(6)}% confidence the mechanism is not (ε, ${delta})-DP for any ε < ${lb.toFixed(3)} with respect to one canary's inclusion (Steinke, Nasr & Jagielski 2023, one run).`,
  }
}
