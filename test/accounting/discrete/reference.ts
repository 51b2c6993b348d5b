/**
 * Independent references for the discrete mechanisms, by direct summation over the integers in
 * plain double precision (no closed forms from src/): the noise laws, the exact privacy-loss
 * distribution of a shift (outcomes merged by loss on a common lattice), its composition by
 * convolution, δ(ε), the subsampled δ(ε), and Rényi divergences.
 */

/** A law on the integers lo, lo + 1, …, lo + p.length − 1. */
export interface Law {
  readonly lo: number
  readonly p: Float64Array
}

/** A law with mass f(x) ∝ weight(x) on [−R, R], normalised by its own sum. */
const lawOf = (R: number, weight: (x: number) => number): Law => {
  const p = new Float64Array(2 * R + 1)
  let z = 0
  for (let i = 0; i < p.length; i++) {
    p[i] = weight(i - R)
    z += p[i]!
  }
  for (let i = 0; i < p.length; i++) p[i] = p[i]! / z
  return { lo: -R, p }
}

/** Discrete Gaussian σ, on a range wide enough that the omitted mass is below 1e-300. */
export const discreteGaussianLaw = (sigma: number): Law =>
  lawOf(Math.ceil(38 * sigma) + 2, (x) => Math.exp(-(x * x) / (2 * sigma * sigma)))

/** Discrete Laplace of scale t, on a range wide enough that the omitted mass is below 1e-300. */
export const discreteLaplaceLaw = (t: number): Law => lawOf(Math.ceil(700 * t) + 2, (x) => Math.exp(-Math.abs(x) / t))

const at = (law: Law, x: number): number => {
  const i = x - law.lo
  return i >= 0 && i < law.p.length ? law.p[i]! : 0
}

/** A PLD on a lattice: P-mass mass[j] at loss (j0 + j)·unit (never at ±∞ for these pairs). */
export interface LatticePld {
  readonly j0: number
  readonly unit: number
  readonly mass: Float64Array
}

/**
 * The PLD of P = law of Z + k, Q = law of Z, merged by loss, when the loss at x is
 * index(x)·unit with an integer index.
 */
export const shiftPld = (law: Law, k: number, unit: number, index: (x: number) => number): LatticePld => {
  const xs: number[] = []
  for (let x = law.lo; x < law.lo + law.p.length + k; x++) xs.push(x)
  let jmin = Infinity
  let jmax = -Infinity
  for (const x of xs) {
    const j = index(x)
    jmin = Math.min(jmin, j)
    jmax = Math.max(jmax, j)
  }
  const mass = new Float64Array(jmax - jmin + 1)
  for (const x of xs) mass[index(x) - jmin] = mass[index(x) - jmin]! + at(law, x - k)
  return { j0: jmin, unit, mass }
}

/** The discrete Gaussian's PLD for a shift by k, on the lattice of unit 1/(2σ²) (index (2x − k)k). */
export const dgShiftPld = (law: Law, sigma: number, k: number): LatticePld =>
  shiftPld(law, k, 1 / (2 * sigma * sigma), (x) => (2 * x - k) * k)

/** The discrete Laplace's PLD for a shift by k, on the lattice of unit 1/t (index |x| − |x − k|). */
export const dlShiftPld = (law: Law, t: number, k: number): LatticePld =>
  shiftPld(law, k, 1 / t, (x) => Math.abs(x) - Math.abs(x - k))

/** Composition: the PLDs' loss variables add (independent outputs), so the masses convolve. */
export const composePld = (a: LatticePld, b: LatticePld): LatticePld => {
  const mass = new Float64Array(a.mass.length + b.mass.length - 1)
  for (let i = 0; i < a.mass.length; i++) {
    const ai = a.mass[i]!
    if (ai === 0) continue
    for (let j = 0; j < b.mass.length; j++) mass[i + j] = mass[i + j]! + ai * b.mass[j]!
  }
  return { j0: a.j0 + b.j0, unit: a.unit, mass }
}

export const selfComposePld = (a: LatticePld, k: number): LatticePld => {
  let out = a
  for (let i = 1; i < k; i++) out = composePld(out, a)
  return out
}

/** δ(ε) = Σ_{L > ε} P(L)(1 − e^{ε − L}) — every term non-negative, no cancellation. */
export const pldDeltaAt = (pld: LatticePld, eps: number): number => {
  let d = 0
  for (let j = 0; j < pld.mass.length; j++) {
    const loss = (pld.j0 + j) * pld.unit
    if (loss > eps) d += pld.mass[j]! * -Math.expm1(eps - loss)
  }
  return d
}

/**
 * δ(ε) of one Poisson-subsampled shift by k, worse of remove (qA + (1 − q)B vs B) and add
 * (B vs qA + (1 − q)B), A = law of Z + k, B = law of Z, summed outcome by outcome.
 */
export const subsampledShiftDelta = (law: Law, k: number, q: number, eps: number): number => {
  const e = Math.exp(eps)
  let remove = 0
  let add = 0
  for (let x = law.lo; x < law.lo + law.p.length + k; x++) {
    const a = at(law, x - k)
    const b = at(law, x)
    const mix = q * a + (1 - q) * b
    remove += Math.max(0, mix - e * b)
    add += Math.max(0, b - e * mix)
  }
  return Math.max(remove, add)
}

/**
 * D_α(law of Z + k ‖ law of Z) = log Σ_x A^α B^{1−α} / (α − 1) over x ∈ [lo, hi], from the log pmf,
 * the sum in log space (the caller picks a range holding every term that matters).
 */
export const renyiShift = (logPmf: (x: number) => number, k: number, alpha: number, lo: number, hi: number): number => {
  const logs: number[] = []
  for (let x = lo; x <= hi; x++) logs.push(alpha * logPmf(x - k) + (1 - alpha) * logPmf(x))
  let m = -Infinity
  for (const l of logs) m = Math.max(m, l)
  let s = 0
  for (const l of logs) s += Math.exp(l - m)
  return (m + Math.log(s)) / (alpha - 1)
}

/** log pmf of the discrete Laplace of scale t (normaliser in closed form: Σ e^{−|x|/t} = coth(1/(2t))). */
export const dlLogPmf = (t: number) => (x: number): number => -Math.abs(x) / t + Math.log(Math.tanh(1 / (2 * t)))

/**
 * The law of Z_1 + … + Z_T (T independent draws of `law`) by repeated squaring of truncated
 * convolutions: every convolution drops the mass beyond |s| > W, so each value is a (sub-)probability
 * never above the exact one — a δ(ε) summed from it is a lower bound on the exact δ(ε) (every term
 * P(s)(1 − e^{ε − loss})₊ is non-negative). `dropped` is the total mass left out.
 */
export const sumLaw = (law: Law, T: number, W: number): { readonly law: Law; readonly dropped: number } => {
  const conv = (a: Law, b: Law): Law => {
    const lo = Math.max(-W, a.lo + b.lo)
    const hi = Math.min(W, a.lo + a.p.length - 1 + b.lo + b.p.length - 1)
    const p = new Float64Array(hi - lo + 1)
    for (let i = 0; i < a.p.length; i++) {
      const ai = a.p[i]!
      if (ai === 0) continue
      const x = a.lo + i
      const j0 = Math.max(0, lo - x - b.lo)
      const j1 = Math.min(b.p.length - 1, hi - x - b.lo)
      for (let j = j0; j <= j1; j++) p[x + b.lo + j - lo] = p[x + b.lo + j - lo]! + ai * b.p[j]!
    }
    return { lo, p }
  }
  let result: Law | undefined
  let power = law
  for (let t = T; t > 0; t = Math.floor(t / 2)) {
    if (t & 1) result = result === undefined ? power : conv(result, power)
    if (t > 1) power = conv(power, power)
  }
  const out = result as Law
  let total = 0
  for (const v of out.p) total += v
  return { law: out, dropped: 1 - total }
}

/**
 * A lower bound on δ(ε) of T steps of the Poisson-subsampled shift by k (worse of the remove and
 * add directions, as `subsampledShiftDelta`), exact for the pair garbled to a few categories of
 * outputs: x ≤ cuts[0], cuts[0] < x ≤ cuts[1], …, x > cuts[last]. Merging outputs is a
 * post-processing, which can only lower δ(ε) (data processing for the hockey-stick divergence), and
 * T steps of a pair with C outcomes are summed exactly over the C(T + C − 1, C − 1) count vectors
 * (multinomial weights from log-factorials).
 */
export const garbledSubsampledDelta = (law: Law, k: number, q: number, cuts: ReadonlyArray<number>, T: number, eps: number): number => {
  const C = cuts.length + 1
  const A = new Float64Array(C)
  const B = new Float64Array(C)
  for (let x = law.lo; x < law.lo + law.p.length + k; x++) {
    let c = 0
    while (c < cuts.length && x > cuts[c]!) c++
    A[c] = A[c]! + at(law, x - k)
    B[c] = B[c]! + at(law, x)
  }
  const logF = new Float64Array(T + 1)
  for (let i = 1; i <= T; i++) logF[i] = logF[i - 1]! + Math.log(i)
  let worst = 0
  for (const remove of [true, false]) {
    const logP = new Float64Array(C)
    const loss = new Float64Array(C)
    for (let c = 0; c < C; c++) {
      const mix = q * A[c]! + (1 - q) * B[c]!
      const [p, qq] = remove ? [mix, B[c]!] : [B[c]!, mix]
      logP[c] = Math.log(p)
      loss[c] = Math.log(p) - Math.log(qq)
    }
    let d = 0
    const visit = (c: number, left: number, lp: number, l: number): void => {
      if (c === C - 1) {
        if (left > 0 && logP[c] === -Infinity) return
        const lossT = l + (left === 0 ? 0 : left * loss[c]!)
        if (lossT > eps) d += Math.exp(logF[T]! + lp + (left === 0 ? 0 : left * logP[c]!) - logF[left]!) * (lossT === Infinity ? 1 : -Math.expm1(eps - lossT))
        return
      }
      for (let m = 0; m <= left; m++) {
        if (m > 0 && logP[c] === -Infinity) break
        visit(c + 1, left - m, lp + (m === 0 ? 0 : m * logP[c]!) - logF[m]!, l + (m === 0 ? 0 : m * loss[c]!))
      }
    }
    visit(0, T, 0, 0)
    worst = Math.max(worst, d)
  }
  return worst
}
