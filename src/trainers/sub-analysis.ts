/**
 * The SUB-LDA paper's own privacy and efficiency formulas (Findings of EMNLP 2021), reproduced so that
 * its claims can be stated and compared — never used as the accounted ε (the RDP accountant is):
 * - eq. (3) (Zhu & Wang 2019, Thm 6 upper bound for Poisson subsampling, stated for add/remove
 *   neighbours): ε_sub(α) = 1/(α−1)·ln{(1−γ)^{α−1}(αγ−γ+1) + Σ_{ℓ=2}^{α} C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓ e^{(ℓ−1)ε(ℓ)}}
 *   for integer α ≥ 2, with the Gaussian's ε(ℓ) = ℓ/(2σ²) and σ² = α/(2ε(α)) (§4.1);
 * - the efficiency–privacy function I(γ) = γ·e^{(α−1)ε_sub(α)} (eq. 6) and its maximiser γ0
 *   (Lemma 4.1: I increases on (0, γ0] and decreases on (γ0, 1]);
 * - the adaptive-subsampling bound of Lemma 5.1 (eq. 13): ε̄ ≤ ε′ − ln(ηq), δ̄ ≤ γ/(ηq)·δ.
 *
 * @module
 */
import binomcoefln from '@stdlib/math-base-special-binomcoefln'

/** σ of SUB-LDA's Gaussian: σ² = α/(2ε(α)) (SUB-LDA paper, §4.1). */
export const subLdaSigma = (order: number, rdpEpsilon: number): number => Math.sqrt(order / (2 * rdpEpsilon))

const logAdd = (a: number, b: number): number => (a === -Infinity ? b : b === -Infinity ? a : Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b))))

/** Eq. (3) for an integer order α ≥ 2 and a per-order RDP curve ε(ℓ), computed in log space. */
export const paperSubsampledRdp = (order: number, gamma: number, eps: (l: number) => number): number => {
  if (!(Number.isInteger(order) && order >= 2)) return Number.NaN
  if (gamma === 1) return eps(order)
  const lg = Math.log(gamma)
  const l1g = Math.log1p(-gamma)
  let s = (order - 1) * l1g + Math.log1p((order - 1) * gamma)
  for (let l = 2; l <= order; l++) s = logAdd(s, binomcoefln(order, l) + (order - l) * l1g + l * lg + (l - 1) * eps(l))
  return s / (order - 1)
}

/** The Gaussian RDP curve SUB-LDA assumes: ε(ℓ) = ℓ·Δ²/(2σ²) (Mironov 2017, Prop. 7). */
export const gaussianRdp = (sigma: number, sensitivity = 1) => (l: number): number => (l * sensitivity * sensitivity) / (2 * sigma * sigma)

/** I(γ) = γ·exp((α − 1)·ε_sub(α)), eq. (6). */
export const efficiencyPrivacy = (gamma: number, order: number, eps: (l: number) => number): number =>
  gamma * Math.exp((order - 1) * paperSubsampledRdp(order, gamma, eps))

export interface EfficiencyPrivacyMaximum {
  readonly gamma0: number
  readonly value: number
  /** Whether I is increasing on (0, γ0] and decreasing on (γ0, 1] on the evaluation grid (Lemma 4.1). */
  readonly unimodal: boolean
}

/** γ0 = argmax over (0, 1] of I (grid of 2000 points, then golden-section refinement). */
export const efficiencyPrivacyMaximiser = (order: number, eps: (l: number) => number): EfficiencyPrivacyMaximum => {
  const n = 2000
  const vals = new Float64Array(n)
  let best = 0
  for (let i = 0; i < n; i++) {
    vals[i] = efficiencyPrivacy((i + 1) / n, order, eps)
    if ((vals[i] as number) > (vals[best] as number)) best = i
  }
  let unimodal = true
  for (let i = 1; i < n; i++) {
    const up = (vals[i] as number) >= (vals[i - 1] as number) * (1 - 1e-12)
    const down = (vals[i] as number) <= (vals[i - 1] as number) * (1 + 1e-12)
    if (i <= best ? !up : !down) unimodal = false
  }
  let a = Math.max(1e-9, best / n)
  let b = Math.min(1, (best + 2) / n)
  const g = (Math.sqrt(5) - 1) / 2
  for (let it = 0; it < 80; it++) {
    const c = b - g * (b - a)
    const d = a + g * (b - a)
    if (efficiencyPrivacy(c, order, eps) >= efficiencyPrivacy(d, order, eps)) b = d
    else a = c
  }
  const gamma0 = best === n - 1 ? 1 : (a + b) / 2
  return { gamma0, value: efficiencyPrivacy(gamma0, order, eps), unimodal }
}

/** Lemma 5.1 (eq. 13): the adaptive-subsampling guarantee from the uniform one (ε′, δ). */
export const adaptiveSubsamplingClaim = (epsilonUniform: number, delta: number, gamma: number, eta: number, q: number): { epsilon: number; delta: number } => ({
  epsilon: epsilonUniform - Math.log(eta * q),
  delta: (gamma / (eta * q)) * delta,
})
